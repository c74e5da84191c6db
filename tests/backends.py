"""The three independent decoders of one spec, each normalised to the runtime's to_dict() shape.

Normalisation walks the own codec's FIELDS only to know field names and kinds; the values come from
the Kaitai and Construct objects themselves.
"""
from __future__ import annotations

from datetime import datetime

from inlong_proto import decode
from inlong_proto.core import protocols
from inlong_proto.backends import reference
from inlong_proto.core.plain import render_bytes, render_datetime, to_plain

_PARTS = ("year", "month", "day", "hour", "minute", "second", "millisecond")


def own(protocol: str, data: bytes, direction: str | None = None) -> dict:
    return to_plain(decode(data, protocol, direction).message)


def _time(get) -> str:
    values = [get(part) for part in _PARTS]
    return render_datetime(datetime(*values[:6], values[6] * 1000))


def _kaitai(obj, cls) -> dict:
    out = {}
    for info in cls.FIELDS:
        value = getattr(obj, info.name)
        if info.kind == "enum":
            out[info.name] = value.name
        elif info.kind == "datetime":
            out[info.name] = _time(lambda part: getattr(value, part).value)
        elif info.kind == "switch":
            name, case = next((n, c) for n, c in info.detail if c.__name__ == type(value).__name__)
            out[info.name] = {name: _kaitai(value, case)}
        elif info.kind == "struct":
            out[info.name] = _kaitai(value, info.detail)
        elif info.kind == "list" and info.detail.kind == "struct":
            out[info.name] = [_kaitai(item, info.detail.detail) for item in value]
        elif info.kind == "list":
            out[info.name] = [render_bytes(v) if isinstance(v, bytes) else getattr(v, "name", v) for v in value]
        elif info.kind == "bytes":
            out[info.name] = render_bytes(value)
        else:
            out[info.name] = value
    return out


def _construct(container, cls) -> dict:
    out = {}
    for info in cls.FIELDS:
        value = container[info.name]
        if info.kind == "enum":
            out[info.name] = str(value)
        elif info.kind == "datetime":
            out[info.name] = _time(lambda part: value[part]["value"])
        elif info.kind == "switch":
            keys = {k for k in value if not k.startswith("_")}
            name, case = next((n, c) for n, c in info.detail if {f.name for f in c.FIELDS} <= keys)
            out[info.name] = {name: _construct(value, case)}
        elif info.kind == "struct":
            out[info.name] = _construct(value, info.detail)
        elif info.kind == "list" and info.detail.kind == "struct":
            out[info.name] = [_construct(item, info.detail.detail) for item in value]
        elif info.kind == "list":
            out[info.name] = [render_bytes(v) if isinstance(v, bytes) else v for v in value]
        elif info.kind == "bytes":
            out[info.name] = render_bytes(value)
        else:
            out[info.name] = value
    return out


def kaitai(protocol: str, data: bytes, direction: str | None = None) -> dict:
    return _kaitai(reference.kaitai_parse(protocol, data, direction=direction),
                   protocols.get(protocol).frame_type_for(direction))


def construct(protocol: str, data: bytes, direction: str | None = None) -> dict:
    return _construct(reference.construct_parse(protocol, data, direction),
                      protocols.get(protocol).frame_type_for(direction))


ALL = {"own": own, "kaitai": kaitai, "construct": construct}
