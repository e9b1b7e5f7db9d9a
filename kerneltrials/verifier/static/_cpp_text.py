"""C++ text as the compiler reads it, for the static scan: one lexer pass, no regex tricks.

The scan's regexes run on ``code``: line splices joined, comments replaced by a space,
string and character literals blanked to ``""``, digit separators (``1'000``) dropped,
digraphs ``%:``/``%:%:`` spelled ``#``/``##`` and universal character names in
identifiers decoded. Raw strings (``R"d(...)d"``) end where the compiler ends them: their
body is read from the unspliced text, as the compiler does. Literal values (escapes
decoded) and ``#include`` arguments are kept aside for the checks that need them.
Regex blanking was evaded by ``soc\\<newline>ket``, ``1'0; system("x"); 2'0`` (read as a
character literal) and raw strings holding ``"`` (docs/design/anticheat.md).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

_SPLICE = re.compile(r"\\[ \t]*\r?\n")
_IDENTIFIER = re.compile(r"(?:[A-Za-z_$]|\\u[0-9a-fA-F]{4}|\\U[0-9a-fA-F]{8})"
                         r"(?:[\w$]|\\u[0-9a-fA-F]{4}|\\U[0-9a-fA-F]{8})*")
_PP_NUMBER = re.compile(r"\.?[0-9](?:[eEpP][+-]|'[\w]|[\w.])*")
_UCN = re.compile(r"\\u([0-9a-fA-F]{4})|\\U([0-9a-fA-F]{8})")
_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]+|[0-7]{1,3}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)", re.DOTALL)
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "v": "\v", "a": "\a", "b": "\b", "f": "\f",
                   "e": "\x1b", "0": "\0"}
_STRING_PREFIXES = {"R", "u8R", "uR", "UR", "LR", "u8", "u", "U", "L"}
_INCLUDES = {"include", "include_next", "import", "embed"}
_RAW_OPEN = re.compile(r'"([^ ()\\\t\v\f\n]{0,16})\(')


@dataclass(frozen=True)
class CppText:
    """A source normalised for scanning."""

    code: str  # splices joined, comments -> " ", literals -> "", digraphs and UCNs decoded
    literals: tuple[str, ...]  # every string/character literal's value, escapes decoded
    includes: tuple[tuple[str, str], ...]  # (directive, argument); argument "" when computed
    literal_at: tuple[int, ...] = ()  # where each literal's "" placeholder is in ``code``


class _Lexer:
    def __init__(self, source: str) -> None:
        self.original = source
        self.origin: list[int] = []  # spliced index -> original index
        pieces, last = [], 0
        for match in _SPLICE.finditer(source):
            pieces.append(source[last:match.start()])
            self.origin.extend(range(last, match.start()))
            last = match.end()
        pieces.append(source[last:])
        self.origin.extend(range(last, len(source)))
        self.text = "".join(pieces)
        self.out: list[str] = []
        self.literals: list[str] = []
        self.includes: list[tuple[str, str]] = []
        self.literal_at: list[int] = []
        self.length = 0  # of the code emitted so far
        self.at = 0
        self.line_has_token = False  # a directive's # must be a line's first token
        self.directive = ""  # "#" / "include"…: what the next token means

    def run(self) -> CppText:
        while self.at < len(self.text):
            self._step(self.text[self.at], self.text[self.at:self.at + 2])
        self._end_line()
        return CppText("".join(self.out), tuple(self.literals), tuple(self.includes),
                       tuple(self.literal_at))

    def _put(self, piece: str) -> None:
        self.out.append(piece)
        self.length += len(piece)

    def _emit(self, piece: str) -> None:
        self._put(piece)
        self.line_has_token = True

    def _end_line(self) -> None:
        if self.directive in _INCLUDES:
            self.includes.append((self.directive, ""))  # nothing the scan can read
        self.directive = ""
        self.line_has_token = False

    def _step(self, char: str, pair: str) -> None:
        text = self.text
        if char in " \t\v\f\r\n":  # whitespace keeps the directive state, a newline ends it
            if char == "\n":
                self._end_line()
            self._put(char)
            self.at += 1
        elif pair in ("//", "/*"):  # a comment is a space (and a // comment ends at the newline)
            end = text.find("\n" if pair == "//" else "*/", self.at + 2)
            self.at = len(text) if end < 0 else (end if pair == "//" else end + 2)
            self._put(" ")
        elif self.directive in _INCLUDES:
            self._include_argument(char)
        elif char in "\"'":
            self._literal(char)
        elif char == "#" or pair == "%:":
            self.directive = "" if self.line_has_token else "#"
            width = 4 if text[self.at:self.at + 4] == "%:%:" else (2 if pair == "%:" else 1)
            self._emit("#" * (width // 2 if char == "%" else 1))
            self.at += width
        elif (match := _PP_NUMBER.match(text, self.at)) is not None:
            self._emit(match.group(0).replace("'", ""))
            self.at = match.end()
        elif (match := _IDENTIFIER.match(text, self.at)) is not None:
            self._identifier(match.group(0), match.end())
        else:
            self._emit(char)
            self.at += 1

    def _identifier(self, name: str, end: int) -> None:
        self.at = end
        following = self.text[end:end + 1]
        if name in _STRING_PREFIXES and following == '"' and name.endswith("R"):
            self._raw_string()
        elif name in _STRING_PREFIXES and following and following in "\"'":
            self._literal(following)
        else:
            name = _UCN.sub(lambda m: chr(int(m.group(1) or m.group(2), 16)), name)
            self.directive = name if self.directive == "#" and name in _INCLUDES else ""
            self._emit(name)

    def _literal(self, quote: str) -> None:
        """A quoted literal from ``self.at`` (its opening quote) to its closing quote; an
        unterminated one ends at the line's end, as the compiler's diagnostic does."""
        text, index = self.text, self.at + 1
        while index < len(text) and text[index] not in (quote, "\n"):
            index += 2 if text[index] == "\\" else 1
        self._record(decode_escapes(text[self.at + 1:min(index, len(text))]))
        self.at = min(index + 1, len(text)) if text[index:index + 1] == quote else index

    def _raw_string(self) -> None:
        """``R"delim( ... )delim"``: the body is read from the original (unspliced) text."""
        opening = _RAW_OPEN.match(self.text, self.at)
        if opening is None:  # not a valid raw string: the compiler rejects it
            self._literal('"')
            return
        body_start = (self.origin[opening.end()] if opening.end() < len(self.origin)
                      else len(self.original))
        close = self.original.find(f"){opening.group(1)}\"", body_start)
        body_end = len(self.original) if close < 0 else close
        self._record(self.original[body_start:body_end])
        resume = len(self.original) if close < 0 else close + len(opening.group(1)) + 2
        self.at = bisect.bisect_left(self.origin, resume)

    def _record(self, value: str) -> None:
        self.literals.append(value)
        self.literal_at.append(self.length)
        self._emit('""')

    def _include_argument(self, char: str) -> None:
        """The token after ``#include``: a header name, a string, or a macro (computed)."""
        directive, self.directive = self.directive, ""
        if char == '"':
            self._literal('"')
            self.includes.append((directive, self.literals[-1]))
            return
        end = self.text.find(">", self.at)
        line_end = self.text.find("\n", self.at)
        if char == "<" and end > 0 and (line_end < 0 or end < line_end):
            self.includes.append((directive, self.text[self.at + 1:end]))
            self._emit(self.text[self.at:end + 1])
            self.at = end + 1
            return
        self.includes.append((directive, ""))  # a macro or anything else: a computed path


def decode_escapes(body: str) -> str:
    """The value of a literal's body: ``\\x2e``, ``\\056``, ``\\u002e`` and ``\\n`` decoded."""
    def one(match: re.Match[str]) -> str:
        escape = match.group(1)
        if escape[0] in "xuU" and len(escape) > 1:
            return chr(min(int(escape[1:], 16), 0x10FFFF))
        if escape[0] in "01234567":
            return chr(int(escape, 8))
        return _SIMPLE_ESCAPES.get(escape, escape)
    return _ESCAPE.sub(one, body)


def normalise_cpp(source: str) -> CppText:
    """``source`` as the compiler's lexer sees it (see the module docstring)."""
    return _Lexer(source).run()
