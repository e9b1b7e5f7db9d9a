"""Static checks on a candidate's C++/CUDA sources (the string literals of its module).

C++ is scanned as the compiler lexes it (``_cpp_text``: line splices joined,
comments and literals out, digit separators and raw strings handled; preprocessor lines
are kept: a ``#define`` can hide a call). Findings:

- ``cpp:dispatcher_registration`` (always rejected): ``TORCH_LIBRARY*``, the dispatcher,
  dispatch-key guards — a library that re-registers aten kernels changes the reference.
- ``cpp:library_compute:<call>`` (rejected under ``strict``, a note under ``mixed``):
  ``at::``/``torch::`` compute functions, compute methods on tensors, cuBLAS/cuDNN/MKL…
- ``static:forbidden_cpp:<name>`` (``_cpp_escape``): processes, files, sockets,
  syscalls, dynamic loading, inline ``asm`` with ``syscall``/``.incbin``, ``#include`` of
  paths outside the include directories — defence in depth, the sandbox must hold anyway.
- ``cpp:threads``, ``cpp:side_stream``, ``cpp:load_time_code``, ``cpp:python_access``
  (the interpreter: pybind11 beyond binding functions, the CPython API),
  ``cpp:token_pasting`` (``##`` builds names the scan could not see).
"""

from __future__ import annotations

import ast
import re

from kerneltrials.verifier.static import _names as names
from kerneltrials.verifier.static._cpp_escape import escape_findings
from kerneltrials.verifier.static._cpp_text import normalise_cpp
from kerneltrials.verifier.static._names import Finding

#: at::/torch:: names that allocate, describe or view (everything else there computes).
_ALLOWED_ATEN = names.ALLOWED_TORCH | {
    "Tensor", "TensorOptions", "ScalarType", "Scalar", "IntArrayRef", "Device", "DeviceType",
    "kFloat", "kHalf", "kBFloat16", "kDouble", "kInt", "kLong", "kBool", "kByte", "kChar",
    "kFloat32", "kFloat16", "kInt32", "kInt64", "kCUDA", "kCPU", "from_blob", "empty_like",
    "cuda", "native", "Half", "BFloat16", "indexing", "Slice", "get_num_threads",
    "parallel_for", "in_parallel_region", "get_thread_num", "TensorAccessor",
    "PackedTensorAccessor32", "PackedTensorAccessor64", "RestrictPtrTraits", "DefaultPtrTraits",
    "TensorBase", "OptionalTensorRef", "MemoryFormat", "Layout", "Generator", "nullopt",
    "optional", "check_dim_size", "NoGradGuard", "InferenceMode", "AutoGradMode",
    "DeviceGuard", "OptionalDeviceGuard", "ScalarTypeToCPPType", "elementSize", "toString",
    "getCurrentCUDAStream", "CUDAStream", "getDefaultCUDAStream", "current_device",
    "CUDAGuard", "OptionalCUDAGuard", "detail", "zeros", "ones", "empty", "full", "arange",
    "empty_strided", "tensor", "scalar_tensor", "kStrided", "Reduction", "TensorIterator",
    "acc_type", "opmath_type", "numeric_limits", "Stream", "device_of", "randn", "rand",
}
_ATEN_CALL = re.compile(r"\b(?:at|torch)\s*::\s*((?:\w+\s*::\s*)*)(\w+)\s*\(")
# Uses that are not calls but name a function: a macro body or a function pointer.
_ATEN_REFERENCE = re.compile(r"(?:^[ \t]*#[ \t]*define[^\n]*?|&\s*)\b(?:at|torch)\s*::\s*"
                             r"((?:\w+\s*::\s*)*)(\w+)", re.MULTILINE)
_METHOD_CALL = re.compile(r"\.\s*(\w+)\s*\(")
_LIBRARIES = re.compile(r"\b(cublas\w*|cublasLt\w*|cudnn\w*|cusparse\w*|cufft\w*|cusolver\w*|"
                        r"mkl_\w+|cblas_\w+|dnnl\s*::|mkldnn\w*|at\s*::\s*cuda\s*::\s*blas)")
_REGISTRATION = re.compile(r"\b(TORCH_LIBRARY\w*|RegisterOperators|Dispatcher\s*::|"
                           r"DispatchKey\w*|\w*DispatchKeyGuard|impl\s*::\s*tls_\w+|"
                           r"ExcludeDispatchKey\w*|registerKernel|registerFallback|"
                           r"TORCH_LIBRARY_IMPL|ThreadLocalState\w*)")
_THREADS = re.compile(r"\b(std\s*::\s*(?:j?thread|async)|pthread_create|omp_set_num_threads|"
                      r"at\s*::\s*set_num\w*threads)\b")
_STREAMS = re.compile(r"\b(cudaStreamCreate\w*|getStreamFromPool|getStreamFromExternal|"
                      r"setCurrentCUDAStream|cudaLaunchHostFunc|cudaGraph\w*|cudaStreamBeginCapture)")
