"""`make bench`: the Spark readers on one core (local[1]), compiled backend against pure Python and Spark's floor.

For each protocol a dump of --size MiB (valid frames from the test vectors, repeated: tools/bench/spark.py's dumps) is
read on one core, each reader summing the `length` column so that every row is produced:

* floor: the file through Spark's own binaryFile source with its length summed, nothing parsed;
* format("inlong") and read_dumps, once with INLONG_PROTO_BACKEND=native and once with =python; and
  format("inlong") with a user schema of the one column summed (`inlong [length]`): Spark's Python data
  source API prunes no column, so that is how a query that needs few columns reads less;
* replay: the same rows, parsed beforehand and stored as an Arrow IPC file, handed to Spark by a Python
  data source that only reads them back: what Spark's Python data source path costs for this table with
  no parsing at all, the bound of any parser behind format("inlong").

Then the same for a small-packet pcap of broadcast and of DataProxy traffic (tools/bench/native_capture.py's, many
connections interleaved): format("inlong") reads a capture of at most CAPTURE_WHOLE bytes whole through the
compiled capture walker, read_dumps through the same walker.

Then the cost of one sync point (a split boundary: spark.pieces.DumpWalker.sync) on each dump, every 4 MiB,
with each backend: DataProxy's has no magic to search for.

Each backend and file runs in its own process (its Spark workers inherit the variable when the session
starts; one session for every file ran its local JVM out of memory), best of --repeat after one warm-up.
Printed: MB/s, frames/s, the time as a multiple of the floor, and the speed-up of the compiled backend over
the pure one.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
for folder in (ROOT, ROOT / "tools"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

PROTOCOLS = (("broadcast", "response"), ("dataproxy", "request"), ("tubemq", None), ("eventmesh", None))


def best(run, repeat: int) -> float:
    run()  # warm-up: the session's Python workers start, the file is in the page cache
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return min(times)


def replay_source():
    """A Python data source that yields the Arrow batches of an IPC file (options: path, protocol)."""
    from pyspark.sql.datasource import DataSource, DataSourceReader

    class ReplayReader(DataSourceReader):
        def __init__(self, path: str):
            self.path = path

        def read(self, partition):
            import pyarrow as pa

            with pa.memory_map(self.path) as source:
                stored = pa.ipc.open_file(source)
                for index in range(stored.num_record_batches):
                    yield stored.get_batch(index)

    class ReplaySource(DataSource):
        @classmethod
        def name(cls):
            return "arrow_replay"

        def schema(self):
            from inlong_proto.spark.common import spark_schema

            return spark_schema(self.options["protocol"])

        def reader(self, schema):
            return ReplayReader(self.options["path"])

    return ReplaySource


def store_rows(path: str, protocol: str, direction: str | None) -> str:
    """The dump's (or capture's) rows in Spark's Arrow form, written to an Arrow IPC file beside it."""
    import pyarrow as pa

    from inlong_proto.core.sources import FileSource
    from inlong_proto.spark.dumps import spark_batch
    from inlong_proto.spark.pieces import capture_batches, is_capture_file, read_split_batches
    from inlong_proto.spark.common import spark_arrow_schema

    target = path + ".arrow"
    with FileSource(path) as src, pa.OSFile(target, "wb") as sink, \
            pa.ipc.new_file(sink, spark_arrow_schema(protocol)) as writer:
        batches = (capture_batches(src, "file:" + path, protocol, "PERMISSIVE") if is_capture_file(path) else
                   read_split_batches(src, "file:" + path, protocol, direction, "PERMISSIVE", src.size + 1, 0))
        for batch in batches:
            writer.write_batch(spark_batch(batch, protocol))
    return target


def measure(files: dict, repeat: int) -> dict:
    """Seconds per reader per protocol, in this process's backend."""
    from inlong_proto.spark.dumps import local_session, read_dumps
    from inlong_proto.spark.source import register

    spark = local_session("bench-native-spark", cores=1)
    register(spark)
    spark.dataSource.register(replay_source())
    out = {}
    try:
        for label, (path, _, direction) in files.items():
            name = label.split(" ")[0]
            options = {"protocol": name, **({"direction": direction} if direction else {})}

            def inlong():
                return spark.read.format("inlong").options(**options).load(path) \
                    .selectExpr("sum(length)").collect()[0][0]

            def selected():  # a user schema of one column: what the Python data source hands the JVM shrinks
                return spark.read.format("inlong").schema("length BIGINT").options(**options).load(path) \
                    .selectExpr("sum(length)").collect()[0][0]

            def dumps():
                return read_dumps(spark, path, name, direction).selectExpr("sum(length)").collect()[0][0]

            def floor():
                return spark.read.format("binaryFile").load(path).selectExpr("sum(length)").collect()[0][0]

            stored = store_rows(path, name, direction)

            def replay():
                return spark.read.format("arrow_replay").option("path", stored).option("protocol", name).load() \
                    .selectExpr("sum(length)").collect()[0][0]

            size = os.path.getsize(path) if " " not in label else inlong()  # a capture's frames: the flows' bytes
            assert inlong() == size == selected() and dumps() == size == replay(), \
                f"{label}: the rows do not tile the file"
            out[label] = {"floor": best(floor, repeat), "format(inlong)": best(inlong, repeat),
                          "inlong [length]": best(selected, repeat),
                         "read_dumps": best(dumps, repeat), "replay": best(replay, repeat)}
    finally:
        spark.stop()
    return out


