"""A published library as the build stage hands it on (to the source index, to the run
stage on this node or another): cheap to import, no torch."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kerneltrials.verifier.protocol import BuildArtifact, BuildRequest


@dataclass(frozen=True)
class BuiltArtifact:
    """A published library: its request, its artifact in the build cache and the sha256
    of the library file the parent recorded when it published it. Travels with
    :class:`~kerneltrials.verifier.Built` to the run stage, on this node or another."""

    request: BuildRequest
    artifact: BuildArtifact
    sha256: str

    def to_dict(self) -> dict[str, Any]:
        return {"request": self.request.to_dict(), "artifact": self.artifact.to_dict(),
                "sha256": self.sha256}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> BuiltArtifact:
        return cls(BuildRequest.from_dict(data["request"]),
                   BuildArtifact.from_dict(data["artifact"]), str(data["sha256"]))

    @property
    def library_name(self) -> str:
        return Path(self.artifact.library_path).name
