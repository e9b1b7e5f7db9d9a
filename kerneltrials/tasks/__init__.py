"""The task set: task files, their loader and registry, and shape configurations.

Names that need torch (building, validating, costing, datasets) load on first use, so
``import kerneltrials.tasks`` stays cheap for code that only reads task metadata.
"""

from __future__ import annotations

import importlib
from typing import Any

from kerneltrials.tasks._configs import (
    ShapeConfig,
    draw_hidden_configs,
    public_configs,
    shape_configs,
)
from kerneltrials.tasks._overrides import apply_config
from kerneltrials.tasks._parse import parse_task_source
from kerneltrials.tasks._registry import builtin_task_paths, list_tasks, load_task, task_id_for_path
from kerneltrials.tasks._spec import DEFAULT_TOLERANCE, PROFILES, TaskError, TaskSpec

#: public name -> private module that defines it (imported lazily)
_LAZY = {
    "load_task_module": "_instantiate",
    "make_reference": "_instantiate",
    "ValidationProblem": "_degenerate",
    "ValidationReport": "_validate",
    "validate_task": "_validate",
    "ConfigCost": "_cost",
    "config_cost": "_cost",
    "warm_cost_counter": "_cost",
    "largest_floating_input": "_cost",
    "DerivedProfile": "_cpu_profile",
    "derive_cpu_profile": "_cpu_profile",
    "describe_task": "_describe",
    "ImportedTask": "_dataset",
    "export_tasks": "_dataset",
    "import_tasks": "_dataset",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(f"kerneltrials.tasks.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'kerneltrials.tasks' has no attribute {name!r}")


__all__ = [
    "DEFAULT_TOLERANCE",
    "PROFILES",
    "ShapeConfig",
    "TaskError",
    "TaskSpec",
    "apply_config",
    "builtin_task_paths",
    "draw_hidden_configs",
    "list_tasks",
    "load_task",
    "parse_task_source",
    "public_configs",
    "shape_configs",
    "task_id_for_path",
    *_LAZY,
]
