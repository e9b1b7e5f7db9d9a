"""The mixed policy weighs work, not op names (issue 19, item 7).

The op weights (worker/_op_work.py) count a fused PyTorch op as the primitive ops it
fuses; the rule (harness/_work_share.py) wants the candidate's own code to do at least a
quarter of one kind of the reference's work. End to end: PyTorch doing the whole
computation with ops other than the reference's, beside a compiled function that only
copies (from Python, and from C++ through the dispatcher), is ``policy:passthrough``; a
candidate that leaves one of two ops to PyTorch is ``correct`` with its share in the
verdict. All candidates share one C++ source, so the build cache answers all but the first.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

import kerneltrials
from kerneltrials.verifier import QUICK_TIMING, CheckOptions, Status, Verdict
from kerneltrials.verifier.harness._work_share import (
    MIN_OWN_SHARE,
    MalformedWork,
    checked_work,
    is_passthrough,
    own_shares,
)
from kerneltrials.verifier.protocol import WORK_KINDS
from kerneltrials.verifier.worker._op_work import op_work, signature, total_work

TASKS = Path(__file__).parents[1] / "data" / "mixed_work"
aten = torch.ops.aten


def work(func: object, *args: object, **kwargs: object) -> dict[str, float]:
    return op_work(signature(func, args, kwargs))


def test_a_fused_op_weighs_what_the_ops_it_fuses_weigh() -> None:
    x, y = torch.randn(8, 16), torch.randn(8, 16)
    by_hand = [work(aten.neg.default, x), work(aten.exp.default, x),
               work(aten.add.Tensor, x, 1.0), work(aten.reciprocal.default, x)]
    assert work(aten.sigmoid.default, x)["pointwise"] == sum(w["pointwise"] for w in by_hand)
    axpy = work(aten.mul.Tensor, x, 1.7)["pointwise"] + work(aten.add.Tensor, x, y)["pointwise"]
    assert work(aten.add.Tensor, y, x, alpha=1.7)["pointwise"] == axpy == 2 * x.numel()
    assert work(aten.add.Tensor, y, x)["pointwise"] == x.numel()


def test_contractions_weigh_flops_and_their_bias() -> None:
    x, weight, bias = torch.randn(8, 16), torch.randn(32, 16), torch.randn(32)
    linear = work(aten.addmm.default, bias, x, weight.t())
    assert linear == {"contraction": 2 * 8 * 16 * 32, "pointwise": 8 * 32}
    assert work(aten.mm.default, x, weight.t()) == {"contraction": 2 * 8 * 16 * 32,
                                                     "pointwise": 0}
    image, kernel = torch.randn(1, 3, 8, 8), torch.randn(4, 3, 3, 3)
    args = ([1, 1], [0, 0], [1, 1], False, [0, 0], 1)
    with_bias = work(aten.convolution.default, image, kernel, torch.randn(4), *args)
    without = work(aten.convolution.default, image, kernel, None, *args)
    assert with_bias["contraction"] == without["contraction"] > 0
    assert with_bias["pointwise"] == 4 * 6 * 6 and without["pointwise"] == 0


def test_dtype_and_device_arguments_are_weighed_not_guessed() -> None:
    x = torch.randn(8, 16)
    plain = work(aten._log_softmax.default, x, -1, False)["pointwise"]
    assert plain > 4 * x.numel()  # max, subtract, exp, sum, log: more than a primitive's worth
    assert work(aten.log_softmax.int, x, -1, dtype=torch.float32)["pointwise"] == plain
    assert work(aten.full.default, [8, 16], 1.0, dtype=torch.float32,
                device=torch.device("cpu"))["pointwise"] == 0


def test_an_op_that_cannot_be_weighed_counts_one_primitive_and_never_raises() -> None:
    x = torch.randn(4, 4)
    assert work(aten.nonzero.default, x)["pointwise"] == 16  # no meta kernel
    unrebuildable = (aten.relu.default, ("U", (("T", (4, 4), (4, 1), "torch.float32"),
                                              ("Y", "no_such_dtype"))), ())
    assert op_work(unrebuildable) == {"contraction": 0.0, "pointwise": 16.0}
    assert work(aten.mul.Tensor, x.to_sparse(), 2.0)["pointwise"] == 16  # no strides


def test_views_and_copies_weigh_nothing_and_counts_multiply() -> None:
    x = torch.randn(8, 16)
    assert work(aten.cat.default, [x, x], 0) == {"contraction": 0, "pointwise": 0}
    assert work(aten.clone.default, x) == {"contraction": 0, "pointwise": 0}
    from collections import Counter
    relu = signature(aten.relu.default, (x,), {})
    assert total_work(Counter({relu: 3}))["pointwise"] == 3 * op_work(relu)["pointwise"]


def test_the_rule_judges_each_kind_apart() -> None:
    gemm_and_epilogue = {"contraction": 1e9, "pointwise": 1e5}
    # PyTorch's GEMM, the candidate's epilogue: 0% and 100% of the two kinds, not a passthrough
    shares = own_shares(gemm_and_epilogue, {"contraction": 1e9, "pointwise": 0})
    assert shares == {"contraction": 0.0, "pointwise": 1.0} and not is_passthrough(shares)
    # PyTorch did everything (more than the reference, even): 0% of each
    shares = own_shares(gemm_and_epilogue, {"contraction": 2e9, "pointwise": 3e5})
    assert shares == {"contraction": 0.0, "pointwise": 0.0} and is_passthrough(shares)
    # just under and at the threshold
    under = own_shares({"pointwise": 100.0}, {"pointwise": 100.0 * (1 - MIN_OWN_SHARE) + 1})
    at = own_shares({"pointwise": 100.0}, {"pointwise": 100.0 * (1 - MIN_OWN_SHARE)})
    assert is_passthrough(under) and not is_passthrough(at)
    # a reference with no compute has nothing to pass through
    assert not is_passthrough(own_shares({"contraction": 0.0, "pointwise": 0.0}, {}))


@pytest.mark.parametrize("record", [{"pointwise": -1.0}, {"pointwise": float("nan")},
                                    {"pointwise": float("-inf")}, {"elsewhere": 1.0}])
def test_a_work_record_a_candidate_could_forge_is_refused(record: dict[str, float]) -> None:
    with pytest.raises(MalformedWork):
        checked_work(record, WORK_KINDS)
    assert checked_work({"pointwise": 2}, WORK_KINDS) == {"contraction": 0.0, "pointwise": 2.0}


KERNELS_CPP = r'''
#include <torch/extension.h>

// A copy: a compiled function whose output is used, and that computes nothing.
torch::Tensor copy_kernel(torch::Tensor x) {
    auto input = x.contiguous();
    auto out = torch::empty_like(input);
    const float* in = input.data_ptr<float>();
    float* o = out.data_ptr<float>();
    for (int64_t i = 0; i < input.numel(); ++i) o[i] = in[i];
    return out;
}

// Honest: an element-wise sum.
torch::Tensor add_kernel(torch::Tensor a, torch::Tensor b) {
    auto x = a.contiguous(), y = b.contiguous();
    auto out = torch::empty_like(x);
    const float* p = x.data_ptr<float>();
    const float* q = y.data_ptr<float>();
    float* o = out.data_ptr<float>();
    for (int64_t i = 0; i < x.numel(); ++i) o[i] = p[i] + q[i];
    return out;
}

// Native passthrough: the logistic function by PyTorch, called from C++ (dispatched).
torch::Tensor sigmoid_from_cpp(torch::Tensor x) { return copy_kernel(at::sigmoid(x)); }
'''

CANDIDATE = '''
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

ext = load_inline(name="mixed_work_kernels", cpp_sources=[{source!r}],
                  functions=["copy_kernel", "add_kernel", "sigmoid_from_cpp"],
                  extra_cflags=["-O2"])


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, {args}):
        return {body}
'''


def candidate(args: str, body: str) -> str:
    return CANDIDATE.format(source=KERNELS_CPP, args=args, body=body)


FAST = CheckOptions(timing=QUICK_TIMING, compile_baseline=False, call_timeout_s=60)


def verify(task: str, source: str) -> Verdict:
    return kerneltrials.check(TASKS / task, source, hidden_seed=11, compile_baseline=False,
                              options=FAST)


#: name -> (task, forward's arguments, its body). Each computes the right answer.
PASSTHROUGHS = {
    # the op names differ from the reference's (add vs mul + add): the old rule let it by
    "fused_add_alpha": ("axpy.py", "x, y", "ext.copy_kernel(torch.add(y, x, alpha=1.7))"),
    "fused_sigmoid": ("sigmoid_by_hand.py", "x", "ext.copy_kernel(torch.sigmoid(x))"),
    "sigmoid_from_cpp": ("sigmoid_by_hand.py", "x", "ext.sigmoid_from_cpp(x)"),
}


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.parametrize("name", sorted(PASSTHROUGHS))
def test_pytorch_doing_all_the_work_is_a_passthrough(name: str) -> None:
    task, args, body = PASSTHROUGHS[name]
    verdict = verify(task, candidate(args, body))
    assert verdict.status == Status.REJECTED, verdict.reasons
    # sigmoid_by_hand's `1.0 / t` is a reciprocal and a multiply: torch.sigmoid's four
    # primitives are 80% of the reference's five, still a passthrough
    assert any(r.startswith("policy:passthrough:") and ("pointwise 0%" in r or
                                                         "pointwise 20%" in r)
               for r in verdict.reasons), verdict.reasons


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_leaving_one_op_of_two_to_pytorch_is_correct_and_the_share_is_in_the_verdict() -> None:
    verdict = verify("axpy.py", candidate("x, y", "ext.add_kernel(x * 1.7, y)"))
    assert verdict.status == Status.CORRECT, verdict.reasons
    shares = [result.own_work_shares for result in verdict.configs]
    assert shares and all(share == {"pointwise": 0.5} for share in shares), shares
