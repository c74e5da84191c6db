"""`make bench-memory`: a dump of several GiB parses through spark.read.format("inlong") in bounded memory.

The issue's bar: a 4 GiB capture parses with < 1 GiB RSS per executor. A DataProxy dump of text requests
(bodies from 100 bytes to 60 KiB, under the protocol's 64 KiB frame limit) is written to a temporary
folder, read by the data source on all cores at the default split size, and the peak RSS (VmHWM) of the
JVM and of every Python worker Spark started is printed. The mapped file's pages count in RSS while a
task reads them; the reader hands them back as it goes, which is what this checks. With --capture the same
frames travel in TCP connections of a pcap (capture.writer), read through the capture path. Exit status 1
if a Python worker or the JVM went over --limit-mib.
"""
from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tools")]

from inlong_proto import encode  # noqa: E402
from inlong_proto.dataproxy import builders  # noqa: E402


def descendants_peak_rss() -> dict[str, float]:
    """Peak RSS (VmHWM, MB) of every live process descended from this one, by command name (Linux /proc)."""
    parents, peaks = {}, {}
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
        except OSError:
            continue
        pid = int(status.parent.name)
        parents[pid] = int(fields.get("PPid", "0"))
        if "VmHWM" in fields:
            peaks[pid] = (fields["Name"].strip(), int(fields["VmHWM"].split()[0]) / 1024)
    out: dict[str, float] = {}
    for pid, (name, peak) in peaks.items():
        ancestor = parents.get(pid)
        while ancestor and ancestor != os.getpid():
            ancestor = parents.get(ancestor)
        if ancestor == os.getpid():
            out[name] = max(out.get(name, 0.0), peak)
    return out


def sample_frames(seed: int = 7) -> list[bytes]:
    """About 4 MiB of DataProxy text requests of mixed sizes."""
    rng = random.Random(seed)
    frames = []
    for index in range(256):
        size = rng.choice((100, 1_000, 10_000, 30_000, 60_000))
        records = [b"x" * (size // 4)] * 4
        frames.append(encode(builders.text_request(records, group_id=f"group_{index % 7}",
                                                   stream_id=f"stream_{index % 3}", message_id=index,
                                                   data_time_ms=1_700_000_000_000 + index,
                                                   report_time_ms=None)))
    return frames


def write_capture(out, frames: list[bytes], copies: int) -> None:
    """copies TCP connections from distinct clients, each sending the frames, as one pcap (writer)."""
    from inlong_proto.capture.writer import Conversation, pcap_file

    header = len(pcap_file([]))  # the file header; each conversation's records follow it
    for copy in range(copies):
        client = (f"10.{copy >> 16 & 255}.{copy >> 8 & 255}.{copy & 255}", 40000 + copy % 20000)
        conversation = Conversation(client, ("10.255.0.1", 46801))
        ts = 1_700_000_000_000_000_000 + copy * 10**9
        packets = conversation.open(ts)
        for index, frame in enumerate(frames):
            packets += conversation.send("client", frame, ts + index * 1000)
        data = pcap_file(packets + conversation.close(ts + len(frames) * 1000))
        out.write(data if copy == 0 else data[header:])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gib", type=float, default=4.0, help="dump size in GiB (default 4)")
    parser.add_argument("--limit-mib", type=float, default=1024.0, help="RSS bar per process (default 1024)")
    parser.add_argument("--folder", help="where to write the dump (default: a temporary folder, removed after)")
    parser.add_argument("--capture", action="store_true",
                        help="a pcap of TCP connections carrying the same frames instead of a raw dump; a capture "
                             "is one task (reassembly is sequential), so expect minutes per GiB")
    args = parser.parse_args()
    from inlong_proto.spark.dumps import local_session
    from inlong_proto.spark.source import register

    folder = Path(args.folder or tempfile.mkdtemp(prefix="inlong-memory-"))
    folder.mkdir(parents=True, exist_ok=True)
    dump = folder / ("dataproxy.pcap" if args.capture else "dataproxy.bin")
    frames = sample_frames()
    block, per_block = b"".join(frames), len(frames)
    copies = int(args.gib * 2**30 // len(block))
    started = time.perf_counter()
    with dump.open("wb") as out:
        if args.capture:
            write_capture(out, frames, copies)
        for _ in range(0 if args.capture else copies):
            out.write(block)
    print(f"wrote {dump} ({dump.stat().st_size / 2**30:.2f} GiB, {copies * per_block:,} frames) "
          f"in {time.perf_counter() - started:.1f} s")
    cores = os.cpu_count() or 1
    spark = local_session("inlong-bench-memory", cores=cores)
    spark.sparkContext.setLogLevel("ERROR")
    register(spark)
    reader = spark.read.format("inlong").option("protocol", "dataproxy").option("direction", "request")
    try:
        warm_up = folder / "warm-up.bin"
        warm_up.write_bytes(block)
        reader.load(str(warm_up)).count()  # the first Python data source query starts the workers
        started = time.perf_counter()
        rows = (reader.load(str(dump)).selectExpr("count(*) AS frames", "count(error) AS errors",
                                            "sum(length) AS bytes").first())
        seconds = time.perf_counter() - started
        peaks = descendants_peak_rss()
    finally:
        spark.stop()
        if not args.folder:
            shutil.rmtree(folder, ignore_errors=True)
    size = copies * len(block)  # frame bytes (a capture's file also holds the packet headers)
    print(f"parsed {rows.frames:,} frames ({rows.errors} errors, {rows.bytes:,} bytes of {size:,}) on {cores} "
          f"cores in {seconds:.1f} s: {size / 2**20 / seconds:.0f} MB/s")
    assert (rows.frames, rows.errors, rows.bytes) == (copies * per_block, 0, size), "frames lost or invented"
    print("peak RSS (MiB): " + ", ".join(f"{name} {peak:.0f}" for name, peak in sorted(peaks.items())))
    over = {name: peak for name, peak in peaks.items() if peak > args.limit_mib}
    if over:
        print(f"over the {args.limit_mib:.0f} MiB bar: {over}")
        return 1
    print(f"every process stayed under {args.limit_mib:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
