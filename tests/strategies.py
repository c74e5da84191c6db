"""Hypothesis strategies derived from the .ksy specs themselves (ranges, enums, switch cases, lists)."""
from __future__ import annotations

import importlib
from datetime import datetime
from functools import cache
from pathlib import Path

from hypothesis import strategies as st

from inlong_proto.core import protocols
from tools.ksygen.emit import _derived_fields, _distinct_cases
from tools.ksygen.model import INT_RANGE, Loader, TypeSpec

SPECS = Path(__file__).resolve().parent.parent / "specs"


@cache
def _loader() -> Loader:
    return Loader(SPECS)


def _spec_type(module_name: str) -> TypeSpec:
    relative = module_name.split("inlong_proto.generated.codec.", 1)[1].replace(".", "/")
    return _loader().load(SPECS / f"{relative}.ksy").root


def _module(type_spec: TypeSpec):
    return importlib.import_module("inlong_proto.generated.codec." + type_spec.spec.module)


def _literal(value) -> int:
    return int(value, 0) if isinstance(value, str) else int(value)


def _int(attr, owner: TypeSpec) -> st.SearchStrategy:
    valid = attr.valid or {}
    if attr.enum is not None:
        enum_cls = getattr(_module(attr.enum.owner), attr.enum.class_name)
        if valid.get("in-enum") or attr.kind == "bits":
            return st.sampled_from(list(enum_cls))
    if attr.kind == "bits":
        return st.booleans() if attr.bits == 1 else st.integers(0, (1 << attr.bits) - 1)
    low, high = INT_RANGE[attr.fmt[1]]
    low = _literal(valid["min"]) if "min" in valid else low
    high = _literal(valid["max"]) if "max" in valid else high
    if "any-of" in valid:
        return st.sampled_from([_literal(v) for v in valid["any-of"]])
    return st.integers(low, high)


def _datetimes() -> st.SearchStrategy:
    return st.datetimes(datetime(1, 1, 1), datetime(9999, 12, 31, 23, 59, 59, 999000)).map(
        lambda t: t.replace(microsecond=t.microsecond // 1000 * 1000))


def _element(attr, owner: TypeSpec) -> st.SearchStrategy:
    if attr.kind in ("int", "bits"):
        return _int(attr, owner)
    if attr.kind == "user" and attr.user_type.python_type == "datetime":
        return _datetimes()
    if attr.kind == "user":
        return for_type(attr.user_type)
    if attr.kind == "switch":
        return st.one_of([for_type(case) for case in _distinct_cases(attr)])
    if attr.kind == "bytes":
        return st.binary(max_size=64)
    if attr.kind == "str":
        return st.text(st.characters(codec=attr.encoding.lower().replace("ascii", "ascii")), max_size=32)
    raise NotImplementedError(f"no strategy for {attr.kind} ({attr.where})")


def for_type(type_spec: TypeSpec) -> st.SearchStrategy:
    """Valid messages of a struct type; derived fields (lengths, counts, discriminators) are left to encode.

    Types whose spec adds checks a field-by-field strategy cannot see (expressions over several
    fields) are filtered by encoding them: what encode refuses is not a valid message.
    """
    derived = _derived_fields(type_spec)
    fields = {}
    for attr in type_spec.seq:
        if attr.kind == "contents" or attr.id in derived:
            continue
        element = _element(attr, type_spec)
        fields[attr.id] = st.lists(element, max_size=4).map(tuple) if attr.repeat else element
    return st.builds(getattr(_module(type_spec), type_spec.class_name), **fields)


def frames(protocol: str, direction: str | None = None) -> st.SearchStrategy:
    codec = protocols.get(protocol).candidates(direction)[0]
    return for_type(_spec_type(codec.module.__name__))
