"""records() over decoded frames, and read_records on a local Spark: one row per record, nothing lost; from
dumps and from pcap captures, where only what the DataProxy flows' clients sent is read."""
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

import inlong_proto as ip
from inlong_proto.core import arrow
from inlong_proto.capture.writer import Conversation, pcap_file
from inlong_proto.dataproxy import (MsgType, bin_request, bin_response, heartbeat_request, legacy_heartbeat_request,
                                    record_rows, iter_records as records, text_request, text_response)
from inlong_proto.dataproxy.records import capture_record_rows
from inlong_proto.core.errors import DecodeError, ValidationError
from inlong_proto.generated.codec.dataproxy import dataproxy_common as common
from inlong_proto.generated.codec.dataproxy import dataproxy_request as req

import vectors

T = datetime(2023, 11, 14, 22, 13, 20)
MS = 1_700_000_000_000


def encrypted(message):
    return req.DataproxyRequest(auth=False, encrypted=True, compressed=message.compressed,
                                base_type=message.base_type, body=message.body)


TEXT = text_request([b"alpha", b"beta"], group_id="g1", stream_id="s1", data_time_ms=MS, message_id=1, compress=True)
BIN = bin_request([b"one", b"\xff\xfe"], group_id="g2", stream_id="s2", data_time_ms=MS, unique_id=2,
                  record_attrs=[{"k": "v"}, {}])
NUMERIC = bin_request([b"n"], group_num=3, stream_num=4, data_time_ms=MS, unique_id=3, separated_by_lf=True)
BAD_SNAPPY = req.DataproxyRequest(auth=False, encrypted=False, compressed=False, base_type=MsgType.ack_service,
                                  body=common.TextMessage(body=b"\xff\xff\xff", attr="groupId=g1&cp=snappy"))
SECRET = encrypted(bin_request([b"s"], group_id="g5", data_time_ms=MS, unique_id=5))

# The dump, in order; offsets follow from the encoded sizes.
PARTS = [
    ("text", ip.encode(TEXT)),
    ("reply", ip.encode(text_response(TEXT, dp_ip="10.0.0.1"))),
    ("heartbeat", ip.encode(heartbeat_request(data_time_ms=MS))),
    ("bin", ip.encode(BIN)),
    ("bin_reply", ip.encode(bin_response(BIN, dp_ip="10.0.0.1"))),
    ("garbage", b"\x00\x00\x00\x00\x00junk"),
    ("numeric", ip.encode(NUMERIC)),
    ("bad_snappy", ip.encode(BAD_SNAPPY)),
    ("legacy", ip.encode(legacy_heartbeat_request())),
    ("secret", ip.encode(SECRET)),
]
DUMP = b"".join(data for _, data in PARTS)
OFFSET = {}
_at = 0
for _name, _data in PARTS:
    OFFSET[_name] = _at
    _at += len(_data)


def frames(mode="PERMISSIVE"):
    return ip.iter_frames(DUMP, "dataproxy", mode=mode)


def conversation(client, server, exchanges, at_us: int) -> list:
    """The packets of one TCP connection: (sender, bytes) sent 1 ms apart from at_us (epoch microseconds)."""
    conv = Conversation(client=client, server=server)
    packets = conv.open(at_us * 1000)
    for index, (sender, data) in enumerate(exchanges, 1):
        packets += conv.send(sender, data, (at_us + 1000 * index) * 1000)
    return packets + conv.close((at_us + 1000 * (len(exchanges) + 1)) * 1000)


# A capture of two connections: an SDK's (text and bin batches, an encrypted one, the answers) and a TubeMQ
# client's whose server sends garbage: its error spans are no concern of the records.
AT = 1_795_000_000_000_000  # epoch microseconds
SDK, DATAPROXY = ("10.0.0.1", 40000), ("10.0.0.2", 46801)
CAPTURE = pcap_file(sorted(
    conversation(SDK, DATAPROXY, [("client", ip.encode(TEXT)), ("server", ip.encode(text_response(TEXT, dp_ip="x"))),
                                  ("client", ip.encode(BIN)), ("client", ip.encode(SECRET))], AT)
    + conversation(("10.0.0.3", 40001), ("10.0.0.4", 8123),
                   [("client", vectors.valid_frames()["tubemq"][0]), ("server", b"\xde\xad" * 8)], AT + 500),
    key=lambda packet: packet[0]))
