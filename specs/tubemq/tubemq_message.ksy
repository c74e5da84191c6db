meta:
  id: tubemq_message
  title: Apache InLong TubeMQ - the data of one message (SendMessageRequestP2B.data, TransferedMessage.payLoadData)
  license: Apache-2.0
  ks-version: "0.11"
  endian: be
  encoding: UTF-8
doc: |
  When the message flag's bit 0 (has attribute) is set, the data starts with the attribute text and its
  length; otherwise the data is the payload alone. The checkSum next to it is CRC32(data) & 0x7FFFFFFF
  over the whole data (attribute header included); producers send -1, "do not check".
  Quirk Q-T11: a producer with an empty (non-null) attribute sets bit 0 but writes no header, so its
  first four payload bytes are misread as attr_len by every consumer; this spec reads what is there.
doc-ref: "apache/inlong@a6c7a6a670c3 inlong-tubemq/tubemq-client/src/main/java/org/apache/inlong/tubemq/client/producer/SimpleMessageProducer.java (encodePayload), inlong-tubemq/tubemq-core/src/main/java/org/apache/inlong/tubemq/corebase/utils/MessageFlagUtils.java; docs/protocols/inlong-dataproxy-and-tubemq.md, Part 2 (section 2.10)"
types:
  data_with_attribute:
    doc: Message data with flag bit 0 set.
    seq:
      - id: attr_len
        type: s4
        valid:
          min: 0
        doc: Bytes of the attribute text.
      - id: attribute
        type: str
        size: attr_len
        doc: Attributes `k=v,k=v`; system headers $msgType$ and $msgTime$ (yyyyMMddHHmm) come first.
      - id: payload
        size-eos: true
        doc: The message body.
