"""What a new optimisation level costs a candidate's build: -O2, then the same kernel at -O3.

An agent refining a kernel moves between ``-O2`` and ``-O3`` (and back) from one answer
to the next. clang reads torch's header into the same AST at ``-O1``/``-O2``/``-O3``, so
the fast build keys its PCH and binding object by the flags with those levels written
``-O2`` (``pch_cflags``, docs/design/builds.md). This script builds, in a private library
cache and toolchain store, a ReLU candidate at ``-O2`` (its PCH and binding object are
built: reported, not compared) and then the same kernel with a fresh source at ``-O3``,
both ways in one run:

  exact    the PCH and binding keyed by the exact flags (as before): the -O3 build
           compiles its own PCH and binding object;
  shared   as the pipeline does now: the -O3 build compiles only the candidate's unit.

Printed per build: wall time and the compilers' CPU time (children's user+sys), and the
toolchain entries the store holds after it. Nothing is asserted.

    .venv/bin/python bench/level_switch.py [--rounds 1]
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.binding_reuse import KERNEL, children_cpu_s  # noqa: E402 - the same ReLU kernel
from kerneltrials.verifier.builds import _fast  # noqa: E402
from kerneltrials.verifier.builds._compiler import build_extension  # noqa: E402
from kerneltrials.verifier.protocol import BuildRequest  # noqa: E402


def build(level: str) -> tuple[float, float, str]:
    request = BuildRequest.from_load_inline(
        "cpu", "relu_ext", [KERNEL.format(name="relu_forward", arg="x", token=secrets.token_hex(8))],
        functions=["relu_forward"], extra_cflags=[level])
    cpu, started = children_cpu_s(), time.perf_counter()
    artifact = build_extension(request)
    return time.perf_counter() - started, children_cpu_s() - cpu, artifact.details.get("path", "?")


def entries(toolchain: Path) -> str:
    names = [p.name.split("-")[0] for p in toolchain.glob("*-*") if p.is_dir()]
    return f"{names.count('pch')} PCH, {names.count('bind')} binding"


def one_round(mode: str) -> tuple[float, float]:
    exact = _fast.pch_cflags
    if mode == "exact":
        _fast.pch_cflags = list  # type: ignore[assignment]  # the old keys: flags as given
    try:
        with tempfile.TemporaryDirectory(prefix="kt-level-switch-") as scratch:
            os.environ["KERNELTRIALS_CACHE"] = str(Path(scratch) / "cache")
            toolchain = Path(scratch) / "toolchain"
            os.environ["KERNELTRIALS_PCH_CACHE"] = str(toolchain)
            wall, cpu, path = build("-O2")
            print(f"  {mode:6s} -O2 first  {wall:6.1f} s wall {cpu:6.1f} s CPU  ({path}; "
                  f"{entries(toolchain)} built)", flush=True)
            wall, cpu, path = build("-O3")
            print(f"  {mode:6s} -O3 next   {wall:6.1f} s wall {cpu:6.1f} s CPU  ({path}; store "
                  f"now {entries(toolchain)})", flush=True)
            return wall, cpu
    finally:
        _fast.pch_cflags = exact  # type: ignore[assignment]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1, help="rounds of both modes (default 1)")
    args = parser.parse_args()
    results: dict[str, list[tuple[float, float]]] = {"exact": [], "shared": []}
    for index in range(args.rounds):
        print(f"round {index + 1}/{args.rounds}", flush=True)
        for mode in ("exact", "shared") if index % 2 == 0 else ("shared", "exact"):
            results[mode].append(one_round(mode))
    exact = [sum(x) / len(x) for x in zip(*results["exact"], strict=True)]
    shared = [sum(x) / len(x) for x in zip(*results["shared"], strict=True)]
    print(f"the -O3 build after an -O2 one: exact keys {exact[0]:.1f} s wall / {exact[1]:.1f} s "
          f"CPU, shared {shared[0]:.1f} s / {shared[1]:.1f} s "
          f"({exact[0] / shared[0]:.1f}x / {exact[1] / shared[1]:.1f}x)")


if __name__ == "__main__":
    main()
