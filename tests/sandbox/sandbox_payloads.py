"""Hostile payloads for the sandbox tests: C functions compiled with plain ``cc`` and a
Python driver that calls one of them through ctypes, plus host-side probes."""

from __future__ import annotations

import subprocess
from pathlib import Path

from kerneltrials.sandbox import Mount

HOSTILE_C = r"""
#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int tcp_connect(int port) {
    int s = socket(AF_INET, SOCK_STREAM, 0);
    if (s < 0) return errno;
    struct sockaddr_in address;
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int result = connect(s, (struct sockaddr *)&address, sizeof address);
    return result == 0 ? 0 : errno;
}
int write_file(const char *path) {
    FILE *f = fopen(path, "w");
    if (!f) return errno;
    fputs("escaped\n", f);
    return fclose(f) == 0 ? 0 : errno;
}
void fork_bomb(void) { for (;;) fork(); }
void memory_bomb(void) {
    for (;;) { char *p = malloc(16 << 20); if (p) memset(p, 1, 16 << 20); }
}
void spin(void) { volatile unsigned long x = 0; for (;;) x++; }
void segfault(void) { volatile int *p = 0; *p = 1; }
int kill_parent(void) {
    int parent = kill(getppid(), SIGKILL) == 0 ? 0 : errno;
    /* kill(-1) hits every process the caller may signal: only safe in a new PID namespace,
       where PIDs are small; never run it otherwise. */
    if (getpid() < 100) kill(-1, SIGKILL);
    return parent;
}
"""

#: Runs ``lib.<function>(<int or str arg>)`` and prints its result; argv[4] is a token
#: that every process of the job carries in its command line (children inherit it).
DRIVER = """
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
arg = sys.argv[3]
args = [] if arg == "-" else [int(arg)] if arg.isdigit() else [arg.encode()]
print("result", getattr(lib, sys.argv[2])(*args), flush=True)
"""


def processes_with(token: str) -> list[int]:
    """Host PIDs whose command line contains ``token`` (zombies have none: not counted)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if token.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def hostile_mounts(library: Path) -> list[Mount]:
    return [Mount(library.parent)]


def compile_payload(directory: Path, name: str, source: str, *flags: str) -> Path:
    """``lib<name>.so`` from C ``source``, built in ``directory`` with plain ``cc``;
    the directory is opened to the job's unprivileged user (pytest makes 0700 dirs)."""
    path = directory / f"{name}.c"
    path.write_text(source)
    library = directory / f"lib{name}.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-O0", *flags, "-o", str(library), str(path)],
                   check=True)
    directory.chmod(0o755)
    return library
