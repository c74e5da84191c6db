"""decode -T parquet / csv on files: the compiled batch path, the rows and schema of format("inlong")."""
from __future__ import annotations

import csv
import io
import subprocess
import sys
from pathlib import Path

import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

from inlong_proto.cli import whole_files  # noqa: E402
from tools.bench.native_capture import capture, dataproxy_frames  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def decode(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "inlong_proto", "decode", *map(str, args)], capture_output=True,
                          cwd=cwd or ROOT)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    where = tmp_path_factory.mktemp("whole")
    frames = dataproxy_frames(300)
    data, _ = capture(frames, 4, 46801)
    (where / "dp.pcap").write_bytes(data)
    dump = b"".join(frame for side, frame in frames if side == "client")
    (where / "dp.bin").write_bytes(dump)
    (where / "broken.bin").write_bytes(dump[:len(dump) // 2] + b"\xff" * 40 + dump[len(dump) // 2:])
    (where / "empty.bin").write_bytes(b"")
    return where


def reader_rows(path: Path, protocol: str, mode: str = "PERMISSIVE", **more):
    pytest.importorskip("pyspark")
    from inlong_proto.spark.source import Options, read_partition

    options = Options({"protocol": protocol, "mode": mode, "path": str(path), **more})
    return pa.Table.from_batches(list(read_partition(options, [(str(path), path.stat().st_size, 0)])))


@pytest.mark.parametrize("name,protocol", [("dp.pcap", "dataproxy"), ("dp.bin", "dataproxy"), ("dp.pcap", "auto"),
                                           ("broken.bin", "dataproxy")])
def test_parquet_is_the_readers_table(files, tmp_path, name, protocol):
    target = tmp_path / "out.parquet"
    with open(target, "wb") as out:
        result = subprocess.run([sys.executable, "-m", "inlong_proto", "decode", "-p", protocol, "--mode",
                                 "PERMISSIVE", "-T", "parquet", str(files / name)], stdout=out,
                                stderr=subprocess.PIPE, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    table = pq.read_table(target)
    assert table.schema.equals(whole_files.reader_schema(protocol))
    expected = reader_rows(files / name, protocol)
    assert table.schema.equals(expected.schema)  # the Spark reader's own Arrow batches, date column included
    assert table.equals(expected)
    if name == "broken.bin":
        assert table.column("error").null_count < table.num_rows


def test_auto_on_a_dump_carries_the_protocols_found_as_the_reader_does(files, tmp_path):
    target = tmp_path / "out.parquet"
    with open(target, "wb") as out:
        result = subprocess.run([sys.executable, "-m", "inlong_proto", "decode", "-p", "auto", "--mode",
                                 "PERMISSIVE", "-T", "parquet", str(files / "broken.bin")], stdout=out,
                                stderr=subprocess.PIPE, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    table = pq.read_table(target)
    assert table.schema.names[8:] == ["dataproxy", "capture", "date"]  # spark.source.found_protocols
    assert table.equals(reader_rows(files / "broken.bin", "auto", protocols="dataproxy"))


def test_schema_is_sparks_arrow_form():
    pytest.importorskip("pyspark")
    from inlong_proto.core import arrow, protocols
    from inlong_proto.spark.common import spark_arrow_schema

    for protocol in [*protocols.every_name(), "auto"]:
        assert whole_files.reader_schema(protocol).equals(arrow.dated_schema(spark_arrow_schema(protocol)))


def test_modes(files, tmp_path):
    failed = decode("-p", "dataproxy", "--mode", "FAILFAST", "-T", "csv", files / "broken.bin")
    assert failed.returncode == 1
    assert failed.stderr.decode().count("\n") == 1 and "error" in failed.stderr.decode()
    dropped = decode("-p", "dataproxy", "--mode", "DROPMALFORMED", "-T", "csv", files / "broken.bin")
    kept = decode("-p", "dataproxy", "--mode", "PERMISSIVE", "-T", "csv", files / "broken.bin")
    assert dropped.returncode == kept.returncode == 0
    dropped_rows = list(csv.DictReader(io.StringIO(dropped.stdout.decode())))
    kept_rows = list(csv.DictReader(io.StringIO(kept.stdout.decode())))
    assert all(not row["error"] for row in dropped_rows)
    assert len(kept_rows) > len(dropped_rows) and any(row["error"] for row in kept_rows)
    assert len(dropped_rows) == reader_rows(files / "broken.bin", "dataproxy", "DROPMALFORMED").num_rows
    empty = decode("-p", "dataproxy", "-T", "parquet", files / "empty.bin")
    assert empty.returncode == 1 and b"empty" in empty.stderr


@pytest.mark.parametrize("name", ["broken.bin", "mixed.pcap"])
def test_a_failfast_error_line_is_the_streaming_paths(files, name):
    """The whole-file path reads a file by its URI (the path column), but its error line names the file as
    given, word for word as decode's streaming path does (a capture's flow included)."""
    path = files / name if name != "mixed.pcap" else Path("examples/data/mixed.pcap")
    streamed = decode("-p", "dataproxy", path)
    for output_format in ("csv", "parquet"):
        whole = decode("-p", "dataproxy", "-T", output_format, path)
        assert whole.returncode == streamed.returncode == 1
        assert whole.stderr == streamed.stderr and whole.stderr.startswith(f"inlong-proto: error: {path}: ".encode())


def test_csv_matches_the_frames(files):
    result = decode("-p", "dataproxy", "-T", "csv", files / "dp.pcap")
    assert result.returncode == 0, result.stderr
    rows = list(csv.DictReader(io.StringIO(result.stdout.decode())))
    table = reader_rows(files / "dp.pcap", "dataproxy")
    assert len(rows) == table.num_rows
    assert [int(row["offset"]) for row in rows] == table.column("offset").to_pylist()
    assert "capture.client" in rows[0] and "text_message.attr" in rows[0]
    jsonl = decode("-p", "dataproxy", "-T", "jsonl", files / "dp.pcap")  # the streaming path: same frames
    assert jsonl.stdout.count(b"\n") == len(rows)


def test_csv_cells_are_made_safe():
    schema = pa.schema([("text", pa.string()), ("raw", pa.binary()), ("n", pa.int64()),
                        ("s", pa.struct([("inner", pa.string())]))])
    batch = pa.RecordBatch.from_pylist([
        {"text": "=HYPERLINK(1)", "raw": b"\xff\x00", "n": -5, "s": {"inner": "\x1b[31m"}},
        {"text": "plain", "raw": b"ok", "n": 1, "s": None}], schema=schema)
    flat = whole_files.csv_schema(schema)
    sink = io.BytesIO()
    writer = whole_files.CsvOut.__new__(whole_files.CsvOut)
    import pyarrow.csv as pcsv

    writer.schema, writer.writer = flat, pcsv.CSVWriter(sink, flat)
    writer.write(batch)
    writer.close()
    rows = list(csv.reader(io.StringIO(sink.getvalue().decode())))
    assert rows[0] == ["text", "raw", "n", "s.inner"]
    assert rows[1] == ["'=HYPERLINK(1)", '{"hex": "ff00"}', "-5", "\\x1b[31m"]
    assert rows[2] == ["plain", "ok", "1", ""]


def test_filters_keep_the_streaming_path(files):
    assert not whole_files.applies([str(files / "dp.pcap")], "csv", False, ("offset",), None, False, False, None)
    assert not whole_files.applies(["-"], "parquet", False, (), None, False, False, None)
    assert not whole_files.applies([str(files / "dp.pcap")], "jsonl", False, (), None, False, False, None)
    assert whole_files.applies([str(files / "dp.pcap")], "parquet", False, (), None, False, False, None)
