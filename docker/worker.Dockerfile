# The kerneltrials worker image for GPU hosts: the docker sandbox runs every candidate job
# (build and run) in a fresh container of this image. Build (from the repository root):
#   docker build -f docker/worker.Dockerfile -t kerneltrials-worker:latest .
# Select:  KERNELTRIALS_DOCKER_IMAGE=kerneltrials-worker:latest kerneltrials check … --sandbox docker
# See docs/design/sandbox.md. The development machines reach no image registry nor
# download.pytorch.org: tests/sandbox/test_worker_image.py builds it there with a local base
# image and a CPU torch wheel as CUDA_IMAGE and TORCH_SPEC.
ARG CUDA_IMAGE=nvidia/cuda:13.0.0-devel-ubuntu24.04
FROM ${CUDA_IMAGE}

ENV DEBIAN_FRONTEND=noninteractive \
    PIP_NO_CACHE_DIR=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    CUDA_HOME=/usr/local/cuda \
    VIRTUAL_ENV=/opt/venv \
    PATH=/opt/venv/bin:/usr/local/cuda/bin:${PATH}

# g++/ninja build load_inline extensions; libgomp is OpenMP for CPU candidates.
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 python3-venv python3-dev g++ ninja-build libgomp1 \
    && rm -rf /var/lib/apt/lists/*

RUN python3 -m venv "${VIRTUAL_ENV}"
ARG TORCH_SPEC="torch>=2.9,<2.15"
ARG TORCH_INDEX=https://download.pytorch.org/whl/cu130
RUN pip install --index-url "${TORCH_INDEX}" "${TORCH_SPEC}"

COPY pyproject.toml README.md /src/
COPY kerneltrials /src/kerneltrials
RUN pip install /src && rm -rf /src

# Jobs run with a read-only root, the scratch dir bound in, and no network; no entrypoint:
# the harness passes the whole command (python3 -m kerneltrials.verifier.worker ROLE, or
# python3 -m kerneltrials.verifier.builds.compile_worker for a build).
WORKDIR /tmp
