"""The imports a relocatable object's code can reach, read from its ELF sections.

Without optimisation (``load_inline``'s default: stock adds no ``-O``), clang emits into a
unit every inline function and template instance the precompiled ``torch/extension.h``
marked used — thousands of COMDAT sections of pybind11 and c10 code that nothing in the
candidate calls, importing the CPython API among others. The optimiser would drop them;
at ``-O0`` they stay, so reading every undefined symbol of the object would reject every
unoptimised candidate for code it never runs.

So the imports that count are those referenced from sections reachable from the code that
runs: every allocated section outside a COMDAT group (the candidate's own functions and
data, where non-inline code lands), every initialiser or finaliser array (run at load or
unload, COMDAT or not: an inline variable's initialiser sits in its group), and the
section of every ``ifunc`` symbol (its resolver runs at load); from each, the relocations
lead to the sections of the symbols it uses (a COMDAT group is reached whole), and to
undefined symbols: the imports. ``.eh_frame`` refers to every function and is no root.
Code that is never referenced is linked but cannot run, except through what no symbol
shows (a pointer computed from memory), which docs/design/anticheat.md names as a limit.

The same reading gives the global definitions outside reachable code: a C++ name there
is an unused header instance, not something of the candidate's that can run.

Pure: bytes in, mangled names out; ``None`` when the bytes are not an ELF64
little-endian relocatable object this reader understands (the caller then counts every
undefined symbol: it fails closed).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

#: Every unit of the candidate (its C++ unit, the host code of its CUDA units) puts each
#: function and datum in its own section, so this reading can tell the code that can run
#: from the header code ``-O0`` leaves beside it; layout only, no change to what the code
#: does. A candidate that turns it off only coarsens the reading: more counts, never less.
SECTION_FLAGS = ["-ffunction-sections", "-fdata-sections"]

_SHT_SYMTAB, _SHT_RELA, _SHT_REL, _SHT_GROUP = 2, 4, 9, 17
_SHT_ARRAYS = (14, 15, 16)  # INIT_ARRAY, FINI_ARRAY, PREINIT_ARRAY
_SHF_ALLOC = 0x2
_STB_LOCAL = 0
_STT_SECTION, _STT_GNU_IFUNC = 3, 10
_SHN_UNDEF, _SHN_LORESERVE = 0, 0xFF00
_ET_REL = 1
_NO_ROOTS = (".eh_frame",)


@dataclass(frozen=True)
class _Section:
    name: str
    kind: int
    flags: int
    offset: int
    size: int
    link: int
    info: int
    entsize: int


def _sections(data: bytes) -> list[_Section] | None:
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:  # ELF64, little-endian
        return None
    (kind,) = struct.unpack_from("<H", data, 16)
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    if kind != _ET_REL or shentsize != 64 or shnum == 0 or shstrndx >= shnum:
        return None
    raw = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + index * 64) for index in range(shnum)]
    names_at = raw[shstrndx][4]
    return [_Section(_text(data, names_at + name), kind, flags, offset, size, link, info,
                     entsize)
            for name, kind, flags, _, offset, size, link, info, _, entsize in raw]


def _text(data: bytes, at: int) -> str:
    return data[at:data.index(b"\0", at)].decode("utf-8", "replace")


@dataclass(frozen=True)
class Reach:
    """Raw (mangled) names: the imports reachable code refers to, and the global
    definitions no reachable code holds (header code ``-O0`` left unused)."""

    imports: frozenset[str]
    unreached_definitions: frozenset[str]


def reachable_imports(data: bytes, not_roots: frozenset[str] = frozenset()) -> Reach | None:
    """What the object's reachable sections import and which definitions lie outside them.

    ``not_roots``: global symbols whose sections are no roots (the init of a module the
    harness generated into the unit: its code is the harness's).
    """
    try:
        return _reach(data, not_roots)
    except (struct.error, ValueError, IndexError):
        return None


def _reach(data: bytes, not_roots: frozenset[str]) -> Reach | None:
    sections = _sections(data)
    if sections is None:
        return None
    symtabs = [index for index, s in enumerate(sections) if s.kind == _SHT_SYMTAB]
    if len(symtabs) != 1:
        return None
    table = sections[symtabs[0]]
    strings = sections[table.link].offset
    symbols = []  # (name, section index, type, binding)
    for at in range(table.offset, table.offset + table.size, 24):
        name, info, _, shndx, _, _ = struct.unpack_from("<IBBHQQ", data, at)
        symbols.append((_text(data, strings + name), shndx, info & 0xF, info >> 4))
    group_of: dict[int, list[int]] = {}
    for s in sections:
        if s.kind == _SHT_GROUP:
            members = list(struct.unpack_from(f"<{s.size // 4}I", data, s.offset))[1:]
            for member in members:
                group_of[member] = members
    relocations: dict[int, list[int]] = {}  # section -> symbol indices it refers to
    for s in sections:
        if s.kind in (_SHT_RELA, _SHT_REL):
            step = 24 if s.kind == _SHT_RELA else 16
            relocations.setdefault(s.info, []).extend(
                struct.unpack_from("<Q", data, at + 8)[0] >> 32
                for at in range(s.offset, s.offset + s.size, step))
    exported = {shndx for name, shndx, _, bind in symbols
                if bind != _STB_LOCAL and name not in not_roots}
    roots = [index for index, s in enumerate(sections)
             if (s.flags & _SHF_ALLOC and index not in group_of and s.name not in _NO_ROOTS
                 and index in exported)
             or s.kind in _SHT_ARRAYS]
    roots += [shndx for _, shndx, kind, _ in symbols
              if kind == _STT_GNU_IFUNC and _SHN_UNDEF < shndx < _SHN_LORESERVE]
    reached: set[int] = set()
    imports: set[str] = set()
    pending = list(roots)
    while pending:
        index = pending.pop()
        if index in reached:
            continue
        reached.add(index)
        pending.extend(group_of.get(index, ()))  # a COMDAT group is kept whole
        for symbol in relocations.get(index, []):
            name, shndx, _, _ = symbols[symbol]
            if shndx == _SHN_UNDEF:
                if name:
                    imports.add(name)
            elif shndx < _SHN_LORESERVE and shndx not in reached:
                pending.append(shndx)
    unreached = {name for name, shndx, _, bind in symbols
                 if bind != _STB_LOCAL and _SHN_UNDEF < shndx < _SHN_LORESERVE
                 and shndx not in reached}
    return Reach(frozenset(imports), frozenset(unreached))
