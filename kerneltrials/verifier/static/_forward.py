"""Static checks on what ``ModelNew.forward`` does: kernels on every path, torch compute.

``Program`` finds the extensions (names bound to ``load_inline(...)`` or to a function
that calls it), the kernel functions (their attributes) and the code reachable from
``forward`` (methods, module functions, submodules defined in the file). Then:

- every path through ``forward`` must call a kernel (``static:kernel_not_on_every_path``;
  ``static:kernel_never_called`` when no path does), and
- under ``strict``, no PyTorch compute may appear in reachable code, including through
  aliases, ``getattr`` and tensor methods (``static:torch_compute_in_forward``).

The runtime guard (``worker/_guards``) is the authority; this catches most cases in milliseconds.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from kerneltrials.verifier.static import _names as names
from kerneltrials.verifier.static._names import Finding
from kerneltrials.verifier.static._python import Resolver

_FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
OK, BAD, FALLS = "ok", "bad", "falls"  # a path called a kernel / returned without / goes on


class Program:
    """The candidate's functions and classes, and which of its names are kernels."""

    def __init__(self, tree: ast.Module, resolver: Resolver) -> None:
        self.resolver = resolver
        self.functions = {n.name: n for n in tree.body if isinstance(n, _FunctionNode)}
        self.classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
        self.builders = {name for name, fn in self.functions.items()
                         if any(self.is_load_inline(c) for c in ast.walk(fn))}
        self.extensions: set[str] = set()
        self.ext_attrs: set[str] = set()
        self.kernel_names: set[str] = set()
        self.kernel_attrs: set[str] = set()
        self.submodules: dict[str, str] = {}  # self.X -> class defined in the file
        self.torch_modules: dict[str, str] = {}  # self.X -> torch.nn class that computes
        for _ in range(3):  # bindings of bindings, in any order
            for node in ast.walk(tree):
                if isinstance(node, ast.Assign):
                    self._bind(node)
        self._memo: dict[int, bool] = {}

    def is_load_inline(self, node: ast.AST) -> bool:
        if not isinstance(node, ast.Call):
            return False
        qualname = self.resolver.qualname(node.func) or ""
        attr = node.func.attr if isinstance(node.func, ast.Attribute) else ""
        return qualname.endswith("cpp_extension.load_inline") or attr == "load_inline"

    def is_extension(self, node: ast.AST) -> bool:
        if self.is_load_inline(node):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            return node.func.id in self.builders
        if isinstance(node, ast.Name):
            return node.id in self.extensions
        return isinstance(node, ast.Attribute) and node.attr in self.ext_attrs and _is_self(node.value)

    def _bind(self, node: ast.Assign) -> None:
        value = node.value
        is_ext = self.is_extension(value)
        is_kernel = isinstance(value, ast.Attribute) and self.is_extension(value.value)
        qualname = self.resolver.qualname(value.func) if isinstance(value, ast.Call) else None
        for target in node.targets:
            name = target.id if isinstance(target, ast.Name) else (
                target.attr if isinstance(target, ast.Attribute) else None)
            if name is None:
                continue
            attr = isinstance(target, ast.Attribute)
            if is_ext:
                (self.ext_attrs if attr else self.extensions).add(name)
            elif is_kernel:
                (self.kernel_attrs if attr else self.kernel_names).add(name)
            elif attr and isinstance(value, ast.Call):
                self._bind_submodule(name, value, qualname)

    def _bind_submodule(self, name: str, call: ast.Call, qualname: str | None) -> None:
        if isinstance(call.func, ast.Name) and call.func.id in self.classes:
            self.submodules[name] = call.func.id
        elif qualname and _is_computing_nn_class(qualname, call, self.resolver):
            self.torch_modules[name] = qualname

    def is_kernel_call(self, call: ast.Call) -> bool:
        function = call.func
        if isinstance(function, ast.Attribute):
            if self.is_extension(function.value):
                return True
            return function.attr in self.kernel_attrs and _is_self(function.value)
        return isinstance(function, ast.Name) and function.id in self.kernel_names

    def targets(self, call: ast.Call, owner: ast.ClassDef | None) -> Iterator[tuple[_FunctionNode, ast.ClassDef | None]]:
        """Functions of the file that ``call`` may run (helpers, methods, submodules)."""
        function = call.func
        if isinstance(function, ast.Name) and function.id in self.functions:
            yield self.functions[function.id], None
        elif isinstance(function, ast.Attribute):
            if _is_self(function.value) and owner is not None:
                method = self.method(owner, function.attr)
                if method is not None:
                    yield method, owner
                if function.attr in self.submodules:
                    cls = self.classes[self.submodules[function.attr]]
                    forward = self.method(cls, "forward")
                    if forward is not None:
                        yield forward, cls
            elif isinstance(function.value, ast.Name) and function.value.id in self.classes:
                cls = self.classes[function.value.id]
                method = self.method(cls, "forward" if function.attr == "apply" else function.attr)
                if method is not None:
                    yield method, cls

    def method(self, cls: ast.ClassDef, name: str) -> _FunctionNode | None:
        for node in cls.body:
            if isinstance(node, _FunctionNode) and node.name == name:
                return node
        for base in cls.bases:  # base classes defined in the file
            if isinstance(base, ast.Name) and base.id in self.classes and base.id != cls.name:
                found = self.method(self.classes[base.id], name)
                if found is not None:
                    return found
        return None

    def always_calls(self, function: _FunctionNode, owner: ast.ClassDef | None) -> bool:
        """Does every path through ``function`` call a kernel? (memoised; recursion: no)"""
        key = id(function)
        if key not in self._memo:
            self._memo[key] = False
            self._memo[key] = self.flow(function.body, owner) == OK
        return self._memo[key]

    def expression_calls(self, node: ast.AST, owner: ast.ClassDef | None) -> bool:
        """Does evaluating ``node`` certainly call a kernel (directly or via a helper)?"""
        for call in _unconditional_calls(node):
            if self.is_kernel_call(call):
                return True
            if any(self.always_calls(fn, cls) for fn, cls in self.targets(call, owner)):
                return True
        return False

    def flow(self, body: list[ast.stmt], owner: ast.ClassDef | None) -> str:
        for statement in body:
            state = self.statement_flow(statement, owner)
            if state != FALLS:
                return state
        return FALLS

    def statement_flow(self, node: ast.stmt, owner: ast.ClassDef | None) -> str:
        if isinstance(node, ast.Return):
            return OK if node.value is not None and self.expression_calls(node.value, owner) else BAD
        if isinstance(node, ast.Raise):
            return OK  # a path that raises produces no output to check
        if isinstance(node, ast.If | ast.For | ast.While | ast.With | ast.Try | ast.Match):
            return self._compound_flow(node, owner)
        if isinstance(node, _FunctionNode | ast.ClassDef):
            return FALLS
        return OK if self.expression_calls(node, owner) else FALLS

    def _compound_flow(self, node: ast.stmt, owner: ast.ClassDef | None) -> str:
        head = {ast.If: "test", ast.While: "test", ast.For: "iter"}.get(type(node))
        if head and self.expression_calls(getattr(node, head), owner):
            return OK
        if isinstance(node, ast.With) and any(self.expression_calls(i, owner) for i in node.items):
            return OK
        if isinstance(node, ast.Match):
            branches = [case.body for case in node.cases]
        elif isinstance(node, ast.If):
            branches = [node.body, node.orelse]
        else:  # loops (lenient: the body is taken to run), with, try
            branches = [node.body]  # type: ignore[attr-defined]
        states = [self.flow(branch, owner) for branch in branches]
        if BAD in states:
            return BAD
        return OK if all(state == OK for state in states) else FALLS

    def reachable(self, start: _FunctionNode, owner: ast.ClassDef | None) -> list[tuple[_FunctionNode, ast.ClassDef | None]]:
        """``start`` and every function of the file it may call, transitively."""
        seen: dict[int, tuple[_FunctionNode, ast.ClassDef | None]] = {id(start): (start, owner)}
        work = [(start, owner)]
        while work:
            function, cls = work.pop()
            for call in (n for n in ast.walk(function) if isinstance(n, ast.Call)):
                for target in self.targets(call, cls):
                    if id(target[0]) not in seen:
                        seen[id(target[0])] = target
                        work.append(target)
        return list(seen.values())


