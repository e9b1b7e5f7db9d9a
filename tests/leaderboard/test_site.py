"""``leaderboard build`` on a store with several runs: rows, ranks, intervals, verified
marks (only from verification records that re-measured every claim), re-measured figures
for verified runs, verified runs ranked first, drill-downs, and no external URLs."""

from __future__ import annotations

import json
import re
import shutil
import threading
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from kerneltrials.cli import cli
from kerneltrials.leaderboard import (
    Bundle,
    build_site,
    bundle_from_store,
    save_bundle,
    serve_site,
    verify_bundle,
)
from kerneltrials.results import open_store
from tests.leaderboard.conftest import MACHINE_A

pytestmark = pytest.mark.timeout(120)

ROW = re.compile(
    r'<tr data-run="(?P<slug>[^"]+)" data-scope="(?P<scope>[^"]+)"[^>]*>(?P<body>.*?)</tr>', re.S
)


def cell(body: str, key: str) -> str:
    match = re.search(rf'<td data-key="{key}" data-sort="([^"]*)">(.*?)</td>', body, re.S)
    assert match, f"no {key} cell"
    return re.sub(r"<[^>]+>", "", match.group(2)).strip()


def rows(site: Path, scope: str = "all") -> dict[str, str]:
    """run name -> row HTML, for one scope of the main table."""
    html = (site / "index.html").read_text()
    found = {}
    for match in ROW.finditer(html):
        if match.group("scope") == scope:
            found[cell(match.group("body"), "run").split()[0]] = match.group("body")
    return found


def verification(row: str) -> str:
    """The run cell's mark: verified / partially verified / verification failed / unverified."""
    match = re.search(r'data-verification="([^"]+)"', row)
    assert match, "no data-verification"
    return match.group(1)


def replaying(bundle: Bundle, factor: float = 1.0, not_run: bool = False) -> Callable[..., Any]:
    """A checker for ``verify_bundle`` that answers each re-run with the bundle's own verdict
    for that source, its speedups times ``factor`` (or ``not_run``, as a GPU-less machine
    answers a CUDA candidate): the conftest's candidates are stand-ins that cannot run, and
    the site tests are about what a verification record makes the site show."""
    verdicts = {attempt.source: attempt.verdict.to_dict() for attempt in bundle.attempts}

    def check(task_id: str, source: str, backend: str, hidden_seed: int | None) -> dict[str, Any]:
        verdict = {**verdicts[source], "hardware": MACHINE_A, "hidden_seed": hidden_seed}
        if not_run:
            return {**verdict, "status": "not_run", "speedup": None, "speedup_compile": None,
                    "reasons": ["device:no_gpu:built, but this machine has no CUDA device"]}  # fmt: skip
        for name in ("speedup", "speedup_compile"):
            verdict[name] = None if verdict[name] is None else verdict[name] * factor
        return verdict

    return check


def record_verify(store_path: Path, run: str, factor: float = 1.0, not_run: bool = False) -> None:
    """Verify a stored run as ``kerneltrials verify --db`` does, with a replaying checker."""
    with open_store(store_path) as store:
        bundle = bundle_from_store(store, run)
        report = verify_bundle(bundle, checker=replaying(bundle, factor, not_run))
        store.record_verification(run, report.bundle_sha256, holds=report.holds,
                                  outcome=report.to_json(), hardware=report.hardware)  # fmt: skip


