"""Link-level policy: the symbols a candidate's own object code may import (issue 19, item 6).

The candidate's translation units (the fast path's ``main.cpp.o`` and its CUDA objects,
before they are linked with the harness's binding unit) are read with the toolchain's own
``nm``, demangled; nothing here reads source text. Every undefined symbol is classified:

- **allowed**: libc/libm, the C++ runtime, OpenMP, tensor metadata and allocation,
  ``TORCH_CHECK`` support, and (``cuda`` backend only) the CUDA runtime's launch, memory
  and error API — the tables below, one comment per group saying why;
- **dispatched compute** (``at::_ops::<op>::call`` of an op that computes, the ``torch::``
  C++ API): ``link:forbidden_symbol:<name>`` under ``strict``, the note
  ``note:link:library_compute:<name>`` under ``mixed`` (the dispatcher-level recorder sees it);
- **forbidden**: everything else. Named groups (the CPython API, ``dlopen``, BLAS/LAPACK,
  cuBLAS/cuDNN, processes, files, sockets, timers, the dispatcher, and compute that bypasses
  the dispatcher — ``at::native``, ``at::cpu``, ``at::cuda``, ``::redispatch``: the recorder
  could not see it, so not even ``mixed`` allows it) plus any name on no list (default deny).

A candidate's global *definitions* are checked too (``defined=`` below): a shared library's
reference to its own default-visibility symbol goes through the GOT, and the dynamic linker
binds it to the first definition in lookup order, where libc and the interpreter come first
— defining ``dlopen`` or ``PySys_GetObject`` yourself and calling it calls the real one.
A definition is rejected only when its name is on a forbidden list (a candidate's own
``extern "C"`` functions are on none). Linking with ``-Wl,-Bsymbolic-functions`` closes
this for functions at the root.

API: :func:`find_nm`, :func:`object_symbols` (imports and global definitions of a set of
objects), :func:`undefined_symbols`, :func:`classify`, :func:`symbol_policy_findings`.
Known limits (docs/design/anticheat.md): code reached without importing a symbol — through
a vtable of an allowed object (``DeviceGuardImplInterface``: streams, events), by parsing
memory for library code, or a raw ``syscall`` instruction — is not seen here.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

from kerneltrials.verifier.builds._reach import reachable_imports

NM_NAMES = ("llvm-nm-19", "llvm-nm", "nm")
MAX_REASONS = 10  # a verdict names the first ten, then counts the rest


#: The cache entry's record of the candidate's own objects' symbols, written by the parent
#: when it publishes a build (``_compiler.link_record``).
LINK_RECORD = "link.json"


def read_link_record(entry: Path) -> dict[str, object] | None:
    """The link record stored in a library's cache entry (None: none stored)."""
    path = entry / LINK_RECORD
    if not path.is_file():
        return None
    record = json.loads(path.read_text())
    return record if isinstance(record, dict) else None


class LinkToolMissing(RuntimeError):
    """No nm on this machine: the link policy cannot be checked (fails closed)."""


#: Bumped when the stored record changes: part of every cache key.
LINK_RECORD_VERSION = "4"  # 4: stock builds read too (3: only where code can run, _reach)


#: The name a compile job gives the stock build's unit (the candidate's code and, with
#: ``functions=``, the module stock ``load_inline`` generated beside it): ``StockModule``.
STOCK_UNIT = "stock-main.o"


#: Prefix of the pointers the compile job adds to a stock unit, one per bound function.
STOCK_ROOT_PREFIX = "kt_link_root_"


@dataclass(frozen=True)
class StockModule:
    """The Python module stock ``load_inline`` generates into the candidate's unit from
    ``functions=``: its init (``PyInit_<module>``) is harness code, so it is no root and no
    definition of the candidate's. What it binds stays reached: the compile job adds one
    exported pointer per bound function (``STOCK_ROOT_PREFIX``), a root that reaches the
    function's own code even where the compiler inlined it into the module, or where it is
    ``static``. A candidate that writes its own ``PYBIND11_MODULE`` (no ``functions=``) has
    no such module: its init is its own code, read like the rest."""

    init: str


