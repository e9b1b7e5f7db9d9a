"""A helper process the thread count cannot see: ``clone(CLONE_VM)`` from native code.

The candidate computes an honest ReLU, but on its first call it also makes a process
that shares its memory (not a thread: the worker's own thread count never sees it) and
spins, free to work while the baselines are timed. The parent reads the job's processes
from its cgroup, which the candidate cannot touch, and rejects the candidate.
"""

from __future__ import annotations

import pytest

import kerneltrials
from kerneltrials.verifier import QUICK_TIMING, CheckOptions, Status

CLONE_HELPER = r'''
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

SOURCE = r"""
#include <torch/extension.h>
#include <sched.h>
#include <signal.h>
#include <cstdlib>

namespace helper {
// Through a pointer: the escape-hatch scans look for the call; this test is about the
// run-time rule, which must hold whatever slips past them.
int (*const make_process)(int (*)(void*), void*, int, void*, ...) = &::clone;
volatile bool started = false;

int spin(void*) {
    volatile unsigned long counter = 0;
    for (;;) counter = counter + 1;
    return 0;
}
}  // namespace helper

torch::Tensor relu_with_helper(torch::Tensor x) {
    if (!helper::started) {
        helper::started = true;
        const size_t stack_bytes = 1 << 20;
        char* stack = static_cast<char*>(std::malloc(stack_bytes));
        helper::make_process(helper::spin, stack + stack_bytes, CLONE_VM | SIGCHLD, nullptr);
    }
    auto in = x.contiguous();
    auto out = torch::empty_like(in);
    const float* src = in.data_ptr<float>();
    float* dst = out.data_ptr<float>();
    for (int64_t i = 0, n = in.numel(); i < n; ++i) dst[i] = src[i] > 0.f ? src[i] : 0.f;
    return out;
}
"""

ext = load_inline(name="kt_clone_helper", cpp_sources=[SOURCE],
                  functions=["relu_with_helper"], extra_cflags=["-O1"])


class ModelNew(nn.Module):
    def forward(self, x):
        return ext.relu_with_helper(x)
'''


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_clone_vm_helper_process_is_rejected() -> None:
    # The link policy rejects an import of clone() before any run; this test shows the
    # run-time rule holding alone (a candidate may reach clone without importing it).
    options = CheckOptions(timing=QUICK_TIMING, compile_baseline=False, hidden_seed=5,
                           source_scans=False, link_policy=False)
    verdict = kerneltrials.check("L1/relu", CLONE_HELPER, options=options)
    if not verdict.isolation.get("cpu_accounting") and not verdict.isolation.get("pids_limit"):
        pytest.skip(f"the job has no cgroup here: {verdict.isolation.get('missing')}")
    assert verdict.status == Status.REJECTED, verdict.reasons
    assert any(reason.startswith("integrity:extra_processes") for reason in verdict.reasons), \
        verdict.reasons
