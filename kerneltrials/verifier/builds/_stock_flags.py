"""The exact compiler and linker flags stock ``load_inline`` would use for a request.

We ask torch's own ninja writer for them (and parse the variables it writes), so the
fast path keeps stock semantics to the flag — no ``-O`` unless the candidate asks, the
same defines, include order, nvcc flags and link libraries — across torch versions.
"""

from __future__ import annotations

import os
import shlex
import tempfile
from dataclasses import dataclass

from kerneltrials.verifier.protocol._build import BuildRequest

DEFAULT_CUDA_ARCH_LIST = "9.0"  # compile-only hosts have no GPU to ask; H100 is the target


@dataclass(frozen=True)
class StockFlags:
    """Flag lists as the stock ninja file has them (``cflags`` excludes the compiler)."""

    cxx: list[str]
    cflags: list[str]
    post_cflags: list[str]
    ldflags: list[str]
    nvcc: list[str]
    cuda_cflags: list[str]
    cuda_post_cflags: list[str]


def resolve_with_cuda(request: BuildRequest) -> bool:
    """Stock rule: CUDA when asked, or when there are CUDA sources."""
    return bool(request.cuda_sources) if request.with_cuda is None else bool(request.with_cuda)


def ensure_cuda_arch_list() -> str:
    """Stock load_inline crashes without a GPU unless an arch list is set: set ours."""
    if not os.environ.get("TORCH_CUDA_ARCH_LIST"):
        os.environ["TORCH_CUDA_ARCH_LIST"] = DEFAULT_CUDA_ARCH_LIST
    return os.environ["TORCH_CUDA_ARCH_LIST"]


def _parse_ninja_variables(text: str) -> dict[str, list[str]]:
    variables: dict[str, list[str]] = {}
    for line in text.splitlines():
        if line.startswith((" ", "\t", "rule ", "build ", "default ")) or " = " not in line:
            continue
        name, _, value = line.partition(" = ")
        variables[name.strip()] = shlex.split(value)
    return variables


def stock_flags(request: BuildRequest, extension_name: str) -> StockFlags:
    """Flags for ``request`` with ``-DTORCH_EXTENSION_NAME=<extension_name>``."""
    from torch.utils import cpp_extension

    with_cuda = resolve_with_cuda(request)
    if with_cuda:
        ensure_cuda_arch_list()
    sources = ["main.cpp"] + (["cuda.cu"] if request.cuda_sources else [])
    ldflags = cpp_extension._prepare_ldflags(list(request.extra_ldflags), with_cuda, False, False, False)
    with tempfile.TemporaryDirectory(prefix="kt-flags-") as scratch:
        path = os.path.join(scratch, "build.ninja")
        cpp_extension._write_ninja_file_to_build_library(
            path=path, name=extension_name, sources=[os.path.join(scratch, s) for s in sources],
            extra_cflags=list(request.extra_cflags), extra_cuda_cflags=list(request.extra_cuda_cflags),
            extra_sycl_cflags=[], extra_ldflags=ldflags,
            extra_include_paths=list(request.extra_include_paths),
            with_cuda=with_cuda, with_sycl=False, is_standalone=False,
        )
        with open(path) as stream:
            variables = _parse_ninja_variables(stream.read())
    return StockFlags(
        cxx=variables.get("cxx", ["c++"]), cflags=variables.get("cflags", []),
        post_cflags=variables.get("post_cflags", []), ldflags=variables.get("ldflags", []),
        nvcc=variables.get("nvcc", []), cuda_cflags=variables.get("cuda_cflags", []),
        cuda_post_cflags=variables.get("cuda_post_cflags", []),
    )