def link_record(objects_dir: Path, stock_module: StockModule | None = None) -> dict[str, Any]:
    """The imports and global definitions of the candidate's own objects, read with the
    toolchain's nm; ``read`` false when the build left none. ``stock_module``: what
    stock generated into :data:`STOCK_UNIT`, if that unit is there. Raises
    LinkToolMissing without an nm."""
    objects = sorted(p for p in objects_dir.iterdir() if p.is_file() and not p.is_symlink()) \
        if objects_dir.is_dir() else []
    if not objects:
        return {"read": False}
    try:
        nm = find_nm()
    except RuntimeError as error:
        raise LinkToolMissing(str(error)) from error
    symbols = object_symbols(objects, nm, stock_module)
    return {"read": True, "imports": symbols.imports, "definitions": symbols.definitions}


class Kind(Enum):
    ALLOWED = "allowed"
    COMPUTE = "compute"  # dispatched library compute: strict rejects, mixed notes
    FORBIDDEN = "forbidden"  # on a named forbidden list (also rejected as a definition)
    UNKNOWN = "unknown"  # on no list: rejected as an import, fine as a definition


# --- C names (unmangled): exact names and patterns ---------------------------------------

#: The C++ runtime and libc pieces every object compiled from C++ imports (exceptions,
#: static initialisation, stack protector, thread-locals, assertions, errors).
C_RUNTIME = frozenset({
    "__gxx_personality_v0", "__dynamic_cast", "__dso_handle", "__tls_get_addr",
    "_GLOBAL_OFFSET_TABLE_", "__libc_single_threaded", "__stack_chk_fail", "__stack_chk_guard",
    "__assert_fail", "__errno_location", "abort", "exit", "pthread_mutex_lock",
    "pthread_mutex_unlock", "pthread_mutex_trylock", "pthread_once",
})
#: Memory and strings (libc): a kernel's own work; clang turns ``memcmp() == 0`` into bcmp.
C_MEMORY = frozenset({
    "malloc", "calloc", "realloc", "free", "aligned_alloc", "posix_memalign", "memalign",
    "memcpy", "memmove", "memset", "memcmp", "bcmp", "memchr", "strlen", "strnlen", "strcmp",
    "strncmp", "strcpy", "strncpy", "strcat", "strncat", "strchr", "strrchr", "strstr",
    "strdup", "strndup", "strtol", "strtoll", "strtoul", "strtoull", "strtod", "strtof",
    "atoi", "atol", "atof", "qsort", "bsearch", "abs", "labs", "llabs", "rand", "srand",
    "__memcpy_chk", "__memmove_chk", "__memset_chk", "__strcpy_chk", "__strcat_chk",
    "__strncpy_chk",
})
#: Printing to the streams a process inherits (no file can be opened: fopen is forbidden).
C_PRINT = frozenset({
    "printf", "fprintf", "vprintf", "vfprintf", "snprintf", "sprintf", "vsnprintf", "vsprintf",
    "puts", "fputs", "fputc", "putc", "putchar", "fwrite", "fflush", "stdout", "stderr",
    "__printf_chk", "__fprintf_chk", "__sprintf_chk", "__snprintf_chk", "__vsnprintf_chk",
    "__vfprintf_chk", "__vsprintf_chk", "__vprintf_chk",
})
_LIBM = (r"(?:a?(?:sin|cos|tan)h?|atan2|exp(?:2|10|m1)?|log(?:2|10|1p|b)?|pow|sqrt|cbrt|hypot|"
         r"erfc?|[lt]gamma(?:_r)?|fabs|floor|ceil|l?l?round|l?l?rint|nearbyint|trunc|fmod|"
         r"remainder|remquo|copysign|fmin|fmax|fdim|fma|frexp|ldexp|modf|scalbl?n|ilogb|"
         r"nextafter|nexttoward|nan|sincos)[fl]?")
