"""The ground floor: the codec API (decode, encode, iter_frames), Frame, the stream-decoder contract, errors, plain
values, the registry reader (protocols), detection, the Arrow schemas and the byte sources. It imports nothing
else of inlong_proto but the generated codecs; every floor above builds on it."""
