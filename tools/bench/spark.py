"""`make bench-spark`: the Spark readers at the default split size, per protocol, 1 core against all cores.

Each protocol's dump (valid frames from the test vectors, repeated) is made large enough for at least
--splits-per-core splits per core at --split-size (default: 2 per core at 128 MiB), so that every core has
work and the sync points cost what they cost in production. One large pcap capture (the DataProxy frames
in TCP connections) is read too: by format("inlong"), which reads a capture in one task, and by
read_captures, which cuts it into byte ranges and reassembles per flow after a shuffle. Then the same
files are read from a bucket of a real S3 server (moto, on loopback) to show what remote reads cost.

Printed per reader: MB/s in all, MB/s and frames/s per core, the time as a multiple of the raw read
(the ceiling) and the scaling from 1 core to all cores.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
for folder in (ROOT, ROOT / "tools"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from tools.bench.memory import descendants_peak_rss  # noqa: E402

PROTOCOLS = (("broadcast", None), ("dataproxy", "request"), ("tubemq", None), ("eventmesh", None))


def samples(protocol: str, direction: str | None) -> list[bytes]:
    out = []
    for path in sorted((ROOT / "tests" / "vectors" / protocol).rglob("valid/*.json")):
        vector = json.loads(path.read_text())
        if vector.get("protocol", protocol) == protocol and direction in (None, vector.get("direction")):
            out.append(bytes.fromhex(vector["hex"]))
    return out


def build_dump(folder: Path, protocol: str, direction: str | None, size: int) -> tuple[Path, int]:
    """A dump of at least size bytes and its frame count, written block by block."""
    frames = samples(protocol, direction)
    block = b"".join(frames) * max(1, (8 << 20) // sum(map(len, frames)))
    per_block = len(block) // sum(map(len, frames)) * len(frames)
    target = folder / f"{protocol}.bin"
    count = 0
    with open(target, "wb") as out:
        while out.tell() < size:
            out.write(block)
            count += per_block
    return target, count


def build_capture(folder: Path, size: int) -> tuple[Path, int]:
    """A pcap of at least size bytes: DataProxy requests of 100 B to 60 KiB in TCP connections of
    1460-byte segments (bench/memory.py's), and its frame count."""
    from tools.bench.memory import sample_frames, write_capture

    frames = sample_frames()
    copies = -(-size // sum(map(len, frames)))
    target = folder / "capture.pcap"
    with open(target, "wb") as out:
        write_capture(out, frames, copies)
    return target, copies * len(frames)


def raw_read(path: Path) -> float:
    started = time.perf_counter()
    with open(path, "rb") as src:
        while src.read(64 << 20):
            pass
    return time.perf_counter() - started


def timed_count(df) -> tuple[float, int]:
    started = time.perf_counter()
    rows = df.count()
    return time.perf_counter() - started, rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split-size", default="128m", help="the reader's splitSize (default: its default)")
    parser.add_argument("--splits-per-core", type=int, default=2)
    parser.add_argument("--cores", type=int, default=os.cpu_count() or 1, help="all cores (default: every core here)")
    parser.add_argument("--protocols", default=",".join(name for name, _ in PROTOCOLS))
    parser.add_argument("--no-s3", action="store_true", help="skip the reads through the S3 server")
    parser.add_argument("--no-capture", action="store_true", help="skip the large capture")
    args = parser.parse_args()

    from inlong_proto.spark.pieces import parse_size

    split = parse_size(args.split_size)
    size = split * args.splits_per_core * args.cores
    folder = Path(tempfile.mkdtemp(prefix="inlong-bench-spark-"))
    chosen = [(name, direction) for name, direction in PROTOCOLS if name in args.protocols.split(",")]
    files: dict[str, tuple[Path, int, dict]] = {}
    for name, direction in chosen:
        path, frames = build_dump(folder, name, direction, size)
        files[name] = (path, frames, {"protocol": name, **({"direction": direction} if direction else {})})
    if not args.no_capture:
        path, frames = build_capture(folder, size)
        files["capture"] = (path, frames, {"protocol": "dataproxy"})
    print(f"{size / 2**20:,.0f} MiB per file, splitSize {args.split_size}, 1 and {args.cores} cores, "
          f"Python {sys.version.split()[0]}", flush=True)

    places = [("local", None)]
    server = None
    if not args.no_s3:
        import s3server

        server = s3server.s3_server()
        env = server.__enter__()
        os.environ.update(env)  # before Spark starts, so that its Python workers inherit them
        s3server.make_bucket(env)
        for path, _, _ in files.values():
            s3server.upload(path, f"s3://{s3server.BUCKET}/bench/{path.name}")
        places.append(("s3", f"s3://{s3server.BUCKET}/bench/"))
    warm_up = folder / "warm-up.bin"
    warm_up.write_bytes(b"".join(samples("tubemq", None)))
    try:
        results, rss = measure(files, places, args.split_size, args.cores, warm_up)
    finally:
        if server is not None:
            server.__exit__(None, None, None)
    report(files, results, args.cores)
    print("\npeak RSS of the processes Spark started (MiB): "
          + ", ".join(f"{name} {peak:.0f}" for name, peak in sorted(rss.items())))
    shutil.rmtree(folder, ignore_errors=True)
    return 0


def measure(files, places, split_size: str, cores_all: int, warm_up: Path) -> tuple[dict, dict]:
    """{(file name, place, reader, cores): (seconds, rows)}, and peak RSS by process name."""
    from inlong_proto.spark.dumps import local_session
    from inlong_proto.spark.source import register

    results, rss = {}, {}
    for cores in sorted({1, cores_all}):
        spark = local_session(f"inlong-bench-{cores}", cores=cores)
        spark.sparkContext.setLogLevel("ERROR")
        register(spark)
        try:
            _inlong(spark, str(warm_up), split_size, {"protocol": "tubemq"}).count()  # starts the workers
            for name, (path, frames, options) in files.items():
                for place, prefix in places:
                    location = str(path) if prefix is None else prefix + path.name
                    readers = {"inlong source": lambda: _inlong(spark, location, split_size, options)}
                    if name == "capture":
                        from inlong_proto.spark.captures import read_captures

                        readers["read_captures"] = lambda: read_captures(spark, location, options["protocol"],
                                                                         split_size=split_size)
                    for reader, frame_of in readers.items():
                        seconds, rows = timed_count(frame_of())
                        results[name, place, reader, cores] = (seconds, rows)
                        print(f"  {name:<10} {place:<5} {reader:<14} {cores:>2} core(s): {seconds:7.1f} s, "
                              f"{rows:,} rows", flush=True)
        finally:
            for name, peak in descendants_peak_rss().items():
                rss[name] = max(rss.get(name, 0.0), peak)
            spark.stop()
    return results, rss


def _inlong(spark, location: str, split_size: str, options: dict):
    reader = spark.read.format("inlong").option("splitSize", split_size)
    for key, value in options.items():
        reader = reader.option(key, value)
    return reader.load(location)


def report(files, results, cores_all: int) -> None:
    print(f"\n{'file':<10} {'from':<5} {'reader':<14} {'cores':>5} {'MB/s':>8} {'MB/s/core':>10} "
          f"{'frames/s/core':>14} {'x raw read':>11} {'scaling':>8}")
    for name, (path, frames, _) in files.items():
        megabytes = path.stat().st_size / 2**20
        ceiling = raw_read(path)
        for (file, place, reader, cores), (seconds, rows) in results.items():
            if file != name:
                continue
            one = results.get((file, place, reader, 1), (seconds,))[0]
            scaling = f"{one / seconds:.2f}x" if cores > 1 else ""
            print(f"{name:<10} {place:<5} {reader:<14} {cores:>5} {megabytes / seconds:>8.1f} "
                  f"{megabytes / seconds / cores:>10.1f} {frames / seconds / cores:>14,.0f} "
                  f"{seconds / ceiling:>11,.0f} {scaling:>8}")


if __name__ == "__main__":
    sys.exit(main())