# The interpreter from C++: pybind11 beyond binding functions (PYBIND11_MODULE and m.def
# stay allowed), the CPython API (Py*, _Py*), and pybind11 under another name.
_PYTHON = re.compile(r"\b((?:py|pybind11)\s*::\s*(?:module_?|eval\w*|exec|globals|import|getattr|"
                     r"setattr|delattr|hasattr|reinterpret_\w+|handle|detail|builtins)\b|"
                     r"_?Py[A-Z_]\w*|module_?\s*::\s*import|scoped_interpreter|"
                     r"\w*initialize_interpreter|reinterpret_(?:borrow|steal))|(\.\s*attr)\s*\(")
_PYTHON_ALIAS = re.compile(r"\bnamespace\s+(?!py\s*=)\w+\s*=\s*(?:::\s*)?(?:pybind11|py)\b|"
                           r"\busing\s+namespace\s+(?:::\s*)?(?:pybind11|py)\b")
_USING = re.compile(r"\busing\s+namespace\s+(at|torch)\b|\bnamespace\s+\w+\s*=\s*(at|torch)\b")
_DEFINED = re.compile(r"\b(\w+)\s*\([^;{}]*\)\s*(?:const\s*)?\{")
_LDFLAGS = re.compile(r"^-l(cublas\w*|cudnn\w*|mkl\w*|openblas|blas|cblas|dnnl|cusparse|cufft|"
                      r"cusolver|lapack\w*)$")


def strip_cpp(source: str) -> str:
    """C++ text with comments and literals blanked; preprocessor lines kept."""
    return normalise_cpp(source).code


def cpp_sources(tree: ast.Module) -> list[tuple[str, int]]:
    """String literals that look like C++ (not docstrings), with their line numbers."""
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef)
                  and node.body and isinstance(node.body[0], ast.Expr)}
    found = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                and id(node) not in docstrings and _looks_like_cpp(node.value)):
            found.append((node.value, node.lineno))
    return found


def _looks_like_cpp(text: str) -> bool:
    return any(marker in text for marker in (";", "#include", "::", "{", "#define"))


def library_flags(tree: ast.Module) -> list[Finding]:
    """``-lcublas`` and friends in the build flags: library compute."""
    return [Finding("cpp:library_compute", f"link {node.value}", node.lineno, strict_only=True)
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and _LDFLAGS.match(node.value.strip())]


def check_cpp(text: str, line: int = 0) -> list[Finding]:
    """Every C++ finding in one source string (CUDA sources get the same scan)."""
    normal = normalise_cpp(text)
    code = normal.code
    findings = [Finding("cpp:dispatcher_registration", m.group(1), line)
                for m in _REGISTRATION.finditer(code)]
    findings += [Finding("cpp:threads", _squash(m.group(1)), line) for m in _THREADS.finditer(code)]
    findings += [Finding("cpp:side_stream", m.group(1), line) for m in _STREAMS.finditer(code)]
    findings += escape_findings(normal, line)
    findings += [Finding("cpp:python_access", _squash(m.group(1) or m.group(2)), line)
                 for m in _PYTHON.finditer(code)]
    findings += [Finding("cpp:python_access", _squash(m.group(0)), line)
                 for m in _PYTHON_ALIAS.finditer(code)]
    if "##" in code:
        findings.append(Finding("cpp:token_pasting", "##", line))
    findings += _library_compute(code, line)
    return _unique(findings)


def _library_compute(code: str, line: int) -> list[Finding]:
    found = [f"at::{name}" for name in _aten_names(code) if name not in _ALLOWED_ATEN]
    found += [f".{m.group(1)}()" for m in _METHOD_CALL.finditer(code)
              if m.group(1) in names.COMPUTE_METHODS and m.group(1) not in {"max", "min"}]
    found += [_squash(m.group(1)) for m in _LIBRARIES.finditer(code)]
    if _USING.search(code):  # unqualified calls resolve to at:: under `using namespace at`
        defined = {m.group(1) for m in _DEFINED.finditer(code)}
        for match in re.finditer(r"(?<![\w.:>])(\w+)\s*\(", code):
            name = match.group(1)
            if name in names.COMPUTE_METHODS and name not in defined:
                found.append(f"at::{name}")
    return [Finding("cpp:library_compute", detail, line, strict_only=True) for detail in found]


def _aten_names(code: str) -> list[str]:
    """The function named by each ``at::…(`` / ``torch::…(`` call (``at::_ops::x::call``: x)."""
    found = []
    for match in [*_ATEN_CALL.finditer(code), *_ATEN_REFERENCE.finditer(code)]:
        scopes = [s for s in re.split(r"\s*::\s*", match.group(1)) if s]
        name = match.group(2)
        if name == "call" and scopes:
            name = scopes[-1]
        found.append(name)
    return found


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _unique(findings: list[Finding]) -> list[Finding]:
    seen: dict[str, Finding] = {}
    for finding in findings:
        seen.setdefault(finding.reason(), finding)
    return list(seen.values())
