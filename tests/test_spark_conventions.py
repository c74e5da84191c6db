"""Spark's own readers' conventions, kept by ours: options validated at load(), a corrupt-record column
named by columnNameOfCorruptRecord, instants as TIMESTAMP and wall-clock text as TIMESTAMP_NTZ, maps as
maps, every column documented with its type, and a missing `spark` extra named as such."""
import json
import re
import subprocess
import sys
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

import pytest

import inlong_proto as ip
from inlong_proto.core import arrow, protocols
from inlong_proto import iter_frames
from inlong_proto.dataproxy import bin_request, text_request
from inlong_proto.generated.codec.broadcast import broadcast_frame as b

pa = pytest.importorskip("pyarrow")
pytest.importorskip("pyspark")

from pyspark.sql.types import ArrayType, MapType, StructType  # noqa: E402

from inlong_proto.dataproxy.records import RECORD_COLUMNS, record_rows, record_spark_schema, row_tuple  # noqa: E402
from inlong_proto.spark.records import read_records  # noqa: E402
from inlong_proto.spark.dumps import read_dumps  # noqa: E402
from inlong_proto.core.arrow import AUTO, auto_batch
from inlong_proto.spark.source import InlongDataSource, Options, register
from inlong_proto.spark.common import spark_schema

ROOT = Path(__file__).resolve().parent.parent
PROTOCOLS = sorted(protocols.names())
MS = 1_700_000_000_123  # a data time, epoch milliseconds (text layouts: the dt attribute)
INSTANT = datetime.fromtimestamp(MS / 1000, timezone.utc)
SECONDS = INSTANT.replace(microsecond=0)  # what MsgType 7 carries: seconds


def response(data: int) -> bytes:
    return ip.encode(b.BroadcastFrame(body=b.DataResponse(status=b.Status.real_time, data=data,
                                                          timestamp=datetime(2024, 1, 1, 12, 30))))


GARBAGE = b"\xffgarbage"
BROADCAST = response(1) + GARBAGE + response(2) + response(3)[:20]  # a bad span and a cut-off tail
RECORDS = ip.encode(bin_request([b"one", b"two"], group_id="g", stream_id="s", data_time_ms=MS, unique_id=1,
                                record_attrs=[{"k": "v", "n": "1"}, {}]))
TEXT = ip.encode(text_request([b"t"], group_id="g", stream_id="s", data_time_ms=MS, message_id=1))


