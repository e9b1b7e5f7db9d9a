"""The floor of bench/verdict_cost.py: the same calls as a verdict, and nothing else.

One plain process: imports torch, loads the candidate with its already-built libraries
(``load_inline`` answered from the build cache, no compiler), and for each configuration
runs the reference model and the candidate as many times as the verdict timed them (plus
one call each, the correctness comparison), on inputs drawn the task's way, with the
heap the timed workers use (``worker/_heap.py``: the calls cost what they cost there).
Reads its plan (task, source, artifacts, calls per configuration) as JSON on stdin.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

from kerneltrials.tasks import load_task  # noqa: E402
from kerneltrials.tasks._instantiate import load_task_module, make_inputs, make_model  # noqa: E402
from kerneltrials.verifier.builds._artifact import BuiltArtifact  # noqa: E402
from kerneltrials.verifier.worker._heap import keep_freed_blocks  # noqa: E402
from kerneltrials.verifier.worker._intercept import import_with_artifacts  # noqa: E402


def main() -> None:
    keep_freed_blocks()
    plan = json.load(sys.stdin)
    task = load_task(plan["task"])
    built = [BuiltArtifact.from_dict(item) for item in plan["artifacts"]]
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "candidate.py"
        path.write_text(plan["source"])
        candidate = import_with_artifacts(path, "cpu", [(b.request, b.artifact) for b in built])
    seed = plan["seed"]
    with torch.no_grad():
        for config in plan["configs"]:
            module = load_task_module(task, config["params"])
            reference = make_model(module, task, seed, "cpu")
            module.ModelNew = candidate.ModelNew
            model = make_model(module, task, seed, "cpu", cls_name="ModelNew")
            inputs = make_inputs(module, task, seed, "cpu")
            calls = config["calls"]
            for _ in range(calls.get("eager", 0) + 1):
                reference(*inputs)
            for _ in range(calls.get("candidate", 0) + 1):
                model(*inputs)


if __name__ == "__main__":
    main()
