"""One big pcap read on many cores (spark_capture.read_captures) against one task (spark.read.format("inlong")).

    .venv/bin/python tools/bench/capture_split.py --megabytes 300 --cores 2 --split-size 32m

A pcap of --megabytes is written (capture.writer): DataProxy clients on many connections, a few dozen
open at a time so that their packets interleave, frames of 100 B to 60 KiB in 1460-byte segments, the
server acknowledging. Both readers parse it on the same local session (after a warm-up that starts the
Python workers); the frame, error and byte counts must agree. ``measure()`` is what ``make bench-spark``
can call; it returns the figures as a dict.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tools")]

AGGREGATES = ("count(*) AS frames", "count(error) AS errors", "sum(length) AS bytes",
              "count(DISTINCT capture.flow) AS flows")


def sample_frames(seed: int = 7) -> list[bytes]:
    """DataProxy text requests of mixed sizes (tools/bench/memory.py's sample)."""
    from tools.bench.memory import sample_frames as frames

    return frames(seed)


def write_capture(path: Path, size: int, *, concurrent: int = 32, seed: int = 7) -> dict:
    """A pcap of about `size` bytes: groups of `concurrent` connections whose packets interleave in time."""
    from inlong_proto.capture.writer import Conversation, pcap_file

    rng = random.Random(seed)
    frames = sample_frames(seed)
    header = pcap_file([])
    written, connections, ts = len(header), 0, 1_700_000_000 * 10**9
    with path.open("wb") as out:
        out.write(header)
        while written < size:
            packets = []
            for _ in range(concurrent):
                number = connections
                connections += 1
                client = (f"10.{number >> 16 & 255}.{number >> 8 & 255}.{number & 255}", 20000 + number % 40000)
                conversation = Conversation(client, ("10.255.0.1", 46801), mss=1460,
                                            isn=(rng.getrandbits(32), rng.getrandbits(32)))
                start = ts + rng.randrange(10**9)
                talk = conversation.open(start)
                for index, frame in enumerate(rng.sample(frames, k=rng.randint(4, 24))):
                    talk += conversation.send("client", frame, start + (index + 1) * 10**6)
                talk += conversation.close(start + 30 * 10**6)
                packets += [(stamp + order, packet) for order, (stamp, packet) in enumerate(talk)]
            data = pcap_file(sorted(packets))[len(header):]
            out.write(data)
            written += len(data)
            ts += 10**9
    return {"connections": connections}


def measure(path_or_size, *, cores: int = 2, split_size="32m", protocol: str = "dataproxy", spark=None,
            folder: str | None = None) -> dict:
    """Seconds and MB/s of both readers on a capture file (or on one of that many bytes, written first)."""
    from inlong_proto.spark.dumps import local_session
    from inlong_proto.spark.captures import read_captures
    from inlong_proto.spark.source import register

    made = {}
    if isinstance(path_or_size, (int, float)):
        target = Path(folder or tempfile.mkdtemp(prefix="inlong-capture-split-")) / "big.pcap"
        started = time.perf_counter()
        made = write_capture(target, int(path_or_size))
        made["write_s"] = round(time.perf_counter() - started, 1)
    else:
        target = Path(path_or_size)
    size = target.stat().st_size
    own = spark is None
    spark = spark or local_session("inlong-bench-capture-split", cores=cores)
    spark.sparkContext.setLogLevel("ERROR")
    register(spark)
    try:
        warm = target.parent / "warm-up.pcap"
        write_capture(warm, 1 << 16, concurrent=2)
        sequential = spark.read.format("inlong").option("protocol", protocol)
        sequential.load(str(warm)).count()
        read_captures(spark, str(warm), protocol, split_size=split_size).count()
        started = time.perf_counter()
        one = sequential.load(str(target)).selectExpr(*AGGREGATES).first().asDict()
        one_s = time.perf_counter() - started
        started = time.perf_counter()
        many = read_captures(spark, str(target), protocol, split_size=split_size).selectExpr(*AGGREGATES).first().asDict()
        many_s = time.perf_counter() - started
    finally:
        if own:
            spark.stop()
    if one != many:
        raise AssertionError(f"the readers disagree: one task {one}, split {many}")
    megabytes = size / 2**20
    return {"file": str(target), "megabytes": round(megabytes, 1), "cores": cores, "split_size": split_size,
            **one, **made, "one_task_s": round(one_s, 1), "split_s": round(many_s, 1),
            "one_task_mb_s": round(megabytes / one_s, 1), "split_mb_s": round(megabytes / many_s, 1),
            "speedup": round(one_s / many_s, 2)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=float, default=300, help="size of the pcap to write (default 300)")
    parser.add_argument("--file", help="an existing capture instead of a written one")
    parser.add_argument("--cores", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--split-size", default="32m")
    parser.add_argument("--protocol", default="dataproxy")
    parser.add_argument("--folder", help="where to write the pcap (default: a temporary folder)")
    args = parser.parse_args()
    figures = measure(args.file or args.megabytes * 2**20, cores=args.cores, split_size=args.split_size,
                      protocol=args.protocol, folder=args.folder)
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
