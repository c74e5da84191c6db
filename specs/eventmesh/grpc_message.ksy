meta:
  id: grpc_message
  title: gRPC length-prefixed message (the 5-byte prefix, then the protobuf bytes)
  license: Apache-2.0
  ks-version: "0.11"
  endian: be
doc: |
  One gRPC message as it travels in the DATA frames of an HTTP/2 stream (gRPC over HTTP/2,
  "Length-Prefixed-Message"): a compressed flag, a 4-byte length, then the message. A message may be cut
  across any number of DATA frames and a DATA frame may hold several messages; the reader joins a
  stream's DATA payloads first (inlong_proto.eventmesh.h2). EventMesh's messages are the protobuf types
  of eventmesh-service.proto (CloudEvent, CloudEventBatch) and, before 1.9.0, eventmesh-client.proto.
doc-ref: "https://github.com/grpc/grpc/blob/master/doc/PROTOCOL-HTTP2.md (Requests: Length-Prefixed-Message)"
seq:
  - id: prefix
    type: message_prefix
    doc: The 5-byte prefix.
  - id: message
    size: prefix.length
    doc: The message bytes, compressed with the stream's grpc-encoding when prefix.compressed is 1.
types:
  message_prefix:
    doc: Compressed flag and message length.
    seq:
      - id: compressed
        type: u1
        valid:
          max: 1
        doc: |
          1 when the message is compressed with the algorithm the stream's grpc-encoding header names
          (gzip, deflate, ...), 0 when it is not; other values are a protocol error.
      - id: length
        type: u4
        doc: Bytes of the message that follows (as sent, compressed or not).
