"""Turn a :class:`BuildRequest` into a :class:`BuildArtifact`, through the build cache.

This is the trusted side of a build. It computes every key itself — the library's
content key (sources, flags, backend, toolchain and torch versions), the PCH's and the
binding object's (``_fast``) — looks them up in the stores (every lookup verifies
the entry's digests), and on a miss has the request compiled into a private output
directory: by a sandboxed compile job in a check (``_jobs``), or in this process
for trusted callers (:func:`build_extension`: benchmarks, tests). It then hashes what
was produced and publishes it under the keys it computed, and nothing else.
Design and measurements: docs/design/builds.md.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from kerneltrials._cache_home import cache_home
from kerneltrials._toolversion import version_line
from kerneltrials.verifier.builds._cache import BuildCache, resolve_max_bytes
from kerneltrials.verifier.builds._compile_job import (  # noqa: F401 - build_stock re-exported
    BINDING_DIR,
    LIB_DIR,
    PCH_DIR,
    build_stock,
    compile_into,
    find_library,
)
from kerneltrials.verifier.builds._fast import (
    BINDING_OBJECT,
    OBJECTS_DIR,
    PCH_FILE,
    FastPlan,
    fast_inputs,
    fast_toolchain,
)
from kerneltrials.verifier.builds._gcc_confirm import (
    GCC_PCH_DIR,
    GCC_PCH_UNUSABLE,
    PCH_FILES,
    gcc_pch_key,
)
from kerneltrials.verifier.builds._stock_flags import ensure_cuda_arch_list, resolve_with_cuda
from kerneltrials.verifier.builds._symbols import (
    LINK_RECORD,
    LINK_RECORD_VERSION,
    StockModule,
    link_record,
)
from kerneltrials.verifier.builds.cuda._fast import NVCC_SECTION_FLAGS
from kerneltrials.verifier.protocol._build import BuildArtifact, BuildRequest, CompileError

DEFAULT_CUDA_HOME = "/usr/local/cuda-13.0"
TOOLCHAIN_DIR = ".toolchain"  # PCHs and binding objects: a store nested in the cache root
DEFAULT_TOOLCHAIN_MAX_BYTES = 4 * 1024**3  # a PCH is ~150 MB: room for ~25 flag sets


def cache_root() -> Path:
    """Where built libraries live: ``KERNELTRIALS_CACHE`` or ``~/.cache/kerneltrials``."""
    return cache_home() / "builds"


def toolchain_root(root: Path | None = None) -> Path:
    """PCHs and binding objects: ``KERNELTRIALS_PCH_CACHE`` or ``<cache root>/.toolchain``."""
    chosen = os.environ.get("KERNELTRIALS_PCH_CACHE")
    return Path(chosen) if chosen else (root or cache_root()) / TOOLCHAIN_DIR


def library_store(root: Path | None = None) -> BuildCache:
    """The store of built libraries (bounded by ``KERNELTRIALS_CACHE_MAX_BYTES``)."""
    return BuildCache(root or cache_root(), resolve_max_bytes(), nested=(TOOLCHAIN_DIR,))


def toolchain_store(root: Path | None = None) -> BuildCache:
    """The store of PCHs and binding objects (``KERNELTRIALS_PCH_CACHE_MAX_BYTES``, 4 GiB)."""
    bound = (resolve_max_bytes("KERNELTRIALS_PCH_CACHE_MAX_BYTES")
             if os.environ.get("KERNELTRIALS_PCH_CACHE_MAX_BYTES") else DEFAULT_TOOLCHAIN_MAX_BYTES)
    return BuildCache(toolchain_root(root), bound)


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
    import torch  # heavy: doctor and the cache tools import this module without running torch

    fingerprint = {
        "torch": torch.__version__,
        "cxx": _version_key(os.environ.get("CXX", "c++")),
        **fast_toolchain(),
        "link_record": LINK_RECORD_VERSION,
    }
    if backend == "cuda":
        nvcc = os.path.join(ensure_cuda_home() or DEFAULT_CUDA_HOME, "bin", "nvcc")
        fingerprint["nvcc"] = _version_key(nvcc, last=True)
        fingerprint["cuda_arch_list"] = ensure_cuda_arch_list()
        fingerprint["cuda_section_flags"] = " ".join(NVCC_SECTION_FLAGS)
    return fingerprint


@dataclass
class CompilePlan:
    """The parent's decisions for one request: its key, module name, toolchain inputs."""

    request: BuildRequest
    key: str
    module_name: str
    fast: FastPlan | None  # None: the stock build (no clang, or the request needs it)
    mounts: list[Path] = field(default_factory=list)  # verified toolchain entries, read-only
    details: dict[str, Any] = field(default_factory=dict)


