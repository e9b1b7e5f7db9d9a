"""``coder-judge``: a Coder writes, a Judge critiques, the Coder revises (CudaForge-style).

Each round the Coder gets a fresh prompt (task, its previous candidate, the verdict, the
Judge's critique), so the context stays short. The Judge reads the candidate and its verdict
and answers with a JSON critique: for a failure the critical issue, why it matters and the
minimal fix; for a correct kernel the bottleneck, the optimisation to apply and a concrete
plan. The best correct candidate over all rounds is the answer (``best_attempt``).
"""

from __future__ import annotations

import json
import re
from typing import Any

from kerneltrials.agents._provider import Message, Provider
from kerneltrials.agents._registry import register_strategy
from kerneltrials.agents._strategy import AgentCall, Attempt, Strategy, StrategyContext, Verify
from kerneltrials.agents.feedback import format_feedback
from kerneltrials.verifier.verdict import Status

JUDGE_SYSTEM = """You review GPU/CPU kernels written to replace PyTorch operators.
You get the task, a candidate and the verifier's result. Answer with ONE JSON object only.
If the candidate failed: {"critical_issue": ..., "why_it_matters": ..., "minimal_fix": ...}.
If it is correct: {"bottleneck": ..., "optimisation": ..., "plan": ...}."""

FAILED_FIELDS = ("critical_issue", "why_it_matters", "minimal_fix")
CORRECT_FIELDS = ("bottleneck", "optimisation", "plan")


@register_strategy("coder-judge")
class CoderJudgeStrategy(Strategy):
    name = "coder-judge"
    wants_profile = True  # the profile is part of the feedback between rounds

    def __init__(
        self,
        rounds: int = 5,
        coder_temperature: float | None = 0.0,
        judge_temperature: float | None = 0.0,
    ) -> None:
        if rounds < 1:
            raise ValueError("coder-judge needs rounds >= 1")
        self.rounds = rounds
        self.coder_temperature = coder_temperature
        self.judge_temperature = judge_temperature

    def run(self, context: StrategyContext, provider: Provider, verify: Verify) -> list[Attempt]:
        messages = self.first_messages(context)
        attempts: list[Attempt] = []
        judge_calls: list[AgentCall] = []  # the critique a round's candidate answers
        for round in range(self.rounds):
            key = self.key(context, round, 0, "coder")
            call = self.ask(provider, context, messages, key, self.coder_temperature)
            # The Judge's call travels with the candidate it shaped, so its tokens and
            # cost are stored with an attempt like every other call.
            attempt = self.judge_reply(context, verify, round, 0, [*judge_calls, call])
            attempts.append(attempt)
            if round + 1 < self.rounds:
                critique, judge_call = self.critique(context, provider, attempt)
                judge_calls = [judge_call]
                messages = self.revision_messages(context, attempt, critique)
        return attempts

    def critique(self, context: StrategyContext, provider: Provider,
                 attempt: Attempt) -> tuple[str, AgentCall]:
        """The Judge's critique of ``attempt`` as text for the Coder, and the Judge's call."""
        candidate = attempt.source or "(the reply held no code)"
        prompt = [
            Message("system", JUDGE_SYSTEM),
            Message(
                "user",
                f"Task:\n```python\n{context.task_source.rstrip()}\n```\n\n"
                f"Candidate:\n```python\n{candidate.rstrip()}\n```\n\n"
                f"Verifier result:\n{format_feedback(attempt.verdict)}",
            ),
        ]
        key = self.key(context, attempt.round, attempt.sample, "judge")
        call = self.ask(provider, context, prompt, key, self.judge_temperature)
        fields = CORRECT_FIELDS if attempt.verdict.status == Status.CORRECT else FAILED_FIELDS
        return render_critique(call.completion.text, fields), call

    def revision_messages(
        self, context: StrategyContext, attempt: Attempt, critique: str
    ) -> list[Message]:
        system, task = self.first_messages(context)
        candidate = attempt.source or "(your reply held no code block)"
        revision = (
            f"{task.content}\n\nYour previous candidate:\n```python\n{candidate.rstrip()}\n```\n\n"
            f"Verifier result:\n{format_feedback(attempt.verdict)}\n\n"
            f"Reviewer's critique:\n{critique}\n\n"
            "Write the improved candidate: answer with the complete module."
        )
        return [system, Message("user", revision)]


def render_critique(reply: str, fields: tuple[str, ...]) -> str:
    """``field: value`` lines from the Judge's JSON; its raw reply when there is none."""
    parsed = _first_json_object(reply)
    if not parsed or not any(name in parsed for name in fields):
        return reply.strip()
    return "\n".join(f"{name}: {parsed[name]}" for name in fields if name in parsed)


def _first_json_object(text: str) -> dict[str, Any] | None:
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", text):
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None
