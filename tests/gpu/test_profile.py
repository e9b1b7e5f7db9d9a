"""Profiler feedback on the GPU: the verifier's own (PyTorch's profiler, on a correct
candidate), and whether Nsight Compute can read the counters a feedback parser would need
on this host (kerneltrials has no ncu parser yet; the test parses its CSV itself)."""

from __future__ import annotations

import csv
import io
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kerneltrials.verifier import Status
from tests.gpu import sources
from tests.gpu._checks import check_cuda, summary

NCU_METRICS = ("gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum")

WORKLOAD = """
import torch
x = torch.randn(1 << 24, device="cuda")
torch.relu(x)
torch.cuda.synchronize()
"""


@pytest.mark.timeout(300)
def test_profile_feedback_of_a_correct_candidate(figures) -> None:
    verdict = check_cuda("L1/relu", sources.relu_work(0), profile_feedback=True)
    figures(kind="profile", profile=verdict.profile, **summary(verdict))
    assert verdict.status == Status.CORRECT, verdict.reasons
    assert verdict.profile, verdict.reasons


def ncu_rows(text: str) -> dict[str, dict[str, float]]:
    """Kernel name → metric → value, from ``ncu --csv`` (its log lines are skipped)."""
    quoted = "\n".join(line for line in text.splitlines() if line.startswith('"'))
    kernels: dict[str, dict[str, float]] = {}
    for row in csv.DictReader(io.StringIO(quoted)):
        name, metric, value = row.get("Kernel Name"), row.get("Metric Name"), row.get("Metric Value")
        if name and metric and value:
            try:
                kernels.setdefault(name, {})[metric] = float(value.replace(",", ""))
            except ValueError:
                pass
    return kernels


@pytest.mark.timeout(200)
def test_ncu_reads_the_counters_feedback_needs(tmp_path: Path, figures) -> None:
    ncu = shutil.which("ncu") or next((str(path) for path in
                                       sorted(Path("/usr/local").glob("cuda*/bin/ncu"))), None)
    if ncu is None:
        pytest.skip("no ncu on PATH nor under /usr/local/cuda*/bin")
    script = tmp_path / "workload.py"
    script.write_text(WORKLOAD)
    done = subprocess.run([ncu, "--csv", "--metrics", ",".join(NCU_METRICS), sys.executable,
                           str(script)], capture_output=True, text=True, timeout=170, check=False)
    output = done.stdout + done.stderr
    if "ERR_NVGPUCTRPERM" in output:
        figures(kind="ncu", readable=False)
        pytest.skip("ncu may not read performance counters here (ERR_NVGPUCTRPERM)")
    kernels = ncu_rows(done.stdout)
    figures(kind="ncu", readable=True, kernels=kernels)
    assert done.returncode == 0, output[-2000:]
    assert any(metrics.get("gpu__time_duration.sum", 0) > 0 for metrics in kernels.values()), output[-2000:]
