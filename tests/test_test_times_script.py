"""scripts/test_times.py sums the per-test times `make test` leaves in test-results/."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_times_are_summed_per_file_from_a_real_junit_report(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import test_times
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    (tmp_path / "test_slow_and_fast.py").write_text(
        "import time\n"
        "def test_slow():\n    time.sleep(0.3)\n"
        "def test_fast():\n    pass\n")
    report = tmp_path / "report.xml"
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                    f"--junitxml={report}", "test_slow_and_fast.py"],
                   cwd=tmp_path, check=True, capture_output=True)
    times = test_times.case_times([report])
    assert set(times) == {"test_slow_and_fast.py::test_slow", "test_slow_and_fast.py::test_fast"}
    assert times["test_slow_and_fast.py::test_slow"] >= 0.3 > times["test_slow_and_fast.py::test_fast"]
    assert test_times.main([str(report), "--top", "1"]) == 0
    printed = capsys.readouterr().out
    assert "2 tests" in printed and "test_slow_and_fast.py::test_slow" in printed
    assert "test_slow_and_fast.py::test_fast" not in printed  # --top 1
    monkeypatch.chdir(tmp_path)  # no test-results/ here: a clear error, exit 2
    assert test_times.main([]) == 2
    assert "run `make test` first" in capsys.readouterr().err
