"""The task set: task files, their loader and registry, and shape configurations."""

from kerneltrials.tasks._configs import (
    ShapeConfig,
    apply_config,
    draw_hidden_configs,
    shape_configs,
)
from kerneltrials.tasks._parse import parse_task_source
from kerneltrials.tasks._registry import builtin_task_paths, list_tasks, load_task, task_id_for_path
from kerneltrials.tasks._spec import DEFAULT_TOLERANCE, PROFILES, TaskError, TaskSpec

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
    "shape_configs",
    "task_id_for_path",
]
