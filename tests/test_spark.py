"""read_dumps and the SQL UDTF on a local Spark: typed rows, exact coverage, modes, direction."""
from datetime import datetime
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from inlong_proto import encode
from inlong_proto.generated.codec.broadcast import broadcast_frame as b

pytest.importorskip("pyarrow")
pytest.importorskip("pyspark")

from inlong_proto.core.arrow import spark_schema  # noqa: E402
from inlong_proto.spark.dumps import parse_udtf, read_dumps, register_udtf  # noqa: E402


def response(data: int, status=b.Status.real_time, ms: int = 0) -> bytes:
    return encode(b.BroadcastFrame(body=b.DataResponse(status=status, data=data,
                                                       timestamp=datetime(2024, 1, 1, 0, 0, 0, ms * 1000))))


def request(last: int) -> bytes:
    return encode(b.BroadcastFrame(body=b.DataRequest(last_timestamp=datetime(2024, 1, 1), last_data=last)))


# Each dump: its bytes, then (offset, length, message_type or None for an error span) of every row.
DUMPS = {
    "mixed.bin": (
        response(5, b.Status.history, 123) + request(7) + b"\xffgarbage" + response(9)
        + response(1)[:20],  # truncated tail
        [(0, 38, "data_response"), (38, 37, "data_request"), (75, 8, None), (83, 38, "data_response"),
         (121, 20, None)],
    ),
    "nested/responses.bin": (
        response(1) + response(2) + response(3),
        [(0, 38, "data_response"), (38, 38, "data_response"), (76, 38, "data_response")],
    ),
    "nested/junk.dat": (b"\x00" * 10, [(0, 10, None)]),
}


