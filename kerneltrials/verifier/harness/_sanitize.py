"""Candidate-controlled text made fit for a verdict: capped, redacted, printable.

Exception messages, tracebacks and compiler output are written by the candidate (or by
tools running its code) and go into a verdict's ``reasons``: to the agent as feedback,
into the store and onto the public site. So they are treated as hostile data: secrets of
the harness's environment are redacted, terminal escapes and control characters (which
rewrite what a terminal shows), bidirectional overrides and lone surrogates (which break
JSON encoders) removed, the home directory and the Python prefix shortened, very long
lines cut, and the whole capped with its head and tail kept. The sandbox's minimal view
keeps files outside the job from reaching this text at all (docs/design/sandbox.md).
"""

from __future__ import annotations

import os
import re
import sys

from kerneltrials.sandbox import redact

MAX_LINE_CHARS = 400

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]|"
                   r"\x9b[0-?]*[ -/]*[@-~]")
# C0/C1 controls but tab and newline; bidi overrides and isolates; lone surrogates.
_UNPRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e"
                          "\u2066-\u2069\ud800-\udfff]")
_INVISIBLE = re.compile("[\u200b-\u200d\u2060\ufeff]")


def _host_prefixes() -> list[tuple[str, str]]:
    """Host paths shown shorter: the Python prefix (where torch's headers live), home."""
    prefixes = [(os.path.realpath(sys.prefix), "<python>"), (sys.prefix, "<python>"),
                (os.path.expanduser("~"), "~")]
    found = [(path.rstrip("/"), label) for path, label in prefixes if len(path.rstrip("/")) > 1]
    return sorted(set(found), key=lambda pair: -len(pair[0]))


def _cut_line(line: str) -> str:
    if len(line) <= MAX_LINE_CHARS:
        return line
    return f"{line[:MAX_LINE_CHARS]}… [{len(line) - MAX_LINE_CHARS} characters cut]"


def _cap(text: str, limit_chars: int) -> str:
    """Head and tail (where compilers and tracebacks say most), a marker between them."""
    if len(text) <= limit_chars:
        return text
    marker = f"\n… [{len(text) - limit_chars} characters cut] …\n"
    room = limit_chars - len(marker)
    if room < 2:
        return text[:limit_chars]
    head = room - room // 2
    return text[:head] + marker + text[len(text) - room // 2:]


def sanitize_candidate_text(text: str, limit_chars: int = 2000) -> str:
    """``text`` (written by a candidate or its tools) as a verdict may show it.

    Secrets redacted (:func:`kerneltrials.sandbox.redact`), ANSI escapes removed, other
    control characters but newline and tab replaced by ``?``, host prefixes shortened,
    lines over :data:`MAX_LINE_CHARS` cut, and the result at most ``limit_chars`` long.
    """
    # Escapes and invisible characters go first: one inside a secret would hide it from redact.
    text = redact(_INVISIBLE.sub("", _ANSI.sub("", str(text)))).replace("\r\n", "\n")
    text = _UNPRINTABLE.sub("?", text)
    for prefix, label in _host_prefixes():
        text = re.sub(re.escape(prefix) + r"(?![\w.-])", label, text)
    text = "\n".join(_cut_line(line) for line in text.split("\n"))
    return _cap(text, max(0, limit_chars))