def sync_points(files: dict) -> None:
    """Median and worst time of one split boundary's sync point, per protocol and backend (in process:
    backend() reads INLONG_PROTO_BACKEND at each call)."""
    from inlong_proto.core.sources import FileSource
    from inlong_proto.spark.pieces import DumpWalker

    print(f"{'protocol':10} {'sync point':10} {'backend':8} {'median ms':>10} {'worst ms':>9}")
    for name, (path, _, direction) in files.items():
        if " " in name:  # a capture: one task reads it whole, no split boundaries
            continue
        for backend in ("native", "python"):
            os.environ["INLONG_PROTO_BACKEND"] = backend
            with FileSource(path) as src, memoryview(src.buffer) as view:
                walker = DumpWalker(src, name, direction, view)
                times = []
                for start in range(1 << 20, src.size - (4 << 20), 4 << 20):
                    started = time.perf_counter()
                    walker.sync(start, start + (4 << 20))
                    times.append(time.perf_counter() - started)
                del walker
            times.sort()
            print(f"{name:10} {'':10} {backend:8} {times[len(times) // 2] * 1e3:10.1f} {times[-1] * 1e3:9.1f}")
    os.environ.pop("INLONG_PROTO_BACKEND")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=32, help="MiB per dump (binaryFile holds it in one row; at 48 the JVM of a default local session died)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--capture-frames", type=int, default=100_000, help="frames in each bench pcap")
    parser.add_argument("--protocols", default=",".join(name for name, _ in PROTOCOLS))
    parser.add_argument("--measure", help=argparse.SUPPRESS)  # a child: JSON of the files to time
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(json.loads(args.measure), args.repeat)))
        return 0

    folder = Path(tempfile.mkdtemp(prefix="inlong-bench-native-spark-"))
    try:
        return run(args, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def run(args, folder: Path) -> int:
    """Build the dumps and pcaps in folder, time each in its own Spark session per backend, print the tables."""
    from tools.bench.native_capture import broadcast_frames, capture, dataproxy_frames
    from tools.bench.spark import build_dump

    from inlong_proto.backends import compiled as native

    files = {}
    for name, direction in PROTOCOLS:
        if name in args.protocols.split(","):
            path, frames = build_dump(folder, name, direction, args.size << 20)
            files[name] = (str(path), frames, direction)
    for name, make, port in (("broadcast", broadcast_frames, 9000), ("dataproxy", dataproxy_frames, 46801)):
        if name in args.protocols.split(","):
            data, _ = capture(make(args.capture_frames), 16, port)
            path = folder / f"{name}.pcap"
            path.write_bytes(data)
            files[f"{name} pcap"] = (str(path), args.capture_frames, None)
    print(f"Spark local[1], dumps of {args.size} MiB (the vectors' valid frames repeated), best of {args.repeat}; "
          f"compiled backend built: {native.extension() is not None}", flush=True)
    results: dict = {"native": {}, "python": {}}
    for backend in ("native", "python"):  # a process, so a Spark session, per file and backend (module doc)
        env = {**os.environ, "INLONG_PROTO_BACKEND": backend}
        for label, entry in files.items():
            child = subprocess.run([sys.executable, __file__, "--repeat", str(args.repeat), "--measure",
                                    json.dumps({label: entry})], env=env, capture_output=True, text=True)
            if child.returncode:
                print(child.stderr[-3000:], file=sys.stderr)
                return child.returncode
            results[backend].update(json.loads(child.stdout.strip().splitlines()[-1]))
    print(f"{'protocol':14} {'reader':15} {'backend':8} {'MB/s':>8} {'frames/s':>11} {'x floor':>8} {'x pure':>7}")
    for name, (path, frames, _) in files.items():
        size = os.path.getsize(path)
        floor = results["native"][name]["floor"]
        print(f"{name:14} {'binaryFile':15} {'-':8} {size / floor / 1e6:8.1f} {'':>11} {1:8.2f} {'':>7}")
        replay = results["native"][name]["replay"]
        print(f"{name:14} {'replay (Arrow)':15} {'-':8} {size / replay / 1e6:8.1f} {frames / replay:11,.0f} "
              f"{replay / floor:8.2f} {'':>7}")
        for reader in ("format(inlong)", "inlong [length]", "read_dumps"):
            pure = results["python"][name][reader]
            for backend in ("native", "python"):
                seconds = results[backend][name][reader]
                print(f"{name:14} {reader:15} {backend:8} {size / seconds / 1e6:8.1f} {frames / seconds:11,.0f} "
                      f"{seconds / floor:8.2f} {pure / seconds:7.2f}")
    sync_points(files)
    return 0


if __name__ == "__main__":
    sys.exit(main())
