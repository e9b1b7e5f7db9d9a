"""The fast compile pipeline: a stock ``load_inline`` build in a few seconds, not a minute.

Where stock puts the candidate's code and the generated pybind11 bindings in one
translation unit and compiles torch's headers from scratch with g++, we
  1. compile with clang (>= 15) against a precompiled ``torch/extension.h`` built once per
     flag set, ``-O1``/``-O2``/``-O3`` counted as one (``-fpch-instantiate-templates``:
     template instantiations are in the PCH too) and kept in the toolchain store;
  2. compile the bindings in their own unit, cached by signature set: the candidate's unit
     exports a pointer to each function, of the exact type we read from its text (a
     mismatch is a compile error there, never a silent miscall);
  3. compile the candidate's unit, the binding unit and the CUDA unit in parallel (2 jobs;
     nvcc's host and device halves count as two units, and nvcc's host compiler is clang);
  4. link with lld when present, aliasing ``PyInit_<module>`` to the binding's init.
An optimised candidate unit (and a CUDA host unit) loses the code nothing references
before clang optimises it, where LLVM's ``opt`` is at hand (``_lean_unit``).
The flags are stock's own (see _stock_flags.py). Anything this path cannot do raises
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
import signal
import subprocess
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

from kerneltrials._toolversion import version_line
from kerneltrials.verifier.builds._cache import BuildCache
from kerneltrials.verifier.builds._lean_unit import (
    candidate_unit_base,
    find_llvm_opt,
    unit_commands,
)
from kerneltrials.verifier.builds._reach import SECTION_FLAGS  # noqa: F401 - re-exported (tests)
from kerneltrials.verifier.builds._signatures import find_signatures
from kerneltrials.verifier.builds._stock_flags import StockFlags, stock_flags
from kerneltrials.verifier.builds._toolrun import run_tool
from kerneltrials.verifier.builds.cuda._fast import _cuda_command, compile_cuda  # noqa: F401 - re-exported (tests)
from kerneltrials.verifier.protocol._build import BuildRequest

BINDING_NAME = "kerneltrials_binding"  # TORCH_EXTENSION_NAME in every unit: PCHs stay valid
PCH_FILE = "extension.h.pch"  # the one file of a PCH entry
BINDING_OBJECT = "binding.cpp.o"  # the object of a binding entry (beside its source)
PIPELINE_VERSION = "fast-8"  # bump when the produced library could change
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
    opt = find_llvm_opt(cxx)
    return {"fast_cxx": _version_line(cxx), "linker": find_linker() or "default",
            "llvm_opt": _version_line(opt) if opt else "none", "pipeline": PIPELINE_VERSION}


def _digest(*parts: object) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:32]


def _torch_extension_header() -> Path:
    from torch.utils import cpp_extension

    return Path(cpp_extension.include_paths("cpu")[0]) / "torch" / "extension.h"


def _torch_header_stamp(header: Path | None = None) -> str:
    header = header or _torch_extension_header()
    return f"{header}:{header.stat().st_mtime_ns}"


#: Optimisation levels after which clang reads torch's header into the same AST: each
#: defines ``__OPTIMIZE__`` and nothing else a header can see (an ``-O3`` unit compiled
#: against the ``-O2`` PCH is the same object, byte for byte, as against an ``-O3`` one).
#: Not among them: ``-O0`` (no ``__OPTIMIZE__``), ``-Os``/``-Oz`` (``__OPTIMIZE_SIZE__``),
#: ``-Ofast`` (fast-math's macros and language options), ``-Og``.
_SAME_PCH_AS_O2 = frozenset({"-O", "-O1", "-O3"})


def pch_cflags(cflags: Sequence[str]) -> list[str]:
    """The flags the PCH is built with (and, through :func:`binding_cflags`, the binding
    unit): ``cflags`` with each of ``_SAME_PCH_AS_O2`` written ``-O2``, so candidates whose
    flags differ only there share one PCH (~20 s of CPU, 150 MB) and their binding
    objects. The candidate's own unit is still compiled with its own flags. Each level is
    replaced where it stands, so the last ``-O`` flag decides for the PCH what it decides
    for the unit (``-O3 -O0`` stays -O0)."""
    return ["-O2" if flag in _SAME_PCH_AS_O2 else flag for flag in cflags]


def binding_cflags(cflags: Sequence[str]) -> list[str]:
    """The flags the binding unit is compiled with: its PCH's (:func:`pch_cflags`), each
    ``-O2`` there written ``-O1``. The binding is harness code, pybind11's casting around
    one call, and it compiles on the critical path of every build of a new signature:
    4.85 s at ``-O1`` against 5.30 s at ``-O2``, and a call through it 0.129 against
    0.124 us (``bench/binding_level.py``, 2026-12-03). ``-O1`` reads the header as ``-O2``
    does (both define ``__OPTIMIZE__`` and nothing else), so it compiles against the same
    PCH."""
    return ["-O1" if flag == "-O2" else flag for flag in pch_cflags(cflags)]


def pch_key(cxx: str, cflags: list[str], header: Path | None = None) -> str:
    """The PCH's store key: everything it is built from (compiler, the flags it is built
    with, torch's headers; ``header`` is torch/extension.h, found through torch when not
    given)."""
    return "pch-" + _digest(_version_line(cxx), pch_cflags(cflags), _torch_header_stamp(header))


def build_pch(cxx: str, cflags: list[str], out_dir: Path, header: Path | None = None) -> Path:
    """Compile the PCH of torch/extension.h for ``cflags`` (as :func:`pch_cflags` writes
    them) into ``out_dir``."""
    # From torch's own header (not a copy): the PCH records its input path.
    run_tool([cxx, *pch_cflags(cflags), "-fpch-instantiate-templates", "-x", "c++-header",
              str(header or _torch_extension_header()), "-o", PCH_FILE], out_dir)
    return out_dir / PCH_FILE


def _pch_into(cxx: str, cflags: list[str], out_dir: Path) -> None:
    build_pch(cxx, cflags, out_dir)


def ensure_pch(cxx: str, cflags: list[str], store: BuildCache) -> Path | None:
    """In-process (trusted callers: benchmarks, tests): the PCH for ``cflags`` from
    ``store``, built now on a miss; None if it cannot be built."""
    try:
        entry, _ = store.get_or_build(pch_key(cxx, cflags), functools.partial(_pch_into, cxx, cflags))
    except subprocess.CalledProcessError:
        return None
    return entry / PCH_FILE


def _pointer_declaration(index: int, signature: tuple[str, str]) -> str:
    return_type, parameters = signature
    return f"{return_type} (* const fn_{index})({parameters})"


def _cpp_string(text: str) -> str:
    """``text`` as a C++ string literal: every byte outside printable ASCII, and the quote
    and backslash, written as a three-digit octal escape (never read as more digits)."""
    return '"' + "".join(chr(byte) if 32 <= byte < 127 and chr(byte) not in '"\\?'
                         else f"\\{byte:03o}" for byte in text.encode()) + '"'


def export_stubs(functions: Sequence[tuple[str, str]], signatures: list[tuple[str, str]]) -> str:
    """Code appended to the candidate's unit: a typed pointer to each function, and the
    names and docstrings the binding unit gives them (``(name, doc)`` pairs). The names
    live here, not in the binding unit, so that unit's text — its cache key — depends on
    the signatures alone: candidates that name their functions differently share it."""
    lines = ["", "namespace kerneltrials_export {"]
    for index, ((name, _), signature) in enumerate(zip(functions, signatures, strict=True)):
        declaration = _pointer_declaration(index, signature)
        lines += [f"extern {declaration};", f"{declaration} = &{name};"]
    for array, texts in (("names", [name for name, _ in functions]),
                         ("docs", [doc or name for name, doc in functions])):
        lines += [f"extern const char* const {array}[];",
                  f"const char* const {array}[] = {{{', '.join(map(_cpp_string, texts))}}};"]
    return "\n".join(lines + ["}", ""])


def binding_source(request: BuildRequest, signatures: list[tuple[str, str]]) -> str:
    """The pybind11 module, as stock writes it, over the exported pointers and the names
    and docstrings :func:`export_stubs` put beside them (no name is in this text)."""
    usings = _USING_LINE.findall("\n".join(request.cpp_sources))
    lines = ["#include <torch/extension.h>", *usings, "namespace kerneltrials_export {"]
    lines += [f"extern {_pointer_declaration(i, s)};" for i, s in enumerate(signatures)]
    lines += ["extern const char* const names[];", "extern const char* const docs[];"]
    lines += ["}", f"PYBIND11_MODULE({BINDING_NAME}, m) {{"]
    for index in range(len(request.functions)):
        pointer = f"+kerneltrials_export::fn_{index}"
        if request.with_pytorch_error_handling:
            pointer = f"torch::wrap_pybind_function({pointer})"
        lines.append(f"m.def(kerneltrials_export::names[{index}], {pointer}, "
                     f"kerneltrials_export::docs[{index}]);")
    return "\n".join(lines + ["}", ""])



def _compile_command(cxx: str, cflags: list[str], pch: Path | None, source: str,
                     extra: list[str] | None = None) -> list[str]:
    include = ["-include-pch", str(pch)] if pch else []
    return [cxx, *cflags, *include, *(extra or []), "-c", source, "-o", source + ".o"]


def binding_key(cxx: str, cflags: list[str], source: str, header: Path | None = None) -> str:
    """The binding object's store key: compiler, the flags it is built with
    (:func:`binding_cflags`), its text, torch's headers."""
    return "bind-" + _digest(_version_line(cxx), binding_cflags(cflags), source,
                             _torch_header_stamp(header))


