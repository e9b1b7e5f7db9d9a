"""The link policy reads stock builds too (issue 19, item 6).

Any failure of the fast build path falls back to stock ``load_inline``, and a candidate
can cause one at will: a function whose signature the fast path cannot read (defined
through a macro here), or code clang rejects and g++ accepts. Stock compiles the
candidate and the module it generates from ``functions=`` in one unit, and until
2026-11-28 that unit was not read at all (``note:link:unchecked:stock_build``): a
CPython call in such a candidate went through. Now the compile job gives stock the
section flags and keeps its units, and the parent reads them with the generated module's
init (``PyInit_<module>``) set aside as harness code; an exported pointer the job adds per
bound function keeps each function's own code reached, ``static``, in an anonymous
namespace, or inlined into the module alike (``builds/_symbols.StockModule``).
"""

from __future__ import annotations

import uuid

import pytest

import kerneltrials
from kerneltrials.verifier import QUICK_TIMING, CheckOptions, Status, Verdict
from tests.verifier.corpus import TASKS

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

STRICT = TASKS / "tiny_relu.py"

_TEMPLATE = r'''
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

SOURCE = r"""
#include <torch/extension.h>
// Defined through a macro: the fast path cannot read the signature, so stock builds it.
#define KT_RELU(name) torch::Tensor name(torch::Tensor x)
extern "C" void* kt_frame() __asm__("PyEval_" "GetFrame");  // no scan sees the name
{open}
{linkage}KT_RELU(relu_stock) {{
    auto input = x.contiguous();
    auto out = torch::empty_like(input);
    const float* in = input.data_ptr<float>();
    float* o = out.data_ptr<float>();
    for (int64_t i = 0; i < input.numel(); ++i) o[i] = in[i] > 0.f ? in[i] : 0.f;
    {forbidden}
    return out;
}}
{close}
"""

ext = load_inline(name="kt_stock_link_{name}", cpp_sources=[SOURCE], functions=["relu_stock"],
                  extra_cflags=["-O1"])


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return ext.relu_stock(x)
'''

_FORBIDDEN = "if (input.numel() == 7919) (void)kt_frame();  // never on the task's shapes"


def candidate(name: str, linkage: str = "", namespace: bool = False,
              forbidden: str = _FORBIDDEN) -> str:
    # A fresh comment each run: a cold build, so the verdict shows the stock path.
    return _TEMPLATE.format(name=name, linkage=linkage, forbidden=forbidden,
                            open=f"// {uuid.uuid4()}\n" + ("namespace {" if namespace else ""),
                            close="}" if namespace else "")


OPTIONS = CheckOptions(timing=QUICK_TIMING, compile_baseline=False, call_timeout_s=60,
                       source_scans=False, hidden_seed=11)


def verify(source: str) -> Verdict:
    verdict = kerneltrials.check(STRICT, source, options=OPTIONS)
    assert verdict.build["paths"][0].startswith("stock"), verdict.build  # what is under test
    return verdict


@pytest.mark.parametrize(("name", "linkage", "namespace"), [
    ("global", "", False), ("static", "static ", False), ("anonymous", "", True)])
def test_a_cpython_call_in_a_stock_build_is_rejected(name: str, linkage: str,
                                                     namespace: bool) -> None:
    verdict = verify(candidate(name, linkage, namespace))
    assert verdict.status == Status.REJECTED, (verdict.status, verdict.reasons)
    assert "link:forbidden_symbol:PyEval_GetFrame" in verdict.reasons, verdict.reasons


def test_an_honest_stock_build_is_read_and_clean() -> None:
    verdict = verify(candidate("honest", forbidden=""))
    assert verdict.status == Status.CORRECT, verdict.reasons
    assert not [r for r in verdict.reasons if "link:" in r], verdict.reasons
