"""The official Kaitai Struct compiler's outputs (Kaitai Python, its debug build and Construct) as reference parsers.

`make generate` makes them ordinary packages (tools/ksygen/references.py): inlong_proto.generated.kaitai,
.kaitai_debug and .construct, whose modules import each other package-relatively. They are imported here
by name, for differential tests, benchmarks and `inspect`; the runtime's own codecs never depend on them.
"""
from __future__ import annotations

import importlib
import io
from functools import cache
from types import ModuleType

from inlong_proto.core import protocols

BACKENDS = ("kaitai", "kaitai_debug", "construct")


class UnsupportedBackendError(RuntimeError):
    """A reference backend that cannot represent a spec (Construct has no bit fields)."""


@cache
def load(backend: str, spec_id: str) -> ModuleType:
    """The backend's module for one .ksy (by meta.id); UnsupportedBackendError where the compiler's output
    is incomplete (it writes ??? for what its target cannot express) or imports an incomplete one."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}")
    package = importlib.import_module(f"inlong_proto.generated.{backend}")
    if spec_id in package.INCOMPLETE:
        raise UnsupportedBackendError(package.INCOMPLETE[spec_id])
    return importlib.import_module(f"{package.__name__}.{spec_id}")


def frame_spec_id(protocol: str, direction: str | None = None) -> str:
    """The .ksy id of the frame layout for bytes sent in `direction` (the first layout if unknown)."""
    return protocols.get(protocol).candidates(direction)[0].module.__name__.rsplit(".", 1)[-1]


def kaitai_parse(protocol: str, data: bytes, debug: bool = False, direction: str | None = None):
    """Parse one frame with the Kaitai-generated parser (debug: with field offsets in `_debug`)."""
    from kaitaistruct import KaitaiStream

    spec_id = frame_spec_id(protocol, direction)
    module = load("kaitai_debug" if debug else "kaitai", spec_id)
    cls = getattr(module, "".join(part.capitalize() for part in spec_id.split("_")))
    obj = cls(KaitaiStream(io.BytesIO(data)))
    if debug:
        obj._read()
    return obj


def construct_parse(protocol: str, data: bytes, direction: str | None = None):
    spec_id = frame_spec_id(protocol, direction)
    return getattr(load("construct", spec_id), spec_id).parse(data)