C_ALLOWED_PATTERNS = (
    # libm, its glibc-internal and vector (libmvec, OpenMP simd) variants, and SLEEF, the
    # vector math library at::vec::Vectorized calls inline: elementwise math is own work.
    re.compile(rf"^(?:{_LIBM}|__{_LIBM}_finite|__(?:fpclassify|isinf|isnan|finite|signbit)[fl]?|"
               rf"_ZGV[bcdeBCDE][NM]\d+[uvl\d]*_{_LIBM}|Sleef_\w+)$"),
    # compiler-rt / libgcc builtins (128-bit and half/bfloat16 arithmetic, CPU dispatch).
    re.compile(r"^__(?:u?(?:div|mod|mul)[sdtx]i3|(?:ashl|ashr|lshr|neg|cmp|ucmp|clz|ctz|ffs|"
               r"popcount|parity|bswap|abs)[sdt]i2|mulo[sdt]i4|(?:float|floatun|fix|fixuns|"
               r"extend|trunc)[a-z]+[2-4]|gnu_[hf]2[hf]_ieee|powi[sdx]f2|(?:mul|div)[sdx]c3|"
               r"cpu_model|cpu_indicator_init|cpu_features2)$"),
    # the C++ ABI (exceptions, guards, atexit of static objects) and the unwinder.
    re.compile(r"^(?:__cxa_\w+|_Unwind_\w+)$"),
    # the OpenMP runtime: libomp (clang) and libgomp (g++) entry points of the pragmas,
    # and the omp_get_*/lock API; omp_set_*/timers are FORBIDDEN below.
    re.compile(r"^(?:__kmpc_\w+|GOMP_\w+|omp_(?:get|in|init|destroy|unset|test)_\w+|omp_set_(?:nest_)?lock)$"),
)
#: The CUDA runtime's launch, registration, memory, error and device-query API (``cuda``
#: backend only). nvcc's registration code imports atexit; torch's inline CUDA guard
#: (c10/cuda/impl/CUDAGuardImpl.h, whose vtable every CUDAGuard user emits) imports the
#: event and stream-wait calls — and offers them through that vtable anyway.
CUDA_RUNTIME = frozenset({
    "cudaLaunchKernel", "cudaLaunchKernelExC", "cudaLaunchCooperativeKernel", "atexit",
    "__cudaLaunchKernel", "__cudaGetKernel", "__cudaPushCallConfiguration",
    "__cudaPopCallConfiguration", "__cudaUnregisterFatBinary", "__cudaInitModule",
    "cudaMalloc", "cudaMallocAsync", "cudaMallocHost", "cudaHostAlloc", "cudaMallocPitch",
    "cudaFree", "cudaFreeAsync", "cudaFreeHost", "cudaGetLastError", "cudaPeekAtLastError",
    "cudaGetErrorString", "cudaGetErrorName", "cudaGetDevice", "cudaGetDeviceCount",
    "cudaSetDevice", "cudaGetDeviceProperties", "cudaGetDeviceProperties_v2",
    "cudaDeviceGetAttribute", "cudaFuncSetAttribute", "cudaFuncGetAttributes",
    "cudaFuncSetCacheConfig", "cudaDeviceSynchronize", "cudaStreamSynchronize",
    "cudaStreamQuery", "cudaStreamIsCapturing", "cudaStreamWaitEvent", "cudaEventCreate",
    "cudaEventCreateWithFlags", "cudaEventDestroy", "cudaEventRecord", "cudaEventQuery",
    "cudaEventSynchronize", "cudaEventElapsedTime", "cudaGetSymbolAddress",
    "cudaPointerGetAttributes",
})
CUDA_PATTERNS = (re.compile(r"^(?:__cudaRegister\w+|cudaMemcpy\w*|cudaMemset\w*|cudaOccupancy\w+)$"),)

