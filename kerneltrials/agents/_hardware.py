"""Short hardware descriptions for prompts: the CPU read from this machine, the GPU from a dict.

Parsing takes text (``/proc/cpuinfo``, ``lscpu`` output) so that it is tested on fixtures;
the ``describe_*`` functions read the machine and never fail: a missing source is left out.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from kerneltrials._cpuinfo import parse_cpuinfo, usable_cores

SYSFS_CPU = Path("/sys/devices/system/cpu")


def read_sysfs_caches(root: Path = SYSFS_CPU) -> list[str]:
    """["L1d 48K", "L2 2048K", ...] for cpu0 from sysfs; [] when unavailable."""
    caches = []
    for index in sorted((root / "cpu0" / "cache").glob("index*")):
        try:
            level = (index / "level").read_text().strip()
            kind = (index / "type").read_text().strip()
            size = (index / "size").read_text().strip()
        except OSError:
            continue
        suffix = {"Data": "d", "Instruction": "i"}.get(kind, "")
        caches.append(f"L{level}{suffix} {size}")
    return caches


def parse_lscpu_caches(text: str) -> list[str]:
    """["L1d 48 KiB (2 instances)", ...] from ``lscpu`` output."""
    pattern = re.compile(r"^\s*(L\d\w*) cache:\s*(.+?)\s*$")
    return [f"{m.group(1)} {m.group(2)}" for m in map(pattern.match, text.splitlines()) if m]


def describe_cpu(cpuinfo_path: Path = Path("/proc/cpuinfo"), sysfs_root: Path = SYSFS_CPU) -> str:
    """One short paragraph: model, usable cores, SIMD extensions, cache sizes."""
    try:
        info = parse_cpuinfo(cpuinfo_path.read_text(encoding="utf-8", errors="replace"))
    except OSError:  # no /proc here
        info = {
            "model": "unknown CPU",
            "simd": [],
            "logical_cpus": os.cpu_count(),
            "physical_cores": None,
        }
    usable = usable_cores()
    caches = read_sysfs_caches(sysfs_root) or parse_lscpu_caches(_run_lscpu())
    lines = [f"CPU: {info['model']}"]
    cores = f"{usable} usable logical CPUs"
    if info["physical_cores"]:
        cores += f" ({info['physical_cores']} physical cores on the machine)"
    lines.append(f"Cores: {cores}; the timing uses all of them (OpenMP).")
    lines.append(f"SIMD: {', '.join(info['simd']) or 'none detected'}")
    if caches:
        lines.append(f"Caches (per core unless shared): {', '.join(caches)}")
    return "\n".join(lines)


def _run_lscpu() -> str:
    try:
        return subprocess.run(
            ["lscpu"], capture_output=True, text=True, timeout=5, check=False
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return ""


#: GPU fields shown, in order, with their labels.
_GPU_FIELDS = (
    ("name", "GPU"),
    ("compute_capability", "Compute capability"),
    ("sm_count", "SMs"),
    ("memory_gib", "Memory (GiB)"),
    ("memory_bandwidth_gbps", "Memory bandwidth (GB/s)"),
    ("l2_cache_mib", "L2 cache (MiB)"),
    ("shared_memory_per_block_kib", "Shared memory per block (KiB)"),
    ("shared_memory_per_sm_kib", "Shared memory per SM (KiB)"),
    ("registers_per_sm", "Registers per SM"),
    ("max_threads_per_block", "Max threads per block"),
    ("warp_size", "Warp size"),
    ("cuda_version", "CUDA"),
)


def describe_gpu(info: Mapping[str, Any]) -> str:
    """One line per known field of ``info`` (e.g. the verdict's ``hardware["gpu"]``);
    unknown fields follow as ``key: value``."""
    labels = dict(_GPU_FIELDS)
    lines = [f"{labels[key]}: {info[key]}" for key, _ in _GPU_FIELDS if info.get(key) is not None]
    lines += [
        f"{key}: {value}" for key, value in info.items() if key not in labels and value is not None
    ]
    return "\n".join(lines) or "GPU: unknown"
