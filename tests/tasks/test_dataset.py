"""Export to / import from Hugging Face ``datasets`` directories."""

from __future__ import annotations

import json

import pytest

from kerneltrials.tasks import TaskError, builtin_task_paths, load_task
from kerneltrials.tasks._dataset import export_tasks, import_tasks

datasets = pytest.importorskip("datasets")
pytestmark = pytest.mark.timeout(120)

KB_RELU = '''import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)


batch_size = 16
dim = 16384


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
'''


def test_export_then_import_round_trips_every_builtin_task_byte_for_byte(tmp_path):
    ids = export_tasks(tmp_path / "ds")
    assert ids == list(builtin_task_paths())
    loaded = datasets.load_from_disk(str(tmp_path / "ds"))
    assert set(loaded.column_names) == {"id", "level", "name", "source", "metadata"}
    relu = next(row for row in loaded if row["id"] == "L1/relu")
    assert json.loads(relu["metadata"])["level"] == 1
    imported = import_tasks(tmp_path / "ds", dest=tmp_path / "out")
    assert len(imported) == len(ids)
    for task in imported:
        original = builtin_task_paths()[task.source_id]
        assert task.path.read_bytes() == original.read_bytes(), task.source_id
        assert task.id == "kb/" + task.source_id


def test_a_kernelbench_style_dataset_imports_with_kb_ids(tmp_path):
    rows = {"code": [KB_RELU, KB_RELU.replace("relu", "tanh")], "level": [1, 2],
            "name": ["19_ReLU.py", "22_Tanh.py"], "problem_id": [19, 22]}
    datasets.Dataset.from_dict(rows).save_to_disk(str(tmp_path / "kb"))
    imported = import_tasks(tmp_path / "kb", dest=tmp_path / "tasks")
    assert [t.id for t in imported] == ["kb/L1/19_ReLU", "kb/L2/22_Tanh"]
    task = load_task(imported[0].path)
    assert task.id == "kb/L1/19_ReLU"
    assert task.level == 1
    assert imported[0].path.read_text() == KB_RELU


def test_level_comes_from_split_names_when_there_is_no_level_column(tmp_path):
    split = datasets.Dataset.from_dict({"code": [KB_RELU], "problem_id": [3]})
    datasets.DatasetDict({"level_3": split}).save_to_disk(str(tmp_path / "kb"))
    imported = import_tasks(tmp_path / "kb", dest=tmp_path / "tasks")
    assert [t.id for t in imported] == ["kb/L3/problem_3"]


def test_a_row_that_is_not_a_task_writes_nothing(tmp_path):
    rows = {"code": [KB_RELU, "print('hello')"], "level": [1, 1], "name": ["a", "b"]}
    datasets.Dataset.from_dict(rows).save_to_disk(str(tmp_path / "kb"))
    with pytest.raises(TaskError, match="row 1"):
        import_tasks(tmp_path / "kb", dest=tmp_path / "tasks")
    assert not (tmp_path / "tasks").exists()
