"""Writes tests/vectors/eventmesh/frame/{valid,malformed}/*.json: EventMeshFrame vectors made from upstream's
layout, independently of the generated codec.

`java_encode` below follows EventMeshFrame.encode() (apache/eventmesh@0be4e8369dac
eventmesh-common/src/main/java/org/apache/eventmesh/common/wire/EventMeshFrame.java) step by step, in plain
int.to_bytes: magic 0xEF, version 1, msgType, flags (one byte each), seq (putInt, signed), the map's size
(putShort), the data's length (putInt), then per entry in the map's insertion order putShort(name bytes),
name, putInt(value bytes), value (String.getBytes(UTF_8)), then the data. The attribute lists below are the
maps upstream's factories build (fromRequest, fromChunk, fromCloudEvent / event), in the order they put them.
Malformed vectors are valid frames damaged at one named place; each says in `upstream` what upstream's decode
does with it (throws, or reads it leniently where this spec is stricter). Those statements were checked with
tests/tools/java/EventMeshFrameCheck.java, a Java 17 program of ours making the same ByteBuffer, LinkedHashMap and
String(UTF_8) calls as upstream's decode and encode (not upstream's class): every valid vector decodes and
re-encodes to the same bytes except event_duplicate_name (the map keeps one "id"). Run this from the repository
root to rewrite the files:

    .venv/bin/python tests/tools/make_eventmesh_frame_vectors.py
"""
from __future__ import annotations

import json
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "vectors" / "eventmesh" / "frame"


def java_encode(msg_type: int, flags: int, seq: int, attrs: list[tuple[str, str]], data: bytes) -> bytes:
    out = bytes([0xEF, 1, msg_type, flags]) + seq.to_bytes(4, "big", signed=True)
    out += len(attrs).to_bytes(2, "big") + len(data).to_bytes(4, "big", signed=True)
    for name, value in attrs:
        n, v = name.encode("utf-8"), value.encode("utf-8")
        out += len(n).to_bytes(2, "big") + n + len(v).to_bytes(4, "big", signed=True) + v
    return out + data


CE = [("specversion", "1.0"), ("id", "e-1"), ("source", "/orders"), ("type", "com.example.created"),
      ("datacontenttype", "application/json"), ("subject", "orders"), ("time", "2026-01-02T03:04:05.678Z"),
      ("emttl", "4000"), ("emtenantid", "t1")]
VALID = {
    "event_cloudevent": ("A CloudEvent captured by fromCloudEvent: its attributes, then its extensions, then the JSON data.",
                         (3, 0, 0, CE, b'{"orderId":42}')),
    "event_security_stub": ("The runtime's security-check frame: EventMeshFrame.event(emptyMap, new byte[0]), 14 bytes.",
                            (3, 0, 0, [], b"")),
    "event_order_kept": ("Attribute order is the writer's (a LinkedHashMap), not sorted.",
                         (3, 0, 0, [("zeta", "1"), ("alpha", "2"), ("mid", "3")], b"x")),
    "event_binary_data": ("EVENT data is raw bytes: not UTF-8 here, shown as base64.",
                          (3, 0, 0, [("id", "b-1"), ("datacontenttype", "application/octet-stream")], bytes([0, 0xFF, 0xC3, 0x28]))),
    "event_duplicate_name": ("A name written twice (no upstream encode does this): both kept on the wire, the map keeps the last value.",
                             (3, 0, 0, [("id", "first"), ("type", "t"), ("id", "second")], b"")),
    "event_empty_name_value": ("An empty name and an empty value are legal lengths of 0.",
                               (3, 0, 0, [("", "")], b"")),
    "stream_req": ("fromRequest: sid, replyTo, model, conv, and the prompt as UTF-8 data (2-, 3- and 4-byte characters).",
                   (1, 0, 0, [("sid", "s-9"), ("replyTo", "agent.reply"), ("model", "m-1"), ("conv", "c-1")],
                    "héllo 世界 😀".encode("utf-8"))),
    "stream_chunk": ("fromChunk: seq 7, sid and etype, the chunk text as data.",
                     (2, 0, 7, [("sid", "s-9"), ("etype", "token")], b"Hello")),
    "stream_chunk_terminal": ("A terminal chunk: done, hasError and hasMeta (flags 0x07), sid, err, etype, meta in fromChunk's order.",
                              (2, 7, 12, [("sid", "s-9"), ("err", "boom"), ("etype", "error"), ("meta", '{"tokens":3}')], b"")),
    "stream_chunk_timeout": ("The runtime's timeout chunk as a frame: seq -1 (a signed int), done and hasError, err timeout, no data.",
                             (2, 3, -1, [("sid", "s-9"), ("err", "timeout")], b"")),
}


def damaged(name: str, at: int, new: bytes) -> bytes:
    frame = java_encode(*VALID[name][1])
    return frame[:at] + new + frame[at + len(new):]


