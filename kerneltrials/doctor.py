"""What this machine can do: each capability the harness uses, with the fix when missing.

Pure probing, no side effects; the ``doctor`` command prints it.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from kerneltrials._cpuinfo import usable_cores
from kerneltrials._toolversion import version_line, version_lines


@dataclass(frozen=True)
class Finding:
    """One capability: whether it is there, what was found, and how to get it."""

    area: str
    name: str
    ok: bool
    detail: str
    fix: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _nvcc_release(nvcc: str) -> str | None:
    return next((line for line in version_lines(nvcc) or () if "release" in line), None)


def compiler_findings() -> list[Finding]:
    from kerneltrials.verifier.builds._fast import find_fast_cxx, find_linker, find_llvm_opt

    version = version_line("c++")
    findings = [Finding("compilers", "c++", version is not None, version or "not found",
                        "" if version else "apt-get install g++")]
    fast = find_fast_cxx()  # what the fast build path will really use
    fast_fix = ("" if fast else "apt-get install clang-19 libomp-19-dev (builds ~5x faster; "
                "or set KERNELTRIALS_CXX to a clang++ >= 15)")
    findings.append(Finding("compilers", "clang++ (fast builds)", fast is not None,
                            f"{fast} ({version_line(fast)})" if fast else "not found", fast_fix))
    opt = find_llvm_opt(fast) if fast else None
    findings.append(Finding(
        "compilers", "LLVM opt (lean units)", opt is not None,
        f"{opt} ({version_line(opt)})" if opt else "not found",
        "" if opt or not fast else "apt-get install llvm-19 (optional: ~2 s off each new "
        "candidate's build)"))
    linker = find_linker()
    findings.append(Finding("compilers", "fast linker", linker is not None, linker or "not found",
                            "" if linker else "apt-get install lld-19 (optional: ~0.1 s a link)"))
    findings.append(_openmp_finding(fast))
    cuda_home = os.environ.get("CUDA_HOME") or "/usr/local/cuda-13.0"
    nvcc = Path(cuda_home) / "bin" / "nvcc"
    nvcc_path = str(nvcc) if nvcc.exists() else shutil.which("nvcc")
    release = _nvcc_release(nvcc_path) if nvcc_path else None
    findings.append(Finding(
        "compilers", "nvcc", release is not None, f"{nvcc_path} ({release})" if release else
        "not found", "" if release else "install the CUDA toolkit and set CUDA_HOME"))
    findings.append(_cuda_split_finding(fast))
    return findings


def _cuda_split_finding(fast_cxx: str | None) -> Finding:
    """CUDA sources as a host unit (clang) and a device unit (nvcc): docs/design/builds.md."""
    from kerneltrials.verifier.builds.cuda._units import is_split_enabled

    name = "CUDA split builds"
    if not is_split_enabled():
        return Finding("compilers", name, False, "off (KERNELTRIALS_CUDA_SPLIT=0)",
                       "unset KERNELTRIALS_CUDA_SPLIT (CUDA builds ~3x faster)")
    tools = [tool for tool in ("nm", "c++filt") if shutil.which(tool) is None]
    if fast_cxx is None or tools:
        missing = ", ".join(tools + ([] if fast_cxx else ["clang++ >= 15"]))
        return Finding("compilers", name, False, f"unavailable: {missing} not found",
                       "apt-get install binutils clang-19")
    return Finding("compilers", name, True, "on: host code by clang with the torch PCH, "
                   "kernels by nvcc without torch's headers")


def _openmp_finding(fast_cxx: str | None) -> Finding:
    """The OpenMP runtime CPU timings run on (docs/design/timing.md)."""
    from kerneltrials.verifier.harness._openmp import OPENMP_ENV, preloaded_openmp

    name = "OpenMP runtime (CPU timing)"
    library = preloaded_openmp("cpu")
    if library:
        return Finding("compilers", name, True, f"libomp preloaded in both timed workers ({library})")
    if os.environ.get(OPENMP_ENV, "").strip() == "native":
        return Finding("compilers", name, True, f"native ({OPENMP_ENV}=native): OpenMP "
                       "candidates run libomp beside torch's libgomp")
    if fast_cxx is None:
        return Finding("compilers", name, True, "native: stock g++ builds link torch's libgomp")
    return Finding("compilers", name, False, "libomp.so.5 not found for the fast compiler",
                   "apt-get install libomp5-19 (else CPU timings of OpenMP candidates are unstable)")


def device_findings() -> list[Finding]:
    import torch

    findings = [Finding("devices", "torch", True,
                        f"{torch.__version__} (CUDA build: {torch.version.cuda or 'no'})")]
    if torch.cuda.is_available():
        names = ", ".join(torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count()))
        findings.append(Finding("devices", "gpu", True, names))
    else:
        findings.append(Finding("devices", "gpu", False, "no CUDA device",
                                "CUDA candidates build here but report not_run; use a GPU host"))
    findings.append(Finding("devices", "cpu cores", True, str(usable_cores())))
    return findings


def sandbox_findings() -> list[Finding]:
    from kerneltrials.sandbox import resolve_sandbox

    try:
        features = resolve_sandbox("process").features()
    except ValueError as error:  # e.g. a job user that names root
        return [Finding("sandbox", "process", False, str(error))]
    missing = features.get("missing", [])
    findings = [Finding("sandbox", "process", True, f"isolation level {features.get('level')}")]
    for key in ("network_isolated", "pid_namespace", "readonly_root"):
        findings.append(Finding("sandbox", key, bool(features.get(key)), str(features.get(key)),
                                "" if features.get(key) else "apt-get install bubblewrap"))
    from kerneltrials.sandbox._cgroups import find_cgroup_parents

    parents, problem = find_cgroup_parents()
    detail = ", ".join(f"{c}: {p}" for c, p in (parents or {}).items()) or problem
    findings.append(Finding("sandbox", "cgroup memory+pids limits", parents is not None, detail,
                            "" if parents else "mount the cgroup memory/pids controllers (v1) "
                            "or delegate them (v2, set KERNELTRIALS_CGROUP_ROOT)"))
    findings += isolation_findings()
    findings.append(output_quota_finding())
    if missing:
        findings.append(Finding("sandbox", "missing", False, "; ".join(map(str, missing))))
    return findings


def output_quota_finding() -> Finding:
    """Whether the harness can give each check's output directory a size of its own
    (verifier/harness/_output_quota.py): a tiny tmpfs mounted and taken down again."""
    import tempfile

    from kerneltrials._scratch import remove_tree
    from kerneltrials._tmpfs import mount_tmpfs

    probe = Path(tempfile.mkdtemp(prefix="kt-doctor-"))
    try:
        refused = mount_tmpfs(probe, 1024**2, 16)
    finally:
        remove_tree(probe)
    return Finding("sandbox", "output quota", refused is None,
                   "a tmpfs of its own size over each check's output directory" if refused is None
                   else f"cannot mount one ({refused}): a candidate's job can fill the shared "
                   "disk until the check ends", "" if refused is None else
                   "run the harness as root (it mounts, then drops the jobs' privileges)")


def isolation_findings() -> list[Finding]:
    """What a job really gets, reported from inside by a trusted probe job."""
    from kerneltrials.sandbox import SandboxStartError, resolve_sandbox
    from kerneltrials.sandbox._probe import probe_job

    try:
        found = probe_job(resolve_sandbox("process"))
    except SandboxStartError as error:
        found = {"error": str(error)}
    if "error" in found:
        return [Finding("sandbox", "job privileges", False, str(found["error"]),
                        "apt-get install bubblewrap util-linux")]
    unprivileged = found["uid"] != 0 and found["cap_effective"] == 0 and found["no_new_privs"]
    view_ok = not (found["etc_shadow_readable"] or found["checkout_visible"])
    quota = found["scratch_bytes"]
    return [
        Finding("sandbox", "job privileges", unprivileged,
                f"uid {found['uid']} gid {found['gid']}, capabilities "
                f"{'none' if found['cap_effective'] == 0 else hex(found['cap_effective'])}, "
                f"bounding set {hex(found['cap_bounding'])}, no_new_privs "
                f"{found['no_new_privs']}", "" if unprivileged else "install util-linux (setpriv)"),
        Finding("sandbox", "/proc/sys read-only", not found["proc_sys_writable"],
                "writable" if found["proc_sys_writable"] else "read-only",
                "" if not found["proc_sys_writable"] else "run jobs as an unprivileged user"),
        Finding("sandbox", "minimal view", view_ok,
                f"/etc/shadow {'readable' if found['etc_shadow_readable'] else 'unreadable'}, "
                f"checkout {'visible' if found['checkout_visible'] else 'invisible'}, "
                f"/root shows {found['root_entries'] or 'nothing'}",
                "" if view_ok else "apt-get install bubblewrap"),
        Finding("sandbox", "scratch quota", quota <= 64 * 1024**3, f"{quota / 1024**2:.0f} MiB "
                "(the scratch filesystem's size)",
                "" if quota <= 64 * 1024**3 else "apt-get install bubblewrap"),
    ]


def engine_findings() -> list[Finding]:
    host = os.environ.get("DOCKER_HOST", "")
    docker_sdk = importlib.util.find_spec("docker") is not None
    reachable = False
    if docker_sdk and host:
        try:
            import docker

            reachable = bool(docker.DockerClient(base_url=host, timeout=5).ping())  # type: ignore[attr-defined]
        except Exception:
            reachable = False
    return [Finding("container engine", "docker API", reachable, host or "DOCKER_HOST unset",
                    "" if reachable else "start one (e.g. podman system service) and set "
                    "DOCKER_HOST; pip install 'kerneltrials[docker]'")]


def ray_findings() -> list[Finding]:
    spec = importlib.util.find_spec("ray")
    if spec is None:
        return [Finding("scheduler", "ray", False, "not installed", "pip install 'kerneltrials[ray]'")]
    from importlib.metadata import version

    return [Finding("scheduler", "ray", True, version("ray"))]


def run_doctor() -> list[Finding]:
    """Every finding, in display order."""
    return (compiler_findings() + device_findings() + sandbox_findings() + engine_findings()
            + ray_findings())
