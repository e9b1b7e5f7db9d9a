"""Which elements of a timed call's output the parent compares (docs/design/timing.md,
"Reading a sample of each output").

The parent reads a drawn call's output from the frozen candidate element by element, and
the reference worker sends the same elements of its own output for that call: both
derive the positions from a seed the parent draws after the batch ran, so neither the
reference's file nor the read carries the whole output, and nothing in the candidate's
process can know the positions while it could still act on them. Pure Python, as the
rest of the protocol: the positions are plain flat (row-major) indices.
"""

from __future__ import annotations

import random
from array import array

#: Elements compared per output tensor and checked call; a tensor with at most this many
#: is compared whole. A call wrong on a share g of its elements escapes one read with
#: probability (1 - g)^SAMPLED_ELEMENTS: 3.5e-5 at g = 0.5%.
SAMPLED_ELEMENTS = 2048


def sample_positions(seed: int, call: int, leaf: int, numel: int) -> list[int]:
    """The flat positions compared in output tensor ``leaf`` (of ``numel`` elements) of
    batch call ``call``: every position of a small tensor, else ``SAMPLED_ELEMENTS``
    drawn uniformly (with replacement), sorted so the reads walk memory forward.

    One 64-bit word per position, all drawn in one call and reduced modulo ``numel`` (a
    bias below numel / 2^64, nothing at any output's size): 0.17 ms per read call against
    0.25 drawn one ``choices`` element at a time (``bench/output_reads.py``), in the
    parent and the reference worker alike."""
    if numel <= SAMPLED_ELEMENTS:
        return list(range(numel))
    draw = random.Random(f"{seed}/{call}/{leaf}")  # a string seed is hashed whole
    words = array("Q", draw.getrandbits(64 * SAMPLED_ELEMENTS).to_bytes(8 * SAMPLED_ELEMENTS,
                                                                          "little"))
    return sorted([word % numel for word in words])
