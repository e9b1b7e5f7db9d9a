"""One module per provider; each registers itself when imported.

They are imported by ``kerneltrials.agents.resolve_provider`` on first use (never here),
so that an SDK is imported only when its provider is asked for.
"""
