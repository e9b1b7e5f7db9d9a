"""The hostile corpus of issue 17, end to end: ``kerneltrials.check`` on each sandbox.

Each test states its attack (``attack_corpus.py``) and asserts two things: the verdict
(never ``correct`` unless the attack is invisible to the score; a candidate failure, never
``error``) and, ALWAYS, that the host is unharmed and no secret reached the verdict. The
assertions hold whichever layer stops the attack: static rejection, a build failure, a
runtime error, or the attack running and failing. Secrets are files the tests create;
every test runs with a private ``KERNELTRIALS_CACHE`` (the machine's cache is never
touched) and small limits. See docs/design/sandbox.md for the threat model.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import json
import os
import re
import shutil
import signal
import socket
import stat
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

import pytest
from attack_corpus import (
    CORPUS_CFLAGS,
    ESCAPE_HATCHES,
    NEVER_ENDING_BODY,
    PLUGIN_C,
    SPLICE_BODY,
    build_candidate,
    cache_write_prelude,
    corpus_candidate,
    detached_spawn_prelude,
    import_read_prelude,
    incbin_source,
    mini_source,
)
from click.testing import CliRunner

import kerneltrials
from kerneltrials.cli import cli
from kerneltrials.results import open_store, score_run
from kerneltrials.verifier import QUICK_TIMING, CheckOptions, Status, Verdict
from kerneltrials.verifier.builds._compiler import toolchain_store
from kerneltrials.verifier.builds._fast import FastPathUnavailable, fast_inputs
from kerneltrials.verifier.protocol import BuildRequest
from tests.verifier._build_fixtures import copy_pch

pytestmark = pytest.mark.slow

REPO_ROOT = Path(__file__).resolve().parents[2]
CALL_TIMEOUT_S = 8.0
HOSTILE = CheckOptions(timing=QUICK_TIMING, compile_baseline=False, seeds=1, hidden_seed=7,
                       call_timeout_s=CALL_TIMEOUT_S, run_timeout_s=90.0,
                       memory_bytes=1024**3, max_processes=256,
                       # The link policy would reject most attacks before they run (it is
                       # a defence of its own): these tests show what the sandbox holds.
                       link_policy=False)
#: For candidates that compile a source of their own: a compiler needs more than HOSTILE.
BUILDING: dict[str, Any] = {"memory_bytes": CheckOptions().memory_bytes, "call_timeout_s": 60.0}
#: Outcomes where the attack never ran: the static screen or the build stopped it.
STOPPED_EARLY = {Status.REJECTED, Status.COMPILE_ERROR}
CANDIDATE_FAILURES = {Status.INCORRECT, Status.COMPILE_ERROR, Status.RUNTIME_ERROR,
                      Status.TIMEOUT, Status.REJECTED}


def corpus_pch_key() -> str:
    """The PCH key of the corpus's flag set (``CORPUS_CFLAGS``)."""
    request = BuildRequest.from_load_inline("cpu", "kt_corpus_mini", [mini_source()],
                                            functions=["mini_relu"],
                                            extra_cflags=list(CORPUS_CFLAGS))
    return fast_inputs(request).plan_keys()[0]


@pytest.fixture(scope="module")
def private_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """``KERNELTRIALS_CACHE`` for this module: attacks on the cache hit only this one."""
    root = tmp_path_factory.mktemp("corpus-cache")
    shared = toolchain_store()  # the suite's, read before the environment points here
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("KERNELTRIALS_CACHE", str(root))
        patch.delenv("KERNELTRIALS_PCH_CACHE", raising=False)  # no shared toolchain store
        with contextlib.suppress(FastPathUnavailable):  # no clang: the stock path builds
            copy_pch(corpus_pch_key(), shared, toolchain_store())  # or no PCH yet: built here
        yield root


@pytest.fixture(scope="module")
def sandbox(check_sandbox: str, private_cache: Path) -> str:
    """The backend's name (conftest's ``check_sandbox``), with the private cache on."""
    return check_sandbox


