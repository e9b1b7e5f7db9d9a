"""Strategies: how an agent turns a task into candidates (one-shot, refine, coder-judge, ...).

A strategy gets the provider and a ``verify`` callable injected (candidate source ->
``Verdict``, see docs/design/interfaces.md, "Verdict"), so it runs the same against the
real verifier, a scheduler, or a test's tiny judge. It returns every attempt it made; the
caller stores them (trajectory, tokens, cost) and scores the best (``best_attempt``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from kerneltrials.agents._provider import CallKey, Completion, Message, Provider
from kerneltrials.agents.extract import NO_CODE_REASON, extract_code
from kerneltrials.agents.prompts import initial_messages
from kerneltrials.verifier.verdict import Status, Verdict

#: Candidate source -> its verdict (the executor's ``verify``, or a test's judge).
Verify = Callable[[str], Verdict]

ATTEMPT_VERSION = 1


@dataclass(frozen=True)
class StrategyContext:
    """What a strategy knows about the task it works on."""

    task_id: str  # "L1/relu"
    task_source: str  # the task file, as the model sees it
    backend: str  # "cpu" | "cuda"
    hardware: str  # describe_hardware(...) output
    configs: tuple[Mapping[str, Any], ...] = ()  # public configurations only
    max_tokens: int = 8192  # per reply
    #: The task's comparison policy ("strict" / "mixed": ``TaskSpec.default_policy()``
    #: unless forced), stamped on the verdict of a reply without code; needed for one.
    policy: str | None = None


@dataclass(frozen=True)
class AgentCall:
    """One LLM call: what was sent and what came back."""

    name: str  # "main", "coder", "judge"
    messages: tuple[Message, ...]
    completion: Completion


@dataclass(frozen=True)
class Attempt:
    """One candidate and its verdict, with the calls that produced it (the trajectory)."""

    round: int
    sample: int
    source: str | None  # None: the reply held no code
    verdict: Verdict
    calls: tuple[AgentCall, ...]  # the call that wrote ``source`` is last
    version: int = ATTEMPT_VERSION

    @property
    def messages(self) -> tuple[Message, ...]:
        """The writing call's transcript: its prompt and the reply."""
        last = self.calls[-1]
        return (*last.messages, Message("assistant", last.completion.text))

    @property
    def prompt_tokens(self) -> int:
        return sum(call.completion.prompt_tokens for call in self.calls)

    @property
    def completion_tokens(self) -> int:
        return sum(call.completion.completion_tokens for call in self.calls)

    @property
    def cost_usd(self) -> float:
        return sum(call.completion.cost_usd for call in self.calls)


class Strategy(ABC):
    """Subclasses implement ``run``; options (rounds, samples, temperatures) are
    constructor keywords."""

    name: ClassVar[str] = "strategy"
    #: Whether verdicts should carry a profile (top operators, counters) for feedback.
    wants_profile: ClassVar[bool] = False
    #: Called with each attempt the moment its verdict exists (the eval pipeline stores
    #: it at once, so a crash mid-episode loses nothing already verified).
    attempt_observer: Callable[[Attempt], None] | None = None

    @abstractmethod
    def run(self, context: StrategyContext, provider: Provider, verify: Verify) -> list[Attempt]:
        """Every attempt made on ``context``'s task, in order.

        Raises:
            ProviderUnavailable / ProviderUserError: from the provider, unchanged.
        """

    def ask(
        self,
        provider: Provider,
        context: StrategyContext,
        messages: Sequence[Message],
        key: CallKey,
        temperature: float | None,
    ) -> AgentCall:
        completion = provider.complete(
            messages, temperature=temperature, max_tokens=context.max_tokens, key=key
        )
        return AgentCall(key.call, tuple(messages), completion)

    def judge_reply(
        self, context: StrategyContext, verify: Verify, round: int, sample: int,
        calls: Sequence[AgentCall],
    ) -> Attempt:  # fmt: skip
        """Extract the candidate from the last call's reply and verify it."""
        source = extract_code(calls[-1].completion.text)
        verdict = verify(source) if source is not None else no_code_verdict(context)
        attempt = Attempt(round, sample, source, verdict, tuple(calls))
        if self.attempt_observer is not None:
            self.attempt_observer(attempt)
        return attempt

    def first_messages(self, context: StrategyContext) -> list[Message]:
        return initial_messages(
            context.task_source, context.backend, hardware=context.hardware, configs=context.configs
        )

    def key(self, context: StrategyContext, round: int, sample: int, call: str = "main") -> CallKey:
        return CallKey(context.task_id, self.name, round, sample, call)


def no_code_verdict(context: StrategyContext) -> Verdict:
    """The verdict of a reply without code: ``incorrect``, reason ``agent:no_code``, under
    the task's policy (``context.policy``).

    Raises:
        ValueError: ``context.policy`` is not set.
    """
    return Verdict.no_code(context.task_id, context.backend, context.policy, NO_CODE_REASON)


def best_attempt(attempts: Sequence[Attempt]) -> Attempt | None:
    """The correct attempt with the highest speedup (the earliest on a tie), else None."""
    correct = [a for a in attempts if a.verdict.status == Status.CORRECT]
    return max(correct, key=lambda a: a.verdict.speedup or 0.0, default=None)