UPSTREAM = {  # what upstream's decode does (EventMeshFrameCheck.java)
    "bad_magic": "throws IllegalArgumentException (bad frame magic)",
    "bad_version": "throws IllegalArgumentException (unsupported frame version)",
    "unknown_msg_type": "decodes it (msgType is not checked); toCloudEvent/toChunk/toStreamRequest refuse it",
    "reserved_flag": "decodes it (flags are not checked)",
    "negative_data_len": "throws NegativeArraySizeException",
    "data_len_over_limit": "throws BufferUnderflowException here (no size limit of its own)",
    "negative_value_len": "throws NegativeArraySizeException",
    "truncated_header": "throws IllegalArgumentException (frame too short)",
    "truncated_name": "throws BufferUnderflowException",
    "truncated_data": "throws BufferUnderflowException",
    "key_count_too_large": "throws BufferUnderflowException",
    "invalid_utf8_name": "decodes it with U+FFFD in the name",
    "overlong_utf8_value": "decodes it with U+FFFD in the value",
    "surrogate_utf8_value": "decodes it with U+FFFD in the value",
}
MALFORMED = {
    # name: (description, bytes, error class, offset, field path)
    "bad_magic": ("Magic 0xEE instead of 0xEF (upstream: bad frame magic).",
                  damaged("stream_chunk", 0, b"\xee"), "ValidationError", 0, "magic"),
    "bad_version": ("Version 2 (upstream: unsupported frame version).",
                    damaged("stream_chunk", 1, b"\x02"), "ValidationError", 1, "version"),
    "unknown_msg_type": ("msgType 4: upstream's decode takes it, but nothing writes or reads it; refused.",
                         damaged("stream_chunk", 2, b"\x04"), "ValidationError", 2, "msg_type"),
    "reserved_flag": ("Flag bit 3 (reserved, never written).",
                      damaged("stream_chunk", 3, b"\x08"), "ValidationError", 3, "flags"),
    "negative_data_len": ("dataLen 0xFFFFFFFF, -1 as Java's getInt reads it (NegativeArraySizeException upstream).",
                          damaged("stream_chunk", 10, b"\xff\xff\xff\xff"), "ValidationError", 10, "data_len"),
    "data_len_over_limit": ("dataLen 4194291: the frame could not fit the 4 MiB frame limit.",
                            damaged("event_security_stub", 10, (4194291).to_bytes(4, "big")), "ValidationError", 10, "data_len"),
    "negative_value_len": ("The first attribute's valLen is negative.",
                           damaged("stream_chunk", 14 + 2 + 3, b"\x80\x00\x00\x00"), "ValidationError", 19, "attributes[0].value_len"),
    "truncated_header": ("10 of the 14 header bytes.", java_encode(*VALID["stream_chunk"][1])[:10],
                         "TruncatedError", 10, ""),
    "truncated_name": ("The first name claims 200 bytes; 5 are left before the input ends.",
                       damaged("event_order_kept", 14, b"\x00\xc8")[:21], "TruncatedError", 21, "attributes[0].name"),
    "truncated_data": ("The data claims 5 bytes, 2 are there.", java_encode(*VALID["stream_chunk"][1])[:-3],
                       "TruncatedError", None, "data"),
    "key_count_too_large": ("keyCount 3 with two attributes and 5 data bytes after them: the third attribute runs off the end.",
                            damaged("stream_chunk", 8, b"\x00\x03"), "TruncatedError", None, "attributes[2]"),
    "invalid_utf8_name": ("A name of 0xC3 0x28 (an invalid UTF-8 sequence; Java would read U+FFFD).",
                          damaged("stream_chunk", 16, b"\xc3\x28"), "ValidationError", 16, "attributes[0].name"),
    "overlong_utf8_value": ("A value holding the overlong 0xC0 0xAF ('/' in two bytes): not UTF-8.",
                            damaged("stream_chunk", 23, b"\xc0\xaf"), "ValidationError", 23, "attributes[0].value"),
    "surrogate_utf8_value": ("A value holding ED A0 80, a UTF-16 surrogate in UTF-8 form: not UTF-8.",
                             damaged("stream_chunk", 23, b"\xed\xa0\x80"), "ValidationError", 23, "attributes[0].value"),
}


def main() -> None:
    for kind in ("valid", "malformed"):
        for old in (OUT / kind).glob("*.json"):
            old.unlink()
    for name, (description, args) in VALID.items():
        msg_type, flags, seq, attrs, data = args
        vector = {"description": description, "hex": java_encode(*args).hex(), "protocol": "eventmesh-frame",
                  "direction": None, "message_type": {1: "stream_req", 2: "stream_chunk", 3: "event"}[msg_type],
                  "attributes": [list(pair) for pair in attrs], "seq": seq, "flags": flags,
                  "data_hex": data.hex()}
        (OUT / "valid" / f"{name}.json").write_text(json.dumps(vector, indent=2, ensure_ascii=False) + "\n")
    for name, (description, data, error, offset, field) in MALFORMED.items():
        if error == "TruncatedError":  # decode() of one frame says where the input ends, not which field ran off
            offset, field = len(data), ""
        vector = {"description": description, "hex": data.hex(), "protocol": "eventmesh-frame", "direction": None,
                  "error": error, "offset": offset, "field": field, "upstream": UPSTREAM[name]}
        (OUT / "malformed" / f"{name}.json").write_text(json.dumps(vector, indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
