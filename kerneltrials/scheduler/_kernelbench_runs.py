"""A KernelBench run folder (``runs/<name>/`` of KernelBench's ``generate_samples.py``) as
published generations.

Such a folder holds one ``level_<L>_problem_<P>_sample_<S>_kernel.py`` per generation and
none of the problems: those are KernelBench's own files (``<problems>/level<L>/<P>_*.py``),
so the importer pairs each kernel with the problem whose file name starts with its number.
Its ``generation_config.yaml`` may name the model, and its ``eval_results.json`` holds what
KernelBench's own evaluation said of each sample: the peer's claims, counted beside what
this verifier finds.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from kerneltrials.scheduler._generations import Generation, GenerationsError

_KERNEL_FILE = re.compile(r"^level_(\d+)_problem_(\d+)_sample_(\d+)_kernel\.py$")
_MODEL_LINE = re.compile(r"^model_name:\s*['\"]?([^'\"#\n]+?)['\"]?\s*(?:#.*)?$", re.MULTILINE)


@dataclass(frozen=True)
class KernelBenchClaims:
    """What the run's ``eval_results.json`` says of the imported samples."""

    samples: int  # samples it has a result for
    compiled: int
    correct: int


def read_kernelbench_run(run_dir: Path, problems_dir: Path,
                         sample: int | None = None) -> list[Generation]:
    """One generation per kernel file of ``run_dir`` (only sample ``sample`` when given),
    each paired with its problem's text; every problem must have the same samples, since a
    run judges each problem's samples alike (``best-of-n`` over them)."""
    if not run_dir.is_dir():
        raise GenerationsError(f"{run_dir}: not a directory (expected a KernelBench run folder "
                               "holding level_<L>_problem_<P>_sample_<S>_kernel.py files)")
    kernels: dict[tuple[int, int], dict[int, Path]] = defaultdict(dict)
    for path in sorted(run_dir.iterdir()):
        match = _KERNEL_FILE.match(path.name)
        if match and path.is_file():
            level, problem, number = (int(group) for group in match.groups())
            if sample is None or number == sample:
                kernels[(level, problem)][number] = path
    if not kernels:
        which = "" if sample is None else f" of sample {sample}"
        raise GenerationsError(f"{run_dir}: no kernel files{which} (expected "
                               "level_<L>_problem_<P>_sample_<S>_kernel.py)")
    _require_same_samples(run_dir, kernels, renumber=sample is not None)
    generations = []
    for (level, problem), samples in sorted(kernels.items()):
        problem_path = _problem_file(problems_dir, level, problem)
        ref_code = _read(problem_path)
        for number, path in sorted(samples.items()):
            generations.append(Generation(level, problem_path.stem, ref_code, _read(path),
                                          sample=0 if sample is not None else number))
    return generations


def _require_same_samples(run_dir: Path, kernels: dict[tuple[int, int], dict[int, Path]],
                          renumber: bool) -> None:
    if renumber:
        return
    expected = set(range(max(len(samples) for samples in kernels.values())))
    uneven = [(key, sorted(samples)) for key, samples in sorted(kernels.items())
              if set(samples) != expected]
    if uneven:
        (level, problem), have = uneven[0]
        raise GenerationsError(
            f"{run_dir}: level {level} problem {problem} has samples {have}, others "
            f"{sorted(expected)} ({len(uneven)} problem(s) differ); import one sample with "
            "--sample K")


def _problem_file(problems_dir: Path, level: int, problem: int) -> Path:
    folder = problems_dir / f"level{level}"
    matches = sorted(folder.glob(f"{problem}_*.py")) if folder.is_dir() else []
    if len(matches) != 1:
        found = "none" if not matches else ", ".join(path.name for path in matches)
        raise GenerationsError(f"no single problem file for level {level} problem {problem} "
                               f"under {folder} (expected {problem}_<name>.py; found {found}); "
                               "--problems is KernelBench's KernelBench/ folder")
    return matches[0]


def _read(path: Path) -> str:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise GenerationsError(f"cannot read {path}: {error}") from None
    if not text.strip():
        raise GenerationsError(f"{path}: empty")
    return text


def run_model_name(run_dir: Path) -> str | None:
    """The ``model_name`` of the run's ``generation_config.yaml``, if it names one."""
    try:
        match = _MODEL_LINE.search((run_dir / "generation_config.yaml").read_text())
    except (OSError, UnicodeDecodeError):
        return None
    name = match.group(1).strip() if match else ""
    return name if name and name not in ("null", "None", "~") else None


def read_claims(run_dir: Path, generations: list[Generation],
                sample: int | None = None) -> KernelBenchClaims | None:
    """KernelBench's own results for the imported samples, or None without a readable
    ``eval_results.json`` (claims are reported, never trusted: nothing here depends on them)."""
    try:
        results = json.loads((run_dir / "eval_results.json").read_text())
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if not isinstance(results, dict):
        return None
    wanted = {(int(g.task.split("_", 1)[0]), sample if sample is not None else g.sample)
              for g in generations}
    seen = compiled = correct = 0
    for problem, entries in results.items():
        for entry in entries if isinstance(entries, list) else []:
            if not (isinstance(entry, dict) and str(problem).isdigit()):
                continue
            if (int(problem), entry.get("sample_id")) in wanted:
                seen += 1
                compiled += entry.get("compiled") is True
                correct += entry.get("correctness") is True
    return KernelBenchClaims(seen, compiled, correct)
