"""Loading task files: every unusable file gives a TaskError naming the file and cause."""

from __future__ import annotations

import pytest

from kerneltrials.tasks import TaskError, load_task
from tests.tasks.conftest import a_task_source

pytestmark = pytest.mark.timeout(60)


@pytest.mark.parametrize(("source", "cause"), [
    (a_task_source(forward="torch.tanh(x"), "syntax error"),
    (a_task_source().replace("class Model", "class Other"), "class Model"),
    (a_task_source().replace("def get_inputs", "def make_inputs"), "get_inputs()"),
    (a_task_source().replace("def get_init_inputs", "def init_inputs"), "get_init_inputs()"),
    (a_task_source().replace("TASK = {", "TASK = dict(**{").replace(
        '"backward": False,\n}', '"backward": False,\n})'), "literal dict"),
    (a_task_source().replace('"backward": False,', '"backward": False, "speed": 3,'),
     "unknown keys ['speed']"),
    (a_task_source().replace('"gpu": [', '"tpu": ['), "unknown profile 'tpu'"),
    (a_task_source().replace('{"rows": 33, "cols": 127}', '{"rows": 33, "width": 127}'),
     "['width'], which are not module-level constants"),
    (a_task_source().replace('"cpu": [{"rows": 64, "cols": 255}, {"rows": 33, "cols": 127}]',
                             '"cpu": {"rows": 64}'), "must be a list of dicts"),
    (a_task_source().replace('"rows": [1, 100]', '"rows": [100, 1]'), "ranges['rows']"),
    (a_task_source().replace('"dtype": "float32"', '"dtype": "int8"'), "dtype 'int8'"),
])
def test_unusable_task_files_raise_task_error_naming_file_and_cause(write_task, source, cause):
    path = write_task("broken", source)
    with pytest.raises(TaskError) as caught:
        load_task(path)
    assert str(path) in str(caught.value)
    assert cause in caught.value.cause


def test_unknown_task_id_suggests_close_ids():
    with pytest.raises(TaskError, match="did you mean L1/relu"):
        load_task("relu")


def test_a_good_file_loads_with_its_metadata(write_task):
    task = load_task(write_task("good", a_task_source()))
    assert task.id == "path:good"
    assert task.level == 1
    assert task.constants["cols"] == 255
    assert "half" not in task.constants  # derived, not a literal: never overridden
    assert task.public_configs("cpu") == [{"rows": 64, "cols": 255}, {"rows": 33, "cols": 127}]


def test_builtin_level1_has_a_hundred_tasks_with_required_metadata():
    from kerneltrials.tasks import list_tasks

    tasks = list_tasks(1)
    assert len(tasks) == 100
    for task in tasks:
        assert task.has_task_dict, task.id
        assert any(tag in task.tags for tag in ("memory-bound", "compute-bound")), task.id
        for profile in ("cpu", "gpu"):
            configs = task.configs[profile]
            assert len(configs) == 3, (task.id, profile)
            sizes = [v for c in configs for v in c.values()]
            assert any(v % 2 == 1 and v > 1 for v in sizes), (task.id, profile)
        for config in task.configs["cpu"] + task.configs["gpu"]:
            for name, value in config.items():
                low, high = task.ranges[name]
                assert low <= value <= high, (task.id, name, value)
        assert task.public_configs("cpu")[0] == {
            k: task.constants[k] for k in task.public_configs("cpu")[0]}, task.id
