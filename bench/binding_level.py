"""What the binding unit costs to compile at -O2 and at -O1, and what a call through it costs.

The binding unit (pybind11's ``m.def`` over the candidate's exported pointers) compiles
beside the candidate's unit, and for a new signature it is the longer of the two: the
build's critical path. It is harness code, compiled with its PCH's flags, in which every
optimising level is written ``-O2``; the fast build now writes that ``-O1``
(``binding_cflags``, docs/design/builds.md). This script compiles one binding unit (a
three-parameter signature, ``-O3 -fopenmp`` as the reference solutions pass) against the
suite's PCH at both levels, alternated, then links a library with each and times calls
of a function that returns its input through each one, alternated.

Printed: compile wall and CPU seconds per level, and the median microseconds per call.
Nothing is asserted. Needs clang (the fast path); builds the PCH first if the store has
none for these flags.

    .venv/bin/python bench/binding_level.py [--rounds 3] [--calls 100000]
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import importlib.util
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kerneltrials.verifier.builds import _fast  # noqa: E402
from kerneltrials.verifier.builds._compiler import (  # noqa: E402
    build_extension,
    plan_compile,
    toolchain_store,
)
from kerneltrials.verifier.protocol import BuildRequest  # noqa: E402

SOURCE = "torch::Tensor same(torch::Tensor x, double alpha, int64_t k) { return x; }\n"
FLAGS = ["-O3", "-fopenmp"]
LEVELS = ("-O2", "-O1")


def request(tag: str) -> BuildRequest:
    return BuildRequest.from_load_inline("cpu", "kt_binding_level", [SOURCE + f"// {tag}\n"],
                                         functions=["same"], extra_cflags=FLAGS)


def level_flags(cflags: list[str], level: str) -> list[str]:
    return [level if flag == "-O1" else flag for flag in _fast.binding_cflags(cflags)]


def compile_binding(level: str, pch: Path, work: Path) -> tuple[float, float]:
    """(wall s, compiler CPU s) of the binding unit at ``level``."""
    inputs = _fast.fast_inputs(request("compile"))
    assert inputs.binding is not None
    (work / "binding.cpp").write_text(inputs.binding)
    command = [inputs.cxx, *level_flags(inputs.cflags, level), "-include-pch", str(pch),
               "-c", "binding.cpp", "-o", f"binding{level}.o"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, cwd=work, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (time.perf_counter() - started,
            after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)


def library_at(level: str, work: Path) -> ModuleType:
    """A library whose binding object is compiled at ``level``, loaded."""
    def build_binding(cxx: str, cflags: list[str], pch: Path | None, source: str,
                      out_dir: Path) -> Path:
        (out_dir / "binding.cpp").write_text(source)
        include = ["-include-pch", str(pch)] if pch else []
        subprocess.run([cxx, *level_flags(cflags, level), *include, "-c", "binding.cpp",
                        "-o", _fast.BINDING_OBJECT], cwd=out_dir, check=True)
        return out_dir / _fast.BINDING_OBJECT

    built = request(f"call {level}")
    with contextlib.ExitStack() as locks:
        plan = plan_compile(built, "bench", toolchain_store(), locks)
    assert plan.fast is not None, plan.details
    saved, _fast.build_binding = _fast.build_binding, build_binding  # type: ignore[assignment]
    try:
        out = work / f"lib{level}"
        out.mkdir()
        name = f"kt_binding_level_{level.strip('-')}"
        library = _fast.build_fast(built, name, out, dataclasses.replace(plan.fast,
                                                                         binding_path=None))
    finally:
        _fast.build_binding = saved  # type: ignore[assignment]
    spec = importlib.util.spec_from_file_location(name, library)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--calls", type=int, default=100_000)
    args = parser.parse_args()
    import torch

    build_extension(request("pch"))  # the PCH for these flags, if the store has none
    pch_key = _fast.fast_inputs(request("pch")).plan_keys()[0]
    entry = toolchain_store().lookup(pch_key)
    assert entry is not None, "no PCH in the store for these flags"
    work = Path(tempfile.mkdtemp(prefix="kt-binding-level-"))
    try:
        times: dict[str, list[tuple[float, float]]] = {level: [] for level in LEVELS}
        for _ in range(args.rounds):
            for level in LEVELS:
                times[level].append(compile_binding(level, entry / _fast.PCH_FILE, work))
        for level in LEVELS:
            walls, cpus = zip(*times[level], strict=True)
            print(f"binding unit {level}: wall {statistics.mean(walls):.2f} s, "
                  f"CPU {statistics.mean(cpus):.2f} s (mean of {args.rounds})")
        libraries = {level: library_at(level, work) for level in LEVELS}
        x = torch.zeros(4)
        per_call: dict[str, list[float]] = {level: [] for level in LEVELS}
        for _ in range(2 * args.rounds + 1):
            for level, library in libraries.items():
                function = library.same
                started = time.perf_counter()
                for _ in range(args.calls):
                    function(x, 1.0, 3)
                per_call[level].append((time.perf_counter() - started) / args.calls * 1e6)
        for level in LEVELS:
            print(f"call through the {level} binding: {statistics.median(per_call[level]):.3f} "
                  f"us (median of {len(per_call[level])} x {args.calls})")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
