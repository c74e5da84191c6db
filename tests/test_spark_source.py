"""format("inlong"): split files, stitched exactly once, equal to read_dumps; protocol=auto.

The split/stitch logic is tested without Spark against iter_frames (what read_dumps runs per file), on
dumps built from the test vectors, corrupted ones, adversarial ones (whole valid frames inside
payloads) and degenerate ones. A few tests at the end go through Spark.
"""
import os
import random
from pathlib import Path

import pytest

from inlong_proto import DecodeError, encode, iter_frames
from inlong_proto.core import protocols
from inlong_proto.core.arrow import frame_row
from inlong_proto.core.frames import decode_at
from inlong_proto.spark.dumps import DumpDecodeError
from inlong_proto.core.arrow import AUTO
from inlong_proto.core.sources import BytesSource, FileSource, file_uri, list_files, split_count
from inlong_proto.spark.source import InlongReader, Options
from inlong_proto.spark.pieces import (DumpWalker, found_protocols, parse_size, plan, read_split, split_bounds,
                                       split_frames)

import vectors

PROTOCOLS = sorted(protocols.names())
CAPTURE = Path(__file__).resolve().parent.parent / "examples" / "data" / "mixed.pcap"
VALID = vectors.valid_frames()


def dump(protocol: str, count: int = 40, seed: int = 0) -> bytes:
    rng = random.Random(seed)
    return b"".join(rng.choice(VALID[protocol]) for _ in range(count))


def corrupt(data: bytes, seed: int) -> bytes:
    """Flipped bytes, an inserted run of garbage and a cut-off tail."""
    rng = random.Random(seed)
    out = bytearray(data)
    for _ in range(4):
        out[rng.randrange(len(out))] = rng.randrange(256)
    at = rng.randrange(len(out))
    out[at:at] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40)))
    return bytes(out[:len(out) - rng.randrange(1, 20)])


def rows(frames, path="p") -> list[dict]:
    """Frames as the table rows they become (error as text, message fields as columns)."""
    return [frame_row(path, frame) for frame in frames]


def expected(data: bytes, protocol: str, direction=None) -> list[dict]:
    return rows(iter_frames(data, protocol, direction, "PERMISSIVE"))


def all_splits(data: bytes, protocol: str, split: int, direction=None) -> list[dict]:
    src = BytesSource(data)
    out = []
    for index in range(split_count(len(data), split)):
        out += rows(split_frames(src, protocol, direction, split, index))
    return out


def assert_tiles(found: list[dict], size: int) -> None:
    position = 0
    for row in sorted(found, key=lambda r: r["offset"]):
        assert row["offset"] == position, row
        position += row["length"]
    assert position == size


# --- splits equal the sequential scan ---------------------------------------------------------------


@pytest.mark.parametrize("split", [64, 97, 1000])
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_splits_of_a_vector_dump_equal_iter_frames(protocol, split):
    data = dump(protocol)
    found = all_splits(data, protocol, split)
    assert found == expected(data, protocol)
    assert_tiles(found, len(data))
    assert all(row["error"] is None for row in found)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_splits_of_a_corrupted_dump_equal_iter_frames(protocol, seed):
    data = corrupt(dump(protocol, 30, seed), seed)
    want = expected(data, protocol)
    assert any(row["error"] for row in want)  # the corruption shows
    for split in (64, 250):
        found = all_splits(data, protocol, split)
        assert found == want, split
        assert_tiles(found, len(data))


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_degenerate_files(protocol):
    for data in (b"", bytes(1500), b"\x01", dump(protocol, 3)[:-1], b"\xff" * 500):
        found = all_splits(data, protocol, 64)
        assert found == expected(data, protocol)
        assert_tiles(found, len(data))


def test_direction_is_applied_as_in_read_dumps():
    data = dump("dataproxy", 40, 3)  # requests and responses mixed: the responses become error spans
    for direction in ("request", "response"):
        want = expected(data, "dataproxy", direction)
        assert any(row["error"] for row in want)
        assert all_splits(data, "dataproxy", 64, direction) == want