def verdict_of(sandbox: str, source: str, **limits: Any) -> Verdict:
    options = replace(HOSTILE, **limits)
    return kerneltrials.check("L1/relu", source, sandbox=sandbox, compile_baseline=False,
                              options=options)


@pytest.fixture(scope="module")
def honest_verdict(sandbox: str) -> Verdict:
    """The corpus source's honest function, under default limits: it builds the shared
    source once (later corpus candidates are cache hits) and shows it is a fair kernel."""
    verdict = verdict_of(sandbox, corpus_candidate("corpus_relu"), **BUILDING)
    assert verdict.status == Status.CORRECT, verdict.reasons
    return verdict


def reasons_of(verdict: Verdict) -> str:
    return "\n".join(verdict.reasons)


def text_of(verdict: Verdict) -> str:
    return verdict.model_dump_json()


def assert_contained(verdict: Verdict, tag: str) -> None:
    """A candidate failure, and either nothing ran (static screen, build) or the attack
    ran and reported (``tag`` in the reasons), so a test cannot pass on a silent verdict."""
    assert verdict.status in CANDIDATE_FAILURES, (verdict.status, verdict.reasons)
    assert verdict.status in STOPPED_EARLY or tag in reasons_of(verdict), verdict.reasons


@dataclass
class Secret:
    path: Path
    text: str


def plant_secret(path: Path) -> Iterator[Secret]:
    if not os.access(path.parent, os.W_OK):
        pytest.skip(f"cannot create a marker in {path.parent}")
    secret = Secret(path, f"kt-secret-{uuid.uuid4().hex}")
    path.write_text(secret.text)
    try:
        yield secret
    finally:
        path.unlink(missing_ok=True)


@pytest.fixture
def root_secret() -> Iterator[Secret]:
    """A secret in root's home (the harness's user's, on these machines)."""
    yield from plant_secret(Path("/root") / f"kt-corpus-{uuid.uuid4().hex[:12]}")


@pytest.fixture
def checkout_secret() -> Iterator[Secret]:
    """A secret in the repository checkout (where a .env or a results DB would be)."""
    yield from plant_secret(REPO_ROOT / f".kt-corpus-{uuid.uuid4().hex[:12]}")


@pytest.fixture
def victim_entry(private_cache: Path) -> Iterator[Secret]:
    """Another candidate's cache entry, with its (secret) source."""
    entry = private_cache / "builds" / f"kt-corpus-victim-{uuid.uuid4().hex[:12]}"
    entry.mkdir(parents=True)
    yield from plant_secret(entry / "source.cpp")
    shutil.rmtree(entry, ignore_errors=True)


def shadow_head() -> str:
    """The first 5 bytes of the host's /etc/shadow (a user name: nothing secret)."""
    try:
        return Path("/etc/shadow").read_bytes()[:5].decode("latin-1")
    except OSError as error:
        pytest.skip(f"no readable /etc/shadow here: {error}")


# --- C++ on the first kernel call -------------------------------------------------------

CORE_PATTERN = Path("/proc/sys/kernel/core_pattern")


@pytest.mark.timeout(900)
def test_sysctl_cannot_be_opened_for_writing(sandbox: str, honest_verdict: Verdict) -> None:
    """Attack: open kernel.core_pattern O_WRONLY (a ``|program`` value runs as host root at
    the next crash) and write back the exact value read. Must fail; host value unchanged."""
    before = CORE_PATTERN.read_text()
    verdict = verdict_of(sandbox, corpus_candidate("corpus_sysctl_rewrite", str(CORE_PATTERN)))

    assert CORE_PATTERN.read_text() == before
    assert_contained(verdict, "corpus_sysctl_rewrite:")
    assert "OPENED FOR WRITING" not in reasons_of(verdict)


