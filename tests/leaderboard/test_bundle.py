"""Submission bundles: ``submit`` writes a self-describing, hashed file; ``verify``
re-runs every candidate, re-measures every claimed speedup here whatever hardware the
bundle names, and fails (exit 1) on a forged speedup, a swapped source or a status that
hides a failure, or when a claim could not be re-measured (a CUDA attempt without a GPU);
the site shows only a fully re-measured, holding run as verified, with the re-measured
figures, and ranks every other run after it."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

import kerneltrials
from kerneltrials.cli import cli
from kerneltrials.leaderboard import Bundle, build_site, load_bundle, save_bundle
from kerneltrials.leaderboard._verify import check_scores
from kerneltrials.results import open_store, score_run
from kerneltrials.scoring import ScoredAttempt, score_attempts
from kerneltrials.verifier import QUICK_TIMING, CheckOptions, Status
from tests.leaderboard.test_site import cell, rows, verification
from tests.verifier.candidates import candidate
from tests.verifier.test_cuda_build import CUDA_CANDIDATE

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
    """The bundle with its first attempt edited as a careful forger would: the verdict's
    copy of the status and speedups and the source's hash follow the edit, so only a
    re-run can tell."""
    bundle = load_bundle(path)
    attempt = bundle.attempts[0]
    copied = {k: v for k, v in attempt_fields.items() if k in ("speedup", "speedup_compile")}
    if "status" in attempt_fields:
        copied["status"] = Status(attempt_fields["status"])
    verdict = attempt.verdict.model_copy(update=copied)
    if "source" in attempt_fields:
        attempt_fields["source_sha256"] = hashlib.sha256(
            attempt_fields["source"].encode()
        ).hexdigest()
    edited = attempt.model_copy(update={**attempt_fields, "verdict": verdict})
    save_bundle(bundle.model_copy(update={"attempts": [edited]}).rehashed(), out)
    return out


def rescored(bundle: Bundle, name: str) -> Bundle:
    """``bundle`` renamed, with score reports that follow from its (edited) verdicts, so the
    score check passes and only re-measurement can catch the edit."""
    attempts = [ScoredAttempt(task_id=a.task_id, status=a.status, speedup=a.speedup,
                              speedup_compile=a.speedup_compile, sample=a.sample, round=a.round)
                for a in bundle.attempts]  # fmt: skip
    scores = {
        baseline: score_attempts(attempts, bundle.run.task_ids, run=name, baseline=baseline,
                                 p_values=[(k, float(k)) for k in report["fast_p"]]).to_json()
        for baseline, report in bundle.scores.items()
    }  # fmt: skip
    run = bundle.run.model_copy(update={"name": name})
    return bundle.model_copy(update={"run": run, "scores": scores}).rehashed()


def forged_as_in_the_finding(honest: Path, out: Path) -> Path:
    """The finding: every speedup x20 and one trailing space on ``hardware.cpu``."""
    bundle = load_bundle(honest)
    hardware = {**bundle.environment.hardware, "cpu": f"{bundle.environment.hardware['cpu']} "}
    environment = bundle.environment.model_copy(
        update={"cpu": hardware["cpu"], "hardware": hardware}
    )
    attempts = []
    for attempt in bundle.attempts:
        figures = {k: None if getattr(attempt, k) is None else 20 * getattr(attempt, k)
                   for k in ("speedup", "speedup_compile")}  # fmt: skip
        verdict = attempt.verdict.model_copy(update={**figures, "hardware": hardware})
        attempts.append(attempt.model_copy(update={**figures, "verdict": verdict}))
    edited = bundle.model_copy(update={"environment": environment, "attempts": attempts})
    save_bundle(rescored(edited, "forged"), out)
    return out


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_untampered_bundle_verifies_and_build_shows_its_remeasured_figures(
    honest_bundle: Path, tmp_path: Path
) -> None:
    maintainer = tmp_path / "maintainer.sqlite"
    # A wide tolerance (a claim up to 10x the re-measurement): quick timings on a shared
    # 2-core machine are noisy; the forged bundles below claim 20x and 50x what was measured.
    code, report = verify_json(honest_bundle, "--tolerance", "0.9", "--db", str(maintainer))
    assert code == 0 and report["holds"] is True and report["state"] == "verified", report
    assert report["fully_remeasured"] is True
    attempt = report["attempts"][0]
    assert attempt["status_measured"] == "correct" and attempt["speedup_holds"] is True
    assert attempt["result"] == "holds" and attempt["speedup_measured"] > 0
    assert attempt["speedup_measured"] != attempt["speedup_claimed"]  # measured again, here
    assert report["tasks"]["L1/relu"]["holds"] is True
    with open_store(maintainer) as store:
        [record] = store.verifications_for("honest")
    assert record.holds and record.bundle_sha256 == load_bundle(honest_bundle).content_sha256
    remeasured = record.outcome["remeasured_scores"]["eager"]["geomean_speedup"]["value"]
    assert remeasured == attempt["speedup_measured"]  # one task: the geomean is its speedup
    build_site(tmp_path / "site", [maintainer], honest_bundle.parent)
    row = rows(tmp_path / "site")["honest"]
    assert verification(row) == "verified"
    assert cell(row, "geomean").startswith(f"{remeasured:.2f}x")  # not the claimed figure


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_the_forged_bundle_of_the_finding_fails_and_ranks_below_the_honest_one(
    honest_bundle: Path, tmp_path: Path
) -> None:
    bundles = tmp_path / "bundles"
    bundles.mkdir()
    shutil.copy(honest_bundle, bundles / "honest.json")
    forged = forged_as_in_the_finding(honest_bundle, bundles / "forged.json")
    maintainer = tmp_path / "maintainer.sqlite"
    result = invoke("verify", str(forged), "--quick", "--db", str(maintainer))
    assert result.exit_code == 1 and "every claim" not in result.output
    assert "some claims do not hold" in result.output
    code, report = verify_json(forged)
    assert code == 1 and report["holds"] is False and report["state"] == "failed"
    assert report["scores_hold"] is True  # the forger re-scored: only re-measuring catches it
    [attempt] = report["attempts"]
    assert attempt["result"] == "fails" and attempt["speedup_holds"] is False
    assert attempt["speedup_claimed"] > 5 * attempt["speedup_measured"]
    assert any("hardware differs" in note for note in attempt["notes"])
    code, _ = verify_json(honest_bundle, "--tolerance", "0.9", "--db", str(maintainer))
    assert code == 0
    build_site(tmp_path / "site", [maintainer], bundles)
    table = rows(tmp_path / "site")
    assert verification(table["forged"]) == "verification failed"
    assert verification(table["honest"]) == "verified"
    # its claimed geomean is 20x the honest one's, yet it ranks after the verified run
    assert cell(table["honest"], "rank") == "1" and cell(table["forged"], "rank") == "2"


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
    assert code == 1 and report["attempts"][0]["status_measured"] == "incorrect", report
    assert report["tasks"]["L1/relu"]["holds"] is False
    # the same swap without re-hashing is caught by the content hash
    data = json.loads(honest_bundle.read_text())
    data["attempts"][0]["source"] = candidate("relu_wrong")
    (tmp_path / "naive.json").write_text(json.dumps(data))
    code, report = verify_json(tmp_path / "naive.json")
    assert code == 1 and report["hash_ok"] is False


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_an_error_status_hiding_a_failing_candidate_does_not_hold(
    honest_bundle: Path, tmp_path: Path
) -> None:
    # claimed `error` leaves the task out of fast_p's denominator; the candidate is wrong
    path = tampered(honest_bundle, tmp_path / "hidden.json", source=candidate("relu_wrong"),
                    status="error", speedup=None)  # fmt: skip
    code, report = verify_json(path)
    [attempt] = report["attempts"]
    assert code == 1 and report["state"] == "failed"
    assert attempt["status_claimed"] == "error" and attempt["status_measured"] == "incorrect"
    assert attempt["status_holds"] is False and attempt["result"] == "fails"


def _can_build_cuda() -> bool:
    cuda_home = Path(os.environ.get("CUDA_HOME", "/usr/local/cuda-13.0"))
    import torch

    return (
        ((cuda_home / "bin" / "nvcc").exists() or shutil.which("nvcc") is not None)
        and torch.version.cuda is not None
        and not torch.cuda.is_available()
    )


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.skipif(
    not _can_build_cuda(),
    reason="needs nvcc, a CUDA build of torch and NO GPU "
    "(the test is about a machine that cannot run the CUDA attempt)",
)
def test_a_cuda_attempt_on_a_gpu_less_machine_is_not_remeasured_nor_verified(
    honest_bundle: Path, tmp_path: Path
) -> None:
    bundle = load_bundle(honest_bundle)
    [attempt] = bundle.attempts
    verdict = attempt.verdict.model_copy(update={"backend": "cuda"})
    cuda = attempt.model_copy(update={"source": CUDA_CANDIDATE, "verdict": verdict,
                                      "source_sha256": hashlib.sha256(CUDA_CANDIDATE.encode()).hexdigest()})  # fmt: skip
    edited = bundle.model_copy(update={"run": bundle.run.model_copy(update={"backend": "cuda"}),
                                       "attempts": [cuda]})  # fmt: skip
    (tmp_path / "bundles").mkdir()
    path = save_bundle(rescored(edited, "on-a-gpu"), tmp_path / "bundles" / "cuda.json")
    maintainer = tmp_path / "maintainer.sqlite"
    code, report = verify_json(path, "--db", str(maintainer))
    [outcome] = report["attempts"]
    assert code == 1 and report["holds"] is False, report
    assert report["state"] == "partially_verified" and report["fully_remeasured"] is False
    assert outcome["status_measured"] == "not_run" and outcome["result"] == "not_remeasured"
    assert outcome["speedup_measured"] is None
    build_site(tmp_path / "site", [maintainer], tmp_path / "bundles")
    assert verification(rows(tmp_path / "site")["on-a-gpu"]) == "partially verified"
