"""``python -m kerneltrials.sandbox._run_code CODE [ARG...]``: ``python -c`` as a module.

A job that runs ``CODE`` as ``python -c CODE ARG...`` would, but through a module a
zygote can preload (``JobSpec.preload``): the sandbox tests run their jobs both ways.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if not args:
        raise SystemExit("usage: python -m kerneltrials.sandbox._run_code CODE [ARG...]")
    sys.argv = ["-c", *args[1:]]
    exec(compile(args[0], "<string>", "exec"), {"__name__": "__main__"})  # noqa: S102


if __name__ == "__main__":
    main()
