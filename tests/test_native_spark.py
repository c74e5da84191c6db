"""The Spark readers' batches (native.range_batches through pieces.split_batches and read_dumps' Arrow
UDTF) equal the pure rows exactly, on whichever backend runs: split by split, in every mode, with the source
read window by window as a remote object is, and with batches cut small so that every hand-over between
the compiled scan and the pure scanner, and every window edge, is crossed many times.
"""
import random

import pytest

from inlong_proto.core import arrow, protocols
from inlong_proto import iter_frames
from inlong_proto.backends import compiled as native
from inlong_proto.spark.dumps import DumpDecodeError
from inlong_proto.core.sources import BytesSource, split_count
from inlong_proto.core.arrow import auto_of, auto_schema
from inlong_proto.spark.pieces import split_batches, split_frames

import vectors

pa = pytest.importorskip("pyarrow")

PROTOCOLS = sorted(protocols.names())
VALID = vectors.valid_frames()


def damaged_dump(protocol: str, seed: int, count: int = 120) -> bytes:
    """Valid frames with flipped bytes, inserted garbage and a cut tail: errors among long valid stretches."""
    rng = random.Random(seed)
    out = bytearray(b"".join(rng.choice(VALID[protocol]) for _ in range(count)))
    for _ in range(6):
        out[rng.randrange(len(out))] = rng.randrange(256)
    for _ in range(2):
        at = rng.randrange(len(out))
        out[at:at] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 60)))
    return bytes(out[:len(out) - rng.randrange(0, 20)])


class WindowedSource(BytesSource):
    """A source that, like sources.RangeSource, has only the bytes asked for: the others read as zeros."""

    ahead = 97

    def __init__(self, data: bytes):
        super().__init__(data)
        self.real = self.buffer
        self.buffer = bytearray(len(data))

    def ensure(self, start: int, stop: int) -> None:
        self.buffer[start:stop] = self.real[start:stop]


def pure_rows(data: bytes, protocol: str, mode: str, path: str = "p"):
    rows = arrow.frames_to_batch(path, list(iter_frames(data, protocol, None, mode)), protocol).to_pylist()
    return rows


def batches_rows(batches) -> list[dict]:
    return [row for batch in batches for row in batch.to_pylist()]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_range_batches_equal_the_pure_rows(protocol, seed):
    data = damaged_dump(protocol, seed)
    for mode in ("PERMISSIVE", "DROPMALFORMED"):
        want = pure_rows(data, protocol, mode)
        for batch_rows, batch_bytes in ((65536, 16 << 20), (3, 200)):
            got = native.range_batches(memoryview(data), protocol, "p", None, mode, 0, len(data),
                                       batch_rows=batch_rows, batch_bytes=batch_bytes)
            assert batches_rows(got) == want
            windowed = WindowedSource(data)
            with memoryview(windowed.buffer) as view:
                got = native.range_batches(view, protocol, "p", None, mode, 0, len(data), source=windowed,
                                           batch_rows=batch_rows, batch_bytes=batch_bytes)
                assert batches_rows(got) == want


