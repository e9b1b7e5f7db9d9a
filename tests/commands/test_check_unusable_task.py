"""``kerneltrials check`` with a task it cannot use says so before it starts anything: no
verifier import (torch), no worker zygote."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(120)

PROBE = """
import sys
from kerneltrials.cli import main
sys.argv = ["kerneltrials", "check", sys.argv[1], sys.argv[2], "--quick"]
try:
    main()
except SystemExit as end:
    zygote = sys.modules.get("kerneltrials.sandbox.zygote._client")
    started = len(zygote._ZYGOTES) if zygote is not None else 0
    print("exit", end.code, "torch" in sys.modules, started)
"""


@pytest.mark.parametrize(("task", "cause"), [("L1/no_such_task", "unknown task id"),
                                            ("missing_task_file.py", "no such task file")])
def test_an_unusable_task_is_told_before_anything_starts(tmp_path: Path, task: str,
                                                         cause: str) -> None:
    candidate = tmp_path / "candidate.py"
    candidate.write_text("class ModelNew: pass\n")
    done = subprocess.run([sys.executable, "-c", PROBE, task, str(candidate)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=100)
    assert done.stdout.split()[-4:] == ["exit", "2", "False", "0"], (done.stdout, done.stderr)
    assert f"task {task}: {cause}" in done.stderr, done.stderr
