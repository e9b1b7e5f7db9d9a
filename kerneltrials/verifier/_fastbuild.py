"""The fast compile pipeline: a stock ``load_inline`` build in a few seconds, not a minute.

Where stock puts the candidate's code and the generated pybind11 bindings in one
translation unit and compiles torch's headers from scratch with g++, we
  1. compile with clang (>= 15) against a precompiled ``torch/extension.h`` built once per
     exact flag set (``-fpch-instantiate-templates``: template instantiations are in the
     PCH too) and kept in the toolchain store;
  2. compile the bindings in their own unit, cached by signature set: the candidate's unit
     exports a pointer to each function, of the exact type we read from its text (a
     mismatch is a compile error there, never a silent miscall);
  3. compile the candidate's unit, the binding unit and the CUDA unit in parallel (2 jobs;
     nvcc's host and device halves count as two units, and nvcc's host compiler is clang);
  4. link with lld when present, aliasing ``PyInit_<module>`` to the binding's init.
The flags are stock's own (see _stockflags.py). Anything this path cannot do raises
:class:`FastPathUnavailable` and the caller builds the stock way. Measurements and the
reasoning: docs/design/builds.md.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from kerneltrials._toolversion import version_line
from kerneltrials.verifier._build import BuildRequest
from kerneltrials.verifier._buildcache import BuildCache
from kerneltrials.verifier._cudasplit import SplitUnavailable
from kerneltrials.verifier._cudaunits import compile_split, is_split_enabled
from kerneltrials.verifier._nvccsteps import plan_nvcc
from kerneltrials.verifier._signatures import find_signatures
from kerneltrials.verifier._stockflags import StockFlags, stock_flags
from kerneltrials.verifier._toolrun import run_tool

BINDING_NAME = "kerneltrials_binding"  # TORCH_EXTENSION_NAME in every unit: PCHs stay valid
PIPELINE_VERSION = "fast-4"  # bump when the produced library could change
MAX_JOBS = 2  # never more than two compilers at once on these machines
_CLANG_NAMES = ("clang++-19", "clang++-20", "clang++-18", "clang++-17", "clang++-16", "clang++")
_USING_LINE = re.compile(r"^[ \t]*using\s+(?:namespace\s+)?[\w:]+\s*;", re.MULTILINE)


class FastPathUnavailable(Exception):
    """This request (or this machine) needs the stock build; the message says why."""


def _version_line(compiler: str) -> str:
    return version_line(compiler) or ""


def find_fast_cxx() -> str | None:
    """clang++ >= 15 (``KERNELTRIALS_CXX`` overrides; ``stock`` disables the fast path)."""
    chosen = os.environ.get("KERNELTRIALS_CXX", "").strip()
    if chosen == "stock":
        return None
    for name in (chosen,) if chosen else _CLANG_NAMES:
        path = shutil.which(name)
        match = re.search(r"clang version (\d+)", _version_line(path)) if path else None
        if path and match and int(match.group(1)) >= 15:
            return path
    return None


def find_linker() -> str | None:
    """The fastest linker clang can use here (lld, then mold), or None for the default."""
    for flag, names in (("lld", ("ld.lld", "ld.lld-19", "ld.lld-20")), ("mold", ("mold",))):
        if any(shutil.which(name) for name in names):
            return flag
    return None


def fast_toolchain() -> dict[str, str]:
    """What the fast path adds to the cache key (empty when it is unavailable)."""
    cxx = find_fast_cxx()
    if cxx is None:
        return {}
    return {"fast_cxx": _version_line(cxx), "linker": find_linker() or "default",
            "pipeline": PIPELINE_VERSION}


def _digest(*parts: object) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:32]


def _strip_launcher(command: list[str]) -> list[str]:
    # torch prefixes ccache when installed; our keyed store already does its job.
    return command[1:] if command and os.path.basename(command[0]) == "ccache" else command


def _torch_extension_header() -> Path:
    from torch.utils import cpp_extension

    return Path(cpp_extension.include_paths("cpu")[0]) / "torch" / "extension.h"


def _torch_header_stamp() -> str:
    header = _torch_extension_header()
    return f"{header}:{header.stat().st_mtime_ns}"


def ensure_pch(cxx: str, cflags: list[str], store: BuildCache) -> Path | None:
    """A PCH of torch/extension.h for exactly ``cflags``; None if it cannot be built."""
    key = "pch-" + _digest(_version_line(cxx), cflags, _torch_header_stamp())

    def build(staging: Path) -> None:
        # From torch's own header (not a copy in staging): the PCH records its input path.
        run_tool([cxx, *cflags, "-fpch-instantiate-templates", "-x", "c++-header",
              str(_torch_extension_header()), "-o", "extension.h.pch"], staging)

    try:
        entry, _ = store.get_or_build(key, build)
    except subprocess.CalledProcessError:
        return None
    return entry / "extension.h.pch"


def _pointer_declaration(index: int, signature: tuple[str, str]) -> str:
    return_type, parameters = signature
    return f"{return_type} (* const fn_{index})({parameters})"


def export_stubs(names: list[str], signatures: list[tuple[str, str]]) -> str:
    """Code appended to the candidate's unit: a typed pointer to each function."""
    lines = ["", "namespace kerneltrials_export {"]
    for index, (name, signature) in enumerate(zip(names, signatures, strict=True)):
        declaration = _pointer_declaration(index, signature)
        lines += [f"extern {declaration};", f"{declaration} = &{name};"]
    return "\n".join(lines + ["}", ""])


