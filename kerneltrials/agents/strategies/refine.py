"""``refine``: K rounds in one conversation; each round shows the model its verdict
(compile error, the failing public configurations, or the timings) and asks for a better
candidate. Hidden configurations appear only as counts (``format_feedback``)."""

from __future__ import annotations

from kerneltrials.agents._provider import Message, Provider
from kerneltrials.agents._registry import register_strategy
from kerneltrials.agents._strategy import Attempt, Strategy, StrategyContext, Verify
from kerneltrials.agents.feedback import format_feedback
from kerneltrials.verifier.verdict import Status, Verdict

FIX = "Your candidate failed. Fix the issue above and answer with the complete corrected module."
FASTER = "Your candidate is correct. Make it faster, keeping it correct; answer with the complete module."


@register_strategy("refine")
class RefineStrategy(Strategy):
    name = "refine"
    wants_profile = True  # the profile is part of the feedback between rounds

    def __init__(
        self, rounds: int = 5, temperature: float | None = 0.0, stop_when_correct: bool = False
    ) -> None:
        if rounds < 1:
            raise ValueError("refine needs rounds >= 1")
        self.rounds = rounds
        self.temperature = temperature
        self.stop_when_correct = stop_when_correct  # False: keep optimising a correct kernel

    def run(self, context: StrategyContext, provider: Provider, verify: Verify) -> list[Attempt]:
        messages = self.first_messages(context)
        attempts: list[Attempt] = []
        for round in range(self.rounds):
            call = self.ask(
                provider, context, messages, self.key(context, round, 0), self.temperature
            )
            attempt = self.judge_reply(context, verify, round, 0, [call])
            attempts.append(attempt)
            correct = attempt.verdict.status == Status.CORRECT
            if correct and self.stop_when_correct:
                break
            messages = [*attempt.messages, Message("user", feedback_message(attempt.verdict))]
        return attempts


def feedback_message(verdict: Verdict) -> str:
    """The next user turn: the verdict's feedback and what to do about it."""
    ask = FASTER if verdict.status == Status.CORRECT else FIX
    return f"Verifier result:\n{format_feedback(verdict)}\n\n{ask}"
