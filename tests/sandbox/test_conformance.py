"""The conformance suite: every sandbox backend behaves the same at the API level.

Differences are explicit: ``KNOWN_DIFFERENCES`` in conftest.py, one set per backend.
"""

from __future__ import annotations

import socket
import sys
import time
from pathlib import Path

import pytest

from kerneltrials.sandbox import Mount, SandboxLimits
from kerneltrials.sandbox._channel import CHANNEL_ENV

pytestmark = pytest.mark.timeout(60)

ISOLATION_KEYS = {
    "backend",
    "level",
    "user",
    "capabilities",
    "no_new_privs",
    "proc_sys_writable",
    "minimal_view",
    "scratch_quota_bytes",
    "cpu_accounting",
    "env_allowlist",
    "network_isolated",
    "pid_namespace",
    "readonly_root",
    "memory_limit",
    "pids_limit",
    "group_kill",
    "missing",
}


def test_exit_code_and_output_are_captured(run_job) -> None:
    info = run_job.python(
        "import sys; print('to-out'); print('to-err', file=sys.stderr); sys.exit(3)"
    )

    assert (info.returncode, info.signal, info.timed_out) == (3, None, False)
    assert info.stdout.strip() == "to-out"
    assert info.stderr.strip() == "to-err"
    assert info.describe() == "exit code 3"


def test_scratch_dir_is_cwd_home_and_writable(run_job) -> None:
    # The scratch dir is the job's own (a tmpfs where the backend has a quota): read back
    # what the job wrote there through its output, not from the host.
    code = (
        "import os; open('made-here', 'w').write(os.getcwd() + '|' + os.environ['HOME'])\n"
        "print(open(os.path.join(os.environ['TMPDIR'], 'made-here')).read())"
    )
    info = run_job.python(code)

    assert info.returncode == 0, info.stderr
    assert info.stdout.strip() == f"{run_job.scratch_dir}|{run_job.scratch_dir}"


def test_mounts_are_read_only_unless_writable(run_job, tmp_path: Path, expect_unless_known) -> None:
    expect_unless_known("readonly_root")
    readable, writable = tmp_path / "in", tmp_path / "out"
    readable.mkdir()
    writable.mkdir()
    (readable / "data").write_text("input")
    code = f"""
import pathlib
print(pathlib.Path({str(readable / "data")!r}).read_text())
pathlib.Path({str(writable / "result")!r}).write_text("output")
try:
    pathlib.Path({str(readable / "data")!r}).write_text("tampered")
except OSError as error:
    print("refused", error.errno)
"""
    mounts = [Mount(readable), Mount(writable, writable=True)]
    info = run_job.python(code, mounts=mounts)

    assert info.returncode == 0, info.stderr
    assert "input" in info.stdout and "refused" in info.stdout
    assert (readable / "data").read_text() == "input"
    assert (writable / "result").read_text() == "output"


def test_env_is_allow_listed_and_secrets_dropped(run_job) -> None:
    env = {
        "PATH": "/usr/bin:/bin",
        "OPENAI_API_KEY": "sk-test-abcdef123456",
        "MY_TOKEN": "t0ken-value",
    }
    code = "import os; print(sorted(k for k in os.environ if 'KEY' in k or 'TOKEN' in k))"
    info = run_job.python(code, env=env)

    assert info.returncode == 0, info.stderr
    assert info.stdout.strip() == "[]"


def test_channel_carries_bytes_both_ways(run_job) -> None:
    code = (
        "from kerneltrials.sandbox._channel import open_worker_channel\n"
        "import os\n"
        "channel = open_worker_channel()\n"
        "channel.sendall(b'ping')\n"
        "assert channel.recv(4) == b'pong'\n"
    )
    job = run_job.sandbox.start(run_job.spec([sys.executable, "-c", code]))
    job.channel.settimeout(20)

    assert job.channel.recv(4) == b"ping"
    job.channel.sendall(b"pong")
    info = job.wait()
    assert info is not None and info.returncode == 0, info and info.stderr


