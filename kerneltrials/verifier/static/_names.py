"""Name tables of the static checks: which modules, calls and attributes mean what.

Pure data (no torch import), read by ``_python``, ``_cpp`` and ``_flags``.
Every entry is justified in docs/design/anticheat.md.
"""

from __future__ import annotations

#: Modules a candidate may import (by root); anything else is ``static:forbidden_module``.
ALLOWED_MODULES = frozenset({
    "torch", "math", "typing", "__future__", "functools", "dataclasses", "collections",
    "itertools", "numbers", "enum", "abc", "warnings", "os", "time", "contextlib",
    "operator", "typing_extensions",
})

#: Modules that start threads or processes: ``static:threads``.
THREAD_MODULES = frozenset({"threading", "_thread", "multiprocessing", "concurrent", "asyncio",
                            "sched", "torch.multiprocessing", "torch.distributed"})

#: Other numerical libraries: they may not compute a candidate's result.
NUMERICAL_MODULES = frozenset({"numpy", "scipy", "numba", "cupy", "jax", "jaxlib", "tensorflow",
                               "pycuda", "triton", "tvm", "mxnet", "cunumeric", "pandas"})

#: Module names that suggest the reference (the candidate never sees the task file).
REFERENCE_NAMES = frozenset({"model", "reference", "task", "problem", "ref"})

#: ``os`` attributes a candidate may use (the rest touch processes, files or signals).
ALLOWED_OS = frozenset({"environ", "path", "getenv", "cpu_count", "sep"})

#: Builtins that execute code, read files or reach the interpreter's internals.
FORBIDDEN_BUILTINS = {
    "exec": "forbidden_call", "eval": "forbidden_call", "compile": "forbidden_call",
    "__import__": "forbidden_call", "breakpoint": "forbidden_call", "input": "forbidden_call",
    "globals": "forbidden_call", "locals": "forbidden_call", "vars": "forbidden_call",
    "open": "file_access", "memoryview": "forbidden_call", "help": "forbidden_call",
}

#: Escape hatches, anywhere in the module (module level, class bodies, ``__init__``,
#: helpers): a name that is, or lies under, one of these is ``static:<code>:<name>``.
#: Unpickling runs code; downloads fetch it; files and raw buffers reach outside the job.
ESCAPE_APIS = {
    "torch.hub": "foreign_code", "torch.load": "foreign_code",
    "torch.serialization": "foreign_code", "torch.package": "foreign_code",
    "torch.utils.model_zoo": "foreign_code", "torch.cuda.CUDAPluggableAllocator": "foreign_code",
    "torch.cuda.memory.CUDAPluggableAllocator": "foreign_code",
    "torch.cuda.change_current_allocator": "foreign_code",
    "torch.cuda.memory.change_current_allocator": "foreign_code",
    "torch.save": "file_access", "torch.from_file": "file_access", "torch.onnx": "file_access",
    "torch.utils.tensorboard": "file_access", "torch.frombuffer": "forbidden_call",
    "torch.utils.data": "threads",  # DataLoader workers are processes
    "operator.attrgetter": "dynamic_attribute", "operator.methodcaller": "dynamic_attribute",
    "typing.get_type_hints": "forbidden_call",  # evaluates annotation strings as code
    "typing_extensions.get_type_hints": "forbidden_call", "typing.ForwardRef": "forbidden_call",
}

#: Attributes that are escape hatches whatever object they are read from
#: (``x.untyped_storage().from_file``, ``type(s).from_file``).
ESCAPE_ATTRIBUTES = {"from_file": "file_access", "load_library": "foreign_code"}

#: Modules that allowed modules carry as attributes (``torch.os``, ``typing.sys``,
#: ``dataclasses.builtins``): reaching one through another is ``static:forbidden_module``.
#: (``torch.types`` is torch's own module, not the standard library's.)
REEXPORTED_MODULES = frozenset({
    "os", "sys", "ctypes", "_ctypes", "subprocess", "importlib", "builtins", "pickle",
    "_pickle", "inspect", "gc", "io", "_io", "threading", "_thread", "socket", "shutil",
    "pathlib", "tempfile", "marshal", "platform", "glob", "traceback", "linecache", "runpy",
    "pty", "mmap", "urllib", "http", "resource", "dill", "shelve", "cffi", "zipfile",
    "tarfile", "requests", "copyreg", "posix", "sysconfig", "site", "zipimport", "pkgutil",
    "types", "multiprocessing", "signal",
})

