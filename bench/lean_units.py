"""What a new candidate's build costs with and without the unit's dead-code step.

Every candidate unit includes torch/extension.h, and with it ~2,600 inline pybind11
functions that only a static array of pointers refers to; clang's optimiser works on all
of them before its late dead-code pass drops them. The fast build now stops clang after
its front end, has LLVM's ``opt`` delete what nothing references, and lets clang optimise
and emit the rest (``unit_commands``, docs/design/builds.md). This script builds
reference solutions of this repository as new candidates (a fresh comment each time, so
every build compiles the candidate's unit; the PCH and binding object are warm in a
private toolchain store, built by a warm-up that is reported, not compared), both ways
alternated in one run:

  one-command   ``KERNELTRIALS_LLVM_OPT=none``: clang compiles the unit in one command;
  dead-code     as the pipeline does now (LLVM's opt beside clang).

Printed per build: wall time and the compilers' CPU time (children's user+sys). Nothing
is asserted.

    .venv/bin/python bench/lean_units.py [--tasks level1/relu level1/softmax ...] [--rounds 2]
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import functools
import os
import secrets
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.binding_reuse import children_cpu_s  # noqa: E402
from kerneltrials.verifier.builds._compiler import build_extension  # noqa: E402
from kerneltrials.verifier.protocol import BuildRequest  # noqa: E402

REFERENCES = ROOT / "kerneltrials" / "tasks" / "reference"
DEFAULT_TASKS = ["level1/relu", "level1/softmax", "level1/matmul_square", "level2/conv2d_bn_relu"]
MODES = {"one-command": "none", "dead-code": ""}


@functools.cache
def reference_request(task: str) -> BuildRequest:
    """The reference solution's ``load_inline`` call, read from its file (never run)."""
    tree = ast.parse((REFERENCES / f"{task}.py").read_text())
    values: dict[str, object] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    values[target.id] = node.value.value
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "load_inline":
            call = {k.arg: k.value for k in node.keywords if k.arg}
    sources = [values[n.id] for n in call["cpp_sources"].elts]  # type: ignore[attr-defined]
    return BuildRequest.from_load_inline(
        "cpu", "lean_units", [str(s) for s in sources],
        functions=ast.literal_eval(call["functions"]),
        extra_cflags=ast.literal_eval(call["extra_cflags"]) if "extra_cflags" in call else None,
        extra_ldflags=ast.literal_eval(call["extra_ldflags"]) if "extra_ldflags" in call else None)


def build(task: str, mode: str) -> tuple[float, float]:
    os.environ["KERNELTRIALS_LLVM_OPT"] = MODES[mode]
    request = reference_request(task)
    first, *rest = request.cpp_sources
    request = dataclasses.replace(
        request, cpp_sources=(first + f"\n// {secrets.token_hex(8)}\n", *rest))
    cpu, started = children_cpu_s(), time.perf_counter()
    artifact = build_extension(request)
    wall = time.perf_counter() - started
    if artifact.details.get("path") != "fast":
        raise SystemExit(f"{task} ({mode}) did not build on the fast path: {artifact.details}")
    return wall, children_cpu_s() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", nargs="+", default=DEFAULT_TASKS,
                        help="reference solutions, as level/name (default: %(default)s)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of both modes (default 2)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kt-lean-units-") as scratch:
        os.environ["KERNELTRIALS_CACHE"] = str(Path(scratch) / "cache")
        os.environ["KERNELTRIALS_PCH_CACHE"] = str(Path(scratch) / "toolchain")
        for task in args.tasks:
            for mode in MODES:  # the PCH and binding object, and each key's first build
                wall, cpu = build(task, mode)
                print(f"warm-up {task:28s} {mode:11s} {wall:6.1f} s wall {cpu:6.1f} s CPU",
                      flush=True)
        totals = {mode: [0.0, 0.0] for mode in MODES}
        for index in range(args.rounds):
            for task in args.tasks:
                for mode in MODES if index % 2 == 0 else reversed(MODES):
                    wall, cpu = build(task, mode)
                    totals[mode][0] += wall
                    totals[mode][1] += cpu
                    print(f"round {index + 1} {task:28s} {mode:11s} {wall:6.1f} s wall "
                          f"{cpu:6.1f} s CPU", flush=True)
    builds = args.rounds * len(args.tasks)
    (one_wall, one_cpu), (lean_wall, lean_cpu) = totals["one-command"], totals["dead-code"]
    print(f"per build, mean of {builds}: one command {one_wall / builds:.2f} s wall / "
          f"{one_cpu / builds:.2f} s CPU, dead-code step {lean_wall / builds:.2f} s / "
          f"{lean_cpu / builds:.2f} s ({one_wall / lean_wall:.2f}x / {one_cpu / lean_cpu:.2f}x)")


if __name__ == "__main__":
    main()
