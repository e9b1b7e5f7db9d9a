"""The link policy on unoptimised code (``load_inline``'s default: stock adds no ``-O``).

At ``-O0`` clang emits into the candidate's unit every header function and template
instance the precompiled ``torch/extension.h`` marked used — pybind11's among them, which
import the CPython API — though nothing in the candidate calls them; reading every
undefined symbol rejected every unoptimised candidate. Only imports that code able to run
refers to count (``builds/_reach.py``): shown here on units compiled as the fast path
compiles them, with cheats that run code without any call (an inline variable's
initialiser, a constructor, a table of pointers) still rejected.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

import kerneltrials
from kerneltrials.verifier import QUICK_TIMING, Status
from kerneltrials.verifier.builds._fast import (
    SECTION_FLAGS,
    _compile_command,
    ensure_pch,
    export_stubs,
    fast_inputs,
    find_fast_cxx,
    write_sources,
)
from kerneltrials.verifier.builds._symbols import find_nm, object_symbols, symbol_policy_findings
from kerneltrials.verifier.protocol import BuildRequest
from tests.verifier._build_fixtures import RELU_SOURCE
from tests.verifier.candidates import candidate

pytestmark = [pytest.mark.skipif(find_fast_cxx() is None, reason="no clang++ >= 15"),
              pytest.mark.slow, pytest.mark.timeout(600)]

RUN = 'PyRun_SimpleString("import os")'
CHEATS = {
    "an inline function it calls": (f"inline void leak() {{ {RUN}; }}\n", "leak();"),
    "an inline variable's initialiser": (f"inline int leaked = {RUN};\n", ""),
    "a constructor": (f"__attribute__((constructor)) static void leak() {{ {RUN}; }}\n", ""),
    "a table of pointers": ("static int (*table[])(const char*) = {PyRun_SimpleString};\n",
                            'table[0]("import os");'),
}


def _with(prelude: str, call: str) -> str:
    return prelude + RELU_SOURCE.replace("    return out;", f"    {call}\n    return out;")


def _unit(source: str, out_dir: Path) -> Path:
    """The candidate's object as the fast path compiles it, without optimisation."""
    from kerneltrials.verifier.builds._compiler import toolchain_store

    request = BuildRequest.from_load_inline("cpu", "unoptimised", [source],
                                            functions=["relu_forward"])
    inputs = fast_inputs(request)
    assert inputs.signatures and not any(f.startswith("-O") for f in inputs.cflags)
    pch = ensure_pch(inputs.cxx, inputs.cflags, toolchain_store())
    out_dir.mkdir()
    write_sources(request, out_dir, export_stubs([("relu_forward", "")], inputs.signatures))
    subprocess.run(_compile_command(inputs.cxx, inputs.cflags, pch, "main.cpp", SECTION_FLAGS),
                   cwd=out_dir, check=True, capture_output=True, text=True)
    return out_dir / "main.cpp.o"


def test_an_unoptimised_honest_unit_imports_only_what_its_code_runs(tmp_path: Path) -> None:
    unit = _unit(RELU_SOURCE, tmp_path / "honest")
    every = subprocess.run([find_nm(), "-u", str(unit)], capture_output=True, text=True,
                           check=True).stdout
    assert "PyErr_Fetch" in every  # what the unit holds: pybind11's code, never called
    found = object_symbols([unit])
    assert not [name for name in found.imports if name.startswith("Py")], found.imports
    rejected, noted = symbol_policy_findings(found.imports, "strict", "cpu", found.definitions)
    assert rejected == [] and noted == [], (rejected, noted)


@pytest.mark.parametrize("how", sorted(CHEATS))
def test_code_that_runs_without_being_called_still_counts(tmp_path: Path, how: str) -> None:
    prelude, call = CHEATS[how]
    unit = _unit(_with(prelude, call), tmp_path / "cheat")
    found = object_symbols([unit])
    rejected, _ = symbol_policy_findings(found.imports, "mixed", "cpu", found.definitions)
    # (called, PyRun_SimpleString is a macro for PyRun_SimpleStringFlags)
    assert any(r.startswith("link:forbidden_symbol:PyRun_SimpleString") for r in rejected), \
        (how, found.imports)


def test_an_unoptimised_honest_candidate_is_correct() -> None:
    source = candidate("relu_ok", salt="unoptimised").replace(
        'extra_cflags=["-O2", "-fopenmp"]', 'extra_cflags=["-fopenmp"]')
    assert '"-O2"' not in source
    verdict = kerneltrials.check("L1/relu", source, timing=QUICK_TIMING, compile_baseline=False)
    assert verdict.status == Status.CORRECT, verdict.reasons
