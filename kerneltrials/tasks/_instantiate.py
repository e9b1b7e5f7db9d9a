"""Run a task file: execute it under a configuration and build its reference model.

Seeding (the verifier reproduces it to give ``ModelNew`` the same weights):

* weights: ``torch.manual_seed(seed)`` immediately before ``Model(*get_init_inputs())``
  (``get_init_inputs()`` itself is called *before* seeding, so random init arguments
  do not shift the weight stream);
* inputs: ``torch.manual_seed(seed + 1)`` immediately before ``get_inputs()``.

Floating-point parameters, buffers and inputs are then cast to the task's dtype and
moved to ``device``; integer tensors (indices, targets) keep their dtype. The model is
put in ``eval()`` mode.
"""

from __future__ import annotations

import hashlib
import sys
import types
from typing import Any

import torch

from kerneltrials.tasks._overrides import apply_config
from kerneltrials.tasks._spec import TaskError, TaskSpec

_DTYPES = {"float32": torch.float32, "float64": torch.float64,
           "bfloat16": torch.bfloat16, "float16": torch.float16}


def torch_dtype(task: TaskSpec) -> torch.dtype:
    """The ``torch.dtype`` named by the task's ``dtype``."""
    return _DTYPES[task.dtype]


def load_task_module(task: TaskSpec, overrides: dict[str, Any] | None = None) -> types.ModuleType:
    """Execute the task source with ``overrides`` applied, as a fresh module.

    The module is registered in ``sys.modules`` only while it executes (dataclasses and
    pickling look their module up there), so loading never leaks global state.

    Raises:
        TaskError: the source fails to execute (the cause names the exception).
    """
    source = apply_config(task.source, dict(overrides or {}))
    digest = hashlib.sha256(f"{task.id}\0{source}".encode()).hexdigest()[:16]
    module = types.ModuleType(f"kt_task_{digest}")
    module.__file__ = task.path
    sys.modules[module.__name__] = module
    try:
        exec(compile(source, task.path, "exec"), module.__dict__)
    except Exception as error:  # a task file may raise anything; report it as unusable
        raise TaskError(task.path, f"executing the task failed: {type(error).__name__}: {error}"
                                   f"{_extra_hint(error)}") from error
    finally:
        sys.modules.pop(module.__name__, None)
    return module


#: Packages that task files of a known collection import, and the extra that installs them.
EXTRA_FOR_MODULE = {"transformers": "kernelbench", "einops": "kernelbench"}


def _extra_hint(error: Exception) -> str:
    """How to install what a task file failed to import, when an extra provides it."""
    if not isinstance(error, ModuleNotFoundError) or not error.name:
        return ""
    extra = EXTRA_FOR_MODULE.get(error.name.split(".")[0])
    if extra is None:
        return ""
    return (f" (KernelBench's level-4 and Mamba2 files need it: "
            f"pip install 'kerneltrials[{extra}]')")


def cast_value(value: Any, dtype: torch.dtype, device: str | torch.device) -> Any:
    """Cast floating tensors to ``dtype`` and move every tensor to ``device``."""
    if isinstance(value, torch.Tensor):
        if value.is_floating_point():
            return value.to(device=device, dtype=dtype)
        return value.to(device=device)
    if isinstance(value, list | tuple):
        return type(value)(cast_value(item, dtype, device) for item in value)
    return value


def make_model(module: types.ModuleType, task: TaskSpec, seed: int,
               device: str | torch.device = "cpu", cls_name: str = "Model") -> torch.nn.Module:
    """``cls_name(*get_init_inputs())`` built right after ``torch.manual_seed(seed)``."""
    init_inputs = list(module.get_init_inputs())
    torch.manual_seed(seed)
    model = getattr(module, cls_name)(*init_inputs)
    dtype = torch_dtype(task)
    for tensor in list(model.parameters()) + list(model.buffers()):
        if tensor.is_floating_point() and tensor.dtype != dtype:
            tensor.data = tensor.data.to(dtype)
    # eval(): dropout off and norms on running statistics, so outputs are deterministic.
    return model.to(device=device).eval()


def make_inputs(module: types.ModuleType, task: TaskSpec, seed: int,
                device: str | torch.device = "cpu", *, signed: bool = False) -> list[Any]:
    """``get_inputs()`` drawn right after ``torch.manual_seed(seed + 1)``, cast and moved.

    ``signed``: each floating input that ``get_inputs`` drew all >= 0 gets every element's
    sign drawn at random (from the same generator, so still a function of ``seed``): its
    magnitudes stay the file's, its values now reach below zero.
    """
    torch.manual_seed(seed + 1)
    inputs = list(module.get_inputs())
    if signed:
        inputs = [_with_random_signs(value) for value in inputs]
    return [cast_value(value, torch_dtype(task), device) for value in inputs]


def _with_random_signs(value: Any) -> Any:
    if not (isinstance(value, torch.Tensor) and value.is_floating_point() and value.numel()
            and bool((value >= 0).all())):
        return value
    signs = torch.randint(0, 2, value.shape, dtype=torch.int8, device=value.device)
    return torch.where(signs.bool(), value, -value)


def make_reference(task: TaskSpec, overrides: dict[str, Any] | None, seed: int, *,
                   device: str | torch.device = "cpu") -> tuple[torch.nn.Module, list[Any]]:
    """The task's ``Model`` and inputs under ``overrides``, deterministic in ``seed``.

    Returns:
        ``(model, inputs)``: the model in eval mode on ``device`` and its input list.

    Raises:
        TaskError: the file fails to execute, or building the model or inputs fails.
    """
    module = load_task_module(task, overrides)
    try:
        model = make_model(module, task, seed, device)
        inputs = make_inputs(module, task, seed, device)
    except Exception as error:
        raise TaskError(task.path, f"building the model or inputs failed: "
                                   f"{type(error).__name__}: {error}") from error
    return model, inputs
