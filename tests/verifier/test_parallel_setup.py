"""Both workers work at once where nothing is timed: a configuration's setup
(``_stages._setup_config``: the reference's request is in flight while the candidate
builds ``ModelNew``) and each correctness seed (``_stages._check_one_seed``: the
reference computes its outputs and draws the next seed's inputs while the candidate
runs). A candidate that fails or hangs then must still get its own verdict, never the
reference's, and the reference's private outputs stay out of its reach."""

from __future__ import annotations

import pytest

from kerneltrials.verifier import CheckOptions, check
from tests.timings import ONE_CALL_TIMING
from tests.verifier.candidates import candidate

pytestmark = pytest.mark.slow


def _with_init(body: str) -> str:
    source = candidate("relu_ok")
    old = "        super().__init__()\n"
    assert old in source
    return source.replace(old, old + body)


def test_a_constructor_that_raises_is_the_candidates_runtime_error() -> None:
    source = _with_init("        raise ValueError('no model today')\n")
    verdict = check("L1/relu", source, options=CheckOptions(
        hidden_seed=3, compile_baseline=False, timing=ONE_CALL_TIMING))
    assert verdict.status == "runtime_error", verdict.reasons
    assert any("constructing ModelNew failed" in r and "no model today" in r
               for r in verdict.reasons), verdict.reasons


def _assert_its_own_timeout(source: str, during: str) -> None:
    """A candidate that hangs while the reference works beside it times out as itself."""
    verdict = check("L1/relu", source, options=CheckOptions(
        hidden_seed=3, compile_baseline=False, timing=ONE_CALL_TIMING, call_timeout_s=8.0))
    assert verdict.status == "timeout", verdict.reasons
    assert any(during in r for r in verdict.reasons), verdict.reasons


def test_a_constructor_that_hangs_is_the_candidates_timeout() -> None:
    _assert_its_own_timeout(_with_init("        import time\n        time.sleep(3600)\n"),
                            "setup")


#: Native code in the constructor, which now runs while the reference worker writes its
#: timing pool's outputs: it polls the session's private directory (next to its own
#: ``candidate`` directory) for a while and counts the entries it could list. The forward
#: is right only if it saw some, so "incorrect" means the probe ran and saw nothing.
PROBE = r'''
import os, torch, torch.nn as nn
from torch.utils.cpp_extension import load_inline

SOURCE = r"""
#include <torch/extension.h>
#include <dirent.h>
#include <unistd.h>
#include <string>

int64_t probe(std::string path) {
    for (int round = 0; round < 200; ++round) {  // about 2 s: the reference's setup
        DIR* dir = opendir(path.c_str());
        if (dir) {
            int64_t seen = 0;
            while (struct dirent* entry = readdir(dir))
                if (entry->d_name[0] != '.') ++seen;
            closedir(dir);
            if (seen) return seen;
        }
        usleep(10000);
    }
    return 0;
}

torch::Tensor relu_if(torch::Tensor x, int64_t seen) {
    auto in = x.contiguous();
    auto out = torch::empty_like(in);
    const float* src = in.data_ptr<float>();
    float* dst = out.data_ptr<float>();
    for (int64_t i = 0; i < in.numel(); ++i)
        dst[i] = seen > 0 && src[i] > 0.f ? src[i] : 0.f;
    return out;
}
"""

ext = load_inline(name="kt_setup_probe", cpp_sources=[SOURCE], functions=["probe", "relu_if"],
                  extra_cflags=["-O2"])
TARGET = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "{area}")


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.seen = ext.probe(TARGET)

    def forward(self, x):
        return ext.relu_if(x, self.seen)
'''


def test_native_code_in_the_constructor_cannot_see_the_references_private_outputs() -> None:
    # The probe's imports (opendir) and file access are what the source scans and the
    # link policy refuse first: off, so the sandbox's mounts are what is shown.
    options = CheckOptions(hidden_seed=3, compile_baseline=False, timing=ONE_CALL_TIMING,
                           source_scans=False, link_policy=False)
    control = check("L1/relu", PROBE.replace("{area}", "candidate"), options=options)
    assert control.status == "correct", control.reasons  # the probe sees what it may see
    probed = check("L1/relu", PROBE.replace("{area}", "private"), options=options)
    assert probed.status == "incorrect", probed.reasons


#: Native code in the first correctness call, which now runs while the reference worker
#: computes that seed's outputs (into its private directory) and draws the next seed's
#: inputs (into ``exchange/``, which the candidate's job reads): it polls a directory of
#: the session for up to 3 s until it holds ``{want}`` entries. The outputs are right
#: only if it saw them, on this call and every later one.
RUN_PROBE = r'''
import os, torch, torch.nn as nn
from torch.utils.cpp_extension import load_inline

SOURCE = r"""
#include <torch/extension.h>
#include <dirent.h>
#include <unistd.h>
#include <string>

static int64_t entries(const std::string& path) {
    int64_t seen = 0;
    if (DIR* dir = opendir(path.c_str())) {
        while (struct dirent* entry = readdir(dir))
            if (entry->d_name[0] != '.') ++seen;
        closedir(dir);
    }
    return seen;
}

static int64_t seen = -1;

torch::Tensor relu_if(torch::Tensor x, std::string path, int64_t want) {
    if (seen < 0) {
        for (int round = 0; round < 300 && (seen = entries(path)) < want; ++round)
            usleep(10000);
    }
    auto in = x.contiguous();
    auto out = torch::empty_like(in);
    const float* src = in.data_ptr<float>();
    float* dst = out.data_ptr<float>();
    for (int64_t i = 0; i < in.numel(); ++i)
        dst[i] = seen >= want && src[i] > 0.f ? src[i] : 0.f;
    return out;
}
"""

ext = load_inline(name="kt_run_probe", cpp_sources=[SOURCE], functions=["relu_if"],
                  extra_cflags=["-O2"])
TARGET = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "{area}")


class ModelNew(nn.Module):
    def forward(self, x):
        return ext.relu_if(x, TARGET, {want})
'''


