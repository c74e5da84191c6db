"""Every reader's rows can be written to Parquet, ORC and any Spark file sink (issue 26, item 1): no column is
an empty struct (a layout without fields is a BOOLEAN), and each table has a documented ``date`` column for
``partitionBy("protocol", "date")``. One SparkSession (conftest's), one write per reader and sample."""
from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import pytest

pytest.importorskip("pyspark")
pa = pytest.importorskip("pyarrow")

from inlong_proto.core import arrow  # noqa: E402

DATA = Path(__file__).resolve().parent.parent / "examples" / "data"
SAMPLES = {"broadcast": "broadcast.bin", "dataproxy": "dataproxy.bin", "eventmesh": "eventmesh.bin",
           "eventmesh-grpc": "eventmesh-grpc.bin", "eventmesh-http": "eventmesh-http.bin", "tubemq": "tubemq.bin"}


def _empty_structs(data_type, where="") -> list[str]:
    from pyspark.sql.types import ArrayType, MapType, StructType

    if isinstance(data_type, StructType):
        found = [where or "<table>"] if not data_type.fields else []
        for field in data_type.fields:
            found += _empty_structs(field.dataType, f"{where}.{field.name}".lstrip("."))
        return found
    if isinstance(data_type, ArrayType):
        return _empty_structs(data_type.elementType, where + "[]")
    if isinstance(data_type, MapType):
        return _empty_structs(data_type.valueType, where + "{}")
    return []


def _round_trip(frame, out: Path, fmt: str = "parquet"):
    """Write frame, read it back; both as sorted row texts (nested rows, bytes and nulls compare as text)."""
    assert _empty_structs(frame.schema) == []
    rows = frame.collect()
    assert rows, "a sample read gave no rows"
    frame.write.format(fmt).save(str(out))
    back = frame.sparkSession.read.format(fmt).load(str(out))
    assert back.schema == frame.schema or fmt != "parquet" or [f.name for f in back.schema] == frame.columns
    assert back.columns == frame.columns
    assert sorted(map(repr, back.collect())) == sorted(map(repr, rows))
    return rows


def _utc_mtime_date(path: Path) -> dt.date:
    return dt.datetime.fromtimestamp(os.stat(path).st_mtime, dt.timezone.utc).date()


@pytest.fixture(scope="module")
def inlong(spark):
    from inlong_proto.spark.source import register

    register(spark)
    return lambda **options: spark.read.format("inlong").options(**options)


@pytest.mark.parametrize("protocol", sorted(SAMPLES))
def test_format_inlong_named_and_read_dumps_write_to_parquet(spark, inlong, tmp_path, protocol):
    from inlong_proto.spark.dumps import read_dumps

    path = DATA / SAMPLES[protocol]
    rows = _round_trip(inlong(protocol=protocol).load(str(path)), tmp_path / "source")
    assert {row["date"] for row in rows} == {_utc_mtime_date(path)}  # a raw dump: its file's date
    dumped = _round_trip(read_dumps(spark, str(path), protocol), tmp_path / "dumps")
    assert sorted(map(repr, dumped)) == sorted(map(repr, rows))  # the same rows, date included


def test_auto_partitioned_by_protocol_and_date_and_orc(spark, inlong, tmp_path):
    frame = inlong(protocol="auto").load(str(DATA))
    rows = _round_trip(frame, tmp_path / "flat")
    captured = [row for row in rows if row["capture"] is not None and row["capture"]["time"] is not None]
    assert captured and all(row["date"] == row["capture"]["time"].astimezone(dt.timezone.utc).date()
                            for row in captured)
    frame.write.partitionBy("protocol", "date").parquet(str(tmp_path / "partitioned"))
    back = spark.read.parquet(str(tmp_path / "partitioned")).select(*frame.columns)
    assert sorted(map(repr, back.collect())) == sorted(map(repr, rows))
    assert (tmp_path / "partitioned" / "protocol=dataproxy").is_dir()
    _round_trip(inlong(protocol="dataproxy").load(str(DATA / "dataproxy.bin")), tmp_path / "orc", "orc")


