"""A job has no privilege: an unprivileged user, no capabilities, no_new_privs, a minimal
view, a scratch quota and a CPU account it cannot touch (issue 17).

Each test asserts what the job could do AND that the host is unharmed. Backends that lack
a property list it in ``KNOWN_DIFFERENCES`` (conftest.py): the test is a strict xfail there.
No test ever changes a host sysctl: the sysctl probe writes back the value already there.
"""

from __future__ import annotations

import os
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import REPO_ROOT

from kerneltrials.sandbox import Mount, SandboxLimits

pytestmark = pytest.mark.timeout(60)

CORE_PATTERN = Path("/proc/sys/kernel/core_pattern")


def test_a_job_cannot_write_a_sysctl(run_job) -> None:
    before = CORE_PATTERN.read_bytes()
    # O_WRONLY without O_TRUNC, then the value already there: nothing changes even if
    # the sandbox failed and the write went through.
    code = f"""
import os
path = {str(CORE_PATTERN)!r}
value = open(path, "rb").read()
try:
    fd = os.open(path, os.O_WRONLY)
except OSError as error:
    print("open refused", error.errno)
else:
    try:
        os.write(fd, value)
        print("WROTE")
    except OSError as error:
        print("write refused", error.errno)
    os.close(fd)
"""
    info = run_job.python(code)

    assert info.returncode == 0, info.stderr
    assert "refused" in info.stdout and "WROTE" not in info.stdout, info.stdout
    assert CORE_PATTERN.read_bytes() == before


def test_etc_shadow_is_unreadable(run_job) -> None:
    code = """
try:
    print("READ", open("/etc/shadow").read(8))
except OSError as error:
    print("refused", error.errno)
"""
    info = run_job.python(code)

    assert info.returncode == 0, info.stderr
    assert "refused" in info.stdout and "READ" not in info.stdout


@pytest.fixture
def file_under_root() -> Iterator[Path]:
    """A world-readable file in /root, removed afterwards."""
    path = Path("/root") / f".kt-privilege-{uuid.uuid4().hex[:8]}"
    try:
        path.write_text("root-only-marker")
    except OSError as error:
        pytest.skip(f"cannot create a file under /root here: {error}")
    path.chmod(0o644)
    yield path
    path.unlink(missing_ok=True)


def _read_attempt(path: Path) -> str:
    return f"""
try:
    print("READ", open({str(path)!r}).read())
except OSError as error:
    print("refused", error.errno)
"""


def test_a_file_under_root_is_unreadable(run_job, file_under_root: Path) -> None:
    info = run_job.python(_read_attempt(file_under_root))

    assert info.returncode == 0, info.stderr
    assert "root-only-marker" not in info.stdout and "refused" in info.stdout


def test_the_repository_checkout_is_invisible(run_job, expect_unless_known) -> None:
    expect_unless_known("minimal_view")
    readme = REPO_ROOT / "README.md"
    code = _read_attempt(readme) + f"import os; print('git', os.path.exists({str(REPO_ROOT / '.git')!r}))"
    info = run_job.python(code)

    assert info.returncode == 0, info.stderr
    assert "READ" not in info.stdout and "git False" in info.stdout, info.stdout


def test_the_installed_package_still_imports(run_job) -> None:
    info = run_job.python("import kerneltrials.sandbox, sys; print(sys.prefix)")

    assert info.returncode == 0, info.stderr
    assert info.stdout.strip() == sys.prefix


def test_the_job_is_unprivileged(run_job) -> None:
    code = """
import os
status = dict(line.split(":", 1) for line in open("/proc/self/status"))
print(os.getuid(), os.getgid(), int(status["CapEff"], 16), int(status["CapBnd"], 16),
      int(status["CapAmb"], 16), int(status["NoNewPrivs"]))
"""
    info = run_job.python(code)

    assert info.returncode == 0, info.stderr
    uid, gid, effective, bounding, ambient, no_new_privs = map(int, info.stdout.split())
    assert (effective, ambient, no_new_privs) == (0, 0, 1)
    if os.geteuid() == 0:  # a root harness drops to nobody and empties the bounding set
        assert (uid, gid, bounding) == (65534, 65534, 0)
    else:
        assert uid == os.getuid() != 0


