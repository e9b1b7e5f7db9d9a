"""The operations a worker performs, one function per request ``op``.

Each returns a JSON-able dict; a :class:`WorkerFault` carries a failure kind the parent
maps to a status. Tensors are written to and read from files named by the parent.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from kerneltrials.tasks import parse_task_source
from kerneltrials.tasks._instantiate import load_task_module, make_inputs, make_model
from kerneltrials.tasks._spec import TaskError, TaskSpec
from kerneltrials.verifier._build import BuildArtifact, BuildRequest
from kerneltrials.verifier._faults import WorkerFault
from kerneltrials.verifier._timing import DeviceOps, make_device_ops, use_all_cores

#: Inputs kept per configuration for timing; each timed call clones one of them.
TIMING_POOL_SIZE = 3
TIMING_SEED_BASE = 1_000_003


@dataclass
class ConfigState:
    module: Any
    model: torch.nn.Module
    pool: list[list[Any]]
    compiled: Any = None


@dataclass
class WorkerState:
    role: str
    task: TaskSpec | None = None
    device: str = "cpu"
    candidate: Any = None
    configs: dict[str, ConfigState] = field(default_factory=dict)
    ops: DeviceOps | None = None
    tracker: Any = None  # _guards.KernelTracker of the candidate's extensions
    integrity: dict[str, Any] = field(default_factory=dict)  # snapshot before import
    threads: Any = None  # _integrity.ThreadWatch
    output_bytes: int = 0  # size of the last output: the freed block to poison


def warm_up(role: str) -> None:
    """Load what the run ops would load on first use, before the worker reports ready.

    The first Python dispatch mode pulls in torch's symbolic stack (sympy, dynamo: about a
    second here); the worker is started while the candidate builds, so paying it now
    overlaps the compiler instead of delaying the first correctness call. Only harness
    code runs here: the candidate's integrity snapshot is taken later.
    """
    if role in ("collect", "compile"):  # no run ops in a build job
        return
    from kerneltrials.verifier._guards import ComputeRecorder
    from kerneltrials.verifier._integrity import load_watched_modules

    load_watched_modules()
    with ComputeRecorder():
        torch.ones(1).add(1)


def _format_exc() -> str:
    import traceback

    return traceback.format_exc(limit=12)


def _load_task(state: WorkerState, request: dict[str, Any]) -> dict[str, Any]:
    state.task = parse_task_source(request["source"], request["path"], request["task_id"],
                                   request["name"])
    state.device = "cuda" if request["backend"] == "cuda" else "cpu"
    threads = use_all_cores()
    state.ops = make_device_ops(state.device)
    return {"threads": threads}


def _load_candidate(state: WorkerState, request: dict[str, Any]) -> dict[str, Any]:
    from kerneltrials.verifier._guards import KernelTracker
    from kerneltrials.verifier._integrity import ThreadWatch, integrity_changes, integrity_snapshot
    from kerneltrials.verifier._intercept import import_with_artifacts

    if state.role != "candidate" or state.ops is None:
        raise WorkerFault("protocol", "only a candidate worker loads candidates, after load_task")
    artifacts = [(BuildRequest.from_dict(item["request"]), BuildArtifact.from_dict(item["artifact"]))
                 for item in request["artifacts"]]
    state.tracker = KernelTracker(state.ops.synchronize)
    state.integrity = integrity_snapshot()  # before any candidate code runs
    try:
        module = import_with_artifacts(Path(request["candidate"]), request["backend"], artifacts,
                                       wrap=state.tracker.wrap_module)
    except Exception as error:
        raise WorkerFault("import_error", f"{type(error).__name__}: {error}", _format_exc()) from error
    if not isinstance(getattr(module, "ModelNew", None), type):
        raise WorkerFault("no_model_new", "the candidate defines no class ModelNew")
    state.candidate = module
    state.threads = ThreadWatch(pool_allowance=torch.get_num_threads() + 1)
    return {"integrity": integrity_changes(state.integrity, integrity_snapshot())}


def _copy_weights(reference: torch.nn.Module, candidate: torch.nn.Module) -> bool:
    """Load the reference's weights when keys and shapes match (as KernelBench does)."""
    ref_state, new_state = reference.state_dict(), candidate.state_dict()
    if set(ref_state) != set(new_state) or not ref_state:
        return False
    if any(ref_state[key].shape != new_state[key].shape for key in ref_state):
        return False
    candidate.load_state_dict(ref_state)
    return True


