"""make bench-cli: `inlong-proto decode` on a DataProxy pcap, side by side with tshark and the project's plugin.

A capture of at least --megabytes MB (default 32) is written with the project's own writer (capture.writer,
as tools/bench/native_capture.py does: several TCP connections interleaved packet by packet), then each
command runs once over it, its output to a file, and the wall time is printed with MB/s and the ratio
against tshark -T fields (the plugin loaded by -X lua_script, in a fresh HOME holding only the TCP
preferences `inlong-proto wireshark install` writes). Targets (issue 26): parquet / csv at least 10x
tshark -T fields, jsonl at least 5x, table within 2x of jsonl. Each command runs --runs times (default 3) and
its best time counts. The figures are printed as measured. One more line, not a target: -T jsonl over the
capture's client stream as a raw dump (both a dump's and a capture's JSON lines are written from the
compiled batches), and two more: -T jsonl and -T table with -p auto (decode's default: each flow
classified, then framed by the compiled path) on the same pcap, and -T jsonl / -T table on a pcap of
MsgType 7 requests (the Java SDK's binary form) and their answers (--binary-frames of them). decode runs as an installed command does, its bytecode cached (pip install compiles it):
PYTHONDONTWRITEBYTECODE is dropped and the cache goes under the bench's folder (PYTHONPYCACHEPREFIX), so
the first run writes it and the best run reads it.
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from inlong_proto.cli.wireshark import install_preferences, plugin_path, preferences_path  # noqa: E402
from tools.bench.native_capture import capture, dataproxy_frames  # noqa: E402

CLI = [sys.executable, "-m", "inlong_proto", "decode", "-p", "dataproxy", "--mode", "PERMISSIVE"]
TSHARK_FIELDS = ["frame.number", "tcp.stream", "dataproxy.total_len", "dataproxy.base_type",
                 "dataproxy.bin_message.data_time", "dataproxy.bin_message.attr"]


def make_capture(path: Path, megabytes: float, dump: Path | None = None) -> None:
    frames = 20_000
    while True:
        sides = dataproxy_frames(frames)
        data, _ = capture(sides, 16, 46801)
        if len(data) >= megabytes * 1e6:
            break
        frames = int(frames * megabytes * 1e6 / len(data) * 1.05) + 1
    path.write_bytes(data)
    if dump is not None:  # the client's frames, one after another
        dump.write_bytes(b"".join(frame for side, frame in sides if side == "client"))


def make_binary_capture(path: Path, count: int) -> None:
    """count MsgType 7 requests (a few records each, ids as attributes), each answered, over 16 connections."""
    import inlong_proto
    from inlong_proto.dataproxy import builders

    frames = []
    for index in range(count):
        request = builders.bin_request([b"r" * (20 + index % 90), b"s" * 40], group_id=f"g{index % 7}",
                                       stream_id=f"s{index % 3}", data_time_ms=1_700_000_000_000 + index,
                                       unique_id=index, report_time_ms=None)
        frames += [("client", inlong_proto.encode(request)),
                   ("server", inlong_proto.encode(builders.bin_response(request, dp_ip="10.0.0.1")))]
    path.write_bytes(capture(frames, 16, 46801)[0])


def timed(command: list[str], out: Path, env: dict | None = None, runs: int = 1) -> tuple[float, float]:
    """The best wall time and the best CPU time (user + system: what a machine shared with other work
    changes least) of runs runs of command, its output to out."""
    best, best_cpu = float("inf"), float("inf")
    for _ in range(runs):
        with open(out, "wb") as sink:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            done = subprocess.run(command, stdout=sink, stderr=subprocess.PIPE, env=env, cwd=ROOT)
            seconds = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode:
            raise SystemExit(f"{' '.join(command)}: exit {done.returncode}: {done.stderr.decode()[-2000:]}")
        best = min(best, seconds)
        best_cpu = min(best_cpu, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return best, best_cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=float, default=32, help="capture size (default 32 MB)")
    parser.add_argument("--keep", metavar="DIR", help="write the capture and outputs here and keep them")
    parser.add_argument("--runs", type=int, default=3, help="runs per command, the best counts (default 3)")
    parser.add_argument("--binary-frames", type=int, default=20_000,
                        help="MsgType 7 requests in the binary pcap (default 20000)")
    args = parser.parse_args()
    where = Path(args.keep or tempfile.mkdtemp(prefix="bench-cli-"))
    where.mkdir(parents=True, exist_ok=True)
    try:
        pcap, dump = where / "dataproxy.pcap", where / "dataproxy.bin"
        make_capture(pcap, args.megabytes, dump)
        mb = pcap.stat().st_size / 1e6
        runs: dict[str, tuple[float, float]] = {}
        tshark = shutil.which("tshark")
        if tshark:
            home = where / "tshark-home"
            env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "TZ": "UTC"}
            env.pop("WIRESHARK_CONFIG_DIR", None)
            install_preferences(preferences_path(environ=env))
            fields = [part for name in TSHARK_FIELDS for part in ("-e", name)]
            runs["tshark -T fields"] = timed([tshark, "-X", f"lua_script:{plugin_path()}", "-r", str(pcap),
                                              "-Y", "dataproxy", "-T", "fields", *fields], where / "t.tsv", env,
                                             args.runs)
        else:
            print("tshark not found: no baseline", file=sys.stderr)
        installed = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
        installed["PYTHONPYCACHEPREFIX"] = str(where / "pycache")
        for fmt in ("parquet", "csv", "jsonl", "table"):
            runs[f"decode -T {fmt}"] = timed([*CLI, "-T", fmt, str(pcap)], where / f"out.{fmt}", installed,
                                             args.runs)
        for fmt in ("jsonl", "table"):  # not targets: -p auto, decode's default
            runs[f"-p auto -T {fmt}"] = timed([*CLI, "-p", "auto", "-T", fmt, str(pcap)], where / f"auto.{fmt}",
                                              installed, args.runs)
        binary = where / "binary.pcap"
        make_binary_capture(binary, args.binary_frames)
        binary_runs = {fmt: timed([*CLI, "-T", fmt, str(binary)], where / f"binary.{fmt}", installed, args.runs)
                       for fmt in ("jsonl", "table")}
        dumped = timed([*CLI, "-T", "jsonl", str(dump)], where / "dump.jsonl", installed, args.runs)
        rows = sum(1 for _ in open(where / "out.jsonl", "rb"))
        print(f"DataProxy pcap: {mb:.1f} MB, {rows} frames (decode -T jsonl lines); best of {args.runs} runs each, "
              f"output to a file; wall time, then CPU time (user + system), each with its ratio to tshark's")
        base = runs.get("tshark -T fields")
        for name, (seconds, cpu) in runs.items():
            ratio = f"{base[0] / seconds:6.1f}x tshark" if base else ""
            cpu_ratio = f"{base[1] / cpu:6.1f}x tshark" if base else ""
            print(f"  {name:18s} {seconds:8.2f} s {mb / seconds:8.1f} MB/s {rows / seconds / 1e3:8.1f} k frames/s  "
                  f"{ratio}   cpu {cpu:6.2f} s {cpu_ratio}")
        if base:
            targets = [("decode -T parquet", 10), ("decode -T csv", 10), ("decode -T jsonl", 5)]
            for name, wanted in targets:
                got, got_cpu = base[0] / runs[name][0], base[1] / runs[name][1]
                print(f"  target {name}: >= {wanted}x tshark: {got:.1f}x {'met' if got >= wanted else 'NOT met'} "
                      f"(cpu {got_cpu:.1f}x)")
        dump_mb, dump_rows = dump.stat().st_size / 1e6, sum(1 for _ in open(where / "dump.jsonl", "rb"))
        ratio = f"{base[0] / dumped[0]:6.1f}x tshark (on the pcap)" if base else ""
        print(f"  not a target: decode -T jsonl of the client stream as a raw dump ({dump_mb:.1f} MB, {dump_rows} "
              f"frames): {dumped[0]:.2f} s, {dump_rows / dumped[0] / 1e3:.1f} k frames/s {ratio}")
        binary_mb = binary.stat().st_size / 1e6
        for fmt, (seconds, cpu) in binary_runs.items():
            print(f"  not a target: decode -T {fmt} of a MsgType 7 pcap ({binary_mb:.1f} MB, {2 * args.binary_frames} "
                  f"frames): {seconds:.2f} s, cpu {cpu:.2f} s, {binary_mb / seconds:.1f} MB/s")
        (table, table_cpu), (jsonl, jsonl_cpu) = runs["decode -T table"], runs["decode -T jsonl"]
        print(f"  target decode -T table within 2x of jsonl: {table / jsonl:.2f}x "
              f"{'met' if table <= 2 * jsonl else 'NOT met'} (cpu {table_cpu / jsonl_cpu:.2f}x)")
    finally:
        if not args.keep:
            shutil.rmtree(where, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
