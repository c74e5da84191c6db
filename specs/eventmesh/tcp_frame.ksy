meta:
  id: tcp_frame
  title: Apache EventMesh TCP frame (the length form of EventMesh 1.9.0 and later)
  license: Apache-2.0
  ks-version: "0.11"
  endian: be
  encoding: UTF-8
-inlong:
  protocol: eventmesh
  frame: true
  max-frame-size: 4194304
  registry:
    framing: frames
    doc: Apache EventMesh's TCP protocol (JSON header and body behind the EventMesh magic)
    ports: [10000]  # the runtime's TCP port (the legacy length form shares it; content tells them apart)
    detect: {order: 30}  # the magic; before the legacy form, which reads the same magic
    extension: inlong_proto.eventmesh.tcp
    payload-type: inlong_proto.eventmesh.tcp:TcpMessage
    compiled-layer: eventmesh_layer
    audit-reader: inlong_proto.eventmesh.audit:tcp_events
    replay: inlong_proto.eventmesh.audit:tcp_resend
    vectors: eventmesh/tcp
    # decode's table: the command, its sequence number, then the topic or the reply's code and words
    summary: ["{message_type}", "seq={payload.header.seq}", "topic={payload.body.topic}",
              "code={payload.header.code}", "{payload.header.desc}"]
doc: |
  One frame of the EventMesh TCP protocol (magic, version, package length, header length, header, body).
  The header and body meanings (command table, body types, JSON Schemas) are declared beside this file
  in tcp_header.schema.json, bodies/ and commands.yaml, and decoded by inlong_proto.eventmesh.tcp.

  Lengths exactly as Codec.Encoder computes them: package_length = 13 + header_length + body length
  (magic, version, header and body; not the two 4-byte length fields), so a frame is package_length + 8
  bytes; the body length is not sent. The Netty decoder finds the frame the same way
  (LengthFieldBasedFrameDecoder at offset 13, adjustment -9). This spec nests header_length, header and
  body in `package` (package_length - 9 bytes: everything after the length field) so that the frame size
  is known from the first 17 bytes and both lengths are derived on encode.

  Limits: the decoder refuses a frame whose package_length + 8 exceeds FRAME_MAX_LENGTH (4 MiB), i.e.
  package_length > 4194296, while the Java encoder only refuses package_length > 4194304: frames with
  4194297..4194304 can be written but are refused by every current decoder (an off-by-8). This spec
  follows the decoder, so the own codec never writes such a frame either.

  Clients older than 1.9.0 (and the Go SDK to this day) write package_length = 8 + header_length + body
  length; that legacy form is tcp_frame_legacy.ksy, a protocol of its own (eventmesh-legacy), since
  nothing in a frame tells the two forms apart.
doc-ref: "apache/eventmesh@2527428788cb eventmesh-common/src/main/java/org/apache/eventmesh/common/protocol/tcp/codec/Codec.java; docs/protocols/eventmesh.md, sections 1.1, 1.2, 1.9 and quirk 4.1"
seq:
  - id: magic
    contents: EventMesh
    doc: The 9 ASCII bytes "EventMesh" (CONSTANT_MAGIC_FLAG); anything else closes the channel.
  - id: version
    contents: "0000"
    doc: The 4 ASCII bytes "0000" (VERSION), checked together with the magic.
  - id: package_length
    type: s4
    valid:
      min: 13
      max: 4194296
    doc: |
      Bytes of magic, version, header and body (the frame is this + 8).
      Below 9 Netty refuses the frame; 9 to 12 leaves no room for header_length, so the runtime fails
      reading it and closes the channel. Above 4194296 the frame exceeds the decoder's 4 MiB limit.
  - id: package
    size: package_length - 9
    type: package
    doc: Everything after the length field (header_length, header, body), package_length - 9 bytes.
types:
  package:
    doc: The header length, the header JSON and the body, bounded by the frame's package length.
    seq:
      - id: header_length
        type: s4
        valid:
          min: 1
        doc: |
          Bytes of header (its UTF-8 length).
          The runtime reads 0 or less as "no header" and then refuses the message ("the incoming
          message does not have a header"), so no usable frame has one. A header_length that reaches
          past the package (more than package_length - 13) is malformed.
      - id: header
        type: str
        size: header_length
        doc: |
          The Header as compact UTF-8 JSON, see tcp_header.schema.json.
          {"cmd":..,"code":..,"desc":..,"seq":..,"properties":{..},"command":..} as Jackson writes it.
          Text as Jackson's writeValueAsBytes writes it (JsonUtils.toJSONBytes; FasterXML/jackson-core
          UTF8JsonGenerator.java, _outputMultiByteChar): control characters escaped in upper-case hex,
          other BMP characters raw UTF-8, and each UTF-16 surrogate as its own escape, so a character
          outside the BMP is the pair \uD83D\uDE00, never 4 raw bytes (Jackson 2.14 to 2.20 alike; the
          pre-1.9 encoder of tcp_frame_legacy.ksy wrote them raw). Readers take both forms to the same string.
      - id: body
        size-eos: true
        doc: |
          The body, package_length - 13 - header_length bytes; may be empty.
          JSON, a JSON-quoted Java String, or the raw CloudEvents JSON when the header property
          protocoltype is "cloudevents" (commands.yaml says which). JSON text as in the header:
          characters outside the BMP written as escaped surrogate pairs (the CloudEvents SDK's
          JsonFormat.serialize is writeValueAsBytes too).
