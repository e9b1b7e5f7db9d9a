"""What an agent is told about its candidate's verdict.

Public configurations are shown in full (parameters, errors, timings, failure detail);
hidden ones ONLY as a count passed / failed (docs/design/interfaces.md, "What agents
see"), so an agent cannot search for
them. Reasons that mention a hidden configuration (its name, or a parameter value no
public configuration has) are redacted for the same reason.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from kerneltrials.verifier.verdict import Verdict

REDACTED = "(detail withheld: it concerns a hidden configuration)"


def format_feedback(verdict: Verdict | Mapping[str, Any], *, max_detail_chars: int = 2000) -> str:
    """A plain-text summary of a ``Verdict``, or of its JSON form (``verdict.to_dict()``,
    the shape of docs/design/interfaces.md, "Verdict")."""
    if isinstance(verdict, Verdict):
        verdict = verdict.to_dict()
    configs: Sequence[Mapping[str, Any]] = verdict.get("configs") or []
    public = [c for c in configs if c.get("kind") != "hidden"]
    hidden = [c for c in configs if c.get("kind") == "hidden"]
    lines = [f"Status: {verdict.get('status', 'unknown')}"]
    lines += _speedup_lines(verdict)
    reasons = [_redact(str(r), public, hidden) for r in verdict.get("reasons") or []]
    if reasons:
        lines.append("Reasons:")
        lines += [f"- {_clip(reason, max_detail_chars)}" for reason in reasons]
    for config in public:
        lines += _public_config_lines(config, max_detail_chars)
    if hidden:
        passed = sum(1 for c in hidden if c.get("passed"))
        lines.append(
            f"Hidden configurations: {passed} passed, {len(hidden) - passed} failed "
            "(their shapes and errors are not shown)."
        )
    lines += _profile_lines(verdict.get("profile"))
    return "\n".join(lines)


def _profile_lines(profile: Any) -> list[str]:
    """The profiler summary: top operators by self time, hardware counters, notes."""
    if not isinstance(profile, Mapping):
        return []
    lines = [f"Profile ({profile.get('tool', 'profiler')}, per call, first public configuration):"]
    for row in list(profile.get("top_ops") or [])[:10]:
        lines.append(f"- {row.get('op')}: {float(row.get('self_ms_per_call', 0)):.3f} ms self, "
                     f"{row.get('calls')} call(s)")
    for name, value in dict(profile.get("counters") or {}).items():
        lines.append(f"- counter {name}: {value:.4g}")
    for kernel in list(profile.get("kernels") or [])[:8]:
        if isinstance(kernel, Mapping):
            lines.append(_kernel_line(kernel))
    if profile.get("note"):
        lines.append(f"Note: {profile['note']}")
    return lines


#: Nsight Compute metrics as the feedback names them (harness/_nsight.py collects them).
_KERNEL_METRICS = (
    ("gpu__time_duration.sum", "time {:.4g} ns"),
    ("dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM {:.0f}% of peak"),
    ("sm__throughput.avg.pct_of_peak_sustained_elapsed", "SM {:.0f}% of peak"),
    ("sm__warps_active.avg.pct_of_peak_sustained_active", "occupancy {:.0f}%"),
    ("launch__registers_per_thread", "{:.0f} registers/thread"),
    ("launch__block_size", "block {:.0f}"),
    ("launch__grid_size", "grid {:.0f}"),
)


def _kernel_line(kernel: Mapping[str, Any]) -> str:
    """One kernel's Nsight Compute counters, in words an agent can act on."""
    metrics = dict(kernel.get("metrics") or {})
    parts = [label.format(float(metrics[key])) for key, label in _KERNEL_METRICS
             if isinstance(metrics.get(key), int | float)]
    return (f"- kernel {str(kernel.get('name'))[:120]} ({kernel.get('launches')} launch(es)): "
            + ", ".join(parts))


def _speedup_lines(verdict: Mapping[str, Any]) -> list[str]:
    lines = []
    if verdict.get("speedup") is not None:
        lines.append(f"Speedup vs PyTorch eager (geometric mean): {verdict['speedup']:.3f}x")
    if verdict.get("speedup_compile") is not None:
        lines.append(f"Speedup vs torch.compile: {verdict['speedup_compile']:.3f}x")
    return lines


def _public_config_lines(config: Mapping[str, Any], max_detail_chars: int) -> list[str]:
    outcome = "passed" if config.get("passed") else "FAILED"
    lines = [
        f"Configuration {config.get('name', '?')} {dict(config.get('params') or {})}: {outcome}"
    ]
    errors = [
        f"{label}={config[key]:.3g}"
        for key, label in (("max_abs_err", "max_abs_err"), ("max_norm_err", "max_norm_err"))
        if config.get(key) is not None
    ]
    if errors:
        lines.append(f"  errors: {', '.join(errors)}")
    times = config.get("times_ms") or {}
    for side in ("candidate", "eager", "compile"):
        stats = times.get(side)
        if stats and stats.get("median") is not None:
            lines.append(
                f"  {side}: median {stats['median']:.4g} ms, IQR {stats.get('iqr', 0):.3g} ms, "
                f"n={stats.get('n', '?')}"
            )
    if config.get("detail"):
        lines.append(f"  detail: {_clip(str(config['detail']), max_detail_chars)}")
    return lines


def _redact(
    reason: str, public: Sequence[Mapping[str, Any]], hidden: Sequence[Mapping[str, Any]]
) -> str:
    public_values = {(k, str(v)) for c in public for k, v in (c.get("params") or {}).items()}
    for config in hidden:
        name = str(config.get("name", ""))
        if name and name in reason:
            return REDACTED
        for key, value in (config.get("params") or {}).items():
            if (key, str(value)) in public_values:
                continue
            if re.search(rf"(?<![\w.]){re.escape(str(value))}(?![\w])", reason):
                return REDACTED
    return reason


def _clip(text: str, limit: int) -> str:
    return (
        text if len(text) <= limit else text[:limit] + f"... ({len(text) - limit} more characters)"
    )