BIN_AT, SECRET_AT = len(ip.encode(TEXT)), len(ip.encode(TEXT)) + len(ip.encode(BIN))


def sent_at(index: int) -> datetime:
    """The capture time of the index-th exchange of the SDK's connection."""
    return datetime.fromtimestamp((AT + 1000 * index) / 1e6, timezone.utc)


def test_capture_record_rows_read_what_dataproxy_clients_sent():
    rows = list(capture_record_rows(CAPTURE))
    assert [(row.frame_offset, row.record_index, row.data, row.error is None) for row, _ in rows] == [
        (0, 0, b"alpha", True), (0, 1, b"beta", True), (BIN_AT, 0, b"one", True), (BIN_AT, 1, b"\xff\xfe", True),
        (SECRET_AT, None, SECRET.body.body, False)]
    assert "encrypted" in str(rows[-1][0].error)
    captures = [capture for _, capture in rows]  # flow, its ends, sender, packet time, packet offset
    first_packet = 24  # a flow's id is its first packet's file offset: the SYN, right after the pcap header
    assert [capture[:-1] for capture in captures] == [(first_packet, *SDK, *DATAPROXY, "client", sent_at(index))
                                                      for index in (1, 1, 3, 3, 4)]
    assert 0 < captures[0][-1] < captures[2][-1] < captures[4][-1] < len(CAPTURE)
    assert len(list(capture_record_rows(CAPTURE, "DROPMALFORMED"))) == 4  # the TubeMQ garbage is not read
    with pytest.raises(ValidationError, match="encrypted"):
        list(capture_record_rows(CAPTURE, "FAILFAST"))


def test_records_yields_data_request_records_only():
    pairs = list(records(frames(), on_error="skip"))
    assert [(frame.offset, record.index, record.data) for frame, record in pairs] == [
        (OFFSET["text"], 0, b"alpha"), (OFFSET["text"], 1, b"beta"),
        (OFFSET["bin"], 0, b"one"), (OFFSET["bin"], 1, b"\xff\xfe"),
        (OFFSET["numeric"], 0, b"n")]
    assert pairs[2][1].attrs == (("k", "v"),) and pairs[3][1].text is None
    assert (pairs[4][1].group_id, pairs[4][1].stream_id, pairs[4][1].data_time) == ("3", "4", T)


def test_records_raises_payload_errors_by_default():
    with pytest.raises(ValidationError, match="96 UNCOMPRESS_DATA_ERROR") as info:
        list(records(frames()))
    assert info.value.offset == OFFSET["bad_snappy"] + 9
    with pytest.raises(ValueError):
        list(records(frames(), on_error="ignore"))


def test_record_rows_modes():
    rows = list(record_rows(frames(), "PERMISSIVE"))
    errors = [(row.frame_offset, row.message_type) for row in rows if row.error is not None]
    assert errors == [(OFFSET["garbage"], None), (OFFSET["bad_snappy"], "ack_service"),
                      (OFFSET["secret"], "bin_multi_body")]
    assert len(rows) == 5 + 3
    assert [row.data for row in rows if row.error is None] == [b"alpha", b"beta", b"one", b"\xff\xfe", b"n"]
    assert len(list(record_rows(frames(), "DROPMALFORMED"))) == 5
    with pytest.raises(DecodeError):
        list(record_rows(frames(), "FAILFAST"))


# ---------------------------------------------------------------------------------------------------
# Spark

pytest.importorskip("pyarrow")
pytest.importorskip("pyspark")

from inlong_proto.dataproxy.records import RECORD_COLUMNS  # noqa: E402
from inlong_proto.spark.records import read_records, register_records_udtf  # noqa: E402

