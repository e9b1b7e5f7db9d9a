"""A separate process that writes to a results store (used by the concurrency/kill tests).

usage: python writer_process.py DB RUN WORKER COUNT [SOURCE_BYTES]
Records COUNT attempts (COUNT < 0: forever) for task ``L1/w<WORKER>-<i>`` — or, with WORKER
``same``, for the shared tasks ``L1/t<i>`` — printing one line per committed attempt:
``ok <i>`` or ``exists <i>``.
"""

from __future__ import annotations

import itertools
import sys

from kerneltrials.results import AttemptExistsError, RunExistsError, open_store


def main() -> None:
    db, run, worker, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    source = "x" * int(sys.argv[5]) if len(sys.argv) > 5 else "src"
    with open_store(db) as store:
        try:
            store.create_run(name=run, model="m", agent="one-shot", backend="cpu", profile="cpu")
        except RunExistsError:
            pass
        indices = itertools.count() if count < 0 else range(count)
        for i in indices:
            task = f"L1/t{i}" if worker == "same" else f"L1/w{worker}-{i}"
            verdict = {
                "task": task,
                "backend": "cpu",
                "status": "correct",
                "correct": True,
                "speedup": 1.0 + i / 100,
            }
            try:
                store.record_attempt(run, task, verdict, source=source, prompt_tokens=i)
                print(f"ok {i}", flush=True)
            except AttemptExistsError:
                print(f"exists {i}", flush=True)


if __name__ == "__main__":
    main()
