"""Annotated hex dump: each field's offset, bytes and decoded value.

Frames are found with the runtime's own scanner; field offsets come from the official Kaitai compiler's
debug build of the same spec (generated/kaitai_debug), so the dump shows exactly what the spec says.
"""
from __future__ import annotations

from enum import IntEnum
from typing import Iterator, NamedTuple

import click

from . import frames, reference


class Row(NamedTuple):
    offset: int
    length: int
    path: str
    value: str


def _value_text(value) -> str:
    if isinstance(value, IntEnum):
        return f"{value.name} ({value.value})"
    if isinstance(value, (bytes, bytearray)):
        return repr(bytes(value))
    return repr(value)


def field_rows(obj, base: int = 0, path: str = "") -> Iterator[Row]:
    """Rows for every field of a Kaitai debug object, depth first, with absolute offsets."""
    from kaitaistruct import KaitaiStruct

    for name in getattr(obj, "SEQ_FIELDS", []):
        span = obj._debug.get(name, {})
        if "start" not in span:
            continue
        value = getattr(obj, name, None)
        start, end = base + span["start"], base + span.get("end", span["start"])
        if isinstance(value, KaitaiStruct):
            child_base = base if value._io is obj._io else start
            summary = getattr(value, "value", None) if "value" in dir(type(value)) else None
            yield Row(start, end - start, path + name, "" if summary is None else repr(summary))
            yield from field_rows(value, child_base, path + name + ".")
        else:
            yield Row(start, end - start, path + name, _value_text(value))


def rows(data: bytes, protocol: str, mode: str = "PERMISSIVE") -> Iterator[tuple[frames.Frame, list[Row]]]:
    for frame in frames.iter_frames(data, protocol, mode=mode):
        if frame.error is not None:
            yield frame, []
            continue
        chunk = data[frame.offset:frame.offset + frame.length]
        parsed = reference.kaitai_parse(protocol, chunk, debug=True, direction=frame.direction)
        yield frame, list(field_rows(parsed, frame.offset))


def render(data: bytes, protocol: str, mode: str = "PERMISSIVE") -> None:
    for frame, field_list in rows(data, protocol, mode):
        if frame.error is not None:
            click.echo(f"{frame.offset:08x}  MALFORMED {frame.length} bytes: {frame.error}")
            click.echo(f"          {data[frame.offset:frame.offset + frame.length][:64].hex(' ')}")
            continue
        click.echo(f"{frame.offset:08x}  frame {frame.message_type} ({frame.direction or 'either direction'}), "
                   f"{frame.length} bytes")
        for row in field_list:
            depth = row.path.count(".")
            raw = data[row.offset:row.offset + row.length]
            shown = raw[:16].hex(" ") + (" …" if len(raw) > 16 else "")
            click.echo(f"{row.offset:08x}  {shown:<50} {'  ' * depth}{row.path.rsplit('.', 1)[-1]}"
                       f"{' = ' + row.value if row.value else ''}")
