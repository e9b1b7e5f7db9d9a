"""Published generations (a peer's kernels for KernelBench problems) as an ``eval`` input.

A line of CUDA-L1's released JSONL holds ``level_id``, ``task_id``, ``ref_code`` (the
KernelBench problem file) and ``custom_code`` (the generated ``ModelNew`` file). Each
problem is written as a task file (``<dest>/level<N>/<task_id>.py``, so it loads as
``kb/L<N>/<task_id>``) and each generation as the one-shot reply to that task in a replay
file: ``eval`` with ``replay:`` then judges them with the full verifier and stores them as a
run of the named model, side by side with runs made here. Nothing of a generation runs in
this process; its text is only written to files.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from kerneltrials.agents._provider import CallKey

REQUIRED = ("level_id", "task_id", "ref_code", "custom_code")
_SAFE_STEM = re.compile(r"[^A-Za-z0-9_.-]+")


class GenerationsError(ValueError):
    """The file is not a set of generations this importer reads (the message says where)."""


@dataclass(frozen=True)
class Generation:
    level: int
    task: str  # the file stem: the problem's own id, made safe for a file name
    ref_code: str
    custom_code: str
    sample: int = 0  # the peer's sample number for this problem (0 where it has one)


@dataclass(frozen=True)
class PreparedImport:
    """What ``eval`` needs: the task files (the selection), the replay file and the strategy
    that asks for every sample (``one-shot``, or ``best-of-n`` with ``samples``)."""

    task_paths: list[Path]
    replay_path: Path
    strategy: str = "one-shot"
    samples: int = 1


def read_generations(path: Path) -> list[Generation]:
    """Every line of ``path``, checked; a bad line raises naming its number and fault."""
    try:
        lines = path.read_text().splitlines()
    except OSError as error:
        raise GenerationsError(f"cannot read {path}: {error.strerror}") from None
    generations: list[Generation] = []
    seen: set[tuple[int, str]] = set()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as error:
            raise GenerationsError(f"{path}:{number}: not JSON ({error})") from None
        generation = _generation(row, f"{path}:{number}")
        if (generation.level, generation.task) in seen:
            raise GenerationsError(f"{path}:{number}: a second generation for level "
                                   f"{generation.level} task {generation.task}")
        seen.add((generation.level, generation.task))
        generations.append(generation)
    if not generations:
        raise GenerationsError(f"{path}: no generations (expected one JSON object per line "
                               f"with {', '.join(REQUIRED)})")
    return generations


def _generation(row: Any, where: str) -> Generation:
    if not isinstance(row, dict):
        raise GenerationsError(f"{where}: a line must be a JSON object")
    missing = [key for key in REQUIRED if key not in row]
    if missing:
        raise GenerationsError(f"{where}: missing {', '.join(missing)} (need {', '.join(REQUIRED)})")
    try:
        level = int(row["level_id"])
    except (TypeError, ValueError):
        raise GenerationsError(f"{where}: level_id must be a number, not {row['level_id']!r}") from None
    task = _SAFE_STEM.sub("_", str(row["task_id"])).strip("._") or "task"
    if not all(isinstance(row[key], str) and row[key].strip() for key in ("ref_code", "custom_code")):
        raise GenerationsError(f"{where}: ref_code and custom_code must be non-empty text")
    return Generation(level, task, row["ref_code"], row["custom_code"])


def prepare_import(generations: list[Generation], dest: Path) -> PreparedImport:
    """Write the task files and the replay file under ``dest``."""
    samples = 1 + max(generation.sample for generation in generations)
    strategy = "one-shot" if samples == 1 else "best-of-n"
    paths: dict[Path, None] = {}  # a problem's file once, in order, however many samples
    records = []
    for generation in generations:
        task_path = dest / f"level{generation.level}" / f"{generation.task}.py"
        task_path.parent.mkdir(parents=True, exist_ok=True)
        task_path.write_text(generation.ref_code)
        paths[task_path] = None
        key = CallKey(task=f"kb/L{generation.level}/{generation.task}", strategy=strategy,
                      round=0, sample=generation.sample, call="main")
        # No prompt was recorded (the peer's prompts are not ours): no drift to report.
        records.append({"version": 1, "key": asdict(key), "prompt_sha256": None,
                        "completion": {"text": f"```python\n{generation.custom_code}\n```\n",
                                       "prompt_tokens": 0, "completion_tokens": 0,
                                       "cost_usd": 0.0, "cost_known": False,
                                       "latency_s": 0.0, "model": "imported",
                                       "raw_finish_reason": "stop"}})
    replay = dest / "generations.replay.jsonl"
    replay.write_text("".join(json.dumps(record) + "\n" for record in records))
    return PreparedImport(list(paths), replay, strategy, samples)
