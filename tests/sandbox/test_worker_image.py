"""``docker/worker.Dockerfile``: its invariants (always) and a real build (docker + slow).

The build needs two things this machine's network does not reach: the CUDA base image
(``nvidia/cuda`` on Docker Hub / nvcr.io) and torch's CUDA index (download.pytorch.org).
Everything else it fetches (the Debian/Ubuntu apt mirrors, PyPI) is reachable. So the
test builds the Dockerfile UNCHANGED with two build args swapped:

- ``CUDA_IMAGE``: a Debian bookworm rootfs made here with ``debootstrap`` and imported
  into the engine (Python 3.11, like the CUDA image's Ubuntu has its own python3), plus
  the host's CA bundle as ``PIP_CERT`` (this machine reaches PyPI through a TLS proxy);
- ``TORCH_SPEC``: ``torch @ http://127.0.0.1:PORT/<wheel>``, a CPU torch wheel from pip's
  ``find-links`` served to the build (host network), its dependencies from PyPI.

What stays untested here: the CUDA layers themselves (nvcc, libcudart) and a GPU job.
"""

from __future__ import annotations

import functools
import importlib.util
import io
import json
import os
import re
import shutil
import ssl
import subprocess
import sys
import tarfile
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from kerneltrials.sandbox import JobSpec, SandboxLimits, build_job_env

REPO_ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = REPO_ROOT / "docker" / "worker.Dockerfile"
#: Kept between runs (a debootstrap is ~30 s and ~200 MB of downloads).
BASE_IMAGE = "localhost/kt-debian-base:latest"  # podman's import API drops other tags
WORKER_IMAGE = "localhost/kt-worker:test"
#: The base's Python is 3.11: only a cp311 wheel installs.
TORCH_WHEEL = "torch-*-cp311-cp311-manylinux*_x86_64.whl"
VENV_PYTHON = "/opt/venv/bin/python3"


# -- the Dockerfile's text: what the docker sandbox relies on -------------------------------


def _instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) per instruction, continuation lines joined."""
    joined = re.sub(r"\\\n", " ", DOCKERFILE.read_text())
    lines = [line.strip() for line in joined.splitlines()]
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1])
            for line in lines if line and not line.startswith("#")]


def test_the_dockerfile_keeps_what_the_sandbox_relies_on() -> None:
    steps = _instructions()
    names = [name for name, _ in steps]

    # The harness passes the whole command: an entrypoint would run in front of it.
    assert "ENTRYPOINT" not in names and "CMD" not in names
    assert steps[-1] == ("WORKDIR", "/tmp")
    # The CUDA image is a build arg declared before FROM (the test swaps it).
    assert steps[0][0] == "ARG" and steps[0][1].startswith("CUDA_IMAGE=")
    assert ("FROM", "${CUDA_IMAGE}") in steps
    # The package comes from this repository, not from an index.
    assert ("COPY", "kerneltrials /src/kerneltrials") in steps
    assert any(name == "RUN" and "pip install /src" in args for name, args in steps)


def test_the_worker_modules_named_in_the_dockerfile_exist() -> None:
    modules = re.findall(r"python3 -m ([\w.]+)", DOCKERFILE.read_text())

    assert "kerneltrials.verifier.worker" in modules
    for module in modules:
        assert importlib.util.find_spec(module) is not None, module


# -- the real build -----------------------------------------------------------------------


def _torch_wheel() -> Path:
    """A CPU torch wheel from pip's find-links (``PIP_FIND_LINKS``), or skip."""
    folders = os.environ.get("KERNELTRIALS_TORCH_WHEEL_DIR") or os.environ.get("PIP_FIND_LINKS")
    for folder in (folders or "").split():
        wheels = sorted(Path(folder.removeprefix("file://")).glob(TORCH_WHEEL))
        if wheels:
            return wheels[-1]
    pytest.skip(f"no {TORCH_WHEEL} in KERNELTRIALS_TORCH_WHEEL_DIR or PIP_FIND_LINKS")


def _make_base_image(api: Any, work: Path) -> None:
    """Debian bookworm, debootstrapped here, trusting the host's CAs for pip."""
    if api.images(name=BASE_IMAGE):
        return
    if shutil.which("debootstrap") is None:
        pytest.skip("debootstrap is not installed (apt-get install debootstrap)")
    rootfs = work / "rootfs"
    result = subprocess.run(
        ["debootstrap", "--variant=minbase", "bookworm", str(rootfs),
         "http://deb.debian.org/debian"], capture_output=True, text=True, timeout=900)
    if result.returncode != 0:
        pytest.skip(f"debootstrap failed (no Debian mirror?): {result.stdout[-2000:]}")
    host_cas = ssl.get_default_verify_paths().cafile or "/etc/ssl/certs/ca-certificates.crt"
    shutil.copy(host_cas, rootfs / "etc/kt-host-ca.pem")
    archive = work / "rootfs.tar"
    with tarfile.open(archive, "w") as tar:
        tar.add(rootfs, arcname=".")
    shutil.rmtree(rootfs)
    repository, tag = BASE_IMAGE.rsplit(":", 1)
    api.import_image_from_file(str(archive), repository=repository, tag=tag,
                               changes=["ENV PIP_CERT=/etc/kt-host-ca.pem"])
    archive.unlink()