#: Environment variables a candidate may set (before its ``load_inline``); any other write
#: to ``os.environ`` is ``static:forbidden_call`` (``LD_PRELOAD``, ``CXX``, ``CUDA_*``…).
ALLOWED_ENVIRONMENT = frozenset({"TORCH_CUDA_ARCH_LIST", "MAX_JOBS"})

#: Dunder attributes that are harmless in a candidate; any other is ``static:dunder_access``.
ALLOWED_DUNDERS = frozenset({"__init__", "__name__", "__doc__", "__call__", "__future__",
                             "__all__", "__file__"})

#: ``torch`` callables that compute nothing: allocation, views, shapes, types, utilities.
ALLOWED_TORCH = frozenset({
    # allocation
    "empty", "empty_like", "empty_strided", "zeros", "zeros_like", "ones", "ones_like", "full",
    "full_like", "arange", "tensor", "as_tensor", "scalar_tensor", "new_empty", "new_zeros",
    "new_ones", "new_full",
    # views and shape ops (data movement only)
    "reshape", "view", "view_as", "flatten", "unflatten", "squeeze", "unsqueeze", "transpose",
    "permute", "t", "movedim", "narrow", "select", "expand", "expand_as", "broadcast_to",
    "chunk", "split", "unbind", "cat", "concat", "stack", "contiguous", "clone", "pad",
    "as_strided", "detach",
    # types, devices, shapes, predicates, grad mode
    "Tensor", "Size", "device", "dtype", "is_tensor", "is_floating_point", "numel",
    "no_grad", "inference_mode", "enable_grad", "set_grad_enabled", "is_grad_enabled",
    "float32", "float", "float16", "half", "bfloat16", "float64", "double", "int8", "uint8",
    "int16", "int32", "int64", "long", "int", "bool", "complex64", "contiguous_format",
    "channels_last", "strided", "finfo", "iinfo", "get_default_dtype", "get_num_threads",
    "synchronize", "current_stream", "is_available", "current_device", "device_count",
    "Module", "Parameter", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict",
    "Identity", "Flatten", "Unflatten", "Sequential", "Function", "FunctionCtx", "version",
    "cpp_extension", "load_inline", "CUDA_HOME", "utils", "nn", "cuda", "autograd",
    "functional", "init", "parameter", "register_buffer",
})

#: Tensor methods that compute (checked on calls ``x.name(...)`` inside ``forward``).
#: Names shared with Python containers (add, sort, index, count, pop) are left out.
COMPUTE_METHODS = frozenset({
    "abs", "acos", "addmm", "addmv", "all", "amax", "amin", "any", "argmax", "argmin",
    "argsort", "asin", "atan", "baddbmm", "bmm", "ceil", "clamp", "clamp_", "clamp_min",
    "clamp_max", "clip", "cos", "cosh", "cumprod", "cumsum", "div", "div_", "dot", "einsum",
    "eq", "erf", "exp", "exp_", "expm1", "floor", "gather", "ge", "gelu", "gt", "index_select",
    "le", "lerp", "log", "log1p", "log2", "log_softmax", "logsumexp", "lt", "masked_fill",
    "matmul", "max", "maximum", "mean", "median", "min", "minimum", "mm", "mul", "mul_", "mv",
    "nan_to_num", "ne", "neg", "norm", "pow_", "prod", "reciprocal", "relu", "relu_",
    "round", "rsqrt", "scatter", "scatter_add", "sigmoid", "sign", "silu", "sin", "sinh",
    "softmax", "sqrt", "square", "std", "sub", "sub_", "sum", "tanh", "tanh_", "topk",
    "tril", "triu", "var", "where", "add_", "addcmul", "addcdiv", "hardtanh", "leaky_relu",
    "sigmoid_", "cross_entropy", "conv2d", "linear", "float_power", "fmod", "remainder",
    "true_divide", "floor_divide", "logical_and", "logical_or", "logical_not", "cummax",
    "sort", "trunc", "frac", "exp2", "outer", "kron", "tensordot", "numpy",
})