@pytest.mark.timeout(300)
def test_etc_shadow_never_reaches_the_verdict(sandbox: str, honest_verdict: Verdict) -> None:
    """Attack: read /etc/shadow and throw its first 5 bytes in the exception message."""
    head = shadow_head()
    verdict = verdict_of(sandbox, corpus_candidate("corpus_read_files", "/etc/shadow\t5"))

    assert_contained(verdict, "corpus_read_files:")
    assert "/etc/shadow READ [" not in reasons_of(verdict)
    assert f"[{head}]" not in text_of(verdict)


@pytest.mark.timeout(300)
def test_a_file_under_root_is_unreadable(
    sandbox: str, honest_verdict: Verdict, root_secret: Secret
) -> None:
    """Attack: read a file in /root and throw its content."""
    verdict = verdict_of(sandbox, corpus_candidate("corpus_read_files", f"{root_secret.path}\t256"))

    assert_contained(verdict, "corpus_read_files:")
    assert root_secret.text not in text_of(verdict)
    assert f"{root_secret.path} READ [" not in reasons_of(verdict)


@pytest.mark.timeout(300)
def test_the_checkout_and_its_git_config_are_unreadable(
    sandbox: str, honest_verdict: Verdict, checkout_secret: Secret
) -> None:
    """Attack: read a file in the repository checkout and its .git/config, and throw them."""
    git_config = REPO_ROOT / ".git" / "config"
    spec = f"{checkout_secret.path}\t256\n{git_config}\t200"
    verdict = verdict_of(sandbox, corpus_candidate("corpus_read_files", spec))

    assert_contained(verdict, "corpus_read_files:")
    assert checkout_secret.text not in text_of(verdict)
    assert f"{git_config} READ [" not in reasons_of(verdict)


@pytest.mark.timeout(300)
def test_the_build_cache_cannot_be_listed_or_read(
    sandbox: str, honest_verdict: Verdict, private_cache: Path, victim_entry: Secret
) -> None:
    """Attack: walk the build cache (KERNELTRIALS_CACHE) and read every small file: another
    candidate's source there must not come back. (A run job may see its OWN artifacts.)"""
    verdict = verdict_of(sandbox, corpus_candidate("corpus_walk_dir", str(private_cache)))

    assert_contained(verdict, "corpus_walk_dir:")
    assert victim_entry.text not in text_of(verdict)
    assert f"LISTED {victim_entry.path.parent}" not in reasons_of(verdict)


def digests(root: Path) -> dict[Path, str]:
    return {path: hashlib.sha256(path.read_bytes()).hexdigest()
            for path in root.rglob("*.so") if path.is_file()}


@pytest.mark.timeout(300)
def test_the_run_job_cannot_write_the_build_cache(
    sandbox: str, honest_verdict: Verdict, private_cache: Path, victim_entry: Secret
) -> None:
    """Attack: from the run job, create a file in the cache, overwrite another entry's file,
    and open every built library for appending (writing nothing)."""
    poison = private_cache / "builds" / f"kt-corpus-poison-{uuid.uuid4().hex[:12]}"
    libraries = digests(private_cache)
    assert libraries, "the shared build left no library in the private cache"
    targets = [str(poison), str(victim_entry.path), *(f"+{path}" for path in libraries)]
    try:
        verdict = verdict_of(sandbox, corpus_candidate("corpus_write_files", "\n".join(targets)))
        assert not poison.exists()
    finally:
        poison.unlink(missing_ok=True)
    assert victim_entry.path.read_text() == victim_entry.text
    assert digests(private_cache) == libraries
    assert_contained(verdict, "corpus_write_files:")
    assert "WROTE" not in reasons_of(verdict) and "OPENED FOR WRITING" not in reasons_of(verdict)


