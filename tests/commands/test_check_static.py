"""``kerneltrials check --static-only``: screening files and directories, fast, with --policy."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from kerneltrials.cli import cli
from tests.verifier.corpus import EXPLOITS, HONEST, load

pytestmark = pytest.mark.timeout(120)


def _write(tmp_path: Path, *names: tuple[Path, str]) -> Path:
    folder = tmp_path / "candidates"
    folder.mkdir()
    for directory, name in names:
        (folder / f"{name}.py").write_text(load(directory / f"{name}.py"))
    return folder


def test_screens_a_directory_into_a_json_list(tmp_path: Path) -> None:
    folder = _write(tmp_path, (HONEST, "relu_module_level"), (EXPLOITS, "torch_compute_direct"),
                    (EXPLOITS, "try_except_fallback"))
    result = CliRunner().invoke(cli, ["check", "L1/relu", str(folder), "--static-only", "--json"])
    assert result.exit_code == 0, result.output
    verdicts = {Path(v["candidate"]).stem: v for v in json.loads(result.output)}
    assert verdicts["relu_module_level"]["status"] == "not_run"
    assert verdicts["torch_compute_direct"]["status"] == "rejected"
    assert verdicts["try_except_fallback"]["reasons"][0].startswith("static:try_except_fallback")
    assert all(v["policy"] == "strict" for v in verdicts.values())


def test_policy_option_decides_library_compute(tmp_path: Path) -> None:
    folder = _write(tmp_path, (EXPLOITS, "cpp_library_compute"))
    path = str(folder / "cpp_library_compute.py")
    runner = CliRunner()
    strict = json.loads(runner.invoke(cli, ["check", "L1/relu", path, "--static-only", "--json"]).output)
    mixed = json.loads(runner.invoke(cli, ["check", "L1/relu", path, "--static-only", "--json",
                                           "--policy", "mixed"]).output)
    assert strict["status"] == "rejected" and strict["policy"] == "strict"
    assert mixed["status"] == "not_run" and mixed["policy"] == "mixed"
    assert any(r.startswith("note:cpp:library_compute:at::relu") for r in mixed["reasons"])


def test_several_files_need_static_only(tmp_path: Path) -> None:
    folder = _write(tmp_path, (HONEST, "relu_module_level"))
    result = CliRunner().invoke(cli, ["check", "L1/relu", str(folder)])
    assert result.exit_code == 2 and "--static-only" in result.output


def test_screening_does_not_import_torch(tmp_path: Path) -> None:
    folder = _write(tmp_path, (HONEST, "relu_module_level"), (EXPLOITS, "threads"))
    code = ("import sys\nfrom kerneltrials.cli import cli\n"
            f"try:\n    cli(['check', 'L1/relu', {str(folder)!r}, '--static-only', '--json'])\n"
            "except SystemExit:\n    pass\n"
            "print('TORCH', 'torch' in sys.modules, file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "TORCH False" in done.stderr, done.stderr
    assert len(json.loads(done.stdout)) == 2


def test_the_inputs_option_offers_exactly_the_verifiers_modes() -> None:
    from kerneltrials.commands._common import inputs_option
    from kerneltrials.verifier._options import INPUT_MODES

    @inputs_option
    def command(inputs: str) -> None: ...

    (param,) = command.__click_params__  # type: ignore[attr-defined]
    assert tuple(param.type.choices) == INPUT_MODES
