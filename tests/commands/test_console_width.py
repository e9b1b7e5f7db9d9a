"""Output piped to a file keeps whole table cells instead of rich's 80-column default."""

from __future__ import annotations

import os
import subprocess
import sys

_PRINT_WIDE_TABLE = """
from rich.table import Table
from kerneltrials.commands._common import make_console
table = Table("provider", "note")
table.add_row("openai-compatible:" + "m" * 60, "x" * 40)
make_console().print(table)
"""


def test_piped_output_is_not_cut_at_80_columns() -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    done = subprocess.run([sys.executable, "-c", _PRINT_WIDE_TABLE], env=env,
                          capture_output=True, text=True, timeout=300, check=True)
    assert "openai-compatible:" + "m" * 60 in done.stdout
    assert "x" * 40 in done.stdout
    assert "…" not in done.stdout
