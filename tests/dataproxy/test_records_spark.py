"""records() over decoded frames, and read_records on a local Spark: one row per record, nothing lost."""
from datetime import datetime
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

import inlong_proto as ip
from inlong_proto.dataproxy import (MsgType, bin_request, bin_response, heartbeat_request, legacy_heartbeat_request,
                                    record_rows, records, text_request, text_response)
from inlong_proto.errors import DecodeError, ValidationError
from inlong_proto.generated.codec.dataproxy import dataproxy_common as common
from inlong_proto.generated.codec.dataproxy import dataproxy_request as req

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

from inlong_proto.dataproxy.records import RECORD_COLUMNS, read_records, register_records_udtf  # noqa: E402

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
    assert tuple(df.columns) == RECORD_COLUMNS
    assert dict(df.dtypes)["data_time"] == "timestamp_ntz"
    rows = [row for *_, row in rows_of(df)]
    assert len(rows) == 8 + 2
    mixed = [r for r in rows if r.path.endswith("mixed.bin")]
    good = [r for r in mixed if r.error is None]
    assert [(r.frame_offset, r.record_index, bytes(r.data), r.text) for r in good] == [
        (OFFSET["text"], 0, b"alpha", "alpha"), (OFFSET["text"], 1, b"beta", "beta"),
        (OFFSET["bin"], 0, b"one", "one"), (OFFSET["bin"], 1, b"\xff\xfe", None),
        (OFFSET["numeric"], 0, b"n", "n")]
    first = good[0]
    assert (first.group_id, first.stream_id, first.data_time, first.message_type) == ("g1", "s1", T, "ack_service")
    assert [(p.key, p.value) for p in good[2].record_attrs] == [("k", "v")] and good[3].record_attrs == []
    bad = [r for r in mixed if r.error is not None]
    assert [r.frame_offset for r in bad] == [OFFSET["garbage"], OFFSET["bad_snappy"], OFFSET["secret"]]
    assert "UNCOMPRESS_DATA_ERROR" in bad[1].error and "encrypted" in bad[2].error


def test_read_records_failfast_names_the_file(spark, dumps):
    with pytest.raises(Exception, match="mixed.bin"):
        read_records(spark, str(dumps / "mixed.bin"), mode="FAILFAST").collect()


def test_records_udtf_in_sql_dropmalformed(spark, dumps):
    register_records_udtf(spark, mode="DROPMALFORMED")
    spark.read.format("binaryFile").option("recursiveFileLookup", "true").load(str(dumps)) \
        .createOrReplaceTempView("dp_dumps")
    rows = spark.sql("SELECT text, error FROM dataproxy_records(TABLE(SELECT path, content FROM dp_dumps))").collect()
    assert sorted(r.text for r in rows if r.text) == ["alpha", "alpha", "beta", "beta", "n", "one"]
    assert len(rows) == 5 + 2 and all(r.error is None for r in rows)
