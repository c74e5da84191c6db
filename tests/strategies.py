"""Hypothesis strategies derived from the .ksy specs themselves (ranges, enums, switch cases)."""
from __future__ import annotations

from datetime import datetime
from functools import cache
from pathlib import Path

from hypothesis import strategies as st

from inlong_proto import protocols
from tools.ksygen.model import INT_RANGE, Loader, TypeSpec

SPECS = Path(__file__).resolve().parent.parent / "specs"


@cache
def _loader() -> Loader:
    return Loader(SPECS)


def _spec_type(protocol: str) -> TypeSpec:
    codec = protocols.get(protocol).codec
    relative = codec.__name__.split("inlong_proto.generated.codec.", 1)[1].replace(".", "/")
    return _loader().load(SPECS / f"{relative}.ksy").root


def _literal(value) -> int:
    return int(value, 0) if isinstance(value, str) else int(value)


def _int(attr, module) -> st.SearchStrategy:
    valid = attr.valid or {}
    if attr.enum is not None:
        enum_cls = getattr(module, attr.enum.class_name)
        return st.sampled_from(list(enum_cls))
    low, high = INT_RANGE[attr.fmt[1]]
    low = _literal(valid["min"]) if "min" in valid else low
    high = _literal(valid["max"]) if "max" in valid else high
    return st.integers(low, high)


def _datetimes() -> st.SearchStrategy:
    return st.datetimes(datetime(1, 1, 1), datetime(9999, 12, 31, 23, 59, 59, 999000)).map(
        lambda t: t.replace(microsecond=t.microsecond // 1000 * 1000))


def for_type(type_spec: TypeSpec, module) -> st.SearchStrategy:
    """Valid messages of a struct type; derived fields (lengths, discriminators) are left to encode."""
    from tools.ksygen.emit import _derived_fields

    derived = _derived_fields(type_spec)
    fields = {}
    for attr in type_spec.seq:
        if attr.kind == "contents" or attr.id in derived:
            continue
        if attr.kind == "int":
            fields[attr.id] = _int(attr, module)
        elif attr.kind == "user" and attr.user_type.python_type == "datetime":
            fields[attr.id] = _datetimes()
        elif attr.kind == "user":
            fields[attr.id] = for_type(attr.user_type, module)
        elif attr.kind == "switch":
            fields[attr.id] = st.one_of([for_type(case, module) for _, case in attr.case_types])
        elif attr.kind == "bytes":
            fields[attr.id] = st.binary(max_size=256)
        else:
            raise NotImplementedError(f"no strategy for {attr.kind} ({attr.where})")
    return st.builds(getattr(module, type_spec.class_name), **fields)


def frames(protocol: str) -> st.SearchStrategy:
    return for_type(_spec_type(protocol), protocols.get(protocol).codec)
