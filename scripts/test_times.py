"""Where `make test`'s time goes: per-file and per-test totals from the JUnit XML files
`make test` leaves in test-results/ (one per phase).

    .venv/bin/python scripts/test_times.py [test-results/*.xml] [--top N]
"""

from __future__ import annotations

import argparse
import sys
import xml.etree.ElementTree as ElementTree
from collections import defaultdict
from pathlib import Path


def case_times(paths: list[Path]) -> dict[str, float]:
    """Seconds per test id (``file::name``), summed over the given reports."""
    times: dict[str, float] = defaultdict(float)
    for path in paths:
        for case in ElementTree.parse(path).iter("testcase"):
            file = case.get("classname", "").replace(".", "/") + ".py"
            times[f"{file}::{case.get('name', '')}"] += float(case.get("time", "0") or 0)
    return dict(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="*", type=Path,
                        help="JUnit XML files (default: test-results/*.xml)")
    parser.add_argument("--top", type=int, default=25, help="rows per table (default 25)")
    args = parser.parse_args(argv)
    reports = args.reports or sorted(Path("test-results").glob("*.xml"))
    if not reports:
        print("no reports: run `make test` first (it writes test-results/*.xml)", file=sys.stderr)
        return 2
    times = case_times(reports)
    per_file: dict[str, float] = defaultdict(float)
    for test, seconds in times.items():
        per_file[test.split("::", 1)[0]] += seconds
    total = sum(times.values())
    print(f"{len(times)} tests, {total / 60:.1f} worker-minutes in {len(reports)} report(s)")
    print(f"\nfiles by time (top {args.top}):")
    for file, seconds in sorted(per_file.items(), key=lambda item: -item[1])[:args.top]:
        print(f"  {seconds:7.1f} s  {100 * seconds / total:4.1f}%  {file}")
    print(f"\ntests by time (top {args.top}):")
    for test, seconds in sorted(times.items(), key=lambda item: -item[1])[:args.top]:
        print(f"  {seconds:7.1f} s  {test}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
