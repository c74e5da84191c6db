"""Encode speed per frame layout: the pure generated encoder against the compiled one (same messages).

The messages are every valid test vector of the layout, decoded, with their derived fields (lengths,
counts, discriminators) cleared as a caller who builds a message leaves them, repeated up to --messages.
Each encoder runs over the same list, one process, best of --repeat:

* pure: the generated Python encoder (codec.module.encode), called directly;
* compiled: inlong_proto._compiled.encode.encode_<spec> (C generated from the same spec by
  tools/ksygen/cgen_encode.py), called directly, its bytes checked equal to the pure ones first;
* and the same two through the public inlong_proto.encode (INLONG_PROTO_BACKEND=python, then native),
  which adds the protocol lookup both backends share.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
for path in (ROOT, ROOT / "tests"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

import inlong_proto  # noqa: E402
from inlong_proto import iter_frames
from inlong_proto.backends import compiled_encode as native_encode
from inlong_proto.core import protocols  # noqa: E402

import vectors  # noqa: E402  (tests/vectors.py: where the vectors live)


def timed(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def messages_by_layout(count: int) -> dict[str, tuple[object, list]]:
    """layout name -> (codec, messages): every valid vector decoded, derived fields cleared, repeated."""
    found: dict[str, tuple[object, list]] = {}
    for protocol in protocols.names():
        for direction in ("request", "response", None):
            for data in vectors.valid_frames([direction]).get(protocol, []):
                for frame in iter_frames(data, protocol, direction, "FAILFAST"):
                    codec = protocols.get(protocol).codec_of(frame.message)
                    name = f"{protocol} {codec.direction}" if codec.direction else protocol
                    found.setdefault(name, (codec, []))[1].append(frame.message._replace())
    return {name: (codec, (items * (count // len(items) + 1))[:count]) for name, (codec, items) in found.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=100_000, help="messages per layout")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if native_encode.part("encode") is None:
        print("the compiled encoders (inlong_proto._compiled.encode) are not built: "
              "python setup.py build_ext --inplace", file=sys.stderr)
        return 1
    print(f"{args.messages:,} messages per layout (the valid vectors, derived fields cleared); best of {args.repeat}; "
          f"messages/s")
    print(f"{'layout':<22}{'pure':>12}{'compiled':>12}{'ratio':>8}   {'encode() pure':>14}{'native':>12}{'ratio':>8}")
    for name, (codec, messages) in messages_by_layout(args.messages).items():
        pure, fast = codec.module.encode, native_encode.compiled(codec.module)
        if fast is None:
            print(f"{name:<22}{'(no compiled encoder)':>24}")
            continue
        for message in messages[:1000]:
            if fast(message) != pure(message):
                raise SystemExit(f"{name}: the compiled encoder differs on {message!r}")
        n = len(messages)
        t_pure = timed(lambda: [pure(m) for m in messages], args.repeat)
        t_fast = timed(lambda: [fast(m) for m in messages], args.repeat)
        os.environ["INLONG_PROTO_BACKEND"] = "python"
        t_api_pure = timed(lambda: [inlong_proto.encode(m) for m in messages], args.repeat)
        os.environ["INLONG_PROTO_BACKEND"] = "native"
        t_api_fast = timed(lambda: [inlong_proto.encode(m) for m in messages], args.repeat)
        del os.environ["INLONG_PROTO_BACKEND"]
        print(f"{name:<22}{n / t_pure:>12,.0f}{n / t_fast:>12,.0f}{t_pure / t_fast:>7.1f}x   "
              f"{n / t_api_pure:>14,.0f}{n / t_api_fast:>12,.0f}{t_api_pure / t_api_fast:>7.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
