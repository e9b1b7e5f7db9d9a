"""The minimal filesystem view of a job: what it may read, and nothing else.

A job sees the system dirs (compilers, libraries), the Python runtime
(``sys.base_prefix``), the virtual environment (``sys.prefix``), the installed
``kerneltrials`` package directory itself (not its parent: an editable install's parent
is the repository checkout, with ``.git``, ``.env`` files and results databases), a few
files of ``/etc`` that the runtime and the compilers read, and the job's own mounts.
Not ``/root`` (beyond the runtime when it lives there), not the rest of ``/etc``
(``/etc/shadow``), not the checkout, not the build cache. bwrap and the docker backend's
host-bind image build their root from these paths. See docs/design/sandbox.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

#: System directories a job may read (bound read-only when they exist).
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt")

#: The files of /etc a job needs: the dynamic loader's cache and config, user and group
#: names (``getpwuid``: Python's ``~``, compilers), name service switch, the time zone,
#: and ``alternatives/`` (``/usr/bin/c++``, ``cc``, ``cpp`` are links through it).
ETC_ENTRIES = (
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "passwd",
    "group",
    "nsswitch.conf",
    "localtime",
    "alternatives",
    "os-release",  # platform.freedesktop_os_release(), the verdict's hardware line
)


def package_dir() -> Path:
    """The installed ``kerneltrials`` package directory (never its parent)."""
    return Path(__file__).resolve().parent.parent


def runtime_paths() -> list[Path]:
    """Host paths a job reads: system dirs, Python, the venv, this package, /etc files.

    Both a path and its resolved form are kept (a venv's ``python`` links into the
    base runtime); nested paths are dropped when an outer one is already bound.
    """
    candidates = [Path(p) for p in SYSTEM_DIRS]
    candidates += [Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).parent]
    candidates.append(package_dir())
    candidates += [Path("/etc") / name for name in ETC_ENTRIES]
    paths: list[Path] = []
    for path in candidates:
        for variant in (path, path.resolve()):
            if variant.exists() and variant not in paths:
                paths.append(variant)
    return drop_nested(paths)


def drop_nested(paths: list[Path]) -> list[Path]:
    """Keep only outermost paths (a bind of /usr already contains /usr/local)."""
    kept: list[Path] = []
    for path in sorted(paths, key=lambda p: len(p.parts)):
        if not any(is_within(path, outer) for outer in kept):
            kept.append(path)
    return kept


def is_within(path: Path, outer: Path) -> bool:
    return path == outer or outer in path.parents


def view_report() -> dict[str, object]:
    """What the minimal view holds, for ``isolation`` and ``doctor``."""
    return {
        "runtime": [str(p) for p in runtime_paths() if not is_within(p, Path("/etc"))],
        "etc": sorted(name for name in ETC_ENTRIES if (Path("/etc") / name).exists()),
    }
