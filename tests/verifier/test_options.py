"""CheckOptions → the sandbox limits every job of a check gets."""

from __future__ import annotations

from kerneltrials.verifier import CheckOptions

GIB = 1024**3


def test_file_size_limit_follows_the_backend() -> None:
    # A checked call's outputs and inputs are saved in one file: full-size GPU
    # configurations pass 2 GiB (docs/gpu/report-2026-11-27-h200-second.md).
    assert CheckOptions().limits(10).max_file_size_bytes == 2 * GIB
    assert CheckOptions(backend="cuda").limits(10).max_file_size_bytes == 32 * GIB
    assert CheckOptions(max_file_bytes=5 * GIB).limits(10).max_file_size_bytes == 5 * GIB


def test_limits_carry_the_check_options() -> None:
    limits = CheckOptions(memory_bytes=3 * GIB, max_processes=17).limits(12.5, cpu_time_s=7)
    assert (limits.wall_timeout_s, limits.cpu_time_s) == (12.5, 7)
    assert (limits.memory_bytes, limits.max_processes) == (3 * GIB, 17)