@pytest.fixture(scope="module")
def site(runs_store: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The conftest store, plus a current verification of fast-oneshot whose re-measured
    figures equal its claims (so the numbers below are the stored ones either way)."""
    root = tmp_path_factory.mktemp("site")
    store = shutil.copyfile(runs_store, root / "results.sqlite")
    record_verify(store, "fast-oneshot")
    build_site(root / "out", [store])
    return root / "out"


def test_one_row_per_run_with_interval_respecting_ranks(site: Path) -> None:
    table = rows(site)
    assert set(table) == {"fast-oneshot", "slow-refine", "mid-coderjudge", "unscored"}
    ranks = {name: cell(body, "rank") for name, body in table.items()}
    # slow-refine is the only run of the gpu profile: ranked among gpu runs, not the cpu ones
    assert ranks == {
        "fast-oneshot": "1",
        "slow-refine": "1",
        "mid-coderjudge": "2",
        "unscored": "–",
    }


def test_scores_and_intervals_come_from_the_stored_reports(site: Path, runs_store: Path) -> None:
    body = rows(site)["fast-oneshot"]
    with open_store(runs_store) as store:
        stored = {s.baseline: s.report for s in store.load_scores("fast-oneshot")}
    low, high = stored["eager"]["geomean_speedup"]["ci95"]
    assert (
        cell(body, "geomean")
        == f"{stored['eager']['geomean_speedup']['value']:.2f}x [{low:.2f}, {high:.2f}]"
    )
    assert cell(body, "eager-2") == "66.7%" and cell(body, "eager-1.5") == "100.0%"
    assert cell(body, "compile-0") == "100.0%"
    assert cell(body, "cost") == "$0.0300" and cell(body, "tokens") == "4500"  # the run's
    assert cell(body, "harness") == "0.1.0" and cell(body, "taskset") == "ts-2025.1"
    assert "not scored" in cell(rows(site)["unscored"], "geomean")


def test_per_level_rows_are_ranked_within_their_level_and_hidden_by_default(site: Path) -> None:
    level_two = rows(site, "L2")
    assert cell(level_two["fast-oneshot"], "eager-1") == "100.0%"
    assert cell(level_two["mid-coderjudge"], "eager-0") == "0.0%"  # its only L2 task failed
    assert cell(level_two["mid-coderjudge"], "rank") == "2"  # no correct L2 task: below it
    html = (site / "index.html").read_text()
    assert all(
        " hidden" in m.group(0).split(">")[0]
        for m in ROW.finditer(html)
        if m.group("scope") != "all"
    )


def test_every_figure_is_read_from_the_stored_report_never_recomputed(
    runs_store: Path, tmp_path: Path
) -> None:
    # a stored report that disagrees with the attempts is shown as stored: nothing re-scores
    store = Path(shutil.copyfile(runs_store, tmp_path / "results.sqlite"))
    with open_store(store) as opened:
        [eager] = [s.report for s in opened.load_scores("slow-refine") if s.baseline == "eager"]
        level_two = {**eager["groups"]["L2"], "fast_p": {**eager["groups"]["L2"]["fast_p"], "1": 0.125},
                     "geomean_speedup": {"value": 7.0, "ci95": [6.0, 8.0], "n": 1}}  # fmt: skip
        opened.save_score("slow-refine", {**eager, "fast_p": {**eager["fast_p"], "2": 0.375},
                                          "groups": {**eager["groups"], "L2": level_two}})  # fmt: skip
    build_site(tmp_path / "out", [store])
    assert cell(rows(tmp_path / "out")["slow-refine"], "eager-2") == "37.5%"
    level = rows(tmp_path / "out", "L2")["slow-refine"]
    assert cell(level, "eager-1") == "12.5%" and cell(level, "geomean").startswith("7.00x")
    assert cell(level, "rank") == "1"  # ranked by the stored interval [6, 8]
    # a level the stored report has no group for is not scored (not computed here)
    with open_store(store) as opened:
        opened.save_score("slow-refine", {**eager, "groups": {}})
    build_site(tmp_path / "bare", [store])
    assert cell(rows(tmp_path / "bare", "L2")["slow-refine"], "rank") == "–"
    assert "not scored" in cell(rows(tmp_path / "bare", "L2")["slow-refine"], "geomean")


def test_verified_mark_only_for_a_holding_record_of_the_exact_content(site: Path) -> None:
    states = {name: verification(body) for name, body in rows(site).items()}
    # slow-refine: its record is of another hash; mid-coderjudge: an old record that failed
    assert states == {"fast-oneshot": "verified", "slow-refine": "unverified",
                      "mid-coderjudge": "unverified", "unscored": "unverified"}  # fmt: skip
    assert cell(rows(site)["fast-oneshot"], "run") == "fast-oneshot &#10003; verified"
    assert cell(rows(site)["slow-refine"], "run") == "slow-refine unverified"


def test_a_record_that_did_not_remeasure_every_speedup_does_not_verify(
    runs_store: Path, tmp_path: Path
) -> None:
    # the conftest's record of fast-oneshot holds, from a verify that did not re-measure
    # speedups on other hardware (no verification_version): it counts as no record
    build_site(tmp_path, [runs_store])
    assert verification(rows(tmp_path)["fast-oneshot"]) == "unverified"
    page = next((tmp_path / "runs").glob("fast-oneshot_*.html")).read_text()
    assert "did not re-measure every speedup" in page and "verified-note" not in page


def test_verified_runs_show_remeasured_figures_and_rank_above_unverified_ones(
    runs_store: Path, tmp_path: Path
) -> None:
    store = Path(shutil.copyfile(runs_store, tmp_path / "results.sqlite"))
    record_verify(store, "mid-coderjudge", factor=0.8)  # claims 1.25x the re-measurement: hold
    record_verify(store, "slow-refine", not_run=True)  # a CUDA run on a GPU-less verifier
    build_site(tmp_path / "out", [store])
    table = rows(tmp_path / "out")
    states = {name: verification(body) for name, body in table.items()}
    assert states["mid-coderjudge"] == "verified"
    assert states["slow-refine"] == "partially verified"
    assert "partially verified" in cell(table["slow-refine"], "run")
    with open_store(store) as opened:
        record, _old = opened.verifications_for(
            "mid-coderjudge", bundle_from_store(opened, "mid-coderjudge").content_sha256
        )  # newest first
        claimed = {s.baseline: s.report for s in opened.load_scores("mid-coderjudge")}
    remeasured = record.outcome["remeasured_scores"]["eager"]["geomean_speedup"]
    assert abs(remeasured["value"] - 0.8 * claimed["eager"]["geomean_speedup"]["value"]) < 1e-9
    assert cell(table["mid-coderjudge"], "geomean").startswith(f"{remeasured['value']:.2f}x")
    assert cell(table["mid-coderjudge"], "eager-1") == "0.0%"  # claimed 33.3%: 1.2x -> 0.96x
    # its level rows too show the re-measured scores the store keeps with the record
    assert record.scores["eager"]["groups"]["L1"]["fast_p"]["1"] == 0.0
    assert cell(rows(tmp_path / "out", "L1")["mid-coderjudge"], "eager-1") == "0.0%"  # claimed 50%
    # fast-oneshot's interval lies above mid-coderjudge's, but it is unverified
    ranks = {name: cell(body, "rank") for name, body in table.items()}
    # slow-refine is the gpu profile's only run: rank 1 among those
    assert ranks == {"mid-coderjudge": "1", "fast-oneshot": "2", "slow-refine": "1",
                     "unscored": "–"}  # fmt: skip
    run_page = next((tmp_path / "out" / "runs").glob("slow-refine_*.html")).read_text()
    assert "Partially verified (not verified)" in run_page and "not remeasured" in run_page
    assert "device:no_gpu" in run_page


def test_a_bundle_is_verified_only_by_a_store_record(runs_store: Path, tmp_path: Path) -> None:
    bundles = tmp_path / "bundles"
    bundles.mkdir()
    with open_store(runs_store) as store:
        bundle = bundle_from_store(store, "slow-refine")
    renamed = bundle.model_copy(
        update={"run": bundle.run.model_copy(update={"name": "submitted"})}
    ).rehashed()
    save_bundle(renamed, bundles / "submitted.json")
    # a bundle cannot vouch for itself: an extra "verified" field makes it unreadable
    data = json.loads((bundles / "submitted.json").read_text())
    (bundles / "self-verified.json").write_text(json.dumps({**data, "verified": True}))
    build_site(tmp_path / "plain", [], bundles)
    assert verification(rows(tmp_path / "plain")["submitted"]) == "unverified"
    verifier_db = tmp_path / "maintainer.sqlite"
    report = verify_bundle(renamed, checker=replaying(renamed))
    with open_store(verifier_db) as store:
        store.record_verification("submitted", renamed.content_sha256, holds=report.holds,
                                  outcome=report.to_json())  # fmt: skip
    result = build_site(tmp_path / "checked", [verifier_db], bundles)
    assert verification(rows(tmp_path / "checked")["submitted"]) == "verified"
    assert len(result.skipped) == 1 and "self-verified.json" in result.skipped[0]


def test_no_page_or_asset_refers_to_anything_outside_the_site(site: Path) -> None:
    files = [p for p in site.rglob("*") if p.is_file()]
    assert len(files) >= 10
    for path in files:
        text = path.read_text()
        assert "http://" not in text and "https://" not in text, path
        assert "@import" not in text and not re.search(r"url\((?!['\"]?data:)", text), path
        for target in re.findall(r'(?:src|href)="([^"]*)"', text):
            assert not target.startswith(("/", "//")) and ":" not in target, (path, target)
            assert (path.parent / target.split("#")[0]).resolve().is_file(), (path, target)


def test_drill_down_shows_verdict_reasons_source_and_escaped_transcript(site: Path) -> None:
    run_page = next((site / "runs").glob("slow-refine_*.html"))
    link = re.search(r'<a class="drill" href="([^"]+)">L1/gelu</a>', run_page.read_text())
    assert link
    page = (run_page.parent / link.group(1)).read_text()
    assert "status-incorrect" in page and "correctness:max_abs_err=0.5" in page
    assert 'class="highlight"' in page and "ModelNew" in page  # highlighted source
    assert "Agent transcript (2 messages)" in page and "Write L1/gelu." in page
    assert "<script>alert" not in page and "&lt;script&gt;alert" in page


def test_task_view_lists_each_runs_best_kernel_best_first(site: Path) -> None:
    page = next((site / "tasks").glob("L1_relu-*.html")).read_text()
    order = [m for m in re.findall(r'data-key="run" data-sort="([^"]+)"', page)]
    assert order == ["fast-oneshot", "mid-coderjudge", "slow-refine", "unscored"]
    assert page.count('class="highlight"') == 3  # the correct, scored kernels' sources


def test_plots_are_inline_svg_with_one_curve_per_scored_run(site: Path) -> None:
    html = (site / "index.html").read_text()
    assert html.count('<g class="curve"') == 3 and html.count('<g class="dist"') == 3
    assert "<polyline" in html and "<circle" in html


def test_cli_build_and_serve(runs_store: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["leaderboard", "build", "--db", str(runs_store),
                                      "--out", str(tmp_path / "site"), "--json"])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["runs"] == 4
    server = serve_site(tmp_path / "site", port=0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        port = server.server_address[1]
        page = urllib.request.urlopen(f"http://127.0.0.1:{port}/index.html", timeout=10).read()
        assert b"fast-oneshot" in page
    finally:
        server.shutdown()
        server.server_close()


def test_build_with_a_missing_store_exits_2(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["leaderboard", "build", "--db", str(tmp_path / "nope.sqlite"),
                                      "--out", str(tmp_path / "site")])  # fmt: skip
    assert result.exit_code == 2 and "no results store" in result.output
