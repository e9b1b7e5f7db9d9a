"""Hidden configurations derived for task files without a TASK dict (KernelBench's format):
sizes scaled around the file's own constants, checked on the meta device (issue 23)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from kerneltrials.tasks import load_task, shape_configs
from kerneltrials.tasks._derive import MIN_SIZE, derive_hidden_configs, runs_on_meta

pytestmark = pytest.mark.timeout(120)

KERNELBENCH_RELU = Path(__file__).resolve().parents[1] / "data" / "kernelbench" / "level1" / "19_ReLU.py"

#: KernelBench-style: no TASK, sizes as module constants, the reference enforcing that the
#: hidden size splits into heads.
HEADS = '''
import torch
import torch.nn as nn

batch_size = 96
hidden = 768
heads = 4
dim = 1


class Model(nn.Module):
    def __init__(self, heads):
        super().__init__()
        self.heads = heads

    def forward(self, x):
        b, n = x.shape
        if n % self.heads:
            raise ValueError("hidden must split into heads")
        return torch.softmax(x.view(b, self.heads, n // self.heads), dim=-1).view(b, n)


def get_inputs():
    return [torch.randn(batch_size, hidden)]


def get_init_inputs():
    return [heads]
'''


def test_a_kernelbench_file_gets_a_derived_hidden_configuration_per_seed() -> None:
    task = load_task(str(KERNELBENCH_RELU))
    assert not task.has_task_dict
    drawn = []
    for seed in (1, 2, 3, 4):
        configs = shape_configs(task, "cpu", seed)
        assert [c.kind for c in configs] == ["public", "hidden"]
        assert configs[0].overrides == {}  # the file's own constants stay the public one
        hidden = configs[1].overrides
        assert set(hidden) == {"batch_size", "dim"}
        for name, value in hidden.items():
            assert 0.69 * task.constants[name] <= value <= 1.31 * task.constants[name]
        assert runs_on_meta(task, hidden)
        drawn.append(hidden)
    assert len({str(d) for d in drawn}) == 4  # the secret seed decides them
    assert shape_configs(task, "cpu", 2) == shape_configs(task, "cpu", 2)


def test_constraints_the_reference_enforces_are_kept_and_small_constants_stay(
        write_task: Callable[[str, str], Path]) -> None:
    task = load_task(str(write_task("heads_task", HEADS)))
    assert not runs_on_meta(task, {"hidden": 769})  # the reference's own rule, on meta
    for seed in range(6):
        (config,) = derive_hidden_configs(task, "cpu", seed)
        assert config["hidden"] % 4 == 0, config  # redrawn until the reference runs
        assert "heads" not in config and "dim" not in config  # below MIN_SIZE: kept
        assert config["batch_size"] >= MIN_SIZE


def test_no_derived_configuration_when_nothing_can_confirm_one(
        write_task: Callable[[str, str], Path]) -> None:
    # Data-dependent output shape: the reference cannot run on meta, so no draw is checked.
    data_dependent = HEADS.replace(
        "return torch.softmax(x.view(b, self.heads, n // self.heads), dim=-1).view(b, n)",
        "return x[x > 0]")
    assert derive_hidden_configs(load_task(str(write_task("nonzero", data_dependent))),
                                 "cpu", 1) == []
    # Only small constants: nothing is a size.
    tiny = HEADS.replace("batch_size = 96", "batch_size = 4").replace("hidden = 768", "hidden = 4")
    assert derive_hidden_configs(load_task(str(write_task("tiny", tiny))), "cpu", 1) == []


RESIDUAL = '''
import torch
import torch.nn as nn

batch_size = 64
in_features = 1000
out_features = 1000


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        return x + self.linear(x)  # a residual: out_features must equal in_features


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
'''


def test_equal_sizes_the_reference_needs_equal_stay_equal(
        write_task: Callable[[str, str], Path]) -> None:
    task = load_task(str(write_task("residual", RESIDUAL)))
    for seed in range(4):
        (config,) = derive_hidden_configs(task, "cpu", seed)
        assert config["in_features"] == config["out_features"], config
        assert runs_on_meta(task, config)


def test_sizes_written_as_integer_arithmetic_are_sizes_and_names_follow(
        write_task: Callable[[str, str], Path]) -> None:
    # KernelBench writes many sizes as products (``N = 2048 * 2``); one computed from
    # another constant is no constant of its own, so it follows the one it is made from.
    source = (HEADS.replace("batch_size = 96", "batch_size = 48 * 2")
              .replace("hidden = 768", "hidden = 3 * 2 ** 8\nwide = hidden * 2\nbad = 2 ** 99"))
    task = load_task(str(write_task("products", source)))
    assert task.constants["batch_size"] == 96 and task.constants["hidden"] == 768
    assert "wide" not in task.constants and "bad" not in task.constants
    (config,) = derive_hidden_configs(task, "cpu", 5)
    assert set(config) == {"batch_size", "hidden"} and config["hidden"] % 4 == 0
