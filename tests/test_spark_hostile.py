"""Spark survives any single file (issue 24, item 2): a hostile file gives error rows, never a dead session.

The Spark-side guards (pieces.FileGuard) are tested first on their own, without Spark, against
synthetic trouble whatever the decoders do: a decoder raising MemoryError or RecursionError, a giant row,
output without end, a worker that grows. Then one local session (conftest's) reads a folder holding every
hostile file of hostile_streams beside good files, through format("inlong") with protocol=auto and through
the binaryFile UDTFs (read_dumps; parse_udtf in SQL), and runs another query after. Bounds, each asserted:

- a hostile file's rows take at most what ReadLimits allows (maxOutputBytes + maxOutputRatio x its size);
- a batch holds at most max(maxBatchBytes, maxRowBytes) of Arrow memory, and twice maxBatchBytes where every
  row is small;
- the session's Python workers peak below WORKER_PEAK while the folder is read;
- the folder's reads (three readers, 22 files) finish: a hard timeout (READ_TIMEOUT), a hang guard, not a speed.
"""
import os
import sys
import threading
from pathlib import Path

import pytest

from inlong_proto.core import arrow
from inlong_proto.capture.writer import Conversation, pcap_file
from inlong_proto.spark.dumps import DumpDecodeError
from inlong_proto.spark.pieces import STREAM_CHUNK, FileGuard, ReadLimits, fixed_bytes
from inlong_proto.spark.source import InlongDataSource, InlongReader, Options, read_partition
from inlong_proto.core.sources import file_uri

import hostile_streams as hostile

VECTORS = Path(__file__).parent / "vectors" / "capture"
WORKER_PEAK = 1536 << 20  # bytes: every Python worker's peak RSS while the hostile folder is read
READ_TIMEOUT = 240  # seconds: the session's start, if this test comes first, and the reads (about 30 s here)


def http_dump(requests: int = 2000, pad: int = 0) -> bytes:
    """EventMesh HTTP requests back to back (about 160 bytes each, and pad more): a good HTTP/1.1 dump."""
    out = []
    for i in range(requests):
        body = b"content=%d%s&topic=t&producergroup=g" % (i, b"x" * pad)
        out.append(b"POST /eventmesh/publish HTTP/1.1\r\nHost: em\r\ncode: 104\r\n"
                   b"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n\r\n%s"
                   % (len(body), body))
    return b"".join(out)


def read(path: Path, **options) -> list:
    """read_partition's batches for one file, as the data source's task reads it (in this process)."""
    settings = Options({"path": str(path), "protocol": "auto", **options})
    return list(read_partition(settings, [(str(path), path.stat().st_size, 0)]))


def rows_of(batches) -> list[dict]:
    return [row for batch in batches for row in batch.select(["offset", "length", "protocol", "error"]).to_pylist()]


@pytest.fixture
def dump(tmp_path):
    path = tmp_path / "requests.http"
    path.write_bytes(http_dump())
    return path


class Failing:
    """A stream decoder that raises on its `after`+1-th feed (what `fail` raises)."""

    def __init__(self, inner, after: int, fail):
        self.inner, self.after, self.fail, self.feeds = inner, after, fail, 0

    def feed(self, data):
        self.feeds += 1
        if self.feeds > self.after:
            self.fail()
        return self.inner.feed(data)

    def close(self):
        return self.inner.close()


def out_of_memory():
    bytearray(1 << 60)  # a real MemoryError, and no memory taken


def recurse(depth=0):
    return recurse(depth + 1) + 1  # a real RecursionError


def failing_decoders(after: int, fail):
    from inlong_proto.spark import pieces

    real = pieces.stream_decoder
    return lambda *args, **kwargs: Failing(real(*args, **kwargs), after, fail)


# --- the guards, without Spark ---------------------------------------------------------------------------