def binding_source(request: BuildRequest, signatures: list[tuple[str, str]]) -> str:
    """The pybind11 module, as stock writes it, over the exported pointers."""
    usings = _USING_LINE.findall("\n".join(request.cpp_sources))
    lines = ["#include <torch/extension.h>", *usings, "namespace kerneltrials_export {"]
    lines += [f"extern {_pointer_declaration(i, s)};" for i, s in enumerate(signatures)]
    lines += ["}", f"PYBIND11_MODULE({BINDING_NAME}, m) {{"]
    for index, (name, doc) in enumerate(request.functions):
        pointer = f"+kerneltrials_export::fn_{index}"
        if request.with_pytorch_error_handling:
            pointer = f"torch::wrap_pybind_function({pointer})"
        lines.append(f'm.def("{name}", {pointer}, "{doc or name}");')
    return "\n".join(lines + ["}", ""])


def _compile_command(cxx: str, cflags: list[str], pch: Path | None, source: str) -> list[str]:
    include = ["-include-pch", str(pch)] if pch else []
    return [cxx, *cflags, *include, "-c", source, "-o", source + ".o"]


def ensure_binding(cxx: str, cflags: list[str], pch: Path | None, source: str,
                   store: BuildCache) -> Path:
    """The binding unit's object, from the store or compiled now."""
    key = "bind-" + _digest(_version_line(cxx), cflags, source, _torch_header_stamp())

    def build(staging: Path) -> None:
        (staging / "binding.cpp").write_text(source)
        run_tool(_compile_command(cxx, cflags, pch, "binding.cpp"), staging)

    entry, _ = store.get_or_build(key, build)
    return entry / "binding.cpp.o"


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
    return [*nvcc, *host, *extra, *flags.cuda_cflags, "-c", source, "-o", source + ".o",
            *flags.cuda_post_cflags]


def _link_command(cxx: str, objects: list[str], flags: StockFlags, module_name: str) -> list[str]:
    extra = ["-fopenmp"] if any(f.startswith("-fopenmp") for f in flags.cflags) else []
    linker = find_linker()
    extra += [f"-fuse-ld={linker}"] if linker else []
    alias = f"-Wl,--defsym=PyInit_{module_name}=PyInit_{BINDING_NAME}"
    return [cxx, *objects, *flags.ldflags, *extra, alias, "-o", f"{module_name}.so"]


def write_sources(request: BuildRequest, out_dir: Path, stubs: str) -> None:
    """main.cpp and cuda.cu exactly as stock writes them, plus our export stubs."""
    main = ["#include <torch/extension.h>", *request.cpp_sources]
    (out_dir / "main.cpp").write_text("\n".join(main) + "\n" + stubs)
    if request.cuda_sources:
        cuda = ["#include <torch/types.h>", "#include <cuda.h>", "#include <cuda_runtime.h>"]
        (out_dir / "cuda.cu").write_text("\n".join(cuda + list(request.cuda_sources)))


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


def _compile_cuda(request: BuildRequest, cxx: str, cflags: list[str], pch: Path | None,
                  flags: StockFlags, out_dir: Path, details: dict[str, object]) -> list[str]:
    """The CUDA source's objects: split into host and device units, or whole when it cannot."""
    if pch is not None and is_split_enabled():
        host_command = [cxx, *cflags, "-include-pch", str(pch)]
        nvcc = functools.partial(_cuda_command, flags, cxx)
        timings: dict[str, float] = {}
        try:
            objects = compile_split("\n".join(request.cuda_sources), host_command, nvcc, out_dir,
                                    flags.cuda_cflags + flags.cuda_post_cflags, timings)
            details["cuda_units"] = "split"
            details["cuda_unit_s"] = timings
            return objects
        except (SplitUnavailable, subprocess.CalledProcessError, OSError) as reason:
            details["cuda_units"] = f"whole: {type(reason).__name__}: {str(reason)[:200]}"
    else:
        details["cuda_units"] = "whole: split disabled" if pch is not None else "whole: no PCH"
    return _compile_cuda_whole(flags, cxx, out_dir)


def build_fast(request: BuildRequest, module_name: str, out_dir: Path, store: BuildCache,
               details: dict[str, object] | None = None) -> Path:
    """Build ``request`` into ``out_dir/<module_name>.so``; returns the library's path.

    ``details`` receives how the CUDA source was compiled (``cuda_units``). Raises
    FastPathUnavailable (use the stock build) or CalledProcessError (a compile or link
    failed: the caller decides whether that is the candidate's fault).
    """
    details = {} if details is None else details
    cxx = find_fast_cxx()
    if cxx is None:
        raise FastPathUnavailable("no clang++ >= 15 (install clang-19, or set KERNELTRIALS_CXX)")
    flags = stock_flags(request, BINDING_NAME)
    cflags = flags.cflags + flags.post_cflags
    names = [name for name, _ in request.functions]
    signatures = find_signatures(list(request.cpp_sources), names) if names else []
    if signatures is None:
        raise FastPathUnavailable("an exported function's signature could not be read")
    write_sources(request, out_dir, export_stubs(names, signatures) if names else "")
    pch = ensure_pch(cxx, cflags, store)
    with ThreadPoolExecutor(max_workers=MAX_JOBS) as pool:
        # Longest first: the CUDA units, then the candidate's C++ unit, then the binding.
        cuda = (pool.submit(_compile_cuda, request, cxx, cflags, pch, flags, out_dir, details)
                if request.cuda_sources else None)
        main = pool.submit(run_tool, _compile_command(cxx, cflags, pch, "main.cpp"), out_dir)
        binding = (pool.submit(ensure_binding, cxx, cflags, pch,
                               binding_source(request, signatures), store) if names else None)
        main.result()
        objects = ["main.cpp.o"] + (cuda.result() if cuda is not None else [])
        if binding is not None:
            objects.append(str(binding.result()))
    run_tool(_link_command(cxx, objects, flags, module_name), out_dir)
    return out_dir / f"{module_name}.so"
