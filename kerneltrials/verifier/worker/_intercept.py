"""Import a candidate with ``load_inline`` intercepted.

At build time every ``load_inline`` call is recorded as a :class:`BuildRequest` and
answered with a placeholder; at run time it is answered with the already-built
library, so the run stage never invokes a compiler.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

from torch.utils import cpp_extension

from kerneltrials.verifier.protocol import BuildArtifact, BuildRequest
from kerneltrials.verifier.worker._load_artifact import load_artifact

CANDIDATE_MODULE = "kt_candidate"


class UnbuiltExtension:
    """Stands in for an extension during the build-time import."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attribute: str) -> Callable[..., Any]:
        def unavailable(*_args: Any, **_kwargs: Any) -> Any:
            raise RuntimeError(
                f"extension {self._name!r} is not built yet: kernels may not run at import time"
            )

        return unavailable


class MissingBuild(RuntimeError):
    """The candidate asked at run time for an extension the build stage did not build."""


def _forbidden_load(*_args: Any, **_kwargs: Any) -> Any:
    raise RuntimeError("torch.utils.cpp_extension.load(sources=...) is not supported: "
                       "candidates build their kernels with load_inline")


@contextmanager
def intercepted_load_inline(handler: Callable[..., Any]) -> Iterator[None]:
    saved = cpp_extension.load_inline, cpp_extension.load
    cpp_extension.load_inline = handler
    cpp_extension.load = _forbidden_load
    try:
        yield
    finally:
        cpp_extension.load_inline, cpp_extension.load = saved


def import_candidate(path: Path) -> ModuleType:
    """Execute the candidate file as module ``kt_candidate``."""
    spec = importlib.util.spec_from_file_location(CANDIDATE_MODULE, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[CANDIDATE_MODULE] = module
    spec.loader.exec_module(module)
    return module


def collect_build_requests(path: Path, backend: str) -> list[BuildRequest]:
    """Import the candidate once, recording the extensions it asks for."""
    requests: list[BuildRequest] = []

    def record(*args: Any, **kwargs: Any) -> UnbuiltExtension:
        request = BuildRequest.from_load_inline(backend, *args, **kwargs)
        requests.append(request)
        return UnbuiltExtension(request.name)

    with intercepted_load_inline(record):
        import_candidate(path)
    return requests


def import_with_artifacts(
    path: Path, backend: str, artifacts: list[tuple[BuildRequest, BuildArtifact]],
    wrap: Callable[[ModuleType], Any] | None = None,
) -> ModuleType:
    """Import the candidate, answering each ``load_inline`` with its built library
    (passed through ``wrap`` when given: the run stage tracks calls into it)."""
    by_content = {request.content_key({}): artifact for request, artifact in artifacts}

    def load(*args: Any, **kwargs: Any) -> ModuleType:
        request = BuildRequest.from_load_inline(backend, *args, **kwargs)
        artifact = by_content.get(request.content_key({}))
        if artifact is None:
            raise MissingBuild(f"load_inline({request.name!r}) asks for sources that were "
                               "not built: the candidate must request the same extension every time")
        module = load_artifact(artifact)
        return wrap(module) if wrap is not None else module

    with intercepted_load_inline(load):
        return import_candidate(path)