@pytest.fixture(scope="module")
def dumps(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("conventions")
    (root / "broadcast.bin").write_bytes(BROADCAST)
    (root / "records.bin").write_bytes(RECORDS + TEXT)
    (root / "zeros.bin").write_bytes(bytes(64))  # no protocol recognises it
    return root


def inlong(spark, path, **options):
    register(spark)
    reader = spark.read.format("inlong")
    for key, value in options.items():
        reader = reader.option(key, value)
    return reader.load(str(path))


def spans(rows, column="_corrupt_record") -> list[tuple]:
    return sorted((row["offset"], row["length"], row["error"] is not None, row[column]) for row in rows)


# --- options ---------------------------------------------------------------------------------------


def test_an_unknown_option_fails_at_load_with_the_valid_ones(spark, dumps):
    with pytest.raises(Exception, match=r"no option 'mdoe' \(did you mean 'mode'\?\)") as info:
        inlong(spark, dumps / "broadcast.bin", protocol="broadcast", mdoe="FAILFAST")  # load(), no action
    assert "inlong: format 'inlong' has no option 'mdoe'" in str(info.value).splitlines()[0]  # tests/test_spark_errors.py
    for name in Options.OPTIONS:
        assert name in str(info.value)
    with pytest.raises(Exception, match=r"no option 'color'; its options are protocol, direction"):
        inlong(spark, dumps / "broadcast.bin", protocol="broadcast", color="red")


def test_option_names_are_case_insensitive(spark, dumps):
    df = inlong(spark, dumps / "broadcast.bin", PROTOCOL="broadcast", Mode="dropmalformed", SPLITSIZE="16")
    assert sorted(row.offset for row in df.collect()) == [0, 38 + len(GARBAGE)]


def test_options_unit():
    options = Options({"path": "x", "protocol": "auto", "fs.region": "eu-west-1", "FS.endpoint_override": "h:1",
                       "COLUMNNAMEOFCORRUPTRECORD": "bad"})
    assert options.fs_options == {"region": "eu-west-1", "endpoint_override": "h:1"}
    assert options.corrupt_record == "bad"
    assert Options({"path": "x", "protocol": "tubemq"}).corrupt_record == "_corrupt_record"
    assert Options({"paths": '["a"]', "protocol": "tubemq"}).paths == ["a"]  # what Spark itself passes
    for bad, message in (({"splitsise": "1"}, "did you mean 'splitSize'"),
                         ({"columnNameOfCorruptRecord": "error"}, "already a column"),
                         ({"columnNameOfCorruptRecord": "Broadcast"}, "already a column"),  # auto's struct
                         ({"columnNameOfCorruptRecord": " "}, "non-empty")):
        with pytest.raises(ValueError, match=message):
            Options({"path": "x", "protocol": "auto", **bad})


# --- the corrupt-record column ---------------------------------------------------------------------


def test_table_builders_fill_the_corrupt_record_column():
    frames = list(iter_frames(BROADCAST, "broadcast", mode="PERMISSIVE"))
    want = [(0, 38, False, None), (38, len(GARBAGE), True, GARBAGE), (38 + len(GARBAGE), 38, False, None),
            (76 + len(GARBAGE), 20, True, response(3)[:20])]
    assert spans(arrow.frames_to_batch("p", frames, "broadcast").to_pylist()) == want
    assert spans(auto_batch("p", frames).to_pylist()) == want
    names = arrow.frame_schema("broadcast").names
    assert spans(dict(zip(names, arrow.frame_tuple("p", frame, "broadcast"))) for frame in frames) == want
    assert arrow.frame_schema(None).field("_corrupt_record").type == pa.binary()


def test_read_dumps_and_the_data_source_give_error_rows_their_bytes(spark, dumps):
    path = dumps / "broadcast.bin"
    want = spans(row.asDict() for row in [*read_dumps(spark, str(path), "broadcast").collect()])
    assert [(offset, raw) for offset, _, error, raw in want if error] == \
        [(38, GARBAGE), (76 + len(GARBAGE), response(3)[:20])]
    assert all(raw is None for *_, error, raw in want if not error)
    for df in (inlong(spark, path, protocol="broadcast", splitSize="30"), inlong(spark, path, protocol=AUTO)):
        assert spans(row.asDict() for row in df.collect()) == want


def test_the_corrupt_record_column_is_named_by_the_option(spark, dumps):
    path = dumps / "broadcast.bin"
    renamed = read_dumps(spark, str(path), "broadcast", corrupt_record_column="bad_bytes")
    split = inlong(spark, path, protocol="broadcast", columnNameOfCorruptRecord="bad_bytes", splitSize="30")
    auto = inlong(spark, path, protocol=AUTO, columnNameOfCorruptRecord="bad_bytes")
    want = spans((row.asDict() for row in read_dumps(spark, str(path), "broadcast").collect()))
    for df in (renamed, split, auto):
        assert "bad_bytes" in df.columns and "_corrupt_record" not in df.columns
        assert dict(df.dtypes)["bad_bytes"] == "binary"
        assert spans((row.asDict() for row in df.collect()), "bad_bytes") == want
    with pytest.raises(ValueError, match="already a column"):
        read_dumps(spark, str(path), "broadcast", corrupt_record_column="path")
    with pytest.raises(Exception, match="already a column"):
        inlong(spark, path, protocol="broadcast", columnNameOfCorruptRecord="offset")


def test_a_file_no_protocol_recognises_keeps_its_bytes_out_of_the_row(spark, dumps):
    (row,) = inlong(spark, dumps / "zeros.bin", protocol=AUTO).collect()
    assert "no known protocol" in row.error and row._corrupt_record is None  # the bytes are the whole file


# --- times, maps -------------------------------------------------------------------------------------


def _timestamps(data_type, path: str):
    if isinstance(data_type, StructType):
        for field in data_type.fields:
            yield from _timestamps(field.dataType, f"{path}.{field.name}" if path else field.name)
    elif isinstance(data_type, ArrayType):
        yield from _timestamps(data_type.elementType, path + "[]")
    elif data_type.typeName() in ("timestamp", "timestamp_ntz"):
        yield path, data_type.typeName()


def test_instants_are_timestamp_and_wall_clock_text_is_timestamp_ntz():
    found = {name: dict(_timestamps(arrow.spark_schema(name), "")) for name in PROTOCOLS}
    found["auto"] = dict(_timestamps(spark_schema(AUTO), ""))
    found["records"] = dict(_timestamps(record_spark_schema(), ""))
    instants = {"capture.time": "timestamp"}  # pcap packet times: UTC epoch counts
    assert found == {
        **{name: instants for name in PROTOCOLS},
        # broadcast's bracketed "[yyyy-MM-dd HH:mm:ss.SSS]": wall-clock text, no zone on the wire
        "broadcast": {"data_request.last_timestamp": "timestamp_ntz", "data_response.timestamp": "timestamp_ntz",
                      **instants},
        "auto": {"broadcast.data_request.last_timestamp": "timestamp_ntz",
                 "broadcast.data_response.timestamp": "timestamp_ntz", **instants},
        "records": {"data_time": "timestamp", **instants},  # DataProxy's dt: epoch milliseconds
    }


def test_data_time_is_the_instant_whatever_the_time_zone(spark, dumps):
    rows = list(record_rows(iter_frames(RECORDS + TEXT, "dataproxy")))
    assert [row.data_time for row in rows] == [SECONDS.replace(tzinfo=None)] * 2 + [INSTANT.replace(tzinfo=None)]
    # Spark's converter reads a naive datetime as the worker's local time: the UDTF hands it an aware one
    values = [row_tuple("p", row)[RECORD_COLUMNS.index("data_time")] for row in rows]
    assert all(value.tzinfo is not None for value in values) and values == [SECONDS, SECONDS, INSTANT]
    df = read_records(spark, str(dumps / "records.bin"))
    assert dict(df.dtypes)["data_time"] == "timestamp"
    table = df.toArrow()
    assert table.schema.field("data_time").type.tz is not None
    found = sorted((row["frame_offset"], row["record_index"], row["data_time"]) for row in table.to_pylist())
    assert [value.astimezone(timezone.utc) for *_, value in found] == [SECONDS, SECONDS, INSTANT]  # Arrow: zoned


def test_record_attrs_is_a_map(spark, dumps):
    df = read_records(spark, str(dumps / "records.bin"))
    assert dict(df.dtypes)["record_attrs"] == "map<string,string>"
    rows = sorted(df.collect(), key=lambda row: (row.frame_offset, row.record_index))
    assert [row.record_attrs for row in rows] == [{"k": "v", "n": "1"}, {}, {}]
    assert df.where("record_attrs['k'] = 'v'").count() == 1
    # a repeated key keeps its first value, as attr_value reads attributes
    row = replace(next(record_rows(iter_frames(RECORDS, "dataproxy"))), record_attrs=(("k", "1"), ("k", "2")))
    assert row_tuple("p", row)[RECORD_COLUMNS.index("record_attrs")] == {"k": "1"}


# --- every column documented with its type ---------------------------------------------------------


def label(data_type) -> str:
    """A Spark type as the readers' docstrings write it: STRUCT / ARRAY<...> / MAP<K, V> / the SQL name."""
    if isinstance(data_type, StructType):
        return "STRUCT"
    if isinstance(data_type, ArrayType):
        return f"ARRAY<{label(data_type.elementType)}"
    if isinstance(data_type, MapType):
        return f"MAP<{label(data_type.keyType)}, {label(data_type.valueType)}>"
    return data_type.simpleString().upper()


def undocumented(doc: str, schema) -> list[str]:
    return [f"{field.name} {label(field.dataType)}" for field in schema.fields
            if not re.search(rf"``{re.escape(field.name)}``\s+{re.escape(label(field.dataType))}(?!\w)", doc)]


def test_every_reader_documents_its_columns_with_their_types():
    for name in PROTOCOLS:
        assert undocumented(read_dumps.__doc__, arrow.spark_schema(name)) == [], name
        assert spark_schema(name) == arrow.spark_schema(name)  # format("inlong") with a protocol: the same
    assert undocumented(InlongDataSource.__doc__, spark_schema(AUTO)) == []
    assert tuple(record_spark_schema().fieldNames()) == RECORD_COLUMNS
    assert undocumented(read_records.__doc__, record_spark_schema()) == []
    from inlong_proto.spark.captures import read_captures  # every reader's last column: the date (issue 26)
    dated = StructType().add("date", "date")
    for reader in (read_dumps, InlongDataSource, read_records, read_captures):
        assert undocumented(reader.__doc__, dated) == [], reader.__name__
    # and the check can fail: a wrong type is caught
    assert undocumented("``path`` STRING ``offset`` INT", StructType().add("path", "string").add("offset", "long")) \
        == ["offset BIGINT"]
    assert undocumented("``time`` TIMESTAMP_NTZ", StructType().add("time", "timestamp")) == ["time TIMESTAMP"]


# --- without the spark extra -------------------------------------------------------------------------

CALLS = {
    "read_dumps": "from inlong_proto.spark.dumps import read_dumps; read_dumps(None, 'x', 'broadcast')",
    "register_udtf": "from inlong_proto.spark.dumps import register_udtf; register_udtf(None, 'broadcast')",
    "local_session": "from inlong_proto.spark.dumps import local_session; local_session()",
    "read_records": "from inlong_proto.spark.records import read_records; read_records(None, 'x')",
    "register": "from inlong_proto.spark.source import register; register(None)",
}
BLOCKER = """
import importlib.abc, json, sys

class Missing(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == {module!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)

sys.meta_path.insert(0, Missing())
import inlong_proto, inlong_proto.spark, inlong_proto.spark.source, inlong_proto.dataproxy.records
out = {{}}
for name, call in json.loads(sys.argv[1]).items():
    try:
        exec(call)
        out[name] = "no error"
    except Exception as exc:
        out[name] = f"{{type(exc).__name__}}: {{exc}}"
print(json.dumps(out))
"""


@pytest.mark.parametrize("module", ["pyspark", "pyarrow"])
def test_a_missing_spark_extra_is_named(module):
    result = subprocess.run([sys.executable, "-c", BLOCKER.format(module=module), json.dumps(CALLS)],
                            capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    assert found.keys() == CALLS.keys()
    for name, message in found.items():
        assert message.startswith("ImportError: "), (name, message)
        assert f"No module named '{module}'" in message and "pip install 'inlong-proto[spark]'" in message, name
