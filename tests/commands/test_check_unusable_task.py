"""``kerneltrials check`` starts its workers' zygote early only for a check that will use
it: a task it cannot use is told before anything starts (no verifier import, no zygote),
and a candidate the static checks reject gets its verdict without a zygote."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.verifier.corpus import EXPLOITS, load

pytestmark = pytest.mark.timeout(120)

PROBE = """
import sys
from kerneltrials.cli import main
sys.argv = ["kerneltrials", "check", sys.argv[1], sys.argv[2], "--quick", "--json"]
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


def test_a_candidate_the_static_checks_reject_starts_no_zygote(tmp_path: Path) -> None:
    candidate = tmp_path / "candidate.py"
    candidate.write_text(load(EXPLOITS / "torch_compute_direct.py"))
    done = subprocess.run([sys.executable, "-c", PROBE, "L1/relu", str(candidate)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=100)
    assert '"status": "rejected"' in done.stdout, (done.stdout, done.stderr)
    assert done.stdout.split()[-4:] == ["exit", "0", "True", "0"], (done.stdout, done.stderr)
