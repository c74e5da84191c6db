"""The checks every module generated from a JSON Schema (tools/ksygen/jsonschema_codegen.py) calls: kept in the
runtime once rather than written into generated/ beside them."""
from __future__ import annotations

import base64
import binascii
import re
from datetime import datetime

from inlong_proto.core.errors import ValidationError

ABSENT = object()  # a key not present in the JSON object (as opposed to null)
INT32 = (-2**31, 2**31 - 1)
_DIGITS = re.compile(r"^[+-]?[0-9]+$")
_DATE_TIME = re.compile(r"^([0-9]{4}-[0-9]{2}-[0-9]{2})[Tt]([0-9]{2}:[0-9]{2}):([0-9]{2})(\.[0-9]+)?"
                        r"([Zz]|[+-][0-9]{2}:[0-9]{2})$")
_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s]*$")
_URI_REFERENCE = re.compile(r"^[^\s]*$")


def key(path: str, name: str) -> str:
    """The JSON path of a member (dotted, as the project names fields)."""
    return f"{path}.{name}" if path else name


def kind(value) -> str:
    """The JSON type of a parsed value, for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def fail(offset: int, path: str, reason: str):
    raise ValidationError(offset, path, reason)


def string(value, path: str, offset: int, coerce: bool) -> str:
    """A JSON string; with Jackson coercion a number or boolean reads as its text."""
    if type(value) is str:
        return value
    if coerce and isinstance(value, (bool, int, float)):
        return ("true" if value else "false") if isinstance(value, bool) else repr(value)
    fail(offset, path, f"expected a string, got {kind(value)}")


def integer(value, path: str, offset: int, coerce: bool, low=None, high=None) -> int:
    """A JSON integer; with Jackson coercion also a digit string, "" (0) or a number (truncated)."""
    if coerce and type(value) is str:
        if value == "":
            value = 0
        elif _DIGITS.match(value):
            value = int(value)
        else:
            fail(offset, path, f"{value!r} is not an integer")
    elif coerce and type(value) is float and value == value and abs(value) != float("inf"):
        value = int(value)
    if type(value) is not int:
        fail(offset, path, f"expected an integer, got {kind(value)}")
    if low is not None and value < low or high is not None and value > high:
        fail(offset, path, f"{value} is outside [{low}, {high}]")
    return value


def number(value, path: str, offset: int) -> float | int:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        fail(offset, path, f"expected a number, got {kind(value)}")
    return value


def boolean(value, path: str, offset: int) -> bool:
    if type(value) is not bool:
        fail(offset, path, f"expected a boolean, got {kind(value)}")
    return value


def union(value, path: str, offset: int, allowed: tuple) -> object:
    """A scalar whose JSON type is one of `allowed` (kept as it is)."""
    found = kind(value)
    if found not in allowed and not (found == "integer" and "number" in allowed):
        fail(offset, path, f"expected {' or '.join(allowed)}, got {found}")
    return value


def array(value, path: str, offset: int) -> list:
    if type(value) is not list:
        fail(offset, path, f"expected an array, got {kind(value)}")
    return value


def obj(value, path: str, offset: int) -> dict:
    if type(value) is not dict:
        fail(offset, path, f"expected an object, got {kind(value)}")
    return value


def length(value: str, path: str, offset: int, low, high) -> None:
    if low is not None and len(value) < low or high is not None and len(value) > high:
        fail(offset, path, f"length {len(value)} is outside [{low}, {high}]")


def pattern(value: str, path: str, offset: int, regex) -> None:
    if not regex.search(value):
        fail(offset, path, f"{value!r} does not match {regex.pattern!r}")


def date_time(value: str, path: str, offset: int) -> None:
    """RFC 3339 date-time (format: date-time)."""
    match = _DATE_TIME.match(value)
    if match:
        date, hour_minute, second, fraction, zone = match.groups()
        zone = "+00:00" if zone in "Zz" else zone
        try:
            datetime.fromisoformat(f"{date}T{hour_minute}:{min(int(second), 59):02d}{zone}")
            if int(second) <= 60:
                return
        except ValueError:
            pass
    fail(offset, path, f"{value!r} is not an RFC 3339 date-time")


def uri(value: str, path: str, offset: int) -> None:
    if not _URI.match(value):
        fail(offset, path, f"{value!r} is not an absolute URI")


def uri_reference(value: str, path: str, offset: int) -> None:
    if not _URI_REFERENCE.match(value):
        fail(offset, path, f"{value!r} is not a URI reference")


def base64_text(value: str, path: str, offset: int) -> None:
    try:
        base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        fail(offset, path, "not valid base64")


def members(value: str, path: str, offset: int, options: tuple) -> None:
    if value not in options:
        fail(offset, path, f"{value!r} is not one of {', '.join(options)}")