def _entry_or_lock(store: BuildCache, key: str, locks: contextlib.ExitStack) -> Path | None:
    """A verified entry, or None with ``key`` locked (this build will publish it)."""
    entry = store.lookup(key)
    if entry is None:
        locks.enter_context(store.lock(key))
        entry = store.lookup(key)  # published while we waited
    return entry


def plan_compile(request: BuildRequest, key: str, toolchain: BuildCache,
                 locks: contextlib.ExitStack) -> CompilePlan:
    """Look up the request's PCH and binding object (keys computed here, from the request)."""
    plan = CompilePlan(request, key, f"kt_{key}", None)
    try:
        inputs = fast_inputs(request)
        pch_key, binding_key = inputs.plan_keys()
    except Exception as reason:  # noqa: BLE001 - whatever the fast path cannot take: stock
        plan.details["fast_path_skipped"] = f"{type(reason).__name__}: {str(reason)[:300]}"
        return plan
    pch = _entry_or_lock(toolchain, pch_key, locks)
    binding = _entry_or_lock(toolchain, binding_key, locks) if binding_key else None
    gcc_key = gcc_pch_key(inputs.flags)
    # Too large to hash at every plan, rarely used: the job checks the digests before use.
    gcc_pch, gcc_digests = toolchain.lookup_unhashed(gcc_key) or (None, None)
    plan.mounts = [entry for entry in (pch, binding, gcc_pch) if entry is not None]
    plan.fast = FastPlan(pch_key, str(pch / PCH_FILE) if pch else None, binding_key,
                         str(binding / BINDING_OBJECT) if binding else None, gcc_key,
                         str(gcc_pch) if gcc_pch else None, gcc_digests, inputs.cxx,
                         asdict(inputs.flags), str(inputs.header), inputs.llvm_opt)
    return plan


def _copier(source: Path, names: list[str]) -> Callable[[Path], None]:
    def copy(staging: Path) -> None:
        for name in names:
            shutil.copyfile(source / name, staging / name, follow_symlinks=False)
    return copy


def _regular(directory: Path, names: list[str]) -> bool:
    return all((directory / n).is_file() and not (directory / n).is_symlink() for n in names)


def publish_toolchain(plan: CompilePlan, out_dir: Path, toolchain: BuildCache) -> None:
    """Hash and publish the toolchain entries a compile job built (the PCHs, the binding
    object), each under the key computed here — whether or not the candidate compiled:
    they hold torch's headers and the harness's binding text, none of the candidate's."""
    fast = plan.fast
    if fast is None:
        return
    if fast.pch_path is None and _regular(out_dir / PCH_DIR, [PCH_FILE]):
        toolchain.build_locked(fast.pch_key, _copier(out_dir / PCH_DIR, [PCH_FILE]))
    binding_files = ["binding.cpp", BINDING_OBJECT]
    if (fast.binding_key and fast.binding_path is None
            and _regular(out_dir / BINDING_DIR, binding_files)):
        toolchain.build_locked(fast.binding_key, _copier(out_dir / BINDING_DIR, binding_files))
    if (fast.gcc_pch_key and fast.gcc_pch_dir is None
            and _regular(out_dir / GCC_PCH_DIR, PCH_FILES)):
        with toolchain.lock(fast.gcc_pch_key):  # not taken when planned: rarely built
            toolchain.build_locked(fast.gcc_pch_key, _copier(out_dir / GCC_PCH_DIR, PCH_FILES))
    if fast.gcc_pch_key and fast.gcc_pch_dir and (out_dir / GCC_PCH_UNUSABLE).exists():
        toolchain.lookup(fast.gcc_pch_key)  # hashes the entry: removed if it changed


