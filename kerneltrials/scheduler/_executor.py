"""Executors: where verification jobs run. ``LocalExecutor`` runs them in this process's
threads (no Ray); ``RayExecutor`` (``_ray_executor``) on a local or remote Ray cluster.

Executors are found by name in ``EXECUTORS``. The Ray one is a lazy built-in, listed by
module path: this module never imports ``_ray_executor`` (which imports this one), so the
import graph has no cycle and Ray stays unimported until asked for. Other packages add
executors through the entry point group ``kerneltrials.executors``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import replace
from typing import Any

from kerneltrials._registry import Builtin, Registry
from kerneltrials.scheduler._gate import LocalGate
from kerneltrials.scheduler._jobs import build_job, run_job, verify_in_stages
from kerneltrials.tasks import TaskSpec
from kerneltrials.verifier import CheckOptions


class Executor(ABC):
    """Verifies candidates; ``verify`` is thread-safe and blocks until the verdict."""

    name = "abstract"

    def __init__(self, options: CheckOptions) -> None:
        self.options = options

    @abstractmethod
    def verify(self, task: TaskSpec, source: str, hidden_seed: int | None = None,
               profile: bool = False) -> dict[str, Any]:
        """The verdict dict of ``source`` on ``task`` (``error`` for harness failures);
        ``profile`` adds a profiler summary to a correct verdict (agent feedback)."""

    def close(self) -> None:  # noqa: B027 - a hook with a default, not an abstract method
        """Release what the executor holds (Ray connection, ...)."""

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def options_for(self, hidden_seed: int | None, profile: bool = False) -> CheckOptions:
        return replace(self.options, hidden_seed=hidden_seed, profile_feedback=profile)


#: Executors by name (``--executor``): ``local`` and ``ray`` built in.
EXECUTORS: Registry[type[Executor]] = Registry(
    "executor",
    {"ray": Builtin("kerneltrials.scheduler._ray_executor", "ray", "ray")},
    entry_point_group="kerneltrials.executors",
)


@EXECUTORS.register("local")
class LocalExecutor(Executor):
    """Runs both stages in the calling thread; an in-process gate keeps timings alone."""

    name = "local"

    def __init__(self, options: CheckOptions) -> None:
        super().__init__(options)
        self.gate = LocalGate()

    def verify(self, task: TaskSpec, source: str, hidden_seed: int | None = None,
               profile: bool = False) -> dict[str, Any]:
        options = self.options_for(hidden_seed, profile)
        return verify_in_stages(lambda: build_job(task, source, options, self.gate),
                                lambda: run_job(task, source, options, self.gate))


def resolve_executor(name: str, options: CheckOptions, **kwargs: Any) -> Executor:
    """An executor by name (``local``, ``ray``, or one from an entry point), constructed
    with ``options`` and ``kwargs`` (e.g. ``address=`` for Ray).

    Raises:
        kerneltrials._registry.UnknownName: no such executor (a ValueError; the message
            lists the valid names).
        kerneltrials._registry.MissingDependency: ``ray`` without Ray installed.
    """
    return EXECUTORS.get(name)(options, **kwargs)
