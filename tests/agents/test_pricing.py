"""The price table: lookup, costs, user overrides."""

from __future__ import annotations

import pytest

from kerneltrials.agents import load_price_table
from kerneltrials.agents.pricing import BUILTIN_PRICES, ModelPrice, PriceTable


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("gpt-4.1", "gpt-4.1"),
        ("gpt-4.1-2025-04-14", "gpt-4.1"),
        ("gpt-4.1-mini-2025-04-14", "gpt-4.1-mini"),  # longest entry wins
        ("claude-haiku-4-5-20251001", "claude-haiku-4-5"),
        ("gpt-4.10", None),  # not at a '-' boundary
        ("gpt-5.1", None),
        ("my-local-model", None),
    ],
)
def test_lookup(model, expected):
    price = PriceTable(BUILTIN_PRICES).lookup(model)
    assert price == (BUILTIN_PRICES[expected] if expected else None)


def test_cost_and_unknown_flag():
    table = PriceTable({"m": ModelPrice(2.0, 10.0)})
    assert table.cost_usd("m", 1_000_000, 500_000) == (pytest.approx(7.0), True)
    assert table.cost_usd("other", 1_000_000, 1) == (0.0, False)


def test_user_files_override_builtin_and_environment(tmp_path, monkeypatch):
    env_file = tmp_path / "env.json"
    env_file.write_text(
        '{"gpt-4.1": {"input": 1, "output": 1}, "local": {"input": 3, "output": 4}}'
    )
    argument = tmp_path / "arg.toml"
    argument.write_text("[local]\ninput = 5\noutput = 6\n")
    monkeypatch.setenv("KERNELTRIALS_PRICES", str(env_file))
    table = load_price_table(argument)
    assert table.lookup("gpt-4.1") == ModelPrice(1, 1)
    assert table.lookup("local") == ModelPrice(5, 6)
    assert table.lookup("gpt-4o") == BUILTIN_PRICES["gpt-4o"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"m": {"input": 1}}', "needs numeric 'input' and 'output'"),
        ('{"m": 3}', "needs numeric"),
        ("[1, 2]", "expected a table"),
        ("{not json", "cannot read price file"),
    ],
)
def test_malformed_price_files_are_explained(tmp_path, content, message):
    path = tmp_path / "prices.json"
    path.write_text(content)
    with pytest.raises(ValueError, match=message):
        load_price_table(path)


def test_missing_price_file_is_explained(tmp_path):
    with pytest.raises(ValueError, match="cannot read price file"):
        load_price_table(tmp_path / "absent.toml")
