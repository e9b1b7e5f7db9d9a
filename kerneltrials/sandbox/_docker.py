"""The ``docker`` sandbox: one container per job, through the ``docker`` SDK.

Any Docker-compatible engine works (Docker, podman's API service). A container runs as
an unprivileged user (``65534:65534`` when the harness is root, never the harness's
uid 0), with no network, a read-only root, all capabilities dropped,
``no-new-privileges``, memory/pids limits, nofile/nproc/cpu ulimits, an init process (so
the job is not PID 1, which ignores default signals), its scratch dir a size-limited
tmpfs (the disk quota) and its mounts bound at the same paths as on the host. Containers
cannot inherit descriptors, so the channel is a unix socket in a private bind-mounted
directory (``KERNELTRIALS_CHANNEL=unix:/path``, see :mod:`._channel`).

Images: ``KERNELTRIALS_DOCKER_IMAGE`` or the ``image`` argument. With the default, an
empty base image (``localhost/kt-base:latest``, made by ``scripts/start-docker-api.sh``),
the minimal view of :mod:`._view` is bound read-only (system dirs, Python, the venv, this
package, a few /etc files); with a real worker image (``docker/worker.Dockerfile``) the
image brings its own Python. See docs/design/sandbox.md.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

from kerneltrials._scratch import make_scratch_dir, remove_tree
from kerneltrials.sandbox._base import (
    ExitInfo,
    JobSpec,
    Sandbox,
    SandboxedProcess,
    SandboxStartError,
)
from kerneltrials.sandbox._channel import CHANNEL_ENV, UnixChannelRelay
from kerneltrials.sandbox._container_host import (
    ContainerHost,
    EngineFreezer,
    channel_peer_inode,
    peer_lookup_works,
)
from kerneltrials.sandbox._env import redact, trim
from kerneltrials.sandbox._freezer import FreezeError, Freezer
from kerneltrials.sandbox._job import is_cpu_limit_hit, sanitize_job_env, signal_from_returncode
from kerneltrials.sandbox._live import track
from kerneltrials.sandbox._privilege import hand_over, privilege_report, resolve_job_user
from kerneltrials.sandbox._registry import register_sandbox
from kerneltrials.sandbox._view import runtime_paths, view_report

try:
    import docker.client
    import docker.errors
    import requests.exceptions
    from docker.types import DeviceRequest, LogConfig, Ulimit

    import docker
except ImportError as error:  # resolved lazily by the registry: say how to fix it
    raise ImportError(
        "the docker sandbox needs the docker SDK: pip install 'kerneltrials[docker]'"
    ) from error

IMAGE_ENV = "KERNELTRIALS_DOCKER_IMAGE"
BIND_HOST_ENV = "KERNELTRIALS_DOCKER_BIND_HOST"
DEFAULT_IMAGE = "localhost/kt-base:latest"
JOB_LABEL = "kerneltrials.job"
_NPROC_LIMIT = 4096  # per user, host-wide for non-root users: the pids limit bounds the job


class DockerJob(SandboxedProcess):
    """A running container; ``wait``/``kill`` end by reading its exit and removing it."""

    def __init__(
        self, container: Any, relay: UnixChannelRelay, job: JobSpec, isolation: dict[str, Any]
    ) -> None:
        self.container = container
        self.channel = relay.parent_end
        self.isolation = isolation
        self.job = job
        self._relay = relay
        self._deadline = time.monotonic() + job.limits.wall_timeout_s
        self._exit: ExitInfo | None = None
        self._killed_by_harness = False
        self._limit_events: tuple[bool, bool] | None = None
        self._pid = self._read_pid()
        self._cpu_seen_s: float | None = None  # the last CPU account read (host cgroup)
        self._host = ContainerHost(self._pid)
        self._peer_inode: int | None = None
        host_freezer = self._host.freezer()
        self._freezer = EngineFreezer(container.pause, container.unpause, host_freezer)
        self.isolation["freezer"] = self._freezer.kind
        if self._pid:
            threading.Thread(target=self._end_channel_if_unconnected, daemon=True,
                             name="kt-docker-unconnected").start()

    def _end_channel_if_unconnected(self) -> None:
        """EOF for the parent when the container ends before its worker connected.

        A process job holds its end of the channel, so its death is the parent's EOF; a
        container's worker connects to the relay first, so one that died before (an image
        whose Python cannot import the package, a crash at start) gave the parent nothing
        and the parent waited for its hello until the job's deadline (minutes). Watched on
        the host (the container's init in ``/proc``), not through the engine's API: a
        long poll there held up the harness's own calls (3 s more per check, measured)."""
        alive = Path(f"/proc/{self._pid}")
        while not self._relay.connected and self._exit is None:
            if not alive.exists():
                if not self._relay.connected:
                    self._relay.close(drain_s=0)
                return
            time.sleep(0.1)

    def _job_freezer(self) -> Freezer | None:
        return self._freezer if self._exit is None else None

    def pids(self) -> list[int]:
        return self._host.pids() if self._exit is None else []

    def cpu_time_breakdown(self) -> dict[str, float] | None:
        return self._host.cpu_breakdown() if self._exit is None else None

    def _channel_peer_inode(self) -> int | None:
        if self._peer_inode is None and self.isolation.get("channel_holder") == "socket-inode":
            # Known once the worker has connected; it never changes after.
            self._peer_inode = channel_peer_inode(self._relay.accepted_inode, self._pid)
        return self._peer_inode

    def _main_pid(self) -> int | None:
        """The process that connected to the channel (SO_PEERCRED), while it is still in
        the container; else the container's main process (``State.Pid``: its init)."""
        connected = self._relay.connected_pid
        if connected is not None and connected in self.pids():
            return connected
        return self._pid or None

    def cpu_time_s(self) -> float | None:
        """The container's CPU account, read from the host's cgroup (local engines only);
        after the exit, the last value read while it ran (a lower bound)."""
        if self._exit is None and self._pid > 0:
            used = self._host.cpu_time_s()
            self._cpu_seen_s = used if used is not None else self._cpu_seen_s
        return self._cpu_seen_s

    def wait(self, timeout_s: float | None = None) -> ExitInfo | None:
        if self._exit is not None:
            return self._exit
        budget = self.seconds_left() if timeout_s is None else min(timeout_s, self.seconds_left())
        end = time.monotonic() + max(budget, 0.01)
        while True:  # in short steps, so the CPU account is read while the job runs
            try:
                self.container.wait(timeout=max(min(end - time.monotonic(), 0.5), 0.01))
                return self._finish(timed_out=False)
            except (requests.exceptions.ConnectionError, requests.exceptions.ReadTimeout):
                pass
            used, limit = self.cpu_time_s(), self.job.limits.cpu_time_s
            if used is not None and limit is not None and used >= limit:
                return self.kill("cpu limit")
            if self.seconds_left() <= 0:
                return self.kill("timeout")
            if time.monotonic() >= end:
                return None

    def kill(self, reason: str = "killed") -> ExitInfo:
        if self._exit is not None:
            return self._exit
        self._limit_events = self._read_limit_events()  # the cgroup vanishes with the container
        self.cpu_time_s()
        self._killed_by_harness = True
        if self._freezer.is_frozen():
            self._host.kill_frozen()
            self._freezer.thaw()
        try:
            self.container.kill()
        except docker.errors.APIError:
            pass  # already exited
        return self._finish(timed_out=reason == "timeout")

    def stop_now(self) -> None:
        if self._exit is not None:
            return
        try:
            if self._freezer.is_frozen():  # an engine may refuse to kill a paused container
                self._host.kill_frozen()
                self._freezer.thaw()
            self.container.kill()
        except (docker.errors.APIError, requests.exceptions.RequestException, OSError,
                FreezeError):
            pass  # already exited, or the engine is gone (the owner's kill reports it)

    def _read_pid(self) -> int:
        try:
            self.container.reload()
            return int(self.container.attrs["State"].get("Pid") or 0)
        except (docker.errors.APIError, requests.exceptions.RequestException):
            return 0

    def _read_limit_events(self) -> tuple[bool, bool] | None:
        return self._host.limit_events() if self._pid > 0 else None

    def _finish(self, timed_out: bool) -> ExitInfo:
        try:
            self.container.wait(timeout=30)
            self.container.reload()
            state = self.container.attrs["State"]
            stdout = self.container.logs(stdout=True, stderr=False)
            stderr = self.container.logs(stdout=False, stderr=True)
        except (docker.errors.APIError, requests.exceptions.RequestException) as error:
            raise SandboxStartError(f"lost container of {self.job.label}: {error}") from error
        finally:
            self._remove()
        returncode, signal_number = signal_from_returncode(int(state["ExitCode"]), wrapped=True)
        memory_hit, pids_hit = self._limit_events or (False, False)
        # The engine may not report OOM kills (podman on cgroup v1): a SIGKILL the harness
        # did not send, under a memory limit, is the OOM killer's.
        memory_hit = memory_hit or bool(state.get("OOMKilled"))
        if signal_number == 9 and not self._killed_by_harness and self.job.limits.memory_bytes:
            memory_hit = True
        self._exit = ExitInfo(
            returncode=returncode,
            signal=signal_number,
            timed_out=timed_out,
            timeout_s=self.job.limits.wall_timeout_s if timed_out else None,
            memory_limit_hit=memory_hit,
            pids_limit_hit=pids_hit,
            cpu_time_s=self._cpu_seen_s,
            cpu_limit_hit=is_cpu_limit_hit(
                signal_number, self._cpu_seen_s, self.job.limits.cpu_time_s
            ),
            stdout=trim(redact(stdout.decode("utf-8", "replace"))),
            stderr=trim(redact(stderr.decode("utf-8", "replace"))),
        )
        return self._exit

    def _remove(self) -> None:
        try:
            self.container.remove(force=True)
        except docker.errors.APIError:
            pass
        self._relay.close()
        self.channel.close()
        remove_tree(self._relay.socket_path.parent)  # the job's user could write there


@register_sandbox("docker")
class DockerSandbox(Sandbox):
    """One container per job.

    Args:
        image: the image (default: ``KERNELTRIALS_DOCKER_IMAGE`` or the empty base image).
        base_url: the engine's API (default: ``DOCKER_HOST``, as the docker SDK reads it).
        bind_host_runtime: bind the host's system dirs, Python and this package read-only
            (default: ``KERNELTRIALS_DOCKER_BIND_HOST``, else only for the empty base image).
        init: run an init process as PID 1 (``--init``), so the job is an ordinary process.
        user: ``"UID:GID"`` of the job when the harness is root (default ``65534:65534``).
    """

    name = "docker"

    def __init__(
        self,
        image: str | None = None,
        base_url: str | None = None,
        bind_host_runtime: bool | None = None,
        init: bool = True,
        user: str | None = None,
    ) -> None:
        self.image = image or os.environ.get(IMAGE_ENV) or DEFAULT_IMAGE
        if bind_host_runtime is None:
            flag = os.environ.get(BIND_HOST_ENV)
            bind_host_runtime = flag == "1" if flag else self.image == DEFAULT_IMAGE
        self.bind_host_runtime = bind_host_runtime
        self.init = init
        self.user = resolve_job_user(user)
        self._peer_lookup = peer_lookup_works()
        try:
            self.client = (
                docker.client.DockerClient(base_url=base_url)
                if base_url
                else docker.client.from_env()
            )
            self.client.ping()
        except docker.errors.DockerException as error:
            raise SandboxStartError(
                f"no container engine reachable ({error}): start one (e.g. "
                "scripts/start-docker-api.sh in the kerneltrials repository) and export "
                "DOCKER_HOST"
            ) from error

    def features(self) -> dict[str, Any]:
        return {
            "backend": "docker",
            "level": "container",
            "image": self.image,
            "session": True,
            "rlimits": True,
            "env_allowlist": True,
            "network_isolated": True,
            "pid_namespace": True,
            "readonly_root": True,
            **privilege_report(self.user),
            "minimal_view": view_report() if self.bind_host_runtime else "image",
            "scratch_quota_bytes": None,
            "memory_limit": "engine",
            "pids_limit": "engine",
            "cpu_accounting": "host cgroup (local engines)",
            "group_kill": "container",
            "freezer": "engine",  # per job: the host freezer that confirms the pause
            "channel_holder": "socket-inode" if self._peer_lookup else "peercred",
            "missing": [],
        }

    def start(self, job: JobSpec) -> SandboxedProcess:
        job.scratch_dir.mkdir(parents=True, exist_ok=True)
        channel_dir = make_scratch_dir("channel")
        relay = UnixChannelRelay(channel_dir)
        for path in [channel_dir, relay.socket_path, *(m.path for m in job.mounts if m.writable)]:
            hand_over(path, self.user)  # the job's user connects and writes there
        env = sanitize_job_env(job.env, job.scratch_dir)
        if not self.bind_host_runtime:
            # The image's own PATH finds its interpreter (a venv's python3 first); the
            # harness's would name the image's system python3, without the package.
            env.pop("PATH", None)
        env[CHANNEL_ENV] = relay.address
        try:
            container = self._create_container(job, channel_dir, env)
            container.start()
        except (docker.errors.DockerException, requests.exceptions.RequestException) as error:
            relay.close(drain_s=0)
            relay.parent_end.close()
            remove_tree(channel_dir)
            raise SandboxStartError(f"cannot start container for {job.label}: {error}") from error
        isolation = self.features()
        isolation["scratch_quota_bytes"] = job.limits.scratch_bytes
        isolation["channel_holder"] = "socket-inode" if self._peer_lookup else "peercred"
        return track(DockerJob(container, relay, job, isolation))

    def _create_container(self, job: JobSpec, channel_dir: Path, env: dict[str, str]) -> Any:
        """The job's container, created and not started: the whole spec the engine gets
        (a test inspects it where no job could start, e.g. a GPU request without a GPU)."""
        return self.client.containers.create(
            self.image, self._argv(job), environment=env, **self._options(job, channel_dir)
        )

    def _argv(self, job: JobSpec) -> list[str]:
        argv = list(job.argv)
        if not self.bind_host_runtime and argv and argv[0] == sys.executable:
            argv[0] = "python3"  # the image's own interpreter, not the host's path
        return argv

    def _volumes(self, job: JobSpec, channel_dir: Path) -> dict[str, dict[str, str]]:
        volumes: dict[str, dict[str, str]] = {}
        if self.bind_host_runtime:
            for path in runtime_paths():
                volumes[str(path)] = {"bind": str(path), "mode": "ro"}
        for mount in job.mounts:
            mode = "rw" if mount.writable else "ro"
            volumes[str(mount.path)] = {"bind": str(mount.path), "mode": mode}
        volumes[str(channel_dir)] = {"bind": str(channel_dir), "mode": "rw"}
        return volumes

    @staticmethod
    def _tmpfs(job: JobSpec) -> dict[str, str]:
        # The scratch dir is a tmpfs of its own: its size is the job's disk quota.
        scratch = "rw,mode=1777"
        if job.limits.scratch_bytes is not None:
            scratch += f",size={job.limits.scratch_bytes}"
        return {"/tmp": "rw,size=256m,mode=1777", str(job.scratch_dir): scratch}

    def _options(self, job: JobSpec, channel_dir: Path) -> dict[str, Any]:
        limits = job.limits
        ulimits = [Ulimit(name="nproc", soft=_NPROC_LIMIT, hard=_NPROC_LIMIT)]
        if limits.max_open_files is not None:
            ulimits.append(
                Ulimit(name="nofile", soft=limits.max_open_files, hard=limits.max_open_files)
            )
        if limits.max_file_size_bytes is not None:
            size = limits.max_file_size_bytes
            ulimits.append(Ulimit(name="fsize", soft=size, hard=size))
        if limits.cpu_time_s is not None:
            ulimits.append(Ulimit(name="cpu", soft=limits.cpu_time_s, hard=limits.cpu_time_s + 5))
        options: dict[str, Any] = {
            "volumes": self._volumes(job, channel_dir),
            "working_dir": str(job.scratch_dir),
            "network_mode": "none",
            "read_only": True,
            "tmpfs": self._tmpfs(job),
            "cap_drop": ["ALL"],
            "security_opt": ["no-new-privileges"],
            "user": str(self.user),
            "ulimits": ulimits,
            "init": self.init,
            "labels": {JOB_LABEL: job.label},
            "log_config": LogConfig(type="json-file", config={"max-size": "8m"}),
        }
        if limits.memory_bytes is not None:
            options["mem_limit"] = limits.memory_bytes
            options["memswap_limit"] = limits.memory_bytes  # no swap: a bomb hits the limit
        if limits.max_processes is not None:
            options["pids_limit"] = limits.max_processes
        if job.gpu_index is not None:
            request = DeviceRequest(device_ids=[str(job.gpu_index)], capabilities=[["gpu"]])
            options["device_requests"] = [request]
        return options
