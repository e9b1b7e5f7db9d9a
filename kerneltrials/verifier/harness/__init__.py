"""The trusted parent of a verification: it starts the sandboxed jobs, sends them typed
requests, and judges what they report (docs/design/architecture.md).

Session and jobs (``_session``, ``_jobs``), the stages (``_stages``: build, install,
correctness; ``_backward``; ``_timing_loop``), the judgement of worker reports
(``_judge``, ``_compare``, ``_failures``), statistics and plausibility (``_stats``,
``_speed``), profiling for agents (``_profiling``, ``_profile_stage``), the advisory LLM
review, the hardware fingerprint and the OpenMP environment of the timed workers.
"""
