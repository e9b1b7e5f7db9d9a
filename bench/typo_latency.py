"""How long a C++ typo in a fresh source takes to come back as ``compile_error``.

    .venv/bin/python bench/typo_latency.py

In a private cache (its own toolchain store, so every one-time cost shows), one run:

1. a ``check`` of an honest ReLU candidate: builds clang's PCH for the flag set (reported);
2. a ``check`` of the candidate with a typo: clang rejects it, stock's full build confirms,
   and g++'s PCH for the flag set is built beside it (the first rejection's cost);
3. ``check`` of three more fresh typos: g++ against that PCH confirms (what every later
   typo costs: the figure the goal, under 15 s, is about);
4. side by side, in this process, on one more fresh typo: the old confirmation (stock's
   full build) against the new one (``g++ -fsyntax-only`` against the PCH), and their ratio.

Prints each figure; asserts nothing.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CANDIDATE = '''
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

SOURCE = """
torch::Tensor relu_fwd(torch::Tensor x) {
    auto in = x.contiguous();
    auto out = torch::empty_like(in);
    const float* s = in.data_ptr<float>();
    float* d = out.data_ptr<float>();
    for (int64_t i = 0; i < in.numel(); ++i) d[i] = s[i] > 0.f ? s[i] : 0.f;
    return out;
}
// SALT
"""
ext = load_inline(name="typo_bench", cpp_sources=SOURCE, functions=["relu_fwd"])


class ModelNew(nn.Module):
    def forward(self, x):
        return ext.relu_fwd(x)
'''


def _candidate(typo: bool) -> str:
    text = CANDIDATE.replace("SALT", uuid.uuid4().hex)
    return text.replace("d[i] = s[i] > 0.f ? s[i] : 0.f;", "d[i] = s[i] > 0.f ? s[i] : 0.f") if typo else text


def _check(source: str) -> tuple[float, str, dict[str, float]]:
    import kerneltrials
    from kerneltrials.verifier import QUICK_TIMING

    started = time.perf_counter()
    verdict = kerneltrials.check("L1/relu", source, backend="cpu", timing=QUICK_TIMING,
                                 compile_baseline=False)
    return time.perf_counter() - started, verdict.status.value, dict(verdict.durations_s)


def _side_by_side() -> tuple[float, float, float]:
    from kerneltrials.verifier.builds._compile_job import build_stock, write_stock_main
    from kerneltrials.verifier.builds._compiler import toolchain_store
    from kerneltrials.verifier.builds._fast import BINDING_NAME
    from kerneltrials.verifier.builds._gcc_confirm import (
        _syntax_command,
        gcc_pch_key,
        stock_rejects,
    )
    from kerneltrials.verifier.builds._stock_flags import stock_flags
    from kerneltrials.verifier.protocol import BuildRequest, CompileError

    body = f"torch::Tensor relu_fwd(torch::Tensor x) {{ return x.clamp_min(0) }} // {uuid.uuid4()}"
    request = BuildRequest.from_load_inline("cpu", "typo_bench", [body], functions=["relu_fwd"])
    flags = stock_flags(request, BINDING_NAME)
    entry = toolchain_store().lookup(gcc_pch_key(flags))
    if entry is None:
        raise SystemExit("no g++ PCH was built for the flag set: step 2 did not reject")
    with tempfile.TemporaryDirectory() as scratch:
        started = time.perf_counter()
        try:
            build_stock(request, "kt_typo_bench", Path(scratch))
        except CompileError:
            pass
        stock_s = time.perf_counter() - started
        confirm = Path(scratch) / "confirm"
        confirm.mkdir()
        started = time.perf_counter()
        main = write_stock_main(request, "kt_typo_bench", confirm)
        assert stock_rejects(flags, entry, main) is not None
        confirm_s = time.perf_counter() - started
        # The same check before it stopped at the first error (g++ then instantiates the
        # templates torch's header left pending).
        started = time.perf_counter()
        whole = subprocess.run(_syntax_command(flags, entry, main.name), cwd=confirm,
                               capture_output=True, text=True)
        assert whole.returncode != 0
        return stock_s, confirm_s, time.perf_counter() - started


def main() -> None:
    private = tempfile.mkdtemp(prefix="kt-typo-bench-")
    os.environ["KERNELTRIALS_CACHE"] = private
    os.environ["KERNELTRIALS_PCH_CACHE"] = str(Path(private) / "toolchain")
    wall, status, phases = _check(_candidate(typo=False))
    print(f"honest candidate, first build of the flag set: {wall:5.1f} s ({status}; "
          f"build {phases.get('build', 0):.1f} s)")
    wall, status, phases = _check(_candidate(typo=True))
    print(f"first typo (stock confirms; g++'s PCH built beside it): {wall:5.1f} s ({status})")
    fresh = []
    for _ in range(3):
        wall, status, phases = _check(_candidate(typo=True))
        fresh.append(wall)
        print(f"fresh typo (g++ against the PCH confirms): {wall:5.1f} s ({status}; "
              f"build {phases.get('build', 0):.1f} s)")
    print(f"fresh typo, median of 3: {statistics.median(fresh):.1f} s (goal: under 15 s)")
    stock_s, confirm_s, whole_s = _side_by_side()
    print(f"confirmation alone, same typo: stock's full build {stock_s:.1f} s, g++ -fsyntax-only "
          f"against the PCH {confirm_s:.1f} s: {stock_s / confirm_s:.1f}x faster")
    print(f"  g++ stopped at its first error {confirm_s:.1f} s, g++ through the whole unit "
          f"{whole_s:.1f} s: {whole_s / confirm_s:.1f}x")


if __name__ == "__main__":
    main()
