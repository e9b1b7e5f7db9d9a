"""The compiler/linker flag allow-list (``_flags``), table-driven.

Every class of forbidden flag, split (``["-Xclang", "-load"]``) and joined
(``-Xclang=-load``, ``-Wl,-plugin``), is rejected with a reason naming it; every flag set
an honest candidate of this repository uses (found by reading their ``load_inline`` calls)
is allowed.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from kerneltrials.verifier.protocol import BuildRequest
from kerneltrials.verifier.static._flags import forbidden_flags

REPOSITORY = Path(__file__).resolve().parents[2]
FIELDS = ("extra_cflags", "extra_cuda_cflags", "extra_ldflags", "extra_include_paths")


def request(**lists: list[str]) -> BuildRequest:
    return BuildRequest.from_load_inline("cpu", name="k", cpp_sources=["int x;"], **lists)


FORBIDDEN = [
    # code loaded into the compiler, the assembler or the linker
    ("extra_cflags", ["-fplugin=/cache/p.so"], "-fplugin=/cache/p.so"),
    ("extra_cflags", ["-fplugin", "/cache/p.so"], "-fplugin"),
    ("extra_cflags", ["-fpass-plugin=/p.so"], "-fpass-plugin=/p.so"),
    ("extra_cflags", ["-Xclang", "-load", "-Xclang", "/p.so"], "-Xclang -load"),
    ("extra_cflags", ["-Xclang=-load"], "-Xclang=-load"),
    ("extra_cflags", ["-B/tmp/tools"], "-B/tmp/tools"),
    ("extra_cflags", ["-B", "/tmp/tools"], "-B /tmp/tools"),
    ("extra_cflags", ["-wrapper", "gdb,--args"], "-wrapper gdb,--args"),
    ("extra_cflags", ["-specs=/tmp/s"], "-specs=/tmp/s"),
    ("extra_cflags", ["-fuse-ld=/tmp/ld"], "-fuse-ld=/tmp/ld"),
    ("extra_cflags", ["-Wa,-I/root"], "-Wa,-I/root"),
    ("extra_cflags", ["-Wp,-include,/etc/passwd"], "-Wp,-include,/etc/passwd"),
    ("extra_ldflags", ["-Wl,-plugin,/cache/p.so"], "-Wl,-plugin,/cache/p.so"),
    ("extra_ldflags", ["-Xlinker", "-plugin"], "-Xlinker -plugin"),
    ("extra_ldflags", ["--ld-path=/tmp/ld"], "--ld-path=/tmp/ld"),
    ("extra_ldflags", ["-Wl,-T,/tmp/s.ld"], "-Wl,-T,/tmp/s.ld"),
    ("extra_ldflags", ["-T", "/tmp/s.ld"], "-T /tmp/s.ld"),
    ("extra_ldflags", ["-L/tmp", "-lx"], "-L/tmp"),
    ("extra_ldflags", ["-lx"], "-lx"),
    ("extra_ldflags", ["-l:../x.so"], "-l:../x.so"),
    # files read: response files, forced includes, include dirs outside the build
    ("extra_cflags", ["@/root/secret"], "@/root/secret"),
    ("extra_cflags", ["-include", "/etc/passwd"], "-include /etc/passwd"),
    ("extra_cflags", ["-imacros", "m.h"], "-imacros m.h"),
    ("extra_cflags", ["-I/root"], "-I/root"),
    ("extra_cflags", ["-I", "../../etc"], "-I ../../etc"),
    ("extra_cflags", ["-isystem", "/usr/x"], "-isystem /usr/x"),
    ("extra_cflags", ["-iquote/root"], "-iquote/root"),
    ("extra_cflags", ["-fprofile-use=/root/p"], "-fprofile-use=/root/p"),
    # files written
    ("extra_cflags", ["-o", "/cache/x.so"], "-o /cache/x.so"),
    ("extra_cflags", ["-MD", "-MF", "/cache/d"], "-MD"),
    ("extra_cflags", ["-MF/cache/d"], "-MF/cache/d"),
    ("extra_cflags", ["-save-temps=obj"], "-save-temps=obj"),
    ("extra_cflags", ["-fdump-tree-all"], "-fdump-tree-all"),
    # shell syntax in torch's ninja file, code hidden from the C++ scan, trigraphs
    ("extra_cflags", ["-DX=$(id)"], "-DX=$(id)"),
    ("extra_cflags", ["-DX=`id`"], "-DX=`id`"),
    ("extra_cflags", ['-DS="x"'], '-DS="x"'),
    ("extra_cflags", ["-DRUN=system"], "-DRUN=system"),
    ("extra_cflags", ["-D", "A=asm"], "-D A=asm"),
    ("extra_cflags", ["-std=c++14"], "-std=c++14"),
    ("extra_cflags", ["-trigraphs"], "-trigraphs"),
    ("extra_cflags", ["-O3 -fplugin=/p.so"], "-fplugin=/p.so"),
    # nvcc: another host compiler, pass-through to tools, kept files, per-thread stream
    ("extra_cuda_cflags", ["-ccbin", "/tmp/cc"], "-ccbin /tmp/cc"),
    ("extra_cuda_cflags", ["--compiler-bindir=/tmp/cc"], "--compiler-bindir=/tmp/cc"),
    ("extra_cuda_cflags", ["-Xcompiler", "-fplugin=/p.so"], "-Xcompiler -fplugin=/p.so"),
    ("extra_cuda_cflags", ["-Xcompiler=-O3,-Wl,-plugin"], "-Xcompiler=-O3,-Wl,-plugin"),
    ("extra_cuda_cflags", ["-Xnvlink", "x"], "-Xnvlink x"),
    ("extra_cuda_cflags", ["-Xptxas", "--include=/x"], "-Xptxas --include=/x"),
    ("extra_cuda_cflags", ["--keep"], "--keep"),
    ("extra_cuda_cflags", ["--keep-dir", "/cache"], "--keep-dir /cache"),
    ("extra_cuda_cflags", ["-optf", "/root/o"], "-optf /root/o"),
    ("extra_cuda_cflags", ["--default-stream", "per-thread"], "--default-stream per-thread"),
    ("extra_cuda_cflags", ["-Xarchive=x"], "-Xarchive=x"),
]


@pytest.mark.parametrize(("field", "flags", "named"), FORBIDDEN)
def test_forbidden_flag_is_named(field: str, flags: list[str], named: str) -> None:
    reasons = forbidden_flags(request(**{field: flags}))
    assert f"build:forbidden_flag:{named}" in reasons, reasons


@pytest.mark.parametrize("path", ["/root", "/usr/include", "../x", "a/../../b", "~/x", "-Ifoo"])
def test_forbidden_include_path(path: str) -> None:
    reasons = forbidden_flags(request(extra_include_paths=["inc", path]))
    assert reasons == [f"build:forbidden_include_path:{path}"]


def test_reason_is_capped_and_printable() -> None:
    (reason,) = forbidden_flags(request(extra_cflags=["-fplugin=" + "x" * 500 + "\x1b"]))
    assert len(reason) < 140 and "\x1b" not in reason


COMMON_HONEST = [
    ("extra_cflags", ["-O3", "-march=native", "-fopenmp", "-ffast-math", "-funroll-loops",
                      "-DBLOCK=256", "-DNDEBUG", "-UDEBUG", "-Wall", "-Wno-unused-variable", "-w",
                      "-std=c++17", "-mavx2", "-mfma", "-mno-avx512f", "-fPIC", "-g",
                      "-fno-math-errno", "-ffp-contract=fast", "-I", "include", "-O2 -mtune=native"]),
    ("extra_cuda_cflags", ["-O3", "--use_fast_math", "-lineinfo", "-arch=sm_90a", "-gencode",
                           "arch=compute_90a,code=sm_90a", "--gpu-architecture=compute_80",
                           "-Xptxas", "-v", "-Xptxas=-O3,-warn-spills", "--ptxas-options=-v",
                           "-Xcompiler", "-fopenmp", "-Xcompiler=-O3,-march=native",
                           "--expt-relaxed-constexpr", "--expt-extended-lambda",
                           "-maxrregcount=64", "-U__CUDA_NO_HALF_OPERATORS__",
                           "-U__CUDA_NO_HALF_CONVERSIONS__", "-std=c++17", "-DNDEBUG",
                           "-Xcudafe", "--diag_suppress=177", "--threads=2"]),
    ("extra_ldflags", ["-fopenmp", "-lgomp", "-lcuda", "-lcudart", "-lcublas", "-l", "m",
                       "-pthread"]),
    ("extra_include_paths", ["include", "third_party/cutlass/include"]),
]


@pytest.mark.parametrize(("field", "flags"), COMMON_HONEST)
def test_common_honest_flags_are_allowed(field: str, flags: list[str]) -> None:
    assert forbidden_flags(request(**{field: flags})) == []


def _repository_flag_lists() -> list[tuple[str, str, list[str]]]:
    """(file, field, flags) of every literal flag list in a load_inline-style call of the
    reference solutions, tests (but the hostile corpora) and benchmarks."""
    found = []
    roots = [REPOSITORY / "kerneltrials", REPOSITORY / "tests", REPOSITORY / "bench"]
    for path in sorted(p for root in roots for p in root.rglob("*.py")):
        if "sandbox" in path.parts or "exploits" in path.parts or path.name == Path(__file__).name:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.keyword) and node.arg in FIELDS and isinstance(
                    node.value, ast.List | ast.Tuple):
                flags = [item.value for item in node.value.elts
                         if isinstance(item, ast.Constant) and isinstance(item.value, str)]
                if flags:
                    found.append((str(path.relative_to(REPOSITORY)), node.arg, flags))
    return found


REPOSITORY_FLAGS = _repository_flag_lists()


def test_the_repository_has_honest_flag_lists_to_check() -> None:
    assert len(REPOSITORY_FLAGS) >= 50  # the reference solutions alone have one per task


@pytest.mark.parametrize(("where", "field", "flags"), REPOSITORY_FLAGS,
                         ids=[f"{w}:{f}" for w, f, _ in REPOSITORY_FLAGS])
def test_every_honest_flag_set_of_the_repository_is_allowed(
    where: str, field: str, flags: list[str]
) -> None:
    assert forbidden_flags(request(**{field: flags})) == [], where
