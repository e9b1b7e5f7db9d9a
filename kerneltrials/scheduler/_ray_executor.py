"""Verification on Ray: build jobs need CPU only; run jobs need the device.

On the CUDA backend a run job requests one whole GPU, so builds of the next candidates
overlap the timing of the current one. On the CPU backend the node gate (``_gate``) gives
a timing phase the whole node. A job whose worker dies is retried once by Ray; a second
loss becomes an ``error`` verdict, never a failure charged to the candidate, which
``eval`` then verifies again (``Executor.verify_retrying``).
"""

from __future__ import annotations

import functools
import logging
import os
import threading
from typing import Any, cast

from kerneltrials.scheduler._executor import EXECUTORS, Executor, as_verdict
from kerneltrials.scheduler._jobs import build_job, run_job, verify_in_stages
from kerneltrials.tasks import TaskSpec
from kerneltrials.verifier import Built, CheckOptions
from kerneltrials.verifier.verdict import Verdict

GATE_NAMESPACE = "kerneltrials"
#: After ``cancel`` a job gets this long to end by the interrupt Ray raises in it (its
#: harness then kills its sandboxes itself); then its worker process is killed.
CANCEL_GRACE_S = 5.0


def _require_ray() -> Any:
    try:
        import ray
    except ImportError as error:
        raise RuntimeError("Ray is not installed: pip install 'kerneltrials[ray]'") from error
    return ray


class _TokenAuthNotice(logging.Filter):
    """Drops Ray's notice that a new local cluster has token authentication on (Ray's
    default since 2.5x, printed by every ``eval``): it says the safe thing happened. The
    warning that a cluster runs *without* it is a different message and still shows."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("Token authentication is enabled for this")


def _quiet_token_auth_notice() -> None:
    logger = logging.getLogger("ray._private.authentication.authentication_token_setup")
    if not any(isinstance(f, _TokenAuthNotice) for f in logger.filters):
        logger.addFilter(_TokenAuthNotice())


class _ActorGate:
    """The ``Gate`` protocol over a node's gate actor."""

    def __init__(self, actor: Any) -> None:
        self.actor = actor

    def acquire(self, exclusive: bool, pid: int) -> str:
        import ray

        return str(ray.get(self.actor.acquire.remote(exclusive, pid)))

    def release(self, lease: str) -> None:
        import ray

        ray.get(self.actor.release.remote(lease))


def node_gate() -> _ActorGate:
    """The gate actor of the node this job runs on (created on first use)."""
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    from kerneltrials.scheduler._gate import RayNodeGate

    node_id = ray.get_runtime_context().get_node_id()
    actor_class = ray.remote(num_cpus=0, max_restarts=-1)(RayNodeGate)
    actor = actor_class.options(
        name=f"kt-gate-{node_id}", namespace=GATE_NAMESPACE, get_if_exists=True,
        lifetime="detached", max_concurrency=1000,
        scheduling_strategy=NodeAffinitySchedulingStrategy(node_id, soft=False),
    ).remote()
    return _ActorGate(actor)


def _remote_build(task: TaskSpec, source: str, options: CheckOptions) -> dict[str, Any]:
    from kerneltrials.scheduler._artifacts import pack_entries

    built = build_job(task, source, options, node_gate())
    return {"built": built, "artifacts": pack_entries(built.artifact_keys)}


def _remote_run(built: Built, artifacts: dict[str, bytes]) -> Verdict:
    from kerneltrials.scheduler._artifacts import install_entries

    install_entries(artifacts)  # the build may have run on another node
    return run_job(built, node_gate())


@functools.cache
def _remote_functions() -> tuple[Any, Any]:
    ray = _require_ray()
    build = ray.remote(max_retries=1, retry_exceptions=False)(_remote_build)
    run = ray.remote(max_retries=1, retry_exceptions=False)(_remote_run)
    return build, run


@EXECUTORS.register("ray")
class RayExecutor(Executor):
    """Jobs on a Ray cluster: ``address=None`` starts (or joins) a local instance."""

    name = "ray"

    def __init__(self, options: CheckOptions, address: str | None = None,
                 num_cpus: int | None = None) -> None:
        super().__init__(options)
        ray = _require_ray()
        address = address or os.environ.get("RAY_ADDRESS") or None
        self._in_flight: set[Any] = set()  # object refs of running jobs
        self._lock = threading.Lock()
        self._started_here = not ray.is_initialized()
        if self._started_here:
            _quiet_token_auth_notice()
            ray.init(address=address, num_cpus=num_cpus if address is None else None,
                     include_dashboard=False, log_to_driver=False, configure_logging=False,
                     namespace=GATE_NAMESPACE)

    def _run_resources(self) -> dict[str, Any]:
        if self.options.backend == "cuda":
            return {"num_cpus": 1, "num_gpus": 1}
        return {"num_cpus": 1}

    def verify(self, task: TaskSpec, source: str, hidden_seed: int | None = None,
               profile: bool = False) -> Verdict:
        options = self.options_for(hidden_seed, profile)
        build, run = _remote_functions()
        artifacts: dict[str, bytes] = {}

        def build_stage() -> Built:
            result = self._get(build.options(num_cpus=1).remote(task, source, options), task,
                               options)
            if isinstance(result, Verdict):  # Ray lost or failed the job: a harness failure
                return Built(task=task, source=source, options=options, verdict=result)
            artifacts.update(result["artifacts"])
            return cast(Built, result["built"])

        def run_stage(built: Built) -> Verdict:
            return as_verdict(self._get(run.options(**self._run_resources()).remote(
                built, artifacts), task, options))

        return verify_in_stages(build_stage, run_stage)

    def _get(self, reference: Any, task: TaskSpec, options: CheckOptions) -> Any:
        """The job's result; an ``error`` verdict when Ray lost the job or it raised."""
        import ray
        from ray import exceptions

        with self._lock:
            self._in_flight.add(reference)
        try:
            return ray.get(reference)
        except exceptions.TaskCancelledError:
            return self.error_verdict(task, "harness:cancelled", options.hidden_seed)
        except (exceptions.WorkerCrashedError, exceptions.NodeDiedError,
                exceptions.ObjectLostError, exceptions.RayActorError) as error:
            return self.error_verdict(task, f"harness:worker_lost:{type(error).__name__} "
                                            "(retried once)", options.hidden_seed)
        except exceptions.RayTaskError as error:
            return self.error_verdict(task, f"harness:job_failed:{error.cause!r}"[:2000],
                                      options.hidden_seed)
        finally:
            with self._lock:
                self._in_flight.discard(reference)

    def _stop_in_flight(self) -> None:
        """Interrupt every running job (its harness closes its sandboxes as it unwinds);
        any still running ``CANCEL_GRACE_S`` later loses its worker process."""
        import ray

        with self._lock:
            running = list(self._in_flight)
        for reference in running:
            ray.cancel(reference, force=False)

        def force() -> None:
            with self._lock:
                left = list(self._in_flight)
            for reference in left:
                try:
                    ray.cancel(reference, force=True)
                except Exception:  # noqa: BLE001 - finished or shut down meanwhile
                    pass

        timer = threading.Timer(CANCEL_GRACE_S, force)
        timer.daemon = True
        timer.start()

    def close(self) -> None:
        import ray

        if self._started_here and ray.is_initialized():
            ray.shutdown()
