"""The parent's window around every request (issue 19, items 1 and 2): the candidate's job
is frozen between requests, and the times its own process reports are bounded by what the
parent saw from outside.

The cheats here are native code that owns its process: one rewrites the timing loop's
default timer through the CPython API (no identity the worker snapshots changes), one
keeps a thread spinning. The source scans are off: the mechanisms must hold alone.
"""

from __future__ import annotations

import math
import random

import pytest

import kerneltrials
from kerneltrials.verifier import QUICK_TIMING, CheckOptions, Status, Verdict
from kerneltrials.verifier.harness._timing_loop import UNDERSTATED_REJECT, understatement

# The windows are read against the eager loop's time on this machine: run with nothing
# beside it (make test's serial part).
pytestmark = pytest.mark.alone

# The link policy would reject the cheats' imports before any run: what these tests show
# is the parent's windows, so it is off.
OPTIONS = CheckOptions(timing=QUICK_TIMING, compile_baseline=False, source_scans=False,
                       link_policy=False, hidden_seed=11)

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
            "d = t.time_calls.__defaults__\n"
            "t.time_calls.__defaults__ = (lambda: time.perf_counter_ns() // 20,) + d[1:]\n");
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


def test_a_noisy_loop_widens_the_allowance() -> None:
    # The same excess that is lifted on a quiet machine is noise when the eager loop's own
    # batches spread by as much.
    quiet = understatement([2.0] * 4, [5.0 + 14.0] * 4, [0.5] * 4, loop_ms=5.0)
    noisy = understatement([2.0] * 4, [5.0 + 14.0] * 4, [0.5] * 4, loop_ms=5.0,
                           loop_spread_ms=8.0)
    assert quiet > 1.0 and noisy == 1.0, (quiet, noisy)


def test_one_stalled_batch_is_confirmed_before_it_rejects(monkeypatch: pytest.MonkeyPatch) -> None:
    # A quick sweep times a single batch per side: one stall of 15 ms there would read as
    # a timer that saw a fifth of the time. More rounds are timed first, and on them the
    # honest candidate's windows are explained; a consistent gap still rejects.
    from kerneltrials.verifier.harness import _timing_loop as loop

    def sides() -> tuple[loop.Side, loop.Side]:
        candidate = loop.Side("candidate", worker=None, mode="candidate")  # type: ignore[arg-type]
        eager = loop.Side("eager", worker=None, mode="eager")  # type: ignore[arg-type]
        candidate.inside_per_call, candidate.slack_per_call = [1.0], [5.0]
        candidate.untimed_per_call = [5.0 + 20.0]
        eager.inside_per_call, eager.slack_per_call, eager.untimed_per_call = [1.0], [5.0], [5.0]
        return candidate, eager

    def fake_times(untimed_ms: float):  # type: ignore[no-untyped-def]
        def request(session, side, config, n_calls, timeout_s, rng=None):  # type: ignore[no-untyped-def]
            side.untimed_per_call.append(untimed_ms if side.name == "candidate" else 5.0)
            side.inside_per_call.append(1.0)
            side.slack_per_call.append(5.0)
            return [1.0]
        return request

    class _Options:
        call_timeout_s = 1.0

    class _Session:
        options = _Options()

    for later_untimed, rejects in ((5.2, False), (25.0, True)):
        candidate, eager = sides()
        assert loop._window_factor(candidate, eager)[0] * UNDERSTATED_REJECT > 1
        monkeypatch.setattr(loop, "_request_times", fake_times(later_untimed))
        assert loop._confirm(_Session(), [candidate, eager], None, random.Random(0))  # type: ignore[arg-type]
        assert len(candidate.untimed_per_call) == len(eager.untimed_per_call) == loop.CONFIRM_BATCHES
        factor, _ = loop._window_factor(candidate, eager)
        assert (factor * UNDERSTATED_REJECT > 1) is rejects, factor
        # Once every side has its batches, the evidence stands: no more rounds.
        assert not loop._confirm(_Session(), [candidate, eager], None, random.Random(0))  # type: ignore[arg-type]
