"""Static checks on a candidate's Python, module-wide: imports, calls, attributes, classes.

AST only, never regex, and no torch import (``check --static-only`` screens thousands of
files). Names are resolved through imports, assignments and ``getattr(x, "const")``, so
``import torch as T; T.relu``, ``mm = torch.matmul`` and ``getattr(torch, "relu")`` all
resolve to the same qualified name. See docs/design/anticheat.md.
"""

from __future__ import annotations

import ast

from kerneltrials.verifier.static import _names as names
from kerneltrials.verifier.static._names import Finding


class Resolver:
    """Qualified names (``torch.nn.functional.relu``) of expressions, through aliases."""

    def __init__(self, tree: ast.Module) -> None:
        self.aliases: dict[str, str] = {}
        self.defined: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    local = alias.asname or alias.name.split(".")[0]
                    self.aliases[local] = alias.name if alias.asname else local
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    self.aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                self.defined.add(node.name)
        self._collect_assignments(tree)

    def _collect_assignments(self, tree: ast.Module) -> None:
        # Two passes so that chains (a = torch; b = a.relu) resolve in any order.
        for _ in range(2):
            for node in ast.walk(tree):
                if isinstance(node, ast.Assign | ast.AnnAssign | ast.NamedExpr):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    value = self.qualname(node.value) if node.value is not None else None
                    for target in targets:
                        if isinstance(target, ast.Name):
                            self.defined.add(target.id)
                            if value:
                                self.aliases[target.id] = value

    def qualname(self, node: ast.AST) -> str | None:
        """``torch.relu`` for ``torch.relu``, ``T.relu``, ``getattr(torch, "relu")``…"""
        if isinstance(node, ast.Name):
            return self.aliases.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self.qualname(node.value)
            return f"{base}.{node.attr}" if base else None
        if isinstance(node, ast.Call) and _is_builtin_call(node, "getattr") and len(node.args) >= 2:
            attribute = node.args[1]
            base = self.qualname(node.args[0])
            if base and isinstance(attribute, ast.Constant) and isinstance(attribute.value, str):
                return f"{base}.{attribute.value}"
        return None


def _is_builtin_call(node: ast.Call, name: str) -> bool:
    return isinstance(node.func, ast.Name) and node.func.id == name


def _module_finding(module: str, line: int) -> Finding | None:
    root = module.split(".")[0]
    if module in names.THREAD_MODULES or root in names.THREAD_MODULES:
        return Finding("static:threads", module, line)
    if root == "kerneltrials":
        return Finding("static:imports_harness", module, line)
    if root in names.NUMERICAL_MODULES:
        return Finding("static:forbidden_module", root, line)
    if root.lower() in names.REFERENCE_NAMES:
        return Finding("static:imports_reference", module, line)
    if root not in names.ALLOWED_MODULES:
        return Finding("static:forbidden_module", root, line)
    return _qualname_finding(module, line)


def _escape_finding(qualname: str, parts: list[str], line: int) -> Finding | None:
    """Escape hatches, wherever the name is used: ``torch.load``, ``torch.hub``,
    ``x.from_file``, and modules reached through others (``torch.os``, ``typing.sys``)."""
    for api, code in names.ESCAPE_APIS.items():
        if qualname == api or qualname.startswith(api + "."):
            return Finding(f"static:{code}", qualname, line)
    if parts[-1] in names.ESCAPE_ATTRIBUTES:
        return Finding(f"static:{names.ESCAPE_ATTRIBUTES[parts[-1]]}", qualname, line)
    for index, part in enumerate(parts[1:], 1):
        if part in names.REEXPORTED_MODULES and not (parts[0] == "torch" and index == 1
                                                     and part in _TORCH_OWN_MODULES):
            return Finding("static:forbidden_module", f"{part} (as {qualname})", line)
    return None


_TORCH_OWN_MODULES = {"types", "signal", "multiprocessing"}  # torch.types is not `types`
_ENVIRONMENT_WRITES = {"update", "setdefault", "pop", "popitem", "clear"}


