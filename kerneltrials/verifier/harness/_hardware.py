"""What machine a verdict was measured on: part of every verdict and of cache keys."""

from __future__ import annotations

import functools
import platform
from typing import Any

from kerneltrials._cpuinfo import cpu_model, usable_cores
from kerneltrials.verifier.builds._compiler import toolchain_fingerprint
from kerneltrials.verifier.harness._openmp import openmp_label


@functools.cache
def hardware_fingerprint(backend: str) -> dict[str, Any]:
    """CPU/GPU model, core count, torch and toolchain versions."""
    import torch  # heavy: only when a verdict is made (``kerneltrials.verifier`` loads lazily)

    info: dict[str, Any] = {
        "cpu": cpu_model(),
        "cores": usable_cores(),
        "machine": platform.machine(),
        "torch": torch.__version__,
        "python": platform.python_version(),
        "toolchain": toolchain_fingerprint(backend),
    }
    if backend == "cpu":  # the runtime both timed sides run on changes CPU timings
        info["openmp"] = openmp_label(backend)
    if backend == "cuda" and torch.cuda.is_available():
        info["gpu"] = torch.cuda.get_device_name(0)
        info["cuda"] = torch.version.cuda
    return info


def gpu_available() -> bool:
    import torch  # heavy: see hardware_fingerprint

    return bool(torch.cuda.is_available())