@pytest.mark.parametrize("fail, name", [(out_of_memory, "MemoryError"), (recurse, "RecursionError")])
def test_a_decoder_failure_is_an_error_row_after_the_rows_before_it(monkeypatch, dump, fail, name):
    good = rows_of(read(dump))
    assert len(good) == 2000 and not any(row["error"] for row in good)
    monkeypatch.setattr("inlong_proto.spark.pieces.stream_decoder", failing_decoders(2, fail))
    rows = rows_of(read(dump))
    *before, last = rows
    assert before == [row for row in good if row["offset"] + row["length"] <= 2 * STREAM_CHUNK][:len(before)]
    assert len(before) > 400  # the rows of the first two chunks stay
    assert last["offset"] == 2 * STREAM_CHUNK and last["length"] == dump.stat().st_size - 2 * STREAM_CHUNK
    assert last["protocol"] == "eventmesh-http"
    assert last["error"].startswith(f"offset {2 * STREAM_CHUNK}: {name} while reading it")
    assert last["error"].endswith("the rest is not read")


def test_a_decoder_failure_under_the_other_modes(monkeypatch, dump):
    monkeypatch.setattr("inlong_proto.spark.pieces.stream_decoder", failing_decoders(1, out_of_memory))
    rows = rows_of(read(dump, mode="DROPMALFORMED"))
    assert rows and not any(row["error"] for row in rows)
    with pytest.raises(DumpDecodeError, match=rf"^{file_uri(str(dump))}: offset {STREAM_CHUNK}: MemoryError "):
        read(dump, mode="FAILFAST")


def test_storage_errors_still_fail_the_task(monkeypatch, dump):
    """An OSError is the storage's, not the bytes': the task fails and Spark retries it."""
    def broken():
        raise OSError("connection reset")

    monkeypatch.setattr("inlong_proto.spark.pieces.stream_decoder", failing_decoders(1, broken))
    with pytest.raises(OSError, match="connection reset"):
        read(dump)


def test_a_capture_decoder_failure_is_an_error_row(monkeypatch, tmp_path):
    from inlong_proto import capture

    conv = Conversation(client=("10.0.0.1", 40000), server=("10.0.0.2", 10105))
    path = tmp_path / "c.pcap"
    path.write_bytes(pcap_file(conv.open(0) + conv.send("client", http_dump(20), 1000) + conv.close(2000)))
    assert len(rows_of(read(path))) == 20

    def feed(self, data):
        recurse()

    monkeypatch.setattr(capture.CaptureDecoder, "feed", feed)
    [row] = rows_of(read(path))
    assert (row["offset"], row["length"], row["protocol"]) == (0, path.stat().st_size, None)
    assert row["error"].startswith("offset 0: RecursionError while reading it")


def test_a_compiled_scan_failure_is_an_error_row(monkeypatch, tmp_path):
    """The framed protocols' batches (split_batches, the compiled scanners where built) are guarded too."""
    from inlong_proto.spark import pieces

    path = tmp_path / "d.bin"
    path.write_bytes((VECTORS / "dataproxy_lo.client.bin").read_bytes() * 4)
    want = rows_of(read(path))
    real = pieces.split_batches

    def split_batches(*args, **kwargs):
        yield next(real(*args[:7], 5, *args[8:], **kwargs))  # (src, path, protocol, ..., index, rows, ...)
        out_of_memory()

    monkeypatch.setattr(pieces, "split_batches", split_batches)
    rows = rows_of(read(path))
    assert rows[:5] == want[:5]
    assert rows[5]["offset"] == want[4]["offset"] + want[4]["length"] and len(rows) == 6
    assert rows[5]["protocol"] == "dataproxy" and "MemoryError while reading it" in rows[5]["error"]


