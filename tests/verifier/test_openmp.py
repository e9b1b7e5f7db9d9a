"""One OpenMP runtime in both timed workers (cpu backend), with a bounded spin."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator

import pytest

import kerneltrials
from kerneltrials.verifier import QUICK_TIMING, CheckOptions, Status
from kerneltrials.verifier.builds._fast import find_fast_cxx
from kerneltrials.verifier.harness._hardware import hardware_fingerprint
from kerneltrials.verifier.harness._openmp import (
    BLOCKTIME_MS,
    OPENMP_ENV,
    preloaded_openmp,
    worker_env,
)
from kerneltrials.verifier.worker._openmp import rest_seconds
from tests.verifier.candidates import candidate

needs_fast_path = pytest.mark.skipif(find_fast_cxx() is None, reason="no clang for the fast path")


@pytest.fixture(autouse=True)
def fresh_choice() -> Iterator[None]:
    """The choice is cached per process; each test sees its own environment."""
    preloaded_openmp.cache_clear()
    hardware_fingerprint.cache_clear()
    yield
    preloaded_openmp.cache_clear()
    hardware_fingerprint.cache_clear()


def test_rest_follows_the_bounded_spin_of_a_preloaded_libomp_only() -> None:
    libomp = {"LD_PRELOAD": "/lib/x86_64-linux-gnu/libomp.so.5"}
    assert rest_seconds({**libomp, "KMP_BLOCKTIME": "5"}) == pytest.approx(0.006)
    assert rest_seconds({**libomp, "KMP_BLOCKTIME": "infinite"}) == 0.0
    assert rest_seconds({"KMP_BLOCKTIME": "5"}) == 0.0  # libgomp ignores KMP_BLOCKTIME
    assert rest_seconds({}) == 0.0


@needs_fast_path
def test_cpu_workers_preload_libomp_with_a_bounded_spin() -> None:
    env = worker_env("cpu")
    assert os.path.basename(env["LD_PRELOAD"]) == "libomp.so.5"
    assert os.path.exists(env["LD_PRELOAD"])
    assert env["KMP_BLOCKTIME"] == str(BLOCKTIME_MS)
    assert hardware_fingerprint("cpu")["openmp"] == env["LD_PRELOAD"]


def test_native_setup_stock_builds_and_cuda_keep_the_linked_runtime(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert worker_env("cuda") == {}
    assert "openmp" not in hardware_fingerprint("cuda")
    monkeypatch.setenv(OPENMP_ENV, "native")
    assert worker_env("cpu") == {}
    assert hardware_fingerprint("cpu")["openmp"] == "native"
    preloaded_openmp.cache_clear()
    monkeypatch.setenv(OPENMP_ENV, "")
    monkeypatch.setenv("KERNELTRIALS_CXX", "stock")  # g++ builds link libgomp, as torch does
    assert worker_env("cpu") == {}


PROBE = """
import json, resource, time, torch
from kerneltrials.verifier.worker._openmp import rest_threads
torch.set_num_threads(2)
x = torch.randn(512, 4096)
torch.relu(x)
rest_threads()
usage = lambda: resource.getrusage(resource.RUSAGE_SELF)
before = usage().ru_utime + usage().ru_stime
time.sleep(0.2)
idle_cpu = usage().ru_utime + usage().ru_stime - before
maps = open("/proc/self/maps").read()
print(json.dumps({"libomp": "libomp.so.5" in maps, "idle_cpu_s": idle_cpu}))
"""


@needs_fast_path
def test_torch_runs_on_the_preloaded_pool_which_sleeps_after_a_rest() -> None:
    env = {**os.environ, **worker_env("cpu")}
    result = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True,
                            text=True, timeout=120, check=True)
    probe = json.loads(result.stdout)
    assert probe["libomp"]
    # libomp's default spin would burn a core for 200 ms of this idle time; the bounded
    # spin was over before the sleep began.
    assert probe["idle_cpu_s"] < 0.05, probe


# In forward: the build worker imports the candidate too, and runs no timing.
REPORT_ENV = """
import os


def _report(self, *args):
    raise RuntimeError("openmp probe: LD_PRELOAD=%s KMP_BLOCKTIME=%s" % (
        os.environ.get("LD_PRELOAD", "-"), os.environ.get("KMP_BLOCKTIME", "-")))


ModelNew.forward = _report
"""


@pytest.mark.slow
@pytest.mark.timeout(600)
@needs_fast_path
@pytest.mark.parametrize("setup", ["default", "native"])
def test_the_candidate_worker_runs_on_the_chosen_runtime(
    setup: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if setup == "native":
        monkeypatch.setenv(OPENMP_ENV, "native")
    options = CheckOptions(timing=QUICK_TIMING, compile_baseline=False, call_timeout_s=30)
    verdict = kerneltrials.check("L1/relu", candidate("relu_ok") + REPORT_ENV, hidden_seed=11,
                                 compile_baseline=False, options=options)

    assert verdict.status == Status.RUNTIME_ERROR
    probe = next(reason for reason in verdict.reasons if "openmp probe" in reason)
    if setup == "native":
        assert "LD_PRELOAD=- KMP_BLOCKTIME=-" in probe
        assert verdict.hardware["openmp"] == "native"
    else:
        library = worker_env("cpu")["LD_PRELOAD"]
        assert f"LD_PRELOAD={library} KMP_BLOCKTIME={BLOCKTIME_MS}" in probe
        assert verdict.hardware["openmp"] == library
