"""Finding the candidate in a model's reply.

The reply should hold one fenced block with the module; models also answer with several
blocks (a sketch, then the final version; a usage example after it), with no language tag,
with ``~~~`` fences, or cut off before the closing fence (``max_tokens``). The rule: the
last block that defines ``class ModelNew``; else the last Python (or untagged) block, so
that the verifier can say what is missing; else a reply that is itself a module defining
``ModelNew``; else None, which the caller records as ``incorrect`` with reason
``agent:no_code`` (``NO_CODE_REASON``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

NO_CODE_REASON = "agent:no_code"

_DEFINES_MODELNEW = re.compile(r"^[ \t]*class[ \t]+ModelNew\b", re.MULTILINE)
_OPENING = re.compile(r"^ {0,3}(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^\n`]*)$")
_PYTHON_TAGS = {"", "python", "py", "python3"}


@dataclass(frozen=True)
class CodeBlock:
    tag: str  # the info string's first word, lower-cased ("" when missing)
    code: str
    terminated: bool


def find_code_blocks(reply: str) -> list[CodeBlock]:
    """Every fenced block in order; an unterminated last block runs to the end."""
    blocks: list[CodeBlock] = []
    lines = reply.splitlines()
    index = 0
    while index < len(lines):
        opening = _OPENING.match(lines[index])
        if opening is None:
            index += 1
            continue
        fence = opening.group("fence")
        tag = (opening.group("info").split() or [""])[0].lower()
        closing = re.compile(rf"^ {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        end = next((j for j in range(index + 1, len(lines)) if closing.match(lines[j])), None)
        body = lines[index + 1 : end if end is not None else len(lines)]
        blocks.append(CodeBlock(tag, "\n".join(body).strip("\n") + "\n", end is not None))
        index = (end if end is not None else len(lines)) + 1
    return blocks


def extract_code(reply: str) -> str | None:
    """The candidate module in ``reply`` (see the module docstring), or None."""
    blocks = find_code_blocks(reply)
    defining = [block for block in blocks if _DEFINES_MODELNEW.search(block.code)]
    if defining:
        return defining[-1].code
    python = [block for block in blocks if block.tag in _PYTHON_TAGS and block.code.strip()]
    if python:
        return python[-1].code
    if not blocks and _DEFINES_MODELNEW.search(reply):
        return reply.strip("\n") + "\n"
    return None