def test_read_dumps_auto_equals_format_inlong_auto(spark, inlong, tmp_path):
    """read_dumps(protocol="auto") and format("inlong") with protocol auto: the same columns (the structs of the
    protocols found at the start of the dumps, or of those pinned) and the same rows, through Parquet."""
    from inlong_proto.spark.dumps import read_dumps

    folder = tmp_path / "dumps"
    folder.mkdir()
    for name in ("dataproxy.bin", "tubemq.bin", "eventmesh-http.bin"):
        (folder / name).write_bytes((DATA / name).read_bytes())
    (folder / "zeros.bin").write_bytes(bytes(300))  # no protocol: one error row, no struct
    found = inlong(protocol="auto").load(str(folder))
    assert found.columns[8:] == ["dataproxy", "eventmesh_http", "tubemq", "capture", "date"]
    dumped = read_dumps(spark, str(folder), "auto")
    assert dumped.schema == found.schema
    rows = _round_trip(found, tmp_path / "source")
    assert sorted(map(repr, _round_trip(dumped, tmp_path / "read_dumps"))) == sorted(map(repr, rows))
    assert {row["protocol"] for row in rows} == {"dataproxy", "tubemq", "eventmesh-http", None}
    pinned = inlong(protocol="auto", protocols="tubemq,eventmesh-http").load(str(folder))
    pinned_rows = sorted(map(repr, pinned.collect()))
    assert sorted(map(repr, read_dumps(spark, str(folder), "auto", protocols=["tubemq", "eventmesh-http"])
                      .collect())) == pinned_rows
    assert pinned.where("protocol = 'dataproxy' AND error LIKE 'a dataproxy frame, a protocol this table has no%'"
                        ).count() == sum(row["protocol"] == "dataproxy" for row in rows)


def test_captures_records_and_the_parse_udtf_write_to_parquet(spark, tmp_path):
    from inlong_proto.spark.captures import read_captures
    from inlong_proto.spark.dumps import register_udtf
    from inlong_proto.spark.records import read_records

    capture = DATA / "mixed.pcap"
    rows = _round_trip(read_captures(spark, str(capture)), tmp_path / "captures")
    assert all(row["date"] is not None for row in rows)
    records = _round_trip(read_records(spark, [str(DATA / "dataproxy.bin"), str(capture)]), tmp_path / "records")
    assert {row["date"] for row in records if row["capture"] is None} == {_utc_mtime_date(DATA / "dataproxy.bin")}
    register_udtf(spark, "dataproxy")
    spark.read.format("binaryFile").load(str(DATA / "dataproxy.bin")).createOrReplaceTempView("sink_dumps")
    udtf = spark.sql("SELECT * FROM parse_dataproxy(TABLE(SELECT path, content, modificationTime FROM sink_dumps))")
    parsed = _round_trip(udtf, tmp_path / "udtf")
    assert {row["date"] for row in parsed} == {_utc_mtime_date(DATA / "dataproxy.bin")}
    assert any(row["legacy_heartbeat_reply"] is True for row in parsed) or \
        all(row["legacy_heartbeat_reply"] is None for row in parsed)


def test_date_column_option(inlong, tmp_path):
    rows = inlong(protocol="broadcast", dateColumn="data_response.timestamp").load(
        str(DATA / "broadcast.bin")).collect()
    responses = [row for row in rows if row["data_response"] is not None]
    assert responses and all(row["date"] == row["data_response"]["timestamp"].date() for row in responses)
    with pytest.raises(Exception, match="dateColumn"):
        inlong(protocol="broadcast", dateColumn="data_response.data").load(str(DATA / "broadcast.bin")).schema


def test_no_reader_schema_has_an_empty_struct():
    from inlong_proto.core import protocols

    for name in protocols.every_name():
        schema = arrow.frame_schema(name)
        assert not [f.name for f in schema if pa.types.is_struct(f.type) and f.type.num_fields == 0], name
    assert arrow.frame_schema("dataproxy").field("legacy_heartbeat_reply").type == pa.bool_()
