"""What the build stage hands the run stage (:class:`Built`), and the run stage's hooks.

A :class:`Built` can travel between processes and nodes (Ray pickles it): the run stage
on another node repeats neither the static checks nor the build. The libraries' bytes
travel separately (``scheduler/_artifacts.py``) into that node's build cache; the run
stage copies each into the candidate job's view only when the copy matches the sha256
recorded here and in the node's digest record (docs/design/builds.md).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

from kerneltrials.tasks import TaskSpec
from kerneltrials.verifier._options import CheckOptions
from kerneltrials.verifier.builds._artifact import BuiltArtifact
from kerneltrials.verifier.verdict import Verdict

#: Bumped when a field changes meaning (a Built from another harness version is refused).
BUILT_VERSION = 1


def _no_progress(stage: str) -> None:
    """The default progress hook: nobody is watching."""


@dataclass(frozen=True)
class Hooks:
    """How the caller of :func:`~kerneltrials.verifier.run` follows and shapes it."""

    #: Called with each stage's name as it starts (``correctness``, ``timing``, ...).
    progress: Callable[[str], None] = _no_progress
    #: Entered around the timing phase: e.g. the node gate's exclusive lease on the cpu
    #: backend, so that nothing else runs on the cores while the candidate is timed.
    exclusive_timing: Callable[[], AbstractContextManager[Any]] = contextlib.nullcontext


@dataclass(frozen=True)
class Built:
    """A candidate after the static checks and the build: either the verdict already
    (``verdict``: it failed a static check or did not build), or everything the run
    stage needs."""

    task: TaskSpec
    source: str
    options: CheckOptions  # resolved: the policy and the hidden seed are fixed here
    static_reasons: tuple[str, ...] = ()  # findings and notes of the static checks
    artifacts: tuple[BuiltArtifact, ...] = ()  # each library with its sha256
    build_info: dict[str, Any] = field(default_factory=dict)  # the verdict's ``build``
    isolation: dict[str, Any] = field(default_factory=dict)  # the collect job's sandbox
    durations_s: dict[str, float] = field(default_factory=dict)  # static, build, total
    verdict: Verdict | None = None  # final: the run stage returns it as it is
    version: int = BUILT_VERSION

    @property
    def artifact_keys(self) -> list[str]:
        """The cache keys of the libraries (what a run on another node must install)."""
        return [item.artifact.key for item in self.artifacts]
