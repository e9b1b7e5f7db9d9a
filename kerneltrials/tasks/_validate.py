"""``tasks validate``: reject degenerate tasks and configurations that do not run.

Problem codes:

* ``config:crash[<config>]`` — a public or hidden configuration fails to build or run;
* ``degenerate:near_zero_output`` / ``degenerate:constant_output`` /
  ``degenerate:nonfinite_output`` / ``degenerate:no_tensor_output``;
* ``degenerate:ignores_input[i]`` / ``degenerate:ignores_weight[name]``;
* ``degenerate:redundant_op[node]`` (error), ``degenerate:weak_op[node]`` (warning);
* ``degenerate:nonnegative_inputs`` (error), ``inputs:nonnegative[i]`` (warning);
* ``timing:out_of_band[<config>]`` — eager runtime outside the profile's band (a warning,
  an error with ``strict_timing``); ``timing:skipped`` when the device is missing.

Degeneracy checks run on the first public configuration (CPU); every public
configuration and the hidden ones drawn with :data:`VALIDATE_HIDDEN_SEED` must run.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import torch

from kerneltrials.tasks import _degenerate as checks
from kerneltrials.tasks._configs import ShapeConfig, public_configs, shape_configs
from kerneltrials.tasks._degenerate import ValidationProblem
from kerneltrials.tasks._instantiate import make_reference
from kerneltrials.tasks._runtime import measure_runtime_ms
from kerneltrials.tasks._spec import RUNTIME_BAND_MS, TaskError, TaskSpec

#: Seed of the hidden configurations that validation runs (fixed: CI is reproducible).
VALIDATE_HIDDEN_SEED = 0


@dataclass
class ValidationReport:
    """Validation result of one task."""

    task_id: str
    profile: str
    problems: list[ValidationProblem] = field(default_factory=list)
    runtime_ms: dict[str, float] = field(default_factory=dict)  # config name -> median

    @property
    def ok(self) -> bool:
        """No problem of severity ``error``."""
        return not any(p.severity == "error" for p in self.problems)

    def to_dict(self) -> dict[str, Any]:
        return {"task": self.task_id, "profile": self.profile, "ok": self.ok,
                "problems": [asdict(p) for p in self.problems], "runtime_ms": self.runtime_ms}


def _run_config(task: TaskSpec, config: ShapeConfig, device: str,
                report: ValidationReport, strict_timing: bool, timed: bool = True) -> None:
    try:
        with torch.device(device):  # meta: tensors are never materialised
            model, inputs = make_reference(task, config.overrides, seed=0, device=device)
        if timed and config.kind == "public" and device != "meta":
            runtime_ms = measure_runtime_ms(model, inputs, device)
            report.runtime_ms[config.name] = round(runtime_ms, 3)
            _check_band(runtime_ms, config.name, report, strict_timing)
        else:
            with torch.no_grad():
                model(*inputs)
    except NotImplementedError as error:
        if device != "meta":
            _record_crash(config, error, report)
            return
        # A data-dependent op (nonzero, masked_select, ...) has no meta kernel: the shapes
        # can only be checked by running the configuration for real, on the CPU, untimed.
        report.problems.append(ValidationProblem(
            f"meta:unsupported[{config.name}]",
            f"{type(error).__name__} on meta; checked on cpu instead", "warning"))
        _run_config(task, config, "cpu", report, strict_timing, timed=False)
    except Exception as error:  # any failure of a configuration is the task's problem
        _record_crash(config, error, report)


def _record_crash(config: ShapeConfig, error: Exception, report: ValidationReport) -> None:
    cause = error.cause if isinstance(error, TaskError) else f"{type(error).__name__}: {error}"
    report.problems.append(ValidationProblem(f"config:crash[{config.name}]", cause))


def _check_band(runtime_ms: float, name: str, report: ValidationReport,
                strict_timing: bool) -> None:
    low, high = RUNTIME_BAND_MS[report.profile]
    if not low <= runtime_ms <= high:
        report.problems.append(ValidationProblem(
            f"timing:out_of_band[{name}]",
            f"eager {runtime_ms:.2f} ms outside [{low:g}, {high:g}] ms",
            "error" if strict_timing else "warning"))


def _degeneracy_problems(task: TaskSpec, overrides: dict[str, Any]) -> list[ValidationProblem]:
    probe = checks.make_probe(task, overrides, seed=0)
    problems = checks.check_output_values(probe)
    if problems:  # NaN or zero output: the remaining checks would only echo it
        return problems
    reseeded = checks.make_probe(task, overrides, seed=12345)
    problems += checks.check_constant_output(probe, reseeded)
    problems += checks.check_inputs_signed(probe)
    problems += checks.check_inputs_used(probe)
    problems += checks.check_weights_used(probe)
    problems += checks.check_redundant_ops(probe)
    return problems


def _profile_device(profile: str) -> str:
    if profile == "cpu":
        return "cpu"
    return "cuda" if torch.cuda.is_available() else "meta"


def validate_task(task: TaskSpec, profile: str = "cpu", strict_timing: bool = False,
                  timed: bool = True) -> ValidationReport:
    """Validate ``task`` for ``profile``; never raises for a bad task, reports instead.

    On the gpu profile without a CUDA device, configurations are only shape-checked on the
    ``meta`` device and timing is skipped; degeneracy checks always run on CPU, on the
    first cpu configuration (the file's own constants when it has none). ``timed=False``
    runs every configuration once without measuring its eager runtime (no band check:
    what the band says depends on the machine, not on the task's correctness).
    """
    report = ValidationReport(task.id, profile)
    device = _profile_device(profile)
    if device == "meta":
        report.problems.append(ValidationProblem(
            "timing:skipped", "no CUDA device: gpu configurations shape-checked on meta",
            "warning"))
    for config in shape_configs(task, profile, VALIDATE_HIDDEN_SEED):
        _run_config(task, config, device, report, strict_timing, timed=timed)
    if any(p.code.startswith("config:") for p in report.problems):
        return report
    try:
        report.problems += _degeneracy_problems(task, public_configs(task, "cpu")[0])
    except Exception as error:  # noqa: BLE001 - a check that cannot run is a finding
        report.problems.append(ValidationProblem(
            "degenerate:check_failed", f"{type(error).__name__}: {error}"))
    return report
