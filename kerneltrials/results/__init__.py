"""The results store: every run, attempt, cached baseline and verification, in SQLite.

Open it with :func:`open_store` (default ``kerneltrials.sqlite`` in the working directory,
or ``$KERNELTRIALS_DB``). Records are versioned dataclasses; the schema is versioned and
migrated on open (``_schema.py``). Scores are stored too: a run's standard score reports
(computed when it finishes, by ``kerneltrials score``, or once by the migration of an
older store) and a verification's re-measured ones; readers never re-score.
"""

from kerneltrials.results._connection import DB_ENV, DEFAULT_DB, resolve_db_path
from kerneltrials.results._errors import (
    AttemptExistsError,
    RunExistsError,
    SchemaVersionError,
    StoreError,
    UnknownRunError,
)
from kerneltrials.results._records import (
    RECORD_VERSION,
    AttemptRecord,
    RunRecord,
    ScoreRecord,
    VerificationRecord,
    hardware_key,
)
from kerneltrials.results._report import save_run_scores, score_run
from kerneltrials.results._schema import SCHEMA_VERSION
from kerneltrials.results._scoring import (
    GROUPINGS,
    level_of_task_id,
    remeasured_scores,
    score_verdicts,
    stored_outcomes,
    task_groups,
)
from kerneltrials.results._store import ResultsStore, open_store
from kerneltrials.scoring import TaskOutcome

__all__ = [
    "DB_ENV",
    "DEFAULT_DB",
    "GROUPINGS",
    "RECORD_VERSION",
    "SCHEMA_VERSION",
    "AttemptExistsError",
    "AttemptRecord",
    "ResultsStore",
    "RunExistsError",
    "RunRecord",
    "SchemaVersionError",
    "ScoreRecord",
    "StoreError",
    "TaskOutcome",
    "UnknownRunError",
    "VerificationRecord",
    "hardware_key",
    "level_of_task_id",
    "open_store",
    "remeasured_scores",
    "resolve_db_path",
    "save_run_scores",
    "score_run",
    "score_verdicts",
    "stored_outcomes",
    "task_groups",
]