# --- adversarial data: payloads that hold headers and whole frames ------------------------------------


def _nested_dataproxy() -> bytes:
    from inlong_proto.dataproxy import builders

    inner = b"".join(VALID["dataproxy"][:6])  # request vectors
    outer = encode(builders.bin_request([inner, inner[:50]], group_id="g", stream_id="s",
                                        data_time_ms=1_700_000_000_000, unique_id=7, report_time_ms=None))
    return outer


def _nested_eventmesh() -> bytes:
    from inlong_proto.eventmesh import tcp
    from inlong_proto.generated.codec.eventmesh import tcp_frame

    inner = b"".join(VALID["eventmesh"][:8])  # SYS_LOG_TO_LOGSERVER bodies are not interpreted
    header = tcp.dumps(tcp.header("SYS_LOG_TO_LOGSERVER", seq="1").to_json())
    return encode(tcp_frame.TcpFrame(package=tcp_frame.Package(header=header, body=inner)))


def _nested_tubemq() -> bytes:
    from inlong_proto.tubemq import rpc

    inner = b"".join(VALID["tubemq"][:8])
    message = rpc.message_class("SendMessageRequestP2B")(clientId="c", topicName="t", partitionId=0, data=inner,
                                                         flag=0, checkSum=-1, sentAddr=1)
    return encode(rpc.request_frame(3, "sendMessageP2B", message))


NESTED = {"dataproxy": _nested_dataproxy, "eventmesh": _nested_eventmesh, "tubemq": _nested_tubemq}


def _chain(data: bytes, protocol: str, pos: int, count: int) -> bool:
    """Whether `count` frames decode back to back from pos (what chain verification would accept)."""
    proto = protocols.get(protocol)
    for _ in range(count):
        try:
            frame, size = decode_at(proto, proto.codecs, data, pos, len(data), proto.max_frame_size, 0, None)
        except DecodeError:
            return False
        if frame is None:
            return False
        pos += size
    return True


