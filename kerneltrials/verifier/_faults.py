"""Failure kinds a worker reports, shared by the worker and the parent."""

from __future__ import annotations


class WorkerFault(Exception):
    """A failure with a kind the parent maps to a verdict (e.g. ``compile_error``)."""

    def __init__(self, kind: str, message: str, detail: str = "") -> None:
        super().__init__(message)
        self.kind = kind
        self.detail = detail
