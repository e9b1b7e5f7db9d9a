"""The candidate's output directory on a filesystem of its own size (``_tmpfs``).

The one directory the candidate's job writes (``candidate-out/``) gets a tmpfs of
``CheckOptions.output_quota_bytes()``, so no flood of it (a loop of ``fallocate``
outruns any watch) reaches the disk that every check shares. The quota holds only if the
job's sandbox binds the mount, not the directory under it: bwrap does (it binds after
the mount was made); a container engine does only if its mount namespace receives the
host's new mounts. So the parent looks from outside once the job is up, and otherwise
takes the mount down, so that it reads where the job writes. The verdict's ``isolation``
says which (``output_quota_bytes``, ``output_quota_missing``). docs/design/sandbox.md,
"Disk".
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from kerneltrials._tmpfs import mount_tmpfs, unmount_under
from kerneltrials.verifier._options import CheckOptions

#: Entries the candidate's output filesystem holds at most: its worker saves a few files
#: per configuration, and the parent removes each once read.
OUTPUT_MAX_FILES = 10_000


def mount_output_quota(directory: Path, options: CheckOptions) -> dict[str, Any]:
    """Mount the quota over the (new, empty) ``directory``; the isolation fields."""
    # The directory under the mount is root's: the job writes only the mount, unless it
    # turns out not to see it (confirm_output_quota).
    directory.chmod(0o755)
    quota = options.output_quota_bytes()
    refused = (mount_tmpfs(directory, quota, OUTPUT_MAX_FILES)
               if options.resolved_output_quota() else "off (CheckOptions.output_quota)")
    return {"output_quota_bytes": None if refused else quota, "output_quota_missing": refused}


def confirm_output_quota(directory: Path, quota: dict[str, Any],
                         pids: Iterable[int]) -> dict[str, Any]:
    """The isolation fields as the candidate's job sees the quota (``pids``: its
    processes once it is up, before any candidate code ran): held only if every one of
    them that can be looked into finds the mount at ``directory``, read from outside
    through ``/proc/<pid>/root``, and at least one could."""
    if quota.get("output_quota_bytes") is None:
        return quota
    missing = _unseen_mount(directory, pids)
    if missing is None:
        return quota
    # The job writes the directory under the mount (root's until now, so it could not
    # have written there): it becomes the job's to write (inside the check's private
    # root), and the parent reads where the job writes.
    unmount_under(directory)
    directory.chmod(0o1777)
    return {"output_quota_bytes": None, "output_quota_missing": missing}


def _unseen_mount(directory: Path, pids: Iterable[int]) -> str | None:
    """Why the processes ``pids`` may not see the mount at ``directory``; None: they do."""
    mounted, looked = os.stat(directory).st_dev, 0
    for pid in pids:
        try:
            seen = os.stat(f"/proc/{pid}/root{directory}").st_dev
        except OSError:  # gone meanwhile, or a process outside the job's view
            continue
        looked += 1
        if seen != mounted:
            return ("the job's sandbox bound the directory under the harness's mount (a "
                    "container engine whose mount namespace does not receive the host's "
                    "new mounts)")
    return None if looked else "no process of the job could be looked into"
