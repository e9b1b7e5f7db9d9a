"""Fixtures for task tests: small task files written into ``tmp_path``."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

#: A well-formed task with a 2-D input; tests replace parts of it.
GOOD_TASK = '''
"""A planted task for tests."""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["test", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"rows": 64, "cols": 255}, {"rows": 33, "cols": 127}],
        "gpu": [{"rows": 4096, "cols": 4095}],
    },
    "ranges": {"rows": [1, 100], "cols": [8, 300]},
    "multiple_of": {"cols": 8},
    "backward": False,
}

rows = 64
cols = 255
half = cols // 2


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return FORWARD


def get_inputs():
    return INPUTS


def get_init_inputs():
    return []
'''


def a_task_source(forward: str = "torch.tanh(x)", inputs: str = "[torch.randn(rows, cols)]",
                  **replace: str) -> str:
    """The planted task's source with ``forward``/``inputs`` and any other text replaced."""
    source = GOOD_TASK.replace("FORWARD", forward).replace("INPUTS", inputs)
    for old, new in replace.items():
        source = source.replace(old, new)
    return textwrap.dedent(source).lstrip()


@pytest.fixture
def write_task(tmp_path: Path) -> Callable[..., Path]:
    """``write_task(name, source)`` -> path of a task file under ``tmp_path``."""

    def write(name: str, source: str) -> Path:
        path = tmp_path / f"{name}.py"
        path.write_text(source)
        return path

    return write