@pytest.mark.timeout(300)
def test_the_run_job_cannot_forge_the_runs_stored_baselines(
    sandbox: str, honest_verdict: Verdict, private_cache: Path
) -> None:
    """Attack: overwrite the run's stored eager baseline (a damaged entry is timed again:
    a candidate that could write one could keep the run re-measuring, or forge slow
    times) and plant an entry beside it. The store is the harness's: no job mounts the
    cache root."""
    from kerneltrials.verifier.harness._baselines import BaselineStore, StoredBaseline

    root = private_cache / "baselines"
    key, planted = uuid.uuid4().hex, uuid.uuid4().hex  # the cache is the module's: fresh names
    honest = StoredBaseline(samples_ms=(1.0, 1.1, 0.9), measured_at=time.time())
    assert BaselineStore(root).put(key, honest) == honest
    forged = root / f"{planted}.json"
    verdict = verdict_of(sandbox, corpus_candidate(
        "corpus_write_files", "\n".join([str(root / f"{key}.json"), str(forged)])))
    assert not forged.exists()
    assert BaselineStore(root).get(key) == honest
    assert_contained(verdict, "corpus_write_files:")
    assert "WROTE" not in reasons_of(verdict)


@pytest.mark.timeout(300)
def test_filling_the_scratch_dir_stops_at_its_quota(sandbox: str, honest_verdict: Verdict) -> None:
    """Attack: write 2 GiB into the scratch dir in 64 MiB files (1 GiB against a 256 MiB
    quota where ``CheckOptions`` exposes ``scratch_bytes``). Must stop early as a candidate
    failure, and leave nothing on the host."""
    prefix = f"kt-fill-{uuid.uuid4().hex[:10]}"
    limits: dict[str, Any] = {"call_timeout_s": 60.0}
    total = 2 * 1024**3
    if "scratch_bytes" in {field.name for field in fields(CheckOptions)}:
        limits["scratch_bytes"], total = 256 * 1024**2, 1024**3
    verdict = verdict_of(sandbox, corpus_candidate("corpus_fill_scratch", f"{prefix}\t{total}"),
                         **limits)

    assert list(Path(tempfile.gettempdir()).glob(f"kt-*/*/{prefix}-*")) == []
    reasons = reasons_of(verdict)
    assert verdict.status in CANDIDATE_FAILURES, (verdict.status, verdict.reasons)
    assert "WROTE ALL" not in reasons
    # ENOSPC reported by the attack, or the job killed at its memory limit (a tmpfs
    # scratch is charged to the job's memory), or nothing ran at all.
    assert verdict.status in STOPPED_EARLY or any(
        stop in reasons for stop in ("No space left on device", "Disk quota exceeded",
                                     "memory limit exceeded")), reasons


@pytest.mark.timeout(300)
def test_root_cannot_be_regained(sandbox: str, honest_verdict: Verdict) -> None:
    """Attack: setuid(0), raise an ambient CAP_SYS_ADMIN, and in a child a new user namespace
    mapping itself to root; then read /etc/shadow and open core_pattern for writing."""
    verdict = verdict_of(sandbox, corpus_candidate("corpus_regain_root"))

    assert_contained(verdict, "corpus_regain_root:")
    reasons = reasons_of(verdict)
    assert verdict.status in STOPPED_EARLY or "(end)" in reasons  # nothing was cut off
    assert "OPENED" not in reasons  # neither /etc/shadow nor core_pattern, in either process
    assert "RAISED" not in reasons


@pytest.mark.timeout(300)
def test_the_harness_memory_cannot_be_read_or_traced(sandbox: str, honest_verdict: Verdict) -> None:
    """Attack: process_vm_readv and /proc/PID/mem on a secret in this test process (by its
    host PID), and PTRACE_SEIZE on it, on PID 1 and on the parent (detached at once)."""
    secret = f"kt-secret-{uuid.uuid4().hex}".encode()
    buffer = ctypes.create_string_buffer(secret)
    spec = f"{os.getpid()} {ctypes.addressof(buffer)} {len(secret)}"
    verdict = verdict_of(sandbox, corpus_candidate("corpus_peek_process", spec))

    assert_contained(verdict, "corpus_peek_process:")
    assert secret.decode() not in text_of(verdict)
    assert f"ptrace(SEIZE, {os.getpid()}): SEIZED" not in reasons_of(verdict)


