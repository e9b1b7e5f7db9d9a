"""Find the C++ signatures of the functions a candidate exports.

The fast build compiles the pybind11 binding code in its own translation unit, cached by
signature set, instead of re-compiling it inside every candidate's unit (~3.5 s each).
That unit needs each exported function's type, which we read from the candidate's text
here, with parameter names dropped and spacing made canonical, so that candidates whose
functions differ only in those (``relu(torch::Tensor x)``, ``act(torch::Tensor  input)``)
share one binding object. Nothing here has to be perfect: the candidate's own unit checks the type we found
(it initialises a pointer of exactly that type with ``&function``, a compile error on any
mismatch), and a function we cannot read sends the build down the stock path.
See docs/design/builds.md.
"""

from __future__ import annotations

import re

_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
_STRING = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')
# A directive runs to the first newline not escaped by a backslash (multi-line macros).
_PREPROCESSOR = re.compile(r"^[ \t]*#(?:\\\r?\n|\\.|[^\\\n])*", re.MULTILINE)
_SPECIFIERS = re.compile(r"\b(?:static|inline|extern|TORCH_API|C10_API|__forceinline__)\b")
_ATTRIBUTE = re.compile(r"\[\[.*?\]\]|__attribute__\s*\(\(.*?\)\)")
# Words that show the text before "name(" is an expression or a declaration we do not
# handle (templates, deduced return types), not a plain function head.
_NOT_A_HEAD = re.compile(r"\b(?:return|template|auto|decltype|operator|typedef|using|new|else|case)\b")
_IDENTIFIER_HEAD = re.compile(r"[A-Za-z_][\w:<>,\s&*]*")


def strip_comments_and_strings(source: str) -> str:
    """Source text with comments, literals and preprocessor lines blanked out."""
    text = _COMMENT.sub(" ", source)
    text = _STRING.sub('""', text)
    return _PREPROCESSOR.sub(" ", text)


def _matching_paren(text: str, open_index: int) -> int:
    """Index of the ``)`` closing the ``(`` at ``open_index``, or -1."""
    depth = 0
    for index in range(open_index, len(text)):
        if text[index] == "(":
            depth += 1
        elif text[index] == ")":
            depth -= 1
            if depth == 0:
                return index
    return -1


def _split_top_level(text: str) -> list[str]:
    """Split a parameter list on commas that are not inside <>, () or {}."""
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for char in text:
        if char in "<({[":
            depth += 1
        elif char in ">)}]":
            depth -= 1
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return [part.strip() for part in parts if part.strip()]


def _parameters(text: str) -> str | None:
    """Parameter list without default arguments (not allowed in a pointer type) and
    without parameter names."""
    params = []
    for part in _split_top_level(text):
        declarator = _split_default(part)
        if declarator is None:
            return None
        params.append(_unnamed(declarator))
    if params == ["void"]:
        params = []
    return ", ".join(params)


# A trailing word that is part of a type, never a parameter's name (``unsigned int``).
_TYPE_WORDS = frozenset({
    "int", "long", "short", "char", "signed", "unsigned", "float", "double", "bool", "void",
    "wchar_t", "char8_t", "char16_t", "char32_t", "const", "volatile", "auto"})
_CV_ONLY = re.compile(r"(?:\s*\b(?:const|volatile)\b)*\s*")
_TRAILING_NAME = re.compile(r"^(?P<type>.*?(?:[\s&*]))(?P<name>[A-Za-z_]\w*)$")


def _unnamed(declarator: str) -> str:
    """``declarator`` without its parameter name, spaced canonically
    (``const torch::Tensor &x`` -> ``const torch::Tensor&``).

    Heuristic, and safe to get wrong: the candidate's unit initialises a pointer of the
    resulting type with ``&function``, so a type changed here fails to compile there and
    the build goes to stock's compiler, never to a mismatched binding.
    """
    text = re.sub(r"\s*([&*])\s*", r"\1 ", " ".join(declarator.split())).strip()
    text = re.sub(r"([&*]) (?=[&*])", r"\1", text)
    match = _TRAILING_NAME.match(text)
    if match is None or match["name"] in _TYPE_WORDS or _CV_ONLY.fullmatch(match["type"]):
        return text
    return match["type"].strip()


def _split_default(parameter: str) -> str | None:
    depth = 0
    for index, char in enumerate(parameter):
        if char in "<({[":
            depth += 1
        elif char in ">)}]":
            depth -= 1
        elif char == "=" and depth == 0:
            return parameter[:index].strip() or None
    return parameter.strip() or None


def _return_type(head: str) -> str | None:
    """The return type from the text between the previous statement and the name."""
    head = _SPECIFIERS.sub(" ", _ATTRIBUTE.sub(" ", head)).strip()
    head = " ".join(head.split())
    if not head or _NOT_A_HEAD.search(head) or not _IDENTIFIER_HEAD.fullmatch(head):
        return None
    if head.count("<") != head.count(">"):
        return None
    return head


def find_signature(source: str, name: str) -> tuple[str, str] | None:
    """``(return_type, parameters)`` of the first definition or declaration of ``name``.

    ``source`` must already be passed through :func:`strip_comments_and_strings`.
    Returns None when the function is not found in a form we can read.
    """
    for match in re.finditer(rf"(?<![\w:.>]){re.escape(name)}\s*\(", source):
        start = max(source.rfind(mark, 0, match.start()) for mark in ";{}")
        return_type = _return_type(source[start + 1 : match.start()])
        close = _matching_paren(source, match.end() - 1)
        if return_type is None or close < 0:
            continue
        tail = source[close + 1 : close + 200].lstrip()
        if not re.match(r"(?:noexcept\b\s*)?[{;]", tail):
            continue
        params = _parameters(source[match.end() : close])
        if params is not None:
            return return_type, params
    return None


def find_signatures(sources: list[str], names: list[str]) -> list[tuple[str, str]] | None:
    """Signatures for every name, or None when any one cannot be read."""
    text = strip_comments_and_strings("\n".join(sources))
    found = []
    for name in names:
        signature = find_signature(text, name)
        if signature is None:
            return None
        found.append(signature)
    return found