#: Named forbidden C names: processes and other processes' memory, threads, raw syscalls,
#: dynamic loading and its library walk, executable memory, files, sockets, signals,
#: privileges, the environment, timers (telling a timed call from another), thread-pool
#: settings that slow the baseline. Imports of unlisted names are rejected anyway; this
#: list also rejects *definitions* of these names (interposition, module docstring).
C_FORBIDDEN = frozenset({
    "fork", "vfork", "clone", "clone3", "execl", "execle", "execlp", "execv", "execve",
    "execvp", "execvpe", "execveat", "fexecve", "posix_spawn", "posix_spawnp", "system",
    "popen", "daemon", "ptrace", "process_vm_readv", "process_vm_writev", "kill", "tgkill",
    "tkill", "pidfd_open", "pidfd_getfd", "pthread_create", "syscall", "prctl", "seccomp",
    "unshare", "setns", "setuid", "setgid", "setrlimit", "prlimit", "sched_setaffinity",
    "setpriority", "dlopen", "dlmopen", "dlsym", "dlvsym", "dladdr", "dlinfo",
    "dl_iterate_phdr", "getauxval", "mmap", "mmap64", "mremap", "mprotect", "pkey_mprotect",
    "memfd_create", "shm_open", "shmget", "shmat", "open", "open64", "openat", "openat2",
    "creat", "fopen", "fopen64", "freopen", "fdopen", "tmpfile", "mkstemp", "opendir",
    "readdir", "read", "write", "pread", "pwrite", "readlink", "unlink", "rename", "mkdir",
    "chdir", "stat", "lstat", "fstat", "access", "sendfile", "ioctl", "socket", "socketpair",
    "connect", "bind", "listen", "accept", "accept4", "sendto", "sendmsg", "recvfrom",
    "recvmsg", "getaddrinfo", "signal", "sigaction", "raise", "setenv", "putenv", "unsetenv",
    "getenv", "clock_gettime", "gettimeofday", "time", "clock", "nanosleep", "usleep",
    "sleep", "omp_set_num_threads", "omp_set_dynamic", "omp_set_nested",
    "omp_set_max_active_levels", "omp_set_schedule", "omp_get_wtime", "omp_get_wtick",
    "cudaGetDriverEntryPoint", "cudaStreamCreate", "cudaStreamCreateWithFlags",
    "cudaStreamCreateWithPriority", "cudaLaunchHostFunc", "cudaDeviceSetLimit",
})
_BLAS = (r"[sdcz](?:gemm\w*|symm|hemm|syrk|herk|syr2k|her2k|trmm|trsm|gemv|gbmv|symv|sbmv|"
         r"spmv|trmv|tbmv|tpmv|trsv|tbsv|tpsv|ger[uc]?|syr2?|her2?|hpr2?|spr2?|axpy|copy|swap|"
         r"scal|dot[uc]?|nrm2|asum|rotg?|rotm|getr[fsi]|potr[fsi]|gesv|gesvd|gesdd|syevd?|heevd?|"
         r"geqrf|orgqr|ungqr|gels)|i[sdcz]amax|(?:sc|dz)(?:nrm2|asum)|d?sdsdot")
C_FORBIDDEN_PATTERNS = (
    re.compile(r"^_?Py"),  # the CPython API: a candidate has no business calling Python
    re.compile(rf"^(?:{_BLAS})_?$"),  # Fortran BLAS/LAPACK (sgemm_, dgemm, ...)
    re.compile(r"^(?:cblas_|LAPACKE_|lapack_|mkl_|MKL_|dnnl_|mkldnn_|openblas_|goto_|bli_|"
               r"libxsmm_|cublas|cudnn|cusparse|cufft|cusolver|curand|nvrtc|nvJitLink|"
               r"cudaGraph|cudaLibrary|cudaIpc|cudaStreamBeginCapture|cu[A-Z])"),
)

# --- C++ names: qualified names with template arguments and parameters removed ------------

