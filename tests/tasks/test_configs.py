"""Hidden configurations (docs/design/interfaces.md, "Hidden configurations") and constant
substitution."""

from __future__ import annotations

import pytest

from kerneltrials.tasks import (
    apply_config,
    draw_hidden_configs,
    list_tasks,
    load_task,
    shape_configs,
)
from kerneltrials.tasks._instantiate import load_task_module
from tests.tasks.conftest import a_task_source

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def planted(write_task):
    return load_task(write_task("planted", a_task_source()))


def test_hidden_configs_are_deterministic_per_seed(planted):
    assert draw_hidden_configs(planted, "cpu", 7) == draw_hidden_configs(planted, "cpu", 7)


def test_hidden_configs_differ_across_seeds():
    task = load_task("L1/matmul_batched")
    drawn = {str(draw_hidden_configs(task, "cpu", seed)) for seed in range(5)}
    assert len(drawn) == 5


def test_hidden_configs_are_clipped_rounded_and_near_public(planted):
    for seed in range(40):
        for public, hidden in zip(planted.public_configs("cpu"),
                                  draw_hidden_configs(planted, "cpu", seed), strict=True):
            assert 1 <= hidden["rows"] <= 100
            assert 8 <= hidden["cols"] <= 300
            assert hidden["cols"] % 8 == 0
            # Rounding to a multiple of 8 may move a value by at most 4 past the factor band.
            assert 0.7 * public["cols"] - 4 <= hidden["cols"] <= 1.3 * public["cols"] + 4
            assert round(0.7 * public["rows"]) <= hidden["rows"] <= round(1.3 * public["rows"])


def test_every_builtin_hidden_config_is_near_its_public_one():
    for task in list_tasks(1):
        for profile in ("cpu", "gpu"):
            publics = task.public_configs(profile)
            for public, hidden in zip(publics, draw_hidden_configs(task, profile, 3), strict=True):
                assert set(hidden) == set(public)
                for name, value in hidden.items():
                    low, high = task.ranges[name]
                    multiple = task.multiple_of.get(name, 1)
                    slack = multiple // 2  # rounding to a multiple may pass the factor band
                    assert low <= value <= high, (task.id, name)
                    assert value % multiple == 0, (task.id, name)
                    assert round(0.7 * public[name]) - slack <= value, (task.id, name)
                    assert value <= round(1.3 * public[name]) + slack, (task.id, name)


def test_shape_configs_show_hidden_only_with_a_seed(planted):
    assert [c.kind for c in shape_configs(planted, "cpu", None)] == ["public", "public"]
    names = [c.name for c in shape_configs(planted, "cpu", 1)]
    assert names == ["public-0", "public-1", "hidden-0", "hidden-1"]


def test_apply_config_makes_derived_constants_follow(planted):
    source = apply_config(planted.source, {"cols": 31})
    assert "cols = 31" in source
    module = load_task_module(planted, {"cols": 31})
    assert module.cols == 31
    assert module.half == 15
    assert module.get_inputs()[0].shape == (64, 31)
