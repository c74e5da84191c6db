"""`make bench-spark`: throughput of the Spark readers, per protocol, on dumps built from the test vectors.

For each protocol one dump of --megabytes is read five ways; MB/s, MB/s and frames/s per core are printed
with the time as a multiple of the ceiling's (reading the file's bytes) and the speed as a multiple of the
plain loop's, then the data source's scaling from 1 to all cores:
  raw read          the file's bytes into memory (the ceiling)
  python loop       iter_frames over the file in this process (one core)
  binaryFile+UDTF   read_dumps: one file is one row, so one task
  inlong source     spark.read.format("inlong") with byte-range splits, on 1 core and on all cores
Peak RSS of the processes Spark starts (the JVM and the Python workers) is printed at the end.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import inlong_proto  # noqa: E402

PROTOCOLS = (("broadcast", None), ("dataproxy", "request"), ("tubemq", None), ("eventmesh", None))


def build_dump(folder: Path, protocol: str, direction: str | None, megabytes: float) -> tuple[Path, int]:
    samples = []
    for path in sorted((ROOT / "tests" / "vectors" / protocol).rglob("valid/*.json")):
        vector = json.loads(path.read_text())
        if vector.get("protocol", protocol) == protocol and direction in (None, vector.get("direction")):
            samples.append(bytes.fromhex(vector["hex"]))
    block = b"".join(samples)
    copies = max(1, int(megabytes * 2**20 / len(block)))
    target = folder / f"{protocol}.bin"
    target.write_bytes(block * copies)
    return target, len(samples) * copies


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


def reader_cores(label: str) -> int:
    """How many cores a reader of the results table ran on (binaryFile+UDTF: one file is one task)."""
    if label.startswith("inlong source"):
        return int(label.split(", ")[1].split()[0])
    return 1


def timed(fn) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=float, default=16.0)
    parser.add_argument("--split-size", default="2m")
    args = parser.parse_args()
    from inlong_proto.spark import local_session, read_dumps
    from inlong_proto.spark_source import register

    folder = Path(tempfile.mkdtemp(prefix="inlong-bench-"))
    dumps = {name: build_dump(folder, name, direction, args.megabytes) for name, direction in PROTOCOLS}
    cores_all = os.cpu_count() or 1
    results: dict[str, dict[str, float]] = {name: {} for name, _ in PROTOCOLS}
    for name, direction in PROTOCOLS:
        path, _ = dumps[name]
        results[name]["raw read"] = timed(lambda: path.read_bytes())
        results[name]["python loop"] = timed(lambda: sum(1 for _ in inlong_proto.iter_frames(
            path.read_bytes(), name, direction, "PERMISSIVE")))
    rss: dict[str, float] = {}
    for cores in sorted({1, cores_all}):
        spark = local_session(f"inlong-bench-{cores}", cores=cores)
        spark.sparkContext.setLogLevel("ERROR")
        register(spark)
        try:
            for name, direction in PROTOCOLS:
                path, frames = dumps[name]
                reader = (spark.read.format("inlong").option("protocol", name).option("splitSize", args.split_size))
                if direction:
                    reader = reader.option("direction", direction)
                reader.load(str(path)).count()  # warm-up: the first Python data source call starts workers
                results[name][f"inlong source, {cores} core(s)"] = timed(lambda: reader.load(str(path)).count())
                if cores == cores_all:
                    got = read_dumps(spark, str(path), name, direction).count()
                    assert got == frames, (name, got, frames)
                    results[name]["binaryFile+UDTF"] = timed(
                        lambda: read_dumps(spark, str(path), name, direction).count())
        finally:
            for name, peak in descendants_peak_rss().items():
                rss[name] = max(rss.get(name, 0.0), peak)
            spark.stop()
    print(f"{args.megabytes:g} MB per protocol, splitSize {args.split_size}, {cores_all} cores, "
          f"Python {sys.version.split()[0]}")
    for name, _ in PROTOCOLS:
        size = dumps[name][0].stat().st_size / 2**20
        frames = dumps[name][1]
        ceiling, loop = results[name]["raw read"], results[name]["python loop"]
        print(f"\n{name}: {size:.1f} MB, {frames:,} frames")
        print(f"{'reader':<28} {'cores':>5} {'MB/s':>9} {'MB/s/core':>10} {'frames/s/core':>14} "
              f"{'x raw read time':>16} {'x loop speed':>13}")
        for label, seconds in results[name].items():
            cores = reader_cores(label)
            print(f"{label:<28} {cores:>5} {size / seconds:>9.1f} {size / seconds / cores:>10.1f} "
                  f"{frames / seconds / cores:>14,.0f} {seconds / ceiling:>16,.0f} {loop / seconds:>13.2f}")
        one, every = (results[name].get(f"inlong source, {n} core(s)") for n in (1, cores_all))
        if cores_all > 1:
            print(f"inlong source scaling 1 -> {cores_all} cores: {one / every:.2f}x "
                  f"({one / every / cores_all:.0%} of linear)")
    print("\npeak RSS of the processes Spark started (MB): "
          + ", ".join(f"{name} {peak:.0f}" for name, peak in sorted(rss.items())))
    print(f"this driver process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
