"""``kerneltrials doctor``: what this machine can do, and the fix for what it cannot."""

from __future__ import annotations

import click
from rich.markup import escape
from rich.table import Table

from kerneltrials.commands._common import json_option, print_json, stdout_console


@click.command("doctor")
@json_option
def doctor(as_json: bool) -> None:
    """Compilers, nvcc and CUDA_HOME, GPUs, sandbox features, container engine, Ray."""
    from kerneltrials.doctor import run_doctor

    findings = run_doctor()
    if as_json:
        print_json([finding.to_dict() for finding in findings])
        return
    table = Table("area", "capability", "", "found", "fix")
    for finding in findings:
        mark = "[green]ok[/]" if finding.ok else "[yellow]missing[/]"
        table.add_row(finding.area, finding.name, mark, escape(finding.detail), escape(finding.fix))
    stdout_console.print(table)