@pytest.mark.timeout(300)
def test_oom_immunity_and_drop_caches_are_refused(sandbox: str, honest_verdict: Verdict) -> None:
    """Attack: write -1000 to /proc/self/oom_score_adj (unkillable by the OOM killer) and
    open /proc/sys/vm/drop_caches for writing (never written)."""
    verdict = verdict_of(sandbox, corpus_candidate("corpus_oom_and_caches"))

    assert_contained(verdict, "corpus_oom_and_caches:")
    reasons = reasons_of(verdict)
    assert "after=-1000" not in reasons
    assert "OPENED FOR WRITING" not in reasons


def engine_sockets() -> list[str]:
    """Container-engine sockets on this host (reaching one is root on the host)."""
    paths = ["/tmp/kt-podman/docker.sock", "/run/podman/podman.sock", "/var/run/docker.sock",
             "/run/docker.sock"]
    host = os.environ.get("DOCKER_HOST", "")
    if host.startswith("unix://"):
        paths.insert(0, host.removeprefix("unix://"))
    found = []
    for path in dict.fromkeys(paths):
        with contextlib.suppress(OSError):
            if stat.S_ISSOCK(os.stat(path).st_mode):
                found.append(path)
    return found


@pytest.mark.timeout(300)
def test_host_unix_sockets_are_unreachable(sandbox: str, honest_verdict: Verdict) -> None:
    """Attack: connect to a unix socket this test listens on in /tmp, to an abstract one
    (bound to the host's network namespace), and to any container-engine socket."""
    name = f"kt-corpus-{uuid.uuid4().hex[:12]}"
    path = Path(tempfile.gettempdir()) / f"{name}.sock"
    listeners = [socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) for _ in range(2)]
    try:
        listeners[0].bind(str(path))
        listeners[1].bind(f"\0{name}")
        for listener in listeners:
            listener.listen(1)
            listener.settimeout(0.3)
        targets = [str(path), f"@{name}", *engine_sockets()]
        verdict = verdict_of(sandbox, corpus_candidate("corpus_unix_connect", "\n".join(targets)))
        for listener in listeners:
            with pytest.raises(TimeoutError):
                listener.accept()[0].close()
    finally:
        for listener in listeners:
            listener.close()
        path.unlink(missing_ok=True)
    assert_contained(verdict, "corpus_unix_connect:")
    assert "CONNECTED" not in reasons_of(verdict)


@pytest.mark.timeout(300)
def test_whatever_started_the_job_is_out_of_its_reach(sandbox: str, honest_verdict: Verdict) -> None:
    """Attack: write a forged end-of-job report into every pipe the worker holds beyond
    its stdout and stderr (the zygote's status pipe, were it inherited), count its sockets, list every process it
    sees and join pid 1's namespaces. Only the channel is a socket; nothing outside the
    job's PID namespace is in sight (its parent, outside, reads as 0)."""
    verdict = verdict_of(sandbox, corpus_candidate("corpus_reach_starter"))

    assert_contained(verdict, "corpus_reach_starter:")
    reasons = reasons_of(verdict)
    assert "(end)" in reasons and "WROTE" not in reasons and "JOINED" not in reasons
    assert "sockets 1;" in reasons
    pids = reasons.split(" pids", 1)[1].split(";", 1)[0].split()
    assert 1 <= len(pids) <= 4, pids  # the namespace's init, a holder, the worker, a helper
    assert "ppid 0;" in reasons or "ppid 1;" in reasons  # outside, or the namespace's init


@pytest.mark.timeout(300)
def test_a_setuid_binary_grants_nothing(sandbox: str, honest_verdict: Verdict) -> None:
    """Attack: run the setuid ``su root -c 'id -u'`` with stdin /dev/null (no_new_privs
    must ignore the setuid bit; an unprivileged caller gets no root shell)."""
    su = next((p for p in ("/usr/bin/su", "/bin/su") if Path(p).is_file()), None)
    if su is None:
        pytest.skip("no su binary here")
    verdict = verdict_of(sandbox, corpus_candidate("corpus_setuid_exec", f"{su}\nroot\n-c\nid -u"))

    assert_contained(verdict, "corpus_setuid_exec:")
    assert re.search(r"-> \[\s*0\s*\]", reasons_of(verdict)) is None, verdict.reasons


