"""Input seeds derive from the run's secret: no constant a candidate could know in advance."""

from __future__ import annotations

import ast
from pathlib import Path

from kerneltrials.verifier.harness._seeds import (
    derived_seed,
    input_seeds,
    pool_seeds,
    timing_pool_size,
)
from kerneltrials.verifier.protocol import FRESH_OFFSETS

VERIFIER = Path(__file__).resolve().parents[2] / "kerneltrials" / "verifier"


def test_seeds_are_deterministic_per_secret_and_differ_between_secrets() -> None:
    assert input_seeds(7, "public-0", 4) == input_seeds(7, "public-0", 4)
    assert input_seeds(7, "public-0", 4) != input_seeds(8, "public-0", 4)
    assert pool_seeds(7, "public-0", 3) != pool_seeds(8, "public-0", 3)


def test_seeds_differ_between_configurations_purposes_and_indices() -> None:
    seeds = input_seeds(7, "public-0", 4)
    assert len(set(seeds)) == 4
    assert set(seeds).isdisjoint(input_seeds(7, "hidden-0", 4))
    assert set(seeds).isdisjoint(pool_seeds(7, "public-0", 3))
    assert all(0 <= seed < 2**31 for seed in seeds + pool_seeds(7, "public-0", 3))
    assert derived_seed(7, "a", 1) != derived_seed(7, "a1")  # parts are separated


def test_fresh_inputs_draw_one_timing_set_and_no_fewer_distinct_inputs_than_three_did() -> None:
    # With plain copies the sets are all that differ between timed calls; with fresh
    # inputs the offsets are, and one set at FRESH_OFFSETS offsets must hold at least as
    # many distinct inputs per tensor as the three sets at 2**20 offsets of before.
    assert timing_pool_size(fresh_inputs=False) == 3
    assert timing_pool_size(fresh_inputs=True) == 1
    assert timing_pool_size(fresh_inputs=True) * FRESH_OFFSETS >= 3 * 2**20


def test_no_input_seed_constant_is_left_in_the_verifier() -> None:
    """The old fixed seeds (1234, 98765, …, the timing pool's 1_000_003) are gone."""
    old = {1234, 98765, 55555, 31337, 1_000_003}
    for path in VERIFIER.rglob("*.py"):
        constants = {node.value for node in ast.walk(ast.parse(path.read_text()))
                     if isinstance(node, ast.Constant) and isinstance(node.value, int)}
        assert not constants & old, path
