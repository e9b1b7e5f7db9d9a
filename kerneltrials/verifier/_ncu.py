"""Nsight Compute on the CUDA backend: a fixed metric set, parsed from ``ncu --csv``.

The set (documented here, stable across runs so feedback is comparable) covers
occupancy, DRAM/L1/L2 throughput, compute and tensor-pipe use, and warp stall reasons.
Only the GPU path runs ``ncu``; the parser is plain text processing, tested anywhere.
"""

from __future__ import annotations

import csv
import io
import shutil
from pathlib import Path

#: metric -> short label shown to agents
NCU_METRICS: dict[str, str] = {
    "gpu__time_duration.sum": "kernel time (ns)",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed": "SM throughput %",
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed": "memory throughput %",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed": "DRAM throughput %",
    "lts__t_sector_hit_rate.pct": "L2 hit rate %",
    "l1tex__t_sector_hit_rate.pct": "L1 hit rate %",
    "lts__throughput.avg.pct_of_peak_sustained_elapsed": "L2 throughput %",
    "l1tex__throughput.avg.pct_of_peak_sustained_active": "L1 throughput %",
    "sm__warps_active.avg.pct_of_peak_sustained_active": "achieved occupancy %",
    "sm__maximum_warps_per_active_cycle_pct": "theoretical occupancy %",
    "launch__registers_per_thread": "registers per thread",
    "launch__shared_mem_per_block_static": "static shared memory per block",
    "launch__block_size": "block size",
    "launch__grid_size": "grid size",
    "sm__inst_executed_pipe_tensor.avg.pct_of_peak_sustained_active": "tensor pipe %",
    "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active": "FMA pipe %",
    "smsp__inst_executed.sum": "instructions executed",
    "smsp__average_warp_latency_issue_stalled_long_scoreboard": "stall: long scoreboard",
    "smsp__average_warp_latency_issue_stalled_barrier": "stall: barrier",
    "smsp__average_warp_latency_issue_stalled_memory_throttle": "stall: memory throttle",
    "smsp__average_warp_latency_issue_stalled_math_pipe_throttle": "stall: math pipe throttle",
    "smsp__average_warp_latency_issue_stalled_short_scoreboard": "stall: short scoreboard",
    "smsp__average_warp_latency_issue_stalled_not_selected": "stall: not selected",
    "smsp__sass_average_branch_targets_threads_uniform.pct": "uniform branches %",
}


def find_ncu() -> str | None:
    for candidate in (shutil.which("ncu"), "/usr/local/cuda/bin/ncu"):
        if candidate and Path(candidate).is_file():
            return candidate
    return None


def ncu_prefix(ncu: str, kernel_limit: int = 20) -> list[str]:
    """The command prefix that profiles a worker's kernels with the metric set."""
    return [ncu, "--csv", "--target-processes", "all", "--launch-count", str(kernel_limit),
            "--metrics", ",".join(NCU_METRICS)]


def parse_ncu_csv(text: str) -> list[dict[str, object]]:
    """Per kernel: its name and the labelled metrics (``ncu --csv`` long format)."""
    lines = [line for line in text.splitlines() if line.startswith('"')]
    kernels: dict[str, dict[str, object]] = {}
    for row in csv.DictReader(io.StringIO("\n".join(lines))):
        metric = row.get("Metric Name", "")
        if metric not in NCU_METRICS:
            continue
        key = f"{row.get('ID', '')}:{row.get('Kernel Name', '')}"
        kernel = kernels.setdefault(key, {"kernel": row.get("Kernel Name", ""), "metrics": {}})
        value = (row.get("Metric Value") or "").replace(",", "")
        try:
            parsed: object = float(value)
        except ValueError:
            parsed = value
        kernel["metrics"][NCU_METRICS[metric]] = parsed  # type: ignore[index]
    return list(kernels.values())