def _setup(state: WorkerState, request: dict[str, Any]) -> dict[str, Any]:
    assert state.task is not None
    name, overrides, seed = request["config"], request["overrides"], int(request["init_seed"])
    try:
        module = load_task_module(state.task, overrides)
        model = make_model(module, state.task, seed, state.device)
        pool = [make_inputs(module, state.task, TIMING_SEED_BASE + i, state.device)
                for i in range(TIMING_POOL_SIZE)]
    except TaskError as error:
        raise WorkerFault("task_error", error.cause) from error
    except Exception as error:
        raise WorkerFault("task_error", f"{type(error).__name__}: {error}", _format_exc()) from error
    weights_copied = False
    if state.role == "candidate":
        reference = model
        try:
            module.ModelNew = state.candidate.ModelNew  # type: ignore[attr-defined]
            model = make_model(module, state.task, seed, state.device, cls_name="ModelNew")
        except Exception as error:
            raise WorkerFault("candidate_exception", f"constructing ModelNew failed: "
                              f"{type(error).__name__}: {error}", _format_exc()) from error
        weights_copied = _copy_weights(reference, model)
    state.configs[name] = ConfigState(module=module, model=model, pool=pool)
    return {"weights_copied": weights_copied}


def _inputs(state: WorkerState, request: dict[str, Any]) -> dict[str, Any]:
    assert state.task is not None and state.role == "reference"
    config = state.configs[request["config"]]
    inputs = make_inputs(config.module, state.task, int(request["seed"]), state.device)
    torch.save([_to_cpu(x) for x in inputs], request["path"])
    return {"count": len(inputs)}


def _to_cpu(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.detach().to("cpu")
    if isinstance(value, list | tuple):
        return type(value)(_to_cpu(item) for item in value)
    return value


def _load_inputs(state: WorkerState, path: str) -> list[Any]:
    loaded = torch.load(path, weights_only=True)
    return [x.to(state.device) if isinstance(x, torch.Tensor) else x for x in loaded]


def _reference(state: WorkerState, request: dict[str, Any]) -> dict[str, Any]:
    from kerneltrials.verifier._guards import ComputeRecorder

    config = state.configs[request["config"]]
    inputs = _load_inputs(state, request["inputs_path"])
    recorder = ComputeRecorder()  # the reference's compute ops: the mixed policy's yardstick
    output = _reference_call(config, inputs, recorder)
    torch.save(_to_cpu(output), request["path"])
    return {"ops": sorted(recorder.ops)}


def _reference_call(config: ConfigState, inputs: list[Any], recorder: Any = None) -> Any:
    with torch.no_grad():
        try:
            if recorder is None:
                return config.model(*inputs)
            with recorder:
                return config.model(*inputs)
        except Exception as error:
            raise WorkerFault("task_error", f"the reference crashed: {type(error).__name__}: "
                              f"{error}", _format_exc()) from error


def _pool_reference(state: WorkerState, request: dict[str, Any]) -> dict[str, Any]:
    """Reference outputs of the timing pool: spot checks of timed calls compare with them."""
    if state.role != "reference":
        raise WorkerFault("protocol", "only the reference worker computes reference outputs")
    config = state.configs[request["config"]]
    outputs = [_to_cpu(_reference_call(config, _clone_all(inputs))) for inputs in config.pool]
    torch.save(outputs, request["path"])
    return {"count": len(outputs)}


def _clone_all(inputs: list[Any]) -> list[Any]:
    return [x.clone() if isinstance(x, torch.Tensor) else x for x in inputs]


def _exit(state: WorkerState, request: dict[str, Any]) -> dict[str, Any]:
    return {}


HANDLERS: dict[str, Callable[[WorkerState, dict[str, Any]], dict[str, Any]]] = {
    "load_task": _load_task,
    "load_candidate": _load_candidate,
    "setup": _setup,
    "inputs": _inputs,
    "reference": _reference,
    "pool_reference": _pool_reference,
    "exit": _exit,
}

# The guarded run and timing ops live in _worker_run (they import from this module).
from kerneltrials.verifier._worker_run import run_op, time_op  # noqa: E402

HANDLERS["run"] = run_op
HANDLERS["time"] = time_op

from kerneltrials.verifier._worker_profile import profile_op  # noqa: E402

HANDLERS["profile"] = profile_op

from kerneltrials.verifier._worker_backward import grad_op  # noqa: E402

HANDLERS["grad"] = grad_op

from kerneltrials.verifier._worker_build import collect_op, compile_op  # noqa: E402

HANDLERS["collect"] = collect_op
HANDLERS["compile"] = compile_op
