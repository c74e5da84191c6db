meta:
  id: dataproxy_request
  title: InLong DataProxy TCP protocol (v0) - a frame sent by an SDK to DataProxy
  license: Apache-2.0
  ks-version: "0.11"
  endian: be
  encoding: UTF-8
  imports:
    - dataproxy_common
-inlong:
  protocol: dataproxy
  frame: true
  direction: request
  max-frame-size: 65536
  registry:
    framing: frames
    doc: Apache InLong DataProxy's binary protocol (its TCP source and the Java SDK's sender)
    ports: [46801]  # the DataProxy TCP source's default port
    detect: {order: 60}  # no magic: the length probe and a full decode decide
    payload-reader: inlong_proto.dataproxy.payload
    payload-type: inlong_proto.dataproxy.payload:Payload
    audit-reader: inlong_proto.dataproxy.audit:events
    replay: inlong_proto.dataproxy.audit:resend
    dump-direction: inlong_proto.dataproxy.payload:infer_direction  # text MsgTypes and heartbeats fit both layouts
    # decode's table: the MsgType, then what the attributes say (the payload reader's fields)
    summary: ["{base_type}", "→ {payload.error_code}", "group={payload.group_id}", "stream={payload.stream_id}",
              "{payload.record_count} records", "{payload.error_message}"]
doc: |
  TotalLen (u4) + MsgType (1 byte) + a payload whose layout the MsgType's low 5 bits select.
  TotalLen counts the MsgType byte and the payload but not its own 4 bytes (the public document is vague
  here; the server's LengthFieldBasedFrameDecoder and both SDKs agree). The server's default frame limit
  is 64 KiB including the 4 length bytes (max-msg-length, configurable up to 20 MiB).
  A MsgType byte of 0 would start a protobuf "v1" message, which this spec does not cover: it is rejected.
doc-ref: "apache/inlong@a6c7a6a670c3 inlong-sdk/dataproxy-sdk/src/main/java/org/apache/inlong/sdk/dataproxy/network/tcp/codec/ProtocolEncoder.java, inlong-dataproxy/dataproxy-source/src/main/java/org/apache/inlong/dataproxy/source/v0msg/*.java; docs/protocols/inlong-dataproxy-and-tubemq.md, Part 1 (sections 1.1-1.12)"
seq:
  - id: total_len
    type: u4
    valid:
      min: 1
      max: 20971516
    doc: Bytes after this field (MsgType byte included). At most 20 MiB - 4, the server's largest limit.
  - id: auth
    type: b1
    doc: MsgType bit 7 (0x80). Authorization attributes are present (heartbeats only).
  - id: encrypted
    type: b1
    doc: MsgType bit 6 (0x40). The body is AES-encrypted by the SDK (no server in the repository decrypts it).
  - id: compressed
    type: b1
    doc: MsgType bit 5 (0x20). The MsgType 7 body is a Snappy raw block (MsgType 2-6 use the `cp` attribute).
  - id: base_type
    type: b5
    enum: dataproxy_common::msg_type
    valid:
      in-enum: true
    doc: MsgType bits 4-0, the base type. The server masks the byte with 0x1F and refuses unknown types.
  - id: body
    size: total_len - 1
    type:
      switch-on: base_type
      cases:
        dataproxy_common::msg_type::heartbeat: dataproxy_common::text_message
        dataproxy_common::msg_type::common_service: dataproxy_common::text_message
        dataproxy_common::msg_type::ack_service: dataproxy_common::text_message
        dataproxy_common::msg_type::original_return: dataproxy_common::text_message
        dataproxy_common::msg_type::multi_body: dataproxy_common::text_message
        dataproxy_common::msg_type::multi_body_attr: dataproxy_common::text_message
        dataproxy_common::msg_type::bin_multi_body: bin_message
        dataproxy_common::msg_type::bin_heartbeat: dataproxy_common::bin_heartbeat
    doc: The payload, TotalLen - 1 bytes, in the layout base_type selects.
types:
  bin_message:
    -inlong:
      direction: request
    doc: |
      MsgType 7, the binary data message (25 fixed bytes after TotalLen, then body, attr and the magic).
      TotalLen = 25 + body_len + attr_len in every frame the SDKs write.
    seq:
      - id: group_num
        type: u2
        doc: Numeric group id (0 = none); used when ext_field.ids_as_strings is not set.
      - id: stream_num
        type: u2
        doc: Numeric stream id; used when ext_field.ids_as_strings is not set.
      - id: ext_field
        type: dataproxy_common::ext_field
        doc: Extension flags (how the body is packed, where the ids are).
      - id: data_time
        type: u4
        doc: Data time in SECONDS since the epoch (the SDK divides milliseconds by 1000; text types use ms).
      - id: msg_cnt
        type: u2
        doc: Number of records; the server treats 0 as 1.
      - id: unique_id
        type: u4
        doc: The SDK's message id, echoed in the response to match it.
      - id: body_len
        type: s4
        valid:
          min: 0
        doc: Bytes of body. Negative is malformed (server error 106); zero draws error 105.
      - id: body
        size: body_len
        doc: |
          Records as ext_field says: {len:u4, data}..., or {len:u4, data, attr_len:u4, attr}..., or one
          {len:u4, records joined by LF} (dataproxy_payload). Snappy-compressed when `compressed`, AES-encrypted when `encrypted`.
      - id: attr_len
        type: s2
        valid:
          min: 0
        doc: Bytes of attr, read signed by the server (negative is malformed, server error 107).
      - id: attr
        type: str
        size: attr_len
        doc: Attributes `k=v&k=v` (groupId/streamId when ids_as_strings, rtms, sdkVersion, user attributes).
      - id: magic
        contents: [0xee, 0x01]
        doc: Integrity mark 0xEE01 (server error 94 FIELD_MAGIC_NOT_EQUAL otherwise).
      - id: trailing
        size-eos: true
        -inlong-default: ""
        doc: |
          Bytes after the magic. The server tolerates them (its length check is >=, quirk Q8) though the
          downstream InLongMsg check does not; the SDKs never write any.
