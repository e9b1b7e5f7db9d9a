"""Import a built extension from its library file, in the candidate worker."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
from pathlib import Path
from types import ModuleType

from kerneltrials.verifier.protocol import BuildArtifact


def load_artifact(artifact: BuildArtifact) -> ModuleType:
    """Import a built extension from its library file (no compiler involved)."""
    path = Path(artifact.library_path)
    if not path.is_file():
        raise FileNotFoundError(f"build artifact {path} is missing (cache evicted?)")
    loader = importlib.machinery.ExtensionFileLoader(artifact.module_name, os.fspath(path))
    spec = importlib.util.spec_from_file_location(artifact.module_name, path, loader=loader)
    if spec is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module
