"""The parent's window around every request (issue 19, items 1 and 2): the candidate's job
is frozen between requests, and the times its own process reports are bounded by what the
parent saw from outside.

The cheats here are native code that owns its process: one rewrites the timing loop's
default timer through the CPython API (no identity the worker snapshots changes), one
keeps a thread spinning. The source scans are off: the mechanisms must hold alone.
"""

from __future__ import annotations

import math

import pytest

import kerneltrials
from kerneltrials.verifier import QUICK_TIMING, CheckOptions, Status, Verdict
from kerneltrials.verifier.harness._timing_loop import UNDERSTATED_REJECT, understatement

OPTIONS = CheckOptions(timing=QUICK_TIMING, compile_baseline=False, source_scans=False,
                       hidden_seed=11)

#: A ReLU that makes PASSES passes over its input (tens of milliseconds per call on the
#: cpu profile's shapes, well above the timing loop's own few milliseconds); CHEAT, when
#: set, runs once in the first call.
_TEMPLATE = r'''
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

SOURCE = r"""
#include <torch/extension.h>
#include <sched.h>
#include <signal.h>
#include <cstdlib>

static bool first = true;
// Through a pointer: the C++ scans look for the call; this test is about the freezer.
static int (*const make_process)(int (*)(void*), void*, int, void*, ...) = &::clone;
static int spin(void*) { volatile unsigned long c = 0; for (;;) c = c + 1; return 0; }

torch::Tensor slow_relu(torch::Tensor x) {
    if (first) {
        first = false;
        @CHEAT@
    }
    auto in = x.contiguous();
    auto out = torch::empty_like(in);
    const float* src = in.data_ptr<float>();
    float* dst = out.data_ptr<float>();
    const int64_t n = in.numel();
    for (int pass = 0; pass < @PASSES@; ++pass)
        for (int64_t i = 0; i < n; ++i) dst[i] = src[i] > 0.f ? src[i] : 0.f * pass;
    return out;
}
"""

ext = load_inline(name="kt_window_@NAME@", cpp_sources=[SOURCE], functions=["slow_relu"],
                  extra_cflags=["-O1"])


class ModelNew(nn.Module):
    def forward(self, x):
        return ext.slow_relu(x)
'''

#: Rewrites the default ``timer`` of the worker's timing loop to a clock running 20x slow:
#: every time the worker reports is a twentieth of the truth.
SLOW_CLOCK = r"""
        PyRun_SimpleString(
            "import time, kerneltrials.verifier.worker._timing as t\n"
            "t.time_calls.__defaults__ = (lambda: time.perf_counter_ns() // 20, None)\n");
"""

#: A helper process sharing the worker's memory (``clone(CLONE_VM)``) that spins for the
#: job's whole life: it would run while the parent works, unless the job is frozen.
SPINNER = r"""
        const size_t stack_bytes = 1 << 20;
        char* stack = static_cast<char*>(std::malloc(stack_bytes));
        make_process(spin, stack + stack_bytes, CLONE_VM | SIGCHLD, nullptr);
"""


def candidate(name: str, cheat: str = "", passes: int = 12) -> str:
    return (_TEMPLATE.replace("@CHEAT@", cheat).replace("@PASSES@", str(passes))
            .replace("@NAME@", name))


def verify(source: str) -> Verdict:
    return kerneltrials.check("L1/relu", source, options=OPTIONS)


def _frozen(verdict: Verdict) -> bool:
    if not verdict.isolation.get("frozen_at_rest"):
        pytest.skip(f"no freezer for the job here (isolation {verdict.isolation.get('freezer')})")
    return True


@pytest.mark.timeout(600)
def test_a_slow_clock_in_the_worker_is_rejected() -> None:
    verdict = verify(candidate("slow_clock", SLOW_CLOCK))
    assert verdict.status == Status.REJECTED, (verdict.status, verdict.reasons)
    assert any(r.startswith("integrity:timer_understated") for r in verdict.reasons), verdict.reasons


@pytest.mark.timeout(600)
def test_the_same_kernel_with_the_true_clock_is_correct_and_not_lifted() -> None:
    verdict = verify(candidate("true_clock"))
    assert verdict.status == Status.CORRECT, verdict.reasons
    assert not any(r.startswith("timing:lifted") for r in verdict.reasons), verdict.reasons
    assert _frozen(verdict)
    at_rest = verdict.isolation["at_rest"]
    assert at_rest["freezes"] >= 10 and at_rest["cpu_s_while_frozen"] < 0.05, at_rest
    for config in verdict.configs:
        assert config.times_ms["candidate"].untimed_ms is not None, config


@pytest.mark.timeout(600)
def test_a_spinning_thread_gets_no_cpu_while_the_job_is_at_rest() -> None:
    verdict = verify(candidate("spinner", SPINNER, passes=1))
    # Whatever the verdict (integrity:extra_processes rejects the helper at the first
    # timed batch), the job was frozen between its requests until then.
    assert _frozen(verdict)
    at_rest = verdict.isolation["at_rest"]
    # Unfrozen, the spinner would take a core for the whole time the parent spends on the
    # reference side and the harness's own work: seconds.
    assert at_rest["freezes"] >= 3 and at_rest["cpu_s_while_frozen"] < 0.05, at_rest


def test_understatement_is_one_when_the_windows_are_explained() -> None:
    # Calls of 2 ms, 5 ms of loop per call, 0.5 ms of per-batch slack per call.
    inside, slack = [2.0] * 4, [0.5] * 4
    assert understatement(inside, [5.0] * 4, slack, loop_ms=5.0) == 1.0
    # Noise within the allowance (a quarter of the call plus the loop again) stays 1.
    assert understatement(inside, [9.0] * 4, slack, loop_ms=5.0) == 1.0
    # One batch stalled by the machine moves nothing: medians.
    assert understatement(inside, [5.0, 5.0, 5.0, 400.0], slack, loop_ms=5.0) == 1.0


def test_understatement_grows_with_the_work_the_timer_missed() -> None:
    # Calls of 40 ms reported as 2 ms: the windows show it, the factor says so.
    factor = understatement([2.0] * 4, [5.0 + 38.0] * 4, [0.5] * 4, loop_ms=5.0)
    assert factor * UNDERSTATED_REJECT > 1, factor
    assert math.isinf(understatement([0.0] * 3, [50.0] * 3, [0.5] * 3, loop_ms=5.0))
    assert understatement([], [], [], loop_ms=5.0) == 1.0
