"""Nsight Compute feedback (harness/_nsight.py): the report's parsing, the notes when it
has no kernels, the feedback an agent reads, and a worker run under a wrapper in the real
sandbox. ncu itself (and a GPU) exist only on GPU hosts: tests/gpu/test_profile.py runs it.

The report below has the shape ``ncu --csv --page details --metrics ...`` writes: ncu's
log lines, then one quoted CSV row per (kernel launch, metric).
"""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from kerneltrials.agents.feedback import format_feedback
from kerneltrials.sandbox import Mount, SandboxLimits, resolve_sandbox
from kerneltrials.tasks import load_task
from kerneltrials.verifier.harness._jobs import WorkerJob
from kerneltrials.verifier.harness._nsight import (
    NCU_METRICS,
    ncu_note,
    ncu_wrapper,
    parse_ncu_csv,
    with_ncu,
)
from kerneltrials.verifier.protocol import LoadTask

HEADER = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream",'
          '"Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit",'
          '"Metric Value"')


def row(launch: int, kernel: str, metric: str, unit: str, value: str) -> str:
    return (f'"{launch}","4242","python3","127.0.0.1","{kernel}","1","7","(256, 1, 1)",'
            f'"(4096, 1, 1)","0","9.0","Command line profiler metrics","{metric}","{unit}",'
            f'"{value}"')


REPORT = "\n".join([
    "==PROF== Connected to process 4242 (/usr/bin/python3)",
    "==PROF== Profiling \"relu_plain\" - 0: 0%....50%....100% - 9 passes",
    HEADER,
    row(0, "relu_plain(const float *, float *, long)", "gpu__time_duration.sum", "nsecond",
        "12,000"),
    row(0, "relu_plain(const float *, float *, long)",
        "dram__throughput.avg.pct_of_peak_sustained_elapsed", "%", "81.5"),
    row(1, "relu_plain(const float *, float *, long)", "gpu__time_duration.sum", "nsecond",
        "14,000"),
    row(1, "relu_plain(const float *, float *, long)",
        "dram__throughput.avg.pct_of_peak_sustained_elapsed", "%", "79.5"),
    row(2, "scale_kernel(float *)", "gpu__time_duration.sum", "nsecond", "20,500"),
    row(2, "scale_kernel(float *)", "launch__registers_per_thread", "register/thread", "32"),
    row(2, "scale_kernel(float *)", "sm__throughput.avg.pct_of_peak_sustained_elapsed", "%",
        "n/a"),
    "==PROF== Disconnected from process 4242",
])


def test_the_report_gives_each_kernel_its_mean_counters_slowest_first() -> None:
    kernels = parse_ncu_csv(REPORT)
    assert [kernel.name for kernel in kernels] == ["scale_kernel(float *)",
                                                   "relu_plain(const float *, float *, long)"]
    scale, relu = kernels
    assert relu.launches == 2 and scale.launches == 1
    assert relu.metrics == {"gpu__time_duration.sum": 13000.0,
                            "dram__throughput.avg.pct_of_peak_sustained_elapsed": 80.5}
    # a value that is no number ("n/a") is left out, not read as zero
    assert scale.metrics == {"gpu__time_duration.sum": 20500.0,
                             "launch__registers_per_thread": 32.0}


def test_a_report_without_kernels_says_why() -> None:
    denied = "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access GPU counters"
    assert parse_ncu_csv(denied) == []
    assert "ERR_NVGPUCTRPERM" in ncu_note(denied, [])
    assert "no report" in ncu_note("", [])
    assert "no kernel" in ncu_note("==PROF== Disconnected", [])
    assert ncu_note(REPORT, parse_ncu_csv(REPORT)) == ""
    assert parse_ncu_csv('"ID","Kernel Name"\n"0",') == []  # truncated: nothing, no error


def test_the_kernels_reach_the_agents_feedback() -> None:
    torch_profile = {"tool": "torch.profiler", "top_ops": [
        {"op": "relu_forward", "calls": 1, "self_ms_per_call": 0.02}]}
    profile = with_ncu(torch_profile, parse_ncu_csv(REPORT), "")
    assert profile["tool"] == "torch.profiler+ncu" and len(profile["kernels"]) == 2
    text = format_feedback({"status": "correct", "reasons": [], "configs": [],
                            "profile": profile})
    assert "- kernel relu_plain(const float *, float *, long) (2 launch(es)): " \
           "time 1.3e+04 ns, DRAM 80% of peak" in text
    assert "32 registers/thread" in text
    noted = with_ncu(torch_profile, [], ncu_note("ERR_NVGPUCTRPERM", []))
    assert "kernels" not in noted and "ERR_NVGPUCTRPERM" in noted["note"]


def test_the_wrapper_asks_for_every_metric_and_a_range_only() -> None:
    argv = ncu_wrapper("/opt/ncu", "/scratch/report.csv")
    assert argv[0] == "/opt/ncu" and argv[argv.index("--log-file") + 1] == "/scratch/report.csv"
    assert argv[argv.index("--metrics") + 1].split(",") == list(NCU_METRICS)
    assert argv[argv.index("--profile-from-start") + 1] == "off"


@pytest.mark.timeout(120)
def test_a_worker_runs_under_a_wrapper_in_the_sandbox(tmp_path: Path) -> None:
    # What the profile stage does with ncu, with a wrapper that records how it was called
    # and then runs its target, as ncu does: the worker inside must still serve requests.
    tools, out = tmp_path / "tools", tmp_path / "out"
    tools.mkdir()
    out.mkdir()
    wrapper = tools / "fake-ncu"
    # the report goes to a writable mount, as ncu's does (candidate-out/): the job's own
    # scratch is a tmpfs that ends with it
    wrapper.write_text('#!/bin/sh\nreport="$1"; shift\nprintf "%s\\n" "$@" > "$report"\n'
                       'exec "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    report = out / "wrapped-argv.txt"
    worker = WorkerJob(resolve_sandbox("process"), "candidate", tmp_path / "jobs",
                       [Mount(tools), Mount(out, writable=True)],
                       SandboxLimits(wall_timeout_s=60.0), wrapper=[str(wrapper), str(report)])
    task = load_task("L1/relu")
    loaded = worker.request(LoadTask(source=task.source, path=task.path, task_id=task.id,
                                     name=task.name, backend="cpu", threads=1), 60.0)
    assert loaded.threads == 1
    info = worker.close()
    assert info.returncode == 0, info.describe()
    assert report.read_text().split()[-3:] == ["-m", "kerneltrials.verifier.worker",
                                               "candidate"]
