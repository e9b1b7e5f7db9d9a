"""Syntax highlighting of candidate sources with Pygments (a dependency of rich).

Colours come from CSS classes (``pygments.css``, written into the site's assets), so
the HTML carries no inline styles and no external stylesheet.
"""

from __future__ import annotations

from markupsafe import Markup
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

_FORMATTER = HtmlFormatter(cssclass="highlight", linenos="table", style="default")


def highlight_source(source: str) -> Markup:
    """The candidate module's text as highlighted, escaped HTML (line numbers included)."""
    return Markup(highlight(source, PythonLexer(), _FORMATTER))


def highlight_css() -> str:
    """The stylesheet for :func:`highlight_source`'s classes."""
    return str(_FORMATTER.get_style_defs(".highlight"))
