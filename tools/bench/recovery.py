"""`make bench` (recovery): how many undamaged frames a PERMISSIVE read gives back after one random damage.

For each protocol, --damages times: a dump of 12 valid frames (the test vectors) gets one insert,
overwrite or delete of 1 to 64 random bytes at a random place; the frames the damage did not touch are
looked for, at their (shifted) offsets, among the frames iter_frames finds. Printed per protocol: the
recovery rate (undamaged frames recovered / undamaged frames), the damages that lost none, and the worst
case. Seeded: the same figures on every run.
"""
from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
for folder in (ROOT, ROOT / "tests"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from inlong_proto import iter_frames  # noqa: E402

KINDS = ("insert", "overwrite", "delete")


def dump(rng: random.Random, frames: list[bytes], count: int) -> tuple[bytes, list[tuple[int, int]]]:
    """A dump of count frames drawn from frames, and (offset, length) of each."""
    chosen = [rng.choice(frames) for _ in range(count)]
    spans, at = [], 0
    for frame in chosen:
        spans.append((at, len(frame)))
        at += len(frame)
    return b"".join(chosen), spans


def damage(data: bytes, kind: str, at: int, noise: bytes) -> tuple[bytes, int, int, int]:
    """The damaged bytes, the damaged range [lo, hi) of the original, and the shift of what follows."""
    size = len(noise)
    if kind == "insert":
        return data[:at] + noise + data[at:], at, at, size
    hi = min(len(data), at + size)
    if kind == "overwrite":
        return data[:at] + noise[:hi - at] + data[hi:], at, hi, 0
    return data[:at] + data[hi:], at, hi, at - hi


def recovered(protocol: str, damaged: bytes, spans, lo: int, hi: int, shift: int) -> tuple[int, int]:
    """(undamaged frames, of those given back at their place)."""
    found = {(row.offset, row.length) for row in iter_frames(damaged, protocol, None, "PERMISSIVE")
             if row.error is None}
    whole = back = 0
    for offset, length in spans:
        if offset + length <= lo:
            whole += 1
            back += (offset, length) in found
        elif offset >= hi and not (offset == lo == hi):
            whole += 1
            back += (offset + shift, length) in found
    return whole, back


def measure(protocol: str, frames: list[bytes], damages: int, seed: int = 0) -> dict:
    rng = random.Random(seed)
    whole = back = clean = worst = 0
    for _ in range(damages):
        data, spans = dump(rng, frames, 12)
        noise = rng.randbytes(rng.randint(1, 64))
        damaged, lo, hi, shift = damage(data, rng.choice(KINDS), rng.randrange(len(data)), noise)
        undamaged, found = recovered(protocol, damaged, spans, lo, hi, shift)
        whole, back = whole + undamaged, back + found
        clean += found == undamaged
        worst = max(worst, undamaged - found)
    return {"undamaged": whole, "recovered": back, "rate": back / whole, "lossless": clean / damages,
            "worst": worst}


def main() -> int:
    import vectors

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--damages", type=int, default=10_000)
    args = parser.parse_args()
    print(f"recovery after one random damage (insert/overwrite/delete of 1-64 bytes), {args.damages:,} "
          f"damages per protocol, dumps of 12 frames")
    print(f"{'protocol':<18} {'recovered':>20} {'rate':>8} {'no frame lost':>14} {'worst':>6}")
    for protocol, frames in sorted(vectors.valid_frames().items()):
        found = measure(protocol, frames, args.damages)
        print(f"{protocol:<18} {found['recovered']:>9,} / {found['undamaged']:>8,} {found['rate']:>8.2%} "
              f"{found['lossless']:>14.2%} {found['worst']:>6}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
