"""The allow-list of a candidate's compiler and linker flags (``load_inline``'s extras).

A flag can load code into the compiler or linker (``-fplugin``, ``-Xclang -load``,
``-B``, ``-Wl,-plugin``, ``-specs``), read a file outside the job (``@file``,
``-include``, ``-I/etc``, linker scripts) or write one (``-o``, ``-MF``, ``-save-temps``).
So flags are checked against what kernels need — optimisation, target ISA, language
standard, macros, warnings, fast-math, OpenMP, CUDA architectures — and anything else is
``rejected``, naming the flag. The trusted parent checks every request before compiling
it (the sandbox must hold without this); the static scan checks literal flag lists early.
Why each group is allowed: docs/design/anticheat.md ("The scans are defence in depth").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator

from kerneltrials.verifier.protocol import BuildRequest
from kerneltrials.verifier.static import _names as names

_SHOWN_CHARS = 100

# Characters a flag may contain. torch's stock build writes flags into a ninja file whose
# commands run through /bin/sh: quotes, `$`, `;`, `|`, `(`, backticks, globs would be shell
# syntax there, so none is allowed (no honest flag needs one).
_SAFE = re.compile(r"[A-Za-z0-9_.,=+\-:/]+")

# Options whose value may come as the next list item (``["-I", "inc"]``); the check joins
# the two. The forbidden ones are listed too, so their value is reported with the flag.
_SPLIT = {
    # host (gcc/clang driver): attached form is ``-Idir``
    "-I": "", "-isystem": "", "-iquote": "", "-idirafter": "", "-D": "", "-U": "",
    "-include": "", "-imacros": "", "-Xclang": "", "-Xlinker": "", "-Xassembler": "",
    "-Xpreprocessor": "", "-B": "", "-T": "", "-o": "", "-MF": "", "-MT": "", "-MQ": "",
    "-specs": "=", "--specs": "=", "-wrapper": "", "-L": "", "-l": "", "-x": "", "-z": "",
    "-isysroot": "", "--sysroot": "=", "-iprefix": "", "-iwithprefix": "",
    "-iwithprefixbefore": "", "-imultilib": "", "-aux-info": "", "-dumpdir": "",
    "-dumpbase": "", "--param": "=",
    # nvcc: long options take ``=value``
    "-Xcompiler": "=", "--compiler-options": "=", "-Xptxas": "=", "--ptxas-options": "=",
    "-Xcudafe": "=", "-Xnvlink": "=", "--nvlink-options": "=", "--linker-options": "=",
    "-Xarchive": "=", "--archive-options": "=", "-Xfatbin": "=", "-Xcicc": "=",
    "-ccbin": "=", "--compiler-bindir": "=", "-arch": "=", "--gpu-architecture": "=",
    "-code": "=", "--gpu-code": "=", "-gencode": "=", "--generate-code": "=",
    "-maxrregcount": "=", "--maxrregcount": "=", "-std": "=", "--std": "=",
    "--include-path": "=", "--system-include": "=", "--define-macro": "=",
    "--undefine-macro": "=", "--pre-include": "=", "--library-path": "=", "--library": "=",
    "--output-file": "=", "-odir": "=", "--output-directory": "=", "--keep-dir": "=",
    "--dependency-output": "=", "-optf": "=", "--options-file": "=", "--threads": "=",
    "-diag-suppress": "=", "--diag-suppress": "=", "-default-stream": "=",
    "--default-stream": "=",
}

_ISA = (r"(?:sse[0-9a-z.]*|ssse3|avx[0-9a-z]*(?:-[0-9a-z]+)*|fma4?|f16c|bmi2?|popcnt|lzcnt|"
        r"abm|adx|aes|pclmul|vpclmulqdq|vaes|gfni|sha|sha512|movbe|prfchw|rdrnd|rdseed|"
        r"amx-[a-z0-9]+|tbm|xop|vzeroupper|fp16|neon|sve2?|dotprod|crc|crypto|lse|vsx|altivec)")
_ARCH_NAME = r"[A-Za-z0-9][A-Za-z0-9._+-]*"
_STD = r"(?:c|gnu)\+\+(?:17|1z|20|2a|23|2b)"
_CUDA_ARCH = r"(?:sm|compute|lto)_[0-9]+[af]?"

# -f flags: each changes code generation or diagnostics only; none names a file.
_F_FLAGS = frozenset({
    # fast-math and its parts: floating-point semantics of the candidate's own code
    "fast-math", "no-fast-math", "unsafe-math-optimizations", "no-math-errno", "math-errno",
    "finite-math-only", "no-finite-math-only", "no-trapping-math", "trapping-math",
    "associative-math", "no-associative-math", "reciprocal-math", "no-reciprocal-math",
    "no-signed-zeros", "signed-zeros", "no-rounding-math", "cx-limited-range",
    "excess-precision=fast", "excess-precision=standard", "fp-contract=fast", "fp-contract=on",
    "fp-contract=off",
    # loops, vectoriser, inlining, frame pointer, aliasing: optimisation choices
    "unroll-loops", "unroll-all-loops", "no-unroll-loops", "peel-loops", "tree-vectorize",
    "no-tree-vectorize", "tree-loop-vectorize", "tree-slp-vectorize",
    "vect-cost-model=unlimited", "vect-cost-model=dynamic", "vect-cost-model=cheap",
    "prefetch-loop-arrays", "no-prefetch-loop-arrays", "inline-functions", "no-inline",
    "no-inline-functions", "omit-frame-pointer", "no-omit-frame-pointer", "strict-aliasing",
    "no-strict-aliasing", "no-semantic-interposition", "no-plt", "no-builtin",
    "merge-all-constants",
    # OpenMP: the runtime the compiler driver links (libgomp), as torch does
    "openmp", "openmp-simd",
    # shared-library code model and symbol visibility
    "PIC", "pic", "visibility=hidden", "visibility=default", "visibility-inlines-hidden",
    # language and diagnostics (-fno-exceptions/-fno-rtti only make torch's headers fail)
    "exceptions", "no-exceptions", "rtti", "no-rtti", "permissive", "signed-char",
    "unsigned-char", "diagnostics-color=always", "diagnostics-color=never",
    "diagnostics-color=auto", "no-diagnostics-show-caret", "stack-protector",
    "stack-protector-strong", "no-stack-protector",
})

_Check = Callable[[str], bool]


def _relative_path(value: str) -> bool:
    """An include directory inside the build dir: no absolute path, no ``..``, no option."""
    return bool(value) and not value.startswith(("/", "-", "~")) and ".." not in value


def _macro(value: str) -> bool:
    """``NAME`` or ``NAME=value``: the value a number or one plain identifier that the C++
    scan accepts (a ``-D`` value is code the scan never sees: ``-DS=system``)."""
    match = re.fullmatch(r"[A-Za-z_]\w*(?:=([\w.+-]*))?", value)
    if not match:
        return False
    body = match.group(1) or ""
    if re.fullmatch(r"[-+]?[0-9.][\w.+-]*|", body):
        return True
    return re.fullmatch(r"[A-Za-z_]\w*", body) is not None and not names.is_forbidden_cpp_name(body)


# Flags both compilers share: macros, warnings, include directories inside the build dir.
_COMMON: list[tuple[str, _Check | None]] = [
    (r"-D(.+)", _macro),
    (r"-U[A-Za-z_]\w*", None),
    # warnings: two or more letters, so -Wl, -Wa, -Wp (pass-through to ld, as, cpp) never match
    (r"-w|-W(?:no-)?(?:error=)?[a-z][a-z0-9+-]+(?:=[a-z0-9-]+)?", None),
    (r"-(?:I|isystem|iquote|idirafter)(.+)", _relative_path),
]

# Host compiler (extra_cflags, and nvcc's -Xcompiler): regex on the joined flag -> value check.
_HOST: list[tuple[str, _Check | None]] = [
    *_COMMON,
    (r"-O[0-3sgz]?|-Ofast", None),                       # optimisation level
    (r"-g[0-3]?|-ggdb[0-3]?", None),                     # debug info in the object itself
    (rf"-m(?:arch|tune|cpu)={_ARCH_NAME}", None),        # target: a name, never a path
    (rf"-m(?:no-)?{_ISA}", None),                        # ISA feature switches
    (r"-mprefer-vector-width=(?:128|256|512|none)|-mfpmath=(?:sse|387|both)|-m64", None),
    # C++17 and later: earlier strict modes turn trigraphs on, which the C++ scan ignores
    (rf"-std={_STD}", None),
    (r"-pedantic(?:-errors)?", None),
    (r"-f([A-Za-z][\w+=-]*)", lambda name: name in _F_FLAGS),
    (r"-fmax-errors=[0-9]+|-finline-limit=[0-9]+|-falign-(?:functions|loops)=[0-9]+", None),
    (r"-pthread", None),
]

_PTXAS: list[tuple[str, _Check | None]] = [  # ptxas reports and optimisation only
    (r"-v|--verbose|-O[0-3]|--opt-level=[0-3]|-warn-spills|--warn-on-spills", None),
    (r"-warn-lmem-usage|--warn-on-local-memory-usage|-warn-double-usage", None),
    (r"--allow-expensive-optimizations=(?:true|false)|-dlcm=(?:ca|cg)|-dscm=(?:cg|cs|wt)", None),
    (r"-?-maxrregcount=[0-9]+|--suppress-stack-size-warning", None),
]

_CUDAFE: list[tuple[str, _Check | None]] = [  # diagnostics of the CUDA front end
    (r"--diag_suppress=[\w,]+|--diag_warning=[\w,]+|--display_error_number", None),
]


def _each(items: list[tuple[str, _Check | None]]) -> _Check:
    """A value that is a comma-separated list, each item allowed by ``items``."""
    return lambda value: all(_allowed(part, items) for part in value.split(",") if part)


_NVCC: list[tuple[str, _Check | None]] = [
    (r"-O[0-3]|-g|-G|-lineinfo|--generate-line-info|-w|--disable-warnings", None),
    (rf"-(?:arch|-gpu-architecture)=(?:{_CUDA_ARCH}|native|all|all-major)", None),
    (rf"-(?:code|-gpu-code)={_CUDA_ARCH}(?:,{_CUDA_ARCH})*", None),
    (rf"-(?:gencode|-generate-code)=arch={_CUDA_ARCH},code={_CUDA_ARCH}", None),
    (r"-?-use_fast_math|-?-(?:ftz|prec-div|prec-sqrt|fmad)=(?:true|false)", None),
    (r"-?-expt-relaxed-constexpr|-?-expt-extended-lambda|-?-extended-lambda", None),
    (r"-?-maxrregcount=[0-9]+|-?-extra-device-vectorization|-?-restrict", None),
    (r"--resource-usage|-res-usage|--threads=[0-9]+|-?-diag-suppress=[0-9,]+", None),
    (rf"-?-std={_STD}", None),
    (r"-(?:Xptxas|-ptxas-options)=(.+)", _each(_PTXAS)),
    (r"-(?:Xcompiler|-compiler-options)=(.+)", _each(_HOST)),   # host flags, same list
    (r"-Xcudafe=(.+)", _each(_CUDAFE)),
    (r"--define-macro=(.+)", _macro),
    (r"--undefine-macro=[A-Za-z_]\w*", None),
    (r"--(?:include-path|system-include)=(.+)", _relative_path),
    *_COMMON,  # nvcc has no -f/-m flags: host ones go through -Xcompiler
]

# Libraries a kernel may link by name (never by path: -L and -l:file are not allowed):
# the C/OpenMP runtimes, CUDA's runtime and driver, torch's own libraries, and the math
# libraries the static scan reports as library compute (a policy question, not a sandbox one).
_LIBRARIES = (r"m|gomp|omp|iomp5|pthread|stdc\+\+|cudart|cuda|c10|c10_cuda|torch|torch_cpu|"
              r"torch_cuda|torch_python|cublas|cublasLt|cudnn|cusparse|cufft|curand|cusolver|"
              r"openblas|blas|cblas|lapack|lapacke|dnnl|mkl_rt")
_LINKER: list[tuple[str, _Check | None]] = [
    (r"-fopenmp|-pthread", None),                       # the driver links its OpenMP runtime
    (rf"-l(?:{_LIBRARIES})", None),
]


def _allowed(flag: str, rules: list[tuple[str, _Check | None]]) -> bool:
    for pattern, check in rules:
        match = re.fullmatch(pattern, flag)
        if match:
            return check is None or check(match.group(1))
    return False


def _options(flags: Iterable[str]) -> Iterator[tuple[str, str]]:
    """(joined flag, flag as given) pairs: items split on whitespace (torch's ninja build
    does), a split option joined with its value (``-I dir`` -> ``-Idir``)."""
    tokens = [token for item in flags for token in str(item).split()]
    index = 0
    while index < len(tokens):
        token = tokens[index]
        index += 1
        if token in _SPLIT and index < len(tokens):
            value = tokens[index]
            index += 1
            yield token + _SPLIT[token] + value, f"{token} {value}"
        else:
            yield token, token


def _shown(text: str) -> str:
    text = repr(text)[1:-1]
    return text if len(text) <= _SHOWN_CHARS else text[:_SHOWN_CHARS] + "…"


def _rejected(flags: Iterable[str], rules: list[tuple[str, _Check | None]]) -> list[str]:
    reasons = []
    for joined, given in _options(flags):
        if not (_SAFE.fullmatch(joined) and _allowed(joined, rules)):
            reasons.append(f"build:forbidden_flag:{_shown(given)}")
    return reasons


def forbidden_flags(request: BuildRequest) -> list[str]:
    """Why a build request's flags and include paths may not be used; empty if they may.

    One reason per offending flag, ``build:forbidden_flag:<flag as given>`` (capped), or
    ``build:forbidden_include_path:<path>``. An allow-list: anything not known to be
    harmless is rejected, split (``["-Xclang", "-load"]``) or joined (``-Wl,-plugin``).
    """
    return forbidden_in(request.extra_cflags, request.extra_cuda_cflags, request.extra_ldflags,
                        request.extra_include_paths)


def forbidden_in(cflags: Iterable[str] = (), cuda_cflags: Iterable[str] = (),
                 ldflags: Iterable[str] = (), include_paths: Iterable[str] = ()) -> list[str]:
    """:func:`forbidden_flags` on the four lists themselves (the static scan's entry)."""
    reasons = _rejected(cflags, _HOST) + _rejected(cuda_cflags, _NVCC)
    reasons += _rejected(ldflags, _LINKER)
    for path in map(str, include_paths):
        if not (_SAFE.fullmatch(path) and _relative_path(path)):
            reasons.append(f"build:forbidden_include_path:{_shown(path)}")
    return list(dict.fromkeys(reasons))
