"""Every timed call gets inputs no other call saw (issue 19, item 3): its pool set scaled
element-wise by factors at an offset the parent draws per call (worker/_fresh.py).

The native cheat (tests/verifier/native_timed/matmul_memo_by_content.py) remembers outputs
by a fingerprint of sampled input values: on plain copies of a three-set pool it is a
lookup after the first calls, `correct` at >3x; with fresh inputs its lookups are stale
answers, read out of the frozen worker and rejected.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
import torch

import kerneltrials
from kerneltrials.verifier import QUICK_TIMING, CheckOptions, Status, Verdict
from kerneltrials.verifier.protocol import FRESH_OFFSETS
from kerneltrials.verifier.worker._fresh import SCALE_SPAN, fresh_inputs, make_bank

NATIVE = Path(__file__).parent / "native_timed"
OPTIONS = CheckOptions(timing=QUICK_TIMING, compile_baseline=False, source_scans=False,
                       hidden_seed=5)


def verify(**fields: object) -> Verdict:
    options = replace(OPTIONS, **fields)  # type: ignore[arg-type]
    source = (NATIVE / "matmul_memo_by_content.py").read_text()
    return kerneltrials.check("L1/matmul_square", source, options=options)


@pytest.mark.timeout(900)
def test_memoising_by_content_is_caught_with_fresh_inputs() -> None:
    verdict = verify()
    reads = verdict.isolation.get("timed_output_reads") or {}
    if not reads.get("read"):
        pytest.skip(f"the outputs cannot be read here: {reads.get('why')}")
    assert verdict.status == Status.REJECTED, (verdict.status, verdict.reasons)
    assert any(r.startswith("integrity:timed_output_mismatch") for r in verdict.reasons), \
        verdict.reasons


@pytest.mark.alone  # it reads a speedup: beside another worker's checks it measured 1.49
@pytest.mark.timeout(900)
def test_without_fresh_inputs_the_memo_gets_through() -> None:
    # The control: on copies of a fixed pool the lookups are right answers.
    verdict = verify(fresh_inputs=False)
    assert verdict.status == Status.CORRECT, verdict.reasons
    assert (verdict.speedup or 0) > 3, verdict.speedup


def _pool() -> list[list[object]]:
    generator = torch.Generator().manual_seed(0)
    return [[torch.randn(33, 17, generator=generator),
             torch.randn(17, 9, generator=generator).t(),  # not contiguous
             torch.randint(0, 5, (12,), generator=generator),
             torch.rand(4, generator=generator) > 0.5,
             torch.randn(8, generator=generator).to(torch.bfloat16),
             3.5]]


def test_fresh_inputs_scale_floats_within_the_span_and_copy_the_rest() -> None:
    pool = _pool()
    bank = make_bank(pool, seed=11, device="cpu")
    original = pool[0]
    fresh = fresh_inputs(original, bank, offset=12345)
    for before, after in zip(original, fresh, strict=True):
        if not isinstance(before, torch.Tensor):
            assert after == before
            continue
        assert isinstance(after, torch.Tensor)
        assert after.shape == before.shape and after.dtype == before.dtype
        assert after.stride() == before.stride()
        assert after.data_ptr() != before.data_ptr()
        if before.dtype not in SCALE_SPAN:
            assert torch.equal(after, before)
            continue
        ratio = after.double() / before.double()
        span = SCALE_SPAN[before.dtype]
        slack = 1e-2 if before.dtype == torch.bfloat16 else 1e-6
        assert float(ratio.min()) >= 1 - span - slack and float(ratio.max()) <= 1 + slack
        assert len(set(ratio.flatten().tolist())) > before.numel() // 2  # element-wise


def test_each_offset_is_a_new_input_and_the_same_offset_the_same_one() -> None:
    pool = _pool()
    seen = [fresh_inputs(pool[0], make_bank(pool, seed=11, device="cpu"), offset)[0]
            for offset in (0, 1, 999_999)]
    assert not torch.equal(seen[0], seen[1]) and not torch.equal(seen[1], seen[2])
    # The reference worker rebuilds a checked call from its own bank: same seed, same input.
    again = fresh_inputs(pool[0], make_bank(pool, seed=11, device="cpu"), 999_999)[0]
    assert torch.equal(seen[2], again)
    other_seed = fresh_inputs(pool[0], make_bank(pool, seed=12, device="cpu"), 999_999)[0]
    assert not torch.equal(seen[2], other_seed)


def test_one_bank_serves_every_configuration_until_a_larger_one_needs_more() -> None:
    small = [[torch.randn(64)]]
    large = [[torch.randn(4096)]]
    first = make_bank(small, seed=11, device="cpu")
    assert make_bank(small, seed=11, device="cpu", previous=first) is first
    grown = make_bank(large, seed=11, device="cpu", previous=first)
    assert grown is not first and grown.length >= 4096
    assert make_bank(small, seed=11, device="cpu", previous=grown) is grown
    assert make_bank(small, seed=12, device="cpu", previous=grown) is not grown
    # both workers replay the same setups, so they hold the same factors for every call
    other = make_bank(large, seed=11, device="cpu", previous=make_bank(small, 11, "cpu"))
    assert torch.equal(fresh_inputs(small[0], grown, 777)[0],
                       fresh_inputs(small[0], other, 777)[0])


def test_a_bank_sized_for_the_whole_check_is_drawn_once_and_gives_the_same_inputs() -> None:
    small, large = [[torch.randn(64)]], [[torch.randn(4096)]]
    hinted = make_bank(small, seed=11, device="cpu", length_hint=4096 + FRESH_OFFSETS)
    assert hinted.length == 4096 + FRESH_OFFSETS
    # the larger configuration that comes next finds it long enough: no second draw
    assert make_bank(large, seed=11, device="cpu", previous=hinted,
                     length_hint=hinted.length) is hinted
    # a hint shorter than a configuration needs (its inputs could not be sized) is grown past
    assert make_bank(large, seed=11, device="cpu", length_hint=8).length >= 4096
    grown = make_bank(large, seed=11, device="cpu", previous=make_bank(small, 11, "cpu"))
    for pool in (small, large):  # a longer draw of one seed begins with the shorter one
        for offset in (0, 777, FRESH_OFFSETS - 1):
            assert torch.equal(fresh_inputs(pool[0], hinted, offset)[0],
                               fresh_inputs(pool[0], grown, offset)[0])
    assert make_bank([[torch.arange(8)]], seed=11, device="cpu", length_hint=99).length == 0


def test_the_parent_sizes_the_bank_for_every_configuration_on_meta(tmp_path: Path) -> None:
    from kerneltrials.tasks import load_task, shape_configs
    from kerneltrials.verifier.harness._bank import bank_length

    task = load_task("L1/sum_dim")
    configs = shape_configs(task, "cpu", hidden_seed=20240)
    largest = max(c.overrides["batch"] * c.overrides["reduce"] * c.overrides["inner"]
                  for c in configs)
    assert bank_length(task, configs) == largest + FRESH_OFFSETS
    assert bank_length(task, configs[:1]) < bank_length(task, configs)
    # a task whose inputs cannot be drawn on meta sends no hint: the workers grow the bank
    path = tmp_path / "data_dependent.py"
    path.write_text(Path(kerneltrials.__file__).parent.joinpath(
        "tasks", "level1", "relu.py").read_text().replace(
        "def get_inputs():", "def get_inputs():\n    int(torch.randn(4).nonzero()[0])", 1))
    odd = load_task(path)
    assert bank_length(odd, shape_configs(odd, "cpu", hidden_seed=1)) == 0


def test_without_an_offset_a_call_gets_a_plain_copy() -> None:
    pool = _pool()
    copied = fresh_inputs(pool[0], make_bank(pool, seed=11, device="cpu"), None)
    assert all(torch.equal(a, b) for a, b in zip(pool[0][:5], copied[:5], strict=True))
