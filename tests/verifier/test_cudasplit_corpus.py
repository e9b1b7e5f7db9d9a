"""The CUDA patterns LLM-written candidates use take the split build, not the fallback.

Each file in tests/data/cuda_corpus/ is one candidate's CUDA source, its first line the
C++ declaration of the function it exports. A regression in the splitter would not break
these builds (they would compile whole with nvcc, slowly); this test notices it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from kerneltrials.verifier.builds._fast import find_fast_cxx
from kerneltrials.verifier.protocol import BuildRequest
from kerneltrials.verifier.worker._load_artifact import load_artifact
from tests.verifier._build_fixtures import has_nvcc

CORPUS = Path(__file__).resolve().parents[1] / "data" / "cuda_corpus"
SHARED_TOOLCHAIN = Path(os.environ["KERNELTRIALS_CACHE"]) / "builds" / ".toolchain"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not has_nvcc(), reason="nvcc not found: set CUDA_HOME to the CUDA toolkit"),
    pytest.mark.skipif(find_fast_cxx() is None, reason="no clang++ >= 15: no fast path, no split"),
]


def _request(path: Path) -> BuildRequest:
    source = path.read_text()
    declaration = source.splitlines()[0].removeprefix("//").strip()
    function = re.search(r"(\w+)\s*\(", declaration)
    assert function is not None, declaration
    return BuildRequest.from_load_inline("cuda", path.stem, [declaration], cuda_sources=[source],
                                         functions=[function.group(1)])


@pytest.mark.timeout(600)
@pytest.mark.parametrize("path", sorted(CORPUS.glob("*.cu")), ids=lambda path: path.stem)
def test_typical_cuda_candidates_take_the_split_build(path: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from kerneltrials.verifier.builds._compiler import build_extension

    monkeypatch.setenv("KERNELTRIALS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("KERNELTRIALS_PCH_CACHE", str(SHARED_TOOLCHAIN))
    artifact = build_extension(_request(path))
    assert artifact.details.get("cuda_units") == "split", artifact.details
    module = load_artifact(artifact)  # every symbol resolves: the library loads
    assert callable(getattr(module, _request(path).functions[0][0]))
