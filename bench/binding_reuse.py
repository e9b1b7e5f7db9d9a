"""Does a new candidate for a task reuse the binding object of an earlier one?

Candidates for one task that a model writes in different answers name their functions and
parameters differently (``relu_forward(torch::Tensor x)``, ``relu_cpu(torch::Tensor
input)``) but have the same types. The fast build compiles the pybind11 binding unit
apart from the candidate's code and keeps it in the toolchain store under a key of its
text; this script shows what that costs per new candidate.

In a private library cache and toolchain store, a warm-up build (another signature)
builds the PCH; then ``--candidates`` variants of one ReLU kernel, each with its own
function and parameter names and a fresh source, are built one after another. Printed per
build: wall time, the compilers' CPU time (children's user+sys), and whether the store
gained a binding object. Nothing is asserted.

    .venv/bin/python bench/binding_reuse.py [--candidates 4]
"""

from __future__ import annotations

import argparse
import os
import resource
import secrets
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kerneltrials.verifier.builds._compiler import build_extension  # noqa: E402
from kerneltrials.verifier.protocol import BuildRequest  # noqa: E402

KERNEL = """
torch::Tensor {name}(torch::Tensor {arg}) {{
    auto values = {arg}.contiguous();
    auto out = torch::empty_like(values);
    const float* src = values.data_ptr<float>();
    float* dst = out.data_ptr<float>();
    for (int64_t i = 0; i < values.numel(); ++i) dst[i] = src[i] > 0.f ? src[i] : 0.f;
    return out;
}}
// {token}
"""
NAMES = [("relu_forward", "x"), ("relu_cpu", "input"), ("my_relu", "t"), ("activation", "data"),
         ("relu_kernel", "tensor"), ("fast_relu", "inp")]
WARM_UP = "torch::Tensor scale(torch::Tensor x, double s) { return x; }\n// {token}\n"


def children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def bindings(store: Path) -> int:
    return len(list(store.glob("bind-*")))


def build_once(source: str, function: str) -> tuple[float, float]:
    """Wall and compiler CPU seconds of one build (the stores are read from the
    environment at each build, so ``main`` can point them at its scratch directory)."""
    request = BuildRequest.from_load_inline("cpu", "bench", [source], functions=[function])
    started, cpu = time.perf_counter(), children_cpu_s()
    artifact = build_extension(request)
    if artifact.details.get("path") != "fast":
        raise SystemExit(f"{function}: not built on the fast path: {artifact.details}")
    return time.perf_counter() - started, children_cpu_s() - cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--candidates", type=int, default=4, choices=range(1, len(NAMES) + 1),
                        metavar=f"1..{len(NAMES)}", help="renamed candidates to build (default 4)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="binding-reuse-") as scratch:
        os.environ["KERNELTRIALS_CACHE"] = str(Path(scratch) / "cache")
        store = Path(scratch) / "toolchain"
        os.environ["KERNELTRIALS_PCH_CACHE"] = str(store)
        wall, cpu = build_once(WARM_UP.replace("{token}", secrets.token_hex(8)), "scale")
        print(f"warm-up (PCH + its own binding): {wall:.1f} s wall, {cpu:.1f} s CPU", flush=True)
        print(f"{'candidate':<40} {'wall s':>7} {'CPU s':>7}  binding")
        total_wall = total_cpu = 0.0
        for name, arg in NAMES[: args.candidates]:
            before = bindings(store)
            source = KERNEL.format(name=name, arg=arg, token=secrets.token_hex(8))
            wall, cpu = build_once(source, name)
            total_wall, total_cpu = total_wall + wall, total_cpu + cpu
            built = "built" if bindings(store) > before else "reused"
            print(f"{name + '(torch::Tensor ' + arg + ')':<40} {wall:7.1f} {cpu:7.1f}  {built}", flush=True)
        print(f"total over {args.candidates} candidates: {total_wall:.1f} s wall, {total_cpu:.1f} s CPU; "
              f"binding objects in the store: {bindings(store)} (the warm-up's included)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
