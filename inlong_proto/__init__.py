"""inlong-proto: spec-driven codecs for the Apache InLong and EventMesh wire protocols.

The codecs are generated from specs/ into inlong_proto.generated; this package is the small sans-IO
runtime around them (decode, encode, iter_frames, iter_batches, StreamDecoder), plus the CLI, the
reference endpoints and the Spark readers, which are thin adapters over that core. backend() says whether
the compiled scanners generated from the same specs (inlong_proto.backends.compiled) are in use.
"""
from inlong_proto.core import __version__
from inlong_proto.core.errors import (DecodeError, EncodeError, FrameTooLargeError, InlongProtoError, TruncatedError,
                                      ValidationError)
from inlong_proto.core.frames import MODES, Frame, StreamDecoder, decode, encode, iter_frames
from inlong_proto.backends import compiled_encode as _compiled_encode  # noqa: F401  (registers the C encoders)
from inlong_proto.backends.compiled import backend, iter_batches
from inlong_proto.core.protocols import UnknownProtocolError
from inlong_proto.core.protocols import names as protocol_names

__all__ = [
    "MODES", "DecodeError", "EncodeError", "Frame", "FrameTooLargeError", "InlongProtoError", "StreamDecoder",
    "TruncatedError", "UnknownProtocolError", "ValidationError", "decode", "encode", "iter_frames",
    "protocol_names", "backend", "iter_batches",
]