def _qualname_finding(qualname: str, line: int) -> Finding | None:
    """Findings that depend only on what a name resolves to (reads included)."""
    parts = qualname.split(".")
    escape = _escape_finding(qualname, parts, line)
    if escape is not None:
        return escape
    if parts[0] == "torch":
        if any(p.startswith("_") and not (p.startswith("__") and p.endswith("__")) for p in parts):
            return Finding("static:private_torch_api", qualname, line)
        if any(qualname == api or qualname.startswith(api + ".") for api in names.FOREIGN_CODE):
            return Finding("static:foreign_code", qualname, line)
        if qualname in names.STREAM_APIS:
            return Finding("static:side_stream", qualname, line)
        if qualname.startswith(("torch.multiprocessing", "torch.distributed")):
            return Finding("static:threads", qualname, line)
        if qualname.startswith("torch.overrides") or qualname.endswith("TorchDispatchMode"):
            return Finding("static:tensor_subclass", qualname, line)
    if parts[0] == "os" and len(parts) > 1 and parts[1] not in names.ALLOWED_OS:
        return Finding("static:forbidden_call", qualname, line)
    if qualname == "contextlib.suppress":
        return Finding("static:try_except_fallback", qualname, line)
    return None


class ModuleChecker(ast.NodeVisitor):
    """Walks the whole module once and collects policy-independent findings."""

    def __init__(self, resolver: Resolver, tree: ast.Module) -> None:
        self.resolver = resolver
        self.findings: list[Finding] = []
        # Inner links of attribute chains: ``torch._C`` in ``torch._C._nn.x`` is reported once.
        self.inner = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
        self.called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}

    def add(self, finding: Finding | None) -> None:
        if finding and not any(f.reason() == finding.reason() for f in self.findings):
            self.findings.append(finding)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.add(_module_finding(alias.name, node.lineno))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level or not node.module:
            self.add(Finding("static:imports_reference", "relative import", node.lineno))
            return
        self.add(_module_finding(node.module, node.lineno))
        for alias in node.names:
            if alias.name in {"Model", "get_inputs", "get_init_inputs"}:
                self.add(Finding("static:imports_reference", alias.name, node.lineno))
            elif alias.name == "*":
                self.add(Finding("static:forbidden_module", f"{node.module}.*", node.lineno))
            else:
                self.add(_qualname_finding(f"{node.module}.{alias.name}", node.lineno))

    def visit_Name(self, node: ast.Name) -> None:
        if node.id in names.FORBIDDEN_BUILTINS and node.id not in self.resolver.defined:
            # a value too: ``run = eval`` then ``run(text)``
            self.add(Finding(f"static:{names.FORBIDDEN_BUILTINS[node.id]}", node.id, node.lineno))
        if (node.id in {"getattr", "setattr", "delattr"} and id(node) not in self.called
                and node.id not in self.resolver.defined):
            self.add(Finding("static:dynamic_attribute", f"{node.id} as a value", node.lineno))
        if node.id == "Model" and "Model" not in self.resolver.defined:
            self.add(Finding("static:imports_reference", "Model", node.lineno))
        elif node.id.startswith("__") and node.id not in names.ALLOWED_DUNDERS:
            self.add(Finding("static:dunder_access", node.id, node.lineno))
        elif isinstance(node.ctx, ast.Load) and node.id in self.resolver.aliases:
            self.add(_qualname_finding(self.resolver.aliases[node.id], node.lineno))

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr.startswith("__") and node.attr not in names.ALLOWED_DUNDERS:
            self.add(Finding("static:dunder_access", node.attr, node.lineno))
        if node.attr in names.STREAM_METHODS:
            self.add(Finding("static:side_stream", f".{node.attr}", node.lineno))
        if node.attr in names.ESCAPE_ATTRIBUTES:
            self.add(Finding(f"static:{names.ESCAPE_ATTRIBUTES[node.attr]}", f".{node.attr}",
                             node.lineno))
        qualname = self.resolver.qualname(node)
        if qualname and id(node) not in self.inner:
            self.add(_qualname_finding(qualname, node.lineno))
            if isinstance(node.ctx, ast.Store | ast.Del):
                self.add(_patch_finding(qualname, node.lineno))
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        function = node.func
        if isinstance(function, ast.Name) and function.id in names.FORBIDDEN_BUILTINS:
            if function.id not in self.resolver.defined:
                self.add(Finding(f"static:{names.FORBIDDEN_BUILTINS[function.id]}", function.id,
                                 node.lineno))
        if isinstance(function, ast.Name) and function.id in {"getattr", "setattr", "delattr",
                                                               "hasattr"}:
            self._check_attribute_builtin(node, function.id)
        qualname = self.resolver.qualname(function)
        if qualname in names.BACKEND_SETTERS:
            self.add(Finding("static:backend_flag", qualname.rsplit(".", 1)[-1], node.lineno))
        elif qualname in names.RNG_SETTERS:
            self.add(Finding("static:rng_state", qualname, node.lineno))
        elif qualname and qualname.startswith("torch.backends."):
            self.add(Finding("static:backend_flag", qualname.removeprefix("torch."), node.lineno))
        if isinstance(function, ast.Attribute) and function.attr == "numpy" and not qualname:
            self.add(Finding("static:forbidden_module", "numpy (Tensor.numpy)", node.lineno))
        if qualname and qualname.startswith("os.environ.") and qualname[11:] in _ENVIRONMENT_WRITES:
            key = node.args[0] if node.args and qualname.endswith("setdefault") else None
            self._check_environment(key, node.lineno, qualname)
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        if isinstance(node.ctx, ast.Store | ast.Del) and self.resolver.qualname(node.value) == "os.environ":
            self._check_environment(node.slice, node.lineno, "os.environ")
        self.generic_visit(node)

    def _check_environment(self, key: ast.AST | None, line: int, what: str) -> None:
        """Only the build's own variables may be set (not ``LD_PRELOAD``, ``CXX``…)."""
        name = key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else None
        if name not in names.ALLOWED_ENVIRONMENT:
            self.add(Finding("static:forbidden_call", f"{what}[{name or '…'}]", line))

    def _check_attribute_builtin(self, node: ast.Call, builtin: str) -> None:
        if len(node.args) < 2 or not (isinstance(node.args[1], ast.Constant)
                                      and isinstance(node.args[1].value, str)):
            self.add(Finding("static:dynamic_attribute", f"{builtin} with a computed name",
                             node.lineno))
            return
        if builtin in {"setattr", "delattr"}:
            target = self.resolver.qualname(node.args[0])
            if target:
                self.add(_patch_finding(f"{target}.{node.args[1].value}", node.lineno))

    def visit_Try(self, node: ast.Try) -> None:
        if node.handlers:
            self.add(Finding("static:try_except_fallback", "try/except", node.lineno))
        self.generic_visit(node)

    visit_TryStar = visit_Try  # type: ignore[assignment]

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self.add(Finding("static:threads", "async def", node.lineno))
        self.generic_visit(node)

    def visit_Await(self, node: ast.Await) -> None:
        self.add(Finding("static:threads", "await", node.lineno))
        self.generic_visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        if node.name in {"__torch_function__", "__torch_dispatch__"}:
            self.add(Finding("static:tensor_subclass", node.name, node.lineno))
        self.generic_visit(node)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for base in node.bases:
            qualname = self.resolver.qualname(base) or ""
            if isinstance(base, ast.Name) and base.id == "Model":
                self.add(Finding("static:subclasses_reference", f"class {node.name}(Model)",
                                 node.lineno))
            elif qualname.startswith("torch.") and qualname.endswith("Tensor"):
                self.add(Finding("static:tensor_subclass", f"class {node.name}({qualname})",
                                 node.lineno))
        self.generic_visit(node)


def _patch_finding(qualname: str, line: int) -> Finding | None:
    """Assigning to (or deleting) an attribute of an imported module or its classes."""
    if qualname.startswith("os.environ"):
        return None  # e.g. TORCH_CUDA_ARCH_LIST before load_inline
    if qualname.startswith("torch.backends."):
        return Finding("static:backend_flag", qualname.rsplit(".", 1)[-1], line)
    return Finding("static:patches_global", qualname, line)


def check_module(tree: ast.Module, resolver: Resolver) -> list[Finding]:
    """Policy-independent findings over the whole module."""
    checker = ModuleChecker(resolver, tree)
    checker.visit(tree)
    return checker.findings
