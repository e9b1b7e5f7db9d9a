"""Submission bundles: ``submit`` writes a self-describing, hashed file; ``verify``
re-runs every candidate and fails (exit 1) on an edited speedup or a swapped source."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

import kerneltrials
from kerneltrials.cli import cli
from kerneltrials.leaderboard import build_site, load_bundle, save_bundle
from kerneltrials.leaderboard._verify import check_scores
from kerneltrials.results import open_store, score_run
from kerneltrials.verifier import QUICK_TIMING, CheckOptions
from tests.leaderboard.test_site import cell, rows
from tests.verifier.candidates import candidate

pytestmark = pytest.mark.timeout(120)


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


def test_submit_writes_a_self_describing_hashed_bundle(runs_store: Path, tmp_path: Path) -> None:
    result = invoke(
        "submit",
        "slow-refine",
        "--db",
        str(runs_store),
        "--out",
        str(tmp_path / "b.json.gz"),
        "--json",
    )
    assert result.exit_code == 0, result.output
    data = json.loads(gzip.decompress((tmp_path / "b.json.gz").read_bytes()))
    assert data["bundle_version"] == 1 and data["kind"] == "kerneltrials-submission"
    assert (
        data["environment"]["gpu"] == "NVIDIA H100 80GB HBM3"
        and data["environment"]["driver"] == "580.65"
    )
    assert data["environment"]["torch"] == "2.14.1+cu130"
    assert [a["task_id"] for a in data["attempts"]] == ["L1/gelu", "L1/relu", "L2/fused"]
    assert all("class ModelNew" in a["source"] and a["verdict"]["status"] for a in data["attempts"])
    assert set(data["scores"]) == {"eager", "compile"}
    bundle = load_bundle(tmp_path / "b.json.gz")
    assert (
        bundle.has_valid_hash()
        and bundle.content_sha256 == json.loads(result.stdout)["content_sha256"]
    )


def test_submit_of_an_unknown_run_exits_2(runs_store: Path, tmp_path: Path) -> None:
    result = invoke("submit", "nope", "--db", str(runs_store), "--out", str(tmp_path / "b.json"))
    assert result.exit_code == 2 and "no run named 'nope'" in result.output


def test_edited_bundle_fails_verify_on_its_hash_without_running_anything(
    runs_store: Path, tmp_path: Path
) -> None:
    invoke("submit", "fast-oneshot", "--db", str(runs_store), "--out", str(tmp_path / "b.json"))
    data = json.loads((tmp_path / "b.json").read_text())
    data["attempts"][0]["speedup"] = 99.0
    (tmp_path / "b.json").write_text(json.dumps(data))
    result = invoke("verify", str(tmp_path / "b.json"), "--json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert report["hash_ok"] is False and report["holds"] is False and report["attempts"] == []


def test_score_reports_that_do_not_follow_from_the_verdicts_are_caught(runs_store: Path) -> None:
    with open_store(runs_store) as store:
        from kerneltrials.leaderboard import bundle_from_store

        bundle = bundle_from_store(store, "mid-coderjudge")
    assert check_scores(bundle) == (True, [])
    inflated = dict(bundle.scores["eager"], fast_p={**bundle.scores["eager"]["fast_p"], "1": 1.0})
    edited = bundle.model_copy(update={"scores": {**bundle.scores, "eager": inflated}}).rehashed()
    holds, notes = check_scores(edited)
    assert holds is False and "scores[eager].fast_p" in notes[0]


def test_a_newer_bundle_version_is_refused_with_the_fix(tmp_path: Path) -> None:
    (tmp_path / "b.json").write_text(
        json.dumps({"kind": "kerneltrials-submission", "bundle_version": 9})
    )
    result = invoke("verify", str(tmp_path / "b.json"))
    assert result.exit_code == 2 and "upgrade kerneltrials" in result.output


# --- re-running real candidates (one shared, cached CPU build: tests/verifier/candidates.py)


@pytest.fixture(scope="module")
def honest_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run with one honest, really verified relu candidate, submitted as a bundle."""
    root = tmp_path_factory.mktemp("honest")
    source = candidate("relu_ok")
    options = CheckOptions(timing=QUICK_TIMING, compile_baseline=False, call_timeout_s=30)
    verdict = kerneltrials.check("L1/relu", source, hidden_seed=11, options=options)
    assert verdict.status == "correct", verdict.reasons
    with open_store(root / "submitter.sqlite") as store:
        store.create_run(name="honest", model="reference", agent="one-shot", backend="cpu", profile="cpu",
                         hardware=verdict.hardware, harness_version=verdict.harness_version,
                         task_ids=["L1/relu"], hidden_seed=11)  # fmt: skip
        store.record_attempt("honest", "L1/relu", verdict, source=source)
        store.finish_run("honest")
        score_run(store, "honest", save=True)
    result = invoke(
        "submit",
        "honest",
        "--db",
        str(root / "submitter.sqlite"),
        "--out",
        str(root / "honest.json"),
    )
    assert result.exit_code == 0, result.output
    return root / "honest.json"


