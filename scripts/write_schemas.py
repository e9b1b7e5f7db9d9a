"""Regenerate the shipped JSON Schemas (verdict, bundle) from their models.

    .venv/bin/python scripts/write_schemas.py

tests/leaderboard/test_schemas.py fails until the shipped files match the models.
"""

import json
from pathlib import Path

from kerneltrials.leaderboard import bundle_json_schema
from kerneltrials.verifier import verdict_json_schema

PACKAGE = Path(__file__).resolve().parent.parent / "kerneltrials"

for path, schema in ((PACKAGE / "verifier" / "verdict.schema.json", verdict_json_schema()),
                     (PACKAGE / "leaderboard" / "bundle.schema.json", bundle_json_schema())):
    path.write_text(json.dumps(schema, indent=2) + "\n")
    print(f"wrote {path}")
