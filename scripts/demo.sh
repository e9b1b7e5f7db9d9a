#!/usr/bin/env bash
# `make demo`: the reference model on a level-1 subset, on the CPU backend, end to end:
# Ray-scheduled builds and verification, every verdict stored, the fast_p table printed,
# and the leaderboard site built from the store. No API key needed.
#
# The run goes to the default store (./kerneltrials.sqlite, or $KERNELTRIALS_DB) so that a
# plain `runs list` afterwards finds it; `make demo` does not put the venv on PATH, so the
# commands printed at the end name .venv/bin/kerneltrials (or activate the venv first).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.venv/bin
DB=${KERNELTRIALS_DB:-kerneltrials.sqlite}
RUN="demo-$(date +%Y%m%d-%H%M%S)"
TASKS=${DEMO_TASKS:-$($BIN/python -c "
from kerneltrials.agents.providers.reference import tasks_with_solutions
print(','.join([t for t in tasks_with_solutions() if t.startswith('L1/')][:6]))")}
echo "demo: reference solutions on ${TASKS} (store: ${DB}, run: ${RUN})" >&2
$BIN/kerneltrials eval --model reference --agent one-shot --backend cpu --tasks "$TASKS" \
    --db "$DB" --run "$RUN" --no-compile-baseline
if $BIN/kerneltrials leaderboard --help >/dev/null 2>&1; then
    $BIN/kerneltrials leaderboard build --db "$DB" --out site
    echo "leaderboard: open $(pwd)/site/index.html (or: $BIN/kerneltrials leaderboard serve site)"
fi
DB_ARG=""
[ "$DB" = kerneltrials.sqlite ] || DB_ARG=" --db $DB"
cat <<NEXT
next (kerneltrials is in .venv/bin; run 'source .venv/bin/activate' to use the bare name):
  $BIN/kerneltrials runs list${DB_ARG}
  $BIN/kerneltrials runs show ${RUN}${DB_ARG}
NEXT