def build_binding(cxx: str, cflags: list[str], pch: Path | None, source: str,
                  out_dir: Path) -> Path:
    """Compile the binding unit into ``out_dir`` against its PCH with
    :func:`binding_cflags`; returns its object. (Harness code: its ``-O1`` for a
    candidate's ``-O3`` changes nothing of the kernel.)"""
    (out_dir / "binding.cpp").write_text(source)
    run_tool(_compile_command(cxx, binding_cflags(cflags), pch, "binding.cpp"), out_dir)
    return out_dir / BINDING_OBJECT


def _link_command(cxx: str, objects: list[str], flags: StockFlags, module_name: str) -> list[str]:
    extra = ["-fopenmp"] if any(f.startswith("-fopenmp") for f in flags.cflags) else []
    linker = find_linker()
    extra += [f"-fuse-ld={linker}"] if linker else []
    alias = f"-Wl,--defsym=PyInit_{module_name}=PyInit_{BINDING_NAME}"
    # -Bsymbolic-functions: the library's calls to its own functions bind inside it, so a
    # candidate cannot define a libc or CPython name and have the dynamic linker route a
    # harness call to it (or its own call to the real one past the link policy).
    return [cxx, *objects, *flags.ldflags, *extra, alias, "-Wl,-Bsymbolic-functions",
            "-o", f"{module_name}.so"]


