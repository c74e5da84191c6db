"""Where a frame may begin: a byte pattern from the spec's leading fields (Spicy's `&synchronize`, derived).

After a malformed position the scanner looks for the next frame. Trying every offset costs one decode
(and one exception) per byte; the pattern lets it jump straight to the next offset whose leading bytes
pass the checks the decoder makes first: `contents`, enum membership, integer `valid` ranges (as byte
classes) and, where the frame's size is a leading field plus a constant, a size within max_frame_size.
It is a superset: an offset it skips holds a header the decoder refuses whatever follows, so the
scanner's output is the same as stepping byte by byte, only faster. Anything the pattern cannot say
(a float, a check that reads other fields, a wide bit group) matches any bytes; a frame that does not
begin with fixed-size fields gets an empty pattern, which matches everywhere.
"""
from __future__ import annotations

from .expr import _linear
from .model import INT_RANGE, Attr, TypeSpec

_MAX_VALUES = 64  # an enum or any-of with more values than this is matched as its [min, max] range


def leading(type_spec: TypeSpec) -> tuple[list[Attr], int]:
    """The fields the decoder reads and checks in its first run, before anything sized (what the pattern
    describes), and their size: the bytes the decoder needs before it judges a position at all."""
    fields, bits = [], 0
    for attr in type_spec.seq:
        inlined = attr.kind == "user" and attr.user_type.python_type != "struct"
        if attr.repeat or not (inlined or attr.kind in ("int", "float", "contents", "bits")):
            break
        fields.append(attr)  # an inlined type is read and checked with the run; the pattern skips it
        bits += attr.bits if attr.kind == "bits" else attr.size * 8
    return fields, bits // 8


def pattern(type_spec: TypeSpec, bounds: dict[str, tuple[int, int]]) -> str:
    """The regex source (bytes pattern, DOTALL) matching every position where `type_spec` may begin.

    bounds: field id -> [low, high] a length field must lie in for the frame to fit max_frame_size.
    """
    fields, _ = leading(type_spec)
    parts, group = [], []
    for attr in fields:
        if attr.kind == "bits":
            group.append(attr)
            if sum(a.bits for a in group) % 8 == 0:
                parts.append(_bits(group))
                group = []
            continue
        if attr.kind == "contents":
            parts.append("".join(_byte(b) for b in attr.contents))
        elif attr.kind == "int":
            parts.append(_int(attr, bounds.get(attr.id)))
        else:
            parts.append("." * attr.size)
    return "".join(parts)


