meta:
  id: dataproxy_common
  title: InLong DataProxy TCP protocol (v0) - layouts shared by requests and responses
  license: Apache-2.0
  ks-version: "0.11"
  endian: be
  encoding: UTF-8
doc: |
  Types, enums and layouts that DataProxy requests and responses share (see dataproxy_request and
  dataproxy_response for the frames). All integers are big-endian. The public document's figures are
  missing; every layout here follows the code of the Java SDK and server (apache/inlong), and where
  the document and the code disagree the code wins and the field's doc says so.
doc-ref: "apache/inlong@a6c7a6a670c3 inlong-common/src/main/java/org/apache/inlong/common/msg/MsgType.java, inlong-dataproxy/dataproxy-source/src/main/java/org/apache/inlong/dataproxy/source/v0msg/*.java, inlong-sdk/dataproxy-sdk/src/main/java/org/apache/inlong/sdk/dataproxy/network/tcp/codec/*.java; docs/protocols/inlong-dataproxy-and-tubemq.md, Part 1"
types:
  text_message:
    doc: |
      The "text" layout of MsgType 2-6 requests and of the responses to them (also the Go SDK's MsgType 1
      heartbeat request, whose lengths are both 0). TotalLen must be exactly 9 + body_len + attr_len:
      the server answers BODY_EXCEED_MAX_LEN (104) otherwise, and this spec rejects the frame.
    seq:
      - id: body_len
        type: s4
        valid:
          min: 0
        doc: |
          Bytes of body. Negative is malformed (server error 106 BODY_LENGTH_LESS_ZERO). Zero is
          well-formed on the wire (heartbeats, sink-path responses) though the server refuses a zero-length
          data request with error 105 BODY_LENGTH_ZERO.
      - id: body
        size: body_len
        doc: |
          MsgType 2/3/4: records joined by LF. MsgType 5: length-prefixed items (dataproxy_payload).
          MsgType 6: InLongMsg v3 {len, data}{len, attr} pairs, each record with its own attributes
          (dataproxy_payload::multi_body_attr_items; not one record, as the design document said).
          Snappy raw block when the attribute `cp` is present. Responses: the single
          byte '2' (0x32) from the source path, empty from the sink path, the original body for MsgType 4.
      - id: attr_len
        type: s4
        valid:
          min: 0
        doc: Bytes of attr. Negative is malformed (server error 107 ATTR_LENGTH_LESS_ZERO). 4 bytes here, 2 in MsgType 7/8.
      - id: attr
        type: str
        size: attr_len
        valid:
          expr: _io.eof
        doc: |
          Attributes `k=v&k=v` (UTF-8). Requests carry groupId, streamId, dt (ms), cnt, messageId, cp, isAck, ...;
          responses carry dpIp, errCode, errMsg and the echoed request attributes. Must end the frame exactly.
  bin_heartbeat:
    doc: |
      MsgType 8, the binary heartbeat, in both directions (the response uses the same layout, with the node
      load as a 2-byte body and the request's attr echoed verbatim).
    seq:
      - id: data_time
        type: u4
        doc: |
          Request: the Java SDK sends the low 32 bits of the time in milliseconds, the C++ SDK seconds (the
          server ignores it). Response: server time in seconds.
      - id: version
        type: u1
        doc: Body version; the Java SDK sends 2, the C++ SDK 1; the server echoes it.
      - id: body_len
        type: s4
        valid:
          min: 0
        doc: Bytes of body; 0 in requests, 2 in responses.
      - id: body
        size: body_len
        doc: Empty in requests; in responses the node load as u2 (always 0xFFFF at the cited commit).
      - id: attr_len
        type: s2
        valid:
          min: 0
        doc: Bytes of attr; read signed by the server, so at most 32767.
      - id: attr
        type: str
        size: attr_len
        doc: Authorization attributes when the auth flag is set (_userName, _signature, ...), else empty.
      - id: magic
        contents: [0xee, 0x01]
        doc: Integrity mark 0xEE01; a wrong value closes the connection (server, Q9).
      - id: trailing
        size-eos: true
        -inlong-default: ""
        doc: |
          Bytes after the magic. The server tolerates them (its check is TotalLen + 4 >= 18 + body_len +
          attr_len); the SDKs never write any. Kept so that no byte of a frame goes undecoded.
  ext_field:
    doc: The 16 ExtField flag bits of MsgType 7 (bit 0 is the least significant).
    seq:
      - id: reserved
        type: b10
        doc: Bits 15-6, unused (0).
      - id: separated_by_lf
        type: b1
        doc: Bit 5 (0x20). The body is one {len:u4, records joined by LF} block.
      - id: index_message
        type: b1
        doc: Bit 4 (0x10). Index message; the server rejects it (112 UNSUPPORTED_EXTEND_FIELD_VALUE).
      - id: file_check
        type: b1
        doc: Bit 3 (0x08). File-check message; the server rejects it (112).
      - id: ids_as_strings
        type: b1
        doc: Bit 2 (0x04). Group and stream are given as groupId/streamId attributes, not GroupNum/StreamNum.
      - id: trace
        type: b1
        doc: |
          Bit 1 (0x02). Trace: the server prepends node2ip (its listen port, quirk) and rtime2 attributes.
          Once the request has passed its checks the server prepends
          `node2ip=<its listen port>&rtime2=<receive time, ms>` to the attributes it forwards and echoes
          (after `rtms=` when it adds that). Quirk: node2ip, named for the node's IP, holds the source's
          *port* (`source.getStrPort()`) in the attribute string, while the server's internal map gets the
          host IP (apache/inlong inlong-dataproxy/dataproxy-source/src/main/java/org/apache/inlong/dataproxy/source/v0msg/CodecBinMsg.java,
          validAndFillFields; the port is the source's configured `port`, BaseSource.getHostPort).
      - id: per_record_attributes
        type: b1
        doc: Bit 0 (0x01). Each body item is followed by its own {attr_len:u4, attr}.
enums:
  msg_type:
    1:
      id: heartbeat
      doc: Legacy heartbeat; the server answers with the fixed 5 bytes 00 00 00 01 01.
    2:
      id: common_service
      doc: Text layout, records joined by LF.
    3:
      id: ack_service
      doc: Text layout, records joined by LF; the Java SDK's text type.
    4:
      id: original_return
      doc: Text layout; the response echoes the original body.
    5:
      id: multi_body
      doc: Text layout, body of length-prefixed items.
    6:
      id: multi_body_attr
      doc: |
        Text layout, the body is InLongMsg v3 pairs: records each with its own attributes.
        {len:s4, data}{len:s4, attr} until the end (dataproxy_payload::multi_body_attr_items;
        CodecTextMsg.encEventPackage).
    7:
      id: bin_multi_body
      doc: Binary layout (the Java SDK's default).
    8:
      id: bin_heartbeat
      doc: Binary heartbeat.
  err_code:
    0: {id: success, doc: Accepted.}
    1: {id: sink_service_unready, doc: Sink not ready.}
    2: {id: service_closed, doc: Service closing.}
    3: {id: conf_service_unready, doc: Configuration not loaded.}
    10: {id: illegal_visit_ip, doc: Client IP refused.}
    31: {id: http_decode_req_failure, doc: HTTP request undecodable.}
    32: {id: http_unsupported_method, doc: HTTP method unsupported.}
    33: {id: http_req_uri_blank, doc: HTTP URI blank.}
    34: {id: http_decode_req_uri_failure, doc: HTTP URI undecodable.}
    35: {id: http_unsupported_service_uri, doc: HTTP service URI unsupported.}
    36: {id: http_unsupported_content_type, doc: HTTP content type unsupported.}
    94: {id: field_magic_not_equal, doc: MsgType 7 magic is not 0xEE01.}
    95: {id: field_length_value_not_equal, doc: MsgType 7 lengths exceed the frame.}
    96: {id: uncompress_data_error, doc: Snappy body could not be decompressed.}
    100: {id: miss_required_groupid_argument, doc: groupId attribute missing.}
    101: {id: miss_required_streamid_argument, doc: streamId attribute missing.}
    102: {id: miss_required_dt_argument, doc: dt attribute missing.}
    103: {id: miss_required_body_argument, doc: Body missing.}
    104: {id: body_exceed_max_len, doc: Text layout lengths do not add up.}
    105: {id: body_length_zero, doc: Zero-length body.}
    106: {id: body_length_less_zero, doc: Negative body length.}
    107: {id: attr_length_less_zero, doc: Negative attribute length.}
    108: {id: error_process_logic, doc: Internal processing error.}
    109: {id: split_attr_error, doc: Attributes not k=v&k=v with unique keys.}
    110: {id: unsupported_msg_type, doc: Unknown message type.}
    111: {id: empty_msg, doc: Empty message.}
    112: {id: unsupported_extend_field_value, doc: ExtField file-check or index bit set.}
    113: {id: unconfigured_groupid_or_streamid, doc: Group or stream not configured.}
    114: {id: put_event_to_channel_failure, doc: Channel full.}
    115: {id: topic_is_blank, doc: No topic configured for the group.}
    116: {id: no_available_producer, doc: No MQ producer.}
    117: {id: producer_is_null, doc: MQ producer missing.}
    118: {id: send_request_to_mq_failure, doc: MQ send failed.}
    119: {id: mq_return_error, doc: MQ returned an error.}
    120: {id: duplicated_message, doc: Duplicate message.}
    121: {id: groupid_or_streamid_not_configure, doc: Group or stream id not configured.}
    122: {id: groupid_or_streamid_inconstant, doc: GroupNum/StreamNum disagree with the attributes.}
    123: {id: msg_body_items_invalid, doc: No valid item in a MsgType 5 body.}
    150: {id: attr_order_control_conflict_error, doc: syncSend=true with isAck=false.}
    151: {id: attr_proxy_control_conflict_error, doc: proxySend=true with isAck=false.}
    2147483647: {id: unknown_error, doc: Default before processing completes.}