def test_the_reference_works_during_the_candidates_run_and_stays_out_of_its_reach() -> None:
    options = CheckOptions(hidden_seed=3, compile_baseline=False, timing=ONE_CALL_TIMING,
                           source_scans=False, link_policy=False)
    # exchange/ holds the first seed's inputs; the second seed's appear during the run.
    overlapped = check("L1/relu", RUN_PROBE.replace("{area}", "exchange").replace("{want}", "2"),
                       options=options)
    assert overlapped.status == "correct", overlapped.reasons
    # The reference's outputs for the very inputs the candidate runs on are written then
    # too, where its job cannot look.
    probed = check("L1/relu", RUN_PROBE.replace("{area}", "private").replace("{want}", "1"),
                   options=options)
    assert probed.status == "incorrect", probed.reasons


def test_a_forward_that_hangs_while_the_reference_works_is_the_candidates_timeout() -> None:
    source = candidate("relu_ok").replace(
        "    def forward(self, x):\n",
        "    def forward(self, x):\n        import time\n        time.sleep(3600)\n", 1)
    assert "time.sleep(3600)" in source
    _assert_its_own_timeout(source, "run[")


#: A wrong matmul (zeros, at once) that starves the reference worker's work beside its
#: correctness run: its first call starts a watcher thread that waits until the worker
#: has saved the run's outputs (its reply follows at once) and then forks 120 processes
#: spinning for 20 s, each in a session of its own. The reference is still multiplying then: had
#: the parent waited for it first, the job would have spun on until the reference missed
#: its timeout, an ``error`` (never charged, left out of fast_p) in place of the
#: candidate's own failure. The candidate's reply is read first, which freezes its job,
#: threads and all, and the reference then gets its whole budget alone.
STARVE = r'''
import os, torch, torch.nn as nn
from torch.utils.cpp_extension import load_inline

SOURCE = r"""
#include <torch/extension.h>
#include <dirent.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <string>

#define KT_JOIN(a, b) a##b  // the thread's creation pasted past the source scan

static std::string watched;

static void* spin(void*) {
    timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    do clock_gettime(CLOCK_MONOTONIC, &now); while (now.tv_sec - start.tv_sec < 20);
    return nullptr;
}

static bool saved() {
    bool found = false;
    if (DIR* dir = opendir(watched.c_str())) {
        while (struct dirent* entry = readdir(dir))
            if (strncmp(entry->d_name, "outputs-", 8) == 0) found = true;
        closedir(dir);
    }
    return found;
}

static void* watch(void*) {
    while (!saved()) usleep(1000);
    // Processes in sessions of their own: where the kernel shares the CPU between
    // sessions (autogroup), each gets the share the reference's whole job gets.
    for (int i = 0; i < 120; ++i)
        if (fork() == 0) { setsid(); spin(nullptr); _exit(0); }
    return nullptr;
}

torch::Tensor product(torch::Tensor a, torch::Tensor b, std::string out_dir) {
    if (watched.empty()) {
        watched = out_dir;
        pthread_t thread;
        if (KT_JOIN(pthread_, create)(&thread, nullptr, watch, nullptr) == 0)
            pthread_detach(thread);
    }
    return torch::zeros({a.size(0), b.size(1)}, a.options());  // no work: a wrong answer
}
"""

ext = load_inline(name="kt_starve_reference", cpp_sources=[SOURCE], functions=["product"],
                  extra_cflags=["-O2"])
OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "candidate-out")


class ModelNew(nn.Module):
    def forward(self, a, b):
        return ext.product(a, b, OUT)
'''


def test_a_candidate_that_starves_the_reference_beside_its_run_gets_its_own_verdict() -> None:
    # The thread and the processes are what the link policy refuses first: off (and the
    # thread's creation pasted past the source scan), so what is shown is the stages' order.
    options = CheckOptions(hidden_seed=3, compile_baseline=False, timing=ONE_CALL_TIMING,
                           source_scans=False, link_policy=False, call_timeout_s=3.0)
    verdict = check("L1/matmul_square", STARVE, options=options)
    # Its own failure: the wrong answer, the processes, or its next run starved by its own
    # spinners (this machine's kernel shares the CPU per session, which also spared the
    # reference here before the order changed; tests/verifier/test_stage_order.py pins
    # the order itself).
    assert verdict.status in ("rejected", "incorrect", "timeout"), (verdict.status, verdict.reasons)
    assert not any(reason.startswith("harness:") for reason in verdict.reasons), verdict.reasons