def size_bounds(header: list[Attr], body: Attr, header_size: int, trailer: int, limit: int) -> dict:
    """The range of the one header field a frame's size is linear in, for the frame to be at most
    `limit` bytes and its body not negative (the decoder refuses both: FrameTooLargeError, negative size)."""
    linear = _linear(body.size_expr)
    if linear is None or len(linear[0]) != 1:
        return {}
    (chain, factor), constant = next(iter(linear[0].items())), linear[1]
    target = next((a for a in header if a.id == chain[0] and a.kind == "int"), None)
    if target is None or len(chain) != 1 or factor <= 0:
        return {}
    # body = factor * field + constant; 0 <= body <= limit - header_size - trailer
    low = -(constant // factor)  # ceil(-constant / factor)
    high = (limit - header_size - trailer - constant) // factor
    return {target.id: (low, high)}


def _byte(value: int) -> str:
    """A byte in a regex: letters and digits as themselves (a magic stays readable), others escaped."""
    char = chr(value)
    return char if char.isascii() and char.isalnum() else f"\\x{value:02x}"


def _class(values: set[int]) -> str:
    """A set of byte values as one regex item: a literal, `.`, or a class of ranges."""
    if len(values) == 256:
        return "."
    if not values:
        return "(?!)"
    ordered = sorted(values)
    if len(ordered) == 1:
        return _byte(ordered[0])
    spans, start = [], ordered[0]
    for previous, value in zip(ordered, ordered[1:] + [None]):
        if value != previous + 1:
            spans.append(_byte(start) if start == previous else f"{_byte(start)}-{_byte(previous)}")
            start = value
    return "[" + "".join(spans) + "]"


def _bits(group: list[Attr]) -> str:
    """A byte of bit fields: the byte values whose fields all pass their checks. Wider groups: any bytes."""
    width = sum(a.bits for a in group)
    if width != 8:
        return "." * (width // 8)
    allowed = set()
    for byte in range(256):
        shift, ok = 8, True
        for attr in group:
            shift -= attr.bits
            value = (byte >> shift) & ((1 << attr.bits) - 1)
            ok = ok and _passes(attr, value)
        if ok:
            allowed.add(byte)
    return _class(allowed)


def _passes(attr: Attr, value: int) -> bool:
    low, high, values = _limits(attr, None)
    return (low is None or value >= low) and (high is None or value <= high) and (values is None or value in values)


def _limits(attr: Attr, bound: tuple[int, int] | None) -> tuple[int | None, int | None, set | None]:
    """[low, high] and the allowed set (None: any) that the decoder's first checks put on a field."""
    valid = attr.valid or {}
    low = valid.get("min") if isinstance(valid.get("min"), int) else None
    high = valid.get("max") if isinstance(valid.get("max"), int) else None
    values = None
    if attr.enum is not None and valid.get("in-enum"):
        values = set(attr.enum.members)
    if isinstance(valid.get("eq"), int) and not isinstance(valid.get("eq"), bool):
        values = {valid["eq"]} if values is None else values & {valid["eq"]}
    if "any-of" in valid and all(isinstance(v, int) and not isinstance(v, bool) for v in valid["any-of"]):
        values = set(valid["any-of"]) if values is None else values & set(valid["any-of"])
    if bound is not None:
        low = bound[0] if low is None else max(low, bound[0])
        high = bound[1] if high is None else min(high, bound[1])
    return low, high, values


def _int(attr: Attr, bound: tuple[int, int] | None) -> str:
    fmt, width = attr.fmt, attr.size
    order, code = fmt[0] if fmt[0] in "<>" else ">", fmt[-1]
    if fmt[0] not in "<>" and width > 1:  # a byte order decided while decoding: say nothing
        return "." * width
    type_low, type_high = INT_RANGE[code]
    low, high, values = _limits(attr, bound)
    low = type_low if low is None else max(low, type_low)
    high = type_high if high is None else min(high, type_high)
    if values is not None:
        values = {v for v in values if low <= v <= high}
        if len(values) <= _MAX_VALUES:
            alternatives = [_encoded(v, width, order) for v in sorted(values)]
            return _alternation(["".join(_byte(b) for b in encoded) for encoded in alternatives])
        low, high = min(values), max(values)
    if low > high:
        return "(?!)"
    if (low, high) == (type_low, type_high):
        return "." * width
    spans = []
    for lo, hi in _unsigned(low, high, width):
        for sequence in _sequences(lo, hi, width):
            spans.append("".join(_class(set(range(a, b + 1))) for a, b in
                                 (sequence if order == ">" else reversed(sequence))))
    return _alternation(spans)


def _alternation(options: list[str]) -> str:
    if not options:
        return "(?!)"
    return options[0] if len(options) == 1 else "(?:" + "|".join(options) + ")"


def _encoded(value: int, width: int, order: str) -> bytes:
    return (value % (1 << (8 * width))).to_bytes(width, "big" if order == ">" else "little")


def _unsigned(low: int, high: int, width: int) -> list[tuple[int, int]]:
    """A signed range as ranges of the unsigned (two's complement) values that encode it."""
    modulus = 1 << (8 * width)
    out = []
    if low < 0:
        out.append((low + modulus, min(high, -1) + modulus))
    if high >= 0:
        out.append((max(low, 0), high))
    return out


def _sequences(low: int, high: int, width: int) -> list[list[tuple[int, int]]]:
    """[low, high] as big-endian byte-range sequences, most significant byte first (the classic
    number-range-to-regex split, in base 256)."""
    if width == 1:
        return [[(low, high)]]
    unit = 1 << (8 * (width - 1))
    top_low, rest_low = divmod(low, unit)
    top_high, rest_high = divmod(high, unit)
    if top_low == top_high:
        return [[(top_low, top_low)] + s for s in _sequences(rest_low, rest_high, width - 1)]
    out, tail = [], []
    if rest_low:
        out += [[(top_low, top_low)] + s for s in _sequences(rest_low, unit - 1, width - 1)]
        top_low += 1
    if rest_high != unit - 1:
        tail = [[(top_high, top_high)] + s for s in _sequences(0, rest_high, width - 1)]
        top_high -= 1
    if top_low <= top_high:
        out.append([(top_low, top_high)] + [(0, 255)] * (width - 1))
    return out + tail
