"""The provider interface: messages in, text + token usage out.

A provider implements ``complete`` for ONE attempt and translates its SDK's failures into
the errors of ``_errors``. The base class wraps every subclass's ``complete`` so that
whoever calls it gets the shared behaviour: a per-provider concurrency limit (a
semaphore of ``max_concurrency``), retries with exponential backoff and jitter on
infrastructure failures (honouring the server's ``retry-after``), and the measured
latency. Retries live here, not in the SDKs (they are built with ``max_retries=0``), so the
behaviour is ours and tested.
"""

from __future__ import annotations

import functools
import hashlib
import json
import random
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any, ClassVar, Literal

from kerneltrials.agents._errors import ProviderError, ProviderUnavailable, ProviderUserError
from kerneltrials.agents.pricing import PriceTable, load_price_table

Role = Literal["system", "user", "assistant"]


@dataclass(frozen=True)
class Message:
    """One chat turn."""

    role: Role
    content: str


@dataclass(frozen=True)
class Completion:
    """One model reply with its usage; the unit the results store records per call."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float  # from the price table; 0.0 when the model's price is unknown
    latency_s: float  # wall time of the call, retries and backoff included
    model: str  # the model that answered, as the server named it
    raw_finish_reason: str | None  # "stop", "length", "end_turn", ... as the API said it
    cost_known: bool = True  # False: the model is not in the price table (cost_usd is 0)
    attempts: int = 1  # HTTP tries it took

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Completion:
        return cls(**{key: data[key] for key in cls.__dataclass_fields__ if key in data})


@dataclass(frozen=True)
class CallKey:
    """Which call of a run this is; the key of replay files.

    ``call`` tells apart several calls of one round and sample (coder-judge makes a
    ``coder`` and a ``judge`` call per round); single-call strategies leave it at "main".
    """

    task: str
    strategy: str
    round: int
    sample: int
    call: str = "main"


def prompt_hash(messages: Sequence[Message]) -> str:
    """A stable SHA-256 of the messages (role and content), to detect prompt drift."""
    canonical = json.dumps([[m.role, m.content] for m in messages], ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class Provider(ABC):
    """An LLM behind one method. Subclasses implement ``complete`` for one attempt.

    Overridable defaults (class attributes, or constructor options of the same name):
    ``max_concurrency`` (calls in flight at once on this instance), ``max_attempts``,
    ``backoff_base_s``, ``backoff_max_s``, ``max_retry_after_s``, ``timeout_s`` (per HTTP
    request). Hook: ``should_retry(error)``. ``retry_observer``, when set, hears of every
    failed try that will be tried again (``eval`` shows them on the console).
    """

    name: ClassVar[str] = "provider"
    #: False: ``complete`` runs as written, with no concurrency limit, retries or timing
    #: (for wrappers and replays whose numbers come from elsewhere).
    managed: ClassVar[bool] = True
    max_concurrency: int = 8
    max_attempts: int = 6
    backoff_base_s: float = 1.0
    backoff_max_s: float = 60.0
    max_retry_after_s: float = 300.0
    timeout_s: float = 600.0

    def __init__(
        self,
        model: str,
        *,
        max_concurrency: int | None = None,
        max_attempts: int | None = None,
        backoff_base_s: float | None = None,
        backoff_max_s: float | None = None,
        timeout_s: float | None = None,
        prices: PriceTable | str | None = None,
    ) -> None:
        self.model = model
        for key, value in (
            ("max_concurrency", max_concurrency),
            ("max_attempts", max_attempts),
            ("backoff_base_s", backoff_base_s),
            ("backoff_max_s", backoff_max_s),
            ("timeout_s", timeout_s),
        ):
            if value is not None:
                setattr(self, key, value)
        if self.max_concurrency < 1 or self.max_attempts < 1:
            raise ValueError("max_concurrency and max_attempts must be at least 1")
        self.prices = prices if isinstance(prices, PriceTable) else load_price_table(prices)
        self._semaphore = threading.BoundedSemaphore(self.max_concurrency)
        self._local = threading.local()
        self.retry_observer: Callable[[str], None] | None = None

    def preflight(self) -> None:  # noqa: B027 - a hook with a default, not abstract
        """One cheap request before a run starts any work, so that a wrong address or a
        rejected key is said at once (not as an ``error`` on every task). The default
        (local providers: replay, reference) checks nothing.

        Raises:
            EndpointUnreachable: nothing answers at the provider's address.
            RequestRefused: the server rejected the API key.
        """

    @property
    def spec(self) -> str:
        """The string that resolves to this provider, e.g. ``openai:gpt-4.1``."""
        return f"{self.name}:{self.model}"

    @abstractmethod
    def complete(
        self,
        messages: Sequence[Message],
        *,
        temperature: float | None = None,
        max_tokens: int = 8192,
        key: CallKey | None = None,
        **options: Any,
    ) -> Completion:
        """Send ``messages`` and return the reply (one attempt, in a subclass).

        Args:
            messages: the conversation; "system" turns first.
            temperature: sampling temperature; None leaves the API default (providers
                whose API rejects it, e.g. reasoning models, ignore it).
            max_tokens: cap on the reply's tokens.
            key: which call of the run this is (used by replay and recording only).
            options: provider-specific parameters (e.g. ``reasoning_effort``).

        Raises:
            ProviderUnavailable: every attempt failed for an infrastructure reason.
            ProviderUserError: MissingAPIKey, UnknownModel, RequestRefused, ...
        """

    def should_retry(self, error: BaseException) -> bool:
        """Whether ``error`` from one attempt is worth another; user errors never are."""
        return isinstance(error, ProviderError) and error.retryable

    def backoff_delay_s(self, attempt: int, error: BaseException) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (1-based)."""
        retry_after = getattr(error, "retry_after_s", None)
        if retry_after is not None:
            # At least what the server asked for, plus a little jitter so that callers
            # throttled together do not come back together.
            return min(retry_after, self.max_retry_after_s) * random.uniform(1.0, 1.1)
        ceiling = min(self.backoff_max_s, self.backoff_base_s * 2 ** (attempt - 1))
        return ceiling * random.uniform(0.5, 1.0)

    def cost_usd(
        self, model: str, prompt_tokens: int, completion_tokens: int
    ) -> tuple[float, bool]:
        """(cost in USD, whether the model's price is known) from this provider's table."""
        return self.prices.cost_usd(model, prompt_tokens, completion_tokens)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        implementation = cls.__dict__.get("complete")
        if implementation is not None and not getattr(
            implementation, "__isabstractmethod__", False
        ):
            cls.complete = _managed(implementation)  # type: ignore[method-assign]

    def _run_with_retries(self, attempt_once: Callable[[], Completion]) -> Completion:
        start = time.monotonic()
        last_error: BaseException | None = None
        for attempt in range(1, self.max_attempts + 1):
            try:
                with self._semaphore:
                    completion = attempt_once()
            except ProviderUserError:
                raise
            except Exception as error:
                if not self.should_retry(error):
                    raise
                last_error = error
                if attempt < self.max_attempts:
                    delay_s = self.backoff_delay_s(attempt, error)
                    if self.retry_observer is not None:
                        self.retry_observer(f"{error}; try {attempt + 1} of {self.max_attempts} "
                                            f"in {delay_s:.0f} s")
                    time.sleep(delay_s)
                continue
            return replace(completion, latency_s=time.monotonic() - start, attempts=attempt)
        raise ProviderUnavailable(
            f"{self.spec}: unavailable after {self.max_attempts} tries: {last_error}",
            attempts=self.max_attempts,
            last_error=last_error,
        )


def _managed(implementation: Callable[..., Completion]) -> Callable[..., Completion]:
    """Wrap a subclass's one-attempt ``complete`` with the concurrency limit and retries."""

    @functools.wraps(implementation)
    def complete(self: Provider, messages: Sequence[Message], **kwargs: Any) -> Completion:
        if not self.managed or getattr(self._local, "inside", False):
            # A subclass calling super().complete(): the outer call already manages it.
            return implementation(self, messages, **kwargs)
        self._local.inside = True
        try:
            return self._run_with_retries(lambda: implementation(self, messages, **kwargs))
        finally:
            self._local.inside = False

    return complete
