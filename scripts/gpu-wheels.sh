#!/usr/bin/env bash
# Download the few wheels a bare GPU host lacks, for scripts/gpu-acceptance.sh.
#
# Run it on a machine with a package registry; copy the folder with the checkout to the GPU
# host (which has Python, PyTorch, nvcc but no registry). Only what kerneltrials imports
# and such a host's image does not carry: pydantic and its four dependencies (~3 MiB).
# Ray is left out on purpose (about 70 MiB): the acceptance suite uses the local executor.
#
#   bash scripts/gpu-wheels.sh [DIR] [PYTHON_VERSION]     # default: .whl and 3.12
set -euo pipefail
dir="${1:-.whl}"
python_version="${2:-3.12}"
cd "$(dirname "$0")/.."
pip_python="$(command -v python3.11 || command -v python3)"
mkdir -p "$dir"
# Versions pinned to what this project's test environment resolves, so the host runs
# what CI tested; one version of each (pip refuses two).
versions=$(.venv/bin/python - <<'PY' 2>/dev/null || true
from importlib.metadata import version
for name in ("pydantic", "pydantic_core", "annotated_types", "typing_inspection",
             "typing_extensions"):
    print(f"{name.replace('_', '-')}=={version(name)}")
PY
)
if [ -z "$versions" ]; then
    versions="pydantic pydantic-core annotated-types typing-inspection typing-extensions"
fi
# shellcheck disable=SC2086
"$pip_python" -m pip download --quiet --no-deps --only-binary=:all: \
    --python-version "$python_version" --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux2014_x86_64 -d "$dir" $versions
# bubblewrap for the process sandbox's strongest level, where the host's image lacks it
# (a Debian/Ubuntu host: libc6, libcap2 and libselinux1 are all it links).
if command -v apt-get >/dev/null; then
    (cd "$dir" && apt-get download bubblewrap >/dev/null 2>&1) \
        || echo "gpu-wheels: could not download bubblewrap's .deb (optional)" >&2
fi
ls -la "$dir"
du -sh "$dir"
