"""Loads the official Kaitai Struct compiler's outputs (Kaitai Python and Construct) as reference parsers.

Those modules import each other by bare file name (`import bracketed_timestamp`), or in Construct's
case not at all, so they are loaded here from their files with their imports supplied, instead of
putting generated/ on sys.path. They are for differential tests, benchmarks and `inspect`; the
runtime's own codecs never depend on them.
"""
from __future__ import annotations

import io
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

from inlong_proto.core import protocols

def _generated_dir() -> Path:
    from inlong_proto import generated

    return Path(generated.__file__).resolve().parent


GENERATED = _generated_dir()

BACKENDS = ("kaitai", "kaitai_debug", "construct")


class UnsupportedBackendError(RuntimeError):
    """A reference backend that cannot represent a spec (Construct has no bit fields)."""


@cache
def load(backend: str, spec_id: str) -> ModuleType:
    """The backend's module for one .ksy (by meta.id), with the modules it imports loaded first."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}")
    path = GENERATED / backend / f"{spec_id}.py"
    source = path.read_text()
    if "???" in source:  # the compiler writes ??? for what its target cannot express
        raise UnsupportedBackendError(f"the official compiler's {backend} output for {spec_id} is incomplete "
                                      f"(it has no equivalent for some construct, e.g. bit fields)")
    deps = {}
    for line in source.splitlines():
        if backend != "construct" and line.startswith("import ") and (GENERATED / backend / f"{line[7:]}.py").exists():
            deps[line[7:]] = load(backend, line[7:])
    if backend == "construct":  # references look like `lambda: other_spec` or `lambda: other_spec__type`
        for candidate in sorted((GENERATED / backend).glob("*.py")):
            name = candidate.stem
            if name != spec_id and (f"lambda: {name})" in source or f"lambda: {name}__" in source):
                deps[name] = load(backend, name)
    module = ModuleType(f"inlong_proto.generated.{backend}.{spec_id}")
    module.__file__ = str(path)
    if backend == "construct":
        for name, dep in deps.items():
            for key, value in vars(dep).items():
                if key == name or key.startswith(name + "__"):
                    setattr(module, key, value)
    saved = {name: sys.modules.get(name) for name in deps}
    sys.modules.update(deps)
    try:
        exec(compile(source, str(path), "exec"), module.__dict__)
    finally:
        for name, previous in saved.items():
            if previous is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = previous
    return module


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
