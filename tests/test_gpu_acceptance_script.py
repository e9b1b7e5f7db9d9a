"""scripts/gpu-acceptance.sh up to the GPU boundary: what it checks on a host without one."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "gpu-acceptance.sh"


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.skipif(torch.cuda.is_available(), reason="a GPU is here: the script would run the suite")
def test_without_a_gpu_the_script_stops_after_what_it_can_check(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = subprocess.run(["bash", str(SCRIPT), "--python", sys.executable, "--no-install",
                             "--out", str(out)], capture_output=True, text=True, timeout=840)
    assert result.returncode == 3, result.stdout[-3000:] + result.stderr[-3000:]
    assert "no GPU here" in result.stdout
    assert (out / "doctor.txt").read_text().strip(), "doctor wrote nothing"
    built = (out / "build_only.json").read_text()
    assert '"compiled": true' in built and '"status": "not_run"' in built, built


def test_a_host_without_torch_is_refused_with_exit_2(tmp_path: Path) -> None:
    # The system Python without the project's environment: torch cannot be imported.
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\nexec python3 -S -c 'import sys; sys.exit(1)'\n")
    fake.chmod(0o755)
    result = subprocess.run(["bash", str(SCRIPT), "--python", str(fake), "--out",
                             str(tmp_path / "out")], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "cannot import torch" in result.stdout


def test_an_empty_wheel_folder_is_a_clear_error(tmp_path: Path) -> None:
    empty = tmp_path / "wheels"
    empty.mkdir()
    result = subprocess.run(["bash", str(SCRIPT), "--python", sys.executable, "--wheels",
                             str(empty), "--out", str(tmp_path / "out")],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "no wheels in" in result.stdout and "gpu-wheels.sh" in result.stdout
