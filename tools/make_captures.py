"""Record the capture test vectors: Debian's tcpdump on loopback while the project's own endpoints talk.

    sudo .venv/bin/python tools/make_captures.py [--out tests/vectors/capture]

For each scenario a server and a client of inlong-proto run over 127.0.0.1 on the protocol's default
port while tcpdump writes a pcap (root is needed to capture). Next to each capture the endpoints' own
records are kept (`*.client.bin`: what the client received or sent, `*.server.bin`: what the server
received), which the tests compare with the frames decoded from the capture. tcpdump writes pcap only,
so the pcapng vector is the broadcast capture rewritten by `pcapng_file`, through the generated codec.
"""
from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from inlong_proto.capture import iter_packets  # noqa: E402
from inlong_proto.generated.codec.capture import pcapng  # noqa: E402

CLI = [sys.executable, "-m", "inlong_proto"]


def pcapng_file(interfaces, packets, *, le: bool = True) -> bytes:
    """A one-section pcapng file. interfaces: [(linktype, if_tsresol or None)]; packets:
    [(interface, timestamp in that interface's units, data, original length)]."""
    order = pcapng.ByteOrder.little if le else pcapng.ByteOrder.big
    body = pcapng.SectionHeaderBody(major_version=1, minor_version=0, section_length=-1, options=b"")
    body_bytes = pcapng.encode_section_header_body(body, le=le)
    length = (16 + len(body_bytes)).to_bytes(4, "little" if le else "big")
    out = [pcapng.encode_section_header_block(pcapng.SectionHeaderBlock(
        block_total_length_bytes=length, byte_order_magic=order, body=body, block_total_length_trailer=length))]

    def block(body_obj, size):
        return pcapng.encode_block(pcapng.Block(body=body_obj, block_total_length_trailer=12 + size), le=le)

    for linktype, tsresol in interfaces:
        options = [] if tsresol is None else [pcapng.Option(code=9, value=bytes([tsresol]), padding=b"\0\0\0"),
                                              pcapng.Option(code=0, value=b"", padding=b"")]
        idb = pcapng.InterfaceDescriptionBlock(linktype=linktype, reserved=0, snaplen=262144, options=options)
        out.append(block(idb, len(pcapng.encode_interface_description_block(idb, le=le))))
    for interface, ts, data, orig_len in packets:
        epb = pcapng.EnhancedPacketBlock(interface_id=interface, timestamp_high=ts >> 32,
                                         timestamp_low=ts & 0xFFFFFFFF, original_packet_length=orig_len,
                                         packet_data=data, padding=bytes(-len(data) % 4), options=[])
        out.append(block(epb, len(pcapng.encode_enhanced_packet_block(epb, le=le))))
    return b"".join(out)


def _start(args, **kw) -> subprocess.Popen:
    return subprocess.Popen(CLI + args, cwd=ROOT, stderr=subprocess.DEVNULL, **kw)


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def record(out: Path, name: str, port: int, server: list, client: list, *, interface: str = "lo",
           nano: bool = False, stdin: bytes | None = None) -> None:
    """tcpdump on `interface` (port filter) while server and client run; client runs to completion."""
    capture = out / f"{name}.pcap"
    dump = ["tcpdump", "-i", interface, "-U", "-w", str(capture), "-s", "0", f"tcp port {port}"]
    if nano:
        dump[1:1] = ["--time-stamp-precision", "nano"]
    tcpdump = subprocess.Popen(dump, stderr=subprocess.PIPE)
    time.sleep(1.0)
    serving = _start(server)
    time.sleep(1.5)
    try:
        subprocess.run(CLI + client, cwd=ROOT, input=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       timeout=60, check=True)
        time.sleep(0.5)
    finally:
        _stop(serving)
        time.sleep(0.5)
        _stop(tcpdump)
    os.chmod(capture, 0o644)
    print(f"{capture}: {capture.stat().st_size} bytes", file=sys.stderr)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "tests" / "vectors" / "capture")
    args = parser.parse_args()
    if shutil.which("tcpdump") is None:
        print("make_captures: tcpdump is required (apt-get install tcpdump)", file=sys.stderr)
        return 1
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    for stale in out.glob("*.bin"):
        stale.unlink()
    broadcast = ["broadcast", "serve", "--port", "9000", "--interval", "0.05", "--seed", "7", "--max-history", "12"]
    record(out, "broadcast_lo", 9000, broadcast,
           ["broadcast", "client", "--port", "9000", "--count", "8", "--record", str(out / "broadcast_lo.client.bin")])
    record(out, "broadcast_any_nano", 9000, broadcast,
           ["broadcast", "client", "--port", "9000", "--count", "5",
            "--record", str(out / "broadcast_any_nano.client.bin")], interface="any", nano=True)
    record(out, "dataproxy_lo", 46801,
           ["dataproxy", "serve", "--port", "46801", "--record", str(out / "dataproxy_lo.server.bin")],
           ["dataproxy", "send", "--port", "46801", "--mix", "3,5,7,8", "--count", "40", "--batch-size", "5",
            "--record", str(out / "dataproxy_lo.client.bin")])
    record(out, "eventmesh_lo", 10000,
           ["eventmesh", "serve", "--port", "10000", "--record", str(out / "eventmesh_lo.server.bin")],
           ["eventmesh", "client", "--port", "10000", "--publish", "3", "--record-sent",
            str(out / "eventmesh_lo.client.bin")])
    record(out, "eventmesh_grpc_lo", 10205, ["eventmesh", "grpc-serve", "--port", "10205"],
           ["eventmesh", "grpc-client", "--port", "10205", "--topic", "t", "publish", "--count", "3"])
    packets = [p for p in iter_packets((out / "broadcast_lo.pcap").read_bytes())]
    data = pcapng_file([(1, 9)], [(0, p.timestamp_ns, p.data, p.orig_len) for p in packets])
    (out / "broadcast_lo.pcapng").write_bytes(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