@pytest.mark.parametrize("split", [61, 500])
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_split_batches_equal_split_frames(protocol, split):
    data = damaged_dump(protocol, split)
    for index in range(split_count(len(data), split)):
        frames = list(split_frames(BytesSource(data), protocol, None, split, index))
        want = arrow.frames_to_batch("p", frames, protocol).to_pylist()
        assert batches_rows(split_batches(BytesSource(data), "p", protocol, None, "PERMISSIVE", split, index)) == want
        windowed = WindowedSource(data)
        assert batches_rows(split_batches(windowed, "p", protocol, None, "PERMISSIVE", split, index, rows=2)) == want
        dropped = [row for row in want if row["error"] is None]
        assert batches_rows(split_batches(BytesSource(data), "p", protocol, None, "DROPMALFORMED", split,
                                          index)) == dropped


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_failfast_names_the_file_and_the_first_error(protocol):
    data = damaged_dump(protocol, 7)
    first = next(row for row in pure_rows(data, protocol, "PERMISSIVE") if row["error"] is not None)
    with pytest.raises(DumpDecodeError) as raised:
        for _ in split_batches(BytesSource(data), "dump.bin", protocol, None, "FAILFAST", len(data), 0):
            pass
    assert str(raised.value) == f"dump.bin: {first['error']}"


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_auto_of_puts_the_columns_in_the_protocols_struct(protocol):
    data = damaged_dump(protocol, 3)
    batch = arrow.frames_to_batch("p", list(iter_frames(data, protocol, None, "PERMISSIVE")), protocol)
    auto = auto_of(batch, protocol)
    assert auto.schema == auto_schema()
    column = protocols.column_name(protocol)
    for row, frame_row in zip(auto.to_pylist(), batch.to_pylist()):
        own = {k: v for k, v in frame_row.items() if k in auto_schema().field(column).type.names}
        assert row[column] == (None if frame_row["error"] else own)
        assert all(row[protocols.column_name(other)] is None for other in protocols.every_name() if other != protocol)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_sync_points_are_the_same_on_both_backends(protocol, monkeypatch):
    """The walker's verdicts (compiled where built) change the time a sync point takes, never where it is."""
    from inlong_proto.spark.pieces import DumpWalker

    data = damaged_dump(protocol, 11, count=300)
    found = {}
    for backend in ("native", "python"):
        monkeypatch.setenv("INLONG_PROTO_BACKEND", backend if native.extension() is not None else "python")
        src = BytesSource(data)
        with memoryview(src.buffer) as view:
            walker = DumpWalker(src, protocol, None, view)
            found[backend] = [walker.sync(start, start + 400) for start in range(1, len(data), 37)]
            del walker
    assert found["native"] == found["python"]


@pytest.mark.compiled
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_structural_verdict_is_the_frame_layouts_own(protocol):
    """frame_verdict(structural=True): a size exactly where frames.decode_with decodes the layout alone."""
    from inlong_proto.core.errors import DecodeError
    from inlong_proto.core.frames import decode_with

    verdict = native.frame_verdict(protocol, structural=True)
    assert verdict is not None, f"every framed protocol has a compiled scanner, {protocol} none"
    codecs = protocols.get(protocol).candidates(None)
    data = damaged_dump(protocol, 5)
    limit = protocols.get(protocol).max_frame_size
    with memoryview(data) as view:
        for pos in range(len(data)):
            size = verdict(view, pos, len(data), limit)
            if size == native.ASK_PYTHON:
                continue
            sizes = []
            for codec in codecs:
                try:
                    message, length = decode_with(codec, view, pos, len(data), limit)
                except DecodeError:
                    continue
                if message is not None:
                    sizes.append(length)
            if size == native.NO_FRAME:
                assert not sizes, pos
            else:
                assert sizes and sizes[0] == size, pos


@pytest.mark.parametrize("mode", ["PERMISSIVE", "DROPMALFORMED", "FAILFAST"])
def test_small_captures_take_the_compiled_walker_with_the_chunked_readers_rows(mode, monkeypatch):
    """format("inlong") reads a capture of at most CAPTURE_WHOLE bytes whole, through capture.native_path:
    its rows (and FAILFAST's error) are those of the chunked CaptureDecoder path it replaces."""
    from inlong_proto.spark import pieces
    from inlong_proto.backends import compiled_capture as native_path
    from tests.capture.test_native_capture import many_flows
    from inlong_proto.capture.writer import pcap_file

    walked = []
    real = native_path.capture_batches
    monkeypatch.setattr(native_path, "capture_batches", lambda *a, **kw: walked.append(a[1]) or real(*a, **kw))

    def read(data: bytes, protocol: str, whole: int):
        monkeypatch.setattr(pieces, "CAPTURE_WHOLE", whole)
        try:
            return batches_rows(pieces.capture_batches(BytesSource(data), "c.pcap", protocol, mode, rows=50))
        except DumpDecodeError as exc:
            return str(exc)

    for protocol in ("broadcast", "dataproxy", "tubemq", "eventmesh"):
        data = pcap_file(many_flows(protocol, 8, seed=3))
        chunked = read(data, protocol, whole=-1)
        assert not walked
        assert read(data, protocol, whole=len(data)) == chunked
        assert walked == ([protocol] if native_path.native.backend() == "native" else [])
        walked.clear()
