"""Turn a :class:`BuildRequest` into a :class:`BuildArtifact`, through the build cache.

This first version builds with torch's own ``load_inline`` into a content-addressed
directory; the fast path (issue #3) replaces the compile step, not this interface.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import time
from pathlib import Path

from kerneltrials.verifier._build import BuildArtifact, BuildRequest, CompileError

DEFAULT_CUDA_HOME = "/usr/local/cuda-13.0"


def cache_root() -> Path:
    """Where built libraries live: ``KERNELTRIALS_CACHE`` or ``~/.cache/kerneltrials``."""
    root = os.environ.get("KERNELTRIALS_CACHE") or os.path.join(
        os.path.expanduser("~"), ".cache", "kerneltrials"
    )
    return Path(root) / "builds"


@functools.cache
def _first_line(*command: str) -> str:
    try:
        output = subprocess.run(command, capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return "absent"
    lines = [line for line in output.splitlines() if line.strip()]
    return lines[-1] if command[0].endswith("nvcc") and lines else (lines[0] if lines else "")


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
        "cxx": _first_line(os.environ.get("CXX", "c++"), "--version"),
    }
    if backend == "cuda":
        nvcc = os.path.join(ensure_cuda_home() or DEFAULT_CUDA_HOME, "bin", "nvcc")
        fingerprint["nvcc"] = _first_line(nvcc, "--version")
    return fingerprint


def _find_library(build_dir: Path, module_name: str) -> Path | None:
    for candidate in build_dir.glob(f"{module_name}*.so"):
        return candidate
    return None


def build_extension(request: BuildRequest, root: Path | None = None) -> BuildArtifact:
    """Build ``request`` (or find it in the cache); raises :class:`CompileError`."""
    from torch.utils import cpp_extension

    key = request.content_key(toolchain_fingerprint(request.backend))
    module_name = f"kt_{key}"
    build_dir = (root or cache_root()) / key
    library = _find_library(build_dir, module_name)
    if library is not None:
        return BuildArtifact(key, str(library), module_name, request.name, 0.0, cache_hit=True)
    if request.backend == "cuda":
        ensure_cuda_home()
    staging = build_dir.with_name(f"{key}.tmp{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    started = time.perf_counter()
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
            build_directory=str(staging),
            with_cuda=request.with_cuda,
            with_pytorch_error_handling=request.with_pytorch_error_handling,
            is_python_module=False,
            verbose=False,
        )
    except Exception as error:  # torch raises RuntimeError with the compiler log
        shutil.rmtree(staging, ignore_errors=True)
        raise CompileError(f"build of {request.name!r} failed", log=str(error)) from error
    build_s = time.perf_counter() - started
    try:
        staging.rename(build_dir)
    except OSError:
        shutil.rmtree(staging, ignore_errors=True)  # a concurrent builder won the race
    library = _find_library(build_dir, module_name)
    if library is None:
        raise CompileError(f"build of {request.name!r} produced no library")
    return BuildArtifact(key, str(library), module_name, request.name, build_s, cache_hit=False)
