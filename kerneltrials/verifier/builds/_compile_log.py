"""A compiler's log, as a candidate's author wants to read it: its errors, each at the
line of the candidate's own file, without the build system's command lines.

The extension's sources are written to files the author never sees (``main.cpp``,
``cuda.cu``, ...), so a compiler's ``main.cpp:15:34`` says little. The compiler quotes the
offending line of code under each error (gcc, clang: ``   15 |     code``; nvcc: the line
after the error); that text is looked up in the candidate's file to give its line there.
Pure functions over text: the log and the source are the candidate's, only read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: gcc and clang: ``path:line:col: error: message`` (also ``fatal error``)
_GCC = re.compile(r"^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?:(?P<col>\d+):)?\s*"
                  r"(?:fatal )?error:\s*(?P<message>.*)$")
#: nvcc's front end: ``path(line): error: message`` (``error #20: ...`` on newer ones)
_NVCC = re.compile(r"^(?P<file>[^\s(][^(]*)\((?P<line>\d+)\):\s*error(?: #?\w+-?\w*)?:\s*"
                   r"(?P<message>.*)$")
#: gcc's quote of the code: ``   15 |     return x``
_GCC_QUOTE = re.compile(r"^\s*\d+\s\|\s?(?P<code>.*)$")
#: Errors shown; the rest are counted.
MAX_ERRORS = 5


@dataclass(frozen=True)
class CompilerError:
    """One error the compiler reported: where (in its own file), what, and the code."""

    file: str  # the file name the compiler saw (main.cpp, cuda.cu), no directory
    line: int
    column: int | None
    message: str
    code: str | None  # the line of code the compiler quoted, if it did

    def place(self) -> str:
        return f"{self.file}:{self.line}" + (f":{self.column}" if self.column else "")


def compiler_errors(log: str) -> list[CompilerError]:
    """Every error in a gcc, clang or nvcc log, in order, with the code line it quoted."""
    lines = log.splitlines()
    found: list[CompilerError] = []
    for index, text in enumerate(lines):
        match = _GCC.match(text.strip()) or _NVCC.match(text.strip())
        if match is None:
            continue
        column = match.groupdict().get("col")
        found.append(CompilerError(
            file=match["file"].rsplit("/", 1)[-1], line=int(match["line"]),
            column=int(column) if column else None, message=match["message"].strip(),
            code=_quoted_code(lines[index + 1:index + 3], nvcc=match.re is _NVCC)))
    return found


def _quoted_code(following: list[str], nvcc: bool) -> str | None:
    if not following:
        return None
    if nvcc:  # the next line is the code itself, then a caret line
        code = following[0].rstrip()
        return code.strip() or None
    quoted = _GCC_QUOTE.match(following[0])
    return quoted["code"].strip() or None if quoted else None


def candidate_line(code: str | None, candidate_source: str) -> int | None:
    """The line of ``candidate_source`` that is ``code`` (compared without surrounding
    whitespace), else the first line that contains it (sources built into one string
    literal); the first one, when the same code appears more than once."""
    if not code:
        return None
    wanted = code.strip()
    lines = candidate_source.splitlines()
    for number, text in enumerate(lines, start=1):
        if text.strip() == wanted:
            return number
    for number, text in enumerate(lines, start=1):
        if wanted in text:
            return number
    return None


def readable_compile_error(log: str, candidate_source: str, file_name: str = "the candidate"
                           ) -> str | None:
    """The errors of ``log`` at the candidate's lines, or None when the log shows no
    compiler error (a failure of another kind: a linker, a missing tool)."""
    errors = compiler_errors(log)
    if not errors:
        return None
    shown = []
    for error in errors[:MAX_ERRORS]:
        line = candidate_line(error.code, candidate_source)
        where = (f"{file_name} line {line} ({error.place()})" if line is not None
                 else error.place())
        shown.append(f"{where}: error: {error.message}"
                     + (f"\n    {error.code}" if error.code else ""))
    more = len(errors) - MAX_ERRORS
    if more > 0:
        shown.append(f"... and {more} more error(s)")
    return "\n".join(shown)