# --- Python at import time --------------------------------------------------------------


@pytest.mark.timeout(300)
def test_import_time_code_cannot_write_the_build_cache(
    sandbox: str, honest_verdict: Verdict, private_cache: Path, victim_entry: Secret
) -> None:
    """Attack: module-level ``torch.save`` (the candidate is imported by the build job) into
    a new cache file and over another entry's file."""
    poison = private_cache / "builds" / f"kt-corpus-poison-{uuid.uuid4().hex[:12]}.pt"
    prelude = cache_write_prelude([str(poison), str(victim_entry.path)])
    try:
        verdict = verdict_of(sandbox, corpus_candidate("corpus_relu", prelude=prelude), **BUILDING)
        assert not poison.exists()
    finally:
        poison.unlink(missing_ok=True)
    assert victim_entry.path.read_text() == victim_entry.text
    assert verdict.status in CANDIDATE_FAILURES - {Status.INCORRECT}, verdict.reasons


@pytest.mark.timeout(120)
@pytest.mark.parametrize("hatch", sorted(ESCAPE_HATCHES))
def test_static_module_level_escape_hatch_is_rejected(hatch: str) -> None:
    """Attack: module-level torch.load / torch.from_file / pickle (through torch) /
    torch.hub: unrestricted Python or file reads in the build job. Rejected statically."""
    source = corpus_candidate("corpus_relu", prelude=ESCAPE_HATCHES[hatch])
    verdict = kerneltrials.check("L1/relu", source, static_only=True, options=HOSTILE)

    assert verdict.status == Status.REJECTED, verdict.reasons
    assert any(reason.startswith("static:") for reason in verdict.reasons), verdict.reasons


@pytest.mark.timeout(300)
@pytest.mark.parametrize("target", ["root", "shadow"])
def test_import_time_file_reads_never_reach_the_verdict(
    sandbox: str, honest_verdict: Verdict, root_secret: Secret, target: str
) -> None:
    """Attack: module-level ``torch.from_file`` of a /root file (or /etc/shadow's first
    5 bytes), raised in an exception at import time."""
    if target == "root":
        secret, prelude = root_secret.text, import_read_prelude(str(root_secret.path),
                                                                len(root_secret.text))
    else:
        secret, prelude = f"[{shadow_head()}]", import_read_prelude("/etc/shadow", 5)
    verdict = verdict_of(sandbox, corpus_candidate("corpus_relu", prelude=prelude), **BUILDING)

    assert verdict.status in CANDIDATE_FAILURES - {Status.INCORRECT}, verdict.reasons
    assert secret not in text_of(verdict)
    assert "corpus_import_read:[" not in reasons_of(verdict)  # the read never succeeded


def processes_with(marker: str) -> list[int]:
    """Host PIDs whose command line contains ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError):
            if entry.name.isdigit() and marker.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
    return found


@pytest.mark.timeout(300)
def test_a_process_spawned_at_import_does_not_outlive_the_check(
    sandbox: str, honest_verdict: Verdict
) -> None:
    """Attack: at import time, start a detached 90 s sleeper in its own session, through
    ``subprocess`` reached via torch's module (no ``import subprocess``)."""
    marker = f"kt-corpus-detached-{uuid.uuid4().hex[:12]}"
    verdict = verdict_of(sandbox, corpus_candidate("corpus_relu",
                                                   prelude=detached_spawn_prelude(marker)),
                         **BUILDING)
    deadline = time.monotonic() + 3.0  # a namespace's processes die as its init exits
    while processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    survivors = processes_with(marker)
    for pid in survivors:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    assert survivors == []
    # Invisible to the score: any candidate outcome, never the harness's ``error``.
    assert verdict.status in CANDIDATE_FAILURES | {Status.CORRECT}, verdict.reasons


# --- compiler flags and build-time reads --------------------------------------------------