def _build_context() -> io.BytesIO:
    """Exactly what the Dockerfile copies (the repository has no .dockerignore)."""
    context = io.BytesIO()
    with tarfile.open(fileobj=context, mode="w") as tar:
        for name in ["docker/worker.Dockerfile", "pyproject.toml", "README.md", "kerneltrials"]:
            tar.add(REPO_ROOT / name, arcname=name,
                    filter=lambda info: None if "__pycache__" in info.name else info)
    context.seek(0)
    return context


@pytest.fixture(scope="module")
def worker_image(container_engine: Any, tmp_path_factory: pytest.TempPathFactory
                 ) -> Iterator[str]:
    from docker.client import DockerClient

    api = DockerClient(base_url=container_engine.docker_host, timeout=1800).api
    wheel = _torch_wheel()
    _make_base_image(api, tmp_path_factory.mktemp("worker-base"))
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(wheel.parent))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    log: list[str] = []
    try:
        for chunk in api.build(
            fileobj=_build_context(), custom_context=True, dockerfile="docker/worker.Dockerfile",
            tag=WORKER_IMAGE, network_mode="host", rm=True, forcerm=True, decode=True,
            buildargs={
                "CUDA_IMAGE": BASE_IMAGE,
                "TORCH_INDEX": "https://pypi.org/simple",
                "TORCH_SPEC": f"torch @ http://127.0.0.1:{server.server_port}/{wheel.name}",
            },
        ):
            log.append(str(chunk.get("stream") or chunk.get("error") or ""))
            if "error" in chunk:
                pytest.fail("worker image build failed:\n" + "".join(log[-40:]))
    finally:
        server.shutdown()
        server.server_close()
    yield WORKER_IMAGE
    api.remove_image(WORKER_IMAGE, force=True)


def _run(container_engine: Any, image: str, argv: list[str], tmp_path: Path) -> Any:
    """One job in ``image`` through the docker sandbox (read-only root, no network)."""
    from kerneltrials.sandbox._docker import DockerSandbox

    sandbox = DockerSandbox(image=image, base_url=container_engine.docker_host)
    job = sandbox.start(JobSpec(argv=argv, env=build_job_env(), scratch_dir=tmp_path / "s",
                                limits=SandboxLimits(wall_timeout_s=120)))
    info = job.wait()
    assert info is not None
    return info


_PROBE = """
import importlib.util, json, shutil, kerneltrials, torch
print(json.dumps({
    "package": kerneltrials.__file__,
    "workers": [importlib.util.find_spec(m) is not None for m in
                ("kerneltrials.verifier.worker", "kerneltrials.verifier.builds.compile_worker")],
    "relu": torch.relu(torch.tensor([-1.0, 2.0])).tolist(),
    "tools": [shutil.which(t) for t in ("g++", "ninja")],
}))
"""


@pytest.mark.docker
@pytest.mark.slow
def test_the_built_image_has_no_entrypoint(worker_image: str, container_engine: Any) -> None:
    from docker.client import DockerClient

    api = DockerClient(base_url=container_engine.docker_host).api
    config = api.inspect_image(worker_image)["Config"]

    assert not config.get("Entrypoint")
    assert config["WorkingDir"] == "/tmp"
    assert "VIRTUAL_ENV=/opt/venv" in config["Env"]


@pytest.mark.docker
@pytest.mark.slow
def test_a_sandboxed_job_runs_the_installed_package(
    worker_image: str, container_engine: Any, tmp_path: Path
) -> None:
    info = _run(container_engine, worker_image, [VENV_PYTHON, "-c", _PROBE], tmp_path)

    assert info.returncode == 0, info.stderr
    probe = json.loads(info.stdout)
    assert probe["package"].startswith("/opt/venv/lib/"), probe  # the image's, not the host's
    assert probe["workers"] == [True, True]
    assert probe["relu"] == [0.0, 2.0]
    assert all(probe["tools"]), probe  # load_inline builds need g++ and ninja


@pytest.mark.docker
@pytest.mark.slow
def test_the_jobs_python3_is_the_images_venv(
    worker_image: str, container_engine: Any, tmp_path: Path
) -> None:
    # sys.executable is what the harness puts first; the sandbox turns it into `python3`,
    # found on the image's PATH (the harness's PATH, passed before, found the apt python3
    # in /usr/bin, without the venv or kerneltrials: sandbox/_docker.py drops it).
    code = "import kerneltrials.verifier.worker"
    info = _run(container_engine, worker_image, [sys.executable, "-c", code], tmp_path)

    assert info.returncode == 0, info.stderr
