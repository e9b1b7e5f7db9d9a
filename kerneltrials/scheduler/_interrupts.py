"""SIGINT and SIGTERM while ``eval`` runs: counted, never raised.

The first signal asks the run to stop (``run_eval`` polls ``signal``); a second one asks
it to stop waiting. Nothing is raised into whatever the main thread was doing, so no
store write or Ray call is cut in half. Outside the main thread (an ``eval`` started from
a library's worker thread) Python cannot take signals: the context does nothing there.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType, TracebackType
from typing import Any

HANDLED = (signal.SIGINT, signal.SIGTERM)


class Interrupts:
    """A context in which SIGINT and SIGTERM are recorded instead of acted on."""

    def __init__(self) -> None:
        self.signal: int | None = None  # the first signal received
        self.count = 0
        self._previous: dict[int, Any] = {}

    @property
    def name(self) -> str:
        return signal.Signals(self.signal).name if self.signal is not None else ""

    def _record(self, signum: int, _frame: FrameType | None) -> None:
        self.count += 1
        if self.signal is None:
            self.signal = signum

    def install(self) -> None:
        """Take SIGINT and SIGTERM (again: a library started meanwhile may have set its
        own handlers); the handlers before the first install come back on exit."""
        if threading.current_thread() is not threading.main_thread():
            return
        for signum in HANDLED:
            previous = signal.signal(signum, self._record)
            self._previous.setdefault(signum, previous)

    def __enter__(self) -> Interrupts:
        self.install()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler if handler is not None else signal.SIG_DFL)
        self._previous.clear()
