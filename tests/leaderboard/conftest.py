"""A results store with several realistic runs (through the store API; nothing compiles).

Runs (eager speedups of correct tasks; L1/relu, L1/gelu, L2/fused selected):
- ``fast-oneshot``   cpu, machine A, one-shot:  relu 3.0, gelu 2.5, L2 1.8   -> rank 1
- ``slow-refine``    cuda, machine B (H100), refine: relu 0.5, gelu incorrect, L2 1.1
- ``mid-coderjudge`` cpu, machine A, coder-judge: relu 1.2, gelu 1.0, L2 compile_error
- ``unscored``       cpu, machine A, one-shot, no stored score
The CIs of slow-refine and mid-coderjudge overlap and lie below fast-oneshot's: both rank 2.
Scores are stored as a finished ``eval`` stores them (``save_run_scores``: the standard
report per baseline, with its per-level groups). Verification records, all written in the
old format of a ``verify`` that did not re-measure every speedup (no
``verification_version``), so none verifies: fast-oneshot held for its current content
hash; slow-refine held but for another hash; mid-coderjudge failed. test_site's ``site``
fixture adds a current record of fast-oneshot (through ``verify_bundle``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kerneltrials.leaderboard import bundle_from_store
from kerneltrials.results import ResultsStore, open_store, save_run_scores

TASKS = ["L1/relu", "L1/gelu", "L2/fused"]
MACHINE_A = {
    "cpu": "Intel Xeon Platinum 8488C",
    "cores": 2,
    "machine": "x86_64",
    "torch": "2.14.1+cu130",
    "python": "3.11.9",
    "toolchain": {"cxx": "g++ 12.2.0"},
}
MACHINE_B = {
    "cpu": "AMD EPYC 9454",
    "cores": 16,
    "machine": "x86_64",
    "gpu": "NVIDIA H100 80GB HBM3",
    "cuda": "13.0",
    "driver": "580.65",
    "torch": "2.14.1+cu130",
    "python": "3.11.9",
    "toolchain": {"nvcc": "13.0"},
}
HOSTILE_TEXT = "<script>alert('pwned')</script>"


def a_verdict(
    task: str, status: str, speedup: float | None, hardware: dict[str, Any], backend: str = "cpu"
) -> dict[str, Any]:
    correct = status == "correct"
    times = {
        "candidate": {"median": 1.0, "iqr": 0.01, "n": 20},
        "eager": {"median": speedup or 1.0, "iqr": 0.02, "n": 20},
        "compile": {"median": 0.9 * (speedup or 1.0), "iqr": 0.02, "n": 20},
    }
    return {
        "task": task,
        "backend": backend,
        "status": status,
        "compiled": status != "compile_error",
        "correct": correct,
        "speedup": speedup if correct else None,
        "speedup_compile": round(0.9 * speedup, 6) if correct and speedup else None,
        "configs": [
            {
                "name": f"{kind}-0",
                "kind": kind,
                "params": {"rows": 509, "cols": 4093},
                "passed": correct,
                "max_abs_err": 0.0 if correct else 0.5,
                "times_ms": times if correct else {},
            }
            for kind in ("public", "hidden")
        ],
        "reasons": [] if correct else [f"correctness:max_abs_err=0.5 {HOSTILE_TEXT}"],
        "policy": "strict" if task.startswith("L1/") else "mixed",
        "custom_share": 0.97 if correct else None,
        "hardware": hardware,
        "harness_version": "0.1.0",
        "hidden_seed": 7,
    }


def add_run(
    store: ResultsStore,
    name: str,
    model: str,
    agent: str,
    backend: str,
    hardware: dict[str, Any],
    results: dict[str, tuple[str, float | None]],
    *,
    score: bool = True,
) -> None:
    store.create_run(
        name=name,
        model=model,
        agent=agent,
        backend=backend,
        profile="gpu" if backend == "cuda" else "cpu",
        hardware=hardware,
        harness_version="0.1.0",
        task_set_version="ts-2025.1",
        task_ids=TASKS,
        hidden_seed=7,
        config={"samples": 1},
    )
    for task, (status, speedup) in results.items():
        store.record_attempt(
            name,
            task,
            a_verdict(task, status, speedup, hardware, backend),
            source=f"# {name} {task}\nimport torch\nclass ModelNew(torch.nn.Module):\n    pass\n",
            prompt_tokens=1000,
            completion_tokens=500,
            cost_usd=0.01,
            transcript=[
                {"role": "user", "content": f"Write {task}. {HOSTILE_TEXT}"},
                {"role": "assistant", "content": "```python\nclass ModelNew: ...\n```"},
            ],
        )
    store.finish_run(name)
    if score:
        save_run_scores(store, name)


def fill_store(path: Path) -> None:
    with open_store(path) as store:
        add_run(
            store,
            "fast-oneshot",
            "openai:gpt-x",
            "one-shot",
            "cpu",
            MACHINE_A,
            {
                "L1/relu": ("correct", 3.0),
                "L1/gelu": ("correct", 2.5),
                "L2/fused": ("correct", 1.8),
            },
        )
        add_run(
            store,
            "slow-refine",
            "anthropic:claude-y",
            "refine",
            "cuda",
            MACHINE_B,
            {
                "L1/relu": ("correct", 0.5),
                "L1/gelu": ("incorrect", None),
                "L2/fused": ("correct", 1.1),
            },
        )
        add_run(
            store,
            "mid-coderjudge",
            "local:llama",
            "coder-judge",
            "cpu",
            MACHINE_A,
            {
                "L1/relu": ("correct", 1.2),
                "L1/gelu": ("correct", 1.0),
                "L2/fused": ("compile_error", None),
            },
        )
        add_run(
            store,
            "unscored",
            "openai:gpt-x",
            "one-shot",
            "cpu",
            MACHINE_A,
            {"L1/relu": ("correct", 2.0)},
            score=False,
        )
        fast = bundle_from_store(store, "fast-oneshot")
        store.record_verification(
            "fast-oneshot",
            fast.content_sha256,
            holds=True,
            outcome={"speedups_remeasured": True},
            verifier_host="maint-1",
        )
        store.record_verification(
            "slow-refine", "0" * 64, holds=True, outcome={}, verifier_host="maint-1"
        )
        mid = bundle_from_store(store, "mid-coderjudge")
        store.record_verification(
            "mid-coderjudge", mid.content_sha256, holds=False, outcome={}, verifier_host="maint-1"
        )


@pytest.fixture(scope="session")
def runs_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("store") / "results.sqlite"
    fill_store(path)
    return path
