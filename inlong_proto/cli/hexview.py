"""Annotated hex dump: each field's offset, bytes and decoded value, for raw dumps and captures alike.

Frames are found with the runtime's own decoders; field offsets come from the official Kaitai compiler's
debug build of the same spec (generated/kaitai_debug), so the dump shows exactly what the spec says. Lists
(TubeMQ's blocks) are expanded element by element. EventMesh HTTP, which has no binary layout, is shown
line by line: start line, headers, body, then the fields EventMesh reads from it. In a capture each frame
comes with its flow, stream and time, at its offset in that direction's reassembled stream. Offsets are
decimal, as in every error message.
"""
from __future__ import annotations

from enum import IntEnum
from functools import cache
from typing import Iterable, Iterator, NamedTuple

import click

from inlong_proto.core import frames, protocols
from inlong_proto.backends import reference
from inlong_proto.capture import DETECT_BYTES, UNKNOWN, CaptureDecoder, classify, is_capture
from inlong_proto.core.plain import json_text, printable

PREVIEW = 16  # bytes of hex shown per row
MALFORMED_PREVIEW = 64


class Row(NamedTuple):
    offset: int
    length: int
    path: str
    value: str
    bits: tuple[int, int] | None = None  # a bit field: (bits before it in the bytes shown, its width)


@cache
def _bit_tables() -> dict[str, list[dict]]:
    """The generated codecs' BITS tables (each bit field: its run's first field, bits before it in the run,
    its width; from the spec's bN types), by class name, for the Kaitai debug classes of the same specs."""
    import importlib
    import pkgutil

    import inlong_proto.generated.codec as codec

    tables: dict[str, list[dict]] = {}
    for info in pkgutil.walk_packages(codec.__path__, codec.__name__ + "."):
        module = importlib.import_module(info.name)
        for cls in vars(module).values():
            if isinstance(cls, type) and cls.__module__ == module.__name__ and "BITS" in vars(cls):
                tables.setdefault(cls.__name__, []).append(cls.BITS)
    return tables


def bit_table(obj) -> dict:
    """The BITS of a Kaitai debug object's type: the generated class of that name whose bit fields it has."""
    fields = set(getattr(obj, "SEQ_FIELDS", ()))
    for table in _bit_tables().get(type(obj).__name__, ()):
        if set(table) <= fields:
            return table
    return {}


def _value_text(value) -> str:
    if isinstance(value, IntEnum):
        return f"{value.name} ({value.value})"
    if isinstance(value, (bytes, bytearray)):
        return repr(bytes(value))
    return repr(value)


def field_rows(obj, base: int = 0, path: str = "") -> Iterator[Row]:
    """Rows for every field of a Kaitai debug object, depth first, with absolute offsets; list elements
    are rows of their own (name[i]), and structs in them are walked too."""
    bits = bit_table(obj)
    for name in getattr(obj, "SEQ_FIELDS", []):
        span = obj._debug.get(name, {})
        if "start" not in span:
            continue
        value = getattr(obj, name, None)
        start, end = base + span["start"], base + span.get("end", span["start"])
        if name in bits:  # Kaitai's offsets are bytes: the spec's bit layout says which byte and which bits
            run, before, width = bits[name]
            first = base + obj._debug[run]["start"]  # a run of bit fields starts on a byte
            start = first + before // 8
            held = (before % 8 + width + 7) // 8
            if before % 8 == 0 and width % 8 == 0:  # whole bytes: shown as any field
                yield Row(start, held, path + name, _value_text(value))
            else:
                yield Row(start, held, path + name, _value_text(value), (before % 8, width))
            continue
        if isinstance(value, list):
            yield Row(start, end - start, path + name, f"{len(value)} items")
            for index, (item, item_span) in enumerate(zip(value, span.get("arr", []))):
                yield from _value_rows(obj, item, base, base + item_span["start"], base + item_span["end"],
                                       f"{path}{name}[{index}]")
        else:
            yield from _value_rows(obj, value, base, start, end, path + name)


def _value_rows(parent, value, base: int, start: int, end: int, path: str) -> Iterator[Row]:
    from kaitaistruct import KaitaiStruct

    if isinstance(value, KaitaiStruct):
        child_base = base if value._io is parent._io else start
        summary = getattr(value, "value", None) if "value" in dir(type(value)) else None
        yield Row(start, end - start, path, "" if summary is None else repr(summary))
        yield from field_rows(value, child_base, path + ".")
    else:
        yield Row(start, end - start, path, _value_text(value))


