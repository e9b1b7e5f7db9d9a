"""The candidate's unit loses the code nothing references before clang optimises it.

Every unit that includes torch/extension.h carries thousands of inline pybind11
functions that only a static array of pointers refers to; clang's optimiser worked on
all of them before its late dead-code pass dropped them. The fast path now stops clang
after its front end, has LLVM's ``opt`` delete what nothing references, and lets clang
optimise and emit the rest with the same flags (``unit_commands``). Shown here: which
units get the step, that a tool of another LLVM or one the job cannot run is never used,
that the key says which pipeline built a library, and that the code is the same.
"""

from __future__ import annotations

import dataclasses
import subprocess
from pathlib import Path

import pytest

from kerneltrials.verifier.builds import _fast
from kerneltrials.verifier.builds._fast import (
    SECTION_FLAGS,
    FastPathUnavailable,
    FastPlan,
    ensure_pch,
    export_stubs,
    fast_inputs,
    fast_toolchain,
    find_fast_cxx,
    write_sources,
)
from kerneltrials.verifier.builds._lean_unit import (
    DEAD_CODE_PASSES,
    find_llvm_opt,
    optimises,
    unit_commands,
)
from kerneltrials.verifier.builds._toolrun import run_tool
from kerneltrials.verifier.builds.cuda import _units
from tests.verifier._build_fixtures import a_relu_request

CXX = find_fast_cxx()
needs_clang = pytest.mark.skipif(CXX is None, reason="no clang++ >= 15: fast path off")
needs_opt = pytest.mark.skipif(CXX is None or find_llvm_opt(CXX) is None,
                               reason="no LLVM opt beside clang (apt-get install llvm-19)")


@pytest.mark.timeout(10)
@pytest.mark.parametrize(("cflags", "steps"), [
    (["-O3"], 3), (["-O2", "-fopenmp"], 3), (["-O"], 3), (["-Os"], 3), (["-O0", "-O3"], 3),
    ([], 1), (["-O0"], 1), (["-O3", "-O0"], 1), (["-fopenmp"], 1),
])
def test_only_a_unit_that_is_optimised_gets_the_dead_code_step(cflags: list[str],
                                                              steps: int) -> None:
    assert optimises(cflags) == (steps == 3)
    base = ["/x/clang++", "-fPIC", *cflags, "-include-pch", "/p/x.pch"]
    commands = unit_commands(base, "main.cpp", "/x/opt")
    assert len(commands) == steps
    assert unit_commands(base, "main.cpp", None) == [[*base, "-c", "main.cpp", "-o", "main.cpp.o"]]
    if steps == 1:
        assert commands == [[*base, "-c", "main.cpp", "-o", "main.cpp.o"]]
        return
    front, dead_code, back = commands
    assert front == [*base, "-Xclang", "-disable-llvm-passes", "-emit-llvm", "-c", "main.cpp",
                     "-o", "main.cpp.bc"]
    assert dead_code == ["/x/opt", f"-passes={DEAD_CODE_PASSES}", "main.cpp.bc", "-o",
                         "main.cpp.lean.bc"]
    # The same flags for the optimiser and code generator, never the PCH.
    assert back == ["/x/clang++", "-fPIC", *cflags, "-Wno-unused-command-line-argument", "-c",
                    "main.cpp.lean.bc", "-o", "main.cpp.o"]