def test_a_row_over_max_row_bytes_is_an_error_row_in_its_place(tmp_path):
    dump = tmp_path / "mixed.http"
    dump.write_bytes(b"".join(http_dump(1, pad=2000 * (i % 2)) for i in range(200)))  # every other one big
    rows = rows_of(read(dump))
    assert len(rows) == 200 and not any(r["error"] for r in rows)
    cap = fixed_bytes("auto") + 1500
    capped = rows_of(read(dump, maxRowBytes=str(cap)))
    assert [(r["offset"], r["length"]) for r in capped] == [(r["offset"], r["length"]) for r in rows]
    over = [r for r in capped if r["error"]]
    assert [r["offset"] for r in over] == [r["offset"] for r in rows[1::2]]
    assert all(r["error"].startswith(f"offset {r['offset']}: its row would take ") and
               r["error"].endswith(f"bytes, over maxRowBytes ({cap:,})") for r in over)
    with pytest.raises(DumpDecodeError, match="over maxRowBytes"):
        read(dump, maxRowBytes=str(cap), mode="FAILFAST")
    assert len(rows_of(read(dump, maxRowBytes=str(cap), mode="DROPMALFORMED"))) == len(rows) - len(over)


def test_a_file_s_rows_are_bounded_by_max_output(dump):
    batches = read(dump, maxOutputBytes="64k", maxOutputRatio="0")
    *kept, last = rows_of(batches)
    assert last["error"] == (f"offset {last['offset']}: its rows passed 65,536 bytes: maxOutputBytes (65,536) + "
                             f"maxOutputRatio (0) x its {dump.stat().st_size:,} bytes; the rest is not read")
    assert last["offset"] == kept[-1]["offset"] + kept[-1]["length"]
    assert sum(batch.nbytes for batch in batches) < 2 * 65536  # the estimate is Arrow's size, about
    size = dump.stat().st_size
    assert not any(r["error"] for r in rows_of(read(dump, maxOutputBytes="1k", maxOutputRatio=str(size))))


def test_batches_are_cut_by_bytes(dump):
    batches = read(dump, maxBatchBytes="32k")
    assert len(batches) > 5
    assert max(batch.nbytes for batch in batches) <= 2 * 32768
    assert rows_of(batches) == rows_of(read(dump))


def test_the_worker_s_growth_is_bounded(monkeypatch, dump):
    """maxTaskMemory: the worker's RSS (worker_memory) is looked at before each chunk a decoder is fed and every
    MEMORY_EVERY rows; here it grows 300 MiB between two looks."""
    grown = iter(range(0, 10 << 30, 300 << 20))
    monkeypatch.setattr("inlong_proto.spark.pieces.worker_memory", lambda: next(grown))
    *kept, last = rows_of(read(dump))  # the fourth look (3 chunks fed, or 1024 rows made) crosses it
    assert last["error"] == (f"offset {last['offset']}: reading it grew the Python worker by {1200 << 20:,} "
                             f"bytes, over maxTaskMemory ({1 << 30:,}); the rest is not read")
    assert 2 * STREAM_CHUNK < last["offset"] <= 3 * STREAM_CHUNK and len(kept) >= 1000
    grown = iter(range(0, 10 << 30, 300 << 20))
    assert not any(r["error"] for r in rows_of(read(dump, maxTaskMemory="0")))


def test_limit_options_are_checked():
    assert Options({"path": "x", "protocol": "auto"}).limits == ReadLimits()
    limits = Options({"path": "x", "protocol": "auto", "MAXBATCHBYTES": "1m", "maxTaskMemory": "0",
                      "maxOutputRatio": "3"}).limits
    assert (limits.batch_bytes, limits.task_memory, limits.output_ratio) == (1 << 20, 0, 3)
    for bad, message in (({"maxRowBytes": "2g"}, "at most 1,073,741,824 bytes"),
                         ({"maxBatchBytes": "0"}, "maxBatchBytes must be positive"),
                         ({"maxOutputRatio": "1.5"}, "maxOutputRatio must be a whole number"),
                         ({"maxOutputBytes": "lots"}, "maxOutputBytes must be a number of bytes")):
        with pytest.raises(ValueError, match=message):
            Options({"path": "x", "protocol": "auto", **bad})


