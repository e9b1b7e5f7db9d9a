"""Compiler logs read for the candidate's author (builds/_compile_log.py): each error at
the line of the candidate's file, the build system's noise left out."""

from __future__ import annotations

from kerneltrials.verifier.builds._compile_log import (
    MAX_ERRORS,
    candidate_line,
    compiler_errors,
    readable_compile_error,
)

SOURCE = '''import torch
cpp_source = r"""
torch::Tensor relu(torch::Tensor x) {
    auto y = x.clamp_min(0)
    return y;
}
"""
cuda_source = r"""
__global__ void k(float* p) {
    int i = blockIdxx.x * blockDim.x + threadIdx.x;
}
"""
'''

GCC_LOG = """[1/3] c++ -MMD -MF main.o.d -DTORCH_EXTENSION_NAME=kt_x -O3 -c /tmp/kt-b/main.cpp -o main.o
FAILED: main.o
/tmp/kt-b/main.cpp: In function 'at::Tensor relu(at::Tensor)':
/tmp/kt-b/main.cpp:6:5: error: expected ',' or ';' before 'return'
    6 |     return y;
      |     ^~~~~~
ninja: build stopped: subcommand failed.
"""

NVCC_LOG = """[2/3] /usr/local/cuda/bin/nvcc -c /tmp/kt-b/cuda.cu -o cuda.cuda.o
/tmp/kt-b/cuda.cu(12): error: identifier "blockIdxx" is undefined
      int i = blockIdxx.x * blockDim.x + threadIdx.x;
              ^

1 error detected in the compilation of "/tmp/kt-b/cuda.cu".
"""


def test_gcc_and_nvcc_errors_are_parsed_with_their_quoted_code() -> None:
    (gcc,) = compiler_errors(GCC_LOG)
    assert (gcc.file, gcc.line, gcc.column) == ("main.cpp", 6, 5)
    assert gcc.message.startswith("expected ',' or ';'") and gcc.code == "return y;"
    (nvcc,) = compiler_errors(NVCC_LOG)
    assert (nvcc.file, nvcc.line, nvcc.column) == ("cuda.cu", 12, None)
    assert nvcc.code == "int i = blockIdxx.x * blockDim.x + threadIdx.x;"


def test_errors_are_told_at_the_candidates_lines_without_command_lines() -> None:
    text = readable_compile_error(GCC_LOG + NVCC_LOG, SOURCE, "candidate.py")
    assert text is not None
    assert "candidate.py line 5 (main.cpp:6:5): error: expected" in text
    assert 'candidate.py line 10 (cuda.cu:12): error: identifier "blockIdxx"' in text
    assert "-MMD" not in text and "ninja" not in text and "nvcc -c" not in text


def test_code_not_found_keeps_the_compilers_place_and_many_errors_are_counted() -> None:
    assert candidate_line("int nowhere = 0;", SOURCE) is None
    assert candidate_line(None, SOURCE) is None
    one_line = 'import torch\nCPP = "int f() {\\n  return g() }\\n"\n'
    assert candidate_line("return g() }", one_line) == 2  # inside a one-line literal
    log = "\n".join(f"/t/main.cpp:{n}:1: error: e{n}\n  {n} | nowhere{n}();" for n in range(9))
    text = readable_compile_error(log, SOURCE)
    assert text is not None and text.startswith("main.cpp:0:1: error: e0")
    assert text.count("error:") == MAX_ERRORS and text.endswith("and 4 more error(s)")


def test_a_log_without_a_compiler_error_is_not_pinned_on_the_source() -> None:
    assert readable_compile_error("ld: cannot find -lfoo\ncollect2: error", SOURCE) is None
    assert readable_compile_error("", SOURCE) is None


# g++ stops at its first error when it confirms a clang rejection (_gcc_confirm); clang's
# further errors follow, so the author still sees every error in one round.
GCC_FIRST_ONLY = """main.cpp: In function 'at::Tensor relu(at::Tensor)':
main.cpp:3:28: error: expected ';' before 'return'
    3 |     auto y = x.clamp_min(0)
      |                            ^
compilation terminated due to -Wfatal-errors.
"""

CLANG_ALL = """main.cpp:3:28: error: expected ';' at end of declaration
    3 |     auto y = x.clamp_min(0)
      |                            ^
main.cpp:8:13: error: use of undeclared identifier 'blockIdxx'
    8 |     int i = blockIdxx.x * blockDim.x + threadIdx.x;
      |             ^
2 errors generated.
"""


def test_clangs_further_errors_follow_gccs_first_and_only_once() -> None:
    from kerneltrials.verifier.builds._gcc_confirm import further_errors

    log = GCC_FIRST_ONLY + further_errors(GCC_FIRST_ONLY, CLANG_ALL)
    errors = compiler_errors(log)
    assert [(e.line, e.message) for e in errors] == [
        (3, "expected ';' before 'return'"), (8, "use of undeclared identifier 'blockIdxx'")]
    readable = readable_compile_error(log, SOURCE)
    assert readable is not None
    assert "line 4 (main.cpp:3:28)" in readable and "line 10 (main.cpp:8:13)" in readable
    assert further_errors(GCC_FIRST_ONLY, GCC_FIRST_ONLY) == ""  # nothing new: nothing added
