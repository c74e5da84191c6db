"""pcap / pcapng captures through both Spark readers: the rows equal the sans-IO capture decoder's, carry
the capture column (flow, sender, packet time and offset), and account for every reassembled byte."""
import shutil
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

import pytest

from inlong_proto.core import arrow, protocols
from inlong_proto.capture import iter_capture_frames
from inlong_proto.spark.dumps import read_dumps
from inlong_proto.core.sources import file_uri
from inlong_proto.spark.source import register
from inlong_proto.spark.common import spark_arrow_schema

import vectors

CAPTURES = Path(__file__).resolve().parent / "vectors" / "capture"
# The loopback captures tools/make_captures.py recorded, with the protocol their endpoints speak.
RECORDED = [("broadcast_lo.pcap", "broadcast"), ("broadcast_lo.pcapng", "broadcast"),
            ("broadcast_any_nano.pcap", "broadcast"), ("dataproxy_lo.pcap", "dataproxy"),
            ("eventmesh_lo.pcap", "eventmesh")]


def order(row: dict) -> tuple:
    capture = row["capture"] or {}
    return row["path"], capture.get("flow") or -1, capture.get("sender") or "", row["offset"]


def expected(path: Path, protocol: str, mode: str = "PERMISSIVE") -> list[dict]:
    """The table the readers should give: the capture decoder's frames, typed as Spark returns them."""
    items = list(iter_capture_frames(path.read_bytes(), protocol, mode))
    batch = arrow.frames_to_batch(file_uri(path), [item.frame for item in items], protocol,
                                  [arrow.capture_value(item) for item in items])
    rows = batch.cast(spark_arrow_schema(protocol)).to_pylist()
    modified = datetime.fromtimestamp(path.stat().st_mtime, timezone.utc).date()
    for row in rows:  # the readers' date column (issue 26): the UTC date of the packet, else of the file's mtime
        time = (row["capture"] or {}).get("time")
        row["date"] = time.astimezone(timezone.utc).date() if time is not None else modified
    return sorted(rows, key=order)


def table(frame) -> list[dict]:
    return sorted(frame.toArrow().to_pylist(), key=order)


def source(spark, path, protocol: str, **options):
    register(spark)
    reader = spark.read.format("inlong").option("protocol", protocol)
    for key, value in options.items():
        reader = reader.option(key, value)
    return reader.load(str(path))


@pytest.mark.parametrize("name,protocol", RECORDED)
def test_both_readers_equal_the_capture_decoder(spark, name, protocol):
    path = CAPTURES / name
    want = expected(path, protocol)
    assert want and all(row["error"] is None for row in want)
    assert table(read_dumps(spark, str(path), protocol)) == want
    assert table(source(spark, path, protocol)) == want
    senders = Counter(row["capture"]["sender"] for row in want)
    assert set(senders) == {"client", "server"}
    for row in want:
        capture = row["capture"]
        assert capture["client"] == capture["server"] == "127.0.0.1" or name.startswith("broadcast_any")
        assert capture["client_port"] != capture["server_port"] and capture["time"].year >= 2026
        if protocol != "broadcast":  # broadcast frames carry no direction of their own: TCP's is in sender
            assert row["direction"] == {"client": "request", "server": "response"}[capture["sender"]]


def test_auto_mixes_captures_and_dumps(spark, tmp_path):
    for name, _ in RECORDED:
        shutil.copy(CAPTURES / name, tmp_path / name)
    dump = b"".join(vectors.valid_frames()["tubemq"][:5])
    (tmp_path / "tubemq.bin").write_bytes(dump)
    rows = table(source(spark, tmp_path, "auto", splitSize="512"))
    by_file = Counter((Path(row["path"]).name, row["protocol"]) for row in rows if row["error"] is None)
    for name, protocol in RECORDED:
        items = list(iter_capture_frames((CAPTURES / name).read_bytes(), "auto", "PERMISSIVE"))
        assert by_file[(name, protocol)] == len(items)
    assert by_file[("tubemq.bin", "tubemq")] == 5
    for row in rows:
        is_capture = not row["path"].endswith(".bin")
        assert (row["capture"] is not None) == is_capture
        assert row[row["protocol"]] is not None  # the protocol's own struct holds the frame's columns
        assert all(row[other] is None for other in ("broadcast", "dataproxy", "eventmesh", "tubemq")
                   if other != row["protocol"])


def test_a_cut_capture_keeps_every_byte_as_frames_or_errors(spark, tmp_path):
    data = (CAPTURES / "dataproxy_lo.pcap").read_bytes()
    cut = tmp_path / "cut.pcap"
    cut.write_bytes(data[:len(data) - 700])
    rows = table(source(spark, cut, "dataproxy"))
    assert rows == expected(cut, "dataproxy")
    assert any(row["error"] for row in rows)
    spans: dict = {}
    for row in rows:
        if row["capture"]["flow"] is None:  # the cut last record of the file itself
            continue
        spans.setdefault((row["capture"]["flow"], row["capture"]["sender"]), []).append(row)
    for key, stream in spans.items():
        position = 0
        for row in stream:  # sorted by offset: frames and error spans tile the reassembled stream
            assert row["offset"] == position, key
            position += row["length"]
    with pytest.raises(Exception, match="cut.pcap"):
        source(spark, cut, "dataproxy", mode="FAILFAST").count()
    dropped = table(source(spark, cut, "dataproxy", mode="DROPMALFORMED"))
    assert dropped == [row for row in rows if row["error"] is None]


def test_auto_reads_a_capture_of_every_protocol(spark, tmp_path):
    """One flow per protocol, interleaved: each flow's rows carry its protocol, their columns in its own
    struct (eventmesh_http and eventmesh_grpc too), and tile both of its streams."""
    data, flows = vectors.mixed_capture()
    (tmp_path / "mixed.pcap").write_bytes(data)
    rows = table(source(spark, tmp_path, "auto"))
    items = list(iter_capture_frames(data, "auto", "PERMISSIVE"))
    assert len(rows) == len(items)
    structs = {name: protocols.column_name(name) for name in protocols.every_name()}
    ids = {i.flow.number: i.flow.first_packet_offset for i in items}  # the column holds the flow's first packet
    assert len(set(ids.values())) == len(flows)
    for number, (protocol, client, server) in flows.items():
        for sender, stream in (("client", client), ("server", server)):
            own = [row for row in rows if row["capture"]["flow"] == ids[number] and row["capture"]["sender"] == sender]
            want = [i.frame for i in items if i.flow.number == number and i.direction == {"client": "request",
                                                                                        "server": "response"}[sender]]
            assert [(r["offset"], r["length"], r["message_type"]) for r in own] == \
                sorted((f.offset, f.length, f.message_type) for f in want)
            assert {r["protocol"] for r in own} == {protocol}
            assert [r["offset"] for r in own] == [0] + [r["offset"] + r["length"] for r in own[:-1]]
            assert sum(r["length"] for r in own) == len(stream)
            assert all(r[column] is None for r in own for name, column in structs.items() if name != protocol)
            assert all(r[structs[protocol]] is not None for r in own if r["error"] is None)
            if protocol == "eventmesh-http":
                assert own and all(r["error"] is None and r["message_type"] for r in own)
