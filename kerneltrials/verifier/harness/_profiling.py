"""Profiler feedback for agents: the parent side (``CheckOptions(profile_feedback=True)``).

CPU: hardware counters from ``perf stat`` attached to the candidate worker where the
machine supports them, and PyTorch's profiler (top operators by self time) always. CUDA:
PyTorch's profiler with device times, and Nsight Compute's per-kernel counters where ncu
is installed (``_nsight.py``). A profiler that is missing degrades to timings only, with
a note.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

PERF_EVENTS = ("task-clock", "cycles", "instructions", "cache-references", "cache-misses",
               "branch-misses", "L1-dcache-load-misses", "LLC-load-misses")


def descendants(pid: int) -> list[int]:
    """``pid`` and every process below it (the worker runs under a sandbox wrapper)."""
    found, frontier = [pid], [pid]
    while frontier:
        current = frontier.pop()
        for task in Path(f"/proc/{current}/task").glob("*"):
            try:
                children = (task / "children").read_text().split()
            except OSError:
                continue
            for child in map(int, children):
                if child not in found:
                    found.append(child)
                    frontier.append(child)
    return found


def start_perf(pid: int) -> subprocess.Popen[str] | None:
    """``perf stat`` attached to the worker's processes until stopped; None without perf."""
    perf = shutil.which("perf")
    if perf is None:
        return None
    pids = ",".join(map(str, descendants(pid)))
    try:
        return subprocess.Popen([perf, "stat", "-x", ",", "-e", ",".join(PERF_EVENTS), "-p", pids],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    except OSError:
        return None


def stop_perf(process: subprocess.Popen[str] | None) -> tuple[dict[str, float], str]:
    """Counters read, and a note saying what was not available."""
    if process is None:
        return {}, "perf not installed: PyTorch profiler only (apt-get install linux-perf)"
    process.send_signal(2)  # SIGINT: perf prints its counts and exits
    try:
        _, errors = process.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        return {}, ("no hardware counters this time: `perf stat` did not report within 10 s "
                    "of being stopped (the PyTorch profiler's figures above stand)")
    return parse_perf_csv(errors)


def parse_perf_csv(text: str) -> tuple[dict[str, float], str]:
    counters: dict[str, float] = {}
    unsupported = []
    for line in text.splitlines():
        fields = line.split(",")
        if len(fields) < 3:
            continue
        value, event = fields[0], fields[2]
        if value.startswith("<"):
            unsupported.append(event)
            continue
        try:
            counters[event] = float(value)
        except ValueError:
            continue
    note = (f"hardware counters not supported on this machine ({', '.join(unsupported)})"
            if unsupported else "")
    return counters, note


def summarise_profile(top_ops: list[dict[str, Any]], counters: dict[str, float],
                      note: str, tool: str) -> dict[str, Any]:
    summary: dict[str, Any] = {"tool": tool, "top_ops": top_ops}
    if counters:
        summary["counters"] = counters
        if counters.get("cycles") and counters.get("instructions"):
            summary["counters"]["instructions_per_cycle"] = counters["instructions"] / counters["cycles"]
    if note:
        summary["note"] = note
    return summary
