"""Resynchronisation over crafted TubeMQ block chains (issue 24, item 20), on both backends.

The recipe: a TubeMQ header claiming 3,584 blocks of 12 bytes, each block itself such a header, so that
every 16th offset of the file starts a frame of 3,584 blocks whose RPC stream (16 KB announced by its
first varint) is no valid RpcConnHeader. 512 KB scanned at about 40 KB/s (12 s): each offset rebuilt
its blocks and re-joined their data. Now a walk that starts inside the run of blocks the previous one
decoded takes its blocks as a slice, and the RPC layer reads the run's data, joined once, so the work
per offset is a small constant whatever the claimed block count. The pure paths' work is counted (the
function calls made, tests/work.py, and the bytes chains.Joined joins), never timed; the compiled scan's
speed is tools/bench/codecs.py's (resync: `make bench`).
"""
from __future__ import annotations

import random
import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inlong_proto import DecodeError, decode, iter_frames
from inlong_proto.backends import compiled as native
from inlong_proto.core import protocols
from inlong_proto.core.block_walks import Chains, Joined
from inlong_proto.core.frames import decode_at

from test_recovery import VALID, plain_rows, rows_of
from work import calls

SIZE = 256 << 10
LINEAR = 2.2  # twice the bytes: at most this many times the work (linear, and a tenth for the file's ends)
SAME = 1.2  # 3,584 blocks claimed rather than 16: at most this many times the work (it was 200 times)


def tubemq_chains(size: int, count: int = 3584) -> bytes:
    """The issue's recipe (tools/bench/codecs.py's): a header claiming `count` blocks, then blocks of 12 bytes,
    each block's data itself that header."""
    header = b"\xff\x7f\xf4\xfe" + struct.pack(">ii", 7, count)
    return (header + (struct.pack(">i", 12) + header) * (size // 16 + 1))[:size]


@pytest.fixture
def joined_bytes(monkeypatch) -> list[int]:
    """[bytes of block data joined so far by every chains.Joined]: the C work of joining, counted."""
    total = [0]
    reach = Joined.reach

    def counting(self, stop: int, last: int) -> int:
        before = len(self.data)
        try:
            return reach(self, stop, last)
        finally:
            total[0] += len(self.data) - before

    monkeypatch.setattr(Joined, "reach", counting)
    return total


def scan_work(scan, data: bytes, joined_bytes: list[int]) -> tuple[int, int, list]:
    """(calls, bytes joined, result) of scan(data)."""
    before = joined_bytes[0]
    count, result = calls(lambda: list(scan(data)))
    return count, joined_bytes[0] - before, result


def pure_rows(data: bytes) -> list:
    return list(iter_frames(data, "tubemq", None, "PERMISSIVE"))


def pure_batches(data: bytes) -> list:
    return list(native.iter_batches(data, "tubemq"))


def test_a_crafted_chain_scans_in_work_linear_in_its_size_on_the_pure_backend(monkeypatch, joined_bytes):
    """Both pure paths (iter_frames and the batches of the pure backend): twice the file, twice the work,
    and no block's data joined twice (a frame at every 16th offset re-joined 16 KB of it, 1,000 times over)."""
    monkeypatch.setenv(native.ENV, "python")
    for scan in (pure_rows, pure_batches):
        pure_rows(tubemq_chains(4096))  # imports and caches, outside the counts
        half, half_joined, _ = scan_work(scan, tubemq_chains(SIZE // 2), joined_bytes)
        whole, whole_joined, result = scan_work(scan, tubemq_chains(SIZE), joined_bytes)
        if scan is pure_rows:
            assert [(r.offset, r.length, r.error.field) for r in result] == [(0, SIZE, "rpc.RpcConnHeader")]
        else:
            assert sum(batch.num_rows for batch in result) == 1
        assert half_joined <= SIZE // 2 and whole_joined <= SIZE, (scan.__name__, half_joined, whole_joined)
        assert whole <= LINEAR * half, (scan.__name__, half, whole)


def test_a_crafted_chain_is_one_error_span_on_the_compiled_backend(monkeypatch):
    """The compiled scan gives the pure one's row; its speed over the recipe is tools/bench/codecs.py's."""
    if native.backend() != "native":
        pytest.skip("the compiled backend is not built")
    monkeypatch.setenv(native.ENV, "native")
    data = tubemq_chains(SIZE)
    batches = list(native.iter_batches(data, "tubemq"))
    rows = [row for batch in batches for row in batch.select(["offset", "length"]).to_pylist()]
    assert rows == [{"offset": 0, "length": SIZE}]
    assert "rpc.RpcConnHeader" in batches[0].column("error")[0].as_py()


def test_the_work_per_offset_does_not_follow_the_claimed_block_count(monkeypatch, joined_bytes):
    """The same file with headers claiming 16 or 3,584 blocks: about the same work (it was 200 times)."""
    monkeypatch.setenv(native.ENV, "python")
    pure_rows(tubemq_chains(4096))
    few, few_joined, _ = scan_work(pure_rows, tubemq_chains(SIZE // 2, 16), joined_bytes)
    many, many_joined, _ = scan_work(pure_rows, tubemq_chains(SIZE // 2, 3584), joined_bytes)
    assert many_joined <= SIZE // 2, (few_joined, many_joined)
    assert many <= SAME * few, (few, many)


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
