"""The GPU acceptance script's two Python steps (scripts/gpu-acceptance.sh).

``build-only``: without a GPU, a CUDA candidate must still build and be reported
``not_run``. ``prebuild``: every candidate of the suite built at once. ``report``: gathers pytest's JUnit XML, the figures the tests recorded and
``doctor``'s output into ``report.json`` and ``report.md``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def build_only(out: Path) -> int:
    import kerneltrials
    from kerneltrials.verifier import QUICK_TIMING, CheckOptions, Status
    from tests.gpu.sources import relu_work

    options = CheckOptions(backend="cuda", timing=QUICK_TIMING, compile_baseline=False,
                           hidden_seed=11)
    verdict = kerneltrials.check("L1/relu", relu_work(0), options=options)
    result = {"status": str(verdict.status), "compiled": verdict.compiled,
              "reasons": list(verdict.reasons), "build": verdict.build}
    (out / "build_only.json").write_text(json.dumps(result, indent=2, default=str))
    ok = verdict.compiled and verdict.status == Status.NOT_RUN
    print(f"CUDA candidate without a GPU: compiled={verdict.compiled}, status={verdict.status} "
          f"({'as expected' if ok else 'UNEXPECTED'})")
    return 0 if ok else 1


def prebuild(out: Path) -> int:
    """Build every candidate of the suite at once (cores are many, the GPU is one)."""
    from concurrent.futures import ThreadPoolExecutor

    from kerneltrials.verifier import QUICK_TIMING, CheckOptions, build
    from tests.gpu.sources import every_candidate

    options = CheckOptions(backend="cuda", timing=QUICK_TIMING, compile_baseline=False,
                           hidden_seed=11)

    def one(item: tuple[str, str]) -> str:
        built = build(item[0], item[1], options)
        return "built" if built.verdict is None else f"{built.verdict.status}"

    with ThreadPoolExecutor(max_workers=8) as pool:
        outcomes = list(pool.map(one, every_candidate()))
    print(f"prebuild: {len(outcomes)} candidates: {outcomes}")
    return 0


def _tests_from_log(log: Path) -> list[dict[str, Any]]:
    """The outcomes pytest -v printed, for a suite stopped before its JUnit file."""
    cases = []
    for line in log.read_text(errors="replace").splitlines() if log.is_file() else []:
        for outcome in ("PASSED", "FAILED", "ERROR", "SKIPPED"):
            if f" {outcome}" in line and "::" in line:
                cases.append({"test": line.split(" ")[0], "outcome": outcome.lower(),
                              "seconds": 0.0, "detail": "(from pytest.log)"})
                break
    return cases


def _tests(junit: Path) -> list[dict[str, Any]]:
    if not junit.is_file():
        return _tests_from_log(junit.with_name("pytest.log"))
    cases = []
    for case in ElementTree.parse(junit).getroot().iter("testcase"):
        outcome, detail = "passed", ""
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome = {"failure": "failed", "error": "error", "skipped": "skipped"}[child.tag]
                detail = (child.get("message") or child.text or "")[:600]
        cases.append({"test": f"{case.get('classname')}::{case.get('name')}",
                      "outcome": outcome, "seconds": float(case.get("time") or 0), "detail": detail})
    return cases


def _figures(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _host() -> dict[str, Any]:
    import torch

    info: dict[str, Any] = {"python": platform.python_version(), "torch": torch.__version__,
                            "cuda": torch.version.cuda, "machine": platform.machine()}
    if torch.cuda.is_available():
        props = torch.cuda.get_device_properties(0)
        info.update(device=torch.cuda.get_device_name(0), sms=props.multi_processor_count,
                    memory_gib=round(props.total_memory / 2**30, 1),
                    l2_mib=round(getattr(props, "L2_cache_size", 0) / 2**20, 1))
    return info


def report(out: Path, suite_exit: int) -> int:
    tests = _tests(out / "junit.xml")
    figures = _figures(out / "figures.jsonl")
    doctor = (out / "doctor.txt").read_text() if (out / "doctor.txt").is_file() else ""
    data = {"date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            "host": _host(), "suite_exit": suite_exit, "tests": tests, "figures": figures,
            "doctor": doctor}
    (out / "report.json").write_text(json.dumps(data, indent=2, default=str))
    counts: dict[str, int] = {}
    for case in tests:
        counts[case["outcome"]] = counts.get(case["outcome"], 0) + 1
    lines = [f"# GPU acceptance report, {data['date']}", "",
             "Host: " + ", ".join(f"{k} {v}" for k, v in data["host"].items()), "",
             "Tests: " + ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
             + f" (pytest exit {suite_exit})", "", "| test | outcome | s | detail |",
             "|---|---|---|---|"]
    for case in tests:
        detail = case["detail"].replace("\n", " ").replace("|", "/")[:160]
        lines.append(f"| {case['test'].split('.')[-1]} | {case['outcome']} | "
                     f"{case['seconds']:.1f} | {detail} |")
    lines += ["", "## Figures", ""]
    for figure in figures:
        shown = {k: v for k, v in figure.items() if k not in ("test", "output", "stdout",
                                                                "stderr", "run")}
        lines.append(f"- `{figure['test'].split('::')[-1]}`: "
                     + json.dumps(shown, default=str)[:900])
    lines += ["", "## doctor", "", "```", doctor.strip()[-3000:], "```", ""]
    (out / "report.md").write_text("\n".join(lines))
    print("\n".join(lines[:8 + len(tests)]))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=["build-only", "prebuild", "report"])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--suite-exit", type=int, default=0)
    args = parser.parse_args()
    if args.step == "build-only":
        return build_only(args.out)
    if args.step == "prebuild":
        return prebuild(args.out)
    return report(args.out, args.suite_exit)


if __name__ == "__main__":
    sys.exit(main())
