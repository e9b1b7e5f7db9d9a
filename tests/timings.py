"""Timing options for tests that check something other than timing.

The shortest timing the verifier allows: one warm-up and one measured call a side per
configuration, so a ``correct`` verdict still has its timed outputs read and checked, at
about a third of a quick check's timing stage (a warm ReLU: 0.9 s against 2.2-2.9 s).
A test whose candidate acts during timing (a lying timer, outputs swapped between timed
calls, spot checks, the adaptive stop, baselines) keeps the timing it was written for.
"""

from __future__ import annotations

from kerneltrials.verifier import TimingOptions

ONE_CALL_TIMING = TimingOptions(warmup_calls=1, min_calls=1, max_calls=1, max_wall_s=0.1,
                                batch_target_s=0.01)
