"""Who a job runs as: an unprivileged uid/gid, no capabilities, ``no_new_privs``.

The harness runs as root on our machines (developers, CI), and a user-namespace mapping
of an unprivileged id onto host uid 0 is not enough: the kernel still sees host uid 0 as
the owner of ``/etc/shadow`` and of the files under ``/proc/sys``. So the job really runs
as an unprivileged host uid (default ``65534:65534``, *nobody*): ``setpriv`` changes the
ids, clears the supplementary groups, empties the inheritable, ambient and bounding
capability sets and sets ``no_new_privs`` as the last step before ``exec`` — after bwrap
or unshare have set up the namespaces, which needs root. A harness that is not root keeps
its own uid (it has nothing to give away) but still sets ``no_new_privs``.
See docs/design/sandbox.md.
"""

from __future__ import annotations

import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

#: The default job identity when the harness is root: the conventional ``nobody``.
DEFAULT_JOB_USER = "65534:65534"


@dataclass(frozen=True)
class JobUser:
    """The host uid/gid a job runs as; ``drops`` is True when it differs from ours."""

    uid: int
    gid: int
    drops: bool

    def __str__(self) -> str:
        return f"{self.uid}:{self.gid}"


def resolve_job_user(user: str | None = None) -> JobUser:
    """The identity jobs get: ``user`` (``"UID:GID"``) when the harness is root, else ours.

    Raises:
        ValueError: ``user`` is not ``UID:GID`` with numbers, or names uid 0.
    """
    if os.geteuid() != 0:
        return JobUser(os.getuid(), os.getgid(), drops=False)
    text = user or DEFAULT_JOB_USER
    uid_text, _, gid_text = text.partition(":")
    if not (uid_text.isdigit() and (gid_text or uid_text).isdigit()):
        raise ValueError(f"job user {text!r}: expected UID:GID, e.g. {DEFAULT_JOB_USER}")
    uid, gid = int(uid_text), int(gid_text or uid_text)
    if uid == 0 or gid == 0:
        raise ValueError(f"job user {text!r}: a job must not run as root (uid/gid 0)")
    return JobUser(uid, gid, drops=True)


def setpriv_command(user: JobUser) -> list[str]:
    """``setpriv … --``: the last wrapper before the job's own program.

    Raises:
        FileNotFoundError: ``setpriv`` (util-linux) is missing; a root harness must not
            start a job it cannot drop to an unprivileged user.
    """
    if shutil.which("setpriv") is None:
        raise FileNotFoundError("setpriv not found: install the Debian package util-linux")
    command = ["setpriv", "--inh-caps=-all", "--ambient-caps=-all", "--no-new-privs"]
    if user.drops:  # dropping the bounding set needs CAP_SETPCAP: only root has it
        command += [f"--reuid={user.uid}", f"--regid={user.gid}", "--clear-groups"]
        command += ["--bounding-set=-all"]
    return [*command, "--"]


def hand_over(path: Path, user: JobUser) -> None:
    """Make a directory the job writes (its scratch dir, a writable mount) its own.

    Only the directory itself changes owner: what the harness put inside stays the
    harness's. The parent (root) can still read and delete whatever the job writes.
    """
    if user.drops and path.exists():
        os.chown(path, user.uid, user.gid)


def unreachable_ancestor(path: Path, user: JobUser) -> Path | None:
    """The first directory above (or at) ``path`` that ``user`` may not search, if any.

    Without a mount namespace (levels ``unshare`` and ``none``) a job reaches the host's
    paths through the host's permissions: a Python runtime under ``/root`` (mode 0700)
    cannot even start as an unprivileged user.
    """
    if not user.drops:
        return None
    for directory in [*reversed(path.parents), path]:
        try:
            info = directory.stat()
        except OSError:
            return directory
        if stat.S_ISDIR(info.st_mode) and not _may_search(info, user):
            return directory
    return None


def _may_search(info: os.stat_result, user: JobUser) -> bool:
    if info.st_uid == user.uid:
        return bool(info.st_mode & stat.S_IXUSR)
    if info.st_gid == user.gid:
        return bool(info.st_mode & stat.S_IXGRP)
    return bool(info.st_mode & stat.S_IXOTH)


def privilege_report(user: JobUser) -> dict[str, object]:
    """What the sandbox configures, for ``isolation``."""
    return {
        "user": str(user),
        # A root harness drops every set; any other has no effective capabilities.
        "capabilities": "none",
        "no_new_privs": True,
        "proc_sys_writable": False,  # its files belong to host root, the job is not root
    }
