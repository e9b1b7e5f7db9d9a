"""The ``grad`` op: forward and backward with a seeded upstream gradient.

For tasks with ``"backward": True`` both workers run the same code: floating inputs become
leaves that require grad, every floating output gets an upstream gradient drawn with
``torch.manual_seed(seed)`` in output order, and the gradients of every floating input and
parameter are saved for the parent to compare. On the candidate side the compute ops that
execute during backward are recorded, so the policy applies to backward as to forward.
"""

from __future__ import annotations

from typing import Any

import torch

from kerneltrials.verifier import protocol as wire
from kerneltrials.verifier.protocol import WorkerFault
from kerneltrials.verifier.worker._guards import ComputeRecorder, tensors_in
from kerneltrials.verifier.worker._state import WorkerState, format_exc, load_inputs


def _floating_outputs(value: Any) -> list[torch.Tensor]:
    return [t for t in tensors_in(value) if t.is_floating_point() and t.requires_grad]


def _leaf(value: Any) -> Any:
    if isinstance(value, torch.Tensor) and value.is_floating_point():
        return value.detach().clone().requires_grad_(True)
    return value


def _grad_of(value: Any) -> torch.Tensor | None:
    if isinstance(value, torch.Tensor) and value.grad is not None:
        return value.grad.detach().to("cpu")
    return None


def grad_op(state: WorkerState, request: wire.Grad) -> wire.GradDone:
    """Save ``{"input_grads": [...], "param_grads": {name: grad}}`` to ``path``."""
    config = state.configs[request.config]
    leaves = [_leaf(x) for x in load_inputs(state, request.inputs_path)]
    config.model.zero_grad(set_to_none=True)
    recorder = ComputeRecorder()
    kind = "candidate_exception" if state.role == "candidate" else "task_error"
    try:
        with torch.enable_grad():
            outputs = _floating_outputs(config.model(*leaves))
            if not outputs:
                raise WorkerFault(kind, "no output requires grad: backward cannot run")
            torch.manual_seed(request.seed)
            upstream = [torch.randn_like(output) for output in outputs]
            with recorder:
                torch.autograd.backward(outputs, upstream)
    except WorkerFault:
        raise
    except Exception as error:
        raise WorkerFault(kind, f"backward failed: {type(error).__name__}: {error}",
                          format_exc()) from error
    grads = {"input_grads": [_grad_of(leaf) for leaf in leaves],
             "param_grads": {name: _grad_of(p) for name, p in config.model.named_parameters()}}
    torch.save(grads, request.path)
    return wire.GradDone(backward_ops=sorted(recorder.ops))
