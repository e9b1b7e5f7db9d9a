#!/usr/bin/env bash
# The GPU acceptance suite in one command, for a bare GPU host (docs/gpu/README.md).
#
#   bash scripts/gpu-acceptance.sh [--wheels DIR] [--out DIR] [--python PYTHON] [--no-install]
#
# Uses the host's Python and PyTorch (no virtual environment, nothing downloaded): the few
# packages the host lacks are installed from DIR (made by scripts/gpu-wheels.sh) and
# kerneltrials from this checkout, into the host's Python environment (a bare, throwaway
# GPU host is what this is for). Then it
# checks what needs no GPU (imports, doctor, a CUDA candidate builds), and, where a GPU is
# present, runs tests/gpu and writes report.md and report.json into --out.
# Exit status: 0 all passed; 1 some GPU test failed; 2 the host is unusable (torch
# missing or out of range, a package missing); 3 no GPU (after the checks that need none).
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
wheels="" out="$root/gpu-acceptance-out" python="python3" install=1
while [ $# -gt 0 ]; do
    case "$1" in
        --wheels) wheels="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        --python) python="$2"; shift 2 ;;
        --no-install) install=0; shift ;;  # PYTHON's environment has kerneltrials already
        -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
        *) echo "gpu-acceptance: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
mkdir -p "$out"
log="$out/acceptance.log"
: > "$log"
say() { echo "gpu-acceptance: $*" | tee -a "$log"; }
if [ -z "${CUDA_HOME:-}" ] && command -v nvcc >/dev/null; then
    CUDA_HOME="$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")"
fi
export CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
export PYTHONUNBUFFERED=1

# 1. The host's torch, in the range pyproject.toml supports.
if ! "$python" -c "import torch" 2>>"$log"; then
    say "the host's $python cannot import torch: install PyTorch first"; exit 2
fi
"$python" - <<'PY' 2>>"$log" | tee -a "$log" || { say "host torch unusable (see $log)"; exit 2; }
import sys, torch
major, minor = (int(x) for x in torch.__version__.split("+")[0].split(".")[:2])
print(f"python {sys.version.split()[0]}, torch {torch.__version__} (CUDA {torch.version.cuda})")
if not ((2, 9) <= (major, minor) < (2, 15)):
    sys.exit(f"torch {torch.__version__} is outside the supported range >=2.9,<2.15")
if sys.version_info[:2] not in ((3, 11), (3, 12)):
    sys.exit(f"Python {sys.version.split()[0]} is outside the supported range >=3.11,<3.13")
PY

# 2. The missing packages from the local wheel folder, then kerneltrials itself, into the
# host's Python environment: the sandbox's jobs see that environment (sys.prefix) and
# nothing of PYTHONPATH, so a private install folder would not reach them.
if [ -n "$wheels" ]; then
    if ! ls "$wheels"/*.whl >/dev/null 2>&1; then
        say "no wheels in $wheels (make them with scripts/gpu-wheels.sh on a machine with a registry)"; exit 2
    fi
    "$python" -m pip install --quiet --no-index --no-deps --no-compile --no-cache-dir \
        "$wheels"/*.whl >>"$log" 2>&1 \
        || { say "installing the wheels of $wheels failed (see $log)"; exit 2; }
fi
if ! "$python" -c "import pydantic, click, rich, jinja2" >>"$log" 2>&1; then
    say "a dependency is missing (pass --wheels DIR made by scripts/gpu-wheels.sh; see $log)"; exit 2
fi
if [ "$install" -eq 1 ]; then
    "$python" -m pip install --quiet --no-index --no-deps --no-build-isolation --no-cache-dir \
        "$root" >>"$log" 2>&1 || { say "installing kerneltrials from $root failed (see $log)"; exit 2; }
fi
export PYTHONPATH="$root${PYTHONPATH:+:$PYTHONPATH}"  # tests/ of this checkout
if ! (cd / && "$python" -c "import kerneltrials.verifier") >>"$log" 2>&1; then
    say "kerneltrials does not import after its install (see $log)"; exit 2
fi
say "kerneltrials installed into $("$python" -c 'import sys; print(sys.prefix)')"
# The process sandbox's strongest level needs bubblewrap; a GPU image may lack it. A
# bubblewrap .deb in the wheel folder is unpacked beside the site folder (never into /).
if ! command -v bwrap >/dev/null && [ -n "$wheels" ] && ls "$wheels"/bubblewrap_*.deb >/dev/null 2>&1; then
    debs="$(mktemp -d)/debs"
    for deb in "$wheels"/bubblewrap_*.deb; do dpkg -x "$deb" "$debs"; done
    export PATH="$debs/usr/bin:$PATH"
fi
say "bubblewrap: $(command -v bwrap || echo 'missing: the process sandbox falls back to a weaker level')"
if ! "$python" -c "import kerneltrials.verifier, pydantic, click, rich, jinja2" >>"$log" 2>&1; then
    say "kerneltrials does not import (a package missing? pass --wheels DIR; see $log)"; exit 2
fi

# 3. What needs no GPU: doctor, and a CUDA candidate that builds.
timeout 300 "$python" -m kerneltrials.cli doctor > "$out/doctor.txt" 2>&1
say "doctor: exit $? (output in doctor.txt)"
if ! "$python" -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)"; then
    timeout 900 "$python" "$root/scripts/gpu_report.py" build-only --out "$out" 2>&1 | tee -a "$log"
    say "no GPU here (torch.cuda.is_available() is false): stopping after the checks that need none"
    exit 3
fi

# 4. The suite, with a budget per test; the report is written whatever the outcome.
say "GPU: $("$python" -c 'import torch; print(torch.cuda.get_device_name(0))')"
# Output goes to files, never through a pipe: a job a timeout leaves behind for a moment
# must not hold this script's pipe open.
timeout --kill-after=10 "${KT_GPU_PREBUILD_TIMEOUT_S:-240}" "$python" \
    "$root/scripts/gpu_report.py" prebuild --out "$out" > "$out/prebuild.log" 2>&1
tail -1 "$out/prebuild.log" | tee -a "$log"
export KT_GPU_FIGURES="$out/figures.jsonl"
: > "$KT_GPU_FIGURES"
# Most telling first: correctness and the cheats, then the mechanisms, then the slower
# profilers, the end-to-end eval, then the slower fidelity verdicts on full-size shapes.
read -r -a suite <<< "${KT_GPU_TESTS:-test_honest.py test_cheats.py test_mechanisms.py test_profile.py test_host.py test_fidelity.py}"
(cd "$root/tests/gpu" && timeout --kill-after=10 "${KT_GPU_SUITE_TIMEOUT_S:-480}" "$python" \
    -m pytest "${suite[@]}" -m gpu -v -p no:cacheprovider --rootdir "$root" -o addopts="" \
    --timeout 400 --junitxml "$out/junit.xml" > "$out/pytest.log" 2>&1)
suite=$?
grep -E "PASSED|FAILED|ERROR|SKIPPED|[0-9]+ (passed|failed)" "$out/pytest.log" | tail -40
"$python" "$root/scripts/gpu_report.py" report --out "$out" --suite-exit "$suite" | tee -a "$log"
say "report: $out/report.md"
[ "$suite" -eq 0 ] && exit 0 || exit 1
