"""Everything that runs inside the sandboxed worker hosting candidate or reference code.

A process started as ``python -m kerneltrials.verifier.worker ROLE`` shares its address
space with the candidate: nothing here decides a verdict, it only reports (the parent,
``kerneltrials.verifier.harness``, judges). This package imports nothing from the trusted
side but ``kerneltrials.verifier.protocol`` and the task loader
(tests/verifier/test_worker_boundary.py; docs/design/architecture.md).
"""