def test_guard_error_row_names_the_protocol_it_read():
    guard = FileGuard("p", "tubemq", "PERMISSIVE", ReadLimits(), 100, 40, 90)
    own, row, _ = guard.failed(MemoryError())
    assert own == "tubemq" and row[1:4] == (40, 50, "tubemq")
    assert row[6] == "offset 40: MemoryError while reading it; the rest is not read"
    assert guard.failed(MemoryError()) is None  # one error row a read


# --- one session: a folder of hostile files beside good ones ------------------------------------------------

# hostile_streams' recipes, sized so that the folder reads in seconds (the decoders' own tests run them whole)
HOSTILE = {
    "hpack_bomb.h2": lambda: hostile.hpack_bomb(),
    "hpack_bomb.pcap": lambda: hostile.as_capture(hostile.hpack_bomb(300)),
    "gzip_bomb.h2": lambda: hostile.gzip_bomb(),
    "gzip_bomb.pcap": lambda: hostile.as_capture(hostile.gzip_bomb(4)),
    "open_streams.h2": lambda: hostile.open_streams(3_000),
    "continuation_flood.h2": lambda: b"".join(hostile.continuation_flood(2 << 20)),
    "table_size_update.h2": lambda: hostile.table_size_update(),
    "one_stream_messages.h2": lambda: hostile.one_stream_messages(10_000),
    "random_bytes.bin": lambda: hostile.random_bytes(1 << 20),
    "http_chunk_flood.http": lambda: hostile.http_chunk_flood(200_000),
    "http_huge_body.http": lambda: b"".join(hostile.http_huge_body(8 << 20)),
}
GOOD = sorted(p.name for p in VECTORS.iterdir())  # captures of every protocol and dumps of three


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hostile")
    for name, build in HOSTILE.items():
        (folder / name).write_bytes(build())
    good = folder / "good"
    good.mkdir()
    for name in GOOD:
        (good / name).write_bytes((VECTORS / name).read_bytes())
    (good / "requests.http").write_bytes(http_dump(200))
    return folder


class WorkerPeak:
    """The peak RSS of this process's Python descendants (Spark's daemon and workers; not the JVM) over a with
    block: their VmHWM, reset on entry (/proc/PID/clear_refs) and sampled every 0.2 s (a worker that exits
    takes its own along)."""

    def __init__(self):
        self.peak, self.seen, self._done = 0, set(), threading.Event()

    @staticmethod
    def workers() -> list[int]:
        parents = {}
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                except (OSError, IndexError, ValueError):
                    continue
        found, mine = [], {os.getpid()}
        for _ in range(8):  # the JVM's launcher, the JVM, the daemon, its workers: a few generations
            mine |= {pid for pid, parent in parents.items() if parent in mine}
        for pid in mine - {os.getpid()}:
            try:
                argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"python" in os.path.basename(argv[0]) and any(arg.startswith(b"pyspark.") for arg in argv):
                found.append(pid)
        return found

    def _sample(self):
        for pid in self.workers():
            self.seen.add(pid)
            try:
                status = Path(f"/proc/{pid}/status").read_text()
            except OSError:
                continue
            for line in status.splitlines():
                if line.startswith("VmHWM:"):
                    self.peak = max(self.peak, int(line.split()[1]) << 10)

    def _run(self):
        while not self._done.wait(0.2):
            self._sample()

    def __enter__(self):
        for pid in self.workers():
            try:
                Path(f"/proc/{pid}/clear_refs").write_text("5")
            except OSError:
                pass
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._done.set()
        self._thread.join()
        self._sample()


def summary(df) -> dict:
    """{path: [(offset, length, protocol, message_type, error, bytes)]}, bytes: about the row's size (its
    columns as JSON, its corrupt-record bytes)."""
    from pyspark.sql import functions as F

    plain = [F.col(f"`{name}`") for name in df.columns if name != arrow.CORRUPT_RECORD]
    size = (F.octet_length(F.to_json(F.struct(*plain)))
            + F.coalesce(F.octet_length(arrow.CORRUPT_RECORD), F.lit(0))).alias("bytes")
    found: dict = {}
    for row in df.select("path", "offset", "length", "protocol", "message_type", "error", size).collect():
        found.setdefault(row.path, []).append(tuple(row)[1:])
    return found