@pytest.fixture(scope="module")
def compiler_plugin(private_cache: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(a shared library whose constructor writes a marker, that marker's path): placed in
    the cache, where an earlier build's library would be."""
    directory = private_cache / "builds"
    directory.mkdir(parents=True, exist_ok=True)
    marker = directory / f"kt-corpus-plugin-ran-{uuid.uuid4().hex[:12]}"
    source = tmp_path_factory.mktemp("plugin") / "plugin.c"
    source.write_text(PLUGIN_C)
    library = directory / "kt-corpus-plugin.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-O0", f'-DMARKER="{marker}"', "-o", str(library),
                    str(source)], check=True)
    return library, marker


def flag_attack(name: str, plugin: Path, secret: Secret, script: Path) -> tuple[dict[str, Any], str]:
    """(build_candidate keywords, a piece of the flag the rejection must name)."""
    attacks: dict[str, tuple[dict[str, Any], str]] = {
        "fplugin": ({"cflags": ("-O1", f"-fplugin={plugin}")}, "-fplugin"),
        "linker_plugin": ({"ldflags": (f"-Wl,-plugin,{plugin}",)}, "-plugin"),
        "linker_script": ({"ldflags": (f"-Wl,-T,{script}",)}, "-T"),
        "response_file": ({"cflags": ("-O1", f"@{secret.path}")}, "@"),
        "include_root": ({"include_paths": ("/root",), "cflags": ("-O1", "-Wfatal-errors")},
                         "/root"),
    }
    return attacks[name]


@pytest.mark.timeout(600)
@pytest.mark.parametrize("attack", ["fplugin", "linker_plugin", "linker_script",
                                    "response_file", "include_root"])
def test_forbidden_build_flag_is_rejected(
    sandbox: str, compiler_plugin: tuple[Path, Path], root_secret: Secret, tmp_path: Path,
    attack: str,
) -> None:
    """Attacks: ``-fplugin=`` and ``-Wl,-plugin,`` (code loaded into the compiler/linker: a
    library from the cache), ``-Wl,-T,`` (a linker script that INCLUDEs a /root file),
    ``@/root/file`` (options read from a file: echoed in the error), ``-I/root`` with
    ``#include "<file>"``. Each is ``rejected`` naming the flag; nothing ran, nothing leaked."""
    plugin, marker = compiler_plugin
    script = compiler_plugin[0].parent / f"kt-corpus-{uuid.uuid4().hex[:8]}.ld"
    script.write_text(f"INCLUDE {root_secret.path}\n")
    keywords, flag = flag_attack(attack, plugin, root_secret, script)
    head = f'#include "{root_secret.path.name}"' if attack == "include_root" else ""
    try:
        verdict = verdict_of(sandbox, build_candidate(mini_source(head), **keywords), **BUILDING)
        assert not marker.exists(), "the plugin's code ran in the build"
    finally:
        marker.unlink(missing_ok=True)
        script.unlink(missing_ok=True)
    assert root_secret.text not in text_of(verdict)
    assert verdict.status == Status.REJECTED, verdict.reasons
    # build:forbidden_flag:<flag>, or build:forbidden_include_path:<path> for -I.
    forbidden = [r for r in verdict.reasons if r.startswith("build:forbidden_")]
    assert forbidden and flag in forbidden[0], verdict.reasons


@pytest.mark.timeout(600)
def test_incbin_of_a_root_file_never_reaches_the_verdict(
    sandbox: str, root_secret: Secret
) -> None:
    """Attack: ``asm(".incbin \\"/root/<file>\\"")`` embeds a file at build time; the kernel
    throws its bytes at run time."""
    verdict = verdict_of(sandbox, build_candidate(incbin_source(str(root_secret.path))),
                         **BUILDING)

    assert verdict.status in CANDIDATE_FAILURES - {Status.INCORRECT}, verdict.reasons
    assert root_secret.text not in text_of(verdict)


