"""kerneltrials: a fast, sandboxed, cheat-proof harness for LLM-written kernels.

The Python API is the product; the CLI is a thin layer over it. Heavy modules (torch,
the verifier) are imported on first use so that ``import kerneltrials`` stays cheap.
"""

from __future__ import annotations

from typing import Any

from kerneltrials._version import __version__

__all__ = ["__version__", "check", "load_task", "prestart", "reward", "reward_many"]


def __getattr__(name: str) -> Any:
    if name == "check":
        from kerneltrials.verifier import check

        return check
    if name == "prestart":  # imports no torch
        from kerneltrials.verifier import prestart

        return prestart
    if name == "load_task":
        from kerneltrials.tasks import load_task

        return load_task
    if name in ("reward", "reward_many"):
        from kerneltrials import rewards as reward_module

        return getattr(reward_module, name)
    raise AttributeError(f"module 'kerneltrials' has no attribute {name!r}")