#: Tensor metadata and allocation, TORCH_CHECK/TORCH_WARN support, symbolic-shape and
#: refcount helpers, and what torch's headers import inline on behalf of an honest kernel
#: (torch:: factories set autograd meta and exclude autograd keys; TensorImpl's destructor
#: path asks for the Python interpreter object). Prefixes of the qualified name.
CPP_ALLOWED = (
    "at::TensorBase::data_ptr", "at::TensorBase::mutable_data_ptr",
    "at::TensorBase::const_data_ptr", "at::TensorBase::__dispatch_contiguous",
    "at::TensorBase::print", "at::TensorBase::toString", "at::Tensor::item",
    "at::Tensor::data_ptr", "at::Tensor::print", "at::Tensor::toString", "at::TensorMaker",
    "at::detail::empty_cpu", "at::detail::empty_strided_cpu", "at::detail::empty_generic",
    "at::detail::empty_cuda", "at::detail::empty_strided_cuda", "at::infer_size",
    "at::get_num_threads", "at::get_thread_num", "at::in_parallel_region",
    "at::init_num_threads", "at::internal::invoke_parallel", "at::internal::lazy_init_num_threads",
    "at::internal::set_thread_num", "at::TensorIteratorBase", "at::TensorIteratorConfig",
    "at::TensorIterator", "at::cuda::getCurrentDeviceProperties", "at::cuda::getDeviceProperties",
    "at::cuda::warp_size", "c10::detail::torchCheckFail", "c10::detail::torchInternalAssertFail",
    "c10::detail::torchCheckMsgImpl", "c10::detail::maybe_wrap_dim_slow", "c10::detail::_str",
    "c10::Error", "c10::Warning", "c10::warn", "c10::WarningUtils", "c10::SourceLocation",
    "c10::ThrowEnforceNotMet", "c10::TensorImpl", "c10::UndefinedTensorImpl", "c10::StorageImpl",
    "c10::Storage", "c10::DataPtr", "c10::Allocator", "c10::GetAllocator", "c10::GetCPUAllocator",
    "c10::SymInt", "c10::SymBool", "c10::SymFloat", "c10::SymbolicShapeMeta",
    "c10::AutogradMetaInterface", "c10::intrusive_ptr_target", "c10::impl::cow",
    "c10::impl::ExcludeDispatchKeyGuard", "c10::impl::getGlobalPyInterpreter",
    "c10::impl::device_guard_impl_registry", "c10::impl::GPUTrace", "c10::Device",
    "c10::DeviceTypeName", "c10::toString", "c10::operator<<", "c10::Scalar",
    "c10::SmallVectorBase", "caffe2::TypeMeta", "torch::autograd::AutogradMeta",
    # Tensor::data<T>() (deprecated spelling of data_ptr) warns through this, once.
    "c10::warnDeprecatedDataPtr",
    # Unoptimised, torch::empty_like and friends reach it through make_variable's check of
    # the Python object slot. It only hands out the interpreter's table, which the slot's
    # inline accessors give without any import: calling through it is the vtable limit.
    "c10::impl::PyInterpreter::operator->",
)
#: RTTI of fundamental types (``typeinfo for int``): the C++ runtime's, imported by a
#: ``throw 1`` / ``catch (int)`` or a std::any of a number in an honest kernel.
_FUNDAMENTAL_RTTI = re.compile(
    r"^typeinfo (?:name )?for (?:(?:unsigned |signed )?(?:char|short|int|long|long long)|"
    r"bool|float|double|long double|void|wchar_t|char(?:8|16|32)_t|decltype\(nullptr\)|"
    r"__int128|unsigned __int128)(?: const)?\*?$")
