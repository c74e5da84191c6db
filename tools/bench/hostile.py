"""Issue 24's hostile recipes at their full size through the stream decoders: peak RSS, time, throughput, items
and JSON output of each, every recipe in a fresh process (so that one's peak is not another's).

    python tools/bench/hostile.py            # every recipe (about two minutes on 2 cores)
    python tools/bench/hostile.py hpack_bomb gzip_bomb
"""
from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

# name: (protocol, builder expression over hostile_streams, what the recipe held before issue 24)
RECIPES = {
    "hpack_bomb": ("eventmesh-grpc", "[hs.hpack_bomb(1000)]", "1.1 GB RSS, 2 GB of JSON"),
    "gzip_bomb": ("eventmesh-grpc", "[hs.gzip_bomb(30)]", "2 GB RSS"),
    "open_streams": ("eventmesh-grpc", "[hs.open_streams(200_000)]", "586 MB RSS, 61 s"),
    "continuation_flood": ("eventmesh-grpc", "hs.continuation_flood(393 << 20)", "422 MB RSS"),
    "table_size_update": ("eventmesh-grpc", "[hs.table_size_update(60, 8000)]", "521 MB RSS, 180 s"),
    "table_size_update_small_blocks": ("eventmesh-grpc", "[hs.table_size_update(600, 600)]", "-"),
    "one_stream_messages": ("eventmesh-grpc", "[hs.one_stream_messages(200_000)]", "328 MB RSS, a 30 MB record"),
    "random_bytes": ("eventmesh-grpc", "[hs.random_bytes(32 << 20)]", "0.2-0.67 MB/s"),
    "http_chunk_flood": ("eventmesh-http", "[hs.http_chunk_flood(4_000_000)]", "637 MB RSS"),
    "http_huge_body": ("eventmesh-http", "hs.http_huge_body(200 << 20)", "1 GB RSS"),
}


def run_one(name: str) -> dict:
    """In this process: build the recipe, feed it 64 KiB at a time, count what comes out."""
    import hostile_streams as hs  # noqa: F401 (the builder expressions use it)

    from inlong_proto.core import frames

    protocol, builder, _ = RECIPES[name]
    pieces = eval(builder)  # a fixed expression from the table above
    built = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    decoder = frames.stream_decoder(protocol, "request", mode="PERMISSIVE")
    size = items = output = errors = 0
    started = time.perf_counter()
    for piece in pieces:
        for at in range(0, len(piece), 1 << 16):
            chunk = piece[at:at + (1 << 16)]
            size += len(chunk)
            for item in decoder.feed(chunk):
                items += 1
                errors += item.error is not None
                output += len(json.dumps(item.to_dict()))
    for item in decoder.close():
        items += 1
        errors += item.error is not None
        output += len(json.dumps(item.to_dict()))
    elapsed = time.perf_counter() - started
    return {"recipe": name, "input_mb": size / 1e6, "seconds": elapsed, "mb_per_s": size / 1e6 / elapsed,
            "items": items, "errors": errors, "json_mb": output / 1e6,
            "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "built_rss_mib": built / 1024}


def main(names: list[str]) -> None:
    print(f"{'recipe':32} {'input MB':>9} {'s':>6} {'MB/s':>7} {'items':>8} {'errors':>7} {'JSON MB':>8} "
          f"{'peak RSS':>9}  before issue 24")
    for name in names or RECIPES:
        result = subprocess.run([sys.executable, __file__, "--one", name], capture_output=True, text=True, check=True)
        r = json.loads(result.stdout)
        print(f"{name:32} {r['input_mb']:9.1f} {r['seconds']:6.1f} {r['mb_per_s']:7.1f} {r['items']:8d} "
              f"{r['errors']:7d} {r['json_mb']:8.1f} {r['peak_rss_mib']:7.0f}Mi  {RECIPES[name][2]}", flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--one"]:
        print(json.dumps(run_one(sys.argv[2])))
    else:
        main(sys.argv[1:])
