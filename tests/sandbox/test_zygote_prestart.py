"""A zygote started before it is needed (``prestart``) is the one the check's jobs fork
from, one that cannot start is given up once and said, and one still importing when its
harness closes is ended, leaving nothing.

Needs what the zygote needs: bwrap, a job cgroup and a root harness; skipped elsewhere.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import kerneltrials
from kerneltrials.sandbox import build_job_env
from kerneltrials.sandbox._namespaces import probe_level
from kerneltrials.sandbox._process import ProcessSandbox
from kerneltrials.sandbox.zygote import _client
from kerneltrials.verifier import prestart
from tests.timings import ONE_CALL_TIMING

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or probe_level("bwrap") is not None,
    reason="the zygote joins a bwrap sandbox's namespaces: needs root and bwrap")

RELU = Path(kerneltrials.__file__).parent / "tasks" / "reference" / "level1" / "relu.py"


@pytest.fixture
def own_registry(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[object, _client.Zygote]]:
    """This test's zygotes alone in the registry (the process's own come back after)."""
    if not ProcessSandbox(isolation="bwrap").use_cgroups:
        pytest.skip("no job cgroup here")
    zygotes: dict[object, _client.Zygote] = {}
    monkeypatch.setattr(_client, "_ZYGOTES", zygotes)
    monkeypatch.setattr(_client, "_FAILED", set())
    yield zygotes
    _client.close_zygotes()


def _module_env(tmp_path: Path, name: str, text: str) -> dict[str, str]:
    (tmp_path / f"{name}.py").write_text(text)
    return {**build_job_env(), "PYTHONPATH": str(tmp_path)}


def test_a_prestarted_zygote_is_the_one_the_checks_workers_fork_from(
        own_registry: dict[object, _client.Zygote]) -> None:
    prestart("cpu", "process")
    assert len(own_registry) == 1, "prestart starts the workers' zygote and nothing else"
    (started,) = own_registry.values()
    verdict = kerneltrials.check("L1/relu", RELU.read_text(), backend="cpu", hidden_seed=5,
                                 timing=ONE_CALL_TIMING, compile_baseline=False)
    assert verdict.status.value == "correct", verdict.reasons
    assert verdict.isolation["started_by"] == "zygote"
    # Had the prestarted zygote's environment differed from the workers', the check would
    # have started a second one for them.
    assert list(own_registry.values()) == [started]


def test_a_zygote_whose_module_fails_to_import_is_given_up_once_and_said(
        own_registry: dict[object, _client.Zygote], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    env = _module_env(tmp_path, "kt_broken_module", "raise ImportError('no such kernel pool')\n")
    _client.prestart_zygote("kt_broken_module", env)
    assert len(own_registry) == 1
    assert _client.zygote_for("kt_broken_module", env) is None
    said = capsys.readouterr().err
    assert "starting jobs without a zygote" in said and "no such kernel pool" in said, said
    assert own_registry == {}
    _client.prestart_zygote("kt_broken_module", env)  # not tried again in this process
    assert own_registry == {}
    assert _client.zygote_for("kt_broken_module", env) is None


def test_a_zygote_still_importing_when_its_harness_closes_is_ended(
        own_registry: dict[object, _client.Zygote], tmp_path: Path) -> None:
    env = _module_env(tmp_path, "kt_slow_module", "import time\ntime.sleep(600)\n")
    _client.prestart_zygote("kt_slow_module", env)
    (zygote,) = own_registry.values()
    home = zygote._home
    assert zygote.alive()
    _client.close_zygotes()
    assert zygote._process.returncode == -signal.SIGKILL
    assert not home.exists()


def test_prestart_imports_no_torch() -> None:
    """The CLI calls it before the verifier's imports, to run beside them."""
    import subprocess

    probe = ("import sys; from kerneltrials.verifier import prestart; "
             "import kerneltrials.verifier._prestart; print('torch' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=120, check=True)
    assert done.stdout.strip() == "False", done.stderr