@pytest.fixture(scope="module")
def dumps(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("dataproxy")
    (root / "mixed.bin").write_bytes(DUMP)
    (root / "nested").mkdir()
    (root / "nested" / "only_text.bin").write_bytes(ip.encode(TEXT))
    return root


def rows_of(df) -> list:
    return sorted((Path(unquote(urlparse(r.path).path)).name, r.frame_offset, r.record_index or 0, r)
                  for r in df.collect())


def test_read_records_permissive(spark, dumps):
    df = read_records(spark, str(dumps))
    assert tuple(df.columns) == RECORD_COLUMNS + ("date",)  # the readers' date column, last (issue 26)
    assert dict(df.dtypes)["data_time"] == "timestamp"  # an instant (epoch milliseconds on the wire)
    rows = [row for *_, row in rows_of(df)]
    assert len(rows) == 8 + 2
    mixed = [r for r in rows if r.path.endswith("mixed.bin")]
    good = [r for r in mixed if r.error is None]
    assert [(r.frame_offset, r.record_index, bytes(r.data), r.text) for r in good] == [
        (OFFSET["text"], 0, b"alpha", "alpha"), (OFFSET["text"], 1, b"beta", "beta"),
        (OFFSET["bin"], 0, b"one", "one"), (OFFSET["bin"], 1, b"\xff\xfe", None),
        (OFFSET["numeric"], 0, b"n", "n")]
    first = good[0]
    # collect() shows a TIMESTAMP in the local time zone, as a naive datetime
    local_t = T.replace(tzinfo=timezone.utc).astimezone().replace(tzinfo=None)
    assert (first.group_id, first.stream_id, first.data_time, first.message_type) == ("g1", "s1", local_t, "ack_service")
    assert good[2].record_attrs == {"k": "v"} and good[3].record_attrs == {}
    bad = [r for r in mixed if r.error is not None]
    assert [r.frame_offset for r in bad] == [OFFSET["garbage"], OFFSET["bad_snappy"], OFFSET["secret"]]
    assert "UNCOMPRESS_DATA_ERROR" in bad[1].error and "encrypted" in bad[2].error


def test_read_records_failfast_names_the_file(spark, dumps):
    with pytest.raises(Exception, match="mixed.bin"):
        read_records(spark, str(dumps / "mixed.bin"), mode="FAILFAST").collect()


@pytest.fixture(scope="module")
def captures(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("dataproxy_captures")
    (root / "sdk.pcap").write_bytes(CAPTURE)
    (root / "only_text.bin").write_bytes(ip.encode(TEXT))
    return root


def test_read_records_from_captures_and_dumps(spark, captures):
    rows = sorted(read_records(spark, str(captures)).toArrow().to_pylist(),
                  key=lambda row: (row["path"], row["frame_offset"], row["record_index"] or 0))
    dump = [(row["record_index"], row["data"], row["capture"]) for row in rows if row["path"].endswith(".bin")]
    assert dump == [(0, b"alpha", None), (1, b"beta", None)]
    found = [(row["frame_offset"], row["record_index"], row["group_id"], row["data"], row["error"] is None,
              row["capture"]) for row in rows if row["path"].endswith(".pcap")]
    names = [field.name for field in arrow.capture_field().type]
    assert found == [(row.frame_offset, row.record_index, row.group_id, row.data, row.error is None,
                      dict(zip(names, capture))) for row, capture in capture_record_rows(CAPTURE)]
    with pytest.raises(Exception, match="sdk.pcap"):
        read_records(spark, str(captures / "sdk.pcap"), mode="FAILFAST").collect()


def test_records_udtf_in_sql_dropmalformed(spark, dumps):
    register_records_udtf(spark, mode="DROPMALFORMED")
    spark.read.format("binaryFile").option("recursiveFileLookup", "true").load(str(dumps)) \
        .createOrReplaceTempView("dp_dumps")
    rows = spark.sql("SELECT text, error FROM dataproxy_records(TABLE(SELECT path, content FROM dp_dumps))").collect()
    assert sorted(r.text for r in rows if r.text) == ["alpha", "alpha", "beta", "beta", "n", "one"]
    assert len(rows) == 5 + 2 and all(r.error is None for r in rows)
