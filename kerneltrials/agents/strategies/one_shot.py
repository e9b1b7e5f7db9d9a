"""``one-shot``: the KernelBench setting. Task + instructions + one worked example; greedy."""

from __future__ import annotations

from kerneltrials.agents._provider import Provider
from kerneltrials.agents._registry import register_strategy
from kerneltrials.agents._strategy import Attempt, Strategy, StrategyContext, Verify


@register_strategy("one-shot")
class OneShotStrategy(Strategy):
    name = "one-shot"

    def __init__(self, temperature: float | None = 0.0) -> None:
        self.temperature = temperature  # 0: greedy, as in KernelBench

    def run(self, context: StrategyContext, provider: Provider, verify: Verify) -> list[Attempt]:
        call = self.ask(
            provider,
            context,
            self.first_messages(context),
            self.key(context, 0, 0),
            self.temperature,
        )
        return [self.judge_reply(context, verify, 0, 0, [call])]
