"""Builds published by the trusted side (issue 17, item 3): the collect job sees no cache,
the compile job never imports the candidate, the parent publishes with digests and
checks them on every load, forbidden flags never reach a compiler, eviction counts every
file, and a compile is bounded by CPU time. docs/design/builds.md."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from kerneltrials.sandbox import ExitInfo
from kerneltrials.tasks import load_task
from kerneltrials.verifier import QUICK_TIMING, Built, CheckOptions, Status, build, check
from kerneltrials.verifier.builds._cache import BuildCache
from kerneltrials.verifier.builds._jobs import validate_requests
from kerneltrials.verifier.harness._jobs import JobDied, WorkerFailed
from kerneltrials.verifier.harness._session import Outcome, Session
from kerneltrials.verifier.harness._stages import build_stage, compile_failure
from kerneltrials.verifier.protocol import BuildRequest, Collected
from kerneltrials.verifier.worker._load_artifact import load_artifact
from tests.verifier._build_fixtures import a_relu_request

REPO_ROOT = Path(__file__).resolve().parents[2]
RELU = (REPO_ROOT / "kerneltrials" / "tasks" / "reference" / "level1" / "relu.py").read_text()
SHARED_TOOLCHAIN = Path(os.environ["KERNELTRIALS_CACHE"]) / "builds" / ".toolchain"


@pytest.fixture
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A library cache of this test's own (tampered with); PCHs and bindings shared."""
    monkeypatch.setenv("KERNELTRIALS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("KERNELTRIALS_PCH_CACHE", str(SHARED_TOOLCHAIN))
    return tmp_path / "cache" / "builds"


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _library(cache: Path, key: str) -> Path:
    return cache / key / f"kt_{key}.so"


def _built(source: str, options: CheckOptions | None = None) -> Built:
    """The build stage alone (the scheduler's build job)."""
    built = build("L1/relu", source, options)
    assert built.verdict is None and built.artifacts, built.verdict
    return built


def _session(source: str, options: CheckOptions | None = None) -> Session:
    return Session(task=load_task("L1/relu"), source=source, options=options or CheckOptions(),
                   configs=[],
                   hidden_seed=0)


def _attacker(cache: Path, victim: str) -> str:
    """The relu solution plus module-level Python that tries to poison the cache."""
    return RELU + f'''
import os as _os
_attempts = []
for _path, _data in (({str(_library(cache, victim))!r}, b"\\x7fELF poisoned"),
                     ({str(cache / ".index" / (victim + ".json"))!r}, b"{{}}"),
                     ({str(cache / "planted.so")!r}, b"payload")):
    try:
        _os.makedirs(_os.path.dirname(_path), exist_ok=True)
        with open(_path, "wb") as _stream:
            _stream.write(_data)
        _attempts.append("wrote " + _path)
    except OSError as _error:
        _attempts.append(type(_error).__name__)
'''


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_module_level_python_cannot_poison_another_candidates_build(private_cache: Path) -> None:
    honest = _built(RELU)
    victim = honest.build_info["keys"][0]
    before = _sha(_library(private_cache, victim))
    build("L1/relu", _attacker(private_cache, victim))  # its verdict does not matter here
    assert _sha(_library(private_cache, victim)) == before
    assert not (private_cache / "planted.so").exists()
    again = check("L1/relu", RELU, timing=QUICK_TIMING, compile_baseline=False)
    assert again.status == Status.CORRECT, again.reasons
    assert again.build["keys"] == [victim] and again.build["cache_hit"]


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_library_tampered_on_disk_is_detected_and_rebuilt(private_cache: Path) -> None:
    first = _built(RELU)
    key = first.build_info["keys"][0]
    library = _library(private_cache, key)
    original = library.read_bytes()
    library.write_bytes(original[:-16] + b"\x90" * 16)  # same size, new bytes
    second = _built(RELU)
    assert not second.build_info["cache_hit"], second.build_info
    assert library.read_bytes() != original[:-16] + b"\x90" * 16
    assert BuildCache(private_cache).lookup(key) is not None


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_tampered_binding_object_is_rebuilt_not_linked(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    from kerneltrials.verifier.builds._compiler import build_extension, toolchain_store

    monkeypatch.setenv("KERNELTRIALS_CACHE", str(tmp_path / "cache"))  # toolchain too
    build_extension(a_relu_request("binding-a"))
    store = toolchain_store()
    (binding,) = [entry for _, _, entry in store.entries() if entry.startswith("bind-")]
    objects = store.entry_path(binding) / "binding.cpp.o"
    objects.write_bytes(b"\0" * objects.stat().st_size)
    artifact = build_extension(a_relu_request("binding-b"))  # same signatures: same binding
    assert objects.read_bytes() != b"\0" * len(objects.read_bytes())
    x = torch.randn(33)
    assert torch.equal(load_artifact(artifact).relu_forward(x), torch.where(x > 0, x * 1.5, x * 0.25))


MARKED = RELU + '''
import sys as _sys
print("KT-MARKER imported by", " ".join(_sys.argv), file=_sys.stderr, flush=True)
if any("compile" in _arg for _arg in _sys.argv):
    import os as _os
    _os._exit(3)
'''


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_the_compile_job_never_imports_the_candidate(private_cache: Path) -> None:
    session = _session(MARKED)
    try:
        items = build_stage(session)
    finally:
        session.close()
    roles = {worker.role: worker for worker in session.workers}
    assert set(roles) == {"collect", "compile"}
    stderr = {role: worker.exit_info.stderr if worker.exit_info else "" for role, worker in roles.items()}
    assert "KT-MARKER imported by" in stderr["collect"] and "collect" in stderr["collect"]
    assert "KT-MARKER" not in stderr["compile"]
    assert session.build_info["cache_hit"] is False and len(items) == 1


@pytest.mark.timeout(300)
def test_a_forbidden_flag_is_rejected_before_any_compile_job(private_cache: Path) -> None:
    source = RELU.replace('extra_cflags=["-O3", "-fopenmp"]',
                          'extra_cflags=["-O3", "-fopenmp", "-fplugin=/tmp/x.so"]')
    session = _session(source)
    try:
        with pytest.raises(Outcome) as raised:
            build_stage(session)
    finally:
        session.close()
    assert raised.value.status == Status.REJECTED
    assert any("-fplugin=/tmp/x.so" in reason for reason in raised.value.reasons)
    assert [worker.role for worker in session.workers] == ["collect"]


BURN = '''
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

source = r"""
#include <torch/extension.h>
constexpr unsigned long long spin(unsigned long long seed) {
    for (int i = 0; i < 200000; ++i) seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return seed;
}
STATIC_ASSERTS
torch::Tensor relu_forward(torch::Tensor x) { return x; }
"""
module = load_inline(name="burn", cpp_sources=[source], functions=["relu_forward"])


class ModelNew(nn.Module):
    def forward(self, x):
        return module.relu_forward(x)
'''.replace("STATIC_ASSERTS", "\n".join(f"static_assert(spin({i}) != 1);" for i in range(3000)))


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_compile_past_its_cpu_time_ends_as_the_candidates_timeout(private_cache: Path) -> None:
    from kerneltrials.verifier.builds._compiler import build_extension

    build_extension(a_relu_request("warm-the-pch"))  # the PCH of these flags exists first
    options = CheckOptions(build_cpu_time_s=15, build_timeout_s=600)
    verdict = build("L1/relu", BURN, options).verdict
    assert verdict is not None
    assert verdict.status == Status.TIMEOUT, verdict.reasons
    assert any("cpu time limit" in reason.lower() for reason in verdict.reasons), verdict.reasons


def _timed_out(cpu_s: float | None) -> JobDied:
    info = ExitInfo(returncode=None, signal=9, timed_out=True, timeout_s=600.0, cpu_time_s=cpu_s)
    return JobDied("compile", info, "compile")


@pytest.mark.timeout(10)
@pytest.mark.parametrize(("error", "load_per_core", "status", "reason"), [
    (_timed_out(40.0), 4.0, Status.ERROR, "harness:build_overloaded:"),  # starved of CPU
    (_timed_out(40.0), 0.2, Status.TIMEOUT, "timeout:build:"),  # idle machine: it blocked
    (_timed_out(590.0), 4.0, Status.TIMEOUT, "timeout:build:"),  # it had the CPU it needed
    (_timed_out(None), 4.0, Status.TIMEOUT, "timeout:build:"),  # not accounted: as before
    (JobDied("compile", ExitInfo(returncode=None, signal=24, cpu_time_s=301.0,
                                 cpu_limit_hit=True), "compile"),
     0.2, Status.TIMEOUT, "timeout:build:cpu time limit of 300 s"),
    (WorkerFailed("cpu_time_limit", "a compiler hit the CPU-time limit"), 0.2, Status.TIMEOUT,
     "timeout:build:cpu time limit of 300 s"),
    (WorkerFailed("compile_error", "build failed", "error: x"), 4.0, Status.COMPILE_ERROR,
     "build:compile_error:"),
])
def test_whose_fault_a_failed_compile_job_is(error: Exception, load_per_core: float,
                                             status: Status, reason: str) -> None:
    outcome = compile_failure(error, wall_s=600.0, cpu_limit_s=300, load_per_core=load_per_core)
    assert outcome.status == status and outcome.reasons[0].startswith(reason), outcome.reasons


def _request(**changes: object) -> dict[str, object]:
    return {**a_relu_request().to_dict(), **changes}


@pytest.mark.timeout(10)
@pytest.mark.parametrize("reply", [
    {"requests": "not a list"},
    {"requests": [_request()] * 17},
    {"requests": [["a", "list"]]},
    {"requests": [{**_request(), "extra_field": 1}]},
    {"requests": [_request(backend="cuda")]},
    {"requests": [_request(cpp_sources=[b"bytes".hex(), 7])]},
    {"requests": [_request(cpp_sources=["x" * (9 * 1024**2)])]},
    {"requests": [_request(extra_cflags=["-O3"] * 300)]},
    {"requests": [_request(functions=[['f", evil); m.def("g', ""]])]},
    {"requests": [_request(functions=[["f", 'doc"); evil(); ("']])]},
    {"requests": [_request(with_cuda="yes")]},
])
def test_a_malformed_collect_reply_is_rejected(reply: dict[str, object]) -> None:
    with pytest.raises(Outcome) as raised:
        validate_requests(Collected(requests=reply["requests"]), "cpu")
    assert raised.value.status == Status.REJECTED
    assert raised.value.reasons[0].startswith("build:invalid_request:")


@pytest.mark.timeout(10)
def test_a_genuine_request_survives_the_round_trip() -> None:
    request = BuildRequest.from_load_inline("cpu", "e", ["int f();"], functions={"f": "doc"},
                                            extra_cflags=["-O3"], with_cuda=False)
    assert validate_requests(Collected(requests=[request.to_dict()]), "cpu") == [request]


@pytest.mark.timeout(60)
def test_stray_files_in_the_cache_root_are_evicted(tmp_path: Path) -> None:
    cache = BuildCache(tmp_path / "store", max_bytes=64 * 1024)
    with (tmp_path / "store" / "stray.bin").open("wb") as stream:
        stream.truncate(1024**3)  # a sparse 1 GiB file: counted by its size
    (tmp_path / "store" / "stray-dir").mkdir()
    (tmp_path / "store" / "stray-dir" / "x.so").write_bytes(b"x" * 100)
    (tmp_path / "store" / ".index" / "orphan.json").write_text("{}")
    (tmp_path / "store" / "unrecorded").mkdir()  # an entry with no digest record
    assert cache.total_bytes() >= 1024**3
    entry, _ = cache.get_or_build("real", lambda staging: (staging / "lib.so").write_bytes(b"ok"))
    left = sorted(path.name for path in (tmp_path / "store").iterdir())
    assert left == [".index", ".locks", ".staging", ".trash", "real"]
    assert [p.name for p in (tmp_path / "store" / ".index").iterdir()] == ["real.json"]
    assert cache.total_bytes() < 64 * 1024 and (entry / "lib.so").read_bytes() == b"ok"


@pytest.mark.timeout(10)
@pytest.mark.parametrize(("during", "status", "reason"), [
    ("startup", Status.ERROR, "harness:worker_startup:candidate worker exit code 1"),
    ("run", Status.RUNTIME_ERROR, "runtime:run:exit code 1 during run"),
])
def test_a_worker_that_dies_before_its_hello_is_the_harness_failure(
        during: str, status: Status, reason: str) -> None:
    """No candidate code runs before a worker answers hello: dying then (a broken install,
    an import error in the harness) is ``error``; dying later is the candidate's."""
    from kerneltrials.verifier.harness._failures import candidate_failure

    outcome = candidate_failure(JobDied("candidate", ExitInfo(returncode=1), during), "run")
    assert outcome.status == status and outcome.reasons[0].startswith(reason), outcome.reasons
