"""Agent-facing feedback never reveals hidden configurations."""

from __future__ import annotations

import pytest

from kerneltrials.agents import format_feedback
from kerneltrials.agents.feedback import REDACTED
from kerneltrials.verifier import Verdict


def a_config(name, kind, params, passed=True, **extra):
    return {"name": name, "kind": kind, "params": params, "passed": passed, **extra}


def a_verdict(**fields):
    verdict = {
        "task": "L1/relu",
        "backend": "cpu",
        "status": "incorrect",
        "speedup": None,
        "reasons": ["correctness:max_abs_err=0.5 on public-1"],
        "configs": [
            a_config(
                "public-0",
                "public",
                {"rows": 509, "cols": 4093},
                max_abs_err=0.0,
                max_norm_err=0.0,
                times_ms={
                    "candidate": {"median": 1.25, "iqr": 0.05, "n": 40},
                    "eager": {"median": 2.5, "iqr": 0.1, "n": 40},
                },
            ),
            a_config(
                "public-1",
                "public",
                {"rows": 64, "cols": 65521},
                passed=False,
                max_abs_err=0.5,
                max_norm_err=0.125,
                detail="worst mismatch at (3, 17): got 1.5, expected 1.0",
            ),
            a_config("hidden-0", "hidden", {"rows": 7331, "cols": 4093}, max_abs_err=0.0),
            a_config(
                "hidden-1",
                "hidden",
                {"rows": 611, "cols": 48213},
                passed=False,
                max_abs_err=0.75,
                detail="worst mismatch at (600, 48000)",
            ),
            a_config("hidden-2", "hidden", {"rows": 1000, "cols": 999}, passed=False),
        ],
    }
    return {**verdict, **fields}


def test_public_configurations_are_shown_in_full():
    text = format_feedback(a_verdict())
    assert "public-0 {'rows': 509, 'cols': 4093}: passed" in text
    assert "public-1 {'rows': 64, 'cols': 65521}: FAILED" in text
    assert "max_abs_err=0.5, max_norm_err=0.125" in text
    assert "worst mismatch at (3, 17): got 1.5, expected 1.0" in text
    assert "candidate: median 1.25 ms, IQR 0.05 ms, n=40" in text
    assert "eager: median 2.5 ms" in text
    assert "Status: incorrect" in text and "correctness:max_abs_err=0.5 on public-1" in text


def test_hidden_configurations_are_only_counted():
    text = format_feedback(a_verdict())
    assert "Hidden configurations: 1 passed, 2 failed" in text
    for secret in (
        "hidden-0",
        "hidden-1",
        "7331",
        "611",
        "48213",
        "1000",
        "999",
        "0.75",
        "600, 48000",
    ):
        assert secret not in text


@pytest.mark.parametrize(
    "reason",
    [
        "correctness:max_abs_err=0.75 on hidden-1",
        "correctness: failed at rows=7331",
        "runtime:shape (611, 48213)",
    ],
)
def test_reasons_about_hidden_configurations_are_redacted(reason):
    text = format_feedback(a_verdict(reasons=[reason]))
    assert reason not in text and REDACTED in text


def test_reasons_with_public_values_are_kept():
    reason = "correctness: failed at cols=4093"  # 4093 is public, though a hidden config shares it
    assert reason in format_feedback(a_verdict(reasons=[reason]))


def test_speedups_are_shown_for_a_correct_kernel():
    text = format_feedback(
        a_verdict(status="correct", speedup=1.8342, speedup_compile=0.91, reasons=[])
    )
    assert "Speedup vs PyTorch eager (geometric mean): 1.834x" in text
    assert "Speedup vs torch.compile: 0.910x" in text


def test_long_details_are_clipped():
    log = "x" * 5000
    text = format_feedback(
        {"status": "compile_error", "reasons": [log], "configs": []}, max_detail_chars=100
    )
    assert "x" * 100 in text and "x" * 101 not in text and "more characters" in text


def test_a_verdict_object_reads_as_its_json_form():
    """Strategies pass ``Verdict`` objects; README's ``format_feedback(v.to_dict())`` too."""
    verdict = Verdict.model_validate(a_verdict())
    text = format_feedback(verdict)
    assert text == format_feedback(verdict.to_dict())
    assert "Hidden configurations: 1 passed, 2 failed" in text and "7331" not in text
    assert "worst mismatch at (3, 17): got 1.5, expected 1.0" in text
