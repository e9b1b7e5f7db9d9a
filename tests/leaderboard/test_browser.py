"""The built site in real headless Chromium (Debian's ``chromium``), over DevTools:
sort a column, filter rows, open a drill-down, and check a screenshot is not blank."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from kerneltrials.leaderboard import build_site, serve_site
from tests.leaderboard.devtools import Browser, find_chromium, luminance_variance

CHROMIUM = find_chromium()
pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(180),
    pytest.mark.skipif(
        CHROMIUM is None,
        reason="chromium is not installed (apt-get install chromium; "
        "listed in scripts/system-packages.txt)",
    ),
]

VISIBLE_RUNS = (
    "Array.from(document.querySelectorAll('#board tbody tr:not([hidden])'))"
    ".map(r => r.querySelector('td[data-key=run] a').textContent)"
)


@pytest.fixture(scope="module")
def site_url(runs_store: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    out = tmp_path_factory.mktemp("browser-site")
    build_site(out, [runs_store])
    server = serve_site(out, port=0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    assert CHROMIUM is not None
    with Browser(CHROMIUM) as instance:
        yield instance


def click_and_wait(browser: Browser, selector: str) -> None:
    browser.events.clear()
    browser.evaluate(f"document.querySelector({json.dumps(selector)}).click()")
    browser.wait_for_event("Page.loadEventFired")


def select(browser: Browser, element_id: str, value: str) -> None:
    browser.evaluate(f"(() => {{ const s = document.getElementById({json.dumps(element_id)}); "
                     f"s.value = {json.dumps(value)}; s.dispatchEvent(new Event('change', "
                     "{bubbles: true})); })()")  # fmt: skip


def test_sorting_a_column_reorders_the_rows(browser: Browser, site_url: str) -> None:
    browser.navigate(site_url + "index.html")
    assert browser.evaluate(VISIBLE_RUNS) == [  # slow-refine: rank 1 of the gpu profile
        "fast-oneshot",
        "slow-refine",
        "mid-coderjudge",
        "unscored",
    ]
    browser.evaluate("document.querySelector('th[data-key=geomean]').click()")  # largest first
    browser.evaluate("document.querySelector('th[data-key=geomean]').click()")  # then smallest
    assert browser.evaluate(VISIBLE_RUNS) == [
        "slow-refine",
        "mid-coderjudge",
        "fast-oneshot",
        "unscored",
    ]
    assert (
        browser.evaluate("document.querySelector('th[data-key=geomean]').getAttribute('aria-sort')")
        == "ascending"
    )
    browser.evaluate("document.querySelector('th[data-key=model]').click()")
    models = browser.evaluate("Array.from(document.querySelectorAll('#board tbody tr:not([hidden]) "
                              "td[data-key=model]')).map(c => c.getAttribute('data-sort'))")  # fmt: skip
    assert models == sorted(models) and models[0] == "anthropic:claude-y"


def test_filters_hide_rows_and_curves(browser: Browser, site_url: str) -> None:
    browser.navigate(site_url + "index.html")
    select(browser, "filter-backend", "cuda")
    assert browser.evaluate(VISIBLE_RUNS) == ["slow-refine"]
    assert (
        browser.evaluate("document.querySelectorAll('svg.plot g.curve:not([hidden])').length") == 1
    )
    assert "1 run(s) shown" in browser.evaluate("document.getElementById('row-count').textContent")
    select(browser, "filter-backend", "")
    select(browser, "filter-level", "L2")
    scopes = browser.evaluate("Array.from(document.querySelectorAll('#board tbody tr:not([hidden])'))"
                              ".map(r => r.dataset.scope)")  # fmt: skip
    assert scopes == ["L2"] * 4
    select(browser, "filter-agent", "refine")
    assert browser.evaluate(VISIBLE_RUNS) == ["slow-refine"]


def test_drill_down_and_a_screenshot_that_is_not_blank(browser: Browser, site_url: str) -> None:
    browser.navigate(site_url + "index.html")
    click_and_wait(browser, "tr[data-scope=all][data-run^=slow-refine] td[data-key=run] a")
    assert browser.evaluate("document.querySelector('h1').textContent").startswith("slow-refine")
    click_and_wait(browser, "a.drill[href*=L1_gelu]")
    assert "L1_gelu" in browser.evaluate("location.pathname")
    assert browser.evaluate("document.querySelector('.attempt .status').textContent") == "incorrect"
    browser.evaluate("document.querySelector('details.transcript summary').click()")
    assert browser.evaluate("document.querySelector('details.transcript').open") is True
    assert browser.evaluate("document.querySelectorAll('.highlight .k, .highlight .kn').length") > 0
    browser.navigate(site_url + "index.html")
    variance, distinct = luminance_variance(browser.screenshot_png())
    assert variance > 200 and distinct > 20, (variance, distinct)


FITS = """(() => {
  const box = document.querySelector('.scroll');
  const edge = el => el.getBoundingClientRect().right;
  return {page: document.documentElement.scrollWidth - window.innerWidth,
          table: box.scrollWidth - box.clientWidth, box: box.clientWidth,
          geomean: edge(document.querySelector('th[data-key=geomean]')) - window.innerWidth,
          filters: Math.max(...Array.from(document.querySelectorAll('#filters select'))
                                 .map(edge)) - window.innerWidth};
})()"""


@pytest.mark.parametrize("width", [1280, 420])
def test_the_board_fits_a_laptop_and_a_phone(site_url: str, width: int) -> None:
    assert CHROMIUM is not None
    with Browser(CHROMIUM, width=width) as sized:
        sized.navigate(site_url + "index.html")
        fits = sized.evaluate(FITS)
    assert fits["page"] <= 0, fits  # the page itself never scrolls sideways
    assert fits["filters"] <= 0, fits  # the filters wrap onto the screen
    if width == 1280:  # every column on screen, the geomean one included
        assert fits["table"] <= 0 and fits["geomean"] <= 0, fits
    else:  # the table scrolls inside its own box, which stays on the screen
        assert fits["table"] > 0 and fits["box"] <= width, fits
