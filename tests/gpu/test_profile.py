"""Profiler feedback on the GPU: the verifier's own (PyTorch's profiler and, where ncu is
installed, Nsight Compute's per-kernel counters from a candidate worker run under it:
harness/_nsight.py) on a correct candidate, and ncu on a plain workload read by the same
parser."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kerneltrials.agents.feedback import format_feedback
from kerneltrials.verifier import Status
from kerneltrials.verifier.harness._nsight import (
    NCU_METRICS,
    NO_PERMISSION,
    find_ncu,
    parse_ncu_csv,
)
from tests.gpu import sources
from tests.gpu._checks import check_cuda, summary

WORKLOAD = """
import torch
x = torch.randn(1 << 24, device="cuda")
torch.relu(x)
torch.cuda.synchronize()
"""


@pytest.mark.timeout(600)
def test_profile_feedback_of_a_correct_candidate(figures) -> None:
    verdict = check_cuda("L1/relu", sources.relu_work(0), profile_feedback=True)
    profile = verdict.profile or {}
    figures(kind="profile", profile=profile, **summary(verdict))
    assert verdict.status == Status.CORRECT, verdict.reasons
    assert profile.get("top_ops"), verdict.reasons
    if find_ncu() is None:
        pytest.skip("no ncu on this host: PyTorch's profiler only")
    if NO_PERMISSION in str(profile.get("note")):
        pytest.skip(f"ncu may not read the counters for an unprivileged job ({NO_PERMISSION})")
    kernels = profile.get("kernels") or []
    assert kernels, profile.get("note")
    assert any("relu_work" in kernel["name"] for kernel in kernels), kernels
    assert all(kernel["metrics"].get("gpu__time_duration.sum", 0) > 0 for kernel in kernels)
    assert "- kernel " in format_feedback(verdict)


@pytest.mark.timeout(200)
def test_ncu_reads_the_counters_feedback_needs(tmp_path: Path, figures) -> None:
    ncu = find_ncu()
    if ncu is None:
        pytest.skip("no ncu on PATH nor under /usr/local/cuda*/bin")
    script = tmp_path / "workload.py"
    script.write_text(WORKLOAD)
    done = subprocess.run([ncu, "--csv", "--metrics", ",".join(NCU_METRICS), sys.executable,
                           str(script)], capture_output=True, text=True, timeout=170, check=False)
    output = done.stdout + done.stderr
    if NO_PERMISSION in output:
        figures(kind="ncu", readable=False)
        pytest.skip(f"ncu may not read performance counters here ({NO_PERMISSION})")
    kernels = parse_ncu_csv(done.stdout)
    figures(kind="ncu", readable=True, kernels=[kernel.to_dict() for kernel in kernels])
    assert done.returncode == 0, output[-2000:]
    assert any(kernel.metrics.get("gpu__time_duration.sum", 0) > 0 for kernel in kernels), \
        output[-2000:]
