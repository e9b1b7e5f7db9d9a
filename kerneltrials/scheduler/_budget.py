"""``--max-cost``: stop cleanly before the spend would pass the cap."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from kerneltrials.agents import CallKey, Completion, Message, Provider


class BudgetExhausted(Exception):
    """The next call would pass the cap: the run stops (resumably)."""


class Spend:
    """Running totals of one run, shared by every episode thread."""

    def __init__(self, cap_usd: float | None, already_usd: float = 0.0) -> None:
        self.cap_usd = cap_usd
        self.cost_usd = already_usd
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.calls = 0
        self._lock = threading.Lock()

    def expected_next_call_usd(self) -> float:
        return self.cost_usd / self.calls if self.calls else 0.0

    def would_exceed(self) -> bool:
        if self.cap_usd is None:
            return False
        with self._lock:
            return self.cost_usd + self.expected_next_call_usd() > self.cap_usd

    def add(self, completion: Completion) -> None:
        with self._lock:
            self.cost_usd += completion.cost_usd
            self.prompt_tokens += completion.prompt_tokens
            self.completion_tokens += completion.completion_tokens
            self.calls += 1


class BudgetedProvider(Provider):
    """Wraps a provider: refuses a call that would pass the cap, and counts the spend."""

    name = "budgeted"
    managed = False  # the inner provider manages its own retries

    def __init__(self, inner: Provider, spend: Spend) -> None:
        super().__init__(inner.model, prices=inner.prices)
        self.inner = inner
        self.spend = spend

    @property
    def spec(self) -> str:
        return self.inner.spec

    def complete(self, messages: Sequence[Message], *, temperature: float | None = None,
                 max_tokens: int = 8192, key: CallKey | None = None,
                 **options: Any) -> Completion:
        if self.spend.would_exceed():
            raise BudgetExhausted(f"--max-cost {self.spend.cap_usd} USD reached "
                                  f"(spent {self.spend.cost_usd:.4f} USD)")
        completion = self.inner.complete(messages, temperature=temperature,
                                         max_tokens=max_tokens, key=key, **options)
        self.spend.add(completion)
        return completion
