"""Built-in strategies, one per module; each registers itself when imported.

They are imported by ``kerneltrials.agents.resolve_strategy`` on first use.
"""
