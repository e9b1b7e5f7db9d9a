"""The built-in task set has the size and coverage researchers compare against."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter

import pytest

from kerneltrials.tasks import list_tasks

pytestmark = pytest.mark.timeout(120)


def test_tasks_list_json_shows_250_tasks_100_100_50_by_level() -> None:
    result = subprocess.run([sys.executable, "-m", "kerneltrials.cli", "tasks", "list", "--json"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    items = json.loads(result.stdout)
    assert len(items) == 250
    assert Counter(item["level"] for item in items) == {1: 100, 2: 100, 3: 50}
    assert len({item["id"] for item in items}) == 250


def test_coverage_of_llm_workloads_backward_and_low_precision() -> None:
    tasks = list_tasks()
    assert sum("llm" in task.tags for task in tasks) >= 20
    assert sum(task.backward for task in tasks) >= 30
    assert sum(task.dtype in ("bfloat16", "float16") for task in tasks) >= 20


def test_every_task_has_three_public_configurations_per_profile() -> None:
    for task in list_tasks():
        for profile in ("cpu", "gpu"):
            assert len(task.configs.get(profile, [])) == 3, (task.id, profile)