@pytest.mark.parametrize("protocol", sorted(NESTED))
def test_whole_frames_inside_payloads_are_not_taken_for_frames(protocol):
    outer = NESTED[protocol]()
    data = outer * 3
    want = expected(data, protocol)
    assert [(r["offset"], r["length"], r["error"]) for r in want] == [
        (i * len(outer), len(outer), None) for i in range(3)]
    # The data is adversarial: offsets inside the payload start chains of several valid frames.
    inner_start = data.find(VALID[protocol][0], 1)
    assert 0 < inner_start < len(outer) and _chain(data, protocol, inner_start, 4)
    for split in (64, 101, len(outer) // 2, inner_start):
        assert all_splits(data, protocol, split) == want, split


def test_broadcast_values_and_junk_that_look_like_headers():
    from datetime import datetime

    from inlong_proto.generated.codec.broadcast import broadcast_frame as b

    def response(value):
        return encode(b.BroadcastFrame(body=b.DataResponse(status=b.Status.real_time, data=value,
                                                           timestamp=datetime(2024, 1, 1))))

    fake_header = b"\x00\x00\x00\x26\x00\x00\x00\x01"  # a response header, then no valid body
    data = b"".join([response(38), response(37), fake_header, response(0x26), fake_header * 3,
                     response(1), fake_header + b"[2024-01-01 00:00:00.000]", response(2), fake_header[:5]])
    want = expected(data, "broadcast")
    assert sum(row["error"] is not None for row in want) == 4
    for split in (8, 16, 40, 64):
        assert all_splits(data, "broadcast", split) == want, split


# --- the invariants the stitching relies on -------------------------------------------------------------


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_skipped_positions_are_certainly_malformed(protocol):
    """DumpWalker.candidate skips a position only if the scan's own decode there raises a DecodeError."""
    rng = random.Random(5)
    data = corrupt(dump(protocol, 12, 5), 5) + bytes(rng.randrange(256) for _ in range(300))
    src = BytesSource(data)
    proto = protocols.get(protocol)
    with memoryview(src.buffer) as view:
        walker = DumpWalker(src, protocol, None, view)
        position, checked = 0, 0
        while position < len(data):
            following = walker.candidate(position, len(data))
            for skipped in range(position, following):
                with pytest.raises(DecodeError):
                    decode_at(proto, walker.codecs, view, skipped, len(data), proto.max_frame_size, 0, None)
                checked += 1
            position = following + 1
    assert checked > len(data) // 2


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_sync_points_are_frame_ends_of_the_sequential_scan(protocol):
    data = corrupt(dump(protocol, 30, 9), 9)
    want = expected(data, protocol)
    frame_ends = {row["offset"] + row["length"] for row in want if row["error"] is None}
    src = BytesSource(data)
    found = 0
    for split in (64, 300):
        for index in range(1, split_count(len(data), split)):
            bounds = split_bounds(src, protocol, None, split, index)
            if bounds is not None:
                assert bounds[0] in frame_ends
                assert index * split <= bounds[0] < (index + 1) * split
                found += 1
    assert found  # most splits do start somewhere


# --- modes and auto, through the reader without Spark ---------------------------------------------------


def test_failfast_names_the_file_and_the_first_error_of_the_split():
    data = dump("broadcast", 10) + b"\x00junk" + dump("broadcast", 10)
    first_error = next(r for r in expected(data, "broadcast") if r["error"])
    with pytest.raises(DumpDecodeError, match=rf"^dump\.bin: offset {first_error['offset']} in total_length"):
        for index in range(split_count(len(data), 64)):
            list(read_split(BytesSource(data), "dump.bin", "broadcast", None, "FAILFAST", 64, index)[1])
    _, dropped = read_split(BytesSource(data), "dump.bin", "broadcast", None, "DROPMALFORMED", 1 << 20, 0)
    assert [f.offset for f in dropped] == [r["offset"] for r in expected(data, "broadcast") if not r["error"]]


@pytest.fixture(scope="module")
def mixed(tmp_path_factory) -> Path:
    """A directory of dumps of every protocol, healthy and not, plus files that match nothing."""
    root = tmp_path_factory.mktemp("mixed")
    for i, protocol in enumerate(PROTOCOLS):
        (root / f"{protocol}.bin").write_bytes(dump(protocol, 20, i))
    (root / "nested").mkdir()
    (root / "nested" / "corrupt.bin").write_bytes(b"".join(VALID["dataproxy"][:2]) + corrupt(dump("dataproxy", 20), 1))
    (root / "nested" / "truncated.bin").write_bytes(dump("tubemq", 10)[:-7])
    (root / "nested" / "zeros.bin").write_bytes(bytes(1000))
    (root / "nested" / "empty.bin").write_bytes(b"")
    (root / "nested" / "text.log").write_bytes(b"not a dump\n" * 30)
    (root / "nested" / ".hidden.bin").write_bytes(b"skipped, as Spark skips it")
    return root


DETECTED = {**{f"{p}.bin": p for p in PROTOCOLS}, "nested/corrupt.bin": "dataproxy",
            "nested/truncated.bin": "tubemq", "nested/zeros.bin": None, "nested/text.log": None}


def _by_file(batches, root: Path) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for batch in batches:
        for row in batch.to_pylist():
            name = Path(row["path"].removeprefix("file:")).relative_to(root.resolve()).as_posix()
            out.setdefault(name, []).append(row)
    return out


def test_auto_reader_without_spark(mixed):
    options = Options({"path": str(mixed), "protocol": "auto", "splitSize": "64"})
    reader = InlongReader(options)
    parts = reader.partitions()
    assert len(parts) > 20
    files = _by_file([batch for part in parts for batch in reader.read(part)], mixed)
    assert sorted(files) == sorted(DETECTED)  # the empty file has no rows, the hidden one is skipped
    for name, protocol in DETECTED.items():
        found = sorted(files[name], key=lambda r: r["offset"])
        data = (mixed / name).read_bytes()
        assert_tiles(found, len(data))
        assert {r["protocol"] for r in found} == {protocol}
        if protocol is None:
            assert [r["error"] for r in found] == [found[0]["error"]] and "no known protocol" in found[0]["error"]
            continue
        want = expected(data, protocol)
        assert [(r["offset"], r["length"], r["message_type"], r["error"]) for r in found] == \
            [(r["offset"], r["length"], r["message_type"], r["error"]) for r in want]
        for row, plain in zip(found, want):  # the protocol's own columns, in its struct
            struct = row[protocols.column_name(protocol)]
            assert (struct is None) == (plain["error"] is not None)
            assert all(row[protocols.column_name(other)] is None for other in PROTOCOLS if other != protocol)


def test_failfast_on_a_file_that_matches_nothing(mixed):
    with FileSource(str(mixed / "nested" / "zeros.bin")) as src:
        with pytest.raises(DumpDecodeError, match=r"zeros\.bin: offset 0: no known protocol"):
            list(read_split(src, "zeros.bin", AUTO, None, "FAILFAST", 64, 0)[1])


def test_auto_carries_the_protocols_found_at_the_start_of_the_dumps(mixed, tmp_path):
    """found_protocols: what an unpinned auto table carries (the rule in spark.source's doc)."""
    assert found_protocols(str(mixed)) == tuple(PROTOCOLS)  # the unrecognised files add none
    (tmp_path / "b.bin").write_bytes(dump("tubemq", 5))
    (tmp_path / "a.bin").write_bytes(bytes(100))
    assert found_protocols(str(tmp_path)) == ("tubemq",)
    assert found_protocols(str(tmp_path), date_column="eventmesh_legacy.package") == \
        ("eventmesh-legacy", "tubemq")  # and the protocol of the dateColumn, in the registry's order
    every = tuple(protocols.every_name())
    assert found_protocols(str(tmp_path / "a.bin")) == every  # no dump any protocol reads
    (tmp_path / "c.pcap").write_bytes(CAPTURE.read_bytes())
    assert found_protocols(str(tmp_path)) == every  # a capture's flows are classified as they are read


def test_a_frame_of_a_protocol_the_table_does_not_carry_is_an_error_row(tmp_path):
    (tmp_path / "d.bin").write_bytes(dump("dataproxy", 30, 1))
    (tmp_path / "t.bin").write_bytes(dump("tubemq", 30, 2))

    def read(mode):
        reader = InlongReader(Options({"path": str(tmp_path), "protocol": "auto", "protocols": "tubemq ,",
                                       "mode": mode, "splitSize": "300"}))
        return [row for part in reader.partitions() for batch in reader.read(part) for row in batch.to_pylist()]

    every = read("PERMISSIVE")
    assert list(every[0])[8:] == ["tubemq", "capture", "date"]
    foreign = [row for row in every if row["protocol"] == "dataproxy"]
    want = expected((tmp_path / "d.bin").read_bytes(), "dataproxy")
    assert [(r["offset"], r["length"], r["direction"]) for r in foreign] == \
        [(r["offset"], r["length"], r["direction"]) for r in want]  # every frame kept, where it is
    assert {(r["error"], r["message_type"], r["_corrupt_record"]) for r in foreign} == {
        ("a dataproxy frame, a protocol this table has no column for (it carries tubemq: name the protocols it "
         "should carry)", None, None)}
    own = [row for row in every if row["protocol"] == "tubemq"]
    assert own and all(row["error"] is None and row["tubemq"] is not None for row in own)
    assert read("DROPMALFORMED") == own
    with pytest.raises(Exception, match=r"file:\S*d\.bin: offset 0: a dataproxy frame, a protocol this table"):
        read("FAILFAST")
    for bad, message in (({"protocol": "dataproxy", "protocols": "tubemq"}, "goes with protocol auto"),
                         ({"protocol": "auto", "protocols": " , "}, "needs protocol names"),
                         ({"protocol": "auto", "protocols": "tubemq,nope"}, "unknown protocol 'nope'")):
        with pytest.raises(ValueError, match=message):
            Options({"path": "x", **bad})


# --- files, options, planning ----------------------------------------------------------------------------


def test_listing_planning_and_options(mixed, tmp_path):
    listed = [Path(p).relative_to(mixed.resolve()).as_posix() for p, _ in list_files(str(mixed))]
    assert listed == sorted(list(DETECTED) + ["nested/empty.bin"])
    assert list_files([f"file:{mixed}/*.bin"]) == list_files(str(mixed / "*.bin"))
    assert len(list_files(str(mixed / "**" / "*.bin"))) == len(PROTOCOLS) + 4
    with pytest.raises(FileNotFoundError):
        list_files(str(tmp_path / "missing"))
    with pytest.raises(ValueError, match="fs.* options apply to"):  # remote URIs: tests/test_spark_s3.py
        list_files("ftp://host/dumps", {"region": "x"})
    tasks = plan([("a", 10), ("big", 250), ("b", 30), ("c", 70), ("e", 0)], 100)
    assert tasks == [[("big", 250, 0)], [("big", 250, 1)], [("big", 250, 2)],
                     [("a", 10, 0), ("b", 30, 0), ("c", 70, 0)]]  # an empty file has no rows: no task
    assert file_uri("/tmp/a b.bin") == "file:/tmp/a b.bin"  # as binaryFile reports it
    assert (parse_size("64k"), parse_size(100), parse_size("1g")) == (65536, 100, 1 << 30)
    for bad in ({"path": "x"}, {"path": "x", "protocol": "nope"}, {"path": "x", "protocol": "auto", "mode": "x"},
                {"path": "x", "protocol": "auto", "direction": "up"}, {"protocol": "auto"},
                {"path": "x", "protocol": "auto", "splitSize": "0"}):
        with pytest.raises(ValueError):
            Options(bad)
    assert Options({"paths": '["a", "b"]', "protocol": "Auto"}).paths == ["a", "b"]
    (tmp_path / "empty").mkdir()
    reader = InlongReader(Options({"path": str(tmp_path / "empty"), "protocol": "tubemq"}))
    assert [list(reader.read(part)) for part in reader.partitions()] == [[]]


def test_a_split_reads_only_around_its_range(tmp_path):
    """Memory and locality: a split's rows depend only on the bytes from max_frame_size before its start
    to a little past its end, so nothing else needs to be read (here: everything else is overwritten)."""
    data = dump("broadcast", 30000, 2)
    split, index = 256 << 10, 2
    start, end = index * split, (index + 1) * split
    limit = protocols.get("broadcast").max_frame_size
    lo, hi = start - limit, end + 1024
    poisoned = bytes(lo) + data[lo:hi] + b"\xff" * (len(data) - hi)
    path = tmp_path / "big.bin"
    path.write_bytes(data)
    with FileSource(str(path)) as mapped:
        own = rows(split_frames(mapped, "broadcast", None, split, index))
    assert own == rows(split_frames(BytesSource(poisoned), "broadcast", None, split, index))
    # each boundary's sync point is the end of the first frame after the walks merge: within two frames
    assert start <= own[0]["offset"] < start + 2 * 38 and end <= own[-1]["offset"] + own[-1]["length"] < end + 2 * 38
    assert all(row["error"] is None for row in own)


# --- through Spark (few and small: the shared local[2] session) ------------------------------------------



def _spark_rows(spark, root, **options):
    from inlong_proto.spark.source import register

    register(spark)
    reader = spark.read.format("inlong")
    for key, value in options.items():
        reader = reader.option(key, value)
    return reader.load(str(root))


def test_spark_equals_read_dumps(spark, tmp_path):
    from inlong_proto.spark.dumps import read_dumps

    data = dump("dataproxy", 20, 4) + b"\x00\x00junk" + dump("dataproxy", 20, 5)[:-3]
    (tmp_path / "capture.bin").write_bytes(data)
    df = _spark_rows(spark, tmp_path, protocol="dataproxy", splitSize="512")
    assert split_count(len(data), 512) > 4  # tasks, frames straddling their boundaries
    found = sorted(df.collect(), key=lambda r: r.offset)
    want = sorted(read_dumps(spark, str(tmp_path), "dataproxy").collect(), key=lambda r: r.offset)
    assert df.schema == read_dumps(spark, str(tmp_path), "dataproxy").schema
    assert found == want
    assert len(found) > 40 and sum(r.error is not None for r in found) == 2
    assert found[0].path == file_uri(str(tmp_path / "capture.bin"))


def test_spark_auto_on_a_mixed_directory(spark, mixed):
    df = _spark_rows(spark, mixed, protocol="auto", splitSize="1024")
    # after the meta columns (error, _corrupt_record), the protocols found in the dumps (found_protocols: not the
    # HTTP streams here); a hyphen is no column name: eventmesh-legacy's is eventmesh_legacy
    assert df.columns[8:] == [protocols.column_name(p) for p in PROTOCOLS] + ["capture", "date"]
    files: dict[str, list] = {}
    for row in df.select("path", "offset", "length", "protocol", "error").collect():
        files.setdefault(Path(row.path.removeprefix("file:")).relative_to(mixed.resolve()).as_posix(), []).append(row)
    assert sorted(files) == sorted(DETECTED)
    for name, found in files.items():
        assert {r.protocol for r in found} == {DETECTED[name]}, name
        position = 0
        for row in sorted(found, key=lambda r: r.offset):
            assert row.offset == position, (name, row)
            position += row.length
        assert position == (mixed / name).stat().st_size


def test_spark_failfast_names_file_and_offset(spark, tmp_path):
    data = dump("tubemq", 12) + b"\xff\x7f\xf4\xfe\x00\x00\x00\x01\x00\x00\x00\x00" + dump("tubemq", 3)
    bad = next(r for r in expected(data, "tubemq") if r["error"])
    (tmp_path / "calls.bin").write_bytes(data)
    df = _spark_rows(spark, tmp_path, protocol="tubemq", mode="FAILFAST", splitSize=str(len(data) // 3))
    assert bad["error"].startswith(f"offset {bad['offset'] + 8} in list_size")
    with pytest.raises(Exception, match=rf"calls\.bin: offset {bad['offset'] + 8} in list_size"):
        df.collect()
    assert os.path.getsize(tmp_path / "calls.bin") == len(data)


def test_a_user_schema_selects_columns(spark, tmp_path):
    """.schema(...) names the columns a query needs (the Python data source API prunes none itself): the
    rows are the full read's, in those columns, spelt as the user schema spells them."""
    data = dump("dataproxy", 30, 6) + b"junk" + dump("dataproxy", 10, 7)
    (tmp_path / "d.bin").write_bytes(data)
    full = _spark_rows(spark, tmp_path, protocol="dataproxy", splitSize="700")
    picked = spark.read.format("inlong").schema("Length BIGINT, message_type STRING, offset BIGINT, error STRING") \
        .option("protocol", "dataproxy").option("splitSize", "700").load(str(tmp_path))
    assert picked.columns == ["Length", "message_type", "offset", "error"]
    assert sorted(picked.collect()) == sorted(full.select("length", "message_type", "offset", "error").collect())
    assert picked.selectExpr("sum(Length)").collect()[0][0] == len(data)
    for schema, message in (("offset BIGINT, nope STRING", "has no column 'nope'; its columns are path, offset"),
                            ("offset INT", "column 'offset' is bigint, not int"),
                            ("offset BIGINT, OFFSET BIGINT", "names a column twice")):
        with pytest.raises(Exception, match=message):
            spark.read.format("inlong").schema(schema).option("protocol", "dataproxy").load(str(tmp_path)).collect()