@pytest.mark.timeout(600)
def test_a_line_spliced_socket_call_reaches_nothing(sandbox: str) -> None:
    """Attack: ``soc\\<newline>ket(`` (a scan that does not join splices misses it), then
    a TCP connect to a host listener. The scan (defence in depth) or the sandbox stops it."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        verdict = verdict_of(sandbox, build_candidate(mini_source(body=SPLICE_BODY),
                                                      argument=str(port)), **BUILDING)
        listener.settimeout(0.3)
        with pytest.raises(TimeoutError):
            listener.accept()[0].close()
    assert_contained(verdict, "corpus_splice:")
    assert "CONNECTED" not in reasons_of(verdict)


def build_cpu_option() -> str | None:
    """The ``CheckOptions`` field that limits a build's CPU time, if there is one yet."""
    names = [f.name for f in fields(CheckOptions) if "build" in f.name and "cpu" in f.name]
    return names[0] if names else None


@pytest.mark.timeout(600)
def test_a_never_ending_compile_ends_by_cpu_time(sandbox: str) -> None:
    """Attack: 2^40 distinct template instantiations, a compile that never ends. With a
    small build CPU-time limit it ends as the candidate's ``timeout`` long before the
    600 s wall limit."""
    option = build_cpu_option()
    if option is None:
        pytest.skip("CheckOptions has no build CPU-time limit yet (issue 17, item 7)")
    started = time.monotonic()
    verdict = verdict_of(sandbox, build_candidate(mini_source(body=NEVER_ENDING_BODY)),
                         **{**BUILDING, option: 20})
    elapsed = time.monotonic() - started

    assert verdict.status == Status.TIMEOUT, verdict.reasons
    assert elapsed < 300, f"the build ran {elapsed:.0f} s"


# --- bundles ------------------------------------------------------------------------------


@pytest.mark.timeout(600)
def test_a_failure_laundered_as_a_harness_error_does_not_verify(
    private_cache: Path, tmp_path: Path
) -> None:
    """Attack (a forged bundle): an incorrect attempt whose verdict claims ``error`` (the
    harness's fault: excluded from fast_p's denominator, so the run's fast_p doubles) with
    its real, incorrect source. The scores follow from the (forged) verdicts, and the
    content hash is recomputed; ``verify`` must re-run the attempt and not hold."""
    options = replace(HOSTILE, **BUILDING)
    honest_source = corpus_candidate("corpus_relu")
    honest = kerneltrials.check("L1/relu", honest_source, hidden_seed=11, options=options)
    assert honest.status == Status.CORRECT, honest.reasons
    laundered = {**honest.to_dict(), "task": "L1/gelu", "status": "error", "correct": False,
                 "speedup": None, "speedup_compile": None, "configs": [], "custom_share": None,
                 "reasons": ["harness:sandbox:worker lost"]}
    database, bundle = tmp_path / "submitter.sqlite", tmp_path / "laundered.json"
    with open_store(database) as store:
        store.create_run(name="laundered", model="m", agent="one-shot", backend="cpu",
                         profile="cpu", hardware=honest.hardware,
                         harness_version=honest.harness_version,
                         task_ids=["L1/relu", "L1/gelu"], hidden_seed=11)
        store.record_attempt("laundered", "L1/relu", honest, source=honest_source)
        store.record_attempt("laundered", "L1/gelu", laundered,
                             source=corpus_candidate("corpus_wrong"))
        store.finish_run("laundered")
        score_run(store, "laundered", save=True)
    runner = CliRunner()
    submitted = runner.invoke(cli, ["submit", "laundered", "--db", str(database),
                                    "--out", str(bundle)])
    assert submitted.exit_code == 0, submitted.output
    result = runner.invoke(cli, ["verify", str(bundle), "--quick", "--json", "--tolerance",
                                 "0.9", "--db", str(tmp_path / "maintainer.sqlite")])
    report = json.loads(result.stdout)

    assert report["hash_ok"] is True  # the forgery is consistent: only a re-run can catch it
    assert result.exit_code == 1 and report["holds"] is False, report
    assert report["tasks"]["L1/gelu"]["holds"] is False, report["tasks"]