def test_scratch_beyond_the_quota_fails_with_enospc(run_job, expect_unless_known) -> None:
    expect_unless_known("scratch_quota")
    quota = 4 * 1024**2
    code = """
import errno, os
written = 0
try:
    with open("big", "wb") as out:
        for _ in range(64):
            out.write(b"x" * 1024**2)
            out.flush()
            written += 1024**2
except OSError as error:
    print("stopped", errno.errorcode[error.errno], written)
"""
    info = run_job.python(code, limits=SandboxLimits(wall_timeout_s=20, scratch_bytes=quota))

    assert info.returncode == 0, info.stderr
    assert "stopped ENOSPC" in info.stdout, info.stdout
    assert int(info.stdout.split()[-1]) <= quota
    # Nothing reached the host's disk (its free space is no witness: other processes
    # write there too); the job's files lived in its tmpfs and went with it.
    assert list(run_job.scratch_dir.iterdir()) == []


def test_a_cpu_burner_ends_by_its_cpu_limit(run_job) -> None:
    limits = SandboxLimits(wall_timeout_s=30, cpu_time_s=2)
    started = time.monotonic()
    info = run_job.python("while True: pass", limits=limits)

    assert info.cpu_limit_hit and not info.timed_out, info
    assert "CPU time limit exceeded" in info.describe()
    assert info.cpu_time_s is not None and 1.0 <= info.cpu_time_s <= 4.0, info.cpu_time_s
    assert time.monotonic() - started < 20


def test_a_sleeper_times_out_with_little_cpu_time(run_job) -> None:
    limits = SandboxLimits(wall_timeout_s=1.5, cpu_time_s=10)
    info = run_job.python("import time; time.sleep(60)", limits=limits)

    assert info.timed_out and not info.cpu_limit_hit, info
    assert info.cpu_time_s is not None and info.cpu_time_s < 1.0, info.cpu_time_s


def test_cpu_time_is_readable_while_the_job_runs(run_job) -> None:
    job = run_job.sandbox.start(run_job.spec([sys.executable, "-c", "while True: pass"]))
    try:
        time.sleep(1.5)
        first = job.cpu_time_s()
        time.sleep(1.0)
        second = job.cpu_time_s()
    finally:
        job.kill("cancelled")
    assert first is not None and second is not None
    assert 0.3 < first < second, (first, second)


def test_a_writable_mount_is_the_jobs_and_the_harness_reads_it(run_job, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    code = f"open({str(out / 'result')!r}, 'w').write('from-the-job')"
    info = run_job.python(code, mounts=[Mount(out, writable=True)])

    assert info.returncode == 0, info.stderr
    assert (out / "result").read_text() == "from-the-job"


@pytest.mark.docker
def test_the_container_spec_drops_everything(container_engine, tmp_path: Path) -> None:
    from kerneltrials.sandbox._docker import DockerSandbox

    sandbox = DockerSandbox(image=container_engine.base_image,
                            base_url=container_engine.docker_host)
    scratch = tmp_path / "scratch"
    limits = SandboxLimits(wall_timeout_s=20, scratch_bytes=8 * 1024**2)
    from kerneltrials.sandbox import JobSpec, build_job_env

    job = sandbox.start(JobSpec(argv=[sys.executable, "-c", "import time; time.sleep(30)"],
                                env=build_job_env(), scratch_dir=scratch, limits=limits))
    try:
        job.container.reload()  # type: ignore[attr-defined]
        attrs = job.container.attrs  # type: ignore[attr-defined]
    finally:
        job.kill("cancelled")
    host = attrs["HostConfig"]
    assert attrs["Config"]["User"] == ("65534:65534" if os.geteuid() == 0
                                       else f"{os.getuid()}:{os.getgid()}")
    assert host["ReadonlyRootfs"] is True
    assert any("no-new-privileges" in option for option in host["SecurityOpt"]), host
    dropped = {cap.upper().removeprefix("CAP_") for cap in host["CapDrop"] or []}
    # Docker records ALL; podman expands it into the capabilities it would have granted.
    granted_by_default = {"CHOWN", "DAC_OVERRIDE", "FOWNER", "SETUID", "SETGID", "KILL"}
    assert "ALL" in dropped or granted_by_default <= dropped, dropped
    assert not host.get("CapAdd")
    assert f"size={8 * 1024**2}" in host["Tmpfs"][str(scratch)], host["Tmpfs"]
    assert host["NetworkMode"] == "none"
