"""The C++ scan's escape hatches: calls, inline assembly, includes and attributes that
reach outside the candidate's kernel (``static:forbidden_cpp:<name>``).

Defence in depth: the sandbox must hold when this misses (docs/design/sandbox.md); the
scan turns the obvious attempts into a ``rejected`` verdict that names them. It reads a
:class:`CppText` (splices joined, comments and literals out, digraphs decoded), so names
split by a line splice or hidden behind a digit separator are seen as the compiler sees
them. Why each entry: docs/design/anticheat.md.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kerneltrials.verifier.static import _names as names
from kerneltrials.verifier.static._cpp_text import CppText
from kerneltrials.verifier.static._names import Finding

_CODE = "static:forbidden_cpp"
_NAME = re.compile(r"[A-Za-z_$][\w$]*")
_ASM = re.compile(r"\b(?:asm|__asm|__asm__)\b")
_ASM_QUALIFIERS = {"volatile", "__volatile__", "goto", "inline", "__inline__"}
# In an assembler template: system calls, files read at assembly time, raw bytes (machine
# code) and sections that run code at load time. None is PTX (honest CUDA inline asm).
_ASM_FORBIDDEN = [
    (re.compile(r"\bsyscall\b|\bsysenter\b"), "asm syscall"),
    (re.compile(r"\bint\s*\$?(?:0x80|128)\b"), "asm int 0x80"),
    (re.compile(r"\bsvc\s+#?0"), "asm svc"),
    (re.compile(r"(?<![\w.$])\.(incbin|include)\b"), ".{0}"),
    (re.compile(r"(?<![\w.$])\.(byte|[248]byte|word|short|long|int|quad|octa|ascii|asciz|"
                r"string|fill|skip|zero|space|section|pushsection|text|data|set|equ|equiv|"
                r"macro|rept|irpc?|insn|inst|globl|symver|weakref|init_array|fini_array|"
                r"preinit_array|ctors|dtors)\b"), "asm .{0}"),
]
_HEADER_SUFFIXES = ("", ".h", ".hh", ".hpp", ".hxx", ".h++", ".cuh", ".inl", ".inc", ".ipp",
                    ".tcc", ".tpp", ".def")
_ATTRIBUTES = re.compile(r"__attribute__\s*\(\((.*?)\)\)|\[\[(.*?)\]\]", re.DOTALL)
_LOAD_TIME_ATTRIBUTES = {"constructor", "destructor", "init_priority"}
_SYMBOL_ATTRIBUTES = {"section", "alias", "weakref", "ifunc", "symver"}
# Namespaces whose functions of these names are not libc's (``at::clone``).
_OWN_NAMESPACES = {"at", "torch", "c10", "cub", "thrust", "cute", "cutlass", "nvcuda",
                   "wmma", "cooperative_groups", "cg"}
_PASTED = re.compile(r"\w+(?:\s*##\s*\w+)+")
_PASTING_MACRO = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)\(([^)]*)\)([^\n]*##[^\n]*)",
                            re.MULTILINE)


def escape_findings(text: CppText, line: int = 0) -> list[Finding]:
    """Every escape-hatch finding in one normalised source."""
    findings = [Finding(_CODE, name, line) for name in _forbidden_names(text.code)]
    findings += [Finding(_CODE, detail, line) for detail in _asm_details(text)]
    findings += [Finding(_CODE, detail, line) for detail in _include_details(text.includes)]
    findings += _attribute_findings(text.code, line)
    findings += [Finding(_CODE, pasted, line) for pasted in _pasted_names(text.code)]
    return findings


def _forbidden_names(code: str) -> Iterator[str]:
    variables: set[str] | None = None  # computed on the first name that needs it
    for match in _NAME.finditer(code):
        name = match.group(0)
        if name not in names.FORBIDDEN_CPP and name not in names.FORBIDDEN_CPP_CALLS:
            continue
        before = code[max(0, match.start() - 200):match.start()].rstrip()
        if before.endswith((".", "->")):
            continue  # a member: obj.open(), stream->close()
        if name in names.FORBIDDEN_CPP:
            yield ("std::" if name == "filesystem" else "") + name
            continue
        variables = _declared_variables(code) if variables is None else variables
        if _used_as_function(code, match, before, name in variables):
            yield name


def _used_as_function(code: str, match: re.Match[str], before: str, is_variable: bool) -> bool:
    """``open(``, a #define body; unless the source declares a variable of that name
    (``float signal = …``) also ``CALL(system)``, ``f = &system``, ``using ::system;``."""
    scope = re.search(r"(\w+)\s*::\s*$", before)
    if scope and scope.group(1) in _OWN_NAMESPACES:
        return False
    after = code[match.end():].lstrip()[:1]
    line_start = code.rfind("\n", 0, match.start()) + 1
    if after == "(" or re.match(r"\s*#\s*define\b", code[line_start:match.start()]):
        return True
    return not is_variable and (after in (")", ",", ";", "}", "") or before.endswith(("&", "?")))


_DECLARATION = re.compile(r"(?:\b(\w+)(?:\s+|\s*[*&]+\s*)|>\s*[*&]*\s*)(\w+)\s*(?=[=;,)\[{]|$)",
                          re.MULTILINE)
_NOT_TYPES = {"return", "using", "case", "else", "goto", "throw", "co_return", "sizeof",
              "new", "delete", "typedef", "define", "namespace"}


def _declared_variables(code: str) -> set[str]:
    """Names declared as variables or parameters (``float signal =``, ``int* open,``)."""
    return {match.group(2) for match in _DECLARATION.finditer(code)
            if match.group(1) not in _NOT_TYPES}


def _asm_details(text: CppText) -> Iterator[str]:
    """Inline assembly templates: syscalls, ``.incbin``, raw bytes; asm labels naming a
    forbidden function (``int f(const char*) __asm__("system")``); computed templates."""
    code = text.code
    for pattern, label in _ASM_FORBIDDEN[3:4]:  # .incbin/.include are never C++ tokens
        for match in pattern.finditer(code):
            yield label.format(match.group(1))
    if not _ASM.search(code):
        return
    for value in (*text.literals, "".join(text.literals)):  # also across macros: asm(A B)
        for pattern, label in _ASM_FORBIDDEN:
            for match in pattern.finditer(value):
                yield label.format(*match.groups())
    for start, end in _asm_spans(code):
        inside = code[start:end]
        first = _NAME.match(inside.lstrip())
        if first and first.group(0) not in _ASM_QUALIFIERS:
            yield "asm with a computed template"
        for at, value in zip(text.literal_at, text.literals, strict=True):
            if start <= at < end:
                yield from (word for word in _NAME.findall(value)
                            if word in names.FORBIDDEN_CPP or word in names.FORBIDDEN_CPP_CALLS)


def _asm_spans(code: str) -> Iterator[tuple[int, int]]:
    """The parenthesised part of each ``asm volatile (...)``."""
    for match in _ASM.finditer(code):
        opening = code.find("(", match.end())
        if opening < 0 or code[match.end():opening].split() and not set(
                code[match.end():opening].split()) <= _ASM_QUALIFIERS:
            continue
        depth, index = 0, opening
        while index < len(code):
            depth += {"(": 1, ")": -1}.get(code[index], 0)
            if depth == 0:
                break
            index += 1
        yield opening + 1, index


def _include_details(includes: tuple[tuple[str, str], ...]) -> Iterator[str]:
    """``#include`` of a path outside the include directories or of a file that is not a
    header (``#include "/etc/passwd"``, ``<../../proc/self/environ>``, a macro)."""
    for directive, path in includes:
        shown = f"#{directive} {path[:80]!r}" if path else f"#{directive} with a computed path"
        suffix = "." + path.rsplit(".", 1)[-1] if "." in path.rsplit("/", 1)[-1] else ""
        if (directive == "embed" or not path or path.startswith(("/", "\\", "~"))
                or ".." in path or suffix.lower() not in _HEADER_SUFFIXES
                or any(ord(char) < 32 for char in path)):
            yield shown


def _attribute_findings(code: str, line: int) -> list[Finding]:
    """``constructor``/``destructor`` (code run at load time); ``section``, ``alias``,
    ``weakref``… (a symbol placed or renamed: ``weakref("system")``, bytes in ``.text``)."""
    findings = []
    for match in _ATTRIBUTES.finditer(code):
        for word in _NAME.findall(match.group(1) or match.group(2) or ""):
            bare = word.strip("_")
            if bare in _LOAD_TIME_ATTRIBUTES:
                findings.append(Finding("cpp:load_time_code", bare, line))
            elif bare in _SYMBOL_ATTRIBUTES:
                findings.append(Finding(_CODE, f"attribute {bare}", line))
    return findings


def _pasted_names(code: str) -> Iterator[str]:
    """Forbidden names that ``a ## b`` builds, in a macro body or in each expansion of a
    function-like macro (``J(soc, ket)``). ``##`` itself is ``cpp:token_pasting``."""
    bodies = [code]
    for define in _PASTING_MACRO.finditer(code):
        name, body = define.group(1), define.group(3)
        parameters = [p.strip() for p in define.group(2).split(",")]
        for call in re.finditer(rf"\b{name}\s*\(([^()]*)\)", code[define.end():]):
            arguments = dict(zip(parameters, (a.strip() for a in call.group(1).split(",")),
                                 strict=False))
            bodies.append(" ".join(arguments.get(token, token)
                                   for token in re.findall(r"\w+|##|\S", body)))
    for body in bodies:
        for match in _PASTED.finditer(body):
            name = re.sub(r"\s*##\s*", "", match.group(0))
            if name in names.FORBIDDEN_CPP or name in names.FORBIDDEN_CPP_CALLS:
                yield name
