"""C++/CUDA source as text: comments, literals and directives masked; brackets matched;
``<<<...>>>`` launches rewritten. The pieces of _split.py that read source without
parsing it (see docs/design/builds.md).
"""

from __future__ import annotations

import re


class SplitUnavailable(Exception):
    """The source uses something the split does not handle; nvcc compiles it whole."""


def mask_source(text: str) -> str:
    """``text`` with comments, literal contents and preprocessor lines blanked.

    The result has the same length and the same newlines, so positions found in it are
    positions in ``text``.
    """
    out = list(text)
    i, n, line_start = 0, len(text), True
    while i < n:
        c = text[i]
        if c == "\n":
            line_start = True
            i += 1
            continue
        if line_start and c in " \t":
            i += 1
            continue
        if line_start and c == "#":
            i = _blank_directive(text, out, i)
            continue
        line_start = False
        if text.startswith("//", i):
            end = text.find("\n", i)
            i = _blank(out, i, n if end < 0 else end)
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = _blank(out, i, n if end < 0 else end + 2)
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            i = _blank_raw_string(text, out, i)
        elif c in "\"'":
            i = _blank_literal(text, out, i, c)
        else:
            i += 1
    return "".join(out)


def _blank(out: list[str], start: int, end: int) -> int:
    for k in range(start, end):
        if out[k] != "\n":
            out[k] = " "
    return end


def _blank_directive(text: str, out: list[str], i: int) -> int:
    end = i
    while True:
        newline = text.find("\n", end)
        if newline < 0:
            return _blank(out, i, len(text))
        if text[newline - 1] != "\\":
            return _blank(out, i, newline)
        end = newline + 1


def _blank_literal(text: str, out: list[str], i: int, quote: str) -> int:
    k = i + 1
    while k < len(text) and text[k] != quote and text[k] != "\n":
        k += 2 if text[k] == "\\" else 1
    _blank(out, i + 1, min(k, len(text)))
    return k + 1


def _blank_raw_string(text: str, out: list[str], i: int) -> int:
    open_paren = text.find("(", i + 2)
    if open_paren < 0:
        raise SplitUnavailable("unterminated raw string")
    closing = ")" + text[i + 2:open_paren] + '"'
    end = text.find(closing, open_paren)
    if end < 0:
        raise SplitUnavailable("unterminated raw string")
    _blank(out, i + 2, end + len(closing) - 1)
    return end + len(closing)


def match_bracket(masked: str, start: int, opening: str, closing: str) -> int:
    """Index of the bracket closing the one at ``start``."""
    depth = 0
    for k in range(start, len(masked)):
        if masked[k] == opening:
            depth += 1
        elif masked[k] == closing:
            depth -= 1
            if depth == 0:
                return k
    raise SplitUnavailable(f"unbalanced {opening!r} at offset {start}")


def strip_template_prefix(head: str) -> str:
    """``head`` without its leading ``template <...>`` clauses."""
    while True:
        match = re.match(r"\s*template\s*<", head)
        if not match:
            return head
        depth, k = 0, match.end() - 1
        for k in range(match.end() - 1, len(head)):
            depth += {"<": 1, ">": -1}.get(head[k], 0)
            if depth == 0:
                break
        head = head[k + 1:]


def _launch_target_start(masked: str, end: int) -> int:
    """Where the kernel expression that ends at ``end`` (before ``<<<``) starts."""
    k = end
    while k > 0 and masked[k - 1].isspace():
        k -= 1
    if k > 0 and masked[k - 1] == ">":  # explicit template arguments: k<float, 4><<<...>>>
        depth = 0
        while k > 0:
            k -= 1
            depth += {">": 1, "<": -1}.get(masked[k], 0)
            if depth == 0:
                break
    while k > 0 and (masked[k - 1].isalnum() or masked[k - 1] in "_:"):
        k -= 1
    target = masked[k:end].strip()
    if not target or not (target[0].isalpha() or target[0] in "_:"):
        raise SplitUnavailable("a launch through an expression the split cannot name")
    return k


def rewrite_launches(text: str) -> str:
    """Every ``k<<<config>>>(args)`` as ``cudafe++`` writes it for the host compiler."""
    masked = mask_source(text)
    for match in reversed(list(re.finditer(r"<<<", masked))):
        config_end = masked.find(">>>", match.end())
        if config_end < 0:
            raise SplitUnavailable("a launch without '>>>'")
        open_paren = config_end + 3
        while open_paren < len(masked) and masked[open_paren].isspace():
            open_paren += 1
        if masked[open_paren:open_paren + 1] != "(":
            raise SplitUnavailable("a launch without an argument list")
        close_paren = match_bracket(masked, open_paren, "(", ")")
        target_start = _launch_target_start(masked, match.start())
        target = text[target_start:match.start()].strip()
        config = text[match.end():config_end]
        arguments = text[open_paren:close_paren + 1]
        replacement = f"((__cudaPushCallConfiguration({config})) ? (void)0 : {target}{arguments})"
        padding = "\n" * text.count("\n", target_start, close_paren + 1)
        text = text[:target_start] + replacement.replace("\n", " ") + padding + text[close_paren + 1:]
    return text
