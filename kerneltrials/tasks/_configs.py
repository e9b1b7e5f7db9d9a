"""Shape configurations: public ones from ``TASK``, hidden ones drawn at run time.

Hidden configurations are never in the source: each is drawn near one public
configuration by multiplying every integer constant by a seeded factor in [0.7, 1.3],
then clipping to ``ranges`` and rounding to ``multiple_of`` (docs/design/interfaces.md,
"Hidden configurations").
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Literal

from kerneltrials.tasks._spec import HIDDEN_FACTOR_RANGE, TaskSpec


@dataclass(frozen=True)
class ShapeConfig:
    """One configuration to verify on: its overrides and whether the agent may see it."""

    name: str  # "public-0", "hidden-1"
    kind: Literal["public", "hidden"]
    overrides: dict[str, Any]


def _round_to_multiple(value: int, multiple: int) -> int:
    return max(multiple, int(round(value / multiple)) * multiple)


def draw_hidden_value(name: str, value: int, rng: random.Random, task: TaskSpec) -> int:
    factor = rng.uniform(*HIDDEN_FACTOR_RANGE)
    drawn = max(1, int(round(value * factor)))
    low, high = task.ranges.get(name, (1, None))
    if name in task.multiple_of:
        multiple = int(task.multiple_of[name])
        drawn = _round_to_multiple(drawn, multiple)
        # Clip to the multiples inside the range, so rounding never leaves it.
        low = -(-int(low) // multiple) * multiple
        high = None if high is None else max(low, int(high) // multiple * multiple)
    drawn = max(drawn, int(low))
    return drawn if high is None else min(drawn, int(high))


def draw_hidden_configs(task: TaskSpec, profile: str, seed: int) -> list[dict[str, Any]]:
    """One hidden configuration near each public one; deterministic in ``seed``.

    Files without ``TASK`` get one derived around their public one (``_derive``).
    """
    if not task.has_task_dict:
        # Imported here: deriving runs the reference on the meta device (torch), and
        # ``kerneltrials.tasks`` stays light for commands that only list or read tasks.
        from kerneltrials.tasks._derive import derive_hidden_configs
        return derive_hidden_configs(task, profile, seed, public_configs(task, profile)[0])
    if not task.configs.get(profile):
        return []
    hidden = []
    for index, public in enumerate(task.public_configs(profile)):
        # A string seed hashes stably across processes and Python runs.
        rng = random.Random(f"{seed}:{task.id}:{profile}:{index}")
        config = {}
        for name, value in sorted(task.resolved_params(public).items()):
            if isinstance(value, int) and not isinstance(value, bool) and name in public:
                config[name] = draw_hidden_value(name, value, rng, task)
        hidden.append(config)
    return hidden


def public_configs(task: TaskSpec, profile: str) -> list[dict[str, Any]]:
    """The profile's public configurations: the ``TASK`` dict's; for a file without one,
    its own constants, or on the ``cpu`` profile the sizes derived for this machine
    (``_cpu_profile``: measured once per file and kept)."""
    if task.has_task_dict or profile != "cpu":
        return task.public_configs(profile)
    from kerneltrials.tasks._cpu_profile import derive_cpu_profile  # torch: see above
    return [dict(derive_cpu_profile(task).config)]


def shape_configs(task: TaskSpec, profile: str, hidden_seed: int | None) -> list[ShapeConfig]:
    """Public configurations, then hidden ones when a seed is given."""
    configs = [ShapeConfig(f"public-{i}", "public", c)
               for i, c in enumerate(public_configs(task, profile))]
    if hidden_seed is not None:
        configs += [ShapeConfig(f"hidden-{i}", "hidden", c)
                    for i, c in enumerate(draw_hidden_configs(task, profile, hidden_seed))]
    return configs
