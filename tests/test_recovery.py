"""Recovery as a property (issue 11): one damage anywhere in a dump loses at most the damaged frame and
one neighbour (beyond the bytes a deletion pulls into the damaged frame, see lost_frames), frames and error spans tile every byte, and every reader (iter_frames, StreamDecoder fed
in pieces, the splitting reader at any split size) gives the same rows.

Resynchronisation is fast but changes nothing (issue 11, item 3): the scanner jumps over positions the
generated START filter rules out and memoises TubeMQ's block walks, and its rows equal a plain scan's,
one decode at every offset, on damaged dumps, crafted block chains and near-miss headers.

The reproducers of the issue come first: damage inside a DataProxy frame's body (28 bytes inserted,
10 deleted, 4 overwritten at offset 100) lost every later frame, and so did 38 bytes deleted across an
EventMesh frame boundary, because the open malformed span waited at a position whose plausible length
reached past the end, and the end of input closed it over everything.
"""
import random
import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inlong_proto import DecodeError, StreamDecoder, iter_frames
from inlong_proto.core import frames, protocols
from inlong_proto.generated.codec.tubemq import tubemq_frame
from inlong_proto.core.sources import BytesSource, split_count
from inlong_proto.spark.pieces import split_frames

import vectors

VALID = vectors.valid_frames()
PROTOCOLS = sorted(VALID)


def dump(protocol: str, count: int, seed: int) -> tuple[bytes, list[tuple[int, bytes]]]:
    """A dump of count frames and (offset, bytes) of each."""
    rng = random.Random(seed)
    frames, at = [], 0
    for _ in range(count):
        frame = rng.choice(VALID[protocol])
        frames.append((at, frame))
        at += len(frame)
    return b"".join(frame for _, frame in frames), frames


def damage(data: bytes, kind: str, at: int, size: int, noise: bytes) -> tuple[bytes, int, int]:
    """The damaged bytes, and the damaged range [lo, hi) of the original, and the shift after it."""
    if kind == "insert":
        return data[:at] + noise[:size] + data[at:], (at, at), size
    if kind == "overwrite":
        return data[:at] + noise[:size] + data[at + size:], (at, min(len(data), at + size)), 0
    return data[:at] + data[at + size:], (at, min(len(data), at + size)), -min(size, len(data) - at)


def lost_frames(protocol: str, data: bytes, frames, damaged: bytes, span, shift: int) -> int:
    """Undamaged frames of the original that the PERMISSIVE read of the damaged bytes does not give back
    at their (shifted) place, and a check that frames and spans tile every byte.

    Excused: the frames that lie inside a frame that was read across the damage. Its length fields
    decoded, so it claims what they say, over whatever is there: a deletion pulls the next bytes in, a
    changed length (a TubeMQ block_len) reaches further; framing without a checksum cannot tell. Only
    what follows such a frame is held to the bound.
    """
    rows = list(iter_frames(damaged, protocol, None, "PERMISSIVE"))
    assert sum(row.length for row in rows) == len(damaged)
    assert all(a.offset + a.length == b.offset for a, b in zip(rows, rows[1:]))
    found = {(row.offset, row.length) for row in rows if row.error is None}
    lo, hi = span
    damaged_end = hi + shift if shift >= 0 else lo  # where the damage ends in the damaged bytes
    reach = max([row.offset + row.length for row in rows
                 if row.error is None and row.offset <= damaged_end and row.offset + row.length > lo] or [lo])
    reach = reach - shift if reach > damaged_end else reach  # back in the original's offsets
    lost = 0
    for offset, frame in frames:
        end = offset + len(frame)
        if end <= lo:
            lost += (offset, len(frame)) not in found
        elif offset >= max(hi, reach) and not (offset == lo == hi):
            lost += (offset + shift, len(frame)) not in found
    return lost


