"""Build-time benchmark: stock ``load_inline`` vs our build, cold and warm.

    CUDA_HOME=/usr/local/cuda-13.0 .venv/bin/python bench/build.py [--only NAME ...]

For each candidate in bench/build_candidates/ (CPU and CUDA, small and large): a cold
stock build (fresh build directory, ccache disabled), a cold build of ours (fresh library
cache; the PCH for the candidate's flags already built — its one-time cost is reported
separately — and the binding objects cleared, so the binding unit is compiled too), then
a warm build of ours (a cache hit, timed in a fresh process, including loading the
library). One run, builds one after another. Prints a table and the median ratios, in
wall time and in compiler CPU time (user+sys of all child processes: what a loaded,
shared machine's wall times cannot show reliably).
Results and discussion: docs/design/builds.md.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from kerneltrials.verifier.builds._jobs import describe_build  # noqa: E402
from kerneltrials.verifier.protocol import BuildRequest  # noqa: E402
from kerneltrials.verifier.worker._load_artifact import load_artifact  # noqa: E402

SOURCES = HERE / "build_candidates"
CPU_OMP = {"extra_cflags": ["-O3", "-fopenmp"], "extra_ldflags": ["-fopenmp"]}
CANDIDATES: list[dict] = [
    {"name": "cpu_relu", "file": "relu.cpp", "functions": ["relu_forward"]},
    {"name": "cpu_relu_O3", "file": "relu.cpp", "functions": ["relu_forward"], "extra_cflags": ["-O3"]},
    {"name": "cpu_layernorm", "file": "layernorm.cpp", "functions": ["layer_norm_fwd"]},
    {"name": "cpu_softmax_omp", "file": "softmax_omp.cpp", "functions": ["softmax_rows"], **CPU_OMP},
    {"name": "cpu_gemm_conv_large", "file": "gemm_fused.cpp",
     "functions": ["linear_gelu", "conv2d_nchw"], **CPU_OMP},
    {"name": "cuda_relu", "file": "relu.cu", "functions": ["relu_cuda"],
     "decl": "torch::Tensor relu_cuda(torch::Tensor x);"},
    {"name": "cuda_softmax", "file": "softmax.cu", "functions": ["softmax_cuda"],
     "decl": "torch::Tensor softmax_cuda(torch::Tensor x);", "extra_cuda_cflags": ["-O3"]},
    {"name": "cuda_matmul_large", "file": "matmul_tiled.cu", "functions": ["matmul_bias_relu_cuda"],
     "decl": "torch::Tensor matmul_bias_relu_cuda(torch::Tensor a, torch::Tensor b, torch::Tensor bias);",
     "extra_cuda_cflags": ["-O3", "--use_fast_math"]},
    {"name": "cuda_dispatch_half", "file": "dispatch_half.cu", "functions": ["gelu_scale_cuda"],
     "decl": "torch::Tensor gelu_scale_cuda(torch::Tensor x, double alpha);"},
    {"name": "cuda_rowsum_accessor", "file": "rowsum_accessor.cu", "functions": ["rowsum_cuda"],
     "decl": "torch::Tensor rowsum_cuda(torch::Tensor x);", "extra_cuda_cflags": ["-O3"]},
]


def load_inline_kwargs(spec: dict) -> dict:
    """The ``load_inline`` arguments a candidate would pass (fresh lists: stock
    ``load_inline`` appends torch's libraries to the ``extra_ldflags`` list it is given)."""
    source = (SOURCES / spec["file"]).read_text()
    cuda = spec["file"].endswith(".cu")
    spec = {key: list(value) if isinstance(value, list) else value for key, value in spec.items()}
    return {
        "name": spec["name"], "cpp_sources": [spec["decl"]] if cuda else [source],
        "cuda_sources": [source] if cuda else None, "functions": spec["functions"],
        "extra_cflags": spec.get("extra_cflags"), "extra_cuda_cflags": spec.get("extra_cuda_cflags"),
        "extra_ldflags": spec.get("extra_ldflags"),
    }


def request_for(spec: dict) -> BuildRequest:
    backend = "cuda" if spec["file"].endswith(".cu") else "cpu"
    return BuildRequest.from_load_inline(backend, **load_inline_kwargs(spec))


def _children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_stock(spec: dict, scratch: Path) -> tuple[float, float]:
    """(wall seconds, compiler CPU seconds) of a cold stock build."""
    from torch.utils import cpp_extension

    build_dir = scratch / f"stock-{spec['name']}"
    build_dir.mkdir()
    cpu, started = _children_cpu_s(), time.perf_counter()
    cpp_extension.load_inline(**load_inline_kwargs(spec), build_directory=str(build_dir),
                              is_python_module=False)
    return time.perf_counter() - started, _children_cpu_s() - cpu


def time_ours(spec: dict, cache: Path) -> tuple[float, float, dict]:
    """(wall seconds, compiler CPU seconds, details) of our build plus loading it."""
    from kerneltrials.verifier.builds._compiler import build_extension

    cpu, started = _children_cpu_s(), time.perf_counter()
    artifact = build_extension(request_for(spec), root=cache)
    load_artifact(artifact)
    return time.perf_counter() - started, _children_cpu_s() - cpu, artifact.details


def time_warm_in_fresh_process(spec: dict, cache: Path) -> float:
    command = [sys.executable, __file__, "--warm-one", spec["name"], "--cache", str(cache)]
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    return float(json.loads(output.strip().splitlines()[-1])["warm_s"])


def clear_bindings(toolchain: Path) -> None:
    for entry in toolchain.glob("bind-*"):
        shutil.rmtree(entry, ignore_errors=True)


def prepare_pchs(specs: list[dict]) -> dict[str, float]:
    """Build the PCH of each candidate's flag set once; its one-time cost per candidate."""
    from kerneltrials.verifier.builds._cache import BuildCache
    from kerneltrials.verifier.builds._compiler import toolchain_root
    from kerneltrials.verifier.builds._fast import BINDING_NAME, ensure_pch, find_fast_cxx
    from kerneltrials.verifier.builds._stock_flags import stock_flags

    cxx, store = find_fast_cxx(), BuildCache(toolchain_root(), verify_hash=False)
    firsts = {}
    for spec in specs:
        flags = stock_flags(request_for(spec), BINDING_NAME)
        started = time.perf_counter()
        if cxx is not None:
            ensure_pch(cxx, flags.cflags + flags.post_cflags, store)
        firsts[spec["name"]] = time.perf_counter() - started
    return firsts


def run(specs: list[dict]) -> list[dict]:
    rows = []
    with tempfile.TemporaryDirectory(prefix="kt-bench-") as tmp:
        scratch = Path(tmp)
        os.environ["KERNELTRIALS_PCH_CACHE"] = str(scratch / "toolchain")
        firsts = prepare_pchs(specs)
        for spec in specs:
            stock_s, stock_cpu_s = time_stock(spec, scratch)
            clear_bindings(scratch / "toolchain")
            cache = scratch / f"cache-{spec['name']}"
            cold_s, cold_cpu_s, details = time_ours(spec, cache)
            warm_s = time_warm_in_fresh_process(spec, cache)
            rows.append({"name": spec["name"], "stock_s": stock_s, "cold_s": cold_s,
                         "warm_s": warm_s, "pch_s": firsts[spec["name"]],
                         "stock_cpu_s": stock_cpu_s, "cold_cpu_s": cold_cpu_s,
                         "path": describe_build(details), "load": os.getloadavg()[0]})
            print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    return rows


def print_table(rows: list[dict]) -> None:
    print(f"{'candidate':22} {'stock':>8} {'ours':>7} {'warm':>7} {'x cold':>7} {'x warm':>7} "
          f"{'stock cpu':>10} {'ours cpu':>9} {'x cpu':>6} {'pch once':>9} path")
    for row in rows:
        print(f"{row['name']:22} {row['stock_s']:7.1f}s {row['cold_s']:6.1f}s {row['warm_s']:6.3f}s "
              f"{row['stock_s'] / row['cold_s']:6.1f}x {row['stock_s'] / row['warm_s']:6.0f}x "
              f"{row['stock_cpu_s']:9.1f}s {row['cold_cpu_s']:8.1f}s "
              f"{row['stock_cpu_s'] / max(row['cold_cpu_s'], 1e-3):5.1f}x {row['pch_s']:8.1f}s {row['path']}")
    for backend in ("cpu", "cuda"):
        chosen = [r for r in rows if r["name"].startswith(backend)]
        if chosen:
            cold = statistics.median(r["stock_s"] / r["cold_s"] for r in chosen)
            warm = statistics.median(r["stock_s"] / r["warm_s"] for r in chosen)
            cpu = statistics.median(r["stock_cpu_s"] / r["cold_cpu_s"] for r in chosen)
            print(f"median {backend}: stock/ours cold {cold:.1f}x (wall), {cpu:.1f}x (compiler CPU "
                  f"time); stock/ours warm {warm:.0f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="candidate names to run")
    parser.add_argument("--warm-one", help=argparse.SUPPRESS)
    parser.add_argument("--cache", help=argparse.SUPPRESS)
    args = parser.parse_args()
    os.environ.setdefault("CUDA_HOME", "/usr/local/cuda-13.0")
    os.environ["CCACHE_DISABLE"] = "1"  # stock wraps the compiler in ccache when installed
    if args.warm_one:
        # The run stage has torch and the verifier imported already: time the hit alone.
        import torch  # noqa: F401

        import kerneltrials.verifier.builds._compiler  # noqa: F401

        spec = next(s for s in CANDIDATES if s["name"] == args.warm_one)
        warm_s, _, _ = time_ours(spec, Path(args.cache))
        print(json.dumps({"warm_s": warm_s}))
        return
    specs = [s for s in CANDIDATES if not args.only or s["name"] in args.only]
    print_table(run(specs))


if __name__ == "__main__":
    main()
