"""Turn a :class:`BuildRequest` into a :class:`BuildArtifact`, through the build cache.

A request's content key (sources, flags, backend, toolchain and torch versions) names
its entry in a :class:`~kerneltrials.verifier._buildcache.BuildCache`; a hit loads with
no compiler. A miss builds with the fast pipeline (_fastbuild.py) and, when that path
cannot take the request or fails, with torch's own ``load_inline`` — which stays the
authority on whether a candidate compiles, so a compile error is always stock's verdict.
Design and measurements: docs/design/builds.md.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

from kerneltrials._toolversion import version_line
from kerneltrials.verifier._build import BuildArtifact, BuildRequest, CompileError
from kerneltrials.verifier._buildcache import BuildCache, resolve_max_bytes
from kerneltrials.verifier._fastbuild import build_fast, fast_toolchain
from kerneltrials.verifier._stockflags import ensure_cuda_arch_list, resolve_with_cuda

DEFAULT_CUDA_HOME = "/usr/local/cuda-13.0"
TOOLCHAIN_DIR = ".toolchain"  # PCHs and binding objects, inside the (mounted) cache root
DEFAULT_TOOLCHAIN_MAX_BYTES = 4 * 1024**3  # a PCH is ~150 MB: room for ~25 flag sets


def cache_root() -> Path:
    """Where built libraries live: ``KERNELTRIALS_CACHE`` or ``~/.cache/kerneltrials``."""
    root = os.environ.get("KERNELTRIALS_CACHE") or os.path.join(
        os.path.expanduser("~"), ".cache", "kerneltrials"
    )
    return Path(root) / "builds"


def toolchain_root(root: Path | None = None) -> Path:
    """PCHs and binding objects: ``KERNELTRIALS_PCH_CACHE`` or ``<cache root>/.toolchain``."""
    chosen = os.environ.get("KERNELTRIALS_PCH_CACHE")
    return Path(chosen) if chosen else (root or cache_root()) / TOOLCHAIN_DIR


def _version_key(tool: str, last: bool = False) -> str:
    """The line of ``tool --version`` that names its version (nvcc's is the last)."""
    return version_line(tool, last) or "absent"


def ensure_cuda_home() -> str:
    """Set ``CUDA_HOME`` when it is unset and the default toolkit exists."""
    home = os.environ.get("CUDA_HOME")
    if not home and Path(DEFAULT_CUDA_HOME).is_dir():
        os.environ["CUDA_HOME"] = home = DEFAULT_CUDA_HOME
    return home or ""


def toolchain_fingerprint(backend: str) -> dict[str, str]:
    """Versions that change the produced library; part of every cache key."""
    import torch

    fingerprint = {
        "torch": torch.__version__,
        "cxx": _version_key(os.environ.get("CXX", "c++")),
        **fast_toolchain(),
    }
    if backend == "cuda":
        nvcc = os.path.join(ensure_cuda_home() or DEFAULT_CUDA_HOME, "bin", "nvcc")
        fingerprint["nvcc"] = _version_key(nvcc, last=True)
        fingerprint["cuda_arch_list"] = ensure_cuda_arch_list()
    return fingerprint


def _find_library(build_dir: Path, module_name: str) -> Path | None:
    for candidate in sorted(build_dir.glob(f"{module_name}*.so")):
        return candidate
    return None


def build_stock(request: BuildRequest, module_name: str, out_dir: Path) -> None:
    """Build exactly as ``torch.utils.cpp_extension.load_inline`` does, into ``out_dir``."""
    from torch.utils import cpp_extension

    try:
        cpp_extension.load_inline(
            name=module_name,
            cpp_sources=list(request.cpp_sources),
            cuda_sources=list(request.cuda_sources) or None,
            functions=dict(request.functions) or None,
            extra_cflags=list(request.extra_cflags) or None,
            extra_cuda_cflags=list(request.extra_cuda_cflags) or None,
            extra_ldflags=list(request.extra_ldflags) or None,
            extra_include_paths=list(request.extra_include_paths) or None,
            build_directory=str(out_dir),
            with_cuda=request.with_cuda,
            with_pytorch_error_handling=request.with_pytorch_error_handling,
            is_python_module=False,
            verbose=False,
        )
    except Exception as error:  # torch raises RuntimeError with the compiler log
        raise CompileError(f"build of {request.name!r} failed", log=str(error)) from error


def _clear(directory: Path, keep: tuple[str, ...]) -> None:
    """Delete everything in ``directory`` but files with a suffix in ``keep``."""
    for path in directory.iterdir():
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        elif path.suffix not in keep:
            path.unlink()


def _build_into(request: BuildRequest, module_name: str, out_dir: Path,
                toolchain: BuildCache, details: dict[str, object]) -> None:
    """Fast path first; the stock build when it is unavailable or fails."""
    started = time.perf_counter()
    try:
        build_fast(request, module_name, out_dir, toolchain, details)
        details["path"] = "fast"
    except Exception as reason:  # noqa: BLE001 - any fast-path failure: stock decides
        # A candidate that stock compiles must compile here, and an unexpected error in
        # our pipeline (e.g. a torch-internal API that moved) must not fail a candidate.
        details["path"] = "stock"
        details["fast_path_skipped"] = f"{type(reason).__name__}: {str(reason)[:300]}"
        if isinstance(reason, subprocess.CalledProcessError):
            details["fast_path_log"] = (reason.stderr or "")[-2000:]
        _clear(out_dir, keep=())
        build_stock(request, module_name, out_dir)
    details["compile_s"] = round(time.perf_counter() - started, 3)
    _clear(out_dir, keep=(".so", ".cpp", ".cu"))  # the library and its sources, not objects
    if _find_library(out_dir, module_name) is None:
        raise CompileError(f"build of {request.name!r} produced no library")


def build_extension(request: BuildRequest, root: Path | None = None) -> BuildArtifact:
    """Build ``request`` (or find it in the cache); raises :class:`CompileError`."""
    started = time.perf_counter()
    if request.backend == "cuda" or resolve_with_cuda(request):
        ensure_cuda_home()
    key = request.content_key(toolchain_fingerprint(request.backend))
    module_name = f"kt_{key}"
    store = BuildCache(root or cache_root(), resolve_max_bytes())
    toolchain = BuildCache(toolchain_root(root), resolve_max_bytes("KERNELTRIALS_PCH_CACHE_MAX_BYTES")
                           if os.environ.get("KERNELTRIALS_PCH_CACHE_MAX_BYTES")
                           else DEFAULT_TOOLCHAIN_MAX_BYTES, verify_hash=False)
    details: dict[str, object] = {}
    entry, hit = store.get_or_build(
        key, lambda staging: _build_into(request, module_name, staging, toolchain, details))
    library = _find_library(entry, module_name)
    if library is None:
        raise CompileError(f"cache entry {entry} holds no library for {module_name}")
    build_s = time.perf_counter() - started
    return BuildArtifact(key, str(library), module_name, request.name, build_s,
                         cache_hit=hit, details=details)