@pytest.mark.timeout(30)
def test_a_cuda_host_unit_gets_the_step_as_the_cpp_unit_does(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The split CUDA build's host unit is a clang unit against the same PCH: it gets the
    same commands (recorded here up to the host unit; nothing is compiled)."""
    recorded: list[list[str]] = []

    def record(command: list[str], cwd: Path) -> str:
        recorded.append(command)
        raise subprocess.CalledProcessError(1, command)  # stop after the first command

    monkeypatch.setattr(_units, "run_tool", record)
    source = "__global__ void k(float* y) { y[0] = 1.f; }\nvoid launch(float* y) { k<<<1, 1>>>(y); }\n"
    host = ["/x/clang++", "-O3", "-include-pch", "/p/x.pch"]
    for opt, first in ((None, "-c"), ("/x/opt", "-Xclang")):
        recorded.clear()
        with pytest.raises(subprocess.CalledProcessError):
            _units.compile_split(source, host, lambda s, f: ["nvcc", s], tmp_path, [],
                                 llvm_opt=opt)
        assert recorded[0][:len(host) + 1] == [*host, first], recorded
        assert recorded[0] == unit_commands(host, _units.HOST_SOURCE, opt)[0]


def _fake_opt(path: Path, version: str) -> str:
    path.write_text(f"#!/bin/sh\necho 'Debian LLVM version {version}'\n")
    path.chmod(0o755)
    return str(path)


@needs_clang
@pytest.mark.timeout(60)
def test_an_opt_of_another_llvm_is_never_used_and_the_key_names_the_pipeline(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert CXX is not None
    major = _fast._version_line(CXX).split("clang version ")[1].split(".")[0]
    monkeypatch.setenv("KERNELTRIALS_LLVM_OPT", _fake_opt(tmp_path / "opt14", "14.0.6"))
    assert find_llvm_opt(CXX) is None  # its bitcode would not be clang's to read
    assert fast_toolchain()["llvm_opt"] == "none"
    same = _fake_opt(tmp_path / "opt-same", f"{major}.1.7")
    monkeypatch.setenv("KERNELTRIALS_LLVM_OPT", same)
    assert find_llvm_opt(CXX) == same
    assert fast_toolchain()["llvm_opt"] == f"Debian LLVM version {major}.1.7"
    monkeypatch.setenv("KERNELTRIALS_LLVM_OPT", "none")
    assert find_llvm_opt(CXX) is None and fast_toolchain()["llvm_opt"] == "none"
    monkeypatch.setenv("KERNELTRIALS_LLVM_OPT", str(tmp_path / "missing"))
    assert find_llvm_opt(CXX) is None


@needs_clang
@pytest.mark.timeout(60)
def test_a_job_that_cannot_run_the_planned_opt_builds_the_stock_way() -> None:
    request = a_relu_request("planned-opt", extra_cflags=["-O3"])
    inputs = fast_inputs(request)
    plan = FastPlan(inputs.plan_keys()[0], cxx=inputs.cxx,
                    stock_flags=dataclasses.asdict(inputs.flags),
                    torch_header=str(inputs.header), llvm_opt="/nonexistent/opt")
    with pytest.raises(FastPathUnavailable, match="cannot run here"):
        fast_inputs(request, plan)
    assert fast_inputs(request, dataclasses.replace(plan, llvm_opt=None)).llvm_opt is None


def _disassembly(obj: Path) -> str:
    """Code with its relocations, and the symbol table: what the unit contributes."""
    code = subprocess.run(["objdump", "-dr", "--no-show-raw-insn", str(obj)], check=True,
                          capture_output=True, text=True).stdout.split("\n", 3)[-1]
    symbols = subprocess.run(["nm", str(obj)], check=True, capture_output=True, text=True).stdout
    return code + "\n" + "\n".join(sorted(symbols.splitlines()))


@pytest.mark.slow
@needs_opt
@pytest.mark.timeout(600)
def test_the_dead_code_step_leaves_the_same_object_as_one_clang_command(tmp_path: Path) -> None:
    from kerneltrials.verifier.builds._compiler import toolchain_store

    request = a_relu_request("dead-code", extra_cflags=["-O3", "-fopenmp"])
    inputs = fast_inputs(request)
    assert inputs.llvm_opt is not None and inputs.signatures
    pch = ensure_pch(inputs.cxx, inputs.cflags, toolchain_store())
    assert pch is not None
    objects = {}
    for name, opt in (("one", None), ("lean", inputs.llvm_opt)):
        unit_dir = tmp_path / name
        unit_dir.mkdir()
        write_sources(request, unit_dir, export_stubs(list(request.functions), inputs.signatures))
        base = [inputs.cxx, *inputs.cflags, *SECTION_FLAGS, "-include-pch", str(pch)]
        commands = unit_commands(base, "main.cpp", opt)
        assert len(commands) == (1 if opt is None else 3)
        for command in commands:
            run_tool(command, unit_dir)
        objects[name] = unit_dir / "main.cpp.o"
    lean = tmp_path / "lean"
    # What the step deleted: most of the unit's IR (pybind11's unreferenced functions).
    assert (lean / "main.cpp.lean.bc").stat().st_size * 3 < (lean / "main.cpp.bc").stat().st_size
    assert _disassembly(objects["lean"]) == _disassembly(objects["one"])
