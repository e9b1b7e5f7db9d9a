"""Small task files and scripted replay models for eval tests.

Every candidate uses the shared C++ source of ``tests/verifier/candidates.py``, so all
builds in these tests are hits of one cached library.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.verifier.candidates import candidate

RELU_TASK = """
import torch
import torch.nn as nn

TASK = {{"tags": ["activation"], "configs": {{"cpu": [{{"rows": {rows}, "cols": 4099}}]}},
        "ranges": {{"rows": [1, 4096]}}}}

rows = {rows}
cols = 4099


class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return []
"""


def write_tasks(directory: Path, names_rows: dict[str, int]) -> list[Path]:
    paths = []
    for name, rows in names_rows.items():
        path = directory / f"{name}.py"
        path.write_text(RELU_TASK.format(rows=rows))
        paths.append(path)
    return paths


def reply_with(function: str | None) -> str:
    if function is None:
        return "I could not write a kernel for this task."
    return f"Here is the kernel.\n```python\n{candidate(function)}```\n"


def write_replay(path: Path, replies: dict[str, str | None], strategy: str = "one-shot") -> Path:
    """A replay file answering each task id with the candidate calling ``function``."""
    with path.open("w") as file:
        for task_id, function in replies.items():
            record = {"version": 1,
                      "key": {"task": task_id, "strategy": strategy, "round": 0, "sample": 0,
                              "call": "main"},
                      "prompt_sha256": "recorded-elsewhere",
                      "completion": {"text": reply_with(function), "prompt_tokens": 1000,
                                     "completion_tokens": 250, "cost_usd": 0.01,
                                     "latency_s": 0.0, "model": "scripted",
                                     "raw_finish_reason": "stop"}}
            file.write(json.dumps(record) + "\n")
    return path
