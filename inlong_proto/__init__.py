"""inlong-proto: spec-driven codecs for the Apache InLong and EventMesh wire protocols.

The codecs are generated from specs/ into inlong_proto.generated; this package is the small sans-IO
runtime around them (decode, encode, iter_frames, StreamDecoder), plus the CLI, the reference
endpoints and the Spark readers, which are thin adapters over that core.
"""
from .errors import (DecodeError, EncodeError, FrameTooLargeError, InlongProtoError, TruncatedError,
                     ValidationError)
from .frames import MODES, Frame, StreamDecoder, decode, encode, iter_frames
from .protocols import UnknownProtocolError
from .protocols import names as protocol_names

__all__ = [
    "MODES", "DecodeError", "EncodeError", "Frame", "FrameTooLargeError", "InlongProtoError", "StreamDecoder",
    "TruncatedError", "UnknownProtocolError", "ValidationError", "decode", "encode", "iter_frames",
    "protocol_names", "backend",
]
__version__ = "0.1.0"


def backend() -> str:
    """Which backend decodes: "native" (the compiled scanners generated from the specs, when built) or
    "python"; INLONG_PROTO_BACKEND=python forces the pure one. See inlong_proto.native."""
    from .native import backend as _backend

    return _backend()
