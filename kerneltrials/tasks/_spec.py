"""The in-memory description of a task, read from its file without importing it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

PROFILES = ("cpu", "gpu")

#: A hidden configuration multiplies each size by a seeded factor in this range.
HIDDEN_FACTOR_RANGE = (0.7, 1.3)
#: Eager runtime band per profile, in ms (cpu: this 2-core machine; gpu: one H100-class
#: GPU): what ``tasks validate`` checks, and what a derived cpu profile aims into.
RUNTIME_BAND_MS = {"cpu": (1.0, 50.0), "gpu": (0.02, 50.0)}
#: Correctness tolerances per dtype (docs/design/interfaces.md, "Tolerances and timing
#: defaults").
DEFAULT_TOLERANCE = {"float32": 1e-4, "float64": 1e-4, "bfloat16": 1e-2, "float16": 1e-2}


class TaskError(Exception):
    """A task file is unusable: names the file and the cause (CLI exit code 2)."""

    def __init__(self, path: str, cause: str) -> None:
        super().__init__(f"{path}: {cause}")
        self.path = path
        self.cause = cause


@dataclass(frozen=True)
class TaskSpec:
    """A task: its source, metadata and shape configurations.

    ``constants`` are the module-level literal assignments of the file (the shape
    parameters); a configuration is a dict that overrides some of them.
    """

    id: str  # "L1/relu", "path:my_task", "kb/L1/19_ReLU"
    name: str
    path: str
    source: str
    level: int | None
    constants: dict[str, Any]
    tags: tuple[str, ...] = ()
    dtype: str = "float32"
    configs: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # profile -> configs
    ranges: dict[str, list[int]] = field(default_factory=dict)
    multiple_of: dict[str, int] = field(default_factory=dict)
    backward: bool = False
    atol: float | None = None  # overrides of the dtype default, with a reason in the file
    rtol: float | None = None
    policy: str | None = None  # explicit policy; default depends on level
    has_task_dict: bool = False
    metadata: dict[str, Any] = field(default_factory=dict)  # the raw TASK dict

    def public_configs(self, profile: str) -> list[dict[str, Any]]:
        """Public configurations for ``profile``; a file without them has one: its constants."""
        configs = self.configs.get(profile)
        if configs:
            return [dict(config) for config in configs]
        return [{}]

    def resolved_params(self, config: dict[str, Any]) -> dict[str, Any]:
        """The shape constants in force under ``config`` (for display)."""
        params = {k: v for k, v in self.constants.items() if isinstance(v, int | float)}
        params.update(config)
        return params

    def tolerance(self) -> tuple[float, float]:
        """(atol, rtol) for this task's dtype, with the task's own overrides applied."""
        default = DEFAULT_TOLERANCE.get(self.dtype, 1e-4)
        return (self.atol if self.atol is not None else default,
                self.rtol if self.rtol is not None else default)

    def default_policy(self) -> str:
        if self.policy:
            return self.policy
        return "strict" if self.level == 1 else "mixed"

    def summary(self) -> dict[str, Any]:
        """The JSON shape of ``tasks list``."""
        return {
            "id": self.id,
            "level": self.level,
            "name": self.name,
            "tags": list(self.tags),
            "dtype": self.dtype,
            "backward": self.backward,
            "policy": self.default_policy(),
            "path": self.path,
        }
