"""The static scans as defence in depth (issue 17): escape hatches in C++ and Python.

C++: every evasion the hostile corpus used against a regex scan (line splices, digit
separators, raw strings, comments inside strings, macros, token pasting, asm labels,
escapes in asm templates, digraphs) and the calls it lacked. Python: escape hatches at
module level, in ``__init__`` and in helpers, not only in ``forward``. And nothing honest
is caught: every reference solution, honest corpus candidate and worked example passes.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from kerneltrials.agents import _examples
from kerneltrials.verifier.static._checks import run_static_checks
from kerneltrials.verifier.static._cpp import check_cpp, cpp_sources
from tests.verifier.candidates import candidate as shared_candidate
from tests.verifier.corpus import HONEST, load

REPOSITORY = Path(__file__).resolve().parents[2]
REFERENCES = sorted((REPOSITORY / "kerneltrials/tasks/reference").rglob("*.py"))


def cpp_reasons(cpp: str) -> list[str]:
    return [finding.reason() for finding in check_cpp(cpp) if not finding.strict_only]


@pytest.mark.parametrize(("cpp", "expected"), [
    # line splice inside a name
    ("int g() { return soc\\\nket(2, 1, 0); }", "static:forbidden_cpp:socket"),
    ("int g() { return sys\\   \ncall(1); }", "static:forbidden_cpp:syscall"),
    # digit separators: a regex read 1'000 ... 2'000 as one character literal
    ("int a = 1'000; void g() { system(\"id\"); } int b = 2'000;", "static:forbidden_cpp:system"),
    # a raw string holding a quote, then code
    ('auto s = R"d(")d"; void g() { popen("id", "r"); } auto t = R"(")";',
     "static:forbidden_cpp:popen"),
    # a comment opener inside a string literal
    ('const char* u = "/*"; void g() { fork(); } const char* v = "*/";', "static:forbidden_cpp:fork"),
    ("void g() { syscall(SYS_openat, -100, \"/etc/shadow\", 0); }", "static:forbidden_cpp:syscall"),
    ("int g() { return openat(AT_FDCWD, \"/etc/shadow\", O_RDONLY); }", "static:forbidden_cpp:openat"),
    ("void g() { pid_t p; posix_spawn(&p, \"/bin/sh\", 0, 0, argv, env); }",
     "static:forbidden_cpp:posix_spawn"),
    ("void g(int fd) { connect(fd, (sockaddr*)&a, sizeof a); }", "static:forbidden_cpp:connect"),
    ("void g() { std::filesystem::remove(\"/x\"); }", "static:forbidden_cpp:std::filesystem"),
    ("namespace fs = std::filesystem;", "static:forbidden_cpp:std::filesystem"),
    ("void g() { std::ifstream in(\"/etc/passwd\"); }", "static:forbidden_cpp:ifstream"),
    ("void* g() { return dlopen(\"x.so\", 2); }", "static:forbidden_cpp:dlopen"),
    ("void g(void* p) { mprotect(p, 4096, 7); }", "static:forbidden_cpp:mprotect"),
    ("void g() { ptrace(PTRACE_ATTACH, 1, 0, 0); }", "static:forbidden_cpp:ptrace"),
    ("void g() { process_vm_readv(1, a, 1, b, 1, 0); }", "static:forbidden_cpp:process_vm_readv"),
    ("void g() { setuid(0); prctl(1, 0); }", "static:forbidden_cpp:setuid"),
    # a forbidden function used as a value, through a macro, by a using-declaration
    ("auto f = &open; int g() { return f(\"/x\", 0); }", "static:forbidden_cpp:open"),
    ("#define CALL(f) f(\"id\")\nvoid g() { CALL(system); }", "static:forbidden_cpp:system"),
    ("#define RUN system\nvoid g() { RUN(\"id\"); }", "static:forbidden_cpp:system"),
    ("namespace x { using ::system; }", "static:forbidden_cpp:system"),
    ("int g() { return sys\\u0074em(\"id\"); }", "static:forbidden_cpp:system"),
    # token pasting builds the name
    ("#define J(a, b) a ## b\nint g() { return J(soc, ket)(2, 1, 0); }", "static:forbidden_cpp:socket"),
    ("#define J(a, b) a %:%: b\nint g() { return J(soc, ket)(2, 1, 0); }", "cpp:token_pasting"),
    # inline assembly
    ('void g() { asm volatile("syscall" ::: "memory"); }', "static:forbidden_cpp:asm syscall"),
    ('void g() { asm volatile("sys" "call"); }', "static:forbidden_cpp:asm syscall"),
    ('void g() { __asm__("int $0x80"); }', "static:forbidden_cpp:asm int 0x80"),
    ('asm(".incbin \\"/etc/shadow\\"");', "static:forbidden_cpp:.incbin"),
    ('asm(".incbi\\x6e \\"/etc/shadow\\"");', "static:forbidden_cpp:.incbin"),
    ('#define S(x) #x\nasm(S(.incbin "/etc/shadow"));', "static:forbidden_cpp:.incbin"),
    ('asm(".byte 0x0f, 0x05");', "static:forbidden_cpp:asm .byte"),
    ('#define T "syscall"\nvoid g() { asm volatile(T); }', "static:forbidden_cpp:asm syscall"),
    ('extern "C" int run(const char*) __asm__("system");', "static:forbidden_cpp:system"),
    # includes
    ('#include "/etc/passwd"', "static:forbidden_cpp:#include '/etc/passwd'"),
    ("/* x */ #include <../../proc/self/environ>", "static:forbidden_cpp:#include '../../proc"),
    ('#define P "/etc/passwd"\n#include P', "static:forbidden_cpp:#include with a computed path"),
    ('%:include "/etc/hostname"', "static:forbidden_cpp:#include '/etc/hostname'"),
    ('#include "secrets.txt"', "static:forbidden_cpp:#include 'secrets.txt'"),
    ("#embed <data.bin>", "static:forbidden_cpp:#embed"),
    # attributes: load-time code, symbols renamed or placed
    ("[[gnu::constructor]] void g() {}", "cpp:load_time_code:constructor"),
    ("__attribute__((destructor)) void g() {}", "cpp:load_time_code:destructor"),
    ('int f(const char*) __attribute__((weakref("system")));', "static:forbidden_cpp:attribute weakref"),
    ('__attribute__((section(".init_array"))) void* p = 0;', "static:forbidden_cpp:attribute section"),
    # the interpreter from C++
    ("namespace p2 = pybind11;\nvoid g() { p2::module_::import(\"os\"); }", "cpp:python_access"),
    ("void g() { PyRun_SimpleString(\"import os\"); }", "cpp:python_access:PyRun_SimpleString"),
    ("void g() { PyObject* o = _PyEval_GetBuiltin(0); }", "cpp:python_access:_PyEval_GetBuiltin"),
])
def test_cpp_scan_sees_through_evasions(cpp: str, expected: str) -> None:
    found = cpp_reasons(cpp)
    assert any(reason.startswith(expected) for reason in found), found


def test_raw_string_and_comment_bodies_are_not_code() -> None:
    cpp = ('const char* doc = R"x(system("id"); fork(); #include "/etc/passwd")x";\n'
           "// fork(); socket(2, 1, 0);\n/* dlopen(\"x\") */\n"
           'const char* s = "syscall(1); open(\\"/x\\")";')
    assert cpp_reasons(cpp) == []


def test_honest_cpp_and_cuda_idioms_are_not_escapes() -> None:
    cpp = """
    #include <torch/extension.h>
    #include <cuda_fp16.h>
    #include "ATen/cuda/CUDAContext.h"
    #define CHECK(x) TORCH_CHECK(x.is_contiguous(), #x " must be contiguous")
    __global__ void k(const float* x, float* y, int n) {
        unsigned lane; asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
        float signal = 1'000.f;  // a variable named like a libc function
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) y[i] = x[i] > 0.f ? fminf(x[i], signal) : 0.f;
        if (signal > 0.f) y[0] = signal;
    }
    torch::Tensor relu(torch::Tensor x) {
        CHECK(x);
        auto y = torch::empty_like(x);
        auto copy = x.clone();
        k<<<1, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), x.numel());
        return y;
    }
    PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("relu", &relu, "relu"); }
    """
    assert cpp_reasons(cpp) == []


ESCAPES = [
    ("_w = torch.load('weights.pt')", "static:foreign_code:torch.load"),
    ("_m = torch.hub.load('owner/repo', 'model')", "static:foreign_code:torch.hub.load"),
    ("import pickle\n_o = pickle.loads(b'')", "static:forbidden_module:pickle"),
    ("import importlib\n_os = importlib.import_module('os')", "static:forbidden_module:importlib"),
    ("_b = torch.from_file('/etc/shadow', size=5)", "static:file_access:torch.from_file"),
    ("_b = torch.frombuffer(b'abcd', dtype=torch.uint8)", "static:forbidden_call:torch.frombuffer"),
    ("_s = torch.UntypedStorage.from_file('/x', False, 5)", "static:file_access"),
    ("_s = torch.empty(1).untyped_storage().from_file('/x', False, 5)", "static:file_access"),
    ("torch.save(torch.zeros(1), '/tmp/x')", "static:file_access:torch.save"),
    ("_o = torch.serialization.pickle.loads(b'')", "static:foreign_code:torch.serialization"),
    ("torch.ops.load_library('/tmp/x.so')", "static:foreign_code"),
    ("torch.utils.cpp_extension.load(name='x', sources=['x.cpp'])", "static:foreign_code"),
    ("from torch.utils.cpp_extension import subprocess as _sp", "static:forbidden_module:subprocess"),
    ("torch.os.system('id')", "static:forbidden_module:os"),
    ("import typing\n_mods = typing.sys.modules", "static:forbidden_module:sys"),
    ("_run = eval", "static:forbidden_call:eval"),
    ("_get = getattr", "static:dynamic_attribute"),
    ("import operator\n_f = operator.attrgetter('relu')", "static:dynamic_attribute"),
    ("import os\nos.environ['LD_PRELOAD'] = '/tmp/x.so'", "static:forbidden_call:os.environ[LD_PRELOAD]"),
    ("import os\nos.environ.update(CXX='/tmp/cc')", "static:forbidden_call:os.environ.update"),
]


def placed(code: str, where: str) -> str:
    """A candidate with ``code`` at module level, in ``__init__`` or in a helper."""
    body = textwrap.indent(code, " " * 8)
    init = body if where == "init" else ""
    helper = "def helper():\n" + textwrap.indent(code, "    ") + "\n" if where == "helper" else ""
    module = code + "\n" if where == "module" else ""
    return ("import torch\nimport torch.nn as nn\nfrom torch.utils.cpp_extension import load_inline\n"
            'ext = load_inline(name="k", cpp_sources=["torch::Tensor k(torch::Tensor x);"], '
            'functions=["k"])\n' + module + helper
            + "class ModelNew(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
            + init + "\n    def forward(self, x):\n        return ext.k(x)\n")


@pytest.mark.parametrize("where", ["module", "init", "helper"])
@pytest.mark.parametrize(("code", "expected"), ESCAPES)
def test_python_escape_hatches_anywhere_in_the_module(code: str, expected: str, where: str) -> None:
    report = run_static_checks(placed(code, where), "cpu", "mixed")
    assert not report.passed
    assert any(reason.startswith(expected) for reason in report.reasons), report.reasons


def test_literal_forbidden_flags_are_rejected_statically() -> None:
    source = placed("", "module").replace(
        'functions=["k"])', 'functions=["k"], extra_cflags=["-O3", "-fplugin=/tmp/p.so"], '
        'extra_ldflags=["-Wl,-T,/tmp/s.ld"], extra_include_paths=["/root"])')
    reasons = run_static_checks(source, "cpu", "mixed").reasons
    assert [r.split(" (line")[0] for r in reasons] == [
        "build:forbidden_flag:-fplugin=/tmp/p.so", "build:forbidden_flag:-Wl,-T,/tmp/s.ld",
        "build:forbidden_include_path:/root"]


def _backend(source: str) -> str:
    return "cuda" if "cuda_sources" in source else "cpu"


@pytest.mark.parametrize("path", REFERENCES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_reference_solution_passes_the_static_screen(path: Path) -> None:
    source = path.read_text()
    policy = "strict" if path.parent.name == "level1" else "mixed"
    report = run_static_checks(source, _backend(source), policy)
    assert report.passed, report.reasons


@pytest.mark.parametrize("source", [
    *[load(path) for path in sorted(HONEST.glob("*.py"))],
    _examples.CPU_CANDIDATE, _examples.CUDA_CANDIDATE, shared_candidate("relu_ok"),
], ids=lambda s: "candidate")
def test_every_honest_candidate_passes_the_static_screen(source: str) -> None:
    report = run_static_checks(source, _backend(source), "mixed")
    assert report.passed, report.reasons


def test_reference_cpp_has_no_escape_findings() -> None:
    """The C++ of every reference solution, strict-only findings aside, is clean."""
    found = {}
    for path in REFERENCES:
        for text, _line in cpp_sources(ast.parse(path.read_text())):
            reasons = cpp_reasons(text)
            if reasons:
                found[path.name] = reasons
    assert found == {}


def test_source_scans_off_leaves_out_only_the_escape_findings() -> None:
    """The sandbox tests turn the escape-hatch scans off; the anti-cheat rules stay."""
    escaping = placed("import subprocess\nsubprocess.run(['true'])", "module")
    assert not run_static_checks(escaping, "cpu", "strict").passed
    assert run_static_checks(escaping, "cpu", "strict", source_scans=False).passed
    fallback = placed("try:\n    x = 1\nexcept Exception:\n    x = 2", "helper")
    assert not run_static_checks(fallback, "cpu", "strict").passed
    report = run_static_checks(fallback, "cpu", "strict", source_scans=False)
    assert any("try_except_fallback" in reason for reason in report.reasons), report.reasons
