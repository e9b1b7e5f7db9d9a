"""The host as a user meets it: ``doctor`` and an end-to-end ``eval`` on the cuda backend."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

CLI = [sys.executable, "-m", "kerneltrials.cli"]


@pytest.mark.timeout(300)
def test_doctor_sees_the_gpu(figures) -> None:
    result = subprocess.run([*CLI, "doctor"], capture_output=True, text=True, timeout=240)
    figures(kind="doctor", returncode=result.returncode, output=result.stdout[-4000:])
    assert torch.cuda.get_device_name(0) in result.stdout, result.stdout + result.stderr


@pytest.mark.timeout(900)
def test_eval_on_the_cuda_backend_end_to_end(tmp_path: Path, figures) -> None:
    """The shipped (CPU) reference solutions through eval on the cuda backend, local
    executor: every attempt is stored with a verdict, none is an infrastructure error."""
    db = tmp_path / "gpu.sqlite"
    command = [*CLI, "eval", "--model", "reference", "--backend", "cuda", "--executor", "local",
               "--tasks", "L1/relu,L1/softmax", "--quick", "--no-compile-baseline",
               "--db", str(db), "--run", "gpu-accept", "--json"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=840)
    figures(kind="eval", returncode=result.returncode, stdout=result.stdout[-3000:],
            stderr=result.stderr[-3000:])
    assert db.is_file(), result.stderr[-3000:]
    shown = subprocess.run([*CLI, "runs", "show", "gpu-accept", "--db", str(db), "--json"],
                           capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0, shown.stderr[-3000:]
    attempts = json.loads(shown.stdout)
    figures(kind="eval_run", run=attempts)
    text = json.dumps(attempts)
    assert "L1/relu" in text and "L1/softmax" in text, text[:2000]
    assert '"error"' not in text, text[:4000]
