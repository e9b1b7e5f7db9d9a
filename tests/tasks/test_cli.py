"""``kerneltrials tasks`` through click's CliRunner."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kerneltrials.commands.tasks import tasks
from tests.tasks.conftest import a_task_source

pytestmark = pytest.mark.timeout(120)


def _run(*args: str):
    return CliRunner().invoke(tasks, list(args))


def test_list_json_parses_and_has_ids_levels_names_tags():
    result = _run("list", "--level", "1", "--json")
    assert result.exit_code == 0, result.output
    items = json.loads(result.output)
    assert len(items) == 100
    relu = next(item for item in items if item["id"] == "L1/relu")
    assert relu["level"] == 1 and relu["name"] == "relu" and "memory-bound" in relu["tags"]


def test_show_json_has_configs_with_costs_and_no_hidden_ones_without_a_seed():
    result = _run("show", "L1/matmul_square", "--profile", "cpu", "--json")
    assert result.exit_code == 0, result.output
    details = json.loads(result.output)
    configs = details["configs"]["cpu"]
    assert [c["kind"] for c in configs] == ["public"] * 3
    n = configs[0]["constants"]["n"]
    assert configs[0]["flops"] == 2 * n**3
    assert configs[0]["bytes"] == 3 * n * n * 4


def test_show_hidden_seed_previews_hidden_configs():
    result = _run("show", "L1/relu", "--hidden-seed", "4", "--no-cost", "--json")
    kinds = [c["kind"] for c in json.loads(result.output)["configs"]["gpu"]]
    assert kinds == ["public"] * 3 + ["hidden"] * 3


def test_show_human_output_is_a_table():
    result = _run("show", "L1/relu", "--profile", "cpu")
    assert result.exit_code == 0
    assert "public-0" in result.output and "rows=509" in result.output


def test_unusable_task_file_exits_2_with_message_on_stderr(tmp_path):
    path = tmp_path / "broken.py"
    path.write_text(a_task_source(forward="torch.tanh(x"))
    result = _run("show", str(path), "--json")
    assert result.exit_code == 2
    assert "syntax error" in result.stderr
    assert result.stdout == ""


def test_validate_exits_1_on_a_degenerate_task_and_0_on_a_good_one(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text(a_task_source(forward="torch.relu(torch.relu(x))"))
    good = tmp_path / "good.py"
    good.write_text(a_task_source(forward="torch.tanh(x) * 2.0"))
    result = _run("validate", str(bad), "--json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)[0]
    assert "degenerate:redundant_op[relu_1]" in [p["code"] for p in report["problems"]]
    assert _run("validate", str(good), "--json").exit_code == 0


def test_export_and_import_commands(tmp_path):
    exported = _run("export", str(tmp_path / "ds"), "--level", "1", "--json")
    assert exported.exit_code == 0, exported.output
    assert len(json.loads(exported.stdout)["tasks"]) == 100
    imported = _run("import", str(tmp_path / "ds"), "--dest", str(tmp_path / "t"), "--json")
    assert imported.exit_code == 0, imported.output
    assert {item["id"] for item in json.loads(imported.stdout)} >= {"kb/L1/relu", "kb/L1/gelu"}


def test_show_marks_the_cpu_sizes_derived_for_a_gpu_sized_kernelbench_file(
        tmp_path, monkeypatch):
    from pathlib import Path

    monkeypatch.setenv("KERNELTRIALS_CACHE", str(tmp_path))  # measured here, not remembered
    path = (Path(__file__).resolve().parents[1] / "data" / "kernelbench" / "level1"
            / "1_Square_matrix_multiplication_.py")
    result = _run("show", str(path), "--json")
    assert result.exit_code == 0, result.output
    configs = json.loads(result.output)["configs"]
    (cpu,), (gpu,) = configs["cpu"], configs["gpu"]
    assert cpu["derived"] and cpu["constants"]["N"] < 4096
    assert not gpu["derived"] and gpu["constants"]["N"] == 4096
    human = _run("show", str(path), "--profile", "cpu")
    assert "public-0" in human.output and "(derived)" in human.output  # cells may wrap
