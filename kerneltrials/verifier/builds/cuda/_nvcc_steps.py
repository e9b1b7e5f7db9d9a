"""Run one ``nvcc -c`` as its two independent halves in parallel.

nvcc runs its phases one after another: the host half (preprocess, ``cudafe++``: ~45% of
a torch-including .cu) and the device half (preprocess, ``cicc``, ``ptxas``,
``fatbinary``: ~30%) only meet at the final host compile, which needs both. The one
link between them is the module id file ``cudafe++`` writes and ``cicc`` reads; we write
it first ourselves (a unique id per unit, the same form nvcc uses), so the halves can run
at once. We take nvcc's own commands from ``--dryrun`` and change nothing else. Anything
unexpected in the plan (relocatable device code, a step we do not know) returns False and
the caller runs plain nvcc. See docs/design/builds.md.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_KNOWN_DEVICE = ("cicc", "ptxas", "fatbinary")


def _dryrun(command: list[str], cwd: Path) -> list[str]:
    result = subprocess.run([*command, "--dryrun"], cwd=cwd, capture_output=True, text=True)
    if result.returncode != 0:
        raise subprocess.CalledProcessError(result.returncode, command, result.stdout, result.stderr)
    return [line[3:] for line in result.stderr.splitlines() if line.startswith("#$ ")]


def _classify(step: str) -> str:
    """``host`` (preprocess-4, cudafe++), ``device`` or ``final`` for one dryrun command."""
    program = step.split()[0].strip('"')
    if program.endswith("cudafe++") or (" -E " in step and ".cpp4.ii" in step):
        return "host"
    if " -E " in step and ".cpp1.ii" in step:
        return "device"
    if any(program.endswith(tool) for tool in _KNOWN_DEVICE):
        return "device"
    return "final"


def _module_id(source: Path) -> str:
    # nvcc's form: _<hash>_<len(name)>_<name with . as _>_<hash>; unique per unit is all
    # that matters (it prefixes the unit's internal symbols).
    digest = hashlib.sha256(source.read_bytes() + str(source.resolve()).encode()).hexdigest()
    return f"_{digest[:8]}_{len(source.name)}_{source.name.replace('.', '_')}_{digest[8:16]}"


def _plan(steps: list[str]) -> dict[str, list[str]] | None:
    plan: dict[str, list[str]] = {"env": [], "host": [], "device": [], "final": []}
    for step in steps:
        kind = "env" if _ASSIGNMENT.match(step) else _classify(step)
        plan[kind].append(step)
    cudafe = [s for s in plan["host"] if "cudafe++" in s.split()[0]]
    ordinary = len(cudafe) == 1 and "--gen_module_id_file" in cudafe[0]
    if not ordinary or not plan["device"] or any("nvlink" in s for s in plan["final"]):
        return None
    plan["host"] = [s.replace("--gen_module_id_file", "") for s in plan["host"]]
    return plan


def _run_chain(env: list[str], steps: list[str], cwd: Path) -> None:
    prelude = "".join(f"export {assignment}\n" for assignment in env)
    for step in steps:
        result = subprocess.run(["bash", "-c", prelude + step], cwd=cwd, capture_output=True, text=True)
        if result.returncode != 0:
            raise subprocess.CalledProcessError(result.returncode, step, result.stdout, result.stderr)


@dataclass(frozen=True)
class NvccPlan:
    """nvcc's own steps for one unit: two independent halves, then the final compile."""

    env: list[str]
    host: list[str]
    device: list[str]
    final: list[str]
    cwd: Path

    def run(self, half: str) -> None:
        """Run ``host``, ``device`` (in any order, or at once) and then ``final``."""
        _run_chain(self.env, getattr(self, half), self.cwd)


def plan_nvcc(command: list[str], source: Path, cwd: Path) -> NvccPlan | None:
    """Split ``command`` (an ``nvcc -c`` of ``source``) into halves; None if unusual.

    Writes the module id file both halves share. Raises CalledProcessError when
    ``nvcc --dryrun`` itself fails.
    """
    keep = cwd / "nvcc-steps"
    keep.mkdir(exist_ok=True)
    plan = _plan(_dryrun([*command, "--keep", "--keep-dir", str(keep)], cwd))
    if plan is None:
        return None
    id_files = re.findall(r'--module_id_file_name\s+"?([^"\s]+)"?', " ".join(plan["host"]))
    for id_file in set(id_files):
        (cwd / id_file).write_text(_module_id(source))
    return NvccPlan(plan["env"], plan["host"], plan["device"], plan["final"], cwd)
