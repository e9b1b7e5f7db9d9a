"""A Python installation under /tmp (a CI runner's venv) stays visible inside bwrap,
whose fresh /tmp would otherwise hide it: every worker would fail to start."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from kerneltrials.sandbox import JobSpec, SandboxLimits, build_job_env
from kerneltrials.sandbox._namespaces import probe_level


def test_a_runtime_under_tmp_is_bound_over_the_fresh_tmp(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> None:
    if probe_level("bwrap") is not None:
        pytest.skip("bwrap unavailable on this machine")
    from kerneltrials.sandbox._process import ProcessSandbox

    prefix = Path("/tmp") / f"kt-prefix-{tmp_path.name}"
    request.addfinalizer(lambda: shutil.rmtree(prefix, ignore_errors=True))
    (prefix / "bin").mkdir(parents=True, exist_ok=True)
    program = prefix / "bin" / "hello"
    program.write_text("#!/bin/sh\necho hello-from-tmp\n")
    program.chmod(0o755)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(sys, "prefix", str(prefix))  # where the sandbox looks for Python
    job = ProcessSandbox(isolation="bwrap").start(JobSpec(
        argv=[str(program)], env=build_job_env(), scratch_dir=scratch,
        limits=SandboxLimits(wall_timeout_s=20)))
    info = job.wait()

    assert info is not None
    assert info.returncode == 0, info.stderr
    assert info.stdout.strip() == "hello-from-tmp"
