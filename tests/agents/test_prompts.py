"""Prompts, the worked examples and the hardware description."""

from __future__ import annotations

import ast
import os

import pytest

from kerneltrials.agents import describe_hardware, initial_messages, system_prompt, worked_example
from kerneltrials.agents._hardware import (
    describe_cpu,
    describe_gpu,
    parse_cpuinfo,
    parse_lscpu_caches,
    read_sysfs_caches,
)

CPUINFO = """\
processor\t: 0
model name\t: Example CPU 9000
physical id\t: 0
core id\t\t: 0
flags\t\t: fpu sse4_2 avx avx2 fma avx512f avx512bw amx_tile
processor\t: 1
model name\t: Example CPU 9000
physical id\t: 0
core id\t\t: 0
flags\t\t: fpu sse4_2 avx avx2 fma avx512f avx512bw amx_tile
processor\t: 2
model name\t: Example CPU 9000
physical id\t: 0
core id\t\t: 1
flags\t\t: fpu sse4_2 avx avx2 fma avx512f avx512bw amx_tile
"""

LSCPU = """\
Architecture:            x86_64
  L1d cache:             96 KiB (2 instances)
  L2 cache:              4 MiB (2 instances)
  L3 cache:              480 MiB (1 instance)
"""


def test_parse_cpuinfo():
    info = parse_cpuinfo(CPUINFO)
    assert info == {
        "model": "Example CPU 9000",
        "simd": ["sse4_2", "avx", "avx2", "fma", "avx512f", "avx512bw", "amx_tile"],
        "logical_cpus": 3,
        "physical_cores": 2,
    }


def test_parse_arm_cpuinfo():
    info = parse_cpuinfo("processor : 0\nFeatures : fp asimd sve\nprocessor : 1\n")
    assert info["simd"] == ["asimd", "sve"] and info["logical_cpus"] == 2


def test_parse_lscpu_caches():
    assert parse_lscpu_caches(LSCPU) == [
        "L1d 96 KiB (2 instances)",
        "L2 4 MiB (2 instances)",
        "L3 480 MiB (1 instance)",
    ]


def test_read_sysfs_caches(tmp_path):
    for index, (level, kind, size) in enumerate(
        [("1", "Data", "48K"), ("1", "Instruction", "32K"), ("2", "Unified", "2048K")]
    ):
        folder = tmp_path / "cpu0" / "cache" / f"index{index}"
        folder.mkdir(parents=True)
        (folder / "level").write_text(level + "\n")
        (folder / "type").write_text(kind + "\n")
        (folder / "size").write_text(size + "\n")
    assert read_sysfs_caches(tmp_path) == ["L1d 48K", "L1i 32K", "L2 2048K"]


def test_describe_cpu_from_files(tmp_path):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(CPUINFO)
    text = describe_cpu(cpuinfo, sysfs_root=tmp_path)  # no sysfs caches: falls back to lscpu
    assert "Example CPU 9000" in text and "avx512f" in text
    assert f"{len(os.sched_getaffinity(0))} usable logical CPUs" in text


def test_describe_this_machine_never_fails():
    text = describe_hardware("cpu")
    assert text.startswith("CPU: ") and "SIMD:" in text


def test_describe_gpu():
    text = describe_gpu(
        {"name": "NVIDIA H100", "sm_count": 132, "memory_gib": 80, "extra_limit": 7, "unset": None}
    )
    assert text.splitlines() == [
        "GPU: NVIDIA H100",
        "SMs: 132",
        "Memory (GiB): 80",
        "extra_limit: 7",
    ]
    assert describe_hardware("cuda", {"name": "X"}) == "GPU: X"


@pytest.mark.parametrize(
    ("backend", "needle"),
    [("cpu", "cpp_sources=add_source"), ("cuda", "cuda_sources=add_cuda_source")],
)
def test_worked_examples_are_candidates_for_their_backend(backend, needle):
    reference, candidate = worked_example(backend)
    for source in (reference, candidate):
        ast.parse(source)
    assert "class Model(nn.Module)" in reference and "class ModelNew(nn.Module)" in candidate
    assert needle in candidate and "load_inline(" in candidate
    assert candidate in system_prompt(backend)


def test_initial_messages_carry_task_configs_and_hardware():
    system, user = initial_messages(
        "class Model: pass", "cpu", hardware="CPU: test box", configs=[{"rows": 3}]
    )
    assert (system.role, user.role) == ("system", "user")
    assert "cpp_sources" in system.content and "-fopenmp" in system.content
    assert "class Model: pass" in user.content and "{'rows': 3}" in user.content
    assert "CPU: test box" in user.content


def test_unknown_backend_lists_the_valid_ones():
    with pytest.raises(ValueError, match="choose one of cuda, cpu"):
        system_prompt("metal")


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_cpu_worked_example_compiles_and_is_correct(tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TORCH_EXTENSIONS_DIR", str(tmp_path))
    namespace: dict = {}
    exec(compile(worked_example("cpu")[1], "candidate.py", "exec"), namespace)  # our own example
    a, b = torch.randn(10_007), torch.randn(10_007)
    assert torch.equal(namespace["ModelNew"]()(a, b), a + b)
