"""The elements of an output that a sampled check compares: the reference worker sends
them for a checked timed call, and the parent takes the same from an output it holds
(the positions: ``protocol.sample_positions``)."""

from __future__ import annotations

from typing import Any

import torch

from kerneltrials.verifier.protocol import leaves, sample_positions


def _scale(tensor: torch.Tensor) -> float:
    """The largest magnitude of the whole tensor, which the comparison normalises by (a
    sample's own largest would be smaller, and the normalised error of an honest output
    larger than over the whole)."""
    if tensor.is_complex():
        tensor = torch.view_as_real(tensor)
    if not tensor.is_floating_point() or not tensor.numel():
        return 0.0
    # From the extremes, not ``abs().amax()``: no temporary the size of the output
    # (0.96 -> 0.47 ms on a 16 MB one); NaN propagates through ``maximum`` as through amax.
    low, high = torch.aminmax(tensor.detach())
    return float(torch.maximum(low.neg(), high))


def sampled_output(output: Any, seed: int, call: int) -> list[dict[str, Any]]:
    """Per tensor leaf of ``output`` (depth first): the sampled elements in flat order
    (``values``, on the host), the leaf's ``shape`` and its ``scale``."""
    records = []
    tensors = [leaf for leaf in leaves(output) if isinstance(leaf, torch.Tensor)]
    for index, tensor in enumerate(tensors):
        positions = torch.tensor(sample_positions(seed, call, index, tensor.numel()),
                                 dtype=torch.long, device=tensor.device)
        values = tensor.detach().reshape(-1)[positions].cpu()
        records.append({"values": values, "shape": list(tensor.shape), "scale": _scale(tensor)})
    return records
