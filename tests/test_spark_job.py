"""The batch job: every dump under a folder to a table partitioned by protocol and date, with a summary
and a progress bar of Spark's tasks."""
import io
import os
import re
import subprocess
import sys
from pathlib import Path

from rich.console import Console
from rich.progress import Progress

from inlong_proto.capture import iter_capture_frames
from inlong_proto.spark.job import TaskProgress, parse

import vectors

REQUESTS = vectors.valid_frames(directions={None, "request"})


def dump(folder: Path, protocol: str, name: str, extra: bytes = b"") -> bytes:
    data = b"".join(REQUESTS[protocol]) + extra
    (folder / name).write_bytes(data)
    return data


def test_parse_writes_partitions_and_summarises(spark, tmp_path):
    source = tmp_path / "captures"
    source.mkdir()
    dump(source, "broadcast", "broadcast.bin", b"junk")
    dump(source, "tubemq", "tubemq.bin")
    summary = parse(spark, str(source), str(tmp_path / "out"), split_size="1k")
    protocols = {row[0] for row in summary}
    assert protocols == {"broadcast", "tubemq"}
    errors = [row for row in summary if row[1] == "(error span)"]
    assert errors == [("broadcast", "(error span)", 0, 1, 4)]
    partitions = sorted(p.relative_to(tmp_path / "out").as_posix() for p in (tmp_path / "out").glob("*/*"))
    assert [p.split("/")[0] for p in partitions] == ["protocol=broadcast", "protocol=tubemq"]
    assert all(p.split("/")[1].startswith("date=20") for p in partitions)
    covered = sum(row[4] for row in summary)
    assert covered == sum(f.stat().st_size for f in source.iterdir())


def test_capture_rows_are_dated_by_their_packets(spark, tmp_path):
    source = tmp_path / "pcaps"
    source.mkdir()
    capture = Path(vectors.__file__).parent / "vectors" / "capture" / "dataproxy_lo.pcap"
    (source / capture.name).write_bytes(capture.read_bytes())
    os.utime(source / capture.name, (0, 0))  # a file date of 1970-01-01 must not be used
    packet_dates = {item.timestamp.date().isoformat() for item in iter_capture_frames(capture.read_bytes())}
    summary = parse(spark, str(source), str(tmp_path / "out"))
    assert {row[0] for row in summary} == {"dataproxy"} and not any(row[3] for row in summary)
    written = {p.name for p in (tmp_path / "out" / "protocol=dataproxy").iterdir() if p.is_dir()}
    assert written == {f"date={day}" for day in packet_dates}


def test_cli_help_lists_the_job():
    result = subprocess.run([sys.executable, "-m", "inlong_proto", "spark", "parse", "--help"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and "partitioned by protocol" in result.stdout


def test_task_progress_follows_the_jobs_of_its_block_and_stops(spark):
    console = Console(file=io.StringIO())  # not a terminal
    with Progress(console=console) as bar:
        task = bar.add_task("job", total=None)
        spark.range(0, 100, numPartitions=3).collect()  # before the block: not counted
        with TaskProgress(spark, bar, task, interval=0.05) as progress:
            spark.range(0, 1000, numPartitions=7).selectExpr("sum(id)").collect()
            spark.range(0, 10, numPartitions=2).collect()
    assert not progress._thread.is_alive()
    state = bar.tasks[0]
    assert state.completed == state.total >= 7 + 2
    assert spark.sparkContext.getLocalProperty("spark.jobGroup.id") is None


def test_cli_shows_task_progress_without_a_terminal(tmp_path):
    source = tmp_path / "captures"
    source.mkdir()
    dump(source, "broadcast", "broadcast.bin", b"junk")
    dump(source, "dataproxy", "dataproxy.bin")
    env = {**os.environ, "JDK_JAVA_OPTIONS": "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"}  # a short-lived JVM
    result = subprocess.run([sys.executable, "-m", "inlong_proto", "spark", "parse", str(source), str(tmp_path / "out"),
                             "--split-size", "1k", "--cores", "1"],
                            capture_output=True, text=True, timeout=240, env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    progress = [line for line in result.stderr.splitlines() if " tasks " in line]
    assert len(progress) == 1, result.stderr  # no terminal: the final state, once; no animation frames
    done, total = re.search(r"(\d+)/(\d+) tasks", progress[0]).groups()
    assert done == total and int(total) > 0 and "parsing 2 files" in progress[0]
    assert "(error span)" in result.stdout and "dataproxy" in result.stdout
