"""Nsight Compute feedback for agents on the cuda backend (``profile_feedback``).

Nsight Compute profiles only processes it launched (even its attach mode needs a target
that ncu started). So the profile stage starts one more candidate worker, in the same
sandbox, under ``ncu`` (:func:`ncu_wrapper`), with profiling off until the worker opens a
profiler range around the profiled calls (``worker/_profile.py``, ``cudaProfilerStart``/``Stop``): only the
candidate's calls are measured, not its imports, setup or the harness's own kernels. ncu
writes its report (CSV) into the job's writable directory when the worker exits; the
parent parses it here (:func:`parse_ncu_csv`) into per-kernel counters.

The report comes from the candidate's job, so the candidate could write it: it is
feedback for the next attempt, never part of a verdict's status or score. Where the
profiler may not read the counters (``ERR_NVGPUCTRPERM``: the driver restricts them to
administrators, and jobs run unprivileged) the profile says so and keeps PyTorch's.
"""

from __future__ import annotations

import csv
import io
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

#: What an agent can act on, per kernel: time, how close it runs to the memory and compute
#: roofs, occupancy and what limits it, and the launch shape.
NCU_METRICS = (
    "gpu__time_duration.sum",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "launch__registers_per_thread",
    "launch__block_size",
    "launch__grid_size",
)

#: The ncu message for counters it may not read (an unprivileged job on most drivers).
NO_PERMISSION = "ERR_NVGPUCTRPERM"

#: Kernels reported in a profile (the slowest first).
MAX_KERNELS = 8


def find_ncu() -> str | None:
    """``ncu`` on PATH, else the newest under ``/usr/local/cuda*/bin``; None without one."""
    found = shutil.which("ncu")
    if found:
        return found
    candidates = sorted(Path("/usr/local").glob("cuda*/bin/ncu"))
    return str(candidates[-1]) if candidates else None


def ncu_wrapper(ncu: str, report: str) -> list[str]:
    """The argv prefix that runs a worker under ncu, writing the CSV report to ``report``
    (a path the job may write) and profiling only inside the worker's profiler range."""
    return [ncu, "--csv", "--page", "details", "--metrics", ",".join(NCU_METRICS),
            "--profile-from-start", "off", "--target-processes", "all",
            "--log-file", report]


@dataclass
class KernelCounters:
    """One kernel's counters, averaged over its profiled launches."""

    name: str
    launches: int = 0
    metrics: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _number(text: str) -> float | None:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def parse_ncu_csv(text: str) -> list[KernelCounters]:
    """Per kernel name, the mean of each metric over its launches, slowest kernel first.

    ``text`` is ncu's ``--csv --page details`` output: one row per (launch, metric), with
    the columns ``ID``, ``Kernel Name``, ``Metric Name`` and ``Metric Value``; ncu's own
    log lines (``==PROF==``) are skipped. Rows without a numeric value are ignored, and a
    report this parser cannot read gives no kernels (the caller notes it).
    """
    quoted = "\n".join(line for line in text.splitlines() if line.startswith('"'))
    values: dict[str, dict[str, list[float]]] = {}  # kernel -> metric -> one per launch
    launches: dict[str, set[str]] = {}  # kernel -> the IDs of its launches
    for row in csv.DictReader(io.StringIO(quoted)):
        name, metric = row.get("Kernel Name"), row.get("Metric Name")
        value = _number(row.get("Metric Value") or "")
        if not name or not metric or value is None:
            continue
        values.setdefault(name, {}).setdefault(metric, []).append(value)
        launches.setdefault(name, set()).add(row.get("ID") or "")
    kernels = [KernelCounters(name=name, launches=len(launches[name]),
                              metrics={metric: sum(each) / len(each)
                                       for metric, each in metrics.items()})
               for name, metrics in values.items()]
    kernels.sort(key=lambda kernel: kernel.metrics.get("gpu__time_duration.sum", 0.0),
                 reverse=True)
    return kernels


def ncu_note(text: str, kernels: list[KernelCounters]) -> str:
    """Why a report has no kernels (empty when it has some)."""
    if kernels:
        return ""
    if NO_PERMISSION in text:
        return (f"Nsight Compute may not read the GPU's counters here ({NO_PERMISSION}: the "
                "driver restricts profiling to administrators); PyTorch's profiler only")
    if not text.strip():
        return "Nsight Compute wrote no report; PyTorch's profiler only"
    return "Nsight Compute's report named no kernel; PyTorch's profiler only"


def with_ncu(profile: dict[str, Any], kernels: list[KernelCounters], note: str) -> dict[str, Any]:
    """``profile`` (the PyTorch profiler's summary) with the ncu kernels or its note."""
    merged = dict(profile)
    if kernels:
        merged["tool"] = f"{profile.get('tool', 'torch.profiler')}+ncu"
        merged["kernels"] = [kernel.to_dict() for kernel in kernels[:MAX_KERNELS]]
    if note:
        merged["note"] = "; ".join(part for part in (profile.get("note"), note) if part)
    return merged
