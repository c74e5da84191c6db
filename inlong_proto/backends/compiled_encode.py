"""The compiled encoders: ``inlong_proto.encode`` through C when it can, the pure codec otherwise.

`make generate` writes C encoders from the .ksy specs (tools/ksygen/cgen_encode.py,
generated/native/encode.c); setup.py builds them into the ``encode`` part of the one extension
(``inlong_proto._compiled.encode``, backends.compiled.part) when a C compiler is present. ``encode_<spec>(message)`` returns the frame's bytes for a message the pure
encoder accepts, and None for anything else (a construct it does not model, a value it would refuse):
the pure encoder then runs and raises its own EncodeError, so the errors are the pure path's by
construction. The compiled encoders run when ``backends.compiled.backend()``, the one switch, is "native"
(INLONG_PROTO_BACKEND=python turns them off with the scanners).
"""
from __future__ import annotations

from functools import cache

from inlong_proto.backends.compiled import backend, part
from inlong_proto.core.frames import register_encoder


@cache
def compiled(module):
    """The compiled encode function of a generated frame codec module, or None (not built, or the
    generator could not compile that spec)."""
    extension = part("encode")
    spec = module.__name__.rsplit(".", 1)[1]
    if extension is None or spec not in extension.SPECS:
        return None
    return getattr(extension, f"encode_{spec}")


def encode(module, message) -> bytes:
    """``module.encode(message)``: the same bytes or the same error, through C where it applies."""
    if backend() == "native":
        function = compiled(module)
        if function is not None:
            data = function(message)
            if data is not None:
                return data
    return module.encode(message)


register_encoder(encode)  # inlong_proto.encode goes through here once the package is imported (its __init__ does)