def frame_rows(protocol: str, frame, data: bytes) -> list[Row]:
    """The rows of one well-formed frame (or HTTP message); data: its bytes, frame.offset: where they start."""
    if protocol in protocols.STREAM_PROTOCOLS:  # by the registry's framing kind: HTTP/1.1 messages or HTTP/2 items
        rows = http2_rows if protocols.REGISTRY[protocol]["framing"] == "http2" else http_rows
        return list(rows(frame, data))
    parsed = reference.kaitai_parse(protocol, data, debug=True, direction=frame.direction)
    return list(field_rows(parsed, frame.offset))


def http_rows(message, data: bytes) -> Iterator[Row]:
    """An HTTP message's start line and headers (one row per line), its body, then what EventMesh reads."""
    head_end = data.find(b"\r\n\r\n")
    head = data[:head_end] if head_end >= 0 else data
    at = message.offset
    for index, line in enumerate(head.split(b"\r\n")):
        text = line.decode("latin-1")
        name, _, value = text.partition(":")
        yield Row(at, len(line) + 2, "start_line" if index == 0 else f"header.{name.strip()}",
                  repr(text if index == 0 else value.strip()))
        at += len(line) + 2
    if head_end >= 0:
        body = data[head_end + 4:]
        yield Row(at, 2, "end_of_head", "")
        if body:
            yield Row(at + 2, len(body), "body", f"{len(body)} bytes" + (", chunked" if message.chunked else ""))
    shown = {key: value for key, value in message.to_dict().items() if key in (
        "request_code", "route", "protocol_headers", "fields", "other_fields", "ret", "ret_code_name", "reply",
        "push", "warnings")}
    for key, value in shown.items():
        yield Row(message.offset, 0, f"eventmesh.{key}", json_text(value))


def http2_rows(item, data: bytes) -> Iterator[Row]:
    """An HTTP/2 item's rows (data: its bytes): each frame's header fields with their offsets from the Kaitai
    debug build of http2_frame.ksy, the payload, then what the item decoded (the gRPC call, message or error)."""
    import io

    from kaitaistruct import KaitaiStream

    from inlong_proto.eventmesh.h2 import HEADER_SIZE

    if item.message_type == "PREFACE":
        yield Row(item.offset, len(data), "preface", repr(bytes(data)))
        return
    parser = reference.load("kaitai_debug", "http2_frame").Http2Frame
    pos = 0
    while pos + HEADER_SIZE <= len(data):
        frame = parser(KaitaiStream(io.BytesIO(bytes(data[pos:]))))
        frame._read()
        yield from field_rows(frame, item.offset + pos, "" if pos == 0 else "continuation.")
        pos += HEADER_SIZE + frame.header.length
    shown = {key: value for key, value in item.to_dict().items() if key in (
        "info", "headers", "path", "notes", "stream_id", "index", "first_frame_offset", "size", "compressed",
        "encoding", "type", "inferred", "body", "requests", "responses", "status", "status_name", "status_message",
        "reset", "complete", "latency_ms", "trailers")}
    for key, value in shown.items():
        yield Row(item.offset, 0, f"grpc.{key}", json_text(value))


def _print_rows(data: bytes, rows: Iterable[Row], start: int) -> None:
    """data holds the frame's bytes, which begin at stream offset start."""
    for row in rows:
        depth = row.path.count(".")
        raw = data[row.offset - start:row.offset - start + row.length]
        shown = raw[:PREVIEW].hex(" ") + (" …" if len(raw) > PREVIEW else "")
        name = printable(row.path.rsplit(".", 1)[-1])  # an HTTP header's name is the frame's own text
        if row.bits is not None:  # as Wireshark shows a bit field: its bits in the byte(s), dots elsewhere
            click.echo(f"{row.offset:>8}  {shown:<50} {'  ' * depth}{bit_mask(raw, *row.bits)} = {name}: "
                       f"{printable(row.value)}")
            continue
        value = " = " + printable(row.value) if row.value else ""  # json_text leaves C1 controls raw
        click.echo(f"{row.offset:>8}  {shown:<50} {'  ' * depth}{name}{value}")


