"""Profiler feedback: perf parsing, rendering, and a real profile."""

from __future__ import annotations

import pytest

import kerneltrials
from kerneltrials.agents import format_feedback
from kerneltrials.verifier import QUICK_TIMING, CheckOptions
from kerneltrials.verifier.harness._profiling import parse_perf_csv, summarise_profile
from tests.verifier.candidates import candidate

PERF_OUTPUT = """\
12.5,msec,task-clock,12500000,100.00,0.9,CPUs utilized
<not supported>,,cycles,0,100.00,,
3000,,instructions,1000,100.00,,
"""

def test_perf_csv_reads_counters_and_names_the_unsupported_ones() -> None:
    counters, note = parse_perf_csv(PERF_OUTPUT)
    assert counters == {"task-clock": 12.5, "instructions": 3000.0}
    assert "cycles" in note and "not supported" in note


def test_feedback_shows_the_profile_and_its_notes() -> None:
    profile = summarise_profile([{"op": "custom code", "self_ms_per_call": 1.5, "calls": 1}],
                                {"cycles": 100.0, "instructions": 250.0}, "perf: partial", "perf")
    text = format_feedback({"status": "correct", "speedup": 1.2, "profile": profile})
    assert "custom code: 1.500 ms self" in text
    assert "instructions_per_cycle: 2.5" in text and "Note: perf: partial" in text


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_a_correct_candidate_gets_a_profile_naming_its_own_code() -> None:
    options = CheckOptions(timing=QUICK_TIMING, compile_baseline=False, seeds=1,
                           profile_feedback=True)
    verdict = kerneltrials.check("L1/relu", candidate("relu_ok"), hidden_seed=2, options=options)
    assert verdict.status == "correct", verdict.reasons
    assert verdict.profile is not None and verdict.profile["top_ops"]
    assert any(row["op"].startswith("custom code") for row in verdict.profile["top_ops"])
