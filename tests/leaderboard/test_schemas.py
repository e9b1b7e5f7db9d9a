"""The shipped JSON Schemas equal the generated ones, and a real bundle validates."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from kerneltrials.leaderboard import bundle_from_store, bundle_json_schema
from kerneltrials.results import open_store
from kerneltrials.verifier import verdict_json_schema

pytestmark = pytest.mark.timeout(60)
PACKAGE = Path(__file__).resolve().parents[2] / "kerneltrials"


def test_shipped_verdict_schema_is_the_generated_one() -> None:
    shipped = json.loads((PACKAGE / "verifier" / "verdict.schema.json").read_text())
    assert shipped == verdict_json_schema(), "regenerate kerneltrials/verifier/verdict.schema.json"


def test_shipped_bundle_schema_is_the_generated_one() -> None:
    shipped = json.loads((PACKAGE / "leaderboard" / "bundle.schema.json").read_text())
    assert shipped == bundle_json_schema(), "regenerate kerneltrials/leaderboard/bundle.schema.json"


def test_a_bundle_validates_against_the_schema_and_a_broken_one_does_not(runs_store: Path) -> None:
    with open_store(runs_store) as store:
        data = json.loads(bundle_from_store(store, "slow-refine").model_dump_json())
    schema = bundle_json_schema()
    jsonschema.validate(data, schema)
    del data["attempts"][0]["verdict"]["status"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, schema)
