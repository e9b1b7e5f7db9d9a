"""Checks that a task is not degenerate: a cheap output must not pass it.

Each check builds the reference on one configuration and perturbs one thing — an
input, a weight, one op of ``forward`` — and looks at whether the output moves. Codes
(``degenerate:...``) are listed in :mod:`kerneltrials.tasks._validate`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

import torch
import torch.fx

from kerneltrials.tasks._compare import changed_fraction, flatten_tensors, outputs_close
from kerneltrials.tasks._instantiate import load_task_module, make_inputs, make_model
from kerneltrials.tasks._spec import TaskSpec

#: An op whose removal changes less than this fraction of the output is reported (warning).
WEAK_OP_FRACTION = 0.001
#: Scalar operands at most this large are numerical-safety epsilons (``x + eps``).
EPSILON = 1e-3
#: Output magnitudes at most this many atols count as "near zero".
NEAR_ZERO_ATOLS = 10.0
# Methods/functions that are no-ops on values, so removing them proves nothing.
_VALUE_PRESERVING = {
    "contiguous", "clone", "detach", "float", "double", "half", "bfloat16", "to", "type",
    "type_as", "view", "view_as", "reshape", "reshape_as", "flatten", "squeeze", "unsqueeze",
    "expand", "expand_as", "size", "dim", "getitem", "getattr", "dropout", "identity",
}


@dataclass(frozen=True)
class ValidationProblem:
    """One finding: ``code`` like ``degenerate:ignores_input[1]``, a detail, a severity."""

    code: str
    detail: str
    severity: Literal["error", "warning"] = "error"


@dataclass
class Probe:
    """A built reference on one configuration, with its base output."""

    task: TaskSpec
    module: Any
    seed: int
    model: torch.nn.Module
    inputs: list[Any]
    output: Any

    @property
    def tolerance(self) -> tuple[float, float]:
        return self.task.tolerance()

    def run(self, model: Any = None, inputs: list[Any] | None = None) -> Any:
        with torch.no_grad():
            return (model or self.model)(*(self.inputs if inputs is None else inputs))

    def same(self, other: Any) -> bool:
        return outputs_close(other, self.output, *self.tolerance)


def make_probe(task: TaskSpec, overrides: dict[str, Any], seed: int) -> Probe:
    """Build the reference on CPU under ``overrides`` and compute its output."""
    module = load_task_module(task, overrides)
    model = make_model(module, task, seed)
    inputs = make_inputs(module, task, seed)
    with torch.no_grad():
        output = model(*inputs)
    return Probe(task, module, seed, model, inputs, output)


def _numeric(tensor: torch.Tensor) -> torch.Tensor:
    """A floating tensor as it is; an integer or bool one as float64 (abs/aminmax need it)."""
    return tensor if tensor.is_floating_point() else tensor.double()


def check_output_values(probe: Probe) -> list[ValidationProblem]:
    """Zero, near-zero or constant output (across elements and across a second seed)."""
    atol, _ = probe.tolerance
    tensors = [t.detach() for t in flatten_tensors(probe.output) if t.numel()]
    if not flatten_tensors(probe.output):
        return [ValidationProblem("degenerate:no_tensor_output", "forward returns no tensor")]
    # Per-tensor reductions in each tensor's own dtype, not a float64 concatenated copy
    # and a boolean-mask gather: a count of non-finite elements and the peak are enough.
    nonfinite = sum(int((~torch.isfinite(t)).sum()) for t in tensors if t.is_floating_point())
    if nonfinite:
        return [ValidationProblem("degenerate:nonfinite_output",
                                  f"{nonfinite} NaN/Inf output elements")]
    peak = max((_numeric(t).abs().max().double().item() for t in tensors), default=0.0)
    if peak <= NEAR_ZERO_ATOLS * atol:
        return [ValidationProblem("degenerate:near_zero_output",
                                  f"max |output| = {peak:.3g} <= {NEAR_ZERO_ATOLS:g} * atol")]
    return []


def check_constant_output(probe: Probe, reseeded: Probe) -> list[ValidationProblem]:
    """Constant output: one value across all elements and across two seeds."""
    atol, rtol = probe.tolerance
    tensors = [t.detach() for t in flatten_tensors(probe.output) + flatten_tensors(reseeded.output)
               if t.numel()]
    if not tensors:
        return []
    extremes = [torch.aminmax(_numeric(t)) for t in tensors]
    lows = [e.min.double().item() for e in extremes]
    highs = [e.max.double().item() for e in extremes]
    if any(math.isnan(v) for v in lows + highs):  # a NaN anywhere: no spread to speak of
        return []
    low, high = min(lows), max(highs)
    spread = high - low
    if spread <= atol + rtol * max(abs(low), abs(high)):
        return [ValidationProblem("degenerate:constant_output",
                                  f"every output element (two seeds) is within {spread:.3g} "
                                  "of one value")]
    return []


def check_inputs_signed(probe: Probe) -> list[ValidationProblem]:
    """Floating inputs must not all be non-negative (a ReLU would be a no-op on them)."""
    floats = [(i, x) for i, x in enumerate(probe.inputs)
              if isinstance(x, torch.Tensor) and x.is_floating_point()]
    nonneg = [i for i, x in floats if x.numel() and x.min().item() >= 0]
    problems = [ValidationProblem(f"inputs:nonnegative[{i}]", "input has no negative value",
                                  "warning") for i in nonneg]
    if floats and len(nonneg) == len(floats):
        problems.append(ValidationProblem("degenerate:nonnegative_inputs",
                                          "every floating input is non-negative"))
    return problems


def _replacement_input(probe: Probe, index: int, fresh: list[Any]) -> Any | None:
    """Input ``index`` drawn from another seed, or noised when the draw is deterministic."""
    original, candidate = probe.inputs[index], fresh[index]
    if not isinstance(original, torch.Tensor):
        return None
    if not torch.equal(candidate, original):
        return candidate
    if original.is_floating_point():
        scale = original.abs().mean().clamp_min(1.0)
        return original + 0.5 * scale * torch.randn_like(original)
    return None


def check_inputs_used(probe: Probe) -> list[ValidationProblem]:
    """Each tensor input, replaced by a fresh draw, must change the output."""
    fresh = make_inputs(probe.module, probe.task, probe.seed + 1000)
    problems = []
    for index in range(len(probe.inputs)):
        replacement = _replacement_input(probe, index, fresh)
        if replacement is None:
            continue
        inputs = list(probe.inputs)
        inputs[index] = replacement
        if probe.same(probe.run(inputs=inputs)):
            problems.append(ValidationProblem(
                f"degenerate:ignores_input[{index}]",
                "output unchanged when this input is redrawn"))
    return problems


def _perturbed(tensor: torch.Tensor) -> torch.Tensor:
    scale = tensor.abs().mean().item() or 1.0
    return tensor + 0.1 * scale * torch.randn_like(tensor)


def check_weights_used(probe: Probe) -> list[ValidationProblem]:
    """Each floating parameter/buffer, re-drawn (or perturbed), must change the output."""
    reseeded = dict(make_model(probe.module, probe.task, probe.seed + 7).state_dict())
    problems = []
    for name, tensor in probe.model.state_dict().items():
        if not tensor.is_floating_point() or tensor.numel() == 0:
            continue
        other = reseeded.get(name)
        if other is None or torch.equal(other, tensor):
            other = _perturbed(tensor)
        saved = tensor.clone()
        with torch.no_grad():
            tensor.copy_(other)
            unchanged = probe.same(probe.run())
            tensor.copy_(saved)
        if unchanged:
            problems.append(ValidationProblem(f"degenerate:ignores_weight[{name}]",
                                              "output unchanged when this weight changes"))
    return problems


def _op_name(node: torch.fx.Node) -> str:
    target = node.target
    return str(target) if isinstance(target, str) else getattr(target, "__name__", str(target))


def _is_epsilon_op(node: torch.fx.Node) -> bool:
    """``x + 1e-6``, ``clamp_min(x, 1e-12)``: needed for safety, invisible on test data."""
    scalars = [a for a in node.args if isinstance(a, int | float) and not isinstance(a, bool)]
    scalars += [v for v in node.kwargs.values()
                if isinstance(v, int | float) and not isinstance(v, bool)]
    tensors = [a for a in node.args if isinstance(a, torch.fx.Node)]
    return len(tensors) == 1 and bool(scalars) and all(0 < abs(s) <= EPSILON for s in scalars)


def _first_tensor_arg(node: torch.fx.Node) -> torch.fx.Node | None:
    return next((a for a in node.args if isinstance(a, torch.fx.Node)), None)


def _same_meta(a: torch.fx.Node, b: torch.fx.Node) -> bool:
    meta_a, meta_b = a.meta.get("tensor_meta"), b.meta.get("tensor_meta")
    if meta_a is None or meta_b is None or not hasattr(meta_a, "shape") \
            or not hasattr(meta_b, "shape"):  # tuples of tensors, scalars: not comparable
        return False
    return bool(meta_a.shape == meta_b.shape and meta_a.dtype == meta_b.dtype)


def _is_compute(node: torch.fx.Node) -> bool:
    return (node.op in ("call_function", "call_method", "call_module")
            and _op_name(node).lower() not in _VALUE_PRESERVING and not _is_epsilon_op(node)
            and _first_tensor_arg(node) is not None)


def _removal_candidates(graph_module: torch.fx.GraphModule) -> list[list[str]]:
    """Ops (``[name]``) and producer-consumer pairs (``[outer, inner]``) that can be cut out.

    A single op can go when its first tensor argument has its shape and dtype; a pair
    (``log(exp(x))``, ``x.t().t()``) when the inner op's input matches the outer's output.
    """
    candidates = []
    for node in graph_module.graph.nodes:
        if not _is_compute(node):
            continue
        first = _first_tensor_arg(node)
        assert first is not None
        if _same_meta(node, first):
            candidates.append([node.name])
        if _is_compute(first) and len(first.users) == 1:
            inner_input = _first_tensor_arg(first)
            if inner_input is not None and _same_meta(node, inner_input):
                candidates.append([node.name, first.name])
    return candidates


def _output_without(probe: Probe, names: list[str]) -> Any:
    """The output with the chain ``names`` (outermost first) replaced by its input."""
    graph_module = torch.fx.symbolic_trace(probe.model)  # a fresh copy of the graph
    by_name = {n.name: n for n in graph_module.graph.nodes}
    chain = [by_name[name] for name in names]
    replacement = _first_tensor_arg(chain[-1])
    chain[0].replace_all_uses_with(replacement)
    for node in chain:
        graph_module.graph.erase_node(node)
    graph_module.recompile()
    return probe.run(model=graph_module)


def trace_with_shapes(probe: Probe) -> torch.fx.GraphModule:
    """``symbolic_trace`` the model and record shapes on every node."""
    from torch.fx.passes.shape_prop import ShapeProp

    graph_module = torch.fx.symbolic_trace(probe.model)
    with torch.no_grad():
        ShapeProp(graph_module).propagate(*probe.inputs)
    return graph_module


def check_redundant_ops(probe: Probe) -> list[ValidationProblem]:
    """Each op of ``forward`` (and each cancelling pair) must matter to the output.

    An op, or a producer-consumer pair, replaced by its input: if the output stays within
    tolerance it is reported (``redundant_op[relu_1]``, ``redundant_op[log+exp]``). Ops
    whose removal changes fewer than ``WEAK_OP_FRACTION`` of the output elements are a
    warning (the inputs barely exercise them). Value-preserving ops (views, casts) and
    epsilon additions (``x + 1e-6``) are not tried. An untraceable model is a warning.
    """
    try:
        graph_module = trace_with_shapes(probe)
    except Exception as error:  # control flow, unsupported modules: skip, do not fail
        return [ValidationProblem("degenerate:untraceable",
                                  f"torch.fx cannot trace forward ({type(error).__name__}); "
                                  "redundant-op check skipped", "warning")]
    problems: list[ValidationProblem] = []
    flagged: set[str] = set()
    atol, rtol = probe.tolerance
    for names in _removal_candidates(graph_module):
        if flagged.intersection(names):
            continue  # a pair containing an op already reported adds nothing
        try:
            output = _output_without(probe, names)
        except Exception:  # removing it breaks the graph: the op is needed
            continue
        label = "+".join(names)
        if probe.same(output):
            flagged.update(names)
            problems.append(ValidationProblem(f"degenerate:redundant_op[{label}]",
                                              "output unchanged when this is removed"))
        elif len(names) == 1:
            fraction = changed_fraction(output, probe.output, atol, rtol)
            if fraction < WEAK_OP_FRACTION:
                problems.append(ValidationProblem(
                    f"degenerate:weak_op[{label}]",
                    f"removing this op changes only {fraction:.2%} of the output", "warning"))
    return problems
