"""Both workers set up a configuration at once (``_stages._setup_config``): the
reference's request is in flight while the candidate builds ``ModelNew``, so a candidate
that fails or hangs there must still get its own verdict, never the reference's."""

from __future__ import annotations

import pytest

from kerneltrials.verifier import QUICK_TIMING, CheckOptions, check
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
        hidden_seed=3, compile_baseline=False, timing=QUICK_TIMING))
    assert verdict.status == "runtime_error", verdict.reasons
    assert any("constructing ModelNew failed" in r and "no model today" in r
               for r in verdict.reasons), verdict.reasons


def test_a_constructor_that_hangs_is_the_candidates_timeout() -> None:
    source = _with_init("        import time\n        time.sleep(3600)\n")
    verdict = check("L1/relu", source, options=CheckOptions(
        hidden_seed=3, compile_baseline=False, timing=QUICK_TIMING, call_timeout_s=8.0))
    assert verdict.status == "timeout", verdict.reasons
    assert any("setup" in r for r in verdict.reasons), verdict.reasons