CPP_ALLOWED_CUDA = ("c10::cuda",)  # streams, guards, error checks of torch's CUDA core
_CPP_ERROR = re.compile(r"^c10::\w+Error(?:::|$)")  # c10::ValueError, IndexError, ...
#: Ops whose ``at::_ops::<op>::call`` allocates, fills, views or moves data: no arithmetic.
ALLOWED_OPS = frozenset({
    "empty_memory_format", "empty_like", "empty_strided", "empty_permuted", "new_empty",
    "new_empty_strided", "zeros", "zeros_like", "ones", "ones_like", "full", "full_like",
    "new_zeros", "new_ones", "new_full", "zero_", "fill__Scalar", "fill__Tensor", "arange",
    "arange_start", "arange_start_step", "scalar_tensor", "resize_", "item",
    "view", "view_dtype", "reshape", "_reshape_alias", "_unsafe_view", "view_as", "as_strided",
    "expand", "expand_as", "permute", "transpose_int", "t", "squeeze", "squeeze_dim",
    "squeeze_dims", "unsqueeze", "flatten_using_ints", "unflatten_int", "narrow", "slice_Tensor",
    "select_int", "alias", "detach", "split_Tensor", "split_with_sizes", "chunk", "unbind_int",
    "movedim_int", "contiguous", "clone", "copy_", "cat", "stack",
})
#: Named forbidden C++: Python (pybind11), dispatcher registration and dispatch-key state
#: (knowing when the recorder watches), compute that bypasses the dispatcher, BLAS and
#: oneDNN under their C++ names, threads and thread pools, files, timers, JIT (loads code).
CPP_FORBIDDEN = (
    "pybind11", "at::native", "at::cpu", "at::cuda", "at::meta", "at::compositeexplicitautograd",
    "at::compositeimplicitautograd", "at::compositeexplicitautogradnonfunctional", "at::mps",
    "at::set_num_threads", "at::set_num_interop_threads", "at::launch", "at::intraop_launch",
    "at::Context::set*", "c10::Dispatcher", "c10::OperatorHandle", "c10::impl::OperatorEntry",
    "c10::impl::tls_*", "c10::impl::dispatch_mode*", "c10::impl::TorchDispatchModeTLS",
    "c10::impl::PythonDispatcherTLS", "c10::impl::PythonTorchFunctionTLS",
    "c10::impl::ForceDispatchKeyGuard", "c10::impl::IncludeDispatchKeyGuard",
    "c10::impl::_force_tls_local_dispatch_key_set", "c10::impl::PyInterpreter",
    "c10::ThreadPool", "torch::Library", "torch::jit", "torch::dynamo", "torch::impl",
    "torch::utils", "torch::autograd::python", "fbgemm", "dnnl", "mkldnn", "ideep",
    "std::thread", "std::jthread", "std::filesystem", "std::__cxx11::basic_ifstream",
    "std::__cxx11::basic_ofstream", "std::basic_ifstream", "std::basic_ofstream",
    "std::basic_fstream", "std::basic_filebuf", "std::__basic_file", "std::chrono",
    "std::this_thread", "std::system",
)
_SPECIAL = re.compile(r"^(?:vtable for |typeinfo for |typeinfo name for |VTT for |"
                      r"construction vtable for |guard variable for |TLS init function for |"
                      r"TLS wrapper function for |(?:non-virtual |virtual |covariant return )?"
                      r"thunk to |reference temporary #\d+ for )")
_OP_CALL = re.compile(r"^at::_ops::(\w+)::(call|redispatch)$")


def _under(name: str, prefixes: tuple[str, ...]) -> bool:
    """Is ``name`` one of ``prefixes`` or in its scope (``x*``: any name starting with x)?"""
    return any(name.startswith(p[:-1]) if p.endswith("*") else
               name == p or name.startswith((p + "::", p + "<")) for p in prefixes)


def qualified_name(symbol: str) -> str:
    """``float* at::TensorBase::data_ptr<float>() const`` → ``at::TensorBase::data_ptr``."""
    name = re.sub(r"@{1,2}[\w.]+$", "", symbol.strip())  # symbol versions: dlopen@GLIBC_2.34
    while (special := _SPECIAL.match(name)) is not None:
        name = name[special.end():]
    name = name.replace("(anonymous namespace)", "{anonymous}")
    out, depth = [], 0
    operator = re.search(r"\boperator\s*(?:<<=?|>>=?|<=>|<=?|>=?|->\*?|\(\)|new\b|delete\b)", name)
    for index, char in enumerate(name):
        if operator and operator.start() <= index < operator.end():
            out.append(char)
            continue
        if char in "<{":
            depth += 1
        elif char in ">}" and depth:
            depth -= 1
        elif char == "(" and depth == 0:
            break
        elif depth == 0:
            out.append(char)
    head = "".join(out).strip()
    if operator and head.endswith(operator.group(0).split()[-1]):
        start = head.rfind("operator")
        prefix = re.search(r"[\w:~]*$", head[:start])
        return (prefix.group(0) if prefix else "") + re.sub(r"\s+", " ", head[start:])
    return head.split()[-1].lstrip("*&") if head else head


