"""Static checks on a candidate's source: parse it (AST, never regex) before running it.

Three passes, each in its own module: module-wide Python checks (``_python``),
what ``ModelNew.forward`` does (``_forward``) and the C++/CUDA sources
(``_cpp``). Findings marked strict-only (PyTorch or library compute) fail a
candidate under the ``strict`` policy and are kept as ``note:`` reasons under ``mixed``.
Nothing here imports torch: ``kerneltrials check --static-only`` screens thousands of
files. The list of checks and the attack each stops: docs/design/anticheat.md.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from kerneltrials.verifier.static._cpp import check_cpp, cpp_sources, library_flags
from kerneltrials.verifier.static._flags import forbidden_in
from kerneltrials.verifier.static._forward import Program, check_forward
from kerneltrials.verifier.static._names import Finding
from kerneltrials.verifier.static._python import Resolver, check_module
from kerneltrials.verifier.verdict import Status

POLICIES = ("strict", "mixed")

#: Findings that exist to keep a candidate inside its sandbox (files, processes, sockets,
#: foreign code, Python reached from C++): defence in depth, which
#: ``run_static_checks(source_scans=False)`` leaves out so the sandbox's tests can show
#: that the sandbox holds on its own. The anti-cheat findings are never left out.
ESCAPE_CODES = frozenset({
    "static:forbidden_cpp", "static:file_access", "static:foreign_code",
    "static:forbidden_module", "static:forbidden_call", "static:dynamic_attribute",
    "cpp:python_access", "cpp:load_time_code", "cpp:token_pasting",
})


@dataclass
class StaticReport:
    """``status`` is set when the candidate cannot go further; reasons accumulate."""

    status: Status | None = None
    reasons: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # allowed under this policy, recorded
    tree: ast.Module | None = None

    @property
    def passed(self) -> bool:
        return self.status is None

    def reject(self, reason: str) -> None:
        self.status = Status.REJECTED
        if reason not in self.reasons:
            self.reasons.append(reason)


def _kernel_findings(tree: ast.Module, program: Program, backend: str) -> list[Finding]:
    calls = [node for node in ast.walk(tree) if program.is_load_inline(node)]
    if not calls:
        return [Finding("static:no_custom_kernel", "no load_inline call builds a kernel")]
    if backend == "cuda" and not any(_has_cuda_sources(call) for call in calls):  # type: ignore[arg-type]
        return [Finding("static:no_custom_kernel", "no load_inline call has cuda_sources "
                        "(the cuda backend needs a GPU kernel)")]
    if backend == "cuda":
        return _device_kernel_findings(tree)
    return []


# A kernel launch in CUDA C++: the triple-chevron syntax or the runtime's launch calls.
_LAUNCH_MARKERS = ("<<<", "cudaLaunchKernel", "cudaLaunchCooperativeKernel")


def _device_kernel_findings(tree: ast.Module) -> list[Finding]:
    """A cuda candidate must define and launch a kernel of its own: C++ in ``cuda_sources``
    that only allocates or calls ATen would otherwise reach a build that takes minutes
    before anything rejects it. Every string literal counts, so a kernel kept in a
    separate constant is found; a kernel spelled only at run time is rejected (stricter)."""
    texts = [node.value for node in ast.walk(tree)
             if isinstance(node, ast.Constant) and isinstance(node.value, str)]
    if not any("__global__" in text for text in texts):
        return [Finding("static:no_device_kernel", "no __global__ function in the candidate's "
                        "CUDA sources (the cuda backend needs a kernel of its own)")]
    if not any(marker in text for text in texts for marker in _LAUNCH_MARKERS):
        return [Finding("static:no_device_kernel", "a __global__ function is never launched "
                        "(no <<<...>>> or cudaLaunchKernel in the CUDA sources)")]
    return []


def _has_cuda_sources(call: ast.Call) -> bool:
    return len(call.args) >= 3 or any(k.arg == "cuda_sources" for k in call.keywords)


# load_inline's flag arguments: (keyword, position), as forbidden_in takes them.
_FLAG_ARGUMENTS = (("extra_cflags", 4), ("extra_cuda_cflags", 5), ("extra_ldflags", 6),
                   ("extra_include_paths", 7))


def _flag_findings(tree: ast.Module, program: Program) -> list[Finding]:
    """Flags written as literals in a ``load_inline`` call, against the allow-list
    (``_flags``): early feedback for ``check --static-only``. The trusted parent checks
    every request the build collects, literal or computed."""
    findings = []
    for call in ast.walk(tree):
        if not (isinstance(call, ast.Call) and program.is_load_inline(call)):
            continue
        given = {keyword.arg: keyword.value for keyword in call.keywords if keyword.arg}
        lists = [_literal_strings(given.get(name, call.args[at] if len(call.args) > at else None))
                 for name, at in _FLAG_ARGUMENTS]
        for reason in forbidden_in(*lists):
            area, kind, detail = reason.split(":", 2)
            findings.append(Finding(f"{area}:{kind}", detail, call.lineno))
    return findings


def _literal_strings(node: ast.AST | None) -> list[str]:
    if isinstance(node, ast.List | ast.Tuple):
        return [item.value for item in node.elts
                if isinstance(item, ast.Constant) and isinstance(item.value, str)]
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    return []


def collect_findings(tree: ast.Module, backend: str) -> list[Finding]:
    """Every finding of every pass, policy not yet applied."""
    resolver = Resolver(tree)
    findings = check_module(tree, resolver)
    classes = {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
    if "ModelNew" not in classes:
        findings.append(Finding("static:no_model_new", "the candidate must define class ModelNew"))
    findings += _kernel_findings(tree, Program(tree, resolver), backend)
    findings += check_forward(tree, resolver)
    for text, line in cpp_sources(tree):
        findings += check_cpp(text, line)
    findings += library_flags(tree)
    findings += _flag_findings(tree, Program(tree, resolver))
    return findings


#: A candidate module larger than this is not parsed: the checks run in the harness's
#: process, and their cost grows with the text (a kernel file is kilobytes; the build
#: takes at most 8 MiB of sources in all).
MAX_CANDIDATE_BYTES = 4 * 1024**2


def run_static_checks(source: str, backend: str, policy: str = "mixed",
                      source_scans: bool = True) -> StaticReport:
    """The checks every candidate must pass before it is built.

    Args:
        source: the candidate module's text.
        backend: ``cpu`` or ``cuda`` (a cuda candidate must have ``cuda_sources``).
        policy: ``strict`` rejects strict-only findings; ``mixed`` records them as notes.
        source_scans: False leaves out the escape-hatch findings (:data:`ESCAPE_CODES`).
    """
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}: choose strict or mixed")
    report = StaticReport()
    size = len(source.encode("utf-8", "surrogatepass"))
    if size > MAX_CANDIDATE_BYTES:  # parsed and scanned in the harness's own process
        report.status = Status.COMPILE_ERROR
        report.reasons.append(f"static:source_too_large:{size} bytes, at most "
                              f"{MAX_CANDIDATE_BYTES} are read")
        return report
    try:
        report.tree = ast.parse(source)
    except SyntaxError as error:
        report.status = Status.COMPILE_ERROR
        report.reasons.append(f"static:syntax_error:line {error.lineno}: {error.msg}")
        return report
    except (RecursionError, MemoryError):  # e.g. 1+1+...+1 200,000 times: no import could
        report.status = Status.COMPILE_ERROR  # compile it either
        report.reasons.append("static:syntax_error:the source nests deeper than Python's "
                              "parser goes")
        return report
    try:
        findings = collect_findings(report.tree, backend)
    except RecursionError:  # the checks walk the tree recursively; no kernel nests so deep
        report.reject("static:unanalysable:the source nests deeper than the checks walk")
        return report
    for finding in findings:
        if not source_scans and finding.code in ESCAPE_CODES:
            continue
        if finding.strict_only and policy == "mixed":
            if finding.code.startswith("cpp:"):  # torch compute is the norm under mixed
                report.notes.append(f"note:{finding.reason()} (allowed under mixed)")
        else:
            report.reject(finding.reason())
    return report