#: Where a compile job leaves copies of the candidate's own objects for the parent's
#: link-policy check (``_symbols``); the harness's binding object is not among them.
OBJECTS_DIR = "objects"


def keep_objects(lib: Path, objects: list[str], destination: Path) -> None:
    destination.mkdir(exist_ok=True)
    for index, name in enumerate(objects):
        shutil.copyfile(lib / name, destination / f"{index}-{Path(name).name}")


def write_sources(request: BuildRequest, out_dir: Path, stubs: str) -> None:
    """main.cpp and cuda.cu exactly as stock writes them, plus our export stubs."""
    main = ["#include <torch/extension.h>", *request.cpp_sources]
    (out_dir / "main.cpp").write_text("\n".join(main) + "\n" + stubs)
    if request.cuda_sources:
        cuda = ["#include <torch/types.h>", "#include <cuda.h>", "#include <cuda_runtime.h>"]
        (out_dir / "cuda.cu").write_text("\n".join(cuda + list(request.cuda_sources)))


@dataclass(frozen=True)
class FastPlan:
    """What the parent decided for a compile job's toolchain inputs (JSON-able).

    A ``*_path`` is an entry the parent verified and mounts read-only; a missing one is
    built by the job into ``<out>/pch`` or ``<out>/binding``, and the parent publishes
    it under the key it computed itself (``*_key``), never under one the job names.
    """

    pch_key: str
    pch_path: str | None = None
    binding_key: str | None = None  # None: no exported functions, or unreadable signatures
    binding_path: str | None = None
    # g++'s PCH for confirming a clang rejection (_gcc_confirm): its entry directory and the
    # digests the store recorded, which the job checks before use (hashing ~0.8 GB on every
    # plan would tax every fresh build for the rare one that fails).
    gcc_pch_key: str | None = None
    gcc_pch_dir: str | None = None
    gcc_pch_sha256: dict[str, str] | None = None
    # The parent's own fast-path inputs: the compiler, stock's flags (StockFlags' fields)
    # and torch's extension.h. The job builds with exactly these, so on the fast path it
    # never imports torch to work them out again (~2 s of CPU before its first compiler).
    cxx: str | None = None
    stock_flags: dict[str, list[str]] | None = None
    torch_header: str | None = None
    llvm_opt: str | None = None  # the unit's dead-code step (unit_commands); None: none

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass(frozen=True)
class FastInputs:
    """The fast path's inputs for one request, computed the same way by parent and job."""

    cxx: str
    flags: StockFlags
    cflags: list[str]
    signatures: list[tuple[str, str]] | None
    binding: str | None  # the binding unit's text
    header: Path  # torch/extension.h, which the PCH is built from
    llvm_opt: str | None  # opt for the candidate unit's dead-code step, or None

    def plan_keys(self) -> tuple[str, str | None]:
        pch = pch_key(self.cxx, self.cflags, self.header)
        return pch, (binding_key(self.cxx, self.cflags, self.binding, self.header)
                     if self.binding else None)


