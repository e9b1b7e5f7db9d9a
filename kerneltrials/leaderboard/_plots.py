"""SVG plots drawn into the pages (readable without JavaScript): fast_p against p, one
curve per run, and per-run speedup distributions on a log axis."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from kerneltrials.results import TaskOutcome

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b",
           "#e377c2", "#7f7f7f", "#bcbd22")  # fmt: skip
P_MAX = 3.0


@dataclass(frozen=True)
class Series:
    """One run in a plot."""

    slug: str
    label: str
    outcomes: tuple[TaskOutcome, ...]  # stored per-task best outcomes (eager)
    geomean: float | None = None
    ci95: tuple[float, float] | None = None
    curve: tuple[tuple[float, float], ...] = ()  # the stored (p, fast_p) points


def color(index: int) -> str:
    return PALETTE[index % len(PALETTE)]


def fast_p_points(run: Series) -> list[tuple[float, float]]:
    """(p, fast_p) as stored with the run's scores, up to ``P_MAX``; an unscoreable run
    (or a report stored without a curve) gives no points."""
    return [(p, value) for p, value in run.curve if p <= P_MAX]


def fast_p_svg(series: Sequence[Series], width: int = 640, height: int = 300) -> str:
    """fast_p (y, 0-100%) against p (x, 0-3): one step curve per run, legend on the right."""
    left, right, top, bottom = 48, 180, 12, 36
    plot_w, plot_h = width - left - right, height - top - bottom

    def x(p: float) -> float:
        return left + plot_w * p / P_MAX

    def y(value: float) -> float:
        return top + plot_h * (1 - value)

    parts = [_svg_open(width, height, "fast_p against p"), _frame(left, top, plot_w, plot_h)]
    for tick in (0, 0.5, 1, 1.5, 2, 2.5, 3):
        parts.append(_line(x(tick), top, x(tick), top + plot_h, "grid"))
        parts.append(_text(x(tick), top + plot_h + 16, f"{tick:g}", "middle"))
    for tick in (0, 0.25, 0.5, 0.75, 1):
        parts.append(_line(left, y(tick), left + plot_w, y(tick), "grid"))
        parts.append(_text(left - 6, y(tick) + 4, f"{tick:.0%}", "end"))
    parts.append(_text(left + plot_w / 2, height - 4, "p (speedup threshold vs eager)", "middle"))
    for index, run in enumerate(series):
        points = fast_p_points(run)
        path = " ".join(f"{x(p):.1f},{y(v):.1f}" for p, v in _steps(points))
        parts.append(f'<g class="curve" data-run="{escape(run.slug)}">'
                     f"<title>{escape(run.label)}</title>"
                     f'<polyline fill="none" stroke="{color(index)}" stroke-width="2" '
                     f'points="{path}"/></g>')  # fmt: skip
        legend_y = top + 14 + 18 * index
        parts.append(_line(width - right + 12, legend_y - 4, width - right + 32, legend_y - 4,
                           "legend", color(index)))  # fmt: skip
        parts.append(_text(width - right + 38, legend_y, _short(run.label), "start"))
    parts.append("</svg>")
    return "".join(parts)


def _steps(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """A right-continuous step line through the points (fast_p drops just after a speedup)."""
    stepped: list[tuple[float, float]] = []
    for p, value in points:
        if stepped and stepped[-1][1] != value:
            stepped.append((p, stepped[-1][1]))
        stepped.append((p, value))
    return stepped


def speedup_svg(series: Sequence[Series], width: int = 640) -> str:
    """Per run: one dot per correct task's speedup on a log2 axis, the geomean and its CI."""
    left, right, top, row_h = 180, 16, 12, 28
    height = top + row_h * max(len(series), 1) + 36
    plot_w = width - left - right
    speedups = [o.speedup for run in series for o in run.outcomes if o.speedup]
    low = min([0.125, *speedups])
    high = max([8.0, *speedups])
    lo_log, hi_log = math.log2(low) - 0.25, math.log2(high) + 0.25

    def x(value: float) -> float:
        return left + plot_w * (math.log2(value) - lo_log) / (hi_log - lo_log)

    plot_h = row_h * max(len(series), 1)
    parts = [_svg_open(width, height, "speedup distributions"), _frame(left, top, plot_w, plot_h)]
    for exponent in range(math.ceil(lo_log), math.floor(hi_log) + 1):
        tick = 2.0**exponent
        parts.append(_line(x(tick), top, x(tick), top + plot_h, "one" if exponent == 0 else "grid"))
        parts.append(_text(x(tick), top + plot_h + 16, f"{tick:g}x", "middle"))
    parts.append(_text(left + plot_w / 2, height - 4, "speedup vs eager (log scale)", "middle"))
    for index, run in enumerate(series):
        middle = top + row_h * index + row_h / 2
        parts.append(f'<g class="dist" data-run="{escape(run.slug)}">')
        parts.append(_text(left - 8, middle + 4, _short(run.label), "end"))
        for number, outcome in enumerate(o for o in run.outcomes if o.speedup):
            jitter = ((number * 7) % 11 - 5) * 1.2  # deterministic vertical spread
            parts.append(f'<circle cx="{x(outcome.speedup):.1f}" cy="{middle + jitter:.1f}" r="3" '  # type: ignore[arg-type]
                         f'fill="{color(index)}" fill-opacity="0.6">'
                         f"<title>{escape(outcome.task_id)}: {outcome.speedup:.3f}x</title></circle>")  # fmt: skip
        if run.geomean and run.ci95:
            parts.append(_line(x(run.ci95[0]), middle, x(run.ci95[1]), middle, "ci"))
            parts.append(f'<rect class="geomean" x="{x(run.geomean) - 2:.1f}" y="{middle - 8:.1f}" '
                         f'width="4" height="16"><title>geomean {run.geomean:.3f}x, 95% CI '
                         f"[{run.ci95[0]:.3f}, {run.ci95[1]:.3f}]</title></rect>")  # fmt: skip
        parts.append("</g>")
    parts.append("</svg>")
    return "".join(parts)


def _svg_open(width: int, height: int, title: str) -> str:
    return (f'<svg class="plot" role="img" viewBox="0 0 {width} {height}" width="{width}" '
            f'height="{height}"><title>{escape(title)}</title>')  # fmt: skip


def _frame(x: float, y: float, width: float, height: float) -> str:
    return f'<rect class="frame" x="{x}" y="{y}" width="{width}" height="{height}"/>'


def _line(x1: float, y1: float, x2: float, y2: float, css: str, stroke: str | None = None) -> str:
    style = f' stroke="{stroke}" stroke-width="3"' if stroke else ""
    return f'<line class="{css}" x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}"{style}/>'


def _text(x: float, y: float, text: str, anchor: str) -> str:
    return f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}">{escape(text)}</text>'


def _short(label: str, limit: int = 26) -> str:
    return label if len(label) <= limit else label[: limit - 1] + "…"
