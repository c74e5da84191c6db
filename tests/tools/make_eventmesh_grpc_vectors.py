"""Writes tests/vectors/eventmesh/grpc/{valid,malformed}/*.json: EventMesh gRPC streams (one direction of an
HTTP/2 connection each, as `decode -p eventmesh-grpc -d DIRECTION` reads a dump), for the conformance corpus
(`inlong-proto corpus export`, issue 29).

The bytes come from two independent writers of HTTP/2, never from this project's codecs:

* `capture_*`: gRPC's C core (grpcio, chttp2) as the reference endpoints' client and server use it, taken from
  the TCP payloads of tests/vectors/capture/eventmesh_grpc_lo.pcap (three CloudEvents publishes);
* `conversation_*`: python-hyper's hyperframe and hpack, the connection tests/eventmesh/test_h2_grpc.py builds
  (a gzip message split over padded DATA frames, a header block in three CONTINUATION pieces, a failed
  heartbeat of the pre-1.9 service, a bidirectional stream, PING, WINDOW_UPDATE, RST_STREAM, GOAWAY).

Malformed vectors are a valid client stream with one thing broken, named in each description. Messages are
protobuf of EventMesh's .proto files (specs/eventmesh). Run from the repository root to rewrite the files:

    .venv/bin/python tests/tools/make_eventmesh_grpc_vectors.py
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from hpack import Encoder
from hyperframe import frame as hf

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "eventmesh")]

from inlong_proto.capture import iter_packets  # noqa: E402
from inlong_proto.capture.tcp import segment_of  # noqa: E402
from test_h2_grpc import PUBLISH, conversation, event, grpc_message, request_headers  # noqa: E402

OUT = ROOT / "tests" / "vectors" / "eventmesh" / "grpc"
PORT = 10205
CAPTURED = ("library: gRPC's C core (grpcio, chttp2) as this project's reference endpoints use it, captured by "
            "tcpdump on loopback (tests/vectors/capture/eventmesh_grpc_lo.pcap)")
HYPER = "library: python-hyper's hyperframe and hpack (tests/eventmesh/test_h2_grpc.py, conversation)"
MADE = "library: python-hyper's hyperframe and hpack, one part broken on purpose"


def captured() -> dict[str, bytes]:
    streams = {"request": b"", "response": b""}
    for packet in iter_packets((ROOT / "tests" / "vectors" / "capture" / "eventmesh_grpc_lo.pcap").read_bytes()):
        segment = segment_of(packet.linktype, packet.data)
        if segment is not None and segment.data:
            streams["response" if segment.src_port == PORT else "request"] += segment.data
    return streams


def client_start(encoder: Encoder, stream_id: int = 1) -> bytes:
    """The preface, SETTINGS, and one publish call's HEADERS: what every malformed vector starts with."""
    return (b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + hf.SettingsFrame(0).serialize()
            + hf.HeadersFrame(stream_id, data=encoder.encode(request_headers(PUBLISH)),
                              flags=["END_HEADERS"]).serialize())


def data_frame(payload: bytes, **kw) -> bytes:
    return hf.DataFrame(1, data=payload, flags=["END_STREAM"], **kw).serialize()


def malformed() -> dict[str, tuple[str, bytes]]:
    def start() -> bytes:
        return client_start(Encoder())

    message = grpc_message(event(1))
    padded = bytearray(hf.DataFrame(1, data=message, flags=["END_STREAM", "PADDED"], pad_length=0).serialize())
    padded[9] = 0xF0  # the pad length, more than the payload holds

    def headers(block: bytes) -> bytes:
        return hf.HeadersFrame(3, data=block, flags=["END_HEADERS"]).serialize()

    return {
        "hpack_index_zero": ("A HEADERS frame whose block references table index 0, which RFC 7541 forbids",
                             start() + headers(b"\x80")),
        "hpack_bad_huffman": ("A HEADERS frame whose block holds a Huffman string cut inside a code",
                              start() + headers(b"\x40\x81\xff\x01a")),
        "continuation_alone": ("A CONTINUATION frame with no HEADERS frame before it",
                               start() + hf.ContinuationFrame(1, data=b"\x82", flags=["END_HEADERS"]).serialize()),
        "ping_short": ("A PING frame of 7 bytes (8 are required)",
                       start() + b"\x00\x00\x07\x06\x00\x00\x00\x00\x00" + b"1234567"),
        "data_pad_too_long": ("A padded DATA frame whose pad length (240) is more than its payload",
                              start() + bytes(padded)),
        "settings_bad_length": ("A SETTINGS frame of 5 bytes (a multiple of 6 is required)",
                                start() + b"\x00\x00\x05\x04\x00\x00\x00\x00\x00" + b"\x00\x03\x00\x00\x00"),
        "message_not_protobuf": ("A publish call's message whose 12 bytes do not read as a CloudEvent",
                                 start() + data_frame(b"\x00\x00\x00\x00\x0c" + b"\xff" * 12)),
        "message_compressed_without_encoding": (
            "A message flagged compressed on a call that named no grpc-encoding",
            start() + data_frame(b"\x01" + message[1:])),
        "truncated_data": ("The stream ends 10 bytes into a DATA frame's payload",
                           start() + data_frame(message)[:19]),
    }


def write(kind: str, name: str, vector: dict) -> None:
    path = OUT / kind / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(vector, indent=2) + "\n")


def main() -> None:
    for folder in ("valid", "malformed"):
        for old in (OUT / folder).glob("*.json"):
            old.unlink()
    for direction, data in captured().items():
        write("valid", f"capture_{direction}", {
            "description": f"The {direction} side of three CloudEvents publishes over gRPC (HTTP/2)",
            "source": CAPTURED, "direction": direction, "hex": data.hex()})
    client, server, _ = conversation()
    for direction, peer in (("request", client), ("response", server)):
        write("valid", f"conversation_{direction}", {
            "description": f"The {direction} side of a connection of four calls: gzip, padding, CONTINUATION, "
                           "an error status, a bidirectional stream, PING, WINDOW_UPDATE, RST_STREAM, GOAWAY",
            "source": HYPER, "direction": direction, "hex": peer.stream.hex()})
    for name, (description, data) in malformed().items():
        write("malformed", name, {"description": description, "source": MADE, "direction": "request",
                                  "hex": data.hex()})


if __name__ == "__main__":
    main()
