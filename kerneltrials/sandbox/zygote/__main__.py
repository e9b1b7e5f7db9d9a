"""The zygote process: ``python -m kerneltrials.sandbox.zygote MODULE FD``.

Started by the harness (root, outside any sandbox) with a job environment; it imports
``MODULE`` once (torch with it), runs the module's ``prefork()`` if it has one, and then
for each request on its control socket forks a job into a sandbox bwrap built around a
holder process (``_join``). Each job runs ``MODULE.main(args)``, as
``python -m MODULE args`` would, without paying for the imports again.

Per request the zygote forks an *intermediate*, which joins the holder's PID namespace
and forks the job there, then closes everything the job holds and waits for it: its
status pipe carries ``started <pid>`` and ``exit <code> <signal>`` to the harness, the
only account of the job's end (the job cannot write to it). The zygote holds nothing of
any job: requests carry paths and ids, never a check's secrets, and the zygote closes
every descriptor a request brought once it has forked.
"""

from __future__ import annotations

import gc
import importlib
import json
import os
import signal
import socket
import sys
import tempfile
import traceback
from typing import Any

from kerneltrials.sandbox.zygote._join import (
    JOB_CHANNEL_FD,
    JoinError,
    JoinPlan,
    become_job,
    join_pid_namespace,
    open_namespaces,
)

_MAX_REQUEST = 1 << 20
_MAX_FDS = 16


def main(argv: list[str]) -> None:
    """``argv``: the module to preload, the control socket's descriptor."""
    module = importlib.import_module(argv[0])
    if hasattr(module, "__path__"):  # a package runs as its __main__, as `python -m` does
        module = importlib.import_module(f"{argv[0]}.__main__")
    control_fd = int(argv[1])
    prefork = getattr(module, "prefork", None)
    if prefork is not None:
        prefork()
    gc.freeze()  # the jobs' collections never walk (and so never copy) these pages
    control = socket.socket(fileno=control_fd)
    control.sendall(b"ready")
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(control, _MAX_REQUEST, _MAX_FDS)
        except OSError:
            break
        if not message:
            break  # the harness is gone: so are its jobs
        _reap()
        try:
            _fork_job(module, json.loads(message), fds, control_fd)
        finally:
            for fd in fds:
                os.close(fd)
    os._exit(0)


def _reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _fork_job(module: Any, request: dict[str, Any], fds: list[int], control_fd: int) -> None:
    sys.stdout.flush()
    sys.stderr.flush()
    if os.fork() == 0:
        code = 1
        try:
            os.close(control_fd)  # the zygote's socket: no job process holds it
            code = _intermediate(module, request, fds)
        finally:
            os._exit(code)


def _intermediate(module: Any, request: dict[str, Any], fds: list[int]) -> int:
    channel, stdout, stderr, status, *cgroup_fds = fds
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    plan = JoinPlan(holder_pid=int(request["holder_pid"]),
                    holder_start=int(request["holder_start"]), cwd=str(request["cwd"]),
                    uid=int(request["uid"]), gid=int(request["gid"]),
                    drops=bool(request["drops"]),
                    rlimits=tuple((int(number), int(soft), int(hard))
                                  for number, soft, hard in request["rlimits"]))
    # The job's own session, which it does not lead (as under bwrap's --new-session,
    # where the session is bwrap's): no terminal to inject into, none to acquire.
    os.setsid()
    try:
        descriptors = open_namespaces(plan.holder_pid, plan.holder_start)
        join_pid_namespace(descriptors)
    except JoinError as error:
        os.write(status, f"failed {error}\n".encode())
        return 1
    pid = os.fork()
    if pid == 0:
        code = 126
        try:
            code = _job(module, request, plan, descriptors, cgroup_fds,
                        channel, stdout, stderr, status)
        finally:
            os._exit(code)
    for fd in [*descriptors.values(), channel, stdout, stderr, *cgroup_fds]:
        os.close(fd)
    os.write(status, f"started {pid}\n".encode())
    _, wait_status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(wait_status):
        report = f"exit - {os.WTERMSIG(wait_status)}\n"
    else:
        report = f"exit {os.WEXITSTATUS(wait_status)} -\n"
    try:
        os.write(status, report.encode())
    except OSError:
        pass
    return 0


def _job(module: Any, request: dict[str, Any], plan: JoinPlan, descriptors: dict[str, int],
         cgroup_fds: list[int], channel: int, stdout: int, stderr: int, status: int) -> int:
    os.close(status)  # the job must never be able to write its own end
    try:
        become_job(plan, descriptors, cgroup_fds)
    except (JoinError, OSError) as error:
        os.write(stderr, f"kerneltrials zygote: cannot join the job: {error}\n".encode())
        return 126
    null = os.open("/dev/null", os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(stdout, 1)
    os.dup2(stderr, 2)
    os.dup2(channel, JOB_CHANNEL_FD)
    os.closerange(JOB_CHANNEL_FD + 1, os.sysconf("SC_OPEN_MAX"))
    os.environ.clear()
    os.environ.update({str(k): str(v) for k, v in request["env"].items()})
    # tempfile caches its directory on first use, and the import read the zygote's TMPDIR
    # (torch.compile's cache lives under it): the job's own is read again on next use.
    tempfile.tempdir = None
    args = [str(arg) for arg in request["args"]]
    sys.argv = [module.__name__, *args]
    try:
        module.main(args)
    except SystemExit as ended:
        code = ended.code
        if code is None:
            return 0
        if isinstance(code, int):
            return code
        print(code, file=sys.stderr)
        return 1
    except BaseException:
        traceback.print_exc()
        return 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    return 0


if __name__ == "__main__":
    main(sys.argv[1:])
