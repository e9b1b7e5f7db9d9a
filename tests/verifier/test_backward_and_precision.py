"""The backward contract and a low-precision task, through real builds and workers.

One C++ source serves every candidate here (one cached build): forward, a correct
backward, a backward that forgets the ReLU mask, and a bfloat16 ReLU.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

import kerneltrials
from kerneltrials.verifier import CheckOptions, Status
from kerneltrials.verifier.harness._backward import compare_gradients
from tests.timings import ONE_CALL_TIMING

pytestmark = pytest.mark.timeout(600)

SOURCE = r'''
#include <torch/extension.h>

torch::Tensor forward(torch::Tensor x, torch::Tensor scale) {
    auto out = torch::empty_like(x);
    const float* in = x.data_ptr<float>(); const float* s = scale.data_ptr<float>();
    float* y = out.data_ptr<float>();
    const int64_t rows = x.size(0), cols = x.size(1);
    #pragma omp parallel for
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c) {
            float v = in[r * cols + c];
            y[r * cols + c] = (v > 0.f ? v : 0.f) * s[c];
        }
    return out;
}

static std::vector<torch::Tensor> backward_impl(torch::Tensor grad, torch::Tensor x,
                                                torch::Tensor scale, bool mask) {
    auto grad_x = torch::empty_like(x);
    auto grad_scale = torch::empty_like(scale);
    const float* g = grad.data_ptr<float>(); const float* in = x.data_ptr<float>();
    const float* s = scale.data_ptr<float>();
    float* gx = grad_x.data_ptr<float>(); float* gs = grad_scale.data_ptr<float>();
    const int64_t rows = x.size(0), cols = x.size(1);
    #pragma omp parallel for
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c) {
            float v = in[r * cols + c];
            gx[r * cols + c] = (!mask || v > 0.f) ? g[r * cols + c] * s[c] : 0.f;
        }
    #pragma omp parallel for
    for (int64_t c = 0; c < cols; ++c) {
        double acc = 0.0;
        for (int64_t r = 0; r < rows; ++r) {
            float v = in[r * cols + c];
            acc += (double)g[r * cols + c] * (v > 0.f ? v : 0.f);
        }
        gs[c] = (float)acc;
    }
    return {grad_x, grad_scale};
}

std::vector<torch::Tensor> backward_ok(torch::Tensor grad, torch::Tensor x, torch::Tensor scale) {
    return backward_impl(grad.contiguous(), x, scale, true);
}

std::vector<torch::Tensor> backward_unmasked(torch::Tensor grad, torch::Tensor x, torch::Tensor scale) {
    return backward_impl(grad.contiguous(), x, scale, false);
}

torch::Tensor relu_bf16(torch::Tensor x) {
    auto out = torch::empty_like(x);
    const at::BFloat16* in = x.data_ptr<at::BFloat16>();
    at::BFloat16* y = out.data_ptr<at::BFloat16>();
    const int64_t n = x.numel();
    #pragma omp parallel for
    for (int64_t i = 0; i < n; ++i) y[i] = static_cast<float>(in[i]) > 0.f ? in[i] : at::BFloat16(0.f);
    return out;
}
'''

TEMPLATE = '''
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

ext = load_inline(name="kt_test_backward", cpp_sources=[{source!r}],
                  functions=["forward", "backward_ok", "backward_unmasked", "relu_bf16"],
                  extra_cflags=["-O2", "-fopenmp"], extra_ldflags=["-fopenmp"])


class ReluScale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale):
        x = x.contiguous()
        ctx.save_for_backward(x, scale)
        return ext.forward(x, scale)

    @staticmethod
    def backward(ctx, grad):
        x, scale = ctx.saved_tensors
        grad_x, grad_scale = ext.{backward}(grad, x, scale)
        return grad_x, grad_scale


class ModelNew(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(features))

    def forward(self, x):
        return {body}
'''


def _candidate(backward: str = "backward_ok", body: str = "ReluScale.apply(x, self.scale)") -> str:
    return TEMPLATE.format(source=SOURCE, backward=backward, body=body)


def _check(task: str | Path, source: str) -> kerneltrials.verifier.Verdict:
    options = CheckOptions(timing=ONE_CALL_TIMING, compile_baseline=False, seeds=1, hidden_seed=4)
    return kerneltrials.check(task, source, options=options)


TASK = Path(__file__).resolve().parent.parent / "data" / "backward" / "relu_scale.py"


def test_gradient_comparison_table() -> None:
    grad = torch.tensor([1.0, -2.0, 3.0])
    expected = {"input_grads": [grad, None], "param_grads": {"w": grad}}
    assert compare_gradients(expected, {"input_grads": [grad.clone(), None],
                                        "param_grads": {"w": grad.clone()}}, 1e-4, 1e-4).passed
    wrong = compare_gradients(expected, {"input_grads": [grad * 1.01, None],
                                         "param_grads": {"w": grad}}, 1e-4, 1e-4)
    assert not wrong.passed and "grad_input0" in wrong.reasons[0]
    missing = compare_gradients(expected, {"input_grads": [grad, None], "param_grads": {}},
                                1e-4, 1e-4)
    assert missing.reasons == ["correctness:grad_missing[grad[w]]"]


@pytest.mark.slow
def test_a_correct_custom_backward_passes() -> None:
    verdict = _check(TASK, _candidate())
    assert verdict.status == Status.CORRECT, verdict.reasons


@pytest.mark.slow
def test_a_wrong_gradient_fails() -> None:
    verdict = _check(TASK, _candidate("backward_unmasked"))
    assert verdict.status == Status.INCORRECT
    assert any("grad_input0" in reason for reason in verdict.reasons), verdict.reasons


@pytest.mark.slow
def test_a_backward_computed_by_pytorch_is_rejected_under_strict() -> None:
    # The forward is a custom kernel; the backward quietly uses PyTorch ops.
    source = _candidate().replace(
        "grad_x, grad_scale = ext.backward_ok(grad, x, scale)",
        "grad_x, grad_scale = grad * scale * (x > 0), (grad * x.clamp(min=0)).sum(0)")
    assert "clamp(min=0)" in source
    verdict = _check(TASK, source)
    assert verdict.status == Status.REJECTED, verdict.reasons
    assert any(r.startswith("policy:torch_compute_in_backward") for r in verdict.reasons)


@pytest.mark.slow
def test_a_bfloat16_task_is_judged_with_the_low_precision_tolerance() -> None:
    source = _candidate(body="ext.relu_bf16(x.contiguous())").replace(
        "def __init__(self, features):", "def __init__(self):").replace(
        "self.scale = nn.Parameter(torch.randn(features))", "pass")
    assert "relu_bf16(x.contiguous())" in source
    verdict = _check("L1/relu_bf16", source)
    assert verdict.status == Status.CORRECT, verdict.reasons
    assert all(config.max_abs_err == 0 for config in verdict.configs)
