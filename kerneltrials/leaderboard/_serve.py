"""``serve_site``: a local preview server for a built site (127.0.0.1 only)."""

from __future__ import annotations

import functools
import os
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base's name
        pass  # the CLI says where to look; per-request lines would flood the terminal


def serve_site(
    directory: str | os.PathLike[str], port: int = 8000, host: str = "127.0.0.1"
) -> ThreadingHTTPServer:
    """A server for ``directory`` (call ``serve_forever()``; port 0 picks a free one).

    Raises:
        FileNotFoundError: ``directory`` has no ``index.html`` (build the site first).
    """
    root = Path(directory)
    if not (root / "index.html").is_file():
        raise FileNotFoundError(
            f"{root} has no index.html: build the site first with "
            f"`kerneltrials leaderboard build --out {root}`"
        )
    handler = functools.partial(_QuietHandler, directory=str(root))
    return ThreadingHTTPServer((host, port), handler)
