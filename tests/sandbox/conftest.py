"""Fixtures for the sandbox tests: every backend (as ``a_sandbox``), a real container
engine for the docker ones, a compiled C payload library, and a helper that runs Python
code as a job.

Backends are parametrised by name; ``KNOWN_DIFFERENCES`` lists, per backend, the
properties it does not provide. A test of such a property expects it to fail there
(strict xfail), so the list cannot go stale silently. See docs/design/sandbox.md.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sandbox_payloads import HOSTILE_C, compile_payload

from kerneltrials.sandbox import ExitInfo, JobSpec, Sandbox, SandboxLimits, build_job_env
from kerneltrials.sandbox._namespaces import probe_level

REPO_ROOT = Path(__file__).resolve().parents[2]
#: The script that starts podman's Docker-compatible API (see its header).
ENGINE_SCRIPT = Path(
    os.environ.get("KERNELTRIALS_ENGINE_SCRIPT", REPO_ROOT / "scripts" / "start-docker-api.sh")
)

BACKENDS = [
    "process-bwrap",
    "process-unshare",
    "process-none",
    pytest.param("docker", marks=pytest.mark.docker),
]

#: Properties each backend does NOT provide (tests of them are strict xfails or skips).
KNOWN_DIFFERENCES: dict[str, set[str]] = {
    "process-bwrap": set(),
    # unshare: new net + PID namespaces, but the host filesystem (seen through the job
    # user's permissions) instead of a minimal view, no scratch quota; and a SIGKILLed
    # job exits 1 (util-linux unshare cannot re-raise SIGKILL on itself).
    "process-unshare": {"readonly_root", "minimal_view", "scratch_quota", "sigkill_status"},
    # none: session, rlimits, cgroups and the user drop only.
    "process-none": {"readonly_root", "minimal_view", "scratch_quota", "network", "pid_namespace"},
    # docker: everything; limit events are read from the host's cgroups (local engines).
    "docker": set(),
}


@dataclass
class Engine:
    docker_host: str
    base_image: str


@pytest.fixture(scope="session")
def container_engine() -> Engine:
    """A running Docker-compatible engine, started by scripts/start-docker-api.sh if needed."""
    if not ENGINE_SCRIPT.exists():
        pytest.skip(
            f"no container engine script at {ENGINE_SCRIPT} (set KERNELTRIALS_ENGINE_SCRIPT)"
        )
    # The engine keeps the directory it starts in, and conmon drops an empty ``oom`` file
    # there whenever a container hits its memory limit: never let that be the checkout.
    engine_cwd = Path(tempfile.gettempdir()) / "kt-engine-cwd"
    engine_cwd.mkdir(exist_ok=True)
    result = subprocess.run(
        ["bash", str(ENGINE_SCRIPT)], capture_output=True, text=True, timeout=600,
        cwd=engine_cwd,
    )
    if result.returncode != 0:
        pytest.fail(f"{ENGINE_SCRIPT} failed: {result.stderr.strip()}")
    values = dict(line.split("=", 1) for line in result.stdout.splitlines() if "=" in line)
    return Engine(values["DOCKER_HOST"], values["KT_BASE_IMAGE"])


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def a_sandbox(backend: str, request: pytest.FixtureRequest) -> Sandbox:
    """The sandbox behind ``backend``; process levels this machine lacks are skipped."""
    if backend == "docker":
        from kerneltrials.sandbox._docker import DockerSandbox

        engine = request.getfixturevalue("container_engine")
        return DockerSandbox(image=engine.base_image, base_url=engine.docker_host)
    from kerneltrials.sandbox._process import ProcessSandbox

    level = backend.removeprefix("process-")
    problem = probe_level(level)
    if problem is not None:
        pytest.skip(f"isolation level {level} unavailable: {problem}")
    return ProcessSandbox(isolation=level)


@pytest.fixture
def known_differences(backend: str) -> set[str]:
    return KNOWN_DIFFERENCES[backend]


@pytest.fixture
def expect_unless_known(backend: str, request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    """Call with a property name: on backends that lack it the test must fail (strict)."""

    def expect(property_name: str) -> None:
        if property_name in KNOWN_DIFFERENCES[backend]:
            request.applymarker(
                pytest.mark.xfail(strict=True, reason=f"{backend} lacks {property_name}")
            )

    return expect


@pytest.fixture(scope="session")
def hostile_library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``libhostile.so``, compiled once with plain ``cc`` (fast)."""
    return compile_payload(tmp_path_factory.mktemp("hostile"), "hostile", HOSTILE_C)


#: Sandboxes for end-to-end checks (``kerneltrials.check(sandbox=...)``).
CHECK_SANDBOXES = ["process", pytest.param("docker", marks=pytest.mark.docker)]


@pytest.fixture(scope="module", params=CHECK_SANDBOXES)
def check_sandbox(request: pytest.FixtureRequest) -> Iterator[str]:
    """The backend's name; for docker, a running engine and its base image in the env."""
    with pytest.MonkeyPatch.context() as patch:
        if request.param == "docker":
            engine = request.getfixturevalue("container_engine")
            patch.setenv("DOCKER_HOST", engine.docker_host)
            patch.setenv("KERNELTRIALS_DOCKER_IMAGE", engine.base_image)
        yield request.param


@dataclass
class JobRunner:
    sandbox: Sandbox
    scratch_dir: Path

    def spec(
        self, argv: list[str], limits: SandboxLimits | None = None, **fields: object
    ) -> JobSpec:
        fields.setdefault("env", build_job_env())
        return JobSpec(
            argv=argv,
            scratch_dir=self.scratch_dir,
            limits=limits or SandboxLimits(wall_timeout_s=20),
            **fields,  # type: ignore[arg-type]
        )

    def python(self, code: str, limits: SandboxLimits | None = None, **fields: object) -> ExitInfo:
        """Run ``code`` in a fresh job and wait for it."""
        job = self.sandbox.start(self.spec([sys.executable, "-c", code], limits, **fields))
        info = job.wait()
        assert info is not None
        return info


@pytest.fixture
def run_job(a_sandbox: Sandbox, tmp_path: Path) -> JobRunner:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    return JobRunner(a_sandbox, scratch)


@pytest.fixture
def token() -> str:
    """A unique marker to find a job's processes in the host's /proc."""
    return f"kt-token-{uuid.uuid4().hex}"


@pytest.fixture
def outside_dir() -> Iterator[Path]:
    """A host directory outside any job's scratch dir (under the repository, not /tmp)."""
    directory = REPO_ROOT / f".kt-outside-{uuid.uuid4().hex[:8]}"
    directory.mkdir()
    yield directory
    for child in directory.iterdir():
        child.unlink()
    directory.rmdir()