def verify_json(path: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    result = invoke("verify", str(path), "--quick", "--json", *extra)
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(result.stdout)


def tampered(path: Path, out: Path, **attempt_fields: Any) -> Path:
    bundle = load_bundle(path)
    attempt = bundle.attempts[0]
    verdict = attempt.verdict.model_copy(
        update={k: v for k, v in attempt_fields.items() if k == "speedup"}
    )
    edited = attempt.model_copy(update={**attempt_fields, "verdict": verdict})
    save_bundle(bundle.model_copy(update={"attempts": [edited]}).rehashed(), out)
    return out


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_untampered_bundle_verifies_and_build_marks_it_verified(
    honest_bundle: Path, tmp_path: Path
) -> None:
    maintainer = tmp_path / "maintainer.sqlite"
    # A wide tolerance: quick timings on a shared 2-core machine are noisy; the tampered
    # bundle below claims 50x what was measured, far outside it.
    code, report = verify_json(honest_bundle, "--tolerance", "0.9", "--db", str(maintainer))
    assert code == 0 and report["holds"] is True, report
    attempt = report["attempts"][0]
    assert attempt["status_measured"] == "correct" and attempt["speedup_holds"] is True
    assert report["tasks"]["L1/relu"]["holds"] is True
    with open_store(maintainer) as store:
        [record] = store.verifications_for("honest")
    assert record.holds and record.bundle_sha256 == load_bundle(honest_bundle).content_sha256
    build_site(tmp_path / "site", [maintainer], honest_bundle.parent)
    assert "verified" in cell(rows(tmp_path / "site")["honest"], "run")


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_edited_speedup_does_not_hold(honest_bundle: Path, tmp_path: Path) -> None:
    claimed = load_bundle(honest_bundle).attempts[0].speedup
    assert claimed is not None
    path = tampered(honest_bundle, tmp_path / "inflated.json", speedup=claimed * 50)
    code, report = verify_json(path)
    assert code == 1 and report["holds"] is False
    attempt = report["attempts"][0]
    assert attempt["status_holds"] is True and attempt["speedup_holds"] is False
    assert any(note.startswith("speedup: claimed") for note in report["tasks"]["L1/relu"]["notes"])


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_swapped_source_does_not_hold(honest_bundle: Path, tmp_path: Path) -> None:
    path = tampered(honest_bundle, tmp_path / "swapped.json", source=candidate("relu_wrong"))
    code, report = verify_json(path)
    assert code == 1 and report["attempts"][0]["status_measured"] == "incorrect"
    assert report["tasks"]["L1/relu"]["holds"] is False
    # the same swap without re-hashing is caught by the content hash
    data = json.loads(honest_bundle.read_text())
    data["attempts"][0]["source"] = candidate("relu_wrong")
    (tmp_path / "naive.json").write_text(json.dumps(data))
    code, report = verify_json(tmp_path / "naive.json")
    assert code == 1 and report["hash_ok"] is False
