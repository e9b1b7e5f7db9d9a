"""The node gate: timing on the CPU backend takes the whole node.

Builds and correctness runs hold a *shared* lease; a timing phase holds the *exclusive*
lease (the run stage's ``Hooks.exclusive_timing``, entered by ``_jobs.run_job``), so
nothing else runs on the node's cores while it measures. Waiting exclusive
requests block new shared ones (no starvation). Leases of processes that died are
dropped (a killed worker never leaves the node locked). See docs/design/eval.md.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable

from kerneltrials._pids import pid_alive


class GateState:
    """Reader-writer lease bookkeeping, shared by the local and the Ray gate."""

    def __init__(self, is_alive: Callable[[int], bool] = pid_alive) -> None:
        self.shared: dict[str, int] = {}  # lease id -> holder pid
        self.exclusive: tuple[str, int] | None = None
        self.waiting_exclusive = 0
        self._is_alive = is_alive

    def drop_dead(self) -> None:
        self.shared = {lease: pid for lease, pid in self.shared.items() if self._is_alive(pid)}
        if self.exclusive is not None and not self._is_alive(self.exclusive[1]):
            self.exclusive = None

    def can_share(self) -> bool:
        self.drop_dead()
        return self.exclusive is None and self.waiting_exclusive == 0

    def can_own(self) -> bool:
        self.drop_dead()
        return self.exclusive is None and not self.shared


class LocalGate:
    """The gate within one process (threads), for the local executor."""

    def __init__(self) -> None:
        self._state = GateState()
        self._condition = threading.Condition()
        self._counter = 0

    def _lease(self) -> str:
        self._counter += 1
        return f"local-{self._counter}"

    def acquire(self, exclusive: bool, pid: int | None = None) -> str:
        pid = os.getpid() if pid is None else pid
        with self._condition:
            lease = self._lease()
            if exclusive:
                self._state.waiting_exclusive += 1
                while not self._state.can_own():
                    self._condition.wait(timeout=1.0)
                self._state.waiting_exclusive -= 1
                self._state.exclusive = (lease, pid)
            else:
                while not self._state.can_share():
                    self._condition.wait(timeout=1.0)
                self._state.shared[lease] = pid
            return lease

    def release(self, lease: str) -> None:
        with self._condition:
            self._state.shared.pop(lease, None)
            if self._state.exclusive is not None and self._state.exclusive[0] == lease:
                self._state.exclusive = None
            self._condition.notify_all()


class RayNodeGate:
    """The gate as a Ray actor pinned to one node (asyncio, so waiters don't block it)."""

    def __init__(self) -> None:
        self._state = GateState()
        self._condition = asyncio.Condition()
        self._counter = 0

    async def acquire(self, exclusive: bool, pid: int) -> str:
        async with self._condition:
            self._counter += 1
            lease = f"ray-{self._counter}"
            if exclusive:
                self._state.waiting_exclusive += 1
                await self._wait_for(self._state.can_own)
                self._state.waiting_exclusive -= 1
                self._state.exclusive = (lease, pid)
            else:
                await self._wait_for(self._state.can_share)
                self._state.shared[lease] = pid
            return lease

    async def _wait_for(self, predicate: Callable[[], bool]) -> None:
        while not predicate():
            try:  # wake up now and then: a holder may have died without releasing
                await asyncio.wait_for(self._condition.wait(), timeout=1.0)
            except TimeoutError:
                pass

    async def release(self, lease: str) -> None:
        async with self._condition:
            self._state.shared.pop(lease, None)
            if self._state.exclusive is not None and self._state.exclusive[0] == lease:
                self._state.exclusive = None
            self._condition.notify_all()