def fast_inputs(request: BuildRequest, plan: FastPlan | None = None) -> FastInputs:
    """Compiler, stock's flags, signatures and binding text (no compiler runs): the
    compiler, flags and header of ``plan`` where the parent put them there (a compile
    job), else found here (which imports torch).

    Raises FastPathUnavailable when this request or machine needs the stock build.
    """
    if plan is not None and plan.cxx and plan.stock_flags is not None and plan.torch_header:
        cxx, llvm_opt = plan.cxx, plan.llvm_opt
        flags, header = StockFlags(**plan.stock_flags), Path(plan.torch_header)
        if llvm_opt is not None and not os.access(llvm_opt, os.X_OK):
            # The parent's key says the unit gets the dead-code step; a job that cannot
            # run it builds the stock way rather than under a key it does not match.
            raise FastPathUnavailable(f"the planned {llvm_opt} cannot run here")
    else:
        found = find_fast_cxx()
        if found is None:
            raise FastPathUnavailable("no clang++ >= 15 (install clang-19, or set "
                                      "KERNELTRIALS_CXX)")
        cxx, flags, header = found, stock_flags(request, BINDING_NAME), _torch_extension_header()
        llvm_opt = find_llvm_opt(cxx)
    names = [name for name, _ in request.functions]
    signatures = find_signatures(list(request.cpp_sources), names) if names else []
    binding = binding_source(request, signatures) if names and signatures else None
    return FastInputs(cxx, flags, flags.cflags + flags.post_cflags, signatures, binding, header,
                      llvm_opt)


