"""Suite-wide fixtures. Every test that compiles shares the machine's build cache
(``~/.cache/kerneltrials`` unless ``KERNELTRIALS_CACHE`` is set), so a kernel source is
compiled once per machine and most builds are cache hits."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent

# Set before any test imports the verifier, so workers inherit it too.
os.environ.setdefault("KERNELTRIALS_CACHE", str(Path.home() / ".cache" / "kerneltrials"))
os.environ.setdefault("CUDA_HOME", "/usr/local/cuda-13.0")


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT
