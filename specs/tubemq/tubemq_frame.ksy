meta:
  id: tubemq_frame
  title: Apache InLong TubeMQ RPC frame (both directions)
  license: Apache-2.0
  ks-version: "0.11"
  endian: be
-inlong:
  protocol: tubemq
  frame: true
  max-frame-size: 29374476
  registry:
    framing: frames
    doc: Apache InLong TubeMQ's RPC frames (master and broker), with their protobuf RPC layer
    ports: [8715, 8123]  # the master's and the broker's default ports
    detect: {order: 50}  # the begin token FF 7F F4 FE
    extension: inlong_proto.tubemq.rpc
    payload-type: inlong_proto.tubemq.rpc:RpcMessage
    compiled-layer: tubemq_layer
    audit-reader: inlong_proto.tubemq.audit:events
    replay: inlong_proto.tubemq.audit:resend
    # decode's table: method and serial number, then the RPC's topic or the response's status and error
    summary: ["{message_type}", "#{serial_no}", "→ {payload.header.status}", "topic={payload.message.*.topicName}",
              "partition={payload.message.*.partitionId}", "{payload.message.*.errCode}",
              "{payload.message.*.errMsg}"]
doc: |
  Begin token, serial number and a counted list of sized blocks. There is no total length: a frame ends
  after its last block. The blocks' data, joined, is one stream of varint-length-delimited protobuf
  messages (RpcConnHeader, then RequestHeader + RequestBody or ResponseHeader + RspResponseBody /
  RspExceptionBody, see methods.yaml); writers cut that stream into blocks of exactly 8192 bytes, the
  last one holding the rest, with no regard for message boundaries.
  Limits differ per implementation (Java server: list_size <= 3584 and no block check; C++ client:
  <= 1024 blocks of 1..8192 bytes); this spec takes the server's list limit and refuses blocks over
  8192 bytes, so a frame is at most 12 + 3584 * 8196 bytes (the default max_frame_size).
  list_size 0 never completes in the Java decoder (quirk Q-T4), so it is refused here.
doc-ref: "apache/inlong@a6c7a6a670c3 inlong-tubemq/tubemq-core/src/main/java/org/apache/inlong/tubemq/corerpc/netty/NettyProtocolEncoder.java, netty/NettyProtocolDecoder.java; docs/protocols/inlong-dataproxy-and-tubemq.md, Part 2 (sections 2.1, 2.2)"
seq:
  - id: begin_token
    contents: [0xff, 0x7f, 0xf4, 0xfe]
    doc: RPC_PROTOCOL_BEGIN_TOKEN 0xFF7FF4FE; anything else is a protocol error (and where PERMISSIVE resyncs).
  - id: serial_no
    type: s4
    doc: Request id chosen by the caller; the response echoes it.
  - id: list_size
    type: s4
    valid:
      min: 1
      max: 3584
    doc: Number of blocks (MAX_FRAME_MAX_LIST_SIZE = 3584 on the server).
  - id: blocks
    type: block
    repeat: expr
    repeat-expr: list_size
    doc: The blocks, whose data joined is the RPC message stream.
types:
  block:
    doc: One piece of the message stream.
    seq:
      - id: block_len
        type: s4
        valid:
          min: 0
          max: 8192
        doc: Bytes of data, at most RPC_MAX_BUFFER_SIZE (8192); negative or larger is malformed.
      - id: data
        size: block_len
        doc: The next block_len bytes of the message stream.
