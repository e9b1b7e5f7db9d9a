"""What a compile job does: one :class:`BuildRequest` into a private output directory.

This runs inside the sandboxed ``compile`` worker (and in-process for trusted callers:
benchmarks, tests). It never imports the candidate: its only inputs are the request's
text and flags (checked by the parent's flag allow-list) and the toolchain entries the
parent verified and mounted read-only. It writes only under ``out_dir``::

    out_dir/lib/       the library (``<module>.so``) and its sources
    out_dir/pch/       the PCH, when the parent asked for one it lacked
    out_dir/binding/   the binding object, likewise
    out_dir/gcc_pch/   g++'s PCH, built beside the stock build after clang rejected the
                       candidate and none was planned (``_gcc_confirm``)

The parent then hashes and publishes those under the keys it computed itself
(``_compiler``). Fast path first; torch's own ``load_inline`` when the fast path cannot
take the request or fails, which stays the authority on whether a candidate compiles.
See docs/design/builds.md.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from kerneltrials.verifier.builds._cache import sha256_file
from kerneltrials.verifier.builds._fast import (
    BINDING_NAME,
    OBJECTS_DIR,
    FastPathUnavailable,
    FastPlan,
    build_fast,
    is_cpu_limit,
)
from kerneltrials.verifier.builds._gcc_confirm import (
    GCC_PCH_DIR,
    GCC_PCH_UNUSABLE,
    build_gcc_pch,
    gcc_pch_key,
    stock_rejects,
)
from kerneltrials.verifier.builds._reach import SECTION_FLAGS
from kerneltrials.verifier.builds._stock_flags import StockFlags, stock_flags
from kerneltrials.verifier.builds._symbols import STOCK_ROOT_PREFIX, STOCK_UNIT
from kerneltrials.verifier.builds.cuda._fast import NVCC_SECTION_FLAGS
from kerneltrials.verifier.protocol._build import BuildRequest, CompileError, CpuTimeExceeded

LIB_DIR, PCH_DIR, BINDING_DIR = "lib", "pch", "binding"
_CPU_LIMIT_TEXT = "CPU time limit exceeded"


def find_library(build_dir: Path, module_name: str) -> Path | None:
    for candidate in sorted(build_dir.glob(f"{module_name}*.so")):
        return candidate
    return None


@contextlib.contextmanager
def _without_loading(cpp_extension: Any) -> Iterator[None]:
    """Stock ``load_inline`` loads what it built into this process, which would run the
    candidate's static initialisers here; a compile job runs no candidate code."""
    saved = cpp_extension._import_module_from_library

    def path_only(module_name: str, path: str, is_python_module: bool) -> str:
        return os.path.join(path, f"{module_name}.so")

    cpp_extension._import_module_from_library = path_only
    try:
        yield
    finally:
        cpp_extension._import_module_from_library = saved


def build_stock(request: BuildRequest, module_name: str, out_dir: Path) -> None:
    """Build exactly as ``torch.utils.cpp_extension.load_inline`` does, into ``out_dir``
    (without loading the library)."""
    from torch.utils import cpp_extension

    try:
        with _without_loading(cpp_extension):
            cpp_extension.load_inline(**_load_inline_arguments(request, module_name, out_dir))
    except Exception as error:  # torch raises RuntimeError with the compiler log
        if _CPU_LIMIT_TEXT in str(error) or "died due to signal 24" in str(error):
            raise CpuTimeExceeded(f"build of {request.name!r}: a compiler hit the CPU-time limit") from error
        raise CompileError(f"build of {request.name!r} failed", log=str(error)) from error


def _stock_roots(request: BuildRequest) -> list[str]:
    """One exported pointer per function stock binds: the parent's link reading sets the
    generated module aside as harness code (``_symbols.StockModule``), and these roots
    reach each function's own code even where the compiler inlined it into the module."""
    return [f'extern "C" void* const {STOCK_ROOT_PREFIX}{name} = '
            f"reinterpret_cast<void*>(&{name});" for name, _ in request.functions]


def _load_inline_arguments(request: BuildRequest, module_name: str,
                           out_dir: Path) -> dict[str, Any]:
    """The request as stock ``load_inline`` takes it, building into ``out_dir``."""
    return {
        "name": module_name,
        "cpp_sources": [*request.cpp_sources, *_stock_roots(request)],
        "cuda_sources": list(request.cuda_sources) or None,
        "functions": dict(request.functions) or None,
        # The section flags: layout only, so the parent's link policy reads what can run.
        "extra_cflags": [*request.extra_cflags, *SECTION_FLAGS],
        "extra_cuda_cflags": [*request.extra_cuda_cflags, *NVCC_SECTION_FLAGS],
        "extra_ldflags": list(request.extra_ldflags) or None,
        "extra_include_paths": list(request.extra_include_paths) or None,
        "build_directory": str(out_dir),
        "with_cuda": request.with_cuda,
        "with_pytorch_error_handling": request.with_pytorch_error_handling,
        "is_python_module": False,
        "verbose": False,
    }


def _clear(directory: Path, keep: tuple[str, ...]) -> None:
    """Delete everything in ``directory`` but files with a suffix in ``keep``."""
    for path in directory.iterdir():
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        elif path.suffix not in keep or path.is_symlink():
            path.unlink()


