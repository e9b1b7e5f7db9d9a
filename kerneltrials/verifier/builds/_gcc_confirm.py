"""Confirming the fast path's compile error with stock's own compiler, in seconds.

When clang rejects a candidate, stock (g++ through ``load_inline``) stays the authority: a
candidate that stock compiles must compile. A full stock build parses torch's headers for
~20 s here, which made a one-character typo cost half a minute. So the confirmation is a
``g++ -fsyntax-only`` of stock's own ``main.cpp`` (written by torch, not rebuilt by us)
against a g++ precompiled header of ``torch/extension.h`` for stock's exact flags, stopped
at its first error: about a second.

Why the answer is stock's: the PCH holds exactly what stock's first line includes, built
with stock's flags, and ``-include`` puts it before that line, so the unit g++ sees is
stock's own (with the fast path's fixed ``TORCH_EXTENSION_NAME``, which only names the
module; the flags and so the key would otherwise differ per candidate); and a syntax-only
pass stopped at its first error finds a subset of the errors a full compile finds, so
when it rejects the unit, stock would have too. When it accepts, the stock build decides
as before. A PCH g++ finds unusable is skipped by g++ itself (slower, the same answer),
and one is published only after it accepted a known-good unit.

The PCH costs ~40 s and ~0.8 GB per flag set, so it is built only where it pays: in the
job of the first candidate clang rejects, beside that job's stock build (the two
compilers use the two cores), and kept in the toolchain store.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from kerneltrials._toolversion import version_line
from kerneltrials.verifier.builds._compile_log import compiler_errors
from kerneltrials.verifier.builds._fast import _digest, _torch_header_stamp
from kerneltrials.verifier.builds._stock_flags import StockFlags
from kerneltrials.verifier.builds._toolrun import run_tool

GCC_PCH_DIR = "gcc_pch"  # where a job leaves the PCH it built, under its output directory
GCC_PCH_UNUSABLE = "gcc_pch_unusable"  # a job's note that the planned PCH did not verify
HEADER = "extension.h"  # a one-line header including torch's; its PCH sits beside it
PCH_FILE = HEADER + ".gch"
CHECKED = "checked"  # written last: a job killed mid-build leaves nothing to publish
PCH_FILES = [HEADER, PCH_FILE, CHECKED]
_KNOWN_GOOD = ("#include <torch/extension.h>\n"
               "torch::Tensor identity(torch::Tensor x) { return x; }\n"
               "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def(\"identity\", identity); }\n")


def stock_cxx(flags: StockFlags) -> str:
    return flags.cxx[0] if flags.cxx else "c++"


def gcc_pch_key(flags: StockFlags) -> str:
    """The store key of the PCH for these flags: compiler, flags and torch's headers."""
    return "gccpch-" + _digest(version_line(stock_cxx(flags)) or "", flags.cflags,
                               flags.post_cflags, _torch_header_stamp())


def _syntax_command(flags: StockFlags, pch_dir: Path, source: str,
                    pch_required: bool = False, first_error: bool = False) -> list[str]:
    # -Winvalid-pch: an unusable PCH is said in the log (and g++ reads the header instead);
    # the check of a new PCH makes that an error, so a PCH g++ cannot use is not kept.
    invalid = "-Werror=invalid-pch" if pch_required else "-Winvalid-pch"
    # -Wfatal-errors: g++ stops at the first error instead of going on to instantiate the
    # ~thousands of templates torch's header left pending (~8 s of a ~9 s check here).
    stop = ["-Wfatal-errors"] if first_error else []
    return [stock_cxx(flags), *flags.cflags, invalid, *stop, "-include", str(pch_dir / HEADER),
            "-fsyntax-only", source, *flags.post_cflags]


def build_gcc_pch(flags: StockFlags, out_dir: Path) -> None:
    """Build the PCH into ``out_dir`` and check it on a known-good unit; on any failure
    ``out_dir`` is left without the PCH and its ``checked`` mark (nothing to publish)."""
    try:
        out_dir.mkdir(exist_ok=True)
        (out_dir / HEADER).write_text("#include <torch/extension.h>\n")
        run_tool([stock_cxx(flags), *flags.cflags, "-x", "c++-header", HEADER, "-o", PCH_FILE,
                  *flags.post_cflags], out_dir)
        check = out_dir / "check"
        check.mkdir()
        (check / "main.cpp").write_text(_KNOWN_GOOD)
        run_tool(_syntax_command(flags, out_dir, "main.cpp", pch_required=True), check)
    except (subprocess.CalledProcessError, OSError):  # never the candidate's: no PCH, that is all
        (out_dir / PCH_FILE).unlink(missing_ok=True)
        return
    (out_dir / CHECKED).write_text("a known-good unit compiled against this PCH\n")


def stock_rejects(flags: StockFlags, pch_dir: Path, main_cpp: Path,
                  fast_path_log: str = "") -> str | None:
    """g++'s log when it rejects stock's ``main_cpp`` (the candidate does not compile),
    None when it accepts it (the stock build decides).

    g++ stops at its first error; the further errors clang found (``fast_path_log``, the
    same lines of the same ``main.cpp``) follow it, so the author still sees them all."""
    try:
        run_tool(_syntax_command(flags, pch_dir, main_cpp.name, first_error=True), main_cpp.parent)
    except subprocess.CalledProcessError as error:
        log = f"{error.stdout or ''}{error.stderr or ''}"
        # A compiler that crashed or named no error of the unit has not judged the
        # candidate: the stock build does.
        if "internal compiler error" in log or not compiler_errors(log):
            return None
        return log + further_errors(log, fast_path_log)
    return None


def further_errors(gcc_log: str, clang_log: str) -> str:
    """clang's errors at lines of ``main.cpp`` where g++ (stopped at its first) said
    nothing, each with the lines it quoted; empty when there are none."""
    said = {(error.file, error.line) for error in compiler_errors(gcc_log)}
    lines = clang_log.splitlines()
    blocks = []
    for index, text in enumerate(lines):
        found = compiler_errors(text)
        if not found or (found[0].file, found[0].line) in said:
            continue
        said.add((found[0].file, found[0].line))
        quoted = [line for line in lines[index + 1:index + 3] if "|" in line]
        blocks.append("\n".join([text, *quoted]))
    if not blocks:
        return ""
    return ("\ng++ stops at its first error; clang++ (the fast path) also found:\n"
            + "\n".join(blocks) + "\n")
