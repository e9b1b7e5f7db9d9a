"""What the site says about a model: its provider and name from the run's model string
(``provider:model``, as ``eval --model`` takes it) and, optionally, what a maintainer wrote
about it in a ``--model-info`` JSON file (organisation, release date, notes).

The file maps a model string, or a bare model name, to an object::

    {"openai:gpt-4o": {"organisation": "OpenAI", "release_date": "2024-05-13",
                       "notes": "temperature 0"}}

Only those three fields are read (an unknown field is an error, so a typo is not lost).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MODEL_INFO_FIELDS = ("organisation", "release_date", "notes")


class ModelInfoError(ValueError):
    """A ``--model-info`` file that cannot be read or has unknown fields."""


@dataclass(frozen=True)
class ModelInfo:
    """One model as the leaderboard shows it."""

    provider: str  # "" for a model string without a provider
    name: str
    organisation: str = ""
    release_date: str = ""
    notes: str = ""


def split_model(model: str) -> tuple[str, str]:
    """``"openai:gpt-4o"`` -> ``("openai", "gpt-4o")``; ``"reference"`` -> ``("", "reference")``."""
    provider, sep, name = model.partition(":")
    return (provider, name) if sep and name else ("", model)


def load_model_info(path: str | os.PathLike[str]) -> dict[str, dict[str, str]]:
    """Read a ``--model-info`` file.

    Raises:
        ModelInfoError: not JSON, not an object of objects, or an unknown field.
    """
    try:
        data: Any = json.loads(Path(path).read_text())
    except (OSError, ValueError) as error:
        raise ModelInfoError(f"cannot read model info {path}: {error}") from error
    if not isinstance(data, dict):
        raise ModelInfoError(f"model info {path}: expected an object of model -> fields")
    table: dict[str, dict[str, str]] = {}
    for model, fields in data.items():
        if not isinstance(fields, dict):
            raise ModelInfoError(f"model info {path}: {model!r} is not an object")
        unknown = sorted(set(fields) - set(MODEL_INFO_FIELDS))
        if unknown:
            raise ModelInfoError(f"model info {path}: {model!r} has unknown field(s) "
                                 f"{', '.join(unknown)} (known: {', '.join(MODEL_INFO_FIELDS)})")  # fmt: skip
        table[str(model)] = {key: str(value) for key, value in fields.items()}
    return table


def model_info(model: str, table: Mapping[str, Mapping[str, str]]) -> ModelInfo:
    """The model's provider and name, with the table's entry for the full model string,
    else for its bare name."""
    provider, name = split_model(model)
    fields = table.get(model) or table.get(name) or {}
    return ModelInfo(provider, name, **{key: fields[key] for key in MODEL_INFO_FIELDS if key in fields})
