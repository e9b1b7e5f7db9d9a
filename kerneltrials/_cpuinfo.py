"""The CPU as ``/proc/cpuinfo`` describes it: for prompts (agents) and for the hardware
fingerprint of every verdict (verifier). Parsing takes text so it is tested on fixtures.
Also the one place that says how many cores this process may use (``usable_cores``)."""

from __future__ import annotations

import os
import platform
from pathlib import Path
from typing import Any

#: SIMD extensions worth telling a kernel writer about, in the order they are listed.
SIMD_FLAGS = (
    "sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl", "avx512dq",
    "avx512_vnni", "avx512_bf16", "avx512_fp16", "amx_tile", "amx_bf16", "amx_int8",
    "asimd", "asimdhp", "sve", "sve2",
)  # fmt: skip


def parse_cpuinfo(text: str) -> dict[str, Any]:
    """Model name, SIMD flags, logical CPUs and physical cores from ``/proc/cpuinfo`` text."""
    model, flags = "", set()
    logical = 0
    cores: set[tuple[str, str]] = set()
    physical_id = core_id = ""
    for line in text.splitlines():
        key, _, value = (part.strip() for part in line.partition(":"))
        if key == "processor":
            logical += 1
        elif key in ("model name", "Hardware", "cpu model") and not model:
            model = value
        elif key in ("flags", "Features"):
            flags |= set(value.split())
        elif key == "physical id":
            physical_id = value
        elif key == "core id":
            core_id = value
            cores.add((physical_id, core_id))
    return {
        "model": model or "unknown CPU",
        "simd": [flag for flag in SIMD_FLAGS if flag in flags],
        "logical_cpus": logical,
        "physical_cores": len(cores) or None,
    }


def cpu_model(cpuinfo_path: Path = Path("/proc/cpuinfo")) -> str:
    """The CPU's model name; the platform's own description when /proc has none."""
    try:
        model = parse_cpuinfo(cpuinfo_path.read_text(encoding="utf-8", errors="replace"))["model"]
    except OSError:
        model = "unknown CPU"
    return model if model != "unknown CPU" else (platform.processor() or platform.machine())


def usable_cores() -> int:
    """The logical CPUs this process may run on: its affinity mask where the OS has one
    (a container, ``taskset`` or a cgroup cpuset shrink it below the machine's count),
    else the machine's count; at least 1."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)