def publish_outputs(plan: CompilePlan, out_dir: Path, store: BuildCache) -> None:
    """Hash and publish the library a compile produced under the key computed here."""
    lib = out_dir / LIB_DIR
    library = find_library(lib, plan.module_name)
    if library is None or not _regular(lib, [library.name]):
        raise CompileError(f"build of {plan.request.name!r} produced no library")
    sources = sorted(p.name for p in lib.iterdir() if p.suffix in (".cpp", ".cu"))
    names = [library.name] + [name for name in sources if _regular(lib, [name])]
    # Read here, by the parent, from the job's outputs: the job is never asked what it linked.
    # Without functions= there is no generated module: the candidate's own is its code.
    module = StockModule(init=f"PyInit_{plan.module_name}") if plan.request.functions else None
    (lib / LINK_RECORD).write_text(json.dumps(link_record(out_dir / OBJECTS_DIR, module)))
    names.append(LINK_RECORD)
    store.build_locked(plan.key, _copier(lib, names))


#: Compiles a plan into a fresh output directory and returns the build details; raises
#: CompileError or a CompileRunFailed.
CompileRunner = Callable[[CompilePlan, Path], dict[str, Any]]


class CompileRunFailed(Exception):
    """A runner's failure; ``ended``: the job ran to its end (it refused the candidate),
    so what it left in its output directory is whole."""

    ended: bool = False


def _compile_here(plan: CompilePlan, out_dir: Path) -> dict[str, Any]:
    return compile_into(plan.request, plan.module_name, out_dir, plan.fast, dict(plan.details))


def request_key(request: BuildRequest) -> str:
    """The library's content key (computed by the trusted side, never taken from a job)."""
    if request.backend == "cuda" or resolve_with_cuda(request):
        ensure_cuda_home()
    return request.content_key(toolchain_fingerprint(request.backend))


def build_with(request: BuildRequest, run: CompileRunner, scratch: Path,
               root: Path | None = None) -> BuildArtifact:
    """The artifact for ``request``: a verified cache hit, or compiled by ``run`` into a
    directory under ``scratch`` and published. Raises what ``run`` raises."""
    started = time.perf_counter()
    key = request_key(request)
    store, toolchain = library_store(root), toolchain_store(root)
    details: dict[str, Any] = {}
    hit = store.lookup(key) is not None
    if not hit:
        with store.lock(key), contextlib.ExitStack() as locks:
            hit = store.lookup(key) is not None
            if not hit:
                plan = plan_compile(request, key, toolchain, locks)
                out_dir = Path(tempfile.mkdtemp(prefix="compile-", dir=scratch))
                try:
                    details = run(plan, out_dir)
                except (CompileError, CompileRunFailed) as failed:
                    # A job that ran to its end left whole toolchain entries; one killed
                    # may have left half a PCH.
                    if isinstance(failed, CompileError) or failed.ended:
                        publish_toolchain(plan, out_dir, toolchain)
                    raise
                publish_toolchain(plan, out_dir, toolchain)
                publish_outputs(plan, out_dir, store)
        store.evict(keep=key)
        toolchain.evict()
    library = find_library(store.entry_path(key), f"kt_{key}")
    if library is None:
        raise CompileError(f"cache entry for {key} holds no library")
    return BuildArtifact(key, str(library), f"kt_{key}", request.name,
                         time.perf_counter() - started, cache_hit=hit, details=details)


def build_extension(request: BuildRequest, root: Path | None = None) -> BuildArtifact:
    """Build ``request`` in this process (or find it in the cache); raises
    :class:`CompileError`. For trusted callers only (benchmarks, tests): a check
    compiles in a sandboxed compile job instead."""
    with tempfile.TemporaryDirectory(prefix="kt-compile-") as scratch:
        return build_with(request, _compile_here, Path(scratch), root)