def _is_self(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and node.id == "self"


def _is_computing_nn_class(qualname: str, call: ast.Call, resolver: Resolver) -> bool:
    parts = qualname.split(".")
    if not (qualname.startswith("torch.nn.") and len(parts) == 3 and parts[2][:1].isupper()):
        return False
    if parts[2] in {"Sequential", "ModuleList", "ModuleDict"}:
        return any(isinstance(arg, ast.Call) and _is_computing_nn_class(
            resolver.qualname(arg.func) or "", arg, resolver) for arg in ast.walk(call) if arg is not call)
    return parts[2] not in names.ALLOWED_NN_CLASSES


def _unconditional_calls(node: ast.AST) -> Iterator[ast.Call]:
    """Calls evaluated whenever ``node`` is (not in lambdas, ``a if c else b`` arms, or
    the short-circuited operands of ``and``/``or``)."""
    if isinstance(node, ast.Lambda | ast.FunctionDef | ast.ClassDef):
        return
    if isinstance(node, ast.IfExp):
        yield from _unconditional_calls(node.test)
        return
    if isinstance(node, ast.BoolOp):
        yield from _unconditional_calls(node.values[0])
        return
    if isinstance(node, ast.Call):
        yield node
    for child in ast.iter_child_nodes(node):
        yield from _unconditional_calls(child)


def is_torch_compute(qualname: str) -> bool:
    """Does a ``torch.…`` name compute (rather than allocate, view, or describe)?"""
    parts = qualname.split(".")
    if parts[0] != "torch" or len(parts) < 2:
        return False
    if parts[1] in {"utils", "cuda", "backends", "version", "autograd", "testing", "types"}:
        return False
    if parts[-1] in names.ALLOWED_TORCH or parts[-1] in names.ALLOWED_NN_CLASSES:
        return False
    if qualname in names.BACKEND_SETTERS or qualname in names.RNG_SETTERS:
        return False  # reported as backend_flag / rng_state under every policy
    if parts[1] == "nn" and len(parts) > 2 and parts[2] in {"init", "parameter", "Module"}:
        return False
    return not (len(parts) == 2 and parts[1][:1].isupper())  # torch.Tensor, torch.Size…


def check_forward(tree: ast.Module, resolver: Resolver) -> list[Finding]:
    """Kernel-on-every-path findings, plus strict-only torch-compute findings."""
    program = Program(tree, resolver)
    model = program.classes.get("ModelNew")
    forward = program.method(model, "forward") if model is not None else None
    if model is None or forward is None:
        return [] if model is None else [Finding("static:kernel_never_called", "ModelNew has no forward")]
    findings = []
    if program.flow(forward.body, model) != OK:
        reachable = program.reachable(forward, model)
        any_call = any(program.is_kernel_call(n) for fn, _ in reachable for n in ast.walk(fn)
                       if isinstance(n, ast.Call))
        code = "static:kernel_not_on_every_path" if any_call else "static:kernel_never_called"
        findings.append(Finding(code, "ModelNew.forward", forward.lineno))
    for function, _owner in program.reachable(forward, model):
        findings += _compute_findings(program, function)
    return findings


def _compute_findings(program: Program, function: _FunctionNode) -> list[Finding]:
    found: dict[str, Finding] = {}
    inner = {id(n.value) for n in ast.walk(function) if isinstance(n, ast.Attribute)}
    for node in ast.walk(function):
        detail = _compute_detail(program, node, inner)
        if detail and detail not in found:
            found[detail] = Finding("static:torch_compute_in_forward", detail,
                                    getattr(node, "lineno", 0), strict_only=True)
    return list(found.values())


def _compute_detail(program: Program, node: ast.AST, inner: set[int]) -> str | None:
    resolver = program.resolver
    if isinstance(node, ast.Name | ast.Attribute) and id(node) not in inner:
        qualname = resolver.qualname(node)
        if qualname and is_torch_compute(qualname):
            return qualname
        if isinstance(node, ast.Attribute) and _is_self(node.value):
            return program.torch_modules.get(node.attr)
    if isinstance(node, ast.Call):
        qualname = resolver.qualname(node)  # getattr(torch, "relu")
        if qualname and is_torch_compute(qualname):
            return qualname
        function = node.func
        if (isinstance(function, ast.Attribute) and function.attr in names.COMPUTE_METHODS
                and resolver.qualname(function) is None and not program.is_kernel_call(node)):
            return f".{function.attr}()"
    if isinstance(node, ast.BinOp | ast.AugAssign) and isinstance(node.op, ast.MatMult):
        return "@"
    return None
