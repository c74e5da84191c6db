"""`make bench`: a broadcast dump into Arrow, compiled backend against pure Python and the `struct` baseline.

All on the same dump (tools/bench.py's frames, one in eight a request), one process, best of --repeat:

* raw read: the dump file read into memory (the floor any parser sits on);
* struct baseline: tools/bench.py's hand-written decoder walking the dump, a Python tuple per frame, no Arrow;
* pure iter_frames: the generated Python codec through iter_frames (PERMISSIVE), Frame objects, no Arrow;
* pure -> Arrow: arrow.frames_to_batch over that iter_frames, the table the Spark readers build today;
* native -> Arrow: inlong_proto.native.scan_batch, the C scanner generated from the same spec (same table,
  checked equal before timing).
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import inlong_proto  # noqa: E402
from inlong_proto import arrow, iter_frames, native  # noqa: E402
from inlong_proto.generated.codec.broadcast import broadcast_frame as bf  # noqa: E402
from tools.bench import handwritten_decode, make_frames  # noqa: E402


def struct_walk(data: bytes) -> int:
    """The hand-written baseline over a dump: frame sizes from the header, each frame decoded."""
    pos, count, end = 0, 0, len(data)
    header = bf._S0  # only to read the length; the baseline itself is tools/bench.handwritten_decode
    while pos < end:
        total = header.unpack_from(data, pos)[0]
        handwritten_decode(data[pos:pos + total])
        pos += total
        count += 1
    return count


def timed(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    data = b"".join(make_frames(args.frames))
    frames, size = args.frames, len(data)
    print(f"broadcast dump: {frames:,} frames, {size / 1e6:.1f} MB; backend: {inlong_proto.backend()}; "
          f"best of {args.repeat}")
    if inlong_proto.backend() != "native":
        print("the compiled backend is not built or is turned off: native figures skipped")
    else:
        assert native.scan_batch(data, "broadcast", "bench").equals(
            arrow.frames_to_batch("bench", iter_frames(data, "broadcast", mode="PERMISSIVE"), "broadcast"))
    with tempfile.NamedTemporaryFile(delete=False) as handle:
        handle.write(data)
    try:
        rows = [("raw read", timed(lambda: Path(handle.name).read_bytes(), args.repeat))]
    finally:
        os.unlink(handle.name)
    rows.append(("struct baseline (tuples)", timed(lambda: struct_walk(data), args.repeat)))
    rows.append(("pure iter_frames (Frames)",
                 timed(lambda: sum(1 for _ in iter_frames(data, "broadcast", mode="PERMISSIVE")), args.repeat)))
    rows.append(("pure -> Arrow", timed(lambda: arrow.frames_to_batch(
        "bench", iter_frames(data, "broadcast", mode="PERMISSIVE"), "broadcast"), args.repeat)))
    if inlong_proto.backend() == "native":
        rows.append(("native -> Arrow", timed(lambda: native.scan_batch(data, "broadcast", "bench"), args.repeat)))
    baseline = dict(rows)["struct baseline (tuples)"]
    pure = dict(rows)["pure -> Arrow"]
    print(f"{'path':28} {'frames/s':>12} {'MB/s':>9} {'x struct':>9} {'x pure->Arrow':>14}")
    for name, seconds in rows:
        print(f"{name:28} {frames / seconds:12,.0f} {size / seconds / 1e6:9.1f} {baseline / seconds:9.2f} "
              f"{pure / seconds:14.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
