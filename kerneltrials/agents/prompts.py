"""Prompts: backend instructions, the worked example, the hardware, the task.

The system message (instructions + worked example) depends only on the backend, so it is
the same for every task; the user message carries the task source, its public
configurations and the hardware. Hidden configurations are never shown
(docs/design/interfaces.md, "Hidden configurations"):
the instructions only say that other shapes in the same ranges will be tested.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from kerneltrials.agents._examples import CANDIDATES, REFERENCE
from kerneltrials.agents._hardware import describe_cpu, describe_gpu
from kerneltrials.agents._provider import Message

Backend = Literal["cuda", "cpu"]
BACKENDS: tuple[Backend, ...] = ("cuda", "cpu")

_COMMON_RULES = """\
Rules (a candidate that breaks one is rejected, not timed):
- Define `class ModelNew(nn.Module)` with the same constructor arguments as `Model`;
  its forward takes the same inputs and returns the same type, dtype and shape.
- Compute with your own compiled kernel(s) built by `torch.utils.cpp_extension.load_inline`.
  In `forward`, do not call PyTorch compute operators (views, reshapes and allocating the
  output are fine); in C++/CUDA, do not call ATen/torch compute functions, BLAS, cuBLAS or
  cuDNN, and do not register operators (TORCH_LIBRARY).
- No try/except fallbacks, no subclassing `Model`, no threads, processes or streams, no
  file or network access, no patching of torch, time or builtins, no caching of outputs
  between calls, no numpy/scipy/numba/cupy in `forward`, no TF32 or cuDNN flags.
- Do not hard-code sizes: the kernel is also tested on other shapes drawn from the same
  ranges as the listed configurations. Results must match the reference within
  atol = rtol = 1e-4 for float32 (1e-2 for float16/bfloat16).
- Answer with ONE ```python code block holding the complete module (imports included);
  explain briefly before it if you like, but put no other code block after it."""

_BACKEND_RULES: dict[str, str] = {
    "cpu": """\
Backend: cpu. Write C++ for the CPU and pass it as `cpp_sources` to `load_inline`, with
`extra_cflags=["-O3", "-march=native", "-fopenmp"]` and `extra_ldflags=["-fopenmp"]`.
Parallelise over all cores with OpenMP and vectorise the inner loops (the compiler's
auto-vectorisation, or intrinsics for the SIMD extensions listed under Hardware).
Be cache-aware: block loops so that working sets fit in L1/L2.""",
    "cuda": """\
Backend: cuda. Write CUDA C++ and pass it as `cuda_sources` to `load_inline`, with the C++
declarations of the functions you expose in `cpp_sources` and their names in `functions`.
Check launches (C10_CUDA_KERNEL_LAUNCH_CHECK). Aim for coalesced memory access, enough
parallelism to fill every SM, shared-memory tiling for data reuse, and fused operations
to avoid extra passes over memory.""",
}


def backend_instructions(backend: str) -> str:
    """The rules and backend-specific advice for writing a candidate."""
    return f"{_BACKEND_RULES[_check_backend(backend)]}\n\n{_COMMON_RULES}"


def worked_example(backend: str) -> tuple[str, str]:
    """(reference task source, a correct candidate for it) on ``backend``."""
    return REFERENCE, CANDIDATES[_check_backend(backend)]


def describe_hardware(backend: str, gpu: Mapping[str, Any] | None = None) -> str:
    """The hardware paragraph: this machine's CPU, or the GPU described by ``gpu``."""
    if _check_backend(backend) == "cuda":
        return describe_gpu(gpu or {})
    return describe_cpu()


def system_prompt(backend: str) -> str:
    """Instructions plus the worked example: the same for every task on a backend."""
    reference, candidate = worked_example(backend)
    return (
        "You are an expert performance engineer who writes fast, correct kernels that "
        "replace PyTorch operators.\n\n"
        f"{backend_instructions(backend)}\n\n"
        "Example. Given this architecture:\n"
        f"```python\n{reference}```\n"
        "a correct answer is:\n"
        f"```python\n{candidate}```"
    )


def task_prompt(
    task_source: str,
    backend: str,
    *,
    hardware: str,
    configs: Sequence[Mapping[str, Any]] = (),
) -> str:
    """The user message for one task: its source, public configurations, the hardware."""
    parts = [
        "Write ModelNew for this architecture:",
        f"```python\n{task_source.rstrip()}\n```",
    ]
    if configs:
        listed = "\n".join(f"- {dict(config)}" for config in configs)
        parts.append(
            "It is tested and timed with these module constants (and others from the same "
            f"ranges):\n{listed}"
        )
    parts.append(f"Hardware ({_check_backend(backend)} backend):\n{hardware}")
    return "\n\n".join(parts)


def initial_messages(
    task_source: str,
    backend: str,
    *,
    hardware: str | None = None,
    configs: Sequence[Mapping[str, Any]] = (),
) -> list[Message]:
    """[system, user] for a first attempt; ``hardware`` defaults to ``describe_hardware``."""
    hardware = hardware if hardware is not None else describe_hardware(backend)
    return [
        Message("system", system_prompt(backend)),
        Message("user", task_prompt(task_source, backend, hardware=hardware, configs=configs)),
    ]


def _check_backend(backend: str) -> Backend:
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}: choose one of {', '.join(BACKENDS)}")
    return backend  # type: ignore[return-value]