def classify(symbol: str, backend: str = "cpu") -> Kind:
    """Which list a demangled symbol is on (``backend`` ``cuda`` adds the CUDA runtime)."""
    if _FUNDAMENTAL_RTTI.match(symbol):
        return Kind.ALLOWED
    name = qualified_name(symbol)
    if "::" not in name and not name.startswith("operator "):
        return _classify_c(name, backend)
    if name.startswith(("operator new", "operator delete", "std::", "__gnu_cxx::",
                        "__cxxabiv1::")) and not _under(name, CPP_FORBIDDEN):
        return Kind.ALLOWED
    if (op := _OP_CALL.match(name)) is not None:
        if op.group(2) == "redispatch":  # skips dispatch keys: the recorder's among them
            return Kind.FORBIDDEN
        return Kind.ALLOWED if op.group(1) in ALLOWED_OPS else Kind.COMPUTE
    cuda_allowed = backend == "cuda" and _under(name, CPP_ALLOWED_CUDA)
    if _under(name, CPP_ALLOWED) or _CPP_ERROR.match(name) or cuda_allowed:
        return Kind.ALLOWED
    if _under(name, CPP_FORBIDDEN) or name.startswith(("at::", "c10::", "caffe2::")):
        return Kind.FORBIDDEN if _under(name, CPP_FORBIDDEN) else Kind.UNKNOWN
    return Kind.COMPUTE if name.startswith("torch::") else Kind.UNKNOWN


def _classify_c(name: str, backend: str) -> Kind:
    if name in C_FORBIDDEN or any(p.match(name) for p in C_FORBIDDEN_PATTERNS):
        return Kind.FORBIDDEN
    if name in C_RUNTIME or name in C_MEMORY or name in C_PRINT:
        return Kind.ALLOWED
    if any(p.match(name) for p in C_ALLOWED_PATTERNS):
        return Kind.ALLOWED
    if backend == "cuda" and (name in CUDA_RUNTIME or any(p.match(name) for p in CUDA_PATTERNS)):
        return Kind.ALLOWED
    return Kind.UNKNOWN


@dataclass(frozen=True)
class ObjectSymbols:
    """What a set of objects imports (undefined in all of them) and defines globally."""

    imports: list[str]
    definitions: list[str]


def find_nm() -> str:
    """The toolchain's nm (llvm-nm-19, llvm-nm, then GNU nm); RuntimeError if none."""
    for name in NM_NAMES:
        if (path := shutil.which(name)) is not None:
            return path
    raise RuntimeError(f"no nm tool found (looked for {', '.join(NM_NAMES)}): install llvm or binutils")


_NM_LINE = re.compile(r"^(?:[0-9a-fA-F]+)?\s+([A-Za-z])\s(.+)$")


def object_symbols(object_paths: list[Path], nm: str | None = None,
                   stock_module: StockModule | None = None) -> ObjectSymbols:
    """Imports and global definitions of ``object_paths``, demangled by ``nm -C``.

    An import counts only where code that can run refers to it (``_reach``: at ``-O0``
    the unit holds thousands of header functions nothing calls), and a C++ definition only
    in such code; an object this cannot be read for counts every symbol. A symbol one object defines and another uses (a
    kernel's launch stub, defined by the CUDA device unit and launched from the host unit)
    is a definition, not an import.
    """
    tool = nm or find_nm()
    undefined, defined = set(), set()
    for path in object_paths:
        # -p: symbol-table order, so the demangled and the raw listing pair line by line.
        demangled = _nm_symbols(tool, path, demangle=True)
        raw = _nm_symbols(tool, path, demangle=False)
        module = stock_module if path.name == STOCK_UNIT else None
        harness_init = frozenset([module.init]) if module is not None else frozenset()
        reachable = reachable_imports(path.read_bytes(), harness_init)
        if len(raw) != len(demangled):
            reachable = None
        for index, (is_undefined, kind, symbol) in enumerate(demangled):
            name = raw[index][2] if reachable is not None else ""
            if symbol in harness_init:
                continue
            if is_undefined:
                if reachable is None or name in reachable.imports:
                    undefined.add(symbol)
            elif kind.isupper() or kind in "uw":  # global (u: unique, w: weak without default)
                # A C name counts wherever it is (another unit may bind to it); a C++ one
                # only in code that can run.
                if reachable is None or not (name.startswith("_Z")
                                             and name in reachable.unreached_definitions):
                    defined.add(symbol)
    return ObjectSymbols(sorted(undefined - defined), sorted(defined))


