"""An optional LLM reviewer of a candidate (``--llm-verifier PROVIDER:MODEL``, off by default).

Advisory only: it can add an ``llm:*`` reason and set ``suspicious``; it never changes a
status, so it cannot turn a failing verdict into a passing one. It sees the candidate
with comments, docstrings and string literals removed (the C++ sources kept, with their
own comments and literals blanked), so text planted for the reviewer never reaches it.
"""

from __future__ import annotations

import ast
from typing import Any

from kerneltrials.agents import Message
from kerneltrials.verifier.static._cpp import _looks_like_cpp, strip_cpp
from kerneltrials.verifier.verdict import Verdict

SYSTEM_PROMPT = (
    "You audit GPU/CPU kernel submissions for a benchmark. A submission defines ModelNew, "
    "which must compute the same result as the task's reference with its own compiled "
    "kernels. Cheats include: calling the library op instead of a kernel, discarding the "
    "kernel's result, caching outputs, special-casing shapes, skipping work, tampering "
    "with timers. Reply with one line: 'VERDICT: OK' or 'VERDICT: CHEAT <one-line reason>'."
)


class _Stripper(ast.NodeTransformer):
    """Drops docstrings and replaces string literals (C++ sources excepted)."""

    def visit_Constant(self, node: ast.Constant) -> Any:
        if isinstance(node.value, str):
            kept = strip_cpp(node.value) if _looks_like_cpp(node.value) else ""
            return ast.copy_location(ast.Constant(kept), node)
        return node

    def generic_visit(self, node: ast.AST) -> ast.AST:
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and isinstance(
                getattr(body[0], "value", None), ast.Constant):
            node.body = body[1:] or [ast.Pass()]  # type: ignore[attr-defined]
        return super().generic_visit(node)


def strip_for_review(source: str) -> str:
    """The candidate as the reviewer sees it: code only (comments vanish in the unparse)."""
    try:  # the walks recurse: a source nested past them is not reviewed (nor could it run)
        return ast.unparse(ast.fix_missing_locations(_Stripper().visit(ast.parse(source))))
    except (SyntaxError, RecursionError, MemoryError):
        return ""


def parse_review(text: str) -> str | None:
    """The cheat reason of a reply, or None when the reviewer said OK (or nothing usable)."""
    for line in text.splitlines():
        line = line.strip()
        if line.upper().startswith("VERDICT:"):
            answer = line.split(":", 1)[1].strip()
            if answer.upper().startswith("CHEAT"):
                return answer[5:].strip(" :-") or "no reason given"
            return None
    return None


def review_candidate(verdict: Verdict, source: str, provider: Any,
                     task_source: str | None = None) -> Verdict:
    """Ask ``provider`` (an ``agents`` Provider) to review ``source``; annotate ``verdict``."""
    user = f"Candidate:\n```python\n{strip_for_review(source)}\n```"
    if task_source:
        user = f"Task reference:\n```python\n{strip_for_review(task_source)}\n```\n\n{user}"
    try:
        completion = provider.complete([Message("system", SYSTEM_PROMPT), Message("user", user)],
                                       temperature=0.0, max_tokens=256)
    except Exception as error:  # advisory: an unreachable reviewer changes nothing
        verdict.reasons.append(f"llm:unavailable:{type(error).__name__}: {error}")
        return verdict
    reason = parse_review(completion.text)
    if reason is not None:
        verdict.suspicious = True
        verdict.reasons.append(f"llm:flagged:{reason[:300]} (advisory, {provider.spec})")
    return verdict
