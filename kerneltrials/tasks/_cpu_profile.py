"""A ``cpu`` profile for task files without a ``TASK`` dict (KernelBench's format).

Such a file's constants are sized for a GPU: on a CPU one reference call can take seconds
or not fit in memory. Its ``cpu`` configuration is therefore derived on the machine that
runs it: every size constant (``_derive.size_constants``) is multiplied by one common
scale — each rounded to a multiple of the power of two dividing its own value (at most 64
and an eighth of the new size), equal constants alike, so divisibility and equal-width
rules usually keep holding, and a draw the reference refuses on the meta device is
redrawn smaller — and the scale is searched until the eager reference runs well inside
the band ``tasks validate`` checks (``RUNTIME_BAND_MS["cpu"]``: a call within a factor of
two inside it, aiming at its geometric middle). Before any real call the meta device
bounds the data (``MAX_BYTES``) and the counted FLOPs (``MAX_GFLOP``), so no step
allocates gigabytes or runs for minutes. A file whose own constants already run below the
band's top (with a factor-of-two allowance for a busy machine) keeps them: scaling up is
never done.

The choice is measured once per file, torch version, CPU model and thread count, and kept in
``$KERNELTRIALS_CACHE/profiles/`` (default ``~/.cache/kerneltrials``): every later run
on this machine uses the same sizes, and a verdict names the scale and time it was chosen
with. A choice made while the machine was busy errs small (its calls looked slow); delete
the file to measure again. The reference runs in the calling process, as ``tasks
validate`` runs it: task files are the harness's input, never the candidate's.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import platform
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch

from kerneltrials._cache_home import cache_home
from kerneltrials.tasks._cost import config_cost
from kerneltrials.tasks._derive import ALIGN, runs_on_meta, size_constants
from kerneltrials.tasks._instantiate import make_reference
from kerneltrials.tasks._runtime import measure_runtime_ms
from kerneltrials.tasks._spec import RUNTIME_BAND_MS, TaskSpec

#: The ``cpu`` band of ``tasks validate`` (ms per eager call), and the time aimed at.
BAND_MS = RUNTIME_BAND_MS["cpu"]
TARGET_MS = math.sqrt(BAND_MS[0] * BAND_MS[1])
#: A measurement in here ends the search: a factor of two inside the band on each side,
#: so the noise of a shared machine does not carry the chosen size out of it.
ACCEPT_MS = (2 * BAND_MS[0], BAND_MS[1] / 2)
#: A file's own sizes are kept unless they run slower than this times the band's top: a
#: file sized for a GPU misses it by far more, and a busy machine must not shrink a file
#: that fits.
OWN_SLACK = 2.0
#: Bounds checked on the meta device before a scale is run for real.
MAX_BYTES = 256 * 1024**2
MAX_GFLOP = 20.0
#: Real measurements per file at most, and the smallest scale tried.
MAX_STEPS = 8
MIN_SCALE = 1 / 1024
#: Bump when the search could choose differently: cached choices of older ones are redone.
VERSION = 1


@dataclass(frozen=True)
class DerivedProfile:
    """The ``cpu`` configuration chosen for a file: ``config`` overrides its constants
    (empty: its own constants), ``scale`` the common factor, ``eager_ms`` the reference's
    best call at that size when it was chosen (None: nothing could be measured)."""

    config: dict[str, int]
    scale: float
    eager_ms: float | None

    @property
    def derived(self) -> bool:
        return bool(self.config)

    def note(self) -> str:
        timed = f"{self.eager_ms:.1f} ms" if self.eager_ms is not None else "unmeasured"
        sizes = " ".join(f"{name}={value}" for name, value in sorted(self.config.items()))
        return (f"note:profile:cpu sizes derived from the file's (x{self.scale:.3g}: {sizes}; "
                f"eager {timed} when chosen on this machine)")


def scaled_sizes(sizes: dict[str, int], scale: float) -> dict[str, int]:
    """Every size times ``scale``, kept a multiple of the power of two dividing it (at
    most ``ALIGN``, and at most an eighth of the new size, so sizes can shrink far)."""
    scaled = {}
    for name, value in sizes.items():
        target = value * scale
        step = min(value & -value, ALIGN, 1 << (max(1, int(target / 8)).bit_length() - 1))
        scaled[name] = max(step, round(target / step) * step)
    return scaled


def eager_ms(task: TaskSpec, config: dict[str, Any]) -> float:
    """The reference's eager time under ``config``, measured as ``tasks validate`` does."""
    model, inputs = make_reference(task, config, seed=0, device="cpu")
    return measure_runtime_ms(model, inputs, "cpu")


