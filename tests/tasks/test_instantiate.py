"""Building the reference: the seeding contract the verifier reproduces for ModelNew."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import torch

from kerneltrials.tasks import TaskError, load_task
from kerneltrials.tasks._instantiate import load_task_module, make_reference
from tests.tasks.conftest import a_task_source

pytestmark = pytest.mark.timeout(60)


def test_same_seed_gives_identical_weights_and_inputs():
    task = load_task("L1/conv1d")
    overrides = {"batch": 2, "length": 33}
    model_a, inputs_a = make_reference(task, overrides, seed=5)
    model_b, inputs_b = make_reference(task, overrides, seed=5)
    for (name, a), b in zip(model_a.state_dict().items(), model_b.state_dict().values(), strict=True):
        assert torch.equal(a, b), name
    assert torch.equal(inputs_a[0], inputs_b[0])


def test_different_seeds_give_different_weights_and_inputs():
    task = load_task("L1/conv1d")
    model_a, inputs_a = make_reference(task, {"batch": 2}, seed=5)
    model_b, inputs_b = make_reference(task, {"batch": 2}, seed=6)
    assert not torch.equal(model_a.conv.weight, model_b.conv.weight)
    assert not torch.equal(inputs_a[0], inputs_b[0])


def test_documented_seeding_reproduces_the_weights_and_inputs():
    task = load_task("L1/layernorm")
    model, inputs = make_reference(task, {"tokens": 5}, seed=11)
    module = load_task_module(task, {"tokens": 5})
    init_inputs = module.get_init_inputs()
    torch.manual_seed(11)
    again = module.Model(*init_inputs)
    torch.manual_seed(12)
    assert torch.equal(module.get_inputs()[0], inputs[0])
    assert torch.equal(again.norm.weight, model.norm.weight)
    assert not model.training


def test_floating_values_are_cast_to_the_task_dtype_and_integers_kept(write_task):
    source = a_task_source(forward="x[0] + self.w", inputs="[torch.randn(rows, cols), torch.arange(rows)]")
    source = source.replace('"float32"', '"bfloat16"').replace(
        "super().__init__()", "super().__init__()\n        self.w = nn.Parameter(torch.randn(cols))")
    source = source.replace("def forward(self, x):", "def forward(self, x, idx):")
    task = load_task(write_task("bf16", source))
    model, inputs = make_reference(task, None, seed=0)
    assert inputs[0].dtype == torch.bfloat16
    assert inputs[1].dtype == torch.int64
    assert model.w.dtype == torch.bfloat16


def test_task_modules_do_not_stay_in_sys_modules(write_task):
    task = load_task(write_task("clean", a_task_source()))
    module = load_task_module(task, None)
    assert module.__name__.startswith("kt_task_")
    assert module.__name__ not in sys.modules


def test_a_task_that_raises_while_executing_is_a_task_error(write_task):
    source = a_task_source().replace("half = cols // 2", "half = cols // 0")
    task = load_task(write_task("raises", source))
    with pytest.raises(TaskError, match="ZeroDivisionError"):
        make_reference(task, None, seed=0)


KB_LEVEL4_STYLE = '''
import torch
import torch.nn as nn
{imports}

batch_size = 2


class Model(nn.Module):
    def forward(self, x):
        return x


def get_inputs():
    return [torch.randn(batch_size, 4)]


def get_init_inputs():
    return []
'''


@pytest.mark.parametrize("imports", ["from transformers import AutoConfig", "import einops"])
def test_a_file_needing_the_kernelbench_extra_names_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, imports: str) -> None:
    for name in ("transformers", "einops"):  # absent here, whatever this machine has
        monkeypatch.setitem(sys.modules, name, None)
    path = tmp_path / "kb_level4.py"
    path.write_text(KB_LEVEL4_STYLE.format(imports=imports))
    with pytest.raises(TaskError) as raised:
        load_task_module(load_task(path))
    assert "pip install 'kerneltrials[kernelbench]'" in raised.value.cause


def test_a_missing_module_no_extra_provides_gets_no_install_hint(tmp_path: Path) -> None:
    path = tmp_path / "needs_nothing_we_ship.py"
    path.write_text(KB_LEVEL4_STYLE.format(imports="import kt_no_such_module_anywhere"))
    with pytest.raises(TaskError) as raised:
        load_task_module(load_task(path))
    assert "kt_no_such_module_anywhere" in raised.value.cause
    assert "pip install" not in raised.value.cause


def test_signed_inputs_flip_random_signs_of_nonnegative_floats_only(
        write_task: Callable[..., Path]) -> None:
    from kerneltrials.tasks._instantiate import make_inputs

    inputs = "[torch.rand(rows, cols), torch.randn(rows, cols), torch.arange(rows)]"
    task = load_task(write_task("mixed_inputs", a_task_source(inputs=inputs)))
    module = load_task_module(task)
    plain = make_inputs(module, task, seed=5)
    signed = make_inputs(module, task, seed=5, signed=True)
    assert bool((signed[0] < 0).any()) and bool((signed[0] > 0).any())
    assert torch.equal(signed[0].abs(), plain[0])  # the file's magnitudes, signs drawn
    assert torch.equal(signed[1], plain[1])  # already signed: as drawn
    assert torch.equal(signed[2], plain[2])  # an index tensor: never touched
    again = make_inputs(module, task, seed=5, signed=True)
    assert torch.equal(again[0], signed[0])  # a function of the seed
    assert not torch.equal(make_inputs(module, task, seed=6, signed=True)[0].sign(),
                           signed[0].sign())
