"""Build requests and artifacts: the contract between the build and the run stage.

A candidate asks for its kernels by calling ``torch.utils.cpp_extension.load_inline``.
The build stage records each call as a :class:`BuildRequest`, compiles it into a
:class:`BuildArtifact` (a shared library plus its cache key), and the run stage loads the
artifact (``worker/_load_artifact``) without ever invoking a compiler. Both sides of the
worker channel use these types, so they live in the protocol package (no torch here).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass, field
from dataclasses import fields as dataclass_fields
from typing import Any

BACKENDS = ("cpu", "cuda")


class CompileError(Exception):
    """The candidate's sources did not compile or link (the candidate's failure)."""

    def __init__(self, message: str, log: str = "") -> None:
        super().__init__(message)
        self.log = log


class CpuTimeExceeded(Exception):
    """A compiler ran past the compile job's CPU-time limit (the candidate's timeout)."""


class InvalidRequest(ValueError):
    """A collected build request that no genuine ``load_inline`` call produces."""


# Bounds on what a collect job may return: it ran the candidate's Python, so its reply is
# attacker-controlled data (docs/design/builds.md).
MAX_REQUESTS = 16
MAX_SOURCE_BYTES = 8 * 1024**2  # all sources of one request
MAX_ITEMS = 256  # flags, include paths, functions per list
MAX_ITEM_CHARS = 4096
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_LIST_FIELDS = ("cpp_sources", "cuda_sources", "extra_cflags", "extra_cuda_cflags",
                "extra_ldflags", "extra_include_paths")


def _strings(value: Any, field_name: str, limit: int | None) -> tuple[str, ...]:
    if not isinstance(value, list | tuple) or len(value) > MAX_ITEMS:
        raise InvalidRequest(f"{field_name} is not a list of at most {MAX_ITEMS} strings")
    if not all(isinstance(item, str) and (limit is None or len(item) <= limit) for item in value):
        raise InvalidRequest(f"{field_name} holds a non-string or an item over {limit} characters")
    return tuple(value)


def _functions(value: Any) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, list | tuple) or len(value) > MAX_ITEMS:
        raise InvalidRequest("functions is not a list")
    pairs = []
    for pair in value:
        if (not isinstance(pair, list | tuple) or len(pair) != 2
                or not all(isinstance(part, str) and len(part) <= MAX_ITEM_CHARS for part in pair)):
            raise InvalidRequest("functions holds something other than (name, docstring)")
        if not _IDENTIFIER.fullmatch(pair[0]) or any(c in pair[1] for c in '"\\\n'):
            raise InvalidRequest(f"function {pair[0][:80]!r} is not a C++ identifier with a plain docstring")
        pairs.append((pair[0], pair[1]))
    return tuple(pairs)


def _as_tuple(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    return tuple(str(item) for item in value)


def _normalise_functions(functions: Any) -> tuple[tuple[str, str], ...]:
    """``load_inline`` accepts a name, a list of names or a name -> docstring dict."""
    if functions is None:
        return ()
    if isinstance(functions, str):
        return ((functions, ""),)
    if isinstance(functions, dict):
        return tuple((str(name), str(doc)) for name, doc in functions.items())
    return tuple((str(name), "") for name in functions)


@dataclass(frozen=True)
class BuildRequest:
    """One ``load_inline`` call, normalised: everything that determines the library."""

    name: str
    cpp_sources: tuple[str, ...]
    cuda_sources: tuple[str, ...] = ()
    functions: tuple[tuple[str, str], ...] = ()  # (name, docstring)
    extra_cflags: tuple[str, ...] = ()
    extra_cuda_cflags: tuple[str, ...] = ()
    extra_ldflags: tuple[str, ...] = ()
    extra_include_paths: tuple[str, ...] = ()
    with_cuda: bool | None = None
    with_pytorch_error_handling: bool = True
    backend: str = "cpu"

    @classmethod
    def from_load_inline(cls, backend: str, *args: Any, **kwargs: Any) -> BuildRequest:
        """Normalise the arguments of a ``load_inline(...)`` call."""
        names = ["name", "cpp_sources", "cuda_sources", "functions", "extra_cflags",
                 "extra_cuda_cflags", "extra_ldflags", "extra_include_paths"]
        bound = dict(zip(names, args, strict=False))
        bound.update(kwargs)
        return cls(
            name=str(bound.get("name", "extension")),
            cpp_sources=_as_tuple(bound.get("cpp_sources")),
            cuda_sources=_as_tuple(bound.get("cuda_sources")),
            functions=_normalise_functions(bound.get("functions")),
            extra_cflags=_as_tuple(bound.get("extra_cflags")),
            extra_cuda_cflags=_as_tuple(bound.get("extra_cuda_cflags")),
            extra_ldflags=_as_tuple(bound.get("extra_ldflags")),
            extra_include_paths=_as_tuple(bound.get("extra_include_paths")),
            with_cuda=bound.get("with_cuda"),
            with_pytorch_error_handling=bool(bound.get("with_pytorch_error_handling", True)),
            backend=backend,
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> BuildRequest:
        fields = dict(data)
        for key in ("cpp_sources", "cuda_sources", "extra_cflags", "extra_cuda_cflags",
                    "extra_ldflags", "extra_include_paths"):
            fields[key] = tuple(fields.get(key) or ())
        fields["functions"] = tuple(tuple(pair) for pair in fields.get("functions") or ())
        return cls(**fields)

    @classmethod
    def from_untrusted(cls, data: Any, backend: str) -> BuildRequest:
        """A request from a collect job's reply, checked field by field (types, sizes,
        the session's backend); raises :class:`InvalidRequest`."""
        if not isinstance(data, dict) or set(data) != {f.name for f in dataclass_fields(cls)}:
            raise InvalidRequest("not a build request (unexpected or missing fields)")
        lists = {key: _strings(data[key], key, None if key.endswith("sources") else MAX_ITEM_CHARS)
                 for key in _LIST_FIELDS}
        if sum(len(text.encode()) for key in ("cpp_sources", "cuda_sources") for text in lists[key]) \
                > MAX_SOURCE_BYTES:
            raise InvalidRequest(f"sources over {MAX_SOURCE_BYTES} bytes")
        name = data["name"]
        if not isinstance(name, str) or len(name) > 256:
            raise InvalidRequest("name is not a short string")
        if data["with_cuda"] not in (None, True, False) or not isinstance(
                data["with_pytorch_error_handling"], bool):
            raise InvalidRequest("with_cuda / with_pytorch_error_handling are not booleans")
        if data["backend"] != backend:
            raise InvalidRequest(f"backend {str(data['backend'])[:20]!r} is not the check's {backend!r}")
        return cls(name=name, functions=_functions(data["functions"]), with_cuda=data["with_cuda"],
                   with_pytorch_error_handling=data["with_pytorch_error_handling"],
                   backend=backend, **lists)

    def content_key(self, toolchain: dict[str, str]) -> str:
        """Content address: sources, flags, backend, toolchain and torch versions.

        The user-chosen ``name`` is left out: two candidates with the same code share a build.
        """
        payload = self.to_dict()
        payload.pop("name")
        payload["toolchain"] = toolchain
        blob = json.dumps(payload, sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:32]


@dataclass(frozen=True)
class BuildArtifact:
    """A built extension: the candidate worker loads it (``worker/_load_artifact``)."""

    key: str
    library_path: str  # the shared library
    module_name: str  # the name its PyInit_ symbol was built for
    request_name: str  # the name the candidate asked for
    build_s: float = 0.0
    cache_hit: bool = False
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> BuildArtifact:
        return cls(**data)
