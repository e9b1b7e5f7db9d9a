"""The generic registry: decorators, lazy built-ins, missing SDKs, third-party entry points.

Entry points are real: each test writes an installed distribution (a ``.dist-info`` folder
with ``entry_points.txt``) and its module into a folder on ``sys.path``, which is exactly
what ``pip install`` of a plugin leaves behind.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from kerneltrials._registry import (
    Builtin,
    MissingDependency,
    Registry,
    RegistryError,
    UnknownName,
)

REPO_ROOT = Path(__file__).resolve().parent.parent


def install_plugin(root: Path, dist: str, entry_points: str, modules: dict[str, str]) -> None:
    """A distribution ``dist`` with ``entry_points`` (INI text) and ``modules`` in ``root``."""
    info = root / f"{dist.replace('-', '_')}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(textwrap.dedent(entry_points))
    for name, source in modules.items():
        (root / f"{name}.py").write_text(textwrap.dedent(source))


def run_python(code: str, path: Path | None = None) -> subprocess.CompletedProcess[str]:
    env_path = f"{path}:{REPO_ROOT}" if path else str(REPO_ROOT)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=120, env={"PYTHONPATH": env_path, "PATH": "/usr/bin"})


def test_decorator_registers_and_unknown_lists_every_name() -> None:
    widgets: Registry[type] = Registry("widget", {"lazy": Builtin("kt_never_imported_h6")})

    @widgets.register("round")
    class Round:
        pass

    assert widgets.get("round") is Round
    assert widgets.names() == ["lazy", "round"] and "round" in widgets
    with pytest.raises(UnknownName, match=r"unknown widget 'square': choose one of lazy, round"):
        widgets.get("square")
    with pytest.raises(ValueError):  # the CLI reports a bad value as a ValueError
        widgets.get("square")


def test_builtin_is_imported_on_first_use_only(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    widgets: Registry[type] = Registry("widget")
    (tmp_path / "kt_lazy_widget_h6.py").write_text(
        f"from {__name__} import WIDGETS\n"
        "@WIDGETS.register('lazy')\n"
        "class Lazy:\n    pass\n")
    widgets.builtins["lazy"] = Builtin("kt_lazy_widget_h6")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys.modules[__name__], "WIDGETS", widgets, raising=False)
    assert "kt_lazy_widget_h6" not in sys.modules
    assert widgets.get("lazy").__name__ == "Lazy"
    assert "kt_lazy_widget_h6" in sys.modules
    monkeypatch.delitem(sys.modules, "kt_lazy_widget_h6")


def test_missing_sdk_names_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Found but failing to import (a broken install): caught from the ImportError itself.
    (tmp_path / "kt_broken_sdk_h6.py").write_text(
        "raise ImportError('cannot load it', name='kt_broken_sdk_h6')\n")
    (tmp_path / "kt_uses_sdk_h6.py").write_text("import kt_broken_sdk_h6\n")
    (tmp_path / "kt_uses_other_h6.py").write_text("import kt_absent_other_h6\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    widgets: Registry[type] = Registry("widget", {
        "absent": Builtin("kt_never_imported_h6", "kt_absent_sdk_h6", "fancy"),
        "broken": Builtin("kt_uses_sdk_h6", "kt_broken_sdk_h6", "fancy"),
        "other": Builtin("kt_uses_other_h6", "kt_broken_sdk_h6", "fancy"),
    })
    for name in ("absent", "broken"):
        with pytest.raises(MissingDependency) as raised:
            widgets.get(name)
        assert "pip install 'kerneltrials[fancy]'" in str(raised.value)
        assert f"the {name} widget needs" in str(raised.value)
    # An ImportError about anything else is a bug in that module, not a missing extra.
    with pytest.raises(ImportError, match="kt_absent_other_h6"):
        widgets.get("other")


def test_error_factories_replace_the_default_errors() -> None:
    class Unknown(Exception):
        pass

    widgets: Registry[type] = Registry(
        "widget", {"absent": Builtin("kt_never_imported_h6", "kt_absent_sdk_h6", "fancy")},
        unknown=lambda name, valid: Unknown(f"{name} not in {valid}"),
        missing=lambda name, builtin: Unknown(f"{name} needs {builtin.requires}"))
    with pytest.raises(Unknown, match=r"square not in \['absent'\]"):
        widgets.get("square")
    with pytest.raises(Unknown, match="absent needs kt_absent_sdk_h6"):
        widgets.get("absent")


def test_entry_points_are_found_on_a_miss(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    install_plugin(tmp_path, "kt-widgets-h6", """
        [kerneltrials.test-widgets-h6]
        gear = kt_gear_h6:Gear
        broken = kt_gear_h6:NoSuchThing
        """, {"kt_gear_h6": "class Gear:\n    pass\n"})
    monkeypatch.syspath_prepend(str(tmp_path))
    widgets: Registry[type] = Registry("widget", entry_point_group="kerneltrials.test-widgets-h6")
    assert widgets.names() == ["broken", "gear"]
    assert widgets.get("gear").__name__ == "Gear"
    with pytest.raises(RegistryError, match="'broken' .*kt_gear_h6:NoSuchThing.* failed to load"):
        widgets.get("broken")
    with pytest.raises(UnknownName, match="choose one of broken, gear"):
        widgets.get("cog")


@pytest.mark.timeout(120)
def test_a_sandbox_from_an_entry_point_is_registered_by_its_module(tmp_path: Path) -> None:
    install_plugin(tmp_path, "kt-echo-sandbox-h6", """
        [kerneltrials.sandboxes]
        echo = kt_echo_sandbox_h6
        """, {"kt_echo_sandbox_h6": """
        from kerneltrials.sandbox import register_sandbox
        from kerneltrials.sandbox._process import ProcessSandbox

        @register_sandbox("echo")
        class EchoSandbox(ProcessSandbox):
            pass
        """})
    result = run_python("""
        import sys
        from kerneltrials.sandbox import resolve_sandbox, sandbox_names
        print(sandbox_names(), "kt_echo_sandbox_h6" in sys.modules)
        print(type(resolve_sandbox("echo")).__name__)
    """, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["['docker', 'echo', 'process'] False", "EchoSandbox"]


@pytest.mark.timeout(120)
def test_sandboxes_and_executors_are_lazy_and_name_their_extra() -> None:
    result = run_python("""
        import sys
        sys.modules["docker"] = None  # as if the SDKs were not installed
        sys.modules["ray"] = None
        from kerneltrials.sandbox import resolve_sandbox, sandbox_names
        from kerneltrials.scheduler import EXECUTORS, resolve_executor
        from kerneltrials.verifier import CheckOptions
        print(sandbox_names(), EXECUTORS.names())
        print(sorted(m for m in sys.modules if m.endswith(("_docker", "_ray_executor"))))
        for resolve in (lambda: resolve_sandbox("docker"),
                        lambda: resolve_executor("ray", CheckOptions()),
                        lambda: resolve_executor("dask", CheckOptions())):
            try:
                resolve()
            except ValueError as error:
                print(type(error).__name__, error)
        print(type(resolve_executor("local", CheckOptions())).__name__)
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "['docker', 'process'] ['local', 'ray']",
        "[]",
        "MissingDependency the docker sandbox needs the 'docker' package: "
        "pip install 'kerneltrials[docker]'",
        "MissingDependency the ray executor needs the 'ray' package: "
        "pip install 'kerneltrials[ray]'",
        "UnknownName unknown executor 'dask': choose one of local, ray",
        "LocalExecutor",
    ]


def test_backends_resolve_through_the_registry_and_agree_with_the_worker() -> None:
    """cpu and cuda are registry entries; the worker's own list (it imports no registry)
    names the same built-ins; an unknown name lists the valid ones."""
    from kerneltrials.backends import BACKENDS, resolve_backend
    from kerneltrials.verifier.protocol._build import BACKENDS as WORKER_BACKENDS

    assert resolve_backend("cuda").profile == "gpu" and resolve_backend("cuda").needs_gpu
    assert resolve_backend("cpu").source_argument == "cpp_sources"
    assert set(WORKER_BACKENDS) == {"cpu", "cuda"} <= set(BACKENDS.names())
    with pytest.raises(ValueError, match="unknown backend 'tpu': choose one of cpu, cuda"):
        resolve_backend("tpu")
