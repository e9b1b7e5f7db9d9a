"""``validate`` rejects planted degenerate tasks of each kind and passes the built-in ones."""

from __future__ import annotations

import pytest

from kerneltrials.tasks import builtin_task_paths, load_task
from kerneltrials.tasks._validate import validate_task
from tests.tasks.conftest import a_task_source

pytestmark = pytest.mark.timeout(120)

TWO_INPUTS = {"def forward(self, x):": "def forward(self, x, y):"}
WITH_WEIGHTS = {"super().__init__()": "super().__init__()\n"
                "        self.scale = nn.Parameter(torch.randn(cols))\n"
                "        self.shift = nn.Parameter(torch.randn(cols))"}


def _codes(write_task, name: str, source: str, **options) -> tuple[bool, set[str]]:
    report = validate_task(load_task(write_task(name, source)), **options)
    return report.ok, {p.code for p in report.problems if p.severity == "error"}


@pytest.mark.parametrize(("name", "source", "code"), [
    ("constant", a_task_source(forward="torch.ones_like(x).sum(dim=1)"),
     "degenerate:constant_output"),
    ("near_zero", a_task_source(forward="torch.tanh(x) * 1e-6"), "degenerate:near_zero_output"),
    ("ignores_y", a_task_source(forward="torch.tanh(x)",
                                inputs="[torch.randn(rows, cols), torch.randn(rows, cols)]",
                                **TWO_INPUTS), "degenerate:ignores_input[1]"),
    ("ignores_weight", a_task_source(forward="x * self.scale + self.shift - self.shift",
                                     **WITH_WEIGHTS), "degenerate:ignores_weight[shift]"),
    ("double_relu", a_task_source(forward="torch.relu(torch.relu(x))"),
     "degenerate:redundant_op[relu_1]"),
    ("cancelling", a_task_source(forward="torch.log(torch.exp(torch.tanh(x)))"),
     "degenerate:redundant_op[log+exp]"),
    ("transpose_twice", a_task_source(forward="torch.tanh(x).t().t() * 2.0"),
     "degenerate:redundant_op[t_1+t]"),
    ("unsigned", a_task_source(forward="torch.tanh(x)", inputs="[torch.rand(rows, cols)]"),
     "degenerate:nonnegative_inputs"),
    ("crashes", a_task_source(forward="torch.tanh(x)",
                              inputs="[torch.randn(rows, cols).view(rows, 5, -1)]"),
     "config:crash[public-1]"),
    ("nan", a_task_source(forward="torch.log(x)"), "degenerate:nonfinite_output"),
])
def test_planted_degenerate_tasks_are_rejected(write_task, name, source, code):
    ok, codes = _codes(write_task, name, source)
    assert not ok
    assert code in codes, codes


def test_a_healthy_planted_task_passes(write_task):
    source = a_task_source(forward="x * self.scale + self.shift", **WITH_WEIGHTS)
    ok, codes = _codes(write_task, "healthy", source)
    assert ok, codes


def test_epsilon_additions_are_not_reported_as_redundant(write_task):
    source = a_task_source(forward="x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)")
    ok, codes = _codes(write_task, "eps", source)
    assert ok, codes


def test_runtime_outside_the_band_is_an_error_only_with_strict_timing(write_task):
    # Sleeping 60 ms per call is above the band whatever the machine's load.
    source = a_task_source(forward="_slow_tanh(x)").replace(
        "class Model", "def _slow_tanh(x):\n    import time\n    time.sleep(0.06)\n"
                       "    return torch.tanh(x)\n\n\nclass Model")
    path = write_task("tiny", source)
    relaxed = validate_task(load_task(path))
    strict = validate_task(load_task(path), strict_timing=True)
    assert relaxed.ok
    assert any(p.code == "timing:out_of_band[public-0]" and p.severity == "warning"
               for p in relaxed.problems)
    assert not strict.ok
    assert "timing:out_of_band[public-0]" in {p.code for p in strict.problems
                                              if p.severity == "error"}


def test_gpu_profile_without_cuda_shape_checks_on_meta(write_task):
    report = validate_task(load_task(write_task("gpu", a_task_source())), profile="gpu")
    assert report.ok
    assert report.runtime_ms == {}


def test_gpu_profile_falls_back_to_cpu_for_ops_without_a_meta_kernel(write_task):
    # nonzero's output shape depends on the values: meta cannot run it, the cpu can.
    source = a_task_source(forward="torch.tanh(x) + torch.nonzero(x > 0).shape[0]")
    report = validate_task(load_task(write_task("gpu_nonzero", source)), profile="gpu")
    assert report.ok, [p for p in report.problems if p.severity == "error"]
    assert any(p.code.startswith("meta:unsupported[") and p.severity == "warning"
               for p in report.problems)


def test_gpu_profile_fallback_still_reports_a_real_crash(write_task):
    source = a_task_source(forward="torch.tanh(x) + torch.nonzero(x > 0).view(-1, 7)")
    report = validate_task(load_task(write_task("gpu_nonzero_crash", source)), profile="gpu")
    assert not report.ok
    assert any(p.code.startswith("config:crash[") for p in report.problems)


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.parametrize("task_id", sorted(builtin_task_paths()))
def test_builtin_tasks_pass_validation(task_id):
    # Untimed: on a shared machine the band is a warning only (the band's own test is
    # test_runtime_outside_the_band_is_an_error_only_with_strict_timing), and measuring
    # every public configuration was much of this test's time.
    report = validate_task(load_task(task_id), profile="cpu", timed=False)
    assert report.runtime_ms == {}
    assert report.ok, [p for p in report.problems if p.severity == "error"]
