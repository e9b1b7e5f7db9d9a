"""Backends by name: where candidates build and run (``cpu``, ``cuda``), in the one
registry type every role uses (:mod:`kerneltrials._registry`).

A backend says which device its workers run on, which shape profile its tasks default
to, which ``load_inline`` argument holds its kernels, and whether it needs a GPU (a
machine without one builds its candidates and reports ``not_run``). Third parties may
add one through the ``kerneltrials.backends`` entry point group; the verifier's worker
knows the built-in names only (``verifier/protocol/_build.py``, checked equal by a test).
"""

from __future__ import annotations

from dataclasses import dataclass

from kerneltrials._registry import Registry


@dataclass(frozen=True)
class Backend:
    """One place candidates build and run."""

    name: str
    device: str  # the torch device type its workers compute on
    profile: str  # the tasks' shape profile it defaults to
    source_argument: str  # the load_inline argument that holds its kernels
    needs_gpu: bool  # without a CUDA device its candidates build but cannot run


BACKENDS: Registry[Backend] = Registry("backend", entry_point_group="kerneltrials.backends")
BACKENDS.add("cpu", Backend("cpu", device="cpu", profile="cpu", source_argument="cpp_sources",
                            needs_gpu=False))
BACKENDS.add("cuda", Backend("cuda", device="cuda", profile="gpu", source_argument="cuda_sources",
                             needs_gpu=True))


def resolve_backend(name: str) -> Backend:
    """The backend called ``name``; an unknown name raises a ValueError listing them all."""
    return BACKENDS.get(name)
