"""A candidate's unit without the code nothing references, before clang optimises it.

Every unit that includes torch/extension.h carries ~2,600 inline pybind11 functions that
only a static array of function pointers reaches (pybind11's
``function_record_PyType_Slots``: a cast to ``void*`` in its initialiser counts as a side
effect, so clang must emit it); clang's optimiser works on all of them before its late
dead-code pass drops them, ~2.3 s of a unit's ~7 s. So where LLVM's ``opt`` of clang's
own release is at hand and the unit is optimised, it is compiled in three commands:
clang's front end stopped before the optimiser, ``opt`` deleting what nothing
references, and clang optimising and emitting the rest with the unit's own flags. On
this repository's 50 reference solutions, and at ``-O3 -march=native -ffast-math``, the
object's code, relocations and symbols are the same as one clang command's
(docs/design/builds.md, item 7). At ``-O0`` nothing is optimised, so there is little to
gain (0.1-0.4 s) and it stays one command.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from kerneltrials._toolversion import version_line, version_lines
from kerneltrials.verifier.builds._reach import SECTION_FLAGS

#: What ``opt`` runs on the unoptimised unit: the passes that delete what nothing references.
DEAD_CODE_PASSES = "globalopt,globaldce"


def find_llvm_opt(cxx: str) -> str | None:
    """LLVM's ``opt`` of the same installation as ``cxx`` (beside the real clang binary,
    the same major version: clang reads only its own release's bitcode), or None.
    ``KERNELTRIALS_LLVM_OPT`` names another (same major) or, as ``none``, turns the step
    off."""
    chosen = os.environ.get("KERNELTRIALS_LLVM_OPT", "").strip()
    if chosen == "none":
        return None
    path = chosen or str(Path(os.path.realpath(cxx)).parent / "opt")
    if not os.access(path, os.X_OK):
        return None
    clang = re.search(r"clang version (\d+)\.", version_line(cxx) or "")
    llvm = re.search(r"LLVM version (\d+)\.", " ".join(version_lines(path) or ()))
    return path if clang and llvm and clang.group(1) == llvm.group(1) else None


def optimises(flags: Sequence[str]) -> bool:
    """Whether the last ``-O`` flag asks for optimisation (none at all, as stock passes
    none, is ``-O0``)."""
    levels = [flag for flag in flags if flag.startswith("-O")]
    return bool(levels) and levels[-1] != "-O0"


def candidate_unit_base(cxx: str, cflags: list[str], pch: Path | None) -> list[str]:
    """clang, a candidate unit's flags (the section flags the link policy reads by) and its
    PCH: the C++ unit's and the CUDA host unit's command, without source or output."""
    return [cxx, *cflags, *SECTION_FLAGS, *(["-include-pch", str(pch)] if pch else [])]


def unit_commands(compile_base: list[str], source: str, llvm_opt: str | None) -> list[list[str]]:
    """The commands that compile ``source`` into ``source.o``. ``compile_base`` is clang,
    the unit's flags and ``-include-pch PCH``, without source or output: one command of it,
    or the three of the dead-code step where ``llvm_opt`` is given and the flags optimise."""
    if llvm_opt is None or not optimises(compile_base[1:]):
        return [[*compile_base, "-c", source, "-o", f"{source}.o"]]
    front, lean = f"{source}.bc", f"{source}.lean.bc"
    back = list(compile_base)
    if "-include-pch" in back:  # bitcode has no header to precompile
        at = back.index("-include-pch")
        del back[at:at + 2]
    return [[*compile_base, "-Xclang", "-disable-llvm-passes", "-emit-llvm", "-c", source, "-o",
             front],
            [llvm_opt, f"-passes={DEAD_CODE_PASSES}", front, "-o", lean],
            # The preprocessor's flags mean nothing to bitcode: unused, and no error under
            # a candidate's -Werror.
            [*back, "-Wno-unused-command-line-argument", "-c", lean, "-o", f"{source}.o"]]