def _fast_or_stock(request: BuildRequest, module_name: str, out_dir: Path,
                   plan: FastPlan | None, details: dict[str, Any]) -> None:
    lib = out_dir / LIB_DIR
    try:
        if plan is None:
            raise FastPathUnavailable(str(details.get("fast_path_skipped", "no plan")))
        build_fast(request, module_name, out_dir, plan, details)
        details["path"] = "fast"
    except Exception as reason:  # noqa: BLE001 - any fast-path failure: stock decides
        # A candidate that stock compiles must compile here, and an unexpected error in
        # our pipeline (e.g. a torch-internal API that moved) must not fail a candidate.
        if is_cpu_limit(reason):  # stock would only burn the same CPU again
            raise CpuTimeExceeded(f"build of {request.name!r}: a compiler hit the "
                                  "CPU-time limit") from reason
        details["path"] = "stock"
        details.setdefault("fast_path_skipped", f"{type(reason).__name__}: {str(reason)[:300]}")
        if isinstance(reason, subprocess.CalledProcessError):
            details["fast_path_log"] = (reason.stderr or "")[-2000:]
        shutil.rmtree(lib, ignore_errors=True)
        shutil.rmtree(out_dir / OBJECTS_DIR, ignore_errors=True)  # a failed fast build's
        lib.mkdir()
        if isinstance(reason, subprocess.CalledProcessError) and plan is not None:
            _confirm_or_build_stock(request, module_name, out_dir, plan, details,
                                    reason.stderr or "")
        else:
            build_stock(request, module_name, lib)
        _keep_stock_objects(lib, out_dir / OBJECTS_DIR)


def _keep_stock_objects(lib: Path, destination: Path) -> None:
    """The stock build's units for the parent's link policy: its ``main.o`` (the
    candidate's code and the module stock generated beside it) as ``STOCK_UNIT``, its
    CUDA object (the candidate's alone) under its own name."""
    destination.mkdir(exist_ok=True)
    for unit in sorted(lib.glob("*.o")):
        name = STOCK_UNIT if unit.name == "main.o" else f"stock-{unit.name}"
        shutil.copyfile(unit, destination / name)


def write_stock_main(request: BuildRequest, module_name: str, out_dir: Path) -> Path:
    """Stock's ``main.cpp`` for ``request``, written by torch's own ``load_inline`` (which is
    stopped before it compiles anything)."""
    from torch.utils import cpp_extension

    class _Written(Exception):
        pass

    def stop(*args: object, **kwargs: object) -> None:
        raise _Written

    saved = cpp_extension._jit_compile
    cpp_extension._jit_compile = stop  # type: ignore[assignment]  # stops after the writes
    try:
        with contextlib.suppress(_Written):
            cpp_extension.load_inline(**_load_inline_arguments(request, module_name, out_dir))
    finally:
        cpp_extension._jit_compile = saved
    return out_dir / "main.cpp"


def _confirm_or_build_stock(request: BuildRequest, module_name: str, out_dir: Path,
                            plan: FastPlan, details: dict[str, Any], clang_log: str) -> None:
    """After clang rejected the candidate: g++'s syntax check against its PCH decides a
    rejection in seconds; otherwise (or without a usable PCH) the stock build decides, and
    where the PCH is missing it is built beside that build for the next rejection."""
    lib = out_dir / LIB_DIR
    if request.cuda_sources or plan.gcc_pch_key is None:  # nvcc's half is stock's alone
        build_stock(request, module_name, lib)
        return
    flags = stock_flags(request, BINDING_NAME)
    pch_dir = _usable_gcc_pch(plan, flags)
    if pch_dir is None and plan.gcc_pch_dir is not None:
        # Not what the store recorded: say so (the parent then verifies the entry itself,
        # which removes it if broken) and let stock decide; no second PCH meanwhile.
        (out_dir / GCC_PCH_UNUSABLE).touch()
        build_stock(request, module_name, lib)
        return
    if pch_dir is not None:
        started = time.perf_counter()
        confirm = out_dir / "confirm"
        confirm.mkdir()
        log = stock_rejects(flags, pch_dir, write_stock_main(request, module_name, confirm),
                            clang_log)
        details["gcc_confirm_s"] = round(time.perf_counter() - started, 3)
        if log is not None:
            details["path"] = "gcc_confirmed"
            raise CompileError(f"build of {request.name!r} failed", log=log)
        build_stock(request, module_name, lib)
        return
    with ThreadPoolExecutor(max_workers=2) as pool:  # the two cores: stock, and the PCH
        pch = pool.submit(build_gcc_pch, flags, out_dir / GCC_PCH_DIR)
        try:
            build_stock(request, module_name, lib)
        finally:
            pch.result()


def _usable_gcc_pch(plan: FastPlan, flags: StockFlags) -> Path | None:
    """The planned PCH's directory if its key is this request's and its files hash to what
    the store recorded (the job checks, only when it needs the PCH)."""
    if plan.gcc_pch_dir is None or not plan.gcc_pch_sha256:
        return None
    if gcc_pch_key(flags) != plan.gcc_pch_key:
        return None
    directory = Path(plan.gcc_pch_dir)
    try:
        if any(sha256_file(directory / name) != digest
               for name, digest in plan.gcc_pch_sha256.items()):
            return None
    except OSError:
        return None
    return directory


def compile_into(request: BuildRequest, module_name: str, out_dir: Path,
                 plan: FastPlan | None, details: dict[str, Any] | None = None) -> dict[str, Any]:
    """Compile ``request`` into ``out_dir`` (layout above); returns the build details.

    Raises :class:`CompileError` (the candidate's sources do not build) or
    :class:`CpuTimeExceeded` (a compiler ran past the job's CPU-time limit).
    """
    details = {} if details is None else details
    started = time.perf_counter()
    (out_dir / LIB_DIR).mkdir(parents=True, exist_ok=True)
    _fast_or_stock(request, module_name, out_dir, plan, details)
    details["compile_s"] = round(time.perf_counter() - started, 3)
    _clear(out_dir / LIB_DIR, keep=(".so", ".cpp", ".cu"))  # the library and its sources
    if find_library(out_dir / LIB_DIR, module_name) is None:
        raise CompileError(f"build of {request.name!r} produced no library")
    return details
