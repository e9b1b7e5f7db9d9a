"""Honest CUDA candidates are ``correct`` on the GPU, and their timings make sense."""

from __future__ import annotations

import pytest

from kerneltrials.verifier import Status
from tests.gpu import sources
from tests.gpu._checks import check_cuda, summary

HONEST = {
    "elementwise": ("L1/relu", sources.relu_work(0)),
    "reduction": ("L1/sum_dim", sources.SUM_DIM),
    "tiled_matmul": ("L1/matmul_square", sources.MATMUL_TILED),
    "bf16": ("L1/relu_bf16", sources.RELU_BF16),
    "backward": ("L1/selu_backward", sources.SELU_BACKWARD),
    "fused_level2": ("L2/conv2d_bn_relu", sources.CONV_BN_RELU),
}


@pytest.mark.timeout(600)
@pytest.mark.parametrize("label", sorted(HONEST))
def test_honest_candidate_is_correct(label: str, figures) -> None:
    task, source = HONEST[label]
    verdict = check_cuda(task, source)
    figures(kind="honest", label=label, task=task, **summary(verdict))
    assert verdict.status == Status.CORRECT, verdict.reasons
    assert verdict.speedup is not None and verdict.speedup > 0