def _toolchain_inputs(inputs: FastInputs, plan: FastPlan,
                      out_dir: Path) -> tuple[Path | None, Callable[[], Path] | None]:
    """The PCH to compile against and a thunk giving the binding object: the planned
    entries, or built now into ``out_dir/pch`` and ``out_dir/binding``."""
    if inputs.plan_keys() != (plan.pch_key, plan.binding_key):
        raise FastPathUnavailable("the toolchain keys computed here differ from the parent's")
    pch = Path(plan.pch_path) if plan.pch_path else None
    if pch is None:
        (out_dir / "pch").mkdir()
        try:
            pch = build_pch(inputs.cxx, inputs.cflags, out_dir / "pch", inputs.header)
        except subprocess.CalledProcessError as error:
            if is_cpu_limit(error):
                raise
            shutil.rmtree(out_dir / "pch")
    if inputs.binding is None:
        return pch, None
    if plan.binding_path:
        return pch, lambda: Path(plan.binding_path or "")
    binding_dir, source = out_dir / "binding", inputs.binding
    binding_dir.mkdir()
    return pch, lambda: build_binding(inputs.cxx, inputs.cflags, pch, source, binding_dir)


def is_cpu_limit(error: BaseException) -> bool:
    """A tool that died on the job's CPU-time limit (SIGXCPU; gcc and nvcc print it)."""
    if not isinstance(error, subprocess.CalledProcessError):
        return False
    text = f"{error.stderr or ''}{error.stdout or ''}"
    return error.returncode == -signal.SIGXCPU or "CPU time limit exceeded" in text or bool(
        re.search(r"died due to signal 24\b", text))


def _run_each(commands: list[list[str]], cwd: Path) -> None:
    for command in commands:
        run_tool(command, cwd)


def build_fast(request: BuildRequest, module_name: str, out_dir: Path, plan: FastPlan,
               details: dict[str, object] | None = None) -> Path:
    """Build ``request`` into ``out_dir/lib/<module_name>.so``; returns the library's path.

    Runs no candidate code: only compilers on the request's text. The PCH and binding
    object come from ``plan`` or are built into ``out_dir`` (see :class:`FastPlan`).
    ``details`` receives how the CUDA source was compiled (``cuda_units``). Raises
    FastPathUnavailable (use the stock build) or CalledProcessError (a compile or link
    failed: the caller decides whether that is the candidate's fault).
    """
    details = {} if details is None else details
    inputs = fast_inputs(request, plan)
    if inputs.signatures is None:
        raise FastPathUnavailable("an exported function's signature could not be read")
    lib, cxx, cflags, flags = out_dir / "lib", inputs.cxx, inputs.cflags, inputs.flags
    lib.mkdir(exist_ok=True)
    functions = list(request.functions)
    write_sources(request, lib, export_stubs(functions, inputs.signatures) if functions else "")
    pch, binding = _toolchain_inputs(inputs, plan, out_dir)
    with ThreadPoolExecutor(max_workers=MAX_JOBS) as pool:
        # Longest first: the CUDA units, then the candidate's C++ unit, then the binding.
        cuda = (pool.submit(compile_cuda, request, cxx, cflags, pch, flags, lib, details,
                            inputs.llvm_opt)
                if request.cuda_sources else None)
        main = pool.submit(_run_each, unit_commands(candidate_unit_base(cxx, cflags, pch),
                                                    "main.cpp", inputs.llvm_opt), lib)
        bound = pool.submit(binding) if binding is not None else None
        main.result()
        objects = ["main.cpp.o"] + (cuda.result() if cuda is not None else [])
        own = list(objects)  # the candidate's own units, before the binding joins them
        if bound is not None:
            objects.append(str(bound.result()))
    keep_objects(lib, own, out_dir / OBJECTS_DIR)
    run_tool(_link_command(cxx, objects, flags, module_name), lib)
    return lib / f"{module_name}.so"
