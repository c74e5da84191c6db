"""The ground floor: the codec API (decode, encode, iter_frames), Frame, the stream-decoder contract, errors, plain
values, the registry reader (protocols), detection, the Arrow schemas and the byte sources. It imports nothing
else of inlong_proto but the generated codecs; every floor above builds on it."""

__version__ = "0.1.0"  # the package's version (pyproject.toml), here so that any floor may name it
