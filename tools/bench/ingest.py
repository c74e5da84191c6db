"""Continuous ingestion per core: capture files to committed Parquet (spark.ingestion.ingest) against the floor
of reading the same bytes with binaryFile.

    .venv/bin/python tools/bench/ingest.py --files 8 --megabytes 16 --cores 1

--files pcaps of --megabytes each are written (tools/bench/capture_split.write_capture: DataProxy
connections, 32 open at a time, frames of 100 B to 60 KiB in 1460-byte segments), into a folder named
as tcpdump -G names its rotation. On one local session of --cores cores (after a warm-up that starts the
Python workers), the stream reads them into a Parquet table partitioned by protocol and date with a
checkpoint (Trigger.AvailableNow, completeAfter 0s), timed from the query's start to its last commit;
then the same files are read by binaryFile (every byte to the JVM, summed): the floor. Printed: MB/s
per core for both, and the ratio.
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
sys.path[:0] = [str(ROOT), str(ROOT / "tools")]


def measure(folder: Path, files: int, megabytes: float, cores: int) -> dict:
    from tools.bench.capture_split import write_capture

    from inlong_proto.spark.dumps import local_session
    from inlong_proto.spark.source import register
    from inlong_proto.spark.ingestion import ingest
    from inlong_proto.spark.stream import committed_files

    src = folder / "captures"
    src.mkdir(parents=True)
    for index in range(files):
        write_capture(src / f"lo-20261101-12{index:02d}00.pcap", int(megabytes * 1e6), seed=7 + index)
    total = sum(path.stat().st_size for path in src.iterdir())
    spark = local_session("inlong-proto-bench-ingest", cores=cores)
    spark.sparkContext.setLogLevel("ERROR")
    try:
        register(spark)
        warm = folder / "warm"
        warm.mkdir()
        shutil.copy(ROOT / "tests" / "vectors" / "capture" / "dataproxy_lo.pcap", warm / "w.pcap")
        ingest(spark, str(warm), str(folder / "warm-table"), str(folder / "warm-checkpoint"), once=True,
               complete_after="0s").awaitTermination()
        started = time.perf_counter()
        query = ingest(spark, str(src), str(folder / "table"), str(folder / "checkpoint"), once=True,
                       protocol="dataproxy", complete_after="0s")
        query.awaitTermination()
        ingest_s = time.perf_counter() - started
        rows = sum(p["numInputRows"] for p in query.recentProgress)
        assert len(committed_files(folder / "table")) > 0
        started = time.perf_counter()
        floor_bytes = spark.read.format("binaryFile").load(str(src)).selectExpr("sum(length(content))").first()[0]
        floor_s = time.perf_counter() - started
        assert floor_bytes == total
    finally:
        spark.stop()
    return {"files": files, "bytes": total, "rows": rows, "cores": cores, "ingest_s": round(ingest_s, 2),
            "ingest_mb_s_per_core": round(total / 1e6 / ingest_s / cores, 1), "binaryfile_s": round(floor_s, 2),
            "binaryfile_mb_s_per_core": round(total / 1e6 / floor_s / cores, 1),
            "ratio": round(ingest_s / floor_s, 1), "load_average": round(os.getloadavg()[0], 1)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=8)
    parser.add_argument("--megabytes", type=float, default=16, help="size of each capture (default 16)")
    parser.add_argument("--cores", type=int, default=1)
    parser.add_argument("--folder", help="where to write (default: a temporary folder, removed)")
    args = parser.parse_args()
    folder = Path(args.folder) if args.folder else Path(tempfile.mkdtemp(prefix="bench-ingest-"))
    try:
        result = measure(folder, args.files, args.megabytes, args.cores)
    finally:
        if not args.folder:
            shutil.rmtree(folder, ignore_errors=True)
    print(f"ingest (capture -> committed Parquet): {result['bytes'] / 1e6:.1f} MB in {result['files']} files, "
          f"{result['rows']} rows, {result['ingest_s']} s on {result['cores']} core(s): "
          f"{result['ingest_mb_s_per_core']} MB/s per core; binaryFile floor {result['binaryfile_s']} s: "
          f"{result['binaryfile_mb_s_per_core']} MB/s per core ({result['ratio']}x the floor's time); "
          f"load average {result['load_average']}")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
