"""Resynchronisation over crafted TubeMQ block chains (issue 24, item 20), on both backends.

The recipe: a TubeMQ header claiming 3,584 blocks of 12 bytes, each block itself such a header, so that
every 16th offset of the file starts a frame of 3,584 blocks whose RPC stream (16 KB announced by its
first varint) is no valid RpcConnHeader. 512 KB scanned at about 40 KB/s (12 s): each offset rebuilt
its blocks and re-joined their data. Now a walk that starts inside the run of blocks the previous one
decoded takes its blocks as a slice, and the RPC layer reads the run's data, joined once, so the cost
per offset is a small constant whatever the claimed block count. The bounds are CPU seconds (the
process's own, so that a loaded machine does not fail them), generous for a 2-core CI runner.
"""
from __future__ import annotations

import random
import struct
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inlong_proto import DecodeError, decode, iter_frames
from inlong_proto.backends import compiled as native
from inlong_proto.core import protocols
from inlong_proto.core.block_walks import Chains
from inlong_proto.core.frames import decode_at

from test_recovery import VALID, plain_rows, rows_of

SIZE = 512 << 10
BOUND_S = 2.0  # 512 KB in under 2 CPU seconds (0.26 MB/s); about 0.9 s on a 2-core dev box (12.6 s before)


def tubemq_chains(size: int, count: int = 3584) -> bytes:
    """The issue's recipe (tools/bench/codecs.py's): a header claiming `count` blocks, then blocks of 12 bytes,
    each block's data itself that header."""
    header = b"\xff\x7f\xf4\xfe" + struct.pack(">ii", 7, count)
    return (header + (struct.pack(">i", 12) + header) * (size // 16 + 1))[:size]


def cpu_seconds(call) -> tuple[float, object]:
    started = time.process_time()
    result = call()
    return time.process_time() - started, result


def test_a_crafted_chain_scans_fast_on_the_pure_backend(monkeypatch):
    monkeypatch.setenv(native.ENV, "python")
    data = tubemq_chains(SIZE)
    elapsed, rows = cpu_seconds(lambda: list(iter_frames(data, "tubemq", None, "PERMISSIVE")))
    assert [(r.offset, r.length, r.error.field) for r in rows] == [(0, SIZE, "rpc.RpcConnHeader")]
    assert elapsed < BOUND_S, f"{SIZE >> 10} KB of crafted chains took {elapsed:.2f} CPU s (pure Python)"
    elapsed, batches = cpu_seconds(lambda: list(native.iter_batches(data, "tubemq")))
    assert sum(b.num_rows for b in batches) == 1
    assert elapsed < BOUND_S, f"{SIZE >> 10} KB of crafted chains took {elapsed:.2f} CPU s (pure batches)"


def test_a_crafted_chain_scans_fast_on_the_compiled_backend(monkeypatch):
    if native.backend() != "native":
        pytest.skip("the compiled backend is not built")
    monkeypatch.setenv(native.ENV, "native")
    data = tubemq_chains(SIZE)
    elapsed, batches = cpu_seconds(lambda: list(native.iter_batches(data, "tubemq")))
    rows = [row for batch in batches for row in batch.select(["offset", "length"]).to_pylist()]
    assert rows == [{"offset": 0, "length": SIZE}]
    assert elapsed < BOUND_S, f"{SIZE >> 10} KB of crafted chains took {elapsed:.2f} CPU s (compiled)"
    assert "rpc.RpcConnHeader" in batches[0].column("error")[0].as_py()


def test_the_cost_per_offset_does_not_follow_the_claimed_block_count(monkeypatch):
    """The same file with headers claiming 16 or 3,584 blocks: about the same time (it was 200x)."""
    monkeypatch.setenv(native.ENV, "python")
    small = min(cpu_seconds(lambda: list(iter_frames(tubemq_chains(SIZE // 2, 16), "tubemq", None,
                                                        "PERMISSIVE")))[0] for _ in range(2))
    large = min(cpu_seconds(lambda: list(iter_frames(tubemq_chains(SIZE // 2, 3584), "tubemq", None,
                                                        "PERMISSIVE")))[0] for _ in range(2))
    assert large < 3 * small + 0.2, (small, large)


def _rpc_stream(rng: random.Random) -> bytes:
    """An RPC stream that fails, or not, somewhere: a valid frame's data, cut, padded or overwritten."""
    blocks = decode(rng.choice(VALID["tubemq"]), "tubemq").message.blocks
    data = b"".join(block.data for block in blocks)
    kind = rng.randrange(4)
    if kind == 1:
        data = data[:rng.randrange(len(data) + 1)]
    elif kind == 2:
        data += rng.randbytes(rng.randrange(20))
    elif kind == 3 and data:
        at = rng.randrange(len(data))
        data = data[:at] + bytes([rng.randrange(256)]) + data[at + 1:]
    return data


def _chained_frames(rng: random.Random, count: int, blocks: int) -> bytes:
    """A chain whose blocks carry headers claiming `count` blocks and, behind each header, pieces of RPC
    streams: every header starts a frame over the run of blocks after it, whose payload parses partly."""
    header = b"\xff\x7f\xf4\xfe" + struct.pack(">ii", 7, count)
    stream = _rpc_stream(rng)
    out = [header]
    for index in range(blocks):
        piece = stream[index * 8:index * 8 + rng.randrange(0, 9)]
        data = header + piece if rng.random() < 0.7 else piece
        out.append(struct.pack(">i", len(data)) + data)
    return b"".join(out)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), count=st.integers(9, 60), blocks=st.integers(0, 120),
       valid=st.integers(0, 3))
def test_frames_taken_from_a_run_decode_as_a_plain_scan(seed, count, blocks, valid):
    """Rows (offsets, lengths, types, errors with their offsets) of chains whose frames' payloads fail,
    or not, at varying places, between valid frames: the same as a scan that decodes every offset
    without the memo (fresh blocks, joined apart)."""
    rng = random.Random(seed)
    data = b"".join([_chained_frames(rng, count, blocks)] + [rng.choice(VALID["tubemq"]) for _ in range(valid)]
                    + [_chained_frames(rng, count, blocks // 2), b"tail"])
    got = list(iter_frames(data, "tubemq", None, "PERMISSIVE"))
    plain = plain_rows(data, "tubemq")
    assert rows_of(got) == rows_of(plain)
    assert [r.error.offset if r.error else r.payload.to_dict() for r in got] == \
           [r.error.offset if r.error else r.payload.to_dict() for r in plain]
    # and offset by offset, as the scan asks (rows show only the first error of a span)
    proto = protocols.get("tubemq")
    memo, view = Chains(), memoryview(data)
    for pos in range(len(data) - 11):
        if data[pos:pos + 4] == b"\xff\x7f\xf4\xfe":
            assert _outcome(proto, view, pos, memo) == _outcome(proto, view, pos, None), pos


def _outcome(proto, view, pos: int, memo):
    try:
        frame, size = decode_at(proto, proto.codecs, view, pos, len(view), proto.max_frame_size, 0, None, memo)
    except DecodeError as exc:
        return type(exc).__name__, exc.offset, exc.field, exc.reason
    return size, frame and (frame.message, frame.message_type, frame.payload.to_dict())
