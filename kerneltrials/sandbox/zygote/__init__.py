"""The zygote: worker jobs forked into their sandbox from a process that imported once.

Where each part runs: ``_client`` in the harness (starts zygotes, asks them for jobs,
reads how each job ended); ``__main__`` in the zygote process (``python -m
kerneltrials.sandbox.zygote MODULE FD``: imports, then forks); ``_join`` in each fork,
before any job code (joins the sandbox bwrap built, drops to the job's user, checks it).
See docs/design/sandbox.md ("Starting a worker").
"""

from kerneltrials.sandbox.zygote._client import (
    PER_JOB_ENV,
    ZYGOTE_ENV,
    ForkedJob,
    ForkRequest,
    Zygote,
    ZygoteError,
    close_zygotes,
    zygote_enabled,
    zygote_for,
)
from kerneltrials.sandbox.zygote._join import JOB_CHANNEL_FD, start_time

__all__ = [
    "JOB_CHANNEL_FD",
    "PER_JOB_ENV",
    "ZYGOTE_ENV",
    "ForkRequest",
    "ForkedJob",
    "Zygote",
    "ZygoteError",
    "close_zygotes",
    "start_time",
    "zygote_enabled",
    "zygote_for",
]