@pytest.fixture(scope="module")
def dumps(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("dumps")
    for name, (data, _) in DUMPS.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return root


def local(uri: str) -> str:
    return unquote(urlparse(uri).path)


def by_file(rows, root: Path) -> dict[str, list]:
    out: dict[str, list] = {}
    for row in rows:
        out.setdefault(Path(local(row.path)).relative_to(root.resolve()).as_posix(), []).append(row)
    return {name: sorted(group, key=lambda r: r.offset) for name, group in out.items()}


@pytest.fixture(scope="module")
def permissive(spark, dumps):
    return read_dumps(spark, str(dumps), "broadcast").collect()


def test_permissive_rows_match_the_dumps(spark, dumps, permissive):
    files = by_file(permissive, dumps)
    assert sorted(files) == sorted(DUMPS)
    for name, (_, expected) in DUMPS.items():
        assert [(r.offset, r.length, r.message_type) for r in files[name]] == expected, name
        for row in files[name]:
            assert (row.error is None) == (row.message_type is not None)


def test_permissive_rows_tile_every_file(dumps, permissive):
    for name, rows in by_file(permissive, dumps).items():
        position = 0
        for row in rows:
            assert row.offset == position, (name, row)
            position += row.length
        assert position == (dumps / name).stat().st_size, name


def test_values_are_typed(spark, dumps, permissive):
    df = read_dumps(spark, str(dumps / "mixed.bin"), "broadcast")
    assert df.schema.fields[:-1] == spark_schema("broadcast").fields  # then the date column (issue 26)
    assert df.schema.fields[-1].name == "date" and df.schema.fields[-1].dataType.simpleString() == "date"
    first, second, garbage, _, tail = by_file(permissive, dumps)["mixed.bin"]
    assert (first.protocol, first.direction, first.command_id, first.total_length) == \
        ("broadcast", "response", "data_response", 38)
    assert first.data_request is None
    assert first.data_response.asDict() == {"status": "history", "data": 5,
                                            "timestamp": datetime(2024, 1, 1, 0, 0, 0, 123000)}
    assert second.direction == "request"
    assert second.data_request.asDict() == {"last_timestamp": datetime(2024, 1, 1), "last_data": 7}
    assert garbage.error.startswith("offset 75 in total_length: ")
    assert garbage.data_response is None and garbage.command_id is None
    assert tail.error.startswith("offset 141: input ends inside a frame")


def test_dropmalformed_drops_error_rows(spark, dumps):
    rows = read_dumps(spark, str(dumps), "broadcast", mode="dropmalformed").collect()
    assert all(row.error is None for row in rows)
    assert len(rows) == sum(t is not None for _, expected in DUMPS.values() for *_, t in expected)


def test_failfast_fails_the_job_naming_file_and_offset(spark, dumps):
    df = read_dumps(spark, str(dumps / "mixed.bin"), "broadcast", mode="FAILFAST")
    with pytest.raises(Exception, match=r"mixed\.bin: offset 75 in total_length"):
        df.collect()


def test_direction(spark, dumps):
    responses = read_dumps(spark, str(dumps / "nested" / "responses.bin"), "broadcast", direction="response")
    assert [r.direction for r in responses.collect()] == ["response"] * 3
    # In a dump of one direction, a frame of the other one is malformed: dropped here.
    mixed = read_dumps(spark, str(dumps / "mixed.bin"), "broadcast", direction="response", mode="DROPMALFORMED")
    assert sorted(r.offset for r in mixed.collect()) == [0, 83]
    with pytest.raises(ValueError, match="direction"):
        read_dumps(spark, str(dumps), "broadcast", direction="sideways")


def test_glob_and_list_of_paths(spark, dumps):
    assert read_dumps(spark, str(dumps / "nested" / "*.bin"), "broadcast").count() == 3
    both = read_dumps(spark, [str(dumps / "mixed.bin"), str(dumps / "nested" / "junk.dat")], "broadcast")
    assert both.count() == 6


def test_udtf_is_arrow_optimized():
    from pyspark.util import PythonEvalType

    assert parse_udtf("broadcast").evalType == PythonEvalType.SQL_ARROW_TABLE_UDF


def test_sql_udtf(spark, dumps):
    register_udtf(spark, "broadcast")
    register_udtf(spark, "broadcast", mode="DROPMALFORMED", name="parse_broadcast_valid")
    spark.sql(f"CREATE OR REPLACE TEMP VIEW dump_files USING binaryFile "
              f"OPTIONS (path '{dumps}', recursiveFileLookup 'true')")
    query = "SELECT offset, error FROM parse_broadcast(TABLE(SELECT path, content FROM dump_files))"
    rows = spark.sql(query).collect()
    expected = [t for _, spans in DUMPS.values() for *_, t in spans]
    assert len(rows) == len(expected)
    assert sum(r.error is not None for r in rows) == expected.count(None)
    lateral = spark.sql("SELECT p.offset, p.data_response.data AS data FROM dump_files f, "
                        "LATERAL parse_broadcast_valid(f.path, f.content) p "
                        "WHERE f.path LIKE '%responses.bin' ORDER BY p.offset").collect()
    assert [(r.offset, r.data) for r in lateral] == [(0, 1), (38, 2), (76, 3)]


def test_a_file_too_big_for_one_binaryfile_row_is_refused_up_front(spark, tmp_path):
    """Issue 11 reproducer: read_dumps on one 200 MB file killed the JVM (OutOfMemoryError: Java heap
    space) under local_session; now it is refused from the listing, before any content is read."""
    from inlong_proto.spark.records import read_records

    big = tmp_path / "big" / "dump.bin"
    big.parent.mkdir()
    with open(big, "wb") as out:
        out.truncate(200 << 20)  # sparse: no disk, no reading
    for call in (lambda: read_dumps(spark, str(big.parent), "dataproxy"),
                 lambda: read_records(spark, str(big))):
        with pytest.raises(ValueError, match=r'dump\.bin: 209,715,200 bytes.*format\("inlong"\)'):
            call()
    from inlong_proto.spark.dumps import default_max_file_size

    heap = spark.sparkContext._jvm.java.lang.Runtime.getRuntime().maxMemory()
    assert default_max_file_size(spark) == heap // 16  # 63 MB read and 127 MB died with a 1 GiB heap
    small = tmp_path / "small.bin"
    small.write_bytes(bytes(100))
    assert read_dumps(spark, str(small), "broadcast", max_file_size=100).count() >= 1
    with pytest.raises(ValueError, match="max_file_size"):
        read_dumps(spark, str(small), "broadcast", max_file_size=99)