def bit_mask(raw: bytes, before: int, width: int) -> str:
    """The bits of raw, most significant first, a field's own (width of them after `before`) as 0 / 1 and
    the others as dots, in groups of four: `..1. ....`."""
    marks = []
    for index in range(len(raw) * 8):
        own = before <= index < before + width
        marks.append(str(raw[index // 8] >> (7 - index % 8) & 1) if own else ".")
    return " ".join("".join(marks[at:at + 4]) for at in range(0, len(marks), 4))


def _print_frame(protocol: str, frame, data: bytes) -> None:
    """One frame (data: its bytes) or one malformed span."""
    if frame.error is not None:
        click.echo(f"{frame.offset:>8}  MALFORMED {frame.length} bytes: {printable(str(frame.error))}")
        if data:
            click.echo(f"{'':>8}  {data[:MALFORMED_PREVIEW].hex(' ')}{' …' if len(data) > MALFORMED_PREVIEW else ''}")
        return
    click.echo(f"{frame.offset:>8}  frame {printable(str(frame.message_type))} "
               f"({frame.direction or 'either direction'}), {frame.length} bytes")
    _print_rows(data, frame_rows(protocol, frame, data), frame.offset)


def render(data: bytes, protocol: str, mode: str = "PERMISSIVE", direction: str | None = None, *,
           max_frame_size: int | None = None) -> None:
    """A raw dump of one protocol."""
    if not data:
        raise click.ClickException("empty: expected a raw dump or a .pcap / .pcapng capture")
    if protocol == "auto":
        protocol = classify(data[:DETECT_BYTES])
        if protocol == UNKNOWN:
            raise click.ClickException("no known protocol reads the first frames (expected a capture, or a raw dump "
                                       f"of {', '.join(protocols.every_name())}; name one with -p)")
    decoder = frames.stream_decoder(protocol, direction, mode=mode, max_frame_size=max_frame_size)
    for frame in decoder.feed(data) + decoder.close():
        _print_frame(protocol, frame, data[frame.offset:frame.offset + frame.length])


def render_capture(chunks: Iterable[bytes], protocol: str, mode: str = "PERMISSIVE",
                   direction: str | None = None, *, max_frame_size: int | None = None) -> None:
    """A pcap / pcapng capture: every frame of every TCP flow in capture order, under a line naming its
    flow, stream and time. Each direction's reassembled bytes are kept until its flow ends (inspect is for
    reading frames, not for bulk: use decode on large captures)."""
    streams: dict[tuple[int, str], bytearray] = {}

    def keep(flow, stream: str, chunk) -> None:
        buffer = streams.setdefault((flow.number, stream), bytearray())
        buffer += chunk.data if chunk.data is not None else bytes(chunk.length)  # a gap: its span shows no bytes

    decoder = CaptureDecoder(protocol, mode, on_bytes=keep, max_frame_size=max_frame_size)
    for chunk in chunks:
        _print_capture_items(decoder.feed(chunk), streams, direction)
    _print_capture_items(decoder.close(), streams, direction)


def _print_capture_items(items: list, streams: dict, direction: str | None) -> None:
    for item in items:
        frame, flow = item.frame, item.flow
        if flow is None:  # the container itself is broken from here on
            click.echo(f"file offset {item.file_offset}: MALFORMED capture: {printable(str(frame.error))}")
            continue
        if direction is not None and item.direction != direction:
            continue
        arrow = ">" if item.direction == "request" else "<"
        when = item.timestamp.isoformat() if item.timestamp is not None else "no time"
        click.echo(f"-- flow {flow.number} {flow.client}:{flow.client_port} {arrow} {flow.server}:{flow.server_port} "
                   f"{item.direction}, {frame.protocol}, {when}, packet at file offset {item.file_offset}")
        stream = streams.get((flow.number, item.direction), b"")
        data = bytes(stream[frame.offset:frame.offset + frame.length])
        kind = getattr(frame.error, "kind", None)
        _print_frame(frame.protocol, frame, b"" if kind == "gap" else data)


def inspect_file(chunks: Iterable[bytes], protocol: str, mode: str, direction: str | None, *,
                 max_frame_size: int | None = None) -> None:
    """What `inlong-proto inspect` does: a capture (told by its magic) flow by flow, else a raw dump."""
    chunks = iter(chunks)
    head = b""
    for chunk in chunks:
        head += chunk
        if len(head) >= 4:
            break
    if is_capture(head):
        render_capture(_prepend(head, chunks), protocol, mode, direction, max_frame_size=max_frame_size)
    else:
        render(head + b"".join(chunks), protocol, mode, direction, max_frame_size=max_frame_size)


def _prepend(head: bytes, chunks: Iterator[bytes]) -> Iterator[bytes]:
    yield head
    yield from chunks

