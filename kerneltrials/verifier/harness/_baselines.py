"""One baseline per run: the eager and ``torch.compile`` timings of a configuration, timed
once by the trusted reference worker and reused by every later candidate of the same run
on the same machine (docs/design/timing.md, "One baseline per run").

A baseline depends on the task, the configuration, the run's secret (it draws the timing
pool and the factor bank), the machine and its software, and how carefully it was timed
(the timing options); the key holds all of them, so a baseline is never reused where any
differs. Stored in memory and under ``$KERNELTRIALS_CACHE/baselines/`` (default
``~/.cache/kerneltrials``), which no job mounts: the checks of one run on one node share
it across processes (Ray's workers, pytest's). The first baseline stored for a key is the
one every check uses, so two checks that raced to time it still share one denominator.
Entries older than :data:`MAX_AGE_S` are timed again: the machine's state drifts.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import platform
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kerneltrials._cache_home import cache_home
from kerneltrials.tasks import ShapeConfig, TaskSpec
from kerneltrials.verifier._options import CheckOptions
from kerneltrials.verifier.harness._seeds import timing_pool_size
from kerneltrials.verifier.protocol import FRESH_OFFSETS

#: A stored baseline older than this is timed again (a day: longer than a run of the
#: built-in tasks, shorter than a machine keeps its state).
MAX_AGE_S = 24 * 3600.0
#: Bumped when what a stored baseline means changes: older entries are never read.
#: 2: the timed workers' heap keeps freed blocks (worker/_heap.py), so a baseline timed
#: before paid page faults a candidate timed now does not.
FORMAT = 2
#: Baselines kept in memory per process (each a few hundred floats).
KEPT_IN_MEMORY = 4096


@dataclass(frozen=True)
class StoredBaseline:
    """One side's samples (milliseconds per call) on one configuration, and when."""

    samples_ms: tuple[float, ...]
    measured_at: float  # seconds since the epoch

    def to_dict(self) -> dict[str, Any]:
        return {"samples_ms": list(self.samples_ms), "measured_at": self.measured_at}

    @classmethod
    def from_dict(cls, data: Any) -> StoredBaseline | None:
        """The entry when it is well formed, else None (a damaged file is timed again)."""
        if not isinstance(data, dict):
            return None
        samples, when = data.get("samples_ms"), data.get("measured_at")
        if (not isinstance(samples, list) or not samples or not isinstance(when, int | float)
                or not all(isinstance(s, int | float) and math.isfinite(s) and s > 0
                           for s in samples)):
            return None
        return cls(samples_ms=tuple(float(s) for s in samples), measured_at=float(when))


def baseline_key(task: TaskSpec, config: ShapeConfig, mode: str, hidden_seed: int,
                 options: CheckOptions, machine: dict[str, Any]) -> str:
    """The digest of everything a baseline's samples depend on."""
    fields = {
        "format": FORMAT, "task": task.id,
        "task_source": hashlib.sha256(task.source.encode()).hexdigest(),
        "config": config.name, "overrides": config.overrides, "mode": mode,
        "hidden_seed": hidden_seed, "backend": options.backend,
        "timing": dataclasses.asdict(options.timing), "fresh_inputs": options.fresh_inputs,
        "pool_sets": timing_pool_size(options.fresh_inputs), "offsets": FRESH_OFFSETS,
        "inputs": options.inputs, "machine": machine, "node": platform.node(),
    }
    text = json.dumps(fields, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def default_root() -> Path:
    """``$KERNELTRIALS_CACHE/baselines`` (default ``~/.cache/kerneltrials/baselines``)."""
    return cache_home() / "baselines"


@dataclass
class BaselineStore:
    """Baselines by key, in memory and on disk (``root``; None: memory only)."""

    root: Path | None
    max_age_s: float = MAX_AGE_S
    _memory: dict[str, StoredBaseline] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _swept: bool = field(default=False, repr=False)

    def get(self, key: str, now: float | None = None) -> StoredBaseline | None:
        """The stored baseline for ``key`` if one exists and is fresh enough."""
        now = time.time() if now is None else now
        with self._lock:
            found = self._memory.get(key)
        if found is None:
            found = self._read(key)
        if found is None or now - found.measured_at > self.max_age_s:
            return None
        self._remember(key, found)
        return found

    def put(self, key: str, baseline: StoredBaseline) -> StoredBaseline:
        """Store ``baseline`` unless a fresh one is stored already; returns the one
        stored, which every check of the run then uses."""
        existing = self.get(key, now=baseline.measured_at)
        if existing is not None:
            return existing
        if self.root is not None:
            existing = self._publish(key, baseline)
            if existing is not None:
                self._remember(key, existing)
                return existing
        self._remember(key, baseline)
        return baseline

    def _remember(self, key: str, baseline: StoredBaseline) -> None:
        with self._lock:
            if key not in self._memory and len(self._memory) >= KEPT_IN_MEMORY:
                self._memory.pop(next(iter(self._memory)))
            self._memory[key] = baseline

    def _path(self, key: str) -> Path:
        assert self.root is not None
        return self.root / f"{key}.json"

    def _read(self, key: str) -> StoredBaseline | None:
        if self.root is None:
            return None
        try:
            return StoredBaseline.from_dict(json.loads(self._path(key).read_text()))
        except (OSError, ValueError):
            return None

    def _publish(self, key: str, baseline: StoredBaseline) -> StoredBaseline | None:
        """Write ``baseline`` under ``key``; the one already there when another process
        stored a fresh one first (a link fails on an existing name, so the first wins)."""
        assert self.root is not None
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            self._sweep(baseline.measured_at)
            with tempfile.NamedTemporaryFile("w", dir=self.root, suffix=".tmp",
                                             delete=False) as handle:
                json.dump(baseline.to_dict(), handle)
            staged = Path(handle.name)
        except OSError:
            return None  # a read-only cache: the run shares it within this process only
        target = self._path(key)
        try:
            os.link(staged, target)
        except FileExistsError:
            there = self._read(key)
            if there is not None and baseline.measured_at - there.measured_at <= self.max_age_s:
                return there
            os.replace(staged, target)  # damaged or stale: replaced
        except OSError:
            pass
        staged.unlink(missing_ok=True)
        return None

    def _sweep(self, now: float) -> None:
        """Once per store, remove the entries no check may read any more (older than
        twice :attr:`max_age_s`, by their file's time): a run leaves one per configuration
        and baseline side, and nothing else would ever remove them."""
        if self._swept:
            return
        self._swept = True
        assert self.root is not None
        for entry in self.root.glob("*.json"):
            try:
                if now - entry.stat().st_mtime > 2 * self.max_age_s:
                    entry.unlink()
            except OSError:
                pass  # another process removed or replaced it first


_DEFAULT: BaselineStore | None = None
_DEFAULT_LOCK = threading.Lock()


def default_store() -> BaselineStore:
    """This process's store over :func:`default_root` (made on first use, so a test that
    sets ``KERNELTRIALS_CACHE`` first gets its own)."""
    global _DEFAULT
    with _DEFAULT_LOCK:
        if _DEFAULT is None or _DEFAULT.root != default_root():
            _DEFAULT = BaselineStore(default_root())
        return _DEFAULT
