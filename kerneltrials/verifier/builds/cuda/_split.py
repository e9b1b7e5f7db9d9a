"""Split a candidate's CUDA source into a device unit and a host unit.

nvcc spends most of a torch extension's build parsing torch's headers (``cudafe++`` for
the host side, ``cicc`` for the device side, the host compiler once more), although the
kernels never touch them: only the host wrappers (tensors in, launch, tensor out) do. So
we compile the two sides apart, each with what it needs:

- the **device unit** keeps kernels, device functions, types and constants, and none of
  torch's headers (a small c10 subset when the device code names torch types); nvcc
  compiles it with stock's flags, so the kernels' code is nvcc's, as with stock;
- the **host unit** keeps the host code, with every kernel turned into a declaration and
  every ``k<<<grid, block, shmem, stream>>>(args)`` rewritten exactly as ``cudafe++``
  rewrites it — ``(__cudaPushCallConfiguration(grid, block, shmem, stream)) ? (void)0 :
  k(args)`` — so that it is plain C++, compiled by clang against the precompiled torch
  header. ``k`` then resolves, at link time, to the launch stub nvcc generated for the
  kernel in the device unit.

Anything this splitter does not understand raises :class:`SplitUnavailable` and the build
runs nvcc on the whole source, as before. Details: docs/design/builds.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from kerneltrials.verifier.builds.cuda._text import (
    SplitUnavailable,
    mask_source,
    match_bracket,
    rewrite_launches,
    strip_template_prefix,
)

_CUDA_ATTRIBUTE = re.compile(r"\b__(global|device|host|constant|managed|shared)__\b")
_BOUNDS_ATTRIBUTE = re.compile(r"\b__(launch_bounds|maxnreg|cluster_dims)__\s*\(")
_TORCH_INCLUDE = re.compile(
    r"^[ \t]*#[ \t]*include[ \t]*[<\"](torch|ATen|c10|pybind11|Python\.h)[^>\"]*[>\"].*$",
    re.MULTILINE)
_TORCH_NAME = re.compile(r"\b(torch|at|c10|pybind11|py)::|\bTensor\b|\b(AT|TORCH|C10)_[A-Z]")
_DEVICE_TORCH_NAME = re.compile(r"\b(torch|at|c10)::|\b(Half|BFloat16)\b|\bC10_[A-Z]")
# Namespaces CUDA declares for device code only (plain C++ does not see them), named at
# namespace scope by kernels: `namespace cg = cooperative_groups;`, `using namespace nvcuda;`.
_DEVICE_NAMESPACE = re.compile(
    r"\s*(?:namespace\s+\w+\s*=|using\s+namespace)\s*(?:::)?\s*(?:cooperative_groups|nvcuda)\b")
_TYPE_KEYWORD = re.compile(r"\s*(?:typedef\s+)?(?:class|struct|union|enum)\b")
_IDENTIFIER_BEFORE_PAREN = re.compile(r"([A-Za-z_]\w*)\s*$")


@dataclass(frozen=True)
class Kernel:
    """A ``__global__`` function the host unit may launch or name."""

    qualified: str  # with its enclosing namespaces, e.g. ``ops::relu_kernel``
    is_template: bool


@dataclass
class SplitSource:
    """The two units, and what the build must check between them."""

    device: str  # for nvcc: kernels, device functions, types, no torch headers
    host: str  # for clang: host code, kernels declared, launches rewritten
    kernels: list[Kernel] = field(default_factory=list)
    declared_elsewhere: list[str] = field(default_factory=list)  # host-declared, device-defined

    @property
    def has_template_kernels(self) -> bool:
        return any(kernel.is_template for kernel in self.kernels)


def _words(head: str) -> set[str]:
    return set(re.findall(r"[A-Za-z_]\w*", head))


def _strip_bounds(text: str, masked: str) -> str:
    """``text`` without ``__launch_bounds__(...)``-style attributes (no meaning on the host)."""
    while match := _BOUNDS_ATTRIBUTE.search(masked):
        close = match_bracket(masked, match.end() - 1, "(", ")")
        text = text[:match.start()] + " " * (close + 1 - match.start()) + text[close + 1:]
        masked = masked[:match.start()] + " " * (close + 1 - match.start()) + masked[close + 1:]
    return text


def _function_name(masked_head: str) -> str:
    head = _strip_bounds(masked_head, masked_head)
    head = re.sub(r"__attribute__\s*\(\(.*?\)\)", " ", head)
    paren = head.find("(")
    match = _IDENTIFIER_BEFORE_PAREN.search(head[:paren]) if paren >= 0 else None
    if match is None:
        raise SplitUnavailable(f"cannot name the function in {masked_head.strip()[:80]!r}")
    return match.group(1)


def _is_initializer(masked_head: str) -> bool:
    if "operator" in _words(masked_head):
        return False
    depth = 0
    for k, c in enumerate(masked_head):
        depth += {"(": 1, ")": -1, "[": 1, "]": -1}.get(c, 0)
        if c == "=" and depth == 0 and masked_head[k - 1:k] not in ("=", "!", "<", ">") \
                and masked_head[k + 1:k + 2] != "=":
            return True
    return False


def _blank_keep_directives(text: str) -> str:
    """A removed range: its preprocessor lines stay (``#if`` pairs stay balanced)."""
    kept = [line if line.lstrip().startswith("#") else "" for line in text.split("\n")]
    return "\n".join(kept)


class _Splitter:
    """One pass over the masked source, recording an edit per side for each construct."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.masked = mask_source(text)
        self.device_edits: list[tuple[int, int, str]] = []
        self.host_edits: list[tuple[int, int, str]] = []
        self.kernels: list[Kernel] = []
        self.device_only_names: set[str] = set()
        self.declared_elsewhere: list[str] = []

    def _only_on(self, side: str, start: int, end: int) -> None:
        edits = self.host_edits if side == "device" else self.device_edits
        edits.append((start, end, _blank_keep_directives(self.text[start:end])))

    def _declare_on_host(self, start: int, head_end: int, end: int) -> None:
        head = _strip_bounds(self.text[start:head_end], self.masked[start:head_end])
        padding = "\n" * self.text.count("\n", head_end, end)
        self.host_edits.append((start, end, head.rstrip() + ";" + padding))

    def _find_stop(self, pos: int, end: int) -> int:
        depth = 0
        for k in range(pos, end):
            c = self.masked[k]
            if c in "([":
                depth += 1
            elif c in ")]":
                depth -= 1
            elif depth == 0 and c in ";{":
                return k
            elif depth == 0 and c == "}":
                break
        raise SplitUnavailable(f"unterminated declaration at offset {pos}")

    def scan(self, start: int, end: int, namespaces: tuple[str, ...]) -> None:
        pos = start
        while True:
            while pos < end and self.masked[pos].isspace():
                pos += 1
            if pos >= end:
                return
            stop = self._find_stop(pos, end)
            if self.masked[stop] == ";":
                self._declaration(pos, stop + 1)
                pos = stop + 1
                continue
            close = match_bracket(self.masked, stop, "{", "}")
            head = self.masked[pos:stop]
            namespace = re.fullmatch(r"\s*(?:inline\s+)?namespace\s*([\w:]*)\s*", head)
            if namespace or re.fullmatch(r'\s*extern\s*"[^"]*"\s*', head):
                name = (namespace.group(1) or "<anonymous>") if namespace else ""
                self.scan(stop + 1, close, namespaces + ((name,) if name else ()))
                pos = close + 1
                continue
            bare = strip_template_prefix(head)
            if _TYPE_KEYWORD.match(bare) or _is_initializer(bare):
                semicolon = self._find_stop(close + 1, end)
                if self.masked[semicolon] != ";":
                    raise SplitUnavailable(f"unexpected '{{' after a definition at offset {semicolon}")
                self._declaration(pos, semicolon + 1, head_end=stop)
                pos = semicolon + 1
                continue
            if "(" not in bare:
                raise SplitUnavailable(f"unrecognised construct {head.strip()[:80]!r}")
            self._function(pos, stop, close + 1, namespaces)
            pos = close + 1

    def _function(self, start: int, head_end: int, end: int, namespaces: tuple[str, ...]) -> None:
        head = self.masked[start:head_end]
        bare = strip_template_prefix(head)
        attributes = set(_CUDA_ATTRIBUTE.findall(bare))
        words = _words(bare)
        is_template = bare != head
        shared_definition = is_template or bool(words & {"static", "inline", "__forceinline__", "constexpr"})
        if "global" in attributes:
            if "static" in words or "<anonymous>" in namespaces:
                raise SplitUnavailable("a kernel with internal linkage (static or anonymous namespace)")
            name = _function_name(bare)
            self.kernels.append(Kernel("::".join((*namespaces, name)), is_template))
            self._declare_on_host(start, head_end, end)
        elif "device" in attributes and "host" not in attributes:
            self.device_only_names.add(_function_name(bare))
            self._only_on("device", start, end)
        elif "device" in attributes:
            if not shared_definition:
                self.declared_elsewhere.append(_function_name(bare))
                self._declare_on_host(start, head_end, end)
        elif "constexpr" not in words:
            self._only_on("host", start, end)

    def _declaration(self, start: int, end: int, head_end: int | None = None) -> None:
        """A declaration ending in ``;``; ``head_end`` is where a braced body starts (a type's
        members or an initializer), whose own attributes are not the declaration's."""
        chunk = self.masked[start:end]
        attributes = set(_CUDA_ATTRIBUTE.findall(self.masked[start:head_end or end]))
        if "global" in attributes:
            is_instantiation = re.match(r"\s*template\s*[^<\s]", chunk) is not None
            if is_instantiation:
                self._only_on("device", start, end)
            else:
                self.host_edits.append((start, end, _strip_bounds(self.text[start:end], chunk)))
        elif attributes & {"device", "constant", "managed", "shared"} and "host" not in attributes:
            declarators = self.masked[start:head_end or end].split("=")[0]  # not initializers
            for name in re.findall(r"([A-Za-z_]\w*)\s*(?=[\[=;({,])", declarators + ";"):
                self.device_only_names.add(name)
            self._only_on("device", start, end)
        elif _DEVICE_NAMESPACE.match(chunk):
            self._only_on("device", start, end)
        elif not attributes and _TORCH_NAME.search(chunk):
            self._only_on("host", start, end)


def _apply(text: str, edits: list[tuple[int, int, str]]) -> str:
    for start, end, replacement in sorted(edits, reverse=True):
        text = text[:start] + replacement + text[end:]
    return text


# Stock's cuda.cu prelude; the host unit keeps it (plain C++ parses all three headers).
HOST_PRELUDE = """#include <torch/types.h>
#include <cuda.h>
#include <cuda_runtime.h>
extern "C" unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim = 1, size_t sharedMem = 0, CUstream_st *stream = 0);
"""
# torch declares RestrictPtrTraits for nvcc only (its PtrType is __restrict__-qualified);
# host code names it in packed_accessor32<..., RestrictPtrTraits>(). Its definition, as
# torch's header has it; if torch moves it, the mangled kernel names differ and the
# symbol check sends the source back to nvcc whole.
HOST_RESTRICT_TRAITS = """namespace torch::headeronly {
template <typename T> struct RestrictPtrTraits { using PtrType = T* __restrict__; };
}
namespace at { using torch::headeronly::RestrictPtrTraits; }
"""
# Stock's prelude without torch: cuda.h, cuda_runtime.h, and the standard headers torch
# brings in that kernels commonly lean on (std::min, INT_MAX, FLT_MAX, int64_t; ~0.3 s).
DEVICE_PRELUDE = "".join(f"#include <{header}>\n" for header in (
    "cuda.h", "cuda_runtime.h", "cstdint", "cstddef", "cmath", "cfloat", "climits",
    "type_traits", "limits", "algorithm", "utility"))
# What kernels may name from torch, without the rest of its headers (c10's Macros.h puts
# c10's names into at::, as torch/types.h does; the last line is torch/types.h's own).
DEVICE_TORCH_SUBSET = """#include <c10/macros/Macros.h>
#include <c10/util/Half.h>
#include <c10/util/BFloat16.h>
{accessor}namespace torch {{ using namespace at; }}
"""


def split_cuda_source(text: str) -> SplitSource:
    """The device and host units for a candidate's CUDA source (its ``cuda_sources`` joined).

    Raises SplitUnavailable when the source uses a construct the split does not handle.
    """
    if re.search(r"\b__(CUDACC|NVCC)\w*", text):  # in directives too, so not the masked text
        # The host unit is plain C++: code that asks whether nvcc compiles it would change.
        raise SplitUnavailable("the source tests __CUDACC__/__NVCC__")
    splitter = _Splitter(text)
    splitter.scan(0, len(text), ())
    if not splitter.kernels:
        raise SplitUnavailable("no __global__ function")
    host = rewrite_launches(_apply(text, splitter.host_edits))
    host_masked = mask_source(host)
    for name in sorted(splitter.device_only_names):
        if re.search(rf"\b{re.escape(name)}\b", host_masked):
            raise SplitUnavailable(f"host code names the device-side {name!r}")
    device = _TORCH_INCLUDE.sub("", _apply(text, splitter.device_edits))
    prelude = HOST_PRELUDE + (HOST_RESTRICT_TRAITS if "RestrictPtrTraits" in text else "")
    return SplitSource(device=device, host=prelude + host, kernels=splitter.kernels,
                       declared_elsewhere=splitter.declared_elsewhere)


def device_unit(split: SplitSource, instantiations: list[str]) -> str:
    """The device unit's full text: prelude, torch subset if named, code, instantiations."""
    body = split.device + "\n" + "".join(f"template __global__ {line};\n" for line in instantiations)
    prelude = DEVICE_PRELUDE
    if _DEVICE_TORCH_NAME.search(mask_source(body)):
        accessor = "#include <ATen/core/TensorAccessor.h>\n" if "Accessor" in body else ""
        prelude += DEVICE_TORCH_SUBSET.format(accessor=accessor)
    return prelude + body
