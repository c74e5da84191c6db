meta:
  id: tcp_frame_legacy
  title: Apache EventMesh TCP frame, legacy length form (before 1.9.0; the Go SDK)
  license: Apache-2.0
  ks-version: "0.11"
  endian: be
  encoding: UTF-8
  imports:
    - tcp_frame
-inlong:
  protocol: eventmesh-legacy
  frame: true
  max-frame-size: 4194317
  registry:
    framing: frames
    doc: Apache EventMesh's TCP protocol in its older length form (before 1.4)
    ports: []  # the current form's port: content decides
    detect: {order: 40}
    extension: inlong_proto.eventmesh.tcp
    payload-type: inlong_proto.eventmesh.tcp:TcpMessage
    compiled-layer: eventmesh_layer
    audit-reader: inlong_proto.eventmesh.audit:tcp_events
    replay: inlong_proto.eventmesh.audit:tcp_resend
    summary: ["{message_type}", "seq={payload.header.seq}", "topic={payload.body.topic}",
              "code={payload.header.code}", "{payload.header.desc}"]  # as tcp_frame.ksy's
doc: |
  The frame of tcp_frame.ksy with the length field of EventMesh up to 1.8.0.
  Still written by the Go SDK and by the runtime's test client: package_length = 8 + header_length +
  body length (the two length fields, the header and the body; not magic and version), so a frame is
  package_length + 13 bytes.

  The current runtime reads such a frame 5 bytes short (it takes package_length + 8), so the legacy form
  is wire-incompatible with it. Nothing in a frame tells the two forms apart, hence a protocol of its
  own: decode captures of old clients with protocol eventmesh-legacy (the decoded payload is flagged
  length_form "legacy"). Old Java encoders refused package_length > 4 MiB and old decoders had no limit
  (the Go SDK has none either); this spec takes the encoder's limit, so a frame is at most 4194304 + 13
  bytes.

  Text: the Java encoder up to 1.8.0 wrote the JSON as writeValueAsString(..).getBytes(UTF_8)
  (apache/eventmesh, eventmesh-common/.../protocol/tcp/codec/Codec.java at tag v1.8.0), so a character
  outside the BMP is 4 raw UTF-8 bytes and a lone surrogate '?', where 1.9.0 and later write Jackson's
  escaped surrogate pairs (tcp_frame.ksy, header). Both read the same.
doc-ref: "apache/eventmesh@2527428788cb eventmesh-sdks/eventmesh-sdk-go/common/protocol/tcp/codec/codec.go, and eventmesh-common/src/main/java/org/apache/eventmesh/common/protocol/tcp/codec/Codec.java up to 1.8.0; docs/protocols/eventmesh.md, section 1.9 and quirk 4.1"
seq:
  - id: magic
    contents: EventMesh
    doc: The 9 ASCII bytes "EventMesh", as in the current form.
  - id: version
    contents: "0000"
    doc: The 4 ASCII bytes "0000", as in the current form.
  - id: package_length
    type: s4
    valid:
      min: 8
      max: 4194304
    doc: |
      Bytes of both length fields, header and body (the frame is this + 13).
      Below 8 leaves no room for header_length; above 4194304 the old Java encoder refused to write it.
  - id: package
    size: package_length - 4
    type: tcp_frame::package
    doc: Everything after the length field (header_length, header, body), package_length - 4 bytes.
