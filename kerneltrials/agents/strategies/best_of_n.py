"""``best-of-n``: N independent samples of the one-shot prompt; the best verified one counts
(``best_attempt``)."""

from __future__ import annotations

from kerneltrials.agents._provider import Provider
from kerneltrials.agents._registry import register_strategy
from kerneltrials.agents._strategy import Attempt, Strategy, StrategyContext, Verify


@register_strategy("best-of-n")
class BestOfNStrategy(Strategy):
    name = "best-of-n"

    def __init__(self, samples: int = 4, temperature: float | None = 0.8) -> None:
        if samples < 1:
            raise ValueError("best-of-n needs samples >= 1")
        self.samples = samples
        self.temperature = temperature  # > 0 so the samples differ

    def run(self, context: StrategyContext, provider: Provider, verify: Verify) -> list[Attempt]:
        messages = self.first_messages(context)
        attempts = []
        for sample in range(self.samples):
            call = self.ask(
                provider, context, messages, self.key(context, 0, sample), self.temperature
            )
            attempts.append(self.judge_reply(context, verify, 0, sample, [call]))
        return attempts
