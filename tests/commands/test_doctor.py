"""``kerneltrials doctor`` reports what this machine really has, with a fix for each gap."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from kerneltrials.verifier.builds._fast import find_fast_cxx

pytestmark = pytest.mark.timeout(120)


def _doctor(env: dict[str, str] | None = None) -> dict[str, dict]:
    command = [sys.executable, "-m", "kerneltrials.cli", "doctor", "--json"]
    output = subprocess.run(command, capture_output=True, text=True, check=True, env=env).stdout
    return {f"{item['area']}/{item['name']}": item for item in json.loads(output)}


def test_doctor_reports_the_compilers_the_builds_use() -> None:
    findings = _doctor()
    assert findings["compilers/c++"]["ok"] == (shutil.which("c++") is not None)
    fast = findings["compilers/clang++ (fast builds)"]
    assert fast["ok"] == (find_fast_cxx() is not None)
    if fast["ok"]:
        assert fast["detail"].startswith(str(find_fast_cxx())) and "clang version" in fast["detail"]
    for finding in findings.values():  # every gap says how to close it
        assert finding["ok"] or finding["fix"] or finding["name"] == "missing", finding


def test_doctor_follows_the_fast_compiler_override() -> None:
    env = {**os.environ, "KERNELTRIALS_CXX": "stock"}  # the fast path switched off
    fast = _doctor(env)["compilers/clang++ (fast builds)"]
    assert not fast["ok"] and "clang" in fast["fix"]


def test_doctor_names_the_openmp_runtime_cpu_timings_run_on() -> None:
    name = "compilers/OpenMP runtime (CPU timing)"
    default = _doctor()[name]
    native = _doctor({**os.environ, "KERNELTRIALS_OPENMP": "native"})[name]
    assert native["ok"] and "native" in native["detail"]
    if find_fast_cxx() is not None:
        assert default["ok"] and "libomp.so.5" in default["detail"], default
    else:
        assert "native" in default["detail"]


def test_doctor_says_whether_cuda_sources_are_split() -> None:
    name = "compilers/CUDA split builds"
    default = _doctor({k: v for k, v in os.environ.items() if k != "KERNELTRIALS_CUDA_SPLIT"})[name]
    assert default["ok"] == (find_fast_cxx() is not None), default
    off = _doctor({**os.environ, "KERNELTRIALS_CUDA_SPLIT": "0"})[name]
    assert not off["ok"] and "KERNELTRIALS_CUDA_SPLIT" in off["fix"]


def test_doctor_reports_what_a_job_gets_from_inside() -> None:
    findings = _doctor()
    privileges = findings["sandbox/job privileges"]
    assert privileges["ok"], privileges  # setpriv is part of util-linux: always here
    assert "capabilities none" in privileges["detail"] and "no_new_privs True" in privileges["detail"]
    if os.geteuid() == 0:  # a root harness drops to nobody and empties the bounding set
        assert privileges["detail"].startswith("uid 65534 gid 65534")
        assert "bounding set 0x0" in privileges["detail"]
    assert findings["sandbox//proc/sys read-only"]["detail"] == "read-only"
    view = findings["sandbox/minimal view"]
    assert "/etc/shadow unreadable" in view["detail"]
    if findings["sandbox/readonly_root"]["ok"]:  # bwrap: the minimal view and a quota
        assert view["ok"] and "checkout invisible" in view["detail"], view
        assert findings["sandbox/scratch quota"]["detail"].startswith("1024 MiB")
    quota = findings["sandbox/output quota"]
    assert quota["ok"] == (os.geteuid() == 0), quota  # a root harness mounts it
    assert not list(Path(tempfile.gettempdir()).glob("kt-doctor-*"))  # the probe is gone
