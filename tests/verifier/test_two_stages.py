"""The two-stage API (issue 18): ``build`` then ``run``, with ``check`` composing them.

A ``Built`` travels (pickled, as Ray sends it) to another node whose cache receives the
libraries as packed entries: the run stage there installs them and runs, without a build
stage (no source-index record is written there) and without the static checks.
"""

from __future__ import annotations

import contextlib
import pickle
from collections.abc import Iterator
from pathlib import Path

import pytest

from kerneltrials.scheduler._artifacts import install_entries, pack_entries
from kerneltrials.verifier import (
    Built,
    CheckOptions,
    Hooks,
    Status,
    build,
    check,
    run,
)
from kerneltrials.verifier.builds._compiler import toolchain_root
from kerneltrials.verifier.builds._source_index import index_dir
from tests.timings import ONE_CALL_TIMING
from tests.verifier.candidates import candidate

FAST = CheckOptions(timing=ONE_CALL_TIMING, compile_baseline=False, seeds=1, hidden_seed=5)
NO_KERNEL = "import torch\n\nclass ModelNew(torch.nn.Module):\n    def forward(self, x):\n        return x.relu()\n"


@pytest.mark.timeout(60)
def test_a_static_failure_is_a_built_with_its_verdict_and_run_returns_it() -> None:
    built = build("L1/relu", NO_KERNEL, FAST)
    assert built.verdict is not None and built.verdict.status == Status.REJECTED
    assert not built.artifacts and not built.verdict.compiled
    assert run(built) is built.verdict


@pytest.mark.timeout(60)
def test_keywords_of_check_override_options_only_when_given() -> None:
    options = CheckOptions(backend="cuda", policy="strict", hidden_seed=11)
    verdict = check("L1/relu", NO_KERNEL, static_only=True, options=options)
    assert (verdict.backend, verdict.policy, verdict.hidden_seed) == ("cuda", "strict", 11)
    verdict = check("L1/relu", NO_KERNEL, static_only=True, options=options, backend="cpu",
                    policy="mixed")
    assert (verdict.backend, verdict.policy) == ("cpu", "mixed")


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_built_runs_on_another_node_without_a_build_stage(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    built = build("L1/relu", candidate("relu_ok", salt="two-stages"), FAST)
    assert built.verdict is None and len(built.artifacts) == 1, built.verdict
    assert all(len(item.sha256) == 64 for item in built.artifacts)
    travelled: Built = pickle.loads(pickle.dumps(built))
    packed = pack_entries(travelled.artifact_keys)

    monkeypatch.setenv("KERNELTRIALS_CACHE", str(tmp_path / "other-node"))
    assert install_entries(packed) == travelled.artifact_keys
    stages: list[str] = []
    timed: list[str] = []

    @contextlib.contextmanager
    def exclusive() -> Iterator[None]:
        timed.append("enter")
        yield
        timed.append("exit")

    verdict = run(travelled, hooks=Hooks(progress=stages.append, exclusive_timing=exclusive))

    assert verdict.status == Status.CORRECT, verdict.reasons
    assert stages == ["correctness", "timing"] and timed == ["enter", "exit"]
    assert verdict.build == built.build_info and verdict.hidden_seed == 5
    assert not index_dir().exists() or not any(index_dir().iterdir())  # no build stage here


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_library_changed_after_the_build_is_built_again_before_it_runs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KERNELTRIALS_PCH_CACHE", str(toolchain_root()))  # the suite's PCHs
    monkeypatch.setenv("KERNELTRIALS_CACHE", str(tmp_path / "cache"))  # libraries: ours
    built = build("L1/relu", candidate("relu_ok", salt="two-stages-tamper"), FAST)
    assert built.verdict is None, built.verdict
    library = Path(built.artifacts[0].artifact.library_path)
    tampered = library.read_bytes()[:-16] + b"\x90" * 16  # same size, new bytes
    library.write_bytes(tampered)
    verdict = run(built)
    assert verdict.status == Status.CORRECT, verdict.reasons
    assert library.exists() and library.read_bytes() != tampered  # built again, not loaded