def _fits(task: TaskSpec, config: dict[str, Any]) -> bool:
    """On meta: the reference runs, its data and its counted FLOPs are within bounds."""
    if not runs_on_meta(task, config):
        return False
    try:
        cost = config_cost(task, config)
    except Exception:  # counted on the CPU only when meta cannot run it: rejected above
        return False
    return cost.bytes <= MAX_BYTES and (cost.flops or 0) <= MAX_GFLOP * 1e9


def _search(task: TaskSpec) -> DerivedProfile:
    sizes = size_constants(task)
    if not sizes or not runs_on_meta(task, {}):
        return DerivedProfile({}, 1.0, None)  # nothing to scale, or nothing to check it with
    scale = 1.0
    while not _fits(task, scaled_sizes(sizes, scale)):
        scale /= 2
        if scale < MIN_SCALE:
            return DerivedProfile({}, 1.0, None)  # too large at any size: left as it is
    ceiling = scale  # the largest scale within the data and FLOP bounds
    measured: list[DerivedProfile] = []
    too_fast: float | None = None  # the largest scale measured below the band
    too_slow: float | None = None  # the smallest scale measured above it
    for _ in range(MAX_STEPS):
        config = scaled_sizes(sizes, scale) if scale < 1 else {}
        if config and not _fits(task, config):  # a rule of the reference broken by rounding
            scale *= 0.9
            continue
        taken = DerivedProfile(config, scale if config else 1.0, eager_ms(task, config))
        measured.append(taken)
        milliseconds = taken.eager_ms or 0.0
        if ACCEPT_MS[0] <= milliseconds <= ACCEPT_MS[1] or (
                not config and milliseconds <= OWN_SLACK * BAND_MS[1]):
            return taken  # well inside the band, or the file's own sizes are small enough
        if milliseconds > ACCEPT_MS[1]:
            too_slow = scale if too_slow is None else min(too_slow, scale)
        else:
            too_fast = scale if too_fast is None else max(too_fast, scale)
        # Work grows with the scale to about the power of the sizes scaled (at least one):
        # step by the square root of the miss, which neither overshoots a quadratic task
        # nor crawls on a linear one; once both sides are known, bisect between them.
        following = scale * min(2.0, max(1 / 8, math.sqrt(TARGET_MS / max(milliseconds, 1e-3))))
        if too_fast is not None and too_slow is not None:
            following = math.sqrt(too_fast * too_slow)
        elif too_slow is not None:
            following = min(following, 0.9 * too_slow)
        following = min(following, ceiling)
        if following < MIN_SCALE or abs(math.log(following / scale)) < 0.02:
            break
        scale = following
    inside = [m for m in measured if BAND_MS[0] <= (m.eager_ms or 0.0) <= BAND_MS[1]]
    if inside:  # the one nearest the middle of the band
        return min(inside, key=lambda m: abs(math.log((m.eager_ms or 1e-3) / TARGET_MS)))
    return min(measured, key=lambda m: m.eager_ms or 0.0)  # too slow everywhere: the fastest


@functools.cache  # read once per process: a check asks for the profile several times
def _machine() -> dict[str, Any]:
    """What a choice was measured on: the CPU model and the threads torch runs with here.
    (Read here, not through ``kerneltrials._cpuinfo``: the candidate's worker imports the
    task loader, and nothing of the harness beside it.)"""
    model = platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text(errors="replace").splitlines():
            if line.startswith("model name"):
                model = line.partition(":")[2].strip()
                break
    except OSError:
        pass
    return {"cpu": model, "threads": torch.get_num_threads()}


def _cache_path(task: TaskSpec) -> Path:
    key = hashlib.sha256(json.dumps([VERSION, task.source, torch.__version__, _machine()],
                                    sort_keys=True).encode()).hexdigest()[:32]
    return cache_home() / "profiles" / f"{key}.json"


def _read(path: Path) -> DerivedProfile | None:
    try:
        data = json.loads(path.read_text())
        config = {str(k): int(v) for k, v in data["config"].items()}
        measured = data["eager_ms"]
        return DerivedProfile(config, float(data["scale"]),
                              None if measured is None else float(measured))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None  # absent or damaged: measured again


def derive_cpu_profile(task: TaskSpec) -> DerivedProfile:
    """The file's ``cpu`` configuration: from the cache, else searched now and kept."""
    path = _cache_path(task)
    cached = _read(path)
    if cached is not None:
        return cached
    chosen = _search(task)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(f".{os.getpid()}.tmp")
    partial.write_text(json.dumps({**asdict(chosen), "task": task.id, "torch": torch.__version__,
                                   **_machine()}))
    os.replace(partial, path)  # readers see the whole choice or none
    return chosen
