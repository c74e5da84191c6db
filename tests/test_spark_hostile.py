"""Spark survives any single file (issue 24, item 2): a hostile file gives error rows, never a dead session.

The Spark-side guards (spark_source.FileGuard) are tested first on their own, without Spark, against
synthetic trouble whatever the decoders do: a decoder raising MemoryError or RecursionError, a giant row,
output without end, a worker that grows. Then one local session (conftest's) reads a folder holding every
hostile file of hostile_streams beside good files, through format("inlong") with protocol=auto and through
the binaryFile UDTFs (read_dumps; parse_udtf in SQL), and runs another query after. Bounds, each asserted:

- a hostile file's rows take at most what Limits allows (maxOutputBytes + maxOutputRatio x its size);
- a batch holds at most max(maxBatchBytes, maxRowBytes) of Arrow memory, and twice maxBatchBytes where every
  row is small;
- the session's Python workers peak below WORKER_PEAK while the folder is read;
- the folder's reads (three readers, 22 files) take under READ_SECONDS.
"""
import os
import sys
import threading
import time
from pathlib import Path

import pytest

from inlong_proto import arrow, protocols
from inlong_proto.capture.writer import Conversation, pcap_file
from inlong_proto.spark import DumpDecodeError
from inlong_proto.spark_source import (STREAM_CHUNK, FileGuard, InlongDataSource, InlongReader, Limits, Options,
                                       file_uri, fixed_bytes, read_partition)

import hostile_streams as hostile

VECTORS = Path(__file__).parent / "vectors" / "capture"
WORKER_PEAK = 1536 << 20  # bytes: every Python worker's peak RSS while the hostile folder is read
READ_SECONDS = 120  # the hostile folder's reads together (about 30 s on this 2-core machine)


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
    from inlong_proto import spark_source

    real = spark_source.stream_decoder
    return lambda *args, **kwargs: Failing(real(*args, **kwargs), after, fail)


# --- the guards, without Spark ---------------------------------------------------------------------------


@pytest.mark.parametrize("fail, name", [(out_of_memory, "MemoryError"), (recurse, "RecursionError")])
def test_a_decoder_failure_is_an_error_row_after_the_rows_before_it(monkeypatch, dump, fail, name):
    good = rows_of(read(dump))
    assert len(good) == 2000 and not any(row["error"] for row in good)
    monkeypatch.setattr("inlong_proto.spark_source.stream_decoder", failing_decoders(2, fail))
    rows = rows_of(read(dump))
    *before, last = rows
    assert before == [row for row in good if row["offset"] + row["length"] <= 2 * STREAM_CHUNK][:len(before)]
    assert len(before) > 400  # the rows of the first two chunks stay
    assert last["offset"] == 2 * STREAM_CHUNK and last["length"] == dump.stat().st_size - 2 * STREAM_CHUNK
    assert last["protocol"] == "eventmesh-http"
    assert last["error"].startswith(f"offset {2 * STREAM_CHUNK}: {name} while reading it")
    assert last["error"].endswith("the rest is not read")


def test_a_decoder_failure_under_the_other_modes(monkeypatch, dump):
    monkeypatch.setattr("inlong_proto.spark_source.stream_decoder", failing_decoders(1, out_of_memory))
    rows = rows_of(read(dump, mode="DROPMALFORMED"))
    assert rows and not any(row["error"] for row in rows)
    with pytest.raises(DumpDecodeError, match=rf"^{file_uri(str(dump))}: offset {STREAM_CHUNK}: MemoryError "):
        read(dump, mode="FAILFAST")


def test_storage_errors_still_fail_the_task(monkeypatch, dump):
    """An OSError is the storage's, not the bytes': the task fails and Spark retries it."""
    def broken():
        raise OSError("connection reset")

    monkeypatch.setattr("inlong_proto.spark_source.stream_decoder", failing_decoders(1, broken))
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
    from inlong_proto import spark_source

    path = tmp_path / "d.bin"
    path.write_bytes((VECTORS / "dataproxy_lo.client.bin").read_bytes() * 4)
    want = rows_of(read(path))
    real = spark_source.split_batches

    def split_batches(*args, **kwargs):
        yield next(real(*args[:7], 5, *args[8:], **kwargs))  # (src, path, protocol, ..., index, rows, ...)
        out_of_memory()

    monkeypatch.setattr(spark_source, "split_batches", split_batches)
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
    monkeypatch.setattr("inlong_proto.spark_source.worker_memory", lambda: next(grown))
    *kept, last = rows_of(read(dump))  # the fourth look (3 chunks fed, or 1024 rows made) crosses it
    assert last["error"] == (f"offset {last['offset']}: reading it grew the Python worker by {1200 << 20:,} "
                             f"bytes, over maxTaskMemory ({1 << 30:,}); the rest is not read")
    assert 2 * STREAM_CHUNK < last["offset"] <= 3 * STREAM_CHUNK and len(kept) >= 1000
    grown = iter(range(0, 10 << 30, 300 << 20))
    assert not any(r["error"] for r in rows_of(read(dump, maxTaskMemory="0")))


def test_limit_options_are_checked():
    assert Options({"path": "x", "protocol": "auto"}).limits == Limits()
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
    guard = FileGuard("p", "tubemq", "PERMISSIVE", Limits(), 100, 40, 90)
    own, row, _ = guard.failed(MemoryError())
    assert own == "tubemq" and row[1:4] == (40, 50, "tubemq")
    assert row[6] == "offset 40: MemoryError while reading it; the rest is not read"
    assert guard.failed(MemoryError()) is None  # one error row a read
