"""Compile a candidate's CUDA source as a host unit (clang + PCH) and a device unit (nvcc).

The split itself is _split.py. This module runs it: the host unit first (its
undefined symbols name the template kernels it launches, which the device unit must then
instantiate), the device unit with stock's nvcc command, and a check that every kernel
and function the host unit declared is defined, with external linkage, by the device
unit — a mismatch would otherwise surface only when the library is loaded. Any failure
raises, and the caller compiles the whole source with nvcc instead.
See docs/design/builds.md.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from kerneltrials.verifier.builds._lean_unit import unit_commands
from kerneltrials.verifier.builds._toolrun import run_tool
from kerneltrials.verifier.builds.cuda._split import (
    SplitSource,
    SplitUnavailable,
    device_unit,
    split_cuda_source,
)

HOST_SOURCE = "cuda_host.cpp"
DEVICE_SOURCE = "cuda_device.cu"
# nvcc gives template kernels' launch stubs internal linkage unless told otherwise; the
# host unit is another translation unit and must link to them. One device unit per
# library, so the flag's warning (two units instantiating one template) does not apply.
TEMPLATE_STUB_FLAG = "-static-global-template-stub=false"
_UNSUPPORTED_DEMANGLED = ("(anonymous namespace)", "{lambda", "'lambda", "'unnamed", "[abi:")


def is_split_enabled() -> bool:
    """``KERNELTRIALS_CUDA_SPLIT=0`` compiles every CUDA source whole with nvcc."""
    return os.environ.get("KERNELTRIALS_CUDA_SPLIT", "1").strip() not in ("0", "false", "no")


def _symbols(obj: Path, undefined: bool) -> list[str]:
    """Global symbol names of an object: its undefined ones, or those it defines."""
    option = "--undefined-only" if undefined else "--defined-only"
    lines = run_tool(["nm", "--format=posix", option, str(obj)], obj.parent).splitlines()
    names = []
    for line in lines:
        parts = line.split()
        # posix format: name type [value size]; lower-case types are local symbols
        if len(parts) >= 2 and (undefined or parts[1] in "TWVDBRiu"):
            names.append(parts[0])
    return names


def _demangle(names: list[str], cwd: Path) -> dict[str, str]:
    if not names:
        return {}
    result = subprocess.run(["c++filt"], input="\n".join(names), cwd=cwd,
                            capture_output=True, text=True, check=True)
    return dict(zip(names, result.stdout.splitlines(), strict=True))


def _names(demangled: str, qualified: str) -> bool:
    """Whether a demangled symbol is ``qualified`` (C linkage) or a function of that name."""
    return demangled == qualified or re.search(rf"(?:^|\s){re.escape(qualified)}[<(]", demangled) is not None


def template_instantiations(split: SplitSource, demangled: dict[str, str]) -> list[str]:
    """The template kernels the host unit uses, as explicit-instantiation declarators."""
    found = []
    for text in demangled.values():
        for kernel in split.kernels:
            if kernel.is_template and text.startswith(f"void {kernel.qualified}<"):
                if any(marker in text for marker in _UNSUPPORTED_DEMANGLED):
                    raise SplitUnavailable(f"cannot instantiate {text!r} by name")
                found.append(text)
    return sorted(set(found))


def check_resolved(split: SplitSource, demangled: dict[str, str], defined: set[str]) -> None:
    """Every kernel or function the host unit uses from the device unit is defined there."""
    ours = [kernel.qualified for kernel in split.kernels] + split.declared_elsewhere
    for symbol, text in demangled.items():
        if symbol not in defined and any(_names(text, name) for name in ours):
            raise SplitUnavailable(f"the device unit does not define {text!r} for the host unit")


def _host_defines(cuda_flags: list[str], cflags: list[str]) -> str:
    """nvcc's -D/-U flags that the C++ flags lack, as lines for the host unit."""
    lines, index = [], 0
    while index < len(cuda_flags):
        flag = cuda_flags[index]
        if flag in ("-D", "-U") and index + 1 < len(cuda_flags):
            flag, index = flag + cuda_flags[index + 1], index + 1
        index += 1
        if flag in cflags or not flag.startswith(("-D", "-U")) or len(flag) < 3:
            continue
        name, _, value = flag[2:].partition("=")
        lines.append(f"#undef {name}" if flag.startswith("-U") else f"#define {name} {value or 1}")
    return "".join(line + "\n" for line in lines)


def compile_split(text: str, host_command: list[str],
                  nvcc_command: Callable[[str, list[str]], list[str]], out_dir: Path,
                  cuda_flags: list[str], timings: dict[str, float] | None = None,
                  llvm_opt: str | None = None) -> list[str]:
    """Compile ``text`` as two units; returns the two object file names.

    ``host_command`` is a clang compile command missing its source and output (flags and
    the PCH); ``nvcc_command(source, extra_flags)`` is stock's nvcc command for a source.
    ``timings`` receives each unit's compile seconds; ``llvm_opt`` gives the host unit
    the dead-code step (``_lean_unit``). Raises SplitUnavailable or CalledProcessError;
    the caller then compiles ``text`` whole.
    """
    timings = {} if timings is None else timings
    split = split_cuda_source(text)
    started = time.perf_counter()
    cflags = [flag for flag in host_command if flag.startswith(("-D", "-U"))]
    (out_dir / HOST_SOURCE).write_text(_host_defines(cuda_flags, cflags) + split.host)
    for command in unit_commands(host_command, HOST_SOURCE, llvm_opt):
        run_tool(command, out_dir)
    timings["host_s"] = round(time.perf_counter() - started, 3)
    undefined = _demangle(_symbols(out_dir / (HOST_SOURCE + ".o"), undefined=True), out_dir)
    instantiations = template_instantiations(split, undefined) if split.has_template_kernels else []
    (out_dir / DEVICE_SOURCE).write_text(device_unit(split, instantiations))
    template_flag = [TEMPLATE_STUB_FLAG] if split.has_template_kernels else []
    started = time.perf_counter()
    run_tool(nvcc_command(DEVICE_SOURCE, template_flag), out_dir)
    timings["device_s"] = round(time.perf_counter() - started, 3)
    defined = set(_symbols(out_dir / (DEVICE_SOURCE + ".o"), undefined=False))
    check_resolved(split, undefined, defined)
    return [HOST_SOURCE + ".o", DEVICE_SOURCE + ".o"]
