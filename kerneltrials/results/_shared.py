"""Tables not owned by one run: submission verifications."""

from __future__ import annotations

import json
import socket
from typing import Any

from kerneltrials.results._connection import StoreConnection, now_iso
from kerneltrials.results._records import (
    VerificationRecord,
    canonical_json,
)
from kerneltrials.results._scoring import (
    insert_scores,
    remeasured_scores,
    verification_task_ids,
)


class SharedTables(StoreConnection):
    """Verifications of submitted bundles (kept by run name and bundle hash)."""

    def record_verification(
        self,
        run_name: str,
        bundle_sha256: str,
        *,
        holds: bool,
        outcome: dict[str, Any],
        hardware: dict[str, Any] | None = None,
        verifier_host: str | None = None,
        task_ids: list[str] | None = None,
    ) -> VerificationRecord:
        """Record that ``kerneltrials verify`` re-ran a bundle here (issue 9's "verified").

        When ``outcome`` lists per-attempt re-measurements, the scores of the re-measured
        figures are computed here (``scoring.standard_report``) and stored with the record
        (``VerificationRecord.scores``), as a run's scores are.

        Args:
            task_ids: the verified run's task selection (the denominator); default: the
                selection of the run of that name in this store, else the tasks the
                outcome's own re-measured report lists.
        """
        if task_ids is None:
            known = self._query("SELECT task_ids FROM runs WHERE name = ?", (run_name,))
            task_ids = json.loads(known[0][0]) if known else None
        selection = verification_task_ids(outcome, task_ids)
        scores = remeasured_scores(outcome, selection, run_name)
        with self._write() as connection:
            cursor = connection.execute(
                "INSERT INTO verifications (run_name, bundle_sha256, verified_at, "
                "verifier_host, holds, hardware, outcome) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    run_name,
                    bundle_sha256,
                    now_iso(),
                    verifier_host or socket.gethostname(),
                    int(holds),
                    canonical_json(hardware or {}),
                    canonical_json(outcome),
                ),
            )
            row_id = cursor.lastrowid
            assert row_id is not None  # an INSERT's rowid
            insert_scores(connection, "verification_scores", ("verification_id", row_id),
                          scores, now_iso())  # fmt: skip
        rows = self._query("SELECT * FROM verifications WHERE id = ?", (row_id,))
        return self._verification(rows[0])

    def _verification(self, row: Any) -> VerificationRecord:
        scores = self._query(
            "SELECT baseline, report FROM verification_scores WHERE verification_id = ?",
            (row["id"],),
        )
        return VerificationRecord.from_row(row, {s[0]: json.loads(s[1]) for s in scores})

    def verifications_for(
        self, run_name: str, bundle_sha256: str | None = None
    ) -> list[VerificationRecord]:
        """Verifications of a run (optionally of one bundle), newest first."""
        sql = "SELECT * FROM verifications WHERE run_name = ?"
        parameters: tuple[Any, ...] = (run_name,)
        if bundle_sha256 is not None:
            sql += " AND bundle_sha256 = ?"
            parameters += (bundle_sha256,)
        rows = self._query(sql + " ORDER BY verified_at DESC, id DESC", parameters)
        return [self._verification(row) for row in rows]
