"""Store errors: each names the cause and the fix (the CLI maps them to exit code 2)."""


class StoreError(Exception):
    """A store operation failed for a reason the user can fix."""


class SchemaVersionError(StoreError):
    """The database was written by a newer kerneltrials."""


class UnknownRunError(StoreError):
    """No run has that name."""


class RunExistsError(StoreError):
    """A run with that name already exists."""


class AttemptExistsError(StoreError):
    """An attempt with that (run, task, round, sample) is already stored."""
