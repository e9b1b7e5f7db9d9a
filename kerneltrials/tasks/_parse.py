"""Read a task file's structure and ``TASK`` dict from its AST (never by importing it)."""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kerneltrials.tasks._spec import PROFILES, TaskError, TaskSpec

_TASK_KEYS = {
    "level", "tags", "dtype", "configs", "ranges", "multiple_of", "backward",
    "atol", "rtol", "policy", "description", "notes",
}
_DTYPES = {"float32", "float64", "bfloat16", "float16"}


def _module_constants(tree: ast.Module) -> dict[str, Any]:
    """Top-level ``NAME = <literal>`` assignments (shape parameters and the like), where a
    literal may also be integer arithmetic on numbers (KernelBench writes ``N = 2048 * 2``)."""
    constants: dict[str, Any] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and target.id != "TASK":
                try:
                    constants[target.id] = _literal(node.value)
                except ValueError:
                    continue
    return constants


_ARITHMETIC: dict[type[ast.operator], Callable[[int, int], int]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv, ast.Pow: operator.pow,
}


def _literal(node: ast.expr) -> Any:
    """A literal, or integer arithmetic over literal integers. Names stay out: a constant
    computed from another one (``C_out = C_in * 2``) must follow it when a configuration
    replaces the first, so it is no constant of its own."""
    if isinstance(node, ast.Tuple):
        return tuple(_literal(element) for element in node.elts)
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
        left, right = _literal(node.left), _literal(node.right)
        if not all(type(value) is int for value in (left, right)):
            raise ValueError("arithmetic on non-integers")
        if isinstance(node.op, ast.Pow) and not 0 <= right <= 64:
            raise ValueError("an exponent out of range")
        if isinstance(node.op, ast.FloorDiv) and right == 0:
            raise ValueError("division by zero")
        return _ARITHMETIC[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        value = _literal(node.operand)
        if type(value) is not int:
            return ast.literal_eval(node)
        return -value
    return ast.literal_eval(node)


def _require_definitions(tree: ast.Module, path: str) -> None:
    classes = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    functions = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    missing = [name for name, present in (
        ("class Model", "Model" in classes),
        ("get_inputs()", "get_inputs" in functions),
        ("get_init_inputs()", "get_init_inputs" in functions),
    ) if not present]
    if missing:
        raise TaskError(path, f"missing {', '.join(missing)} (a task defines class Model, "
                              "get_inputs() and get_init_inputs())")


def _read_task_dict(tree: ast.Module, path: str) -> dict[str, Any] | None:
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id == "TASK"):
            try:
                value = ast.literal_eval(node.value)
            except ValueError as error:
                raise TaskError(path, f"TASK must be a literal dict ({error})") from None
            if not isinstance(value, dict):
                raise TaskError(path, "TASK must be a dict")
            return value
    return None


def _check_task_dict(task: dict[str, Any], constants: dict[str, Any], path: str) -> None:
    unknown = set(task) - _TASK_KEYS
    if unknown:
        raise TaskError(path, f"TASK has unknown keys {sorted(unknown)}; known: {sorted(_TASK_KEYS)}")
    if task.get("dtype", "float32") not in _DTYPES:
        raise TaskError(path, f"TASK dtype {task.get('dtype')!r} is not one of {sorted(_DTYPES)}")
    configs = task.get("configs", {})
    if not isinstance(configs, dict):
        raise TaskError(path, "TASK configs must map a profile (cpu/gpu) to a list of dicts")
    for profile, entries in configs.items():
        if profile not in PROFILES:
            raise TaskError(path, f"TASK configs has unknown profile {profile!r}; use {PROFILES}")
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            raise TaskError(path, f"TASK configs[{profile!r}] must be a list of dicts")
        for entry in entries:
            missing = set(entry) - set(constants)
            if missing:
                raise TaskError(path, f"TASK configs[{profile!r}] overrides {sorted(missing)}, "
                                      "which are not module-level constants")
    for name, bounds in task.get("ranges", {}).items():
        if not (isinstance(bounds, list | tuple) and len(bounds) == 2 and bounds[0] <= bounds[1]):
            raise TaskError(path, f"TASK ranges[{name!r}] must be [low, high]")


def parse_task_source(source: str, path: str, task_id: str, name: str) -> TaskSpec:
    """Build a :class:`TaskSpec` from a task file's text; raises :class:`TaskError`."""
    try:
        tree = ast.parse(source, filename=path)
    except SyntaxError as error:
        raise TaskError(path, f"syntax error at line {error.lineno}: {error.msg}") from None
    _require_definitions(tree, path)
    constants = _module_constants(tree)
    task = _read_task_dict(tree, path)
    if task is None:
        level = _level_from_id(task_id)
        return TaskSpec(id=task_id, name=name, path=path, source=source, level=level,
                        constants=constants)
    _check_task_dict(task, constants, path)
    return TaskSpec(
        id=task_id, name=name, path=path, source=source,
        level=task.get("level"), constants=constants,
        tags=tuple(task.get("tags", ())), dtype=task.get("dtype", "float32"),
        configs={k: list(v) for k, v in task.get("configs", {}).items()},
        ranges={k: list(v) for k, v in task.get("ranges", {}).items()},
        multiple_of=dict(task.get("multiple_of", {})), backward=bool(task.get("backward", False)),
        atol=task.get("atol"), rtol=task.get("rtol"), policy=task.get("policy"),
        has_task_dict=True, metadata=task,
    )


def _level_from_id(task_id: str) -> int | None:
    parts = task_id.split("/")
    for part in parts:
        if part.startswith("L") and part[1:].isdigit():
            return int(part[1:])
    return None


def read_task_file(path: Path, task_id: str) -> TaskSpec:
    try:
        source = path.read_text()
    except OSError as error:
        raise TaskError(str(path), f"cannot read: {error.strerror}") from None
    return parse_task_source(source, str(path), task_id, path.stem)
