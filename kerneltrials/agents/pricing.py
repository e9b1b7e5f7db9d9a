"""What a call costs: USD per million input / output tokens, per model.

The built-in table holds list prices of a few well-known models (as published when it was
written; prices change, so check them). A user overrides or extends it with a JSON or TOML
file, given as an argument or in ``KERNELTRIALS_PRICES``, mapping model names to prices::

    {"gpt-4.1": {"input": 2.0, "output": 8.0}, "my-local-model": {"input": 0, "output": 0}}

A model matches its own entry, or else the longest entry it extends at a ``-`` boundary
(``gpt-4.1-2025-04-14`` uses ``gpt-4.1``). An unknown model costs 0.0 and is flagged
(``cost_known`` False) so that reports can show that the total is incomplete. Prompt-cache
discounts are not applied: the cost is an upper bound.
"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

PRICES_ENV_VAR = "KERNELTRIALS_PRICES"


@dataclass(frozen=True)
class ModelPrice:
    input_usd_per_mtok: float  # per million prompt tokens
    output_usd_per_mtok: float  # per million completion tokens


BUILTIN_PRICES: dict[str, ModelPrice] = {
    "gpt-4o": ModelPrice(2.50, 10.00),
    "gpt-4o-mini": ModelPrice(0.15, 0.60),
    "gpt-4.1": ModelPrice(2.00, 8.00),
    "gpt-4.1-mini": ModelPrice(0.40, 1.60),
    "gpt-4.1-nano": ModelPrice(0.10, 0.40),
    "o3": ModelPrice(2.00, 8.00),
    "o3-mini": ModelPrice(1.10, 4.40),
    "o4-mini": ModelPrice(1.10, 4.40),
    "gpt-5": ModelPrice(1.25, 10.00),
    "gpt-5-mini": ModelPrice(0.25, 2.00),
    "gpt-5-nano": ModelPrice(0.05, 0.40),
    "claude-opus-4": ModelPrice(15.00, 75.00),
    "claude-opus-4-1": ModelPrice(15.00, 75.00),
    "claude-opus-4-5": ModelPrice(5.00, 25.00),
    "claude-sonnet-4": ModelPrice(3.00, 15.00),
    "claude-sonnet-4-5": ModelPrice(3.00, 15.00),
    "claude-haiku-4-5": ModelPrice(1.00, 5.00),
    "claude-3-5-haiku": ModelPrice(0.80, 4.00),
}


class PriceTable:
    """Prices by model name, with dated-snapshot fallback (see the module docstring)."""

    def __init__(self, prices: Mapping[str, ModelPrice]) -> None:
        self._prices = dict(prices)

    def lookup(self, model: str) -> ModelPrice | None:
        if model in self._prices:
            return self._prices[model]
        extended = [name for name in self._prices if model.startswith(name + "-")]
        return self._prices[max(extended, key=len)] if extended else None

    def cost_usd(
        self, model: str, prompt_tokens: int, completion_tokens: int
    ) -> tuple[float, bool]:
        """(USD for this many tokens, whether the price is known; 0.0 when it is not)."""
        price = self.lookup(model)
        if price is None:
            return 0.0, False
        cost = (
            prompt_tokens * price.input_usd_per_mtok + completion_tokens * price.output_usd_per_mtok
        ) / 1e6
        return cost, True

    def merged(self, overrides: Mapping[str, ModelPrice]) -> PriceTable:
        return PriceTable({**self._prices, **overrides})


def load_price_table(path: str | Path | None = None) -> PriceTable:
    """The built-in table, overridden by ``KERNELTRIALS_PRICES`` then by ``path``.

    Raises:
        ValueError: a price file is missing or malformed (the message names it).
    """
    table = PriceTable(BUILTIN_PRICES)
    for source in (os.environ.get(PRICES_ENV_VAR) or None, path):
        if source is not None:
            table = table.merged(load_price_file(source))
    return table


def load_price_file(path: str | Path) -> dict[str, ModelPrice]:
    """Read a JSON or TOML price file (by extension; anything but ``.toml`` is JSON)."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
        data = tomllib.loads(text) if file.suffix == ".toml" else json.loads(text)
    except (OSError, ValueError) as error:
        raise ValueError(f"cannot read price file {file}: {error}") from error
    if not isinstance(data, dict):
        raise ValueError(f"price file {file}: expected a table of model -> {{input, output}}")
    return {model: _parse_price(file, model, entry) for model, entry in data.items()}


def _parse_price(file: Path, model: str, entry: object) -> ModelPrice:
    problem = ValueError(
        f"price file {file}: entry {model!r} needs numeric 'input' and 'output' "
        "(USD per million tokens)"
    )
    if not isinstance(entry, dict):
        raise problem
    try:
        return ModelPrice(float(entry["input"]), float(entry["output"]))
    except (KeyError, TypeError, ValueError) as error:
        raise problem from error
