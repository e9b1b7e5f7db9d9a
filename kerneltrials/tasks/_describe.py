"""The data behind ``tasks show``: metadata, configurations and their costs."""

from __future__ import annotations

from typing import Any

from kerneltrials.tasks._configs import shape_configs
from kerneltrials.tasks._cost import config_cost
from kerneltrials.tasks._spec import PROFILES, TaskError, TaskSpec


def describe_config(task: TaskSpec, name: str, kind: str, overrides: dict[str, Any],
                    with_cost: bool) -> dict[str, Any]:
    """One configuration: its overrides, resolved constants and (optionally) its cost."""
    entry: dict[str, Any] = {
        "name": name,
        "kind": kind,
        "overrides": overrides,
        "constants": task.resolved_params(overrides),
        # A file without TASK names no hidden shapes, nor CPU-sized ones: they are derived
        # from its constants (a public one that overrides them is the cpu profile's).
        "derived": not task.has_task_dict and (kind == "hidden" or bool(overrides)),
    }
    if with_cost:
        try:
            entry.update(config_cost(task, overrides).to_dict())
        except TaskError as error:
            entry.update(params=None, flops=None, bytes=None, arithmetic_intensity=None,
                         flops_note=f"cost unavailable: {error.cause}")
    return entry


def describe_task(task: TaskSpec, profiles: tuple[str, ...] = PROFILES,
                  hidden_seed: int | None = None, with_cost: bool = True) -> dict[str, Any]:
    """Everything ``tasks show --json`` prints for ``task``.

    Hidden configurations appear only when ``hidden_seed`` is given (a preview of what
    that seed draws); without it nothing about them leaks.

    Args:
        task: the loaded task.
        profiles: profiles whose configurations to list.
        hidden_seed: seed for the hidden-configuration preview, or None.
        with_cost: compute params/FLOPs/bytes per configuration.
    """
    details = task.summary()
    details.update(
        tolerance={"atol": task.tolerance()[0], "rtol": task.tolerance()[1]},
        has_task_dict=task.has_task_dict,
        metadata=task.metadata,
        constants=task.constants,
        configs={},
    )
    for profile in profiles:
        configs = shape_configs(task, profile, hidden_seed)
        details["configs"][profile] = [
            describe_config(task, c.name, c.kind, c.overrides, with_cost) for c in configs
        ]
    return details