#: ``torch.nn`` classes that compute nothing when called.
ALLOWED_NN_CLASSES = frozenset({"Module", "Parameter", "ModuleList", "ModuleDict",
                                "ParameterList", "ParameterDict", "Identity", "Flatten",
                                "Unflatten", "Buffer"})

#: Global-state setters: ``static:backend_flag`` (or ``rng_state``) wherever they appear.
BACKEND_SETTERS = frozenset({
    "torch.set_num_threads", "torch.set_num_interop_threads", "torch.set_float32_matmul_precision",
    "torch.set_default_dtype", "torch.set_default_tensor_type", "torch.set_default_device",
    "torch.use_deterministic_algorithms", "torch.set_flush_denormal",
    "torch.set_deterministic_debug_mode",
})
RNG_SETTERS = frozenset({"torch.manual_seed", "torch.seed", "torch.set_rng_state",
                         "torch.cuda.manual_seed", "torch.cuda.manual_seed_all",
                         "torch.cuda.set_rng_state", "torch.random.manual_seed",
                         "torch.random.set_rng_state", "torch.random.seed"})

#: Stream and graph APIs: work on another stream escapes a current-stream measurement.
STREAM_APIS = frozenset({"torch.cuda.Stream", "torch.cuda.stream", "torch.cuda.set_stream",
                         "torch.Stream", "torch.cuda.StreamContext", "torch.cuda.ExternalStream",
                         "torch.cuda.Event", "torch.cuda.graph", "torch.cuda.CUDAGraph",
                         "torch.cuda.graphs", "torch.cuda.make_graphed_callables",
                         "torch.Event"})
STREAM_METHODS = frozenset({"record_stream", "wait_stream", "wait_event", "record_event"})

#: Calls that bring in compiled code other than the candidate's load_inline kernels.
FOREIGN_CODE = frozenset({"torch.compile", "torch.jit", "torch.utils.cpp_extension.load",
                          "torch.ops.load_library", "torch.classes", "torch.library",
                          "torch.fx", "torch.export", "torch.cuda.jiterator"})


class Finding:
    """One static finding: ``code`` (``static:…``/``cpp:…``), a detail and where it is.

    ``strict_only`` findings (PyTorch or library compute) are failures only under the
    ``strict`` policy; under ``mixed`` they are kept as notes.
    """

    __slots__ = ("code", "detail", "line", "strict_only")

    def __init__(self, code: str, detail: str, line: int = 0, strict_only: bool = False) -> None:
        self.code, self.detail, self.line, self.strict_only = code, detail, line, strict_only

    def reason(self) -> str:
        where = f" (line {self.line})" if self.line else ""
        return f"{self.code}:{self.detail}{where}" if self.detail else f"{self.code}{where}"

    def __repr__(self) -> str:
        return f"Finding({self.reason()!r}, strict_only={self.strict_only})"


# --- C++ (``_cpp``): names no kernel needs, each an escape hatch from the process ---

