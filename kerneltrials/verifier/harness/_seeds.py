"""Every input seed of a verification, derived from the run's secret.

The hidden seed (``--hidden-seed``; by default fresh per run and recorded in the store)
already decides the hidden configurations. Deriving the correctness inputs and the
timing pool from it too means no seed is a constant a candidate could know in advance:
a kernel cannot ship a table of answers for known inputs, nor rebuild the inputs in
``__init__`` from a seed it read in the source. Pure functions; see
docs/design/anticheat.md ("Known inputs").
"""

from __future__ import annotations

import hashlib

#: Seeds stay in the range every RNG here accepts (torch.manual_seed takes 64 bits).
_SEED_BITS = 31


#: Input sets kept per configuration for timing when timed inputs are plain copies
#: (``CheckOptions.fresh_inputs`` off): call i runs on set i mod this.
TIMING_POOL_SIZE = 3


def timing_pool_size(fresh_inputs: bool) -> int:
    """Input sets a worker draws per configuration for timing. With fresh inputs one: every
    call's inputs are that set scaled by its own factors (worker/_fresh.py), so the
    offsets, not the sets, make calls differ, and each further set cost both workers a
    draw of the configuration's inputs and the reference a call at setup."""
    return 1 if fresh_inputs else TIMING_POOL_SIZE


def derived_seed(secret: int, *parts: object) -> int:
    """A seed for ``parts`` (a configuration, a purpose, an index) under ``secret``."""
    text = "\x1f".join(str(part) for part in (secret, *parts))
    digest = hashlib.sha256(text.encode()).digest()
    return int.from_bytes(digest[:8], "big") >> (64 - _SEED_BITS)


def input_seeds(secret: int, config: str, count: int) -> list[int]:
    """The correctness input seeds of one configuration (distinct)."""
    seeds: list[int] = []
    index = 0
    while len(seeds) < count:
        seed = derived_seed(secret, config, "inputs", index)
        if seed not in seeds:
            seeds.append(seed)
        index += 1
    return seeds


def pool_seeds(secret: int, config: str, count: int) -> list[int]:
    """The timing pool's input seeds of one configuration."""
    return [derived_seed(secret, config, "timing-pool", index) for index in range(count)]


def bank_seed(secret: int) -> int:
    """The seed of the factors that make a check's timed inputs fresh; never 0 (0 means
    "no bank" on the wire). One for all configurations: the workers keep one bank (which
    call gets which factors is the parent's offset draw, per call)."""
    return derived_seed(secret, "", "timing-bank", 0) or 1
