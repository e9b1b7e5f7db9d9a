"""The zygote: worker jobs forked into their sandbox from a process that imported once.

Where each part runs: ``_client`` in the harness (starts zygotes, asks them for jobs,
reads how each job ended); ``__main__`` in the zygote process (``python -m
kerneltrials.sandbox.zygote MODULE FD``: imports, then forks); ``_join`` in each fork,
before any job code (joins the sandbox bwrap built, drops to the job's user, checks it).
See docs/design/sandbox.md ("Starting a worker").

Nothing is imported here: the zygote, and so every job it forks, loads only ``__main__``
and ``_join``, never the harness's side.
"""
