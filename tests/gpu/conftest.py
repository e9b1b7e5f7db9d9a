"""The GPU acceptance suite: every test here needs a CUDA device.

Each test is marked ``gpu`` and skipped with the reason where torch sees no device, so
``pytest -m gpu`` collects the whole suite anywhere. On a GPU host,
``scripts/gpu-acceptance.sh`` runs it and gathers the figures the tests record (the
``figures`` fixture appends to ``$KT_GPU_FIGURES``, a JSON-lines file) into its report.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

import pytest
import torch

NO_GPU = "no CUDA device: torch.cuda.is_available() is false (run scripts/gpu-acceptance.sh on a GPU host)"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    here = os.path.dirname(__file__)
    available = torch.cuda.is_available()
    for item in items:
        if str(item.fspath).startswith(here):
            item.add_marker(pytest.mark.gpu)
            if not available:
                item.add_marker(pytest.mark.skip(reason=NO_GPU))


@pytest.fixture
def figures(request: pytest.FixtureRequest) -> Callable[..., None]:
    """Record named figures of this test for the acceptance report (no-op without a path)."""
    path = os.environ.get("KT_GPU_FIGURES")

    def record(**values: Any) -> None:
        if path:
            with open(path, "a") as handle:
                handle.write(json.dumps({"test": request.node.nodeid, **values},
                                        default=str) + "\n")

    return record
