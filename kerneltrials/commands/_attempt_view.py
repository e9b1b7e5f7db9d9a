"""One stored attempt in full, for ``kerneltrials runs show RUN TASK``: what the model
replied, the candidate's source, every configuration's outcome and timings, the reasons."""

from __future__ import annotations

from typing import Any

from rich import box
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from kerneltrials.results import AttemptRecord

#: The model's reply is shown up to this many characters (``--json`` has all of it).
REPLY_CHARS = 4000


def last_reply(transcript: list[Any]) -> str | None:
    """The text of the transcript's last assistant message, whatever the provider's shape
    (a string, or a list of content blocks with ``text``)."""
    for message in reversed(transcript):
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        content = message.get("content")
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            return "\n".join(str(block.get("text", "")) for block in content
                             if isinstance(block, dict) and block.get("text"))
    return None


def attempt_json(attempt: AttemptRecord) -> dict[str, Any]:
    """Everything stored of one attempt (``runs show RUN TASK --json``)."""
    return {"task": attempt.task_id, "round": attempt.round, "sample": attempt.sample,
            "status": attempt.status, "speedup": attempt.speedup,
            "speedup_compile": attempt.speedup_compile,
            "verdict": attempt.verdict.model_dump(mode="json"), "source": attempt.source,
            "reply": last_reply(attempt.transcript), "transcript": attempt.transcript,
            "timings": attempt.timings, "prompt_tokens": attempt.prompt_tokens,
            "completion_tokens": attempt.completion_tokens, "cost_usd": attempt.cost_usd,
            "created_at": attempt.created_at}


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.4g}"


def configs_table(attempt: AttemptRecord) -> Table:
    """One row per configuration: passed, errors, and each side's median time."""
    configs = attempt.verdict.configs
    sides = sorted({side for config in configs for side in config.times_ms},
                   key=lambda side: ("candidate", "eager", "compile").index(side)
                   if side in ("candidate", "eager", "compile") else 3)
    table = Table(box=box.SIMPLE_HEAD, title="configurations", title_justify="left")
    for column in ("config", "params", "passed", "max_abs_err"):
        table.add_column(column, overflow="fold")
    for side in sides:
        table.add_column(f"{side} ms", justify="right")
    table.add_column("detail", overflow="fold")
    for config in configs:
        params = ", ".join(f"{key}={value}" for key, value in config.params.items())
        times = [_ms(config.times_ms[side].median) if side in config.times_ms else "-"
                 for side in sides]
        table.add_row(config.name, params, "yes" if config.passed else "no",
                      _ms(config.max_abs_err), *times, config.detail or "")
    return table


def attempt_view(attempt: AttemptRecord) -> RenderableType:
    """The attempt as panels: summary, reasons, configurations, source, reply."""
    verdict = attempt.verdict
    head = Text(f"{attempt.task_id}  round {attempt.round}, sample {attempt.sample}: "
                f"{attempt.status}", style="bold")
    if attempt.speedup is not None:
        head.append(f"  {attempt.speedup:.2f}x vs eager")
    if attempt.speedup_compile is not None:
        head.append(f", {attempt.speedup_compile:.2f}x vs compile")
    if verdict.suspicious:
        head.append("  (flagged: not counted until re-verified)", style="yellow")
    parts: list[RenderableType] = [head]
    if verdict.reasons:
        parts.append(Panel("\n".join(verdict.reasons), title="reasons", title_align="left"))
    if verdict.configs:
        parts.append(configs_table(attempt))
    parts.append(Panel(Syntax(attempt.source, "python", line_numbers=True, word_wrap=True)
                       if attempt.source else Text("(no source: the reply held no code)"),
                       title="candidate source", title_align="left"))
    reply = last_reply(attempt.transcript)
    if reply is not None:
        shown = reply if len(reply) <= REPLY_CHARS else (
            reply[:REPLY_CHARS] + f"\n… ({len(reply) - REPLY_CHARS} more characters; --json has all)")
        parts.append(Panel(Text(shown), title="model reply", title_align="left"))
    return Group(*parts)
