"""``reference``: the hand-written solutions shipped beside the built-in tasks.

No LLM: each reply is the solution file of the task named by the call key, fenced as a
model would fence it, so the reference runs through the same strategy, extraction and
verifier as any model. A task without a solution gets a reply without code (recorded as
``agent:no_code``). It is the "human expert" row of the leaderboard and makes
``make demo`` work without an API key.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kerneltrials.agents._errors import ProviderUserError
from kerneltrials.agents._provider import CallKey, Completion, Message, Provider
from kerneltrials.agents._registry import register_provider

SOLUTIONS_ROOT = Path(__file__).resolve().parents[2] / "tasks" / "reference"


def solution_path(task_id: str) -> Path | None:
    """``L1/relu`` -> ``tasks/reference/level1/relu.py`` when it exists."""
    level, _, name = task_id.partition("/")
    if not (level.startswith("L") and level[1:].isdigit() and name):
        return None
    path = SOLUTIONS_ROOT / f"level{level[1:]}" / f"{name}.py"
    return path if path.is_file() else None


def tasks_with_solutions() -> list[str]:
    """Ids of the built-in tasks that have a reference solution."""
    ids = []
    for path in sorted(SOLUTIONS_ROOT.glob("level*/*.py")):
        if not path.name.startswith("_"):
            ids.append(f"L{path.parent.name.removeprefix('level')}/{path.stem}")
    return ids


@register_provider("reference")
class ReferenceProvider(Provider):
    """``reference`` (or ``reference:solutions``): replies with the shipped solution."""

    name = "reference"
    managed = False  # nothing to retry: the answer is a file read

    def __init__(self, model: str = "solutions", **options: Any) -> None:
        super().__init__(model, **options)

    def complete(
        self,
        messages: Sequence[Message],
        *,
        temperature: float | None = None,
        max_tokens: int = 8192,
        key: CallKey | None = None,
        **options: Any,
    ) -> Completion:
        if key is None:
            raise ProviderUserError("reference: the caller passed no call key naming the task")
        if key.call == "judge":
            text = "The kernel is correct; no further change is proposed."
        else:
            path = solution_path(key.task)
            text = (f"```python\n{path.read_text()}```\n" if path is not None
                    else f"No reference solution ships for {key.task}.")
        return Completion(text=text, prompt_tokens=0, completion_tokens=0, cost_usd=0.0,
                          latency_s=0.0, model="reference", raw_finish_reason="stop")
