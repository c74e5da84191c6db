"""readStream.format("inlong") and `inlong-proto spark ingest` (issue 26, items 5 and 6): files read once they are
complete, each exactly once into a Parquet table, across restarts, a kill -9 mid-batch, files that appear out of
order, a bucket, and a live tcpdump rotating on loopback while the reference endpoints talk."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from pathlib import Path

import pytest

from inlong_proto.spark.stream import (Completeness, FileLog, Listed, StreamOptions, committed_files, natural_key,
                                       parse_duration, rotation_of)

ROOT = Path(__file__).resolve().parent.parent
CAPTURES = ROOT / "tests" / "vectors" / "capture"
SAMPLES = ROOT / "examples" / "data"


# ---------------------------------------------------------------------------------------------------
# The rule and the offsets, without Spark


def test_rotations_sort_as_tcpdump_writes_them():
    c_names = ["cap.pcap", "cap.pcap1", "cap.pcap2", "cap.pcap10", "cap.pcap11"]  # tcpdump -C
    assert sorted(reversed(c_names), key=natural_key) == c_names
    g_names = ["cap-150108.pcap", "cap-150110.pcap", "cap-150110.pcap1", "cap-150111.pcap"]  # -G 1 -C 1
    assert sorted(reversed(g_names), key=natural_key) == g_names
    assert len({rotation_of("/d/" + name) for name in c_names}) == 1
    assert len({rotation_of("/d/" + name) for name in g_names}) == 1
    assert rotation_of("/d/cap.pcap") != rotation_of("/e/cap.pcap") != rotation_of("/d/other.pcap")


def test_a_file_is_complete_when_its_rotation_moved_on_or_it_stayed_quiet():
    now = 1_000_000.0
    rule = Completeness(complete_after=30)
    listing = [Listed("/d/cap.pcap", 100, now), Listed("/d/cap.pcap1", 50, now),  # rotated: the first is done
               Listed("/d/old.bin", 10, now - 31),  # quiet for completeAfter by its mtime
               Listed("/d/new.bin", 10, now - 5), Listed("/d/future.bin", 10, now + 3600),  # a skewed clock
               Listed("s3://b/k/x.pcap", 10, now)]  # an object store lists whole objects only
    assert {f.path for f in rule.complete(listing, now)} == {"/d/cap.pcap", "/d/old.bin", "s3://b/k/x.pcap"}
    # listed again with the same size and mtime completeAfter later: complete whatever the file's clock says
    assert {f.path for f in rule.complete(listing, now + 30)} >= {"/d/new.bin", "/d/future.bin"}
    grown = [Listed("/d/future.bin", 11, now + 3600)]  # a file that grew starts its quiet time again
    assert rule.complete(grown, now + 31) == []
    assert rule.complete(grown, now + 61) == grown


def test_offsets_admit_each_file_once_whatever_order_they_appear_in():
    day = 86400.0
    a, b, c = Listed("/d/cap-01.pcap", 5, 10 * day), Listed("/d/cap-02.pcap", 5, 11 * day), Listed("/d/cap-03.pcap", 5, 12 * day)
    start = FileLog()
    first = start.admit([c, b], max_files=1, max_age=7 * day)  # the oldest first
    assert [f.path for f in first.files] == [b.path] and first.count == 1
    second = first.admit([c, b])
    assert [f.path for f in second.new_since(first)] == [c.path]
    late = second.admit([a, b, c])  # a appears late with the oldest name and mtime: read once, next
    assert [f.path for f in late.new_since(second)] == [a.path]
    assert late.admit([a, b, c]) == late  # nothing new: the same offset, so no micro-batch
    assert FileLog.of(json.loads(json.dumps(late.to_json()))) == late
    # files older than maxFileAge behind the newest are forgotten, and ignored if they appear only now
    aged = late.admit([Listed("/d/cap-30.pcap", 5, 30 * day)], max_age=7 * day)
    assert [f.path for f in aged.files] == ["/d/cap-30.pcap"] and aged.count == 4
    assert aged.admit([Listed("/d/cap-04.pcap", 5, 13 * day)]) == aged
    with pytest.raises(ValueError, match="not an offset of this stream source"):
        FileLog.of({"offset": 3})


def test_stream_options_are_checked():
    from inlong_proto.spark.source import Options

    base = {"protocol": "auto", "path": "x"}
    options = StreamOptions({**base, "maxFilesPerTrigger": "3", "completeAfter": "2m", "maxFileAge": "1d"}, Options)
    assert options.protocol == "auto" and options.mode == "PERMISSIVE"
    import pickle

    assert pickle.loads(pickle.dumps(options)).max_files == 3  # the reader travels to the workers pickled
    assert (options.max_files, options.complete_after, options.max_age) == (3, 120.0, 86400.0)
    assert parse_duration("500ms", "x") == 0.5
    for name, value in (("maxFilesPerTrigger", "0"), ("completeAfter", "soon"), ("maxFileAge", "-1d")):
        with pytest.raises(ValueError, match=name):
            StreamOptions({**base, name: value}, Options)
    with pytest.raises(ValueError, match="did you mean 'maxFilesPerTrigger'"):
        StreamOptions({**base, "maxFilePerTrigger": "3"}, Options)


def test_committed_files_follow_the_sink_log(tmp_path):
    log = tmp_path / "_spark_metadata"
    log.mkdir()
    entry = lambda path, action="add": json.dumps({"path": f"file://{tmp_path}/{path}", "action": action})  # noqa: E731
    (log / "8").write_text("v1\n" + entry("old.parquet"))
    (log / "9.compact").write_text("v1\n" + entry("a.parquet") + "\n" + entry("b.parquet"))
    (log / "10").write_text("v1\n" + entry("c.parquet") + "\n" + entry("a.parquet", "delete"))
    assert committed_files(tmp_path) == [f"{tmp_path}/b.parquet", f"{tmp_path}/c.parquet"]
    with pytest.raises(FileNotFoundError, match="_spark_metadata"):
        committed_files(tmp_path / "nothing")


# ---------------------------------------------------------------------------------------------------
# Through Spark (one session for the run: conftest's)


KEY = ["path", "offset", "length", "protocol", "message_type", "error", "flow", "sender"]


def keyed(df) -> Counter:
    rows = df.selectExpr("path", "offset", "length", "protocol", "message_type", "error", "capture.flow AS flow",
                         "capture.sender AS sender").collect()
    return Counter(tuple(row) for row in rows)


def expected(spark, paths) -> Counter:
    from inlong_proto.spark.source import register

    register(spark)
    return keyed(spark.read.format("inlong").option("protocol", "auto").load([str(p) for p in paths]))


def table(spark, folder) -> Counter:
    return keyed(spark.read.parquet(str(folder)))


def ingest_once(spark, source, folder, checkpoint, **options):
    from inlong_proto.spark.ingestion import ingest

    query = ingest(spark, str(source), str(folder), str(checkpoint), once=True, **options)
    query.awaitTermination(240)
    assert query.exception() is None
    return [p for p in query.recentProgress if p["numInputRows"]]


def copy(name: str, to: Path, mtime: float | None = None) -> Path:
    to.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(CAPTURES / name if (CAPTURES / name).exists() else SAMPLES / name, to)
    if mtime is not None:
        os.utime(to, (mtime, mtime))
    return to


def test_files_out_of_order_and_max_files_per_trigger(spark, tmp_path):
    src, out, chk = tmp_path / "src", tmp_path / "table", tmp_path / "chk"
    now = time.time()
    b = copy("dataproxy_lo.pcap", src / "cap-0002.pcap", now - 300)
    c = copy("broadcast_lo.pcap", src / "cap-0003.pcap", now - 200)
    d = copy("tubemq.bin", src / "dumps" / "tubemq.bin", now - 100)
    batches = ingest_once(spark, src, out, chk, complete_after="60s", max_files=1)
    assert len(batches) == 3  # one file per micro-batch, even under Trigger.AvailableNow
    assert table(spark, out) == expected(spark, [b, c, d])
    a = copy("eventmesh_lo.pcap", src / "cap-0001.pcap", now - 400)  # late, with the oldest name and time
    e = copy("broadcast_lo.pcapng", src / "cap-0004.pcap")  # written now, the last of its rotation: not complete
    f = copy("eventmesh.bin", src / "dumps" / "late.bin")  # written now, alone: not complete yet
    ingest_once(spark, src, out, chk, complete_after="60s")
    assert table(spark, out) == expected(spark, [a, b, c, d])  # e is its rotation's last, f is too new
    ingest_once(spark, src, out, chk, complete_after="0s")  # a restart with the same checkpoint
    assert table(spark, out) == expected(spark, [a, b, c, d, e, f])
    dates = {(r.protocol, str(r.date)) for r in spark.read.parquet(str(out)).select("protocol", "date").distinct().collect()}
    assert ("tubemq", time.strftime("%Y-%m-%d", time.gmtime(now - 100))) in dates  # a dump: its mtime's date


def test_a_bucket(spark, s3, tmp_path):
    import s3server

    prefix = f"s3://{s3server.BUCKET}/stream-{uuid.uuid4().hex[:8]}"
    s3server.upload(CAPTURES / "dataproxy_lo.pcap", f"{prefix}/2026/cap-0002.pcap")
    s3server.upload(SAMPLES / "tubemq.bin", f"{prefix}/2026/cap-0003.bin")
    out, chk = tmp_path / "table", tmp_path / "chk"
    ingest_once(spark, prefix + "/", out, chk)  # objects are complete when listed
    first = table(spark, out)
    s3server.upload(CAPTURES / "broadcast_lo.pcap", f"{prefix}/2026/cap-0001.pcap")  # late, older name
    ingest_once(spark, prefix + "/", out, chk)
    assert table(spark, out) == expected(spark, [prefix + "/"])
    assert sum(first.values()) < sum(table(spark, out).values())


def _can_capture() -> tuple[bool, str]:
    if shutil.which("tcpdump") is None:
        return False, "tcpdump is not installed"
    probe = subprocess.run(["tcpdump", "-i", "lo", "--list-time-stamp-types"], capture_output=True, text=True,
                           timeout=10)
    if probe.returncode:
        return False, f"tcpdump cannot capture on lo: {probe.stderr.strip()[:200]}"
    return True, ""


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _cli(*args, **kwargs) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "inlong_proto", *args], cwd=ROOT, **kwargs)


def test_live_tcpdump_rotation_while_endpoints_talk(spark, tmp_path):
    able, reason = _can_capture()
    if not able:
        pytest.skip(reason)
    src, out, chk = tmp_path / "captures", tmp_path / "table", tmp_path / "chk"
    src.mkdir()
    broadcast, dataproxy = _free_port(), _free_port()
    privileges = ["-Z", "root"] if os.geteuid() == 0 else []  # else tcpdump drops to its own user, who may not write here
    dump = subprocess.Popen(["tcpdump", "-i", "lo", "-U", *privileges, "-G", "1", "-C", "1",
                             "-w", str(src / "cap-%H%M%S.pcap"), f"tcp port {broadcast} or tcp port {dataproxy}"],
                            stderr=subprocess.PIPE)
    servers = [_cli("broadcast", "serve", "--port", str(broadcast), "--interval", "0.02", stderr=subprocess.DEVNULL),
               _cli("dataproxy", "serve", "--port", str(dataproxy), stderr=subprocess.DEVNULL)]
    try:
        time.sleep(2)
        lines = "".join(f"{('r%d-' % i) * 1200}\n" for i in range(300)).encode()  # ~1.6 MB: -C rotates too
        sender = _cli("dataproxy", "send", "--port", str(dataproxy), "--batch-size", "5", stdin=subprocess.PIPE,
                      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        client = _cli("broadcast", "client", "--port", str(broadcast), "--count", "150", stdout=subprocess.DEVNULL,
                      stderr=subprocess.DEVNULL)
        sender.stdin.write(lines)
        sender.stdin.close()
        during = ingest_once(spark, src, out, chk, complete_after="30s")  # while tcpdump writes: rotated files only
        read_during = {f[0] for p in during for f in json.loads(p["sources"][0]["endOffset"])["files"]} if during else set()
        assert json.loads(sender.stdout.read())["ok"]
        assert sender.wait(60) == 0 and client.wait(60) == 0
    finally:
        for server in servers:
            server.terminate()
            server.wait(10)
        time.sleep(0.5)
        dump.terminate()
        dump.wait(10)
    files = sorted(src.iterdir())
    names = [f.name for f in files]
    assert len(files) >= 3 and any(name.endswith(".pcap1") for name in names), names  # -G and -C both rotated
    assert str(files[-1]) not in read_during  # the file being written was not read
    ingest_once(spark, src, out, chk, complete_after="0s")  # tcpdump stopped: the last file is complete
    got = table(spark, out)
    assert got == expected(spark, files)
    protocols = Counter(key[3] for key in got.elements() if key[5] is None)
    assert protocols["dataproxy"] > 100 and protocols["broadcast"] > 100


def test_kill_9_mid_batch_then_restart_is_exactly_once(spark, tmp_path):
    import duckdb

    src, out, chk = tmp_path / "src", tmp_path / "table", tmp_path / "chk"
    names = ["dataproxy_lo.pcap", "broadcast_lo.pcap", "eventmesh_lo.pcap", "tubemq.bin", "dataproxy.bin",
             "broadcast.bin"]
    paths = [copy(name, src / f"f{i}-{name}", time.time() - 600 + i) for i, name in enumerate(names)]
    command = [sys.executable, "-m", "inlong_proto", "spark", "ingest", str(src), "--to", str(out), "--checkpoint",
               str(chk), "--complete-after", "0s", "--cores", "1"]
    driver = subprocess.Popen(command + ["--every", "1s", "--max-files-per-trigger", "1"], cwd=ROOT,
                              start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    killed_in = None
    try:
        deadline = time.monotonic() + 150
        while time.monotonic() < deadline and killed_in is None:
            for batch in (1, 2, 3):  # a batch logged in offsets/ and not yet in commits/: running
                if (chk / "offsets" / str(batch)).exists() and not (chk / "commits" / str(batch)).exists():
                    os.killpg(driver.pid, signal.SIGKILL)  # the driver, its JVM and its workers, at once
                    killed_in = batch
                    break
            time.sleep(0.02)
        assert killed_in is not None, "no micro-batch was caught running"
    finally:
        if driver.poll() is None and killed_in is None:
            os.killpg(driver.pid, signal.SIGKILL)
        driver.wait(30)
    again = subprocess.run(command + ["--once"], cwd=ROOT, capture_output=True, text=True, timeout=240)
    assert again.returncode == 0, again.stderr[-3000:]
    assert table(spark, out) == expected(spark, paths)  # every frame once, through the sink's log
    committed = committed_files(out)
    rows = duckdb.sql(f"SELECT count(*) FROM read_parquet({committed!r}, hive_partitioning = true)").fetchall()[0][0]
    assert rows == sum(expected(spark, paths).values())
    assert set(map(str, out.rglob("*.parquet"))) >= set(committed)  # what a killed batch wrote may stay there