REPRODUCERS = [("dataproxy", "insert", 100, 28), ("dataproxy", "delete", 100, 10),
               ("dataproxy", "overwrite", 100, 4), ("eventmesh", "delete", None, 38)]


@pytest.mark.parametrize("protocol, kind, at, size", REPRODUCERS)
def test_issue_reproducers_recover_every_undamaged_frame(protocol, kind, at, size):
    data, frames = dump(protocol, 15 if protocol == "dataproxy" else 40, seed=1)
    if at is None:  # across a frame boundary
        at = frames[len(frames) // 2][0] - size // 2
    damaged, span, shift = damage(data, kind, at, size, random.Random(2).randbytes(64))
    assert lost_frames(protocol, data, frames, damaged, span, shift) <= 1


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(protocol=st.sampled_from(PROTOCOLS), seed=st.integers(0, 2**16), kind=st.sampled_from(["insert", "overwrite", "delete"]),
       where=st.floats(0, 1), size=st.integers(1, 64), noise=st.binary(min_size=64, max_size=64))
def test_one_damage_loses_at_most_the_damaged_frame_and_one_neighbour(protocol, seed, kind, where, size, noise):
    data, frames = dump(protocol, 12, seed)
    at = int(where * (len(data) - 1))
    damaged, span, shift = damage(data, kind, at, size, noise)
    assert lost_frames(protocol, data, frames, damaged, span, shift) <= 1


def test_a_live_stream_does_not_hold_frames_behind_garbage_longer_than_the_limit():
    """A garbage candidate claims a plausible length: the frames behind it wait at most until the claim
    is decided, never past max_frame_size bytes."""
    data, frames = dump("dataproxy", 30, seed=4)
    garbage = b"\x00\x00\x40\x00\x07"  # a DataProxy header claiming 16 KiB
    decoder = StreamDecoder("dataproxy", mode="PERMISSIVE")
    out = decoder.feed(garbage + data)
    assert decoder.buffered <= protocols.get("dataproxy").max_frame_size
    out += decoder.feed(bytes(protocols.get("dataproxy").max_frame_size))
    assert sum(row.error is None for row in out) >= len(frames)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(protocol=st.sampled_from(PROTOCOLS), seed=st.integers(0, 2**16), kind=st.sampled_from(["insert", "overwrite", "delete"]),
       where=st.floats(0, 1), size=st.integers(1, 64), noise=st.binary(min_size=64, max_size=64),
       cuts=st.lists(st.integers(1, 200), min_size=1, max_size=30), split=st.integers(16, 600))
def test_every_reader_gives_the_rows_of_iter_frames(protocol, seed, kind, where, size, noise, cuts, split):
    """Error texts hold no buffer positions, so a stream fed in pieces (its buffer trimmed as it goes) and
    a split read give iter_frames' rows to the letter."""
    data, _ = dump(protocol, 8, seed)
    damaged, _, _ = damage(data, kind, int(where * (len(data) - 1)), size, noise)
    wanted = [(r.offset, r.length, r.message_type, None if r.error is None else str(r.error))
              for r in iter_frames(damaged, protocol, None, "PERMISSIVE")]
    decoder, got, at, index = StreamDecoder(protocol, mode="PERMISSIVE"), [], 0, 0
    while at < len(damaged):
        piece = cuts[index % len(cuts)]
        got += decoder.feed(damaged[at:at + piece])
        at, index = at + piece, index + 1
    got += decoder.close()
    assert [(r.offset, r.length, r.message_type, None if r.error is None else str(r.error)) for r in got] == wanted
    src = BytesSource(damaged)
    splits = []
    for part in range(split_count(len(damaged), split)):
        splits += split_frames(src, protocol, None, split, part)
    assert [(r.offset, r.length, r.message_type, None if r.error is None else str(r.error)) for r in splits] == wanted


# ------------------------------------------------------------------------------ fast resync, same rows


class _EveryOffset:
    """A candidate filter that rules nothing out: the scan decodes at every offset, as it used to."""

    size = 0

    @staticmethod
    def next(view, pos, stop, end):
        return min(pos, stop)


def plain_rows(data: bytes, protocol: str, direction=None, limit=None):
    """iter_frames' rows from a scan that tries every offset and walks every block list in full."""
    proto = protocols.get(protocol)
    scanner = frames.Scanner(proto, direction, "PERMISSIVE", limit or proto.max_frame_size)
    scanner.starts, scanner.chained = _EveryOffset(), False
    return list(scanner.scan(memoryview(data), 0, 0, final=True))


def rows_of(rows):
    return [(r.offset, r.length, r.message_type, r.direction, None if r.error is None else str(r.error))
            for r in rows]


def chain(count: int, blocks: int, block: int = 12, serial: int = 7) -> bytes:
    """A TubeMQ header claiming `count` blocks, then `blocks` blocks of `block` bytes, each of them
    itself such a header (padded): every header in it starts a walk through the blocks after it."""
    header = b"\xff\x7f\xf4\xfe" + struct.pack(">ii", serial, count)
    item = struct.pack(">i", block) + (header + bytes(block))[:block]
    return header + item * blocks


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(protocol=st.sampled_from(PROTOCOLS), seed=st.integers(0, 2**16), kind=st.sampled_from(["insert", "overwrite", "delete"]),
       where=st.floats(0, 1), size=st.integers(1, 64), noise=st.binary(min_size=64, max_size=64),
       junk=st.binary(max_size=300), near=st.integers(0, 255), limit=st.sampled_from([None, 64, 40000, 1 << 26]))
def test_skipping_rows_out_changes_no_row(protocol, seed, kind, where, size, noise, junk, near, limit):
    """Damage, random junk, and a valid frame's header with one byte changed (a near miss the filter must
    not rule out wrongly), under several max_frame_size: the same rows as decoding at every offset."""
    data, frames_ = dump(protocol, 6, seed)
    damaged, _, _ = damage(data, kind, int(where * (len(data) - 1)), size, noise)
    first = frames_[seed % len(frames_)][1]
    mutated = bytearray(first)
    mutated[seed % min(len(first), 17)] = near
    damaged = damaged[:len(damaged) // 2] + junk + bytes(mutated) + damaged[len(damaged) // 2:]
    got = rows_of(iter_frames(damaged, protocol, None, "PERMISSIVE", max_frame_size=limit))
    assert got == rows_of(plain_rows(damaged, protocol, None, limit))


@pytest.mark.parametrize("count, blocks, block", [(40, 60, 12), (40, 30, 12), (12, 50, 0), (3584, 20, 12),
                                                  (300, 400, 12), (9, 9, 12)])
def test_crafted_block_chains_give_the_rows_of_a_plain_scan(count, blocks, block):
    data = chain(count, blocks, block) + b"tail"
    assert rows_of(iter_frames(data, "tubemq", None, "PERMISSIVE")) == rows_of(plain_rows(data, "tubemq"))
    decoder = StreamDecoder("tubemq", mode="PERMISSIVE")
    got = []
    for at in range(0, len(data), 97):
        got += decoder.feed(data[at:at + 97])
    assert rows_of(got + decoder.close()) == rows_of(plain_rows(data, "tubemq"))


def test_the_start_filter_rules_out_only_positions_the_decoder_refuses():
    """Every one-byte change to the first bytes of every valid frame: where the filter says no frame
    begins, the decoder refuses the position whatever follows (it does not wait for more bytes)."""
    for protocol, samples in sorted(VALID.items()):
        proto = protocols.get(protocol)
        for direction in (None,) + (protocols.DIRECTIONS if proto.directional else ()):
            starts = frames.starts(protocol, direction, proto.max_frame_size)
            for sample in samples[:6]:
                for index in range(starts.size):
                    for value in range(256):
                        data = bytearray(sample)
                        data[index] = value
                        if starts.regex.match(data) is not None:
                            continue
                        for length in (starts.size, len(data)):  # refused, not waiting for more bytes
                            with pytest.raises(DecodeError):
                                frames.decode_at(proto, proto.candidates(direction), memoryview(data[:length]), 0,
                                                  length, proto.max_frame_size, 0, direction)


def test_tubemq_crafted_chains_read_each_block_header_once():
    """The issue's file: a header claiming 3,584 blocks of 12 bytes, each block itself such a header,
    128 KB. Every header walked thousands of blocks (about 16 million block decodes); now each block
    header is read a bounded number of times per scan and each block decoded once, whatever the claim."""
    data = chain(3584, (128 << 10) // 16)[:128 << 10]
    counts = {"size": 0, "decode": 0}
    size_block, decode_block = tubemq_frame.size_block, tubemq_frame.decode_block

    def counted_size(*args):
        counts["size"] += 1
        return size_block(*args)

    def counted_decode(*args):
        counts["decode"] += 1
        return decode_block(*args)

    blocks = len(data) // 16
    try:
        tubemq_frame.size_block, tubemq_frame.decode_block = counted_size, counted_decode
        rows = list(iter_frames(data, "tubemq", None, "PERMISSIVE"))
    finally:
        tubemq_frame.size_block, tubemq_frame.decode_block = size_block, decode_block
    assert [(r.offset, r.length) for r in rows] == [(0, len(data))]
    assert rows[0].error.field == "rpc.RpcConnHeader"
    assert counts["size"] <= 2 * blocks and counts["decode"] <= 2 * blocks, counts


def _outcome(call):
    try:
        message, stop = call()
    except DecodeError as exc:
        return type(exc).__name__, exc.offset, exc.field, exc.reason, getattr(exc, "claim", None)
    return message, stop


def _block(length: int) -> bytes:
    return struct.pack(">i", length) + bytes(range(256)) * (max(length, 0) // 256) + bytes(max(length, 0) % 256)


@settings(max_examples=200, deadline=None)
@given(parts=st.lists(st.one_of(st.tuples(st.just("header"), st.integers(1, 70)),
                                st.tuples(st.just("block"), st.one_of(st.integers(0, 20), st.integers(-3, 9000))),
                                st.tuples(st.just("chain"), st.tuples(st.integers(1, 40), st.integers(0, 50)))),
                      min_size=1, max_size=80),
       deltas=st.lists(st.integers(-6, 6), min_size=1, max_size=3), every=st.integers(1, 6))
def test_a_memoised_block_walk_decodes_as_the_plain_loop(parts, deltas, every):
    """One Chains answers every walk over one buffer (each header, ends near item boundaries, shortest
    first, as a scan's windows ask): each gives the items and end, or the very error (type, offset,
    field, text, claim), of the plain loop; nothing learnt under a short end misleads a longer one."""
    from inlong_proto.core.block_walks import Chains

    pieces, starts, bounds = [], [], []
    for kind, value in parts:
        bounds.append(sum(map(len, pieces)))
        if kind == "header":
            starts.append(bounds[-1])
            pieces.append(b"\xff\x7f\xf4\xfe" + struct.pack(">ii", 1, value))
        elif kind == "chain":  # headers inside blocks: neighbouring walks share their blocks
            count, blocks = value
            starts += [bounds[-1]] + [bounds[-1] + 16 + 16 * k for k in range(blocks)]
            pieces.append(chain(count, blocks))
        else:
            pieces.append(_block(value))
    buf = b"".join(pieces)
    ends = sorted({min(len(buf), max(0, bound + delta)) for bound in bounds[::every] for delta in deltas})
    ends = ends[::max(1, len(ends) // 10)]
    memo = Chains()
    for end in ends + [len(buf)]:
        for pos in starts:
            plain = _outcome(lambda: tubemq_frame.decode(buf, pos, end))
            assert _outcome(lambda: tubemq_frame.decode(buf, pos, end, "", memo)) == plain
