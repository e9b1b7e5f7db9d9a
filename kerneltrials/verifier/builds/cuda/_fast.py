"""The CUDA source's part of the fast pipeline (builds/_fast.py): split into a host unit
and a device unit, or nvcc on stock's whole ``cuda.cu`` when the split cannot take it.
See docs/design/builds.md (the fast cold path, point 5)."""

from __future__ import annotations

import functools
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from kerneltrials.verifier.builds._lean_unit import candidate_unit_base
from kerneltrials.verifier.builds._reach import SECTION_FLAGS
from kerneltrials.verifier.builds._stock_flags import StockFlags
from kerneltrials.verifier.builds._toolrun import run_tool
from kerneltrials.verifier.builds.cuda._nvcc_steps import plan_nvcc
from kerneltrials.verifier.builds.cuda._split import SplitUnavailable
from kerneltrials.verifier.builds.cuda._units import compile_split, is_split_enabled
from kerneltrials.verifier.protocol._build import BuildRequest

#: The host compiler's section flags (``SECTION_FLAGS``), so the link policy reads what the
#: host code of a CUDA unit can reach, as it does for the C++ unit (builds/_reach.py).
NVCC_SECTION_FLAGS = ["-Xcompiler", ",".join(SECTION_FLAGS)]


def _strip_launcher(command: list[str]) -> list[str]:
    # torch prefixes ccache when installed; our keyed store already does its job.
    return command[1:] if command and os.path.basename(command[0]) == "ccache" else command


def _cuda_command(flags: StockFlags, host_cxx: str, source: str = "cuda.cu",
                  extra: tuple[str, ...] | list[str] = ()) -> list[str]:
    """nvcc as stock runs it, with clang as its host compiler unless the candidate chose one.

    clang parses torch's headers faster than g++ in each of nvcc's host-side steps
    (measured: host preprocessing -21%, device half -28%, final host compile -36%).
    """
    nvcc = _strip_launcher(flags.nvcc)
    chosen = any(flag in ("-ccbin", "--compiler-bindir") or flag.startswith("--compiler-bindir=")
                 for flag in flags.cuda_cflags + flags.cuda_post_cflags)
    host = [] if chosen else ["-ccbin", host_cxx]
    return [*nvcc, *host, *NVCC_SECTION_FLAGS, *extra, *flags.cuda_cflags, "-c", source,
            "-o", source + ".o", *flags.cuda_post_cflags]


def _compile_cuda_whole(flags: StockFlags, cxx: str, out_dir: Path) -> list[str]:
    """nvcc on stock's cuda.cu, its host and device halves at once when the plan allows."""
    command = _cuda_command(flags, cxx)
    plan = plan_nvcc(command, out_dir / "cuda.cu", out_dir)
    if plan is None:  # unusual nvcc plan: let nvcc run it whole
        run_tool(command, out_dir)
    else:
        with ThreadPoolExecutor(max_workers=2) as halves:
            for half in [halves.submit(plan.run, "host"), halves.submit(plan.run, "device")]:
                half.result()
        plan.run("final")
    return ["cuda.cu.o"]


def compile_cuda(request: BuildRequest, cxx: str, cflags: list[str], pch: Path | None,
                  flags: StockFlags, out_dir: Path, details: dict[str, object],
                  llvm_opt: str | None = None) -> list[str]:
    """The CUDA source's objects: split into host and device units, or whole when it cannot
    (``llvm_opt``: the host unit's dead-code step, as the C++ unit's)."""
    if pch is not None and is_split_enabled():
        host_command = candidate_unit_base(cxx, cflags, pch)
        nvcc = functools.partial(_cuda_command, flags, cxx)
        timings: dict[str, float] = {}
        try:
            objects = compile_split("\n".join(request.cuda_sources), host_command, nvcc, out_dir,
                                    flags.cuda_cflags + flags.cuda_post_cflags, timings,
                                    llvm_opt)
            details["cuda_units"] = "split"
            details["cuda_unit_s"] = timings
            return objects
        except (SplitUnavailable, subprocess.CalledProcessError, OSError) as reason:
            details["cuda_units"] = f"whole: {type(reason).__name__}: {str(reason)[:200]}"
    else:
        details["cuda_units"] = "whole: split disabled" if pch is not None else "whole: no PCH"
    return _compile_cuda_whole(flags, cxx, out_dir)
