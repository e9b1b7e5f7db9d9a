"""Hostile jobs at the sandbox API level: the attacks run in C (``libhostile.so``, see
conftest.py), where no Python-level check sees them. Each test asserts what the sandbox
reports AND that the host is unharmed.
"""

from __future__ import annotations

import os
import socket
import sys
import time
from pathlib import Path

import pytest
from sandbox_payloads import DRIVER, hostile_mounts, processes_with

from kerneltrials.sandbox import Mount, SandboxLimits, build_job_env

FAST = SandboxLimits(wall_timeout_s=3.0, memory_bytes=128 * 1024**2, max_processes=32)


def run_payload(run_job, library: Path, function: str, arg: str, token: str, limits=FAST, **fields):
    argv = [sys.executable, "-c", DRIVER, str(library), function, arg, token]
    fields.setdefault("mounts", hostile_mounts(library))
    job = run_job.sandbox.start(run_job.spec(argv, limits, **fields))
    started = time.monotonic()
    info = job.wait()
    return info, time.monotonic() - started


@pytest.mark.timeout(30)
def test_tcp_connect_to_a_host_listener_never_arrives(
    run_job, hostile_library, token, expect_unless_known
) -> None:
    expect_unless_known("network")
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        info, _ = run_payload(run_job, hostile_library, "tcp_connect", str(port), token)
        listener.settimeout(0.5)
        with pytest.raises(TimeoutError):
            listener.accept()[0].close()
    assert info.returncode == 0 and "result 0" not in info.stdout  # connect() failed


@pytest.mark.timeout(30)
@pytest.mark.parametrize("where", ["hidden_tmp", "visible_repo"])
def test_write_outside_scratch_leaves_no_file(
    run_job, hostile_library, token, outside_dir, tmp_path, where, expect_unless_known
) -> None:
    expect_unless_known("readonly_root")
    target = (tmp_path / "escaped.txt") if where == "hidden_tmp" else (outside_dir / "escaped.txt")
    info, _ = run_payload(run_job, hostile_library, "write_file", str(target), token)

    assert info.returncode == 0, info.stderr
    assert not target.exists()


@pytest.mark.timeout(30)
def test_fork_bomb_ends_at_the_timeout_and_leaves_no_process(
    run_job, hostile_library, token
) -> None:
    info, elapsed = run_payload(run_job, hostile_library, "fork_bomb", "-", token)

    assert info.timed_out and info.pids_limit_hit, info
    assert elapsed < FAST.wall_timeout_s + 5
    assert "process limit exceeded" in info.describe()
    assert processes_with(token) == []


@pytest.mark.timeout(30)
def test_memory_bomb_is_killed_at_the_memory_limit(
    run_job, hostile_library, token, known_differences
) -> None:
    info, elapsed = run_payload(run_job, hostile_library, "memory_bomb", "-", token)

    assert info.memory_limit_hit, info
    if "sigkill_status" not in known_differences:
        assert info.signal == 9, info
    assert not info.timed_out and elapsed < FAST.wall_timeout_s + 5
    assert info.describe() == "memory limit exceeded"
    assert processes_with(token) == []


@pytest.mark.timeout(30)
def test_endless_loop_ends_as_timeout(run_job, hostile_library, token) -> None:
    limits = SandboxLimits(wall_timeout_s=1.5)
    info, elapsed = run_payload(run_job, hostile_library, "spin", "-", token, limits=limits)

    assert info.timed_out and info.describe().startswith("timeout after 1.5 s")
    assert elapsed < limits.wall_timeout_s + 5
    assert processes_with(token) == []


@pytest.mark.timeout(30)
def test_segfault_is_reported_as_signal_11(run_job, hostile_library, token) -> None:
    info, _ = run_payload(run_job, hostile_library, "segfault", "-", token)

    assert info.signal == 11 and info.returncode is None
    assert info.describe() == "killed by signal 11 (SIGSEGV)"


@pytest.mark.timeout(30)
def test_grandchildren_die_with_the_job(run_job, token) -> None:
    code = (
        "import subprocess, sys\n"
        f"subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)', {token!r}],"
        " start_new_session=True)\n"
    )
    info = run_job.python(code, limits=FAST)

    assert info.returncode == 0, info.stderr
    assert processes_with(token) == []


@pytest.mark.timeout(30)
def test_api_key_in_the_harness_env_never_reaches_the_job(
    run_job, monkeypatch: pytest.MonkeyPatch, backend: str, tmp_path: Path
) -> None:
    secret = "sk-live-0123456789abcdef"
    monkeypatch.setenv("KT_PROVIDER_API_KEY", secret)
    env = build_job_env(extra={"KT_PROVIDER_API_KEY": secret})  # even a careless caller
    code = """
import os, pathlib
seen = [repr(dict(os.environ))]
for path in ("/proc/self/environ", f"/proc/{os.getppid()}/environ", "/proc/1/environ"):
    try:
        seen.append(pathlib.Path(path).read_bytes().decode(errors="replace"))
    except OSError as error:
        seen.append(f"{path}: {error}")
pathlib.Path(OUT, "seen.txt").write_text("\\n".join(seen))
print("\\n".join(seen))
"""
    out = tmp_path / "out"  # a writable mount: the host reads what the job saw
    out.mkdir()
    code = f"OUT = {str(out)!r}\n" + code
    info = run_job.python(code, env=env, mounts=[Mount(out, writable=True)])

    assert info.returncode == 0, info.stderr
    assert secret not in (out / "seen.txt").read_text()  # what the job saw
    assert secret not in info.stdout + info.stderr
    assert secret not in str(info)


@pytest.mark.timeout(30)
def test_killing_the_parent_does_not_hurt_the_harness(
    run_job, hostile_library, token, known_differences
) -> None:
    if "pid_namespace" in known_differences:
        pytest.skip("without a PID namespace the job's parent IS this test process")
    info, _ = run_payload(run_job, hostile_library, "kill_parent", "-", token)

    assert info.returncode is not None or info.signal is not None
    assert os.getpid() > 0  # still here
    after = run_job.python("print('next job fine')")
    assert after.stdout.strip() == "next job fine"


@pytest.mark.timeout(30)
def test_fake_verdict_json_on_stdout_changes_nothing(run_job) -> None:
    fake = '{"status": "correct", "speedup": 1000.0, "correct": true}'
    code = f"import sys; print({fake!r}); sys.stdout.flush(); sys.exit(7)"
    job = run_job.sandbox.start(run_job.spec([sys.executable, "-c", code]))
    job.channel.settimeout(2)
    try:
        received = job.channel.recv(1024)
    except TimeoutError:
        received = b""
    info = job.wait()

    assert received == b""  # nothing arrived on the private channel
    assert info is not None and info.returncode == 7
    assert fake in info.stdout  # captured as output, nothing more
