"""The typed worker protocol: every operation's request and reply round-trip, and a reply
whose fields do not have their types is refused (it came from candidate code)."""

from __future__ import annotations

import pytest

from kerneltrials.verifier import protocol as wire
from kerneltrials.verifier.protocol import MalformedMessage, from_wire, to_wire

pytestmark = pytest.mark.timeout(30)

RUN_REPORT = {"structures": [{"type": "torch.Tensor", "exact_tensor": True}],
              "integrity": [], "kernel_calls": [1, 1], "ops": ["aten.add"],
              "custom_share": 0.5, "aliases_input": False,
              "replays": [{"index": 0, "name": "relu", "poisoned": 4}], "readdressed": True}


def test_every_operation_has_a_request_type_with_its_reply() -> None:
    assert set(wire.REQUESTS) == {"load_task", "load_candidate", "setup", "inputs", "reference",
                                  "pool_reference", "fresh_reference", "run", "save_kept", "time", "grad",
                                  "profile", "collect", "compile", "exit"}


def test_a_request_round_trips_through_its_frame() -> None:
    request = wire.Time(config="c0", mode="candidate", n_calls=7, spot=[3], spot_path="/x.pt")
    frame = wire.request_frame(request)
    assert frame["op"] == "time" and wire.parse_request(frame) == request


def test_a_reply_is_read_typed_with_its_envelope_ignored() -> None:
    reply = wire.Run(config="c", inputs_path="i", path="p", replay=True, seed=1).read_reply(
        {"ok": True, "nonce": "n", "worker_ms": 1.0, **RUN_REPORT})
    assert isinstance(reply, wire.RunReport)
    assert reply.replays == [wire.Replay(index=0, name="relu", poisoned=4)]
    assert reply.kernel_calls == [1, 1] and reply.custom_share == 0.5


@pytest.mark.parametrize("change", [
    {"kernel_calls": ["1"]},  # a string where the parent counts
    {"kernel_calls": [True]},  # a bool is not an int
    {"integrity": "integrity:x"},  # not a list
    {"custom_share": "0.5"},
    {"aliases_input": 0},
    {"replays": [{"index": 0, "name": "relu"}]},  # a field missing
    {"replays": [{"index": 0, "name": "relu", "poisoned": 1, "extra": 2}]},  # one too many
    {"kept": [[{"address": "0x10", "dtype": "torch.float32", "shape": [1], "strides": [1],
                "device": "cpu"}]]},  # the kept tensors' regions are typed as the timed ones
    {"kept": [{"address": 16}]},  # a region where a list of them belongs
    {"unexpected": 1},
])
def test_a_reply_with_a_wrong_type_is_malformed(change: dict[str, object]) -> None:
    request = wire.Run(config="c", inputs_path="i", path="p", replay=True, seed=1)
    with pytest.raises(MalformedMessage):
        request.read_reply({**RUN_REPORT, **change})


def test_an_integer_is_accepted_as_a_float_and_optional_fields_take_none() -> None:
    timed = from_wire(wire.Timed, {"times_ms": [1, 2.5], "kernel_calls": None})
    assert timed.times_ms == [1.0, 2.5] and timed.kernel_calls is None and timed.spots == []


def test_build_requests_cross_as_typed_values() -> None:
    request = wire.BuildRequest.from_load_inline("cpu", "e", ["int f();"], functions={"f": "d"})
    message = wire.Compile(request=request, module_name="m", out_dir="/o", details={})
    assert from_wire(wire.Compile, to_wire(message)) == message


def test_the_tree_walker_maps_flattens_and_pairs() -> None:
    tree = [1, (2, [3]), 4]
    assert wire.map_leaves(tree, lambda x: x * 10) == [10, (20, [30]), 40]
    assert wire.leaves(tree) == [1, 2, 3, 4]
    assert wire.paired_leaves(tree, ["a", ("b", ["c"]), "d"]) == [
        (1, "a"), (2, "b"), (3, "c"), (4, "d")]
    assert wire.paired_leaves(tree, [1, (2, 3), 4]) is None  # a branch against a leaf
    assert wire.paired_leaves([1, 2], [1, 2, 3]) is None


def test_the_walkers_survive_trees_nested_as_deep_as_a_forged_reply_can() -> None:
    deep: object = {"type": "torch.Tensor"}
    for _ in range(5000):
        deep = [deep]
    assert wire.leaves(deep) == [{"type": "torch.Tensor"}]
    assert wire.paired_leaves(deep, deep) == [({"type": "torch.Tensor"},) * 2]
    assert wire.paired_leaves(deep, [deep]) is None


def _frame_of(body: bytes) -> dict[str, object]:
    import socket
    import struct

    from kerneltrials.verifier.protocol._frames import recv_frame

    ours, theirs = socket.socketpair()
    with ours, theirs:
        theirs.sendall(struct.pack(">I", len(body)) + body)
        return recv_frame(ours, timeout_s=5)


def test_a_frame_nested_past_the_parsers_depth_is_malformed_not_a_crash() -> None:
    # json.loads recurses once per level and raises RecursionError, no ValueError: it
    # escaped the reader and check() itself raised (tests/verifier/native_exchange/).
    from kerneltrials.verifier.protocol._frames import MalformedFrame

    with pytest.raises(MalformedFrame, match="nests deeper"):
        _frame_of(b"[" * 20_000 + b"]" * 20_000)  # within one socket buffer
    with pytest.raises(MalformedFrame, match="not JSON"):
        _frame_of(b"{\"op\": ")
    assert _frame_of(b'{"ok": true}') == {"ok": True}
