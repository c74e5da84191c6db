meta:
  id: dataproxy_response
  title: InLong DataProxy TCP protocol (v0) - a frame sent by DataProxy to an SDK
  license: Apache-2.0
  ks-version: "0.11"
  endian: be
  encoding: UTF-8
  imports:
    - dataproxy_common
-inlong:
  protocol: dataproxy
  frame: true
  direction: response
  max-frame-size: 65536
doc: |
  Same header as a request (TotalLen + MsgType), but responses always carry the plain base type (no flag
  bits are ever echoed) and MsgType 1 and 7 have layouts of their own. The Java SDK refuses responses over
  64 KiB including the length prefix.
doc-ref: "apache/inlong@a6c7a6a670c3 inlong-dataproxy/dataproxy-source/src/main/java/org/apache/inlong/dataproxy/source/v0msg/CodecBinMsg.java, CodecTextMsg.java, inlong-dataproxy/dataproxy-source/src/main/java/org/apache/inlong/dataproxy/utils/MessageUtils.java; docs/protocols/inlong-dataproxy-and-tubemq.md, Part 1 (sections 1.6, 1.10-1.12)"
seq:
  - id: total_len
    type: u4
    valid:
      min: 1
      max: 20971516
    doc: Bytes after this field (MsgType byte included).
  - id: auth
    type: b1
    doc: MsgType bit 7; never set by the server.
  - id: encrypted
    type: b1
    doc: MsgType bit 6; never set by the server.
  - id: compressed
    type: b1
    doc: MsgType bit 5; never set by the server.
  - id: base_type
    type: b5
    enum: dataproxy_common::msg_type
    valid:
      in-enum: true
    doc: The request's base type (3, 5, 7 or 8 in practice; 1 for the legacy heartbeat reply).
  - id: body
    size: total_len - 1
    type:
      switch-on: base_type
      cases:
        dataproxy_common::msg_type::heartbeat: legacy_heartbeat_reply
        dataproxy_common::msg_type::common_service: dataproxy_common::text_message
        dataproxy_common::msg_type::ack_service: dataproxy_common::text_message
        dataproxy_common::msg_type::original_return: dataproxy_common::text_message
        dataproxy_common::msg_type::multi_body: dataproxy_common::text_message
        dataproxy_common::msg_type::multi_body_attr: dataproxy_common::text_message
        dataproxy_common::msg_type::bin_multi_body: bin_response
        dataproxy_common::msg_type::bin_heartbeat: dataproxy_common::bin_heartbeat
    valid:
      expr: base_type != dataproxy_common::msg_type::heartbeat or total_len == 1
    doc: |
      The payload, TotalLen - 1 bytes, in the layout base_type selects. The MsgType 1 reply is exactly
      TotalLen 1 (so the 13-byte MsgType 1 request never reads as a reply).
types:
  legacy_heartbeat_reply:
    -inlong:
      direction: response
    doc: The fixed reply to MsgType 1, 00 00 00 01 01 (TotalLen 1, MsgType 1, nothing else).
    seq: []
  bin_response:
    -inlong:
      direction: response
    doc: |
      The response to MsgType 7, a shorter layout than the request (quirk Q4): no body, no GroupNum or
      DataTime. TotalLen = 9 + attr_len.
    seq:
      - id: unique_id
        type: u4
        doc: The request's UniqueId, echoed so the SDK can match it.
      - id: attr_len
        type: s2
        valid:
          min: 0
        doc: Bytes of attr (UTF-8 byte length).
      - id: attr
        type: str
        size: attr_len
        doc: |
          `dpIp=<host>[&errCode=n[&errMsg=...]]&<request attributes>` (source path) or without dpIp (sink
          path). Once the request has passed the server's checks, the echoed request attributes start with
          what the server prepended: `rtms=<receive ms>&` when the request had none, then, when the
          request's ExtField trace bit (0x02) is set, `node2ip=<listen PORT>&rtime2=<receive ms>&`. The
          port in node2ip is an upstream quirk (Q10): the key says node IP, the server writes
          `source.getStrPort()` (apache/inlong inlong-dataproxy/dataproxy-source/src/main/java/org/apache/inlong/dataproxy/source/v0msg/CodecBinMsg.java,
          validAndFillFields; echoed by ServerMessageHandler.responseV0Msg, which appends `getAttr()`, the
          rewritten string). A request that already had node2ip gets it twice. May hold duplicate keys
          (quirk Q14).
      - id: magic
        contents: [0xee, 0x01]
        doc: Integrity mark 0xEE01.
      - id: trailing
        size-eos: true
        -inlong-default: ""
        doc: Bytes after the magic; the server never writes any.
