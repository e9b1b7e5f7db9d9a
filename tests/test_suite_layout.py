"""`make test`'s layout: the tests that talk to the container engine run in the parallel
phase, all in one xdist group, so no two of them share the engine at once."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import ENGINE_GROUP

ROOT = Path(__file__).resolve().parents[1]

PROBE = '''
def pytest_collection_finish(session):
    for item in session.items:
        group = item.get_closest_marker("xdist_group")
        name = (group.args[0] if group.args else group.kwargs.get("name")) if group else "-"
        docker = item.get_closest_marker("docker") is not None
        print(f"PROBE {item.nodeid} docker={docker} group={name}")
'''


def test_every_engine_test_is_in_the_engine_group_and_no_other_test_is(tmp_path: Path) -> None:
    (tmp_path / "layout_probe.py").write_text(PROBE)
    collected = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
         "-p", "layout_probe", "tests/sandbox/test_conformance.py"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
        env={**_env(), "PYTHONPATH": str(tmp_path)})
    rows = [line.split()[1:] for line in collected.stdout.splitlines()
            if line.startswith("PROBE ")]
    assert rows, collected.stdout[-2000:] + collected.stderr[-2000:]
    engine = [row for row in rows if row[1] == "docker=True"]
    others = [row for row in rows if row[1] == "docker=False"]
    assert engine and others  # the file has both kinds, or this test proves nothing
    assert all(row[2] == f"group={ENGINE_GROUP}" for row in engine), engine
    assert all(row[2] == "group=-" for row in others), others


def test_make_test_runs_the_engine_tests_in_the_grouped_parallel_phase() -> None:
    makefile = (ROOT / "Makefile").read_text()
    parallel_safe = re.search(r"^PARALLEL_SAFE = (.*)$", makefile, re.MULTILINE)
    assert parallel_safe is not None
    assert "docker" not in parallel_safe.group(1)  # engine tests are not left to the end
    parallel_run = next(line for line in makefile.splitlines()
                        if "-m \"$(PARALLEL_SAFE)\"" in line)
    assert "--dist loadgroup" in parallel_run  # without it the group would be ignored


def _env() -> dict[str, str]:
    import os

    return {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