def reference(path: Path, protocol: str) -> list[tuple]:
    """The rows one file gives read alone in this process (piece_batches, as a task reads it)."""
    from inlong_proto.core.sources import BytesSource
    from inlong_proto.spark.pieces import piece_batches

    data = path.read_bytes()
    rows = []
    for batch in piece_batches(BytesSource(data), "p", protocol, None, "PERMISSIVE", max(1, len(data)), 0):
        rows += [tuple(r.values()) for r in batch.select(["offset", "length", "protocol", "message_type",
                                                          "error"]).to_pylist()]
    return sorted(rows, key=repr)


def check(found: dict, folder: Path, protocol: str, uri, good=(*GOOD, "requests.http"), bad=tuple(HOSTILE)):
    """The good files' rows are all there, as read alone; every hostile file gave rows (errors, or what
    it holds), within ReadLimits' bound on a file's rows."""
    limits = ReadLimits()
    for name in good:
        path = folder / "good" / name
        assert sorted((row[:5] for row in found.pop(uri(path))), key=repr) == reference(path, protocol), name
    for name in bad:
        rows = found.pop(uri(folder / name))
        size = (folder / name).stat().st_size
        assert sum(row[5] for row in rows) <= limits.output_bytes + limits.output_ratio * size, name
    assert not found  # no other path


@pytest.mark.timeout(READ_TIMEOUT)
def test_one_session_reads_a_hostile_folder_and_goes_on(spark, folder):
    from pyspark.sql import functions as F

    from inlong_proto.spark.dumps import read_dumps, register_udtf
    from inlong_proto.spark.source import register

    register(spark)
    register_udtf(spark, "eventmesh-grpc", name="parse_grpc_hostile")
    packing = spark.conf.get("spark.sql.files.maxPartitionBytes")
    spark.conf.set("spark.sql.files.maxPartitionBytes", "8m")  # binaryFile: files over both cores, as splitSize
    try:
        with WorkerPeak() as peak:
            auto = summary(spark.read.format("inlong").option("protocol", "auto").option("splitSize", "8m")
                           .load(str(folder)))
            grpc = summary(read_dumps(spark, str(folder), "eventmesh-grpc"))
            spark.sql(f"CREATE OR REPLACE TEMP VIEW hostile_files USING binaryFile "  # the HTTP/2 ones
                      f"OPTIONS (path '{folder}', recursiveFileLookup 'true', pathGlobFilter '*.h2')")
            sql = summary(spark.sql("SELECT p.* FROM hostile_files, LATERAL parse_grpc_hostile(path, content) p"))
    finally:
        spark.conf.set("spark.sql.files.maxPartitionBytes", packing)
    print(f"\nhostile folder: 3 reads, Python workers' peak RSS {peak.peak / 2**20:.0f} MiB "
          f"({len(peak.seen)} processes)")
    assert 0 < peak.peak < WORKER_PEAK
    auto_errors = {path: sum(1 for row in rows if row[4]) for path, rows in auto.items()}
    for name in ("hpack_bomb.h2", "gzip_bomb.h2", "continuation_flood.h2", "random_bytes.bin",
                 "http_huge_body.http"):
        assert auto_errors[file_uri(str(folder / name))], name  # each says what is wrong with it
    check(auto, folder, "auto", lambda path: file_uri(str(path)))
    check(grpc, folder, "eventmesh-grpc", lambda path: f"file:{path}")
    check(sql, folder, "eventmesh-grpc", lambda path: f"file:{path}", (), [n for n in HOSTILE if n.endswith(".h2")])
    # the session goes on
    assert spark.range(1000).select(F.sum("id")).first()[0] == 499500
    again = spark.read.format("inlong").option("protocol", "auto").load(str(folder / "good" / "requests.http"))
    assert again.where("error IS NULL").count() == 200


