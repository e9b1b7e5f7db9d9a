"""``build_site``: render the collected runs into a static directory (Jinja2 templates,
local assets only) — the Python API behind ``kerneltrials leaderboard build``."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from kerneltrials._version import __version__
from kerneltrials.leaderboard._collect import SiteData, SiteRun, collect_site
from kerneltrials.leaderboard._highlight import highlight_css, highlight_source
from kerneltrials.leaderboard._models import load_model_info, model_info
from kerneltrials.leaderboard._pages import index_page, run_plot, task_lines, task_pages
from kerneltrials.leaderboard._scores import ALL_SCOPE, P_COLUMNS, BoardRow, hardware_label

PACKAGE_DIR = Path(__file__).parent
ASSETS = ("site.css", "site.js")


@dataclass(frozen=True)
class BuildResult:
    """What ``build_site`` wrote."""

    out_dir: Path
    index: Path
    runs: int
    pages: int
    skipped: tuple[str, ...]  # unreadable or edited bundles that were left out


def _percent(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _speedup(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}x"


def _number(value: float | None, digits: int = 4) -> str:
    return "–" if value is None else f"{value:.{digits}g}"


def _sort_value(value: float | None) -> str:
    """The ``data-sort`` of a numeric cell: empty sorts last."""
    return "" if value is None else repr(float(value))


def _environment(models: Mapping[str, Mapping[str, str]]) -> Environment:
    environment = Environment(
        loader=FileSystemLoader(PACKAGE_DIR / "templates"),
        autoescape=select_autoescape(["html"]),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    environment.filters.update(percent=_percent, speedup=_speedup, number=_number,
                               sortvalue=_sort_value, highlight=highlight_source,
                               pretty=lambda v: json.dumps(v, indent=2, sort_keys=True, default=str))  # fmt: skip
    environment.globals.update(P_COLUMNS=P_COLUMNS, ALL_SCOPE=ALL_SCOPE, version=__version__,
                               hardware_label=hardware_label,
                               model_info=lambda model: model_info(model, models))  # fmt: skip
    return environment


class _Writer:
    """Renders templates into ``out``; ``root`` makes every link relative."""

    def __init__(self, out: Path, models: Mapping[str, Mapping[str, str]]) -> None:
        self.out = out
        self.environment = _environment(models)
        self.pages = 0

    def page(self, relative: str, template: str, **context: Any) -> Path:
        target = self.out / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        root = "../" * relative.count("/")
        html = self.environment.get_template(template).render(root=root, **context)
        target.write_text(html)
        self.pages += 1
        return target


def _write_assets(out: Path) -> None:
    assets = out / "assets"
    assets.mkdir(parents=True, exist_ok=True)
    for name in ASSETS:
        shutil.copyfile(PACKAGE_DIR / "assets" / name, assets / name)
    (assets / "pygments.css").write_text(highlight_css())


def _write_run(writer: _Writer, run: SiteRun, rows: Sequence[BoardRow]) -> None:
    lines = task_lines(run)
    run_rows = [row for row in rows if row.run.slug == run.slug]
    whole = next((row for row in run_rows if row.scope == ALL_SCOPE), None)
    writer.page(f"runs/{run.slug}.html", "run.html", run=run, rows=run_rows, whole=whole,
                lines=lines, plot=run_plot(whole))  # fmt: skip
    for line in lines:
        if line.attempts:
            writer.page(f"runs/{run.slug}/{line.slug}.html", "attempts.html", run=run, line=line)


def render_site(
    data: SiteData,
    out_dir: str | os.PathLike[str],
    models: Mapping[str, Mapping[str, str]] | None = None,
) -> BuildResult:
    """Write the site for already collected ``data`` into ``out_dir`` (created if needed);
    ``models``: what ``load_model_info`` read (model string or name -> fields)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    _write_assets(out)
    writer = _Writer(out, models or {})
    index = index_page(data.runs)
    index_path = writer.page("index.html", "index.html", page=index, runs=data.runs,
                             skipped=data.skipped)  # fmt: skip
    for run in data.runs:
        _write_run(writer, run, index.rows)
    tasks = task_pages(data.runs)
    writer.page("tasks.html", "tasks.html", tasks=tasks)
    writer.page("about.html", "about.html")
    for task in tasks:
        writer.page(f"tasks/{task.slug}.html", "task.html", task=task)
    return BuildResult(out, index_path, len(data.runs), writer.pages, data.skipped)


def build_site(
    out_dir: str | os.PathLike[str],
    db_paths: Iterable[str | os.PathLike[str]] = (),
    bundles_dir: str | os.PathLike[str] | None = None,
    exclude: Iterable[str] = (),
    model_info_path: str | os.PathLike[str] | None = None,
) -> BuildResult:
    """Build the static leaderboard from results stores and a directory of bundles.

    Args:
        out_dir: where the site goes (``index.html`` at its top).
        db_paths: results stores: their runs, and the verification records that mark runs
            (from stores or bundles) verified.
        bundles_dir: submission bundles (``*.json``, ``*.json.gz``), searched recursively.
        exclude: run names to leave out (test runs; store runs marked hidden are always
            left out).
        model_info_path: a JSON file of model metadata (``_models.load_model_info``).

    Raises:
        StoreError: a store path that does not exist or is not a store.
        ModelInfoError: an unreadable or malformed model-info file.
    """
    models = load_model_info(model_info_path) if model_info_path is not None else {}
    return render_site(collect_site(list(db_paths), bundles_dir, exclude), out_dir, models)