#: Flagged wherever they appear as a name (not as a member ``x.name``): processes,
#: privileges, files, file streams, sockets, raw syscalls, dynamic loading, executable
#: memory, code loaded at run time, process-wide hooks, and the timers a candidate could
#: use to tell a timed run from an untimed one.
FORBIDDEN_CPP = frozenset({
    # processes and other processes' memory
    "popen", "execl", "execle", "execlp", "execv", "execve", "execvp", "execvpe", "execveat",
    "fexecve", "fork", "vfork", "clone3", "posix_spawn", "posix_spawnp", "daemon", "ptrace",
    "process_vm_readv", "process_vm_writev", "tgkill", "tkill", "killpg", "pidfd_open",
    "pidfd_send_signal", "pidfd_getfd", "pthread_kill", "sigqueue",
    # privileges, namespaces, kernel settings and modules
    "prctl", "arch_prctl", "seccomp", "setuid", "setgid", "seteuid", "setegid", "setreuid",
    "setregid", "setresuid", "setresgid", "setgroups", "setfsuid", "setfsgid", "capset",
    "unshare", "setns", "pivot_root", "chroot", "umount2", "sysctl", "reboot", "init_module",
    "finit_module", "delete_module", "kexec_load", "bpf", "perf_event_open", "userfaultfd",
    "personality", "iopl", "ioperm", "ioctl", "syscall", "setrlimit", "prlimit",
    "sched_setaffinity", "setpriority",
    # files and directories
    "fopen", "fopen64", "freopen", "fdopen", "tmpfile", "tmpnam", "mkstemp", "mkstemps",
    "mkdtemp", "open64", "openat", "openat2", "creat", "open_by_handle_at",
    "name_to_handle_at", "opendir", "fdopendir", "readdir", "scandir", "nftw", "ftw",
    "unlink", "unlinkat", "rmdir", "mkdir", "mkdirat", "renameat", "renameat2", "symlink",
    "symlinkat", "linkat", "readlink", "readlinkat", "chmod", "fchmod", "fchmodat", "chown",
    "fchown", "lchown", "fchownat", "ftruncate", "chdir", "fchdir", "sendfile",
    "copy_file_range", "vmsplice", "pread", "pwrite", "pread64", "pwrite64", "preadv",
    "pwritev", "mknod", "mknodat", "mkfifo", "inotify_init", "inotify_init1",
    "inotify_add_watch", "fanotify_init", "fanotify_mark",
    "ifstream", "ofstream", "fstream", "filebuf", "basic_ifstream", "basic_ofstream",
    "basic_fstream", "basic_filebuf", "filesystem",
    # dynamic loading, executable or shared memory, code loaded at run time
    "dlopen", "dlmopen", "dlsym", "dlvsym", "mmap", "mmap64", "mremap", "mprotect",
    "pkey_mprotect", "memfd_create", "shm_open", "shm_unlink", "shmget", "shmat",
    "cuModuleLoad", "cuModuleLoadData", "cuModuleLoadDataEx", "cuModuleLoadFatBinary",
    "cuLibraryLoadFromFile", "cuLibraryLoadData", "cudaLibraryLoadFromFile",
    "cudaLibraryLoadData", "cuLinkAddFile", "nvJitLinkAddFile", "nvrtcCompileProgram",
    "cudaIpcOpenMemHandle", "cuIpcOpenMemHandle", "cuMemImportFromShareableHandle",
    # network
    "socket", "socketpair", "accept4", "sendto", "sendmsg", "sendmmsg", "recvfrom",
    "recvmsg", "recvmmsg", "getaddrinfo", "gethostbyname",
    # process-wide hooks and environment
    "sigaction", "setenv", "putenv", "unsetenv", "clearenv", "atexit", "at_quick_exit",
    "on_exit", "pthread_atfork",
    # timers (telling a timed run from an untimed one)
    "clock_gettime", "gettimeofday",
})

#: Names common enough as variables (``open``, ``signal``) that only a use as a function
#: counts: a call, a use as a value (``CALL(system)``, ``f = &system``), a using-declaration
#: or a ``#define``. ``exit``/``abort`` are left to the runtime (CUDA error-check macros).
FORBIDDEN_CPP_CALLS = frozenset({
    "system", "open", "kill", "raise", "signal", "connect", "bind", "listen", "accept",
    "remove", "rename", "link", "stat", "lstat", "truncate", "mount", "umount", "clone",
    "glob", "tee", "splice", "access", "nice",
})

#: Words that hide code from the C++ scan when a ``-D`` flag defines a macro as them.
CPP_HIDING_WORDS = frozenset({"asm", "__asm", "__asm__", "_Pragma", "__attribute__",
                              "pybind11", "py", "__declspec"})


def is_forbidden_cpp_name(name: str) -> bool:
    """Is ``name`` one a ``-D`` value may not spell (a forbidden call, asm, Python)?"""
    return (name in FORBIDDEN_CPP or name in FORBIDDEN_CPP_CALLS or name in CPP_HIDING_WORDS
            or name.startswith(("Py", "_Py")))
