"""A pcap of small packets into Arrow: the pure capture path against the compiled one (capture.native_path).

One frame per packet, several TCP connections interleaved packet by packet (capture.writer, Ethernet,
handshake and FINs), one process, best of --repeat:

* pure: iter_capture_frames -> arrow.frames_to_batch with arrow.capture_value (what the readers build today);
* compiled: capture.native_path.capture_batches (checked equal to pure before timing);
* walk only: the C walker alone (container, link, IP, TCP, reassembly bookkeeping; no framing, no Arrow).

Then issue 24, item 19's recipe: tiny DataProxy connections one after another, each closed by FIN and FIN
(120,000 took 63 s and 263 MB on the pure path), through both paths; tests/capture/test_capture_flow_limits.py
counts the pure path's work per flow, this measures the speed.

Protocols: broadcast (37/38-byte frames; a compiled frame scanner exists) and dataproxy (text requests of
about 100 to 300 bytes from the client, 30-byte acks back; its frames go through the compiled scanner
when inlong_proto._compiled.scan has one, through the pure codec otherwise). MB/s counts the whole pcap file.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import pyarrow as pa  # noqa: E402

import inlong_proto  # noqa: E402
from inlong_proto.core import arrow
from inlong_proto.backends import compiled as native  # noqa: E402
from inlong_proto.backends import compiled_capture as native_path  # noqa: E402
from inlong_proto.capture.writer import Conversation, pcap_file  # noqa: E402
from inlong_proto.dataproxy import builders  # noqa: E402
from tools.bench.codecs import make_frames  # noqa: E402


def dataproxy_frames(count: int, seed: int = 7) -> list[tuple[str, bytes]]:
    """(side, frame): text requests of about 100-300 bytes, every fourth followed by a response (ack)."""
    from inlong_proto.generated.codec.dataproxy import dataproxy_response as response

    rng = random.Random(seed)
    out = []
    for index in range(count):
        records = [b"r" * rng.randrange(10, 190)]
        out.append(("client", inlong_proto.encode(builders.text_request(
            records, group_id=f"g{index % 7}", stream_id=f"s{index % 3}", message_id=index,
            data_time_ms=1_700_000_000_000 + index, report_time_ms=None))))
        if index % 4 == 3:
            out.append(("server", sample_response(response)))
    return out


def sample_response(response) -> bytes:
    """One valid DataProxy response, taken from the protocol's own vectors."""
    data = (ROOT / "tests" / "vectors" / "capture" / "dataproxy_lo.server.bin").read_bytes()
    frame = next(inlong_proto.iter_frames(data, "dataproxy", "response"))
    return data[frame.offset:frame.offset + frame.length]


def broadcast_frames(count: int) -> list[tuple[str, bytes]]:
    return [("client" if len(frame) == 37 else "server", frame) for frame in make_frames(count)]


def capture(frames: list[tuple[str, bytes]], connections: int, server_port: int) -> tuple[bytes, int]:
    """A pcap of `connections` conversations sharing out the frames, interleaved packet by packet."""
    conversations = [Conversation((f"10.0.{c >> 8}.{c & 255}", 40000 + c), ("10.255.0.1", server_port))
                     for c in range(connections)]
    ts = 1_700_000_000 * 10**9
    packets = []
    for conversation in conversations:
        packets += conversation.open(ts)
    for index, (side, frame) in enumerate(frames):
        ts += 1000
        packets += conversations[index % connections].send(side, frame, ts)
    for conversation in conversations:
        packets += conversation.close(ts)
    return pcap_file(packets), len(packets)


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def table(batches, protocol):
    return pa.Table.from_batches(list(batches), arrow.frame_schema(protocol))


def run(protocol: str, frames, connections: int, repeat: int) -> None:
    data, packets = capture(frames, connections, 46801 if protocol == "dataproxy" else 9000)
    mb = len(data) / 1e6
    report: dict = {}
    compiled = table(native_path.capture_batches(data, protocol, "PERMISSIVE", "bench.pcap", report=report), protocol)
    pure = table(native_path._pure_batches(data, protocol, "PERMISSIVE", "bench.pcap", native.BATCH_ROWS), protocol)
    if report.get("path") != "compiled" or not compiled.equals(pure):
        raise SystemExit(f"{protocol}: the compiled path did not run or differs: {report}")
    timings = {
        "pure": best(lambda: table(native_path._pure_batches(data, protocol, "PERMISSIVE", "bench.pcap",
                                                             native.BATCH_ROWS), protocol), repeat),
        "compiled": best(lambda: table(native_path.capture_batches(data, protocol, "PERMISSIVE", "bench.pcap"),
                                       protocol), repeat),
        "walk only": best(lambda: native_path.walk(data), repeat),
    }
    scanner = "compiled" if native.scanner(protocol, "request") else "pure Python"
    print(f"{protocol}: {mb:.1f} MB pcap, {packets} packets, {connections} connections, {compiled.num_rows} frames "
          f"(frame scanner: {scanner})")
    for name, seconds in timings.items():
        print(f"  {name:10s} {seconds:8.3f} s {mb / seconds:9.1f} MB/s {packets / seconds / 1e6:7.2f} M packets/s")
    print(f"  compiled / pure: {timings['pure'] / timings['compiled']:.1f}x")


def closed_flows(count: int, repeat: int) -> None:
    """`count` connections one after another: handshake, one request, FIN, FIN, last ACK (1 ms apart)."""
    request = dataproxy_frames(1)[0][1]
    packets, ts = [], 1_700_000_000 * 10**9
    for index in range(count):
        conversation = Conversation((f"10.1.0.{index % 200 + 1}", 20000 + index // 200), ("10.255.0.1", 46801))
        packets += conversation.open(ts) + conversation.send("client", request, ts) + conversation.close(ts)
        ts += 10**6
    data = pcap_file(packets)
    timings = {
        "pure": best(lambda: table(native_path._pure_batches(data, "dataproxy", "PERMISSIVE", "bench.pcap",
                                                             native.BATCH_ROWS), "dataproxy"), repeat),
        "walk only": best(lambda: native_path.walk(data), repeat),
    }
    print(f"closed flows: {count} FIN-closed dataproxy connections, {len(packets)} packets")
    for name, seconds in timings.items():
        print(f"  {name:10s} {seconds:8.3f} s {count / seconds:12,.0f} flows/s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=100_000, help="frames per protocol (default 100000)")
    parser.add_argument("--connections", type=int, default=16, help="TCP connections (default 16)")
    parser.add_argument("--repeat", type=int, default=3, help="best of (default 3)")
    parser.add_argument("--protocol", choices=("broadcast", "dataproxy", "both"), default="both")
    parser.add_argument("--flows", type=int, default=10_000, help="closed connections (default 10000)")
    args = parser.parse_args()
    if native_path.native.backend() != "native":
        print("the compiled capture walker (inlong_proto._compiled.capture) is not built", file=sys.stderr)
        return 1
    if args.protocol in ("broadcast", "both"):
        run("broadcast", broadcast_frames(args.frames), args.connections, args.repeat)
    if args.protocol in ("dataproxy", "both"):
        run("dataproxy", dataproxy_frames(args.frames), args.connections, args.repeat)
        closed_flows(args.flows, args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