def _nm_symbols(nm: str, path: Path, demangle: bool) -> list[tuple[bool, str, str]]:
    """(undefined?, nm's kind letter, name) of every symbol ``nm`` lists for ``path``."""
    command = [nm, "-p", *(["-C"] if demangle else []), str(path)]
    result = subprocess.run(command, capture_output=True, text=True, check=True)
    symbols = []
    for line in result.stdout.splitlines():
        match = _NM_LINE.match(line)
        if match is None:
            continue
        kind, symbol = match.groups()
        symbols.append((kind in "Uwv" and not line[:1].strip(), kind, symbol))  # no value: undefined
    return symbols


def undefined_symbols(object_paths: list[Path], nm: str | None = None) -> list[str]:
    """The demangled symbols ``object_paths`` import (see :func:`object_symbols`)."""
    return object_symbols(object_paths, nm).imports


def symbol_policy_findings(symbols: list[str], policy: str, backend: str,
                           defined: list[str] | None = None) -> tuple[list[str], list[str]]:
    """(reasons that reject, notes that only record) for imports ``symbols`` and global
    definitions ``defined`` under ``policy`` (``strict``/``mixed``) and ``backend``."""
    if policy not in ("strict", "mixed") or backend not in ("cpu", "cuda"):
        raise ValueError(f"unknown policy/backend {policy!r}/{backend!r}")
    rejected, noted = [], []
    for symbol in symbols:
        kind = classify(symbol, backend)
        if kind is Kind.COMPUTE and policy == "mixed":
            noted.append(symbol)
        elif kind is not Kind.ALLOWED:
            rejected.append(symbol)
    rejected += [s for s in defined or [] if classify(s, backend) is Kind.FORBIDDEN]
    # A module init of the candidate's own (its own PYBIND11_MODULE) brings pybind11's
    # CPython calls with it: say what to do instead before listing them.
    hint = [f"link:own_python_module:{init[:100]} (the candidate defines its own Python "
            "module; pass functions=[...] to load_inline and the harness binds them)"
            for init in [s for s in defined or [] if s.startswith("PyInit_")][:1]]
    return (hint + _capped("link:forbidden_symbol", rejected),
            _capped("note:link:library_compute", noted))


def _capped(prefix: str, symbols: list[str]) -> list[str]:
    unique = list(dict.fromkeys(symbols))
    shown = [f"{prefix}:{symbol[:200]}" for symbol in unique[:MAX_REASONS]]
    more = len(unique) - MAX_REASONS
    return shown + ([f"{prefix}:... and {more} more"] if more > 0 else [])


def link_findings(records: list[dict[str, object] | None], policy: str,
                  backend: str) -> tuple[list[str], list[str]]:
    """(rejecting reasons, notes) for the link records of a candidate's libraries (one per
    library, as the parent stored them in the build cache: ``_compiler.link_record``). A
    library built by stock ``load_inline`` has no separate objects: a note says so."""
    rejected: list[str] = []
    noted: list[str] = []
    for record in records:
        if not record or not record.get("read"):
            noted.append("note:link:unchecked:stock_build")
            continue
        imports = [str(s) for s in record.get("imports", [])]  # type: ignore[attr-defined]
        defined = [str(s) for s in record.get("definitions", [])]  # type: ignore[attr-defined]
        bad, notes = symbol_policy_findings(imports, policy, backend, defined)
        rejected += bad
        noted += notes
    return list(dict.fromkeys(rejected)), list(dict.fromkeys(noted))
