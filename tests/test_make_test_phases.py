"""`make test`'s phases select every test exactly once, whatever its markers.

The Makefile runs the suite in phases, each picked by a marker expression (`-m`); an
edit that left a combination of markers out would drop those tests from CI silently.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

from _pytest.mark.expression import Expression

MAKEFILE = Path(__file__).resolve().parents[1] / "Makefile"
#: The markers the phases are chosen by.
PHASE_MARKERS = ("alone", "docker", "ray", "slow", "gpu")


def _phase_expressions() -> list[str]:
    text = MAKEFILE.read_text()
    variables = dict(re.findall(r"^([A-Z_]+) = (.+)$", text, flags=re.M))
    recipe = text.split("\ntest:", 1)[1].split("\n\n", 1)[0]
    found = []
    for expression in re.findall(r'-m "?([^"\n]+?)"? --junitxml', recipe):
        found.append(re.sub(r"\$\((\w+)\)", lambda m: variables[m.group(1)], expression))
    return found


def test_the_phases_partition_every_combination_of_markers() -> None:
    phases = [Expression.compile(expression) for expression in _phase_expressions()]
    assert len(phases) == 3, _phase_expressions()
    for values in itertools.product([False, True], repeat=len(PHASE_MARKERS)):
        marks = {name for name, on in zip(PHASE_MARKERS, values, strict=True) if on}
        has_mark = marks.__contains__
        chosen = [index for index, phase in enumerate(phases)
                  if phase.evaluate(lambda name, has=has_mark, **_: has(name))]
        assert len(chosen) == 1, (sorted(marks), chosen)