def test_channel_reads_eof_when_the_job_never_connects(run_job) -> None:
    job = run_job.sandbox.start(run_job.spec([sys.executable, "-c", "print('no channel')"]))
    info = job.wait()

    assert info is not None and info.returncode == 0
    job_channel_closed = True
    try:
        job.channel.settimeout(5)
        data = job.channel.recv(1)
        job_channel_closed = data == b""
    except OSError:
        pass  # closed by the sandbox after the job ended: also no data
    assert job_channel_closed


def test_a_job_that_dies_before_connecting_is_eof_without_a_wait(run_job) -> None:
    # The harness reads the worker's hello before it ever waits on the job: a worker that
    # dies first (an image whose Python lacks the package) must be EOF at once, not a
    # silence until the job's deadline.
    job = run_job.sandbox.start(run_job.spec([sys.executable, "-c", "raise SystemExit(3)"]))
    started = time.monotonic()
    try:
        job.channel.settimeout(20)
        data = job.channel.recv(1)
    except TimeoutError:
        data = None
    except OSError:
        data = b""
    finally:
        job.kill()
    assert data == b"", "no EOF within 20 s of the job's death"
    assert time.monotonic() - started < 20


def test_channel_variable_names_a_supported_transport(run_job) -> None:
    code = f"import os; print(os.environ[{CHANNEL_ENV!r}].split(':')[0])"
    info = run_job.python(code)

    assert info.stdout.strip() in {"fd", "unix"}


def test_wait_with_timeout_returns_none_while_running_then_kill_ends_it(run_job) -> None:
    job = run_job.sandbox.start(run_job.spec([sys.executable, "-c", "import time; time.sleep(60)"]))

    assert job.wait(timeout_s=0.2) is None
    assert 0 < job.seconds_left() < 20
    info = job.kill("cancelled")
    assert info.signal == 9 and not info.timed_out
    assert job.wait() == info


def test_wall_timeout_is_reported_with_its_length(run_job) -> None:
    limits = SandboxLimits(wall_timeout_s=1.0)
    started = time.monotonic()
    info = run_job.python("import time; time.sleep(60)", limits=limits)

    assert info.timed_out
    assert info.describe().startswith("timeout after 1 s")
    assert time.monotonic() - started < 10


def test_an_extended_deadline_outlives_the_original_timeout(run_job) -> None:
    # A worker started early idles while the build runs: that time is given back.
    limits = SandboxLimits(wall_timeout_s=1.0)
    job = run_job.sandbox.start(
        run_job.spec([sys.executable, "-c", "import time; time.sleep(2.5)"], limits)
    )
    job.extend_deadline(20.0)

    info = job.wait()
    assert info is not None and not info.timed_out and info.returncode == 0, info.describe()


def test_long_output_is_trimmed(run_job) -> None:
    info = run_job.python("print('x' * 3_000_000)")

    assert info.returncode == 0
    assert len(info.stdout) < 10_000
    assert "trimmed" in info.stdout


def test_isolation_report_names_every_feature(a_sandbox, run_job) -> None:
    job = a_sandbox.start(run_job.spec([sys.executable, "-c", "pass"]))
    job.wait()

    assert ISOLATION_KEYS <= set(job.isolation)
    assert job.isolation["backend"] in {"process", "docker"}
    assert isinstance(job.isolation["missing"], list)


def test_isolation_report_matches_the_known_differences(known_differences, a_sandbox) -> None:
    features = a_sandbox.features()
    known = known_differences
    assert features["readonly_root"] == ("readonly_root" not in known)
    assert features["network_isolated"] == ("network" not in known)
    assert features["pid_namespace"] == ("pid_namespace" not in known)
    assert bool(features["minimal_view"]) == ("minimal_view" not in known)
    assert features["capabilities"] == "none" and features["no_new_privs"] is True


def test_next_job_runs_normally_after_a_killed_one(run_job) -> None:
    first = run_job.sandbox.start(
        run_job.spec([sys.executable, "-c", "import time; time.sleep(60)"])
    )
    first.kill("cancelled")
    info = run_job.python("print('fine')")

    assert info.returncode == 0 and info.stdout.strip() == "fine"


def test_parent_channel_is_a_connected_stream_socket(run_job) -> None:
    job = run_job.sandbox.start(run_job.spec([sys.executable, "-c", "pass"]))

    assert job.channel.type == socket.SOCK_STREAM
    job.wait()
