"""The cpu profile derived for task files sized for a GPU (KernelBench's format, issue 23):
sizes scaled down until the eager reference runs inside the band, chosen once and kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from kerneltrials.tasks import load_task, public_configs, shape_configs
from kerneltrials.tasks._cpu_profile import (
    BAND_MS,
    DerivedProfile,
    _cache_path,
    derive_cpu_profile,
    scaled_sizes,
)
from kerneltrials.tasks._derive import runs_on_meta, size_constants

pytestmark = pytest.mark.timeout(300)

KERNELBENCH = Path(__file__).resolve().parents[1] / "data" / "kernelbench"

#: KernelBench's ReLU at its published size: 4096 x 393216 floats, 6 GiB per tensor.
RELU_GPU_SIZED = '''
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x)


batch_size = 4096
dim = 393216


def get_inputs():
    return [torch.rand(batch_size, dim)]


def get_init_inputs():
    return []
'''


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test measures for itself: a kept choice of another run would answer it."""
    monkeypatch.setenv("KERNELTRIALS_CACHE", str(tmp_path / "cache"))


@pytest.fixture
def relu_gpu_sized(tmp_path: Path) -> Path:
    path = tmp_path / "kernelbench" / "level1" / "19_ReLU.py"
    path.parent.mkdir(parents=True)
    path.write_text(RELU_GPU_SIZED)
    return path


@pytest.mark.parametrize("name", ["relu", "level1/1_Square_matrix_multiplication_.py",
                                  "level2/1_Conv2D_ReLU_BiasAdd.py"])
def test_a_gpu_sized_file_gets_cpu_sizes_that_run_inside_the_band(
        name: str, relu_gpu_sized: Path) -> None:
    task = load_task(relu_gpu_sized if name == "relu" else KERNELBENCH / name)
    chosen = derive_cpu_profile(task)
    assert chosen.derived and 0 < chosen.scale < 1, chosen
    # Measured when chosen: well inside the band (the search accepts within 2x of it).
    assert chosen.eager_ms is not None and BAND_MS[0] <= chosen.eager_ms <= BAND_MS[1], chosen
    sizes = size_constants(task)
    assert set(chosen.config) == set(sizes)
    assert all(chosen.config[name] < sizes[name] for name in sizes)
    assert runs_on_meta(task, chosen.config)
    # It is the cpu profile's public configuration, and the hidden one is drawn around it;
    # the gpu profile keeps the file's own sizes.
    configs = shape_configs(task, "cpu", hidden_seed=3)
    assert [c.kind for c in configs] == ["public", "hidden"]
    assert configs[0].overrides == chosen.config
    hidden = configs[1].overrides
    assert hidden != chosen.config
    assert all(hidden[name] <= 1.31 * chosen.config[name] for name in sizes)
    assert public_configs(task, "gpu") == [{}]


def test_the_choice_is_kept_and_a_damaged_record_is_measured_again(
        relu_gpu_sized: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kerneltrials.tasks import _cpu_profile

    task = load_task(relu_gpu_sized)
    first = derive_cpu_profile(task)
    assert _cache_path(task).is_file()

    def no_measuring(*args: object, **kwargs: object) -> float:
        raise AssertionError("a kept choice is not measured again")

    monkeypatch.setattr(_cpu_profile, "eager_ms", no_measuring)
    assert derive_cpu_profile(task) == first
    _cache_path(task).write_text("{not json")
    with pytest.raises(AssertionError, match="not measured again"):
        derive_cpu_profile(task)  # damaged: measured again (here: refused by the stub)


def test_a_file_small_enough_for_the_cpu_keeps_its_own_sizes(tmp_path: Path) -> None:
    path = tmp_path / "small.py"
    path.write_text(RELU_GPU_SIZED.replace("4096", "64").replace("393216", "256"))
    task = load_task(path)
    chosen = derive_cpu_profile(task)
    assert chosen == DerivedProfile({}, 1.0, chosen.eager_ms) and not chosen.derived
    assert public_configs(task, "cpu") == [{}]


def test_sizes_shrink_far_and_keep_their_powers_of_two() -> None:
    scaled = scaled_sizes({"batch": 4096, "dim": 393216, "odd": 1000, "same": 4096}, 1 / 100)
    assert scaled["batch"] == scaled["same"] == 40  # equal sizes alike; 4096/100 -> x8
    assert scaled["dim"] % 64 == 0 and abs(scaled["dim"] - 3932) <= 32
    assert scaled["odd"] == 10  # a step of at most an eighth of the new size: 1