# --- synthetic trouble in the workers -------------------------------------------------------------------------


class decoders_failing:
    """In the process it runs in (a Spark worker), stream decoders that raise MemoryError on their second feed."""

    def __enter__(self):
        from inlong_proto.spark import pieces

        self.real = pieces.stream_decoder
        pieces.stream_decoder = failing_decoders(1, out_of_memory)

    def __exit__(self, *exc):
        from inlong_proto.spark import pieces

        pieces.stream_decoder = self.real  # the worker serves later tasks too


class TroubleReader(InlongReader):
    def read(self, partition):
        with decoders_failing():
            yield from super().read(partition)


class TroubleSource(InlongDataSource):
    """format("inlong") whose workers' HTTP decoders fail (decoders_failing)."""

    @classmethod
    def name(cls):
        return "inlong_trouble"

    def reader(self, schema):
        reader = super().reader(schema)
        return TroubleReader(reader.options, reader.columns, reader.names)


def trouble_udtf():
    """read_dumps' UDTF (eventmesh-http) whose workers' HTTP decoders fail (decoders_failing)."""
    from pyspark.sql.functions import arrow_udtf

    from inlong_proto.spark.dumps import batch_udtf

    inner = batch_udtf("eventmesh-http")

    class TroubleBatches(inner.func):
        def eval(self, table):
            with decoders_failing():
                yield from super().eval(table)

    return arrow_udtf(TroubleBatches, returnType=inner.returnType)


@pytest.fixture
def by_value():
    """This module's classes and functions go to the workers by value (they cannot import it)."""
    from pyspark import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    yield
    cloudpickle.unregister_pickle_by_value(sys.modules[__name__])


def test_decoder_failures_in_the_workers_are_error_rows(spark, tmp_path, by_value):
    from inlong_proto.spark.dumps import dump_files

    dump = tmp_path / "requests.http"
    dump.write_bytes(http_dump())
    (tmp_path / "dataproxy.pcap").write_bytes((VECTORS / "dataproxy_lo.pcap").read_bytes())
    want = {path: sorted(rows) for path, rows in [
        (file_uri(str(path)), [(r["offset"], r["length"], r["error"]) for r in rows_of(read(path))])
        for path in (dump, tmp_path / "dataproxy.pcap")]}
    spark.dataSource.register(TroubleSource)

    def trouble(mode: str) -> dict:
        df = spark.read.format("inlong_trouble").option("protocol", "auto").option("mode", mode).load(str(tmp_path))
        found: dict = {}
        for row in df.select("path", "offset", "length", "error").collect():
            found.setdefault(row.path, []).append(tuple(row)[1:])
        return {path: sorted(rows) for path, rows in found.items()}

    found = trouble("PERMISSIVE")
    assert found.pop(file_uri(str(tmp_path / "dataproxy.pcap"))) == want[file_uri(str(tmp_path / "dataproxy.pcap"))]
    *kept, (offset, length, error) = found.pop(file_uri(str(dump)))
    assert kept == [row for row in want[file_uri(str(dump))] if row[0] + row[1] <= STREAM_CHUNK][:len(kept)]
    assert (offset, length) == (STREAM_CHUNK, dump.stat().st_size - STREAM_CHUNK) and len(kept) > 300
    assert error == f"offset {STREAM_CHUNK}: MemoryError while reading it; the rest is not read"
    assert not found
    assert not any(row[2] for rows in trouble("DROPMALFORMED").values() for row in rows)
    with pytest.raises(Exception, match=rf"{file_uri(str(dump))}: offset {STREAM_CHUNK}: MemoryError while"):
        trouble("FAILFAST")
    rows = trouble_udtf()(dump_files(spark, str(dump))).select("offset", "error").collect()
    assert rows[-1].error == f"offset {STREAM_CHUNK}: MemoryError while reading it; the rest is not read"
    assert spark.range(10).count() == 10  # the session goes on
