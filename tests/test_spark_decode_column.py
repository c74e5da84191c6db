"""decode_column (issue 30, item 4): a binary column of one frame per value (the shape of Spark's Kafka source:
key, value, topic, partition, offset, timestamp) decoded by an Arrow UDF into the protocol's struct."""
import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

import inlong_proto
from inlong_proto.spark.columns import decode_values, value_schema

VECTORS = Path(__file__).parent / "vectors" / "eventmesh" / "frame"
FRAMES = [bytes.fromhex(json.loads(p.read_text())["hex"]) for p in sorted((VECTORS / "valid").glob("*.json"))]


def test_decode_values_without_spark():
    values = FRAMES + [None, b"\xef\x02", FRAMES[0] + FRAMES[1]]
    rows = decode_values(values, "eventmesh-frame").to_pylist()
    for frame, row in zip(FRAMES, rows):
        assert row["error"] is None and row["length"] == len(frame)
        assert row["message_type"] == inlong_proto.decode(frame, "eventmesh-frame").message_type
    assert rows[len(FRAMES)] is None
    assert "version" in rows[-2]["error"] or "needs" in rows[-2]["error"]
    assert "follow the frame" in rows[-1]["error"] and rows[-1]["_corrupt_record"] == FRAMES[0] + FRAMES[1]
    assert [f.name for f in value_schema("eventmesh-frame")][:4] == ["length", "protocol", "direction", "message_type"]


def test_decode_column_on_a_kafka_shaped_dataframe(spark):
    from pyspark.sql.functions import col

    from inlong_proto.spark import decode_column

    at = datetime(2026, 11, 26, tzinfo=timezone.utc)
    rows = [(f"k{i}".encode(), value, "frames", i % 2, i, at) for i, value in enumerate(FRAMES + [None, b"junk"])]
    df = spark.createDataFrame(rows, "key BINARY, value BINARY, topic STRING, partition INT, offset BIGINT, "
                                     "timestamp TIMESTAMP")
    out = df.select("offset", decode_column("value", "eventmesh-frame").alias("frame")).orderBy("offset")
    assert out.schema["frame"].dataType.fieldNames()[:4] == ["length", "protocol", "direction", "message_type"]
    got = out.collect()
    for frame, row in zip(FRAMES, got):
        expected = inlong_proto.decode(frame, "eventmesh-frame").message
        assert row.frame.error is None and row.frame.seq == expected.seq
        assert [(a.name, a.value) for a in row.frame.attributes] == [(a.name, a.value) for a in expected.attributes]
    assert got[len(FRAMES)].frame is None and got[-1].frame.error
    events = out.where(col("frame.msg_type") == "event").count()
    assert events == sum(inlong_proto.decode(f, "eventmesh-frame").message_type == "event" for f in FRAMES)
    with pytest.raises(ValueError):
        decode_column("value", "eventmesh-http")


def test_format_inlong_reads_a_dump_of_frames(spark, tmp_path):
    from inlong_proto.spark.source import register

    register(spark)
    dump = tmp_path / "frames.bin"
    dump.write_bytes(b"".join(FRAMES) + b"\xef\x01\x09junk" + FRAMES[0])
    rows = spark.read.format("inlong").option("protocol", "eventmesh-frame").load(str(dump)).orderBy("offset").collect()
    assert [r.message_type for r in rows[:len(FRAMES)]] == [
        inlong_proto.decode(f, "eventmesh-frame").message_type for f in FRAMES]
    assert rows[len(FRAMES)].error is not None and rows[-1].error is None
    assert sum(r.length for r in rows) == dump.stat().st_size
