meta:
  id: http2_frame
  title: HTTP/2 frame (the 9-byte frame header, then the payload), as EventMesh gRPC sends it
  license: Apache-2.0
  ks-version: "0.11"
  endian: be
-inlong:
  registry:
    protocol: eventmesh-grpc
    framing: http2
    doc: Apache EventMesh's gRPC API (HTTP/2 frames, HPACK header blocks, gRPC messages and calls)
    ports: [10205]  # the runtime's gRPC port
    detect:
      order: 10  # the client's connection preface; else HTTP/2 frames from the first byte (the probe)
      opening: "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
      probe: inlong_proto.eventmesh.h2:looks_like_http2
    module: inlong_proto.eventmesh.h2
    audit-reader: inlong_proto.eventmesh.audit:grpc_events
    vectors: eventmesh/grpc
    connection: inlong_proto.eventmesh.h2:H2Connection  # both directions share the streams and their calls
    # decode's table: the frame type or gRPC method, the item's kind and stream, then a call's outcome
    summary: ["{message_type}", "{kind}", "stream {stream_id}", "[{flags}]", "{size} bytes", "→ {status_name}",
              "{status_message}", "{latency_ms} ms"]
doc: |
  One HTTP/2 frame (RFC 9113 section 4.1): a 9-byte header (payload length, type, flags, reserved bit and
  stream identifier) and the payload. EventMesh's gRPC endpoint (default port 10205) speaks gRPC over
  HTTP/2; inlong_proto.eventmesh.h2 frames each direction of a connection with this spec and hands the
  payloads to python-hyper's hyperframe (payload semantics per type) and hpack (header blocks).

  The client's connection preface (the 24 bytes "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", RFC 9113 section
  3.4) comes before its first frame and is not a frame; the reader takes it off first.

  The flag bits are named once here for every type: 0x01 is END_STREAM on DATA and HEADERS and ACK on
  SETTINGS and PING; 0x04 END_HEADERS (HEADERS, PUSH_PROMISE, CONTINUATION); 0x08 PADDED (DATA, HEADERS,
  PUSH_PROMISE); 0x20 PRIORITY (HEADERS). The other bits are unused and must be ignored.

  Length: a receiver may refuse a frame longer than its SETTINGS_MAX_FRAME_SIZE (16384 unless raised,
  at most 16777215); a passive reader does not know every setting, so it takes any 24-bit length.
doc-ref: "RFC 9113 section 4.1 (Frame Format), section 6 (Frame Definitions), section 11.2 (Frame Type Registry)"
seq:
  - id: header
    type: frame_header
    doc: The 9-byte frame header.
  - id: payload
    size: header.length
    doc: The payload, header.length bytes; its layout depends on header.type (hyperframe reads it).
types:
  frame_header:
    doc: The fixed 9-byte frame header.
    seq:
      - id: length
        type: b24
        doc: Payload bytes (the 9 header bytes not included), 0 to 16777215.
      - id: type
        type: b8
        enum: frame_type
        doc: The frame type (one byte); unknown types must be ignored (RFC 9113 section 4.1).
      - id: unused_0x80
        type: b1
        doc: Flag 0x80, not defined for any type.
      - id: unused_0x40
        type: b1
        doc: Flag 0x40, not defined for any type.
      - id: priority
        type: b1
        doc: Flag 0x20, PRIORITY on HEADERS (exclusive bit, stream dependency and weight lead the payload).
      - id: unused_0x10
        type: b1
        doc: Flag 0x10, not defined for any type.
      - id: padded
        type: b1
        doc: Flag 0x08, PADDED on DATA, HEADERS and PUSH_PROMISE (a pad length byte leads the payload).
      - id: end_headers
        type: b1
        doc: Flag 0x04, END_HEADERS on HEADERS, PUSH_PROMISE and CONTINUATION (the header block ends here).
      - id: unused_0x02
        type: b1
        doc: Flag 0x02, not defined for any type.
      - id: end_stream_or_ack
        type: b1
        doc: Flag 0x01, END_STREAM on DATA and HEADERS; ACK on SETTINGS and PING.
      - id: reserved
        type: b1
        doc: The reserved bit R, sent as 0 and ignored on receipt.
      - id: stream_id
        type: b31
        doc: The stream identifier; 0 for frames about the whole connection (SETTINGS, PING, GOAWAY).
enums:
  frame_type:
    0: data
    1: headers
    2: priority
    3: rst_stream
    4: settings
    5: push_promise
    6: ping
    7: goaway
    8: window_update
    9: continuation
