"""Static checks on a candidate's source: parse it (AST, never regex) before running it."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from kerneltrials.verifier.verdict import Status


@dataclass
class StaticReport:
    """``status`` is set when the candidate cannot go further; reasons accumulate."""

    status: Status | None = None
    reasons: list[str] = field(default_factory=list)
    tree: ast.Module | None = None

    @property
    def passed(self) -> bool:
        return self.status is None


def _calls_load_inline(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            function = node.func
            name = function.id if isinstance(function, ast.Name) else (
                function.attr if isinstance(function, ast.Attribute) else "")
            if name == "load_inline":
                return True
    return False


def run_static_checks(source: str, backend: str) -> StaticReport:
    """The checks every candidate must pass before it is built."""
    report = StaticReport()
    try:
        report.tree = ast.parse(source)
    except SyntaxError as error:
        report.status = Status.COMPILE_ERROR
        report.reasons.append(f"static:syntax_error:line {error.lineno}: {error.msg}")
        return report
    classes = {node.name for node in report.tree.body if isinstance(node, ast.ClassDef)}
    if "ModelNew" not in classes:
        report.status = Status.REJECTED
        report.reasons.append("static:no_model_new:the candidate must define class ModelNew")
    if not _calls_load_inline(report.tree):
        report.status = Status.REJECTED
        report.reasons.append("static:no_custom_kernel:no load_inline call builds a kernel")
    return report
