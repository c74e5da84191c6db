meta:
  id: dataproxy_payload
  title: InLong DataProxy TCP protocol (v0) - how a message body holds its records
  license: Apache-2.0
  ks-version: "0.11"
  endian: be
  encoding: UTF-8
doc: |
  The record layouts inside a (decompressed) body. Which one applies is decided by the frame: MsgType 5
  uses text_items; MsgType 6 uses multi_body_attr_items; MsgType 2/3/4 join records with LF (no layout
  needed); MsgType 7 uses bin_items, bin_items_with_attrs when ExtField bit 0 is set, or lf_block when
  ExtField bit 5 is set. The server stops silently at the first bad MsgType 5 item and silently drops a
  MsgType 6 body that is not in its layout; this spec reports both instead, so no record is ever dropped
  without a word.
doc-ref: "docs/protocols/inlong-dataproxy-and-tubemq.md, Part 1 (sections 1.5, 1.8, 1.9); apache/inlong inlong-common/src/main/java/org/apache/inlong/common/msg/InLongMsg.java (InLongMsg v3, MsgType 6)"
types:
  text_items:
    doc: MsgType 5 body, {ItemLen:s4, ItemData} until the end.
    seq:
      - id: items
        type: text_item
        repeat: eos
        doc: The records, in order.
  text_item:
    doc: One MsgType 5 record.
    seq:
      - id: item_len
        type: s4
        valid:
          min: 1
        doc: Bytes of data; the server only accepts 0 < ItemLen <= what remains.
      - id: data
        size: item_len
        doc: The record.
  multi_body_attr_items:
    doc: |
      MsgType 6 (MSG_MULTI_BODY_ATTR) body, after Snappy when the `cp` attribute is set: an InLongMsg v3
      body, {item_len:s4, data}{attr_len:s4, attr} pairs until the end, each record followed by its own
      attributes. The design document (section 1.4) and this project's first specs took the body for one
      record; the code says otherwise, and the code wins:
      - The server packs a MsgType 6 body whole into an InLongMsg *version 3* container, the only type it
        does so (`inLongMsgVer = 3` for MSG_MULTI_BODY_ATTR, then `addMsg(<message attrs>, bodyData)`;
        apache/inlong inlong-dataproxy/dataproxy-source/src/main/java/org/apache/inlong/dataproxy/source/v0msg/CodecTextMsg.java,
        encEventPackage). InLongMsg's MAGIC3 (0x0f03) is commented "support msg_type = 6".
      - For version 3, InLongMsg.addMsg first runs checkData over the body: it walks {len:s4, bytes}
        chunks to the end and returns false at a length past the end, and addMsg then returns false
        without storing the body. The server ignores that result: the (empty) message is forwarded and
        the SDK gets success (errCode 0), so the records are lost without a word. A negative length or 1-3
        bytes left for a length throw instead (NegativeArraySizeException, BufferUnderflowException) from
        encEventPackage, which ServerMessageHandler.processV0Msg calls outside its try: exceptionCaught
        closes the connection without a reply
        (apache/inlong inlong-common/src/main/java/org/apache/inlong/common/msg/InLongMsg.java, addMsg and
        checkData; apache/inlong inlong-dataproxy/dataproxy-source/src/main/java/org/apache/inlong/dataproxy/source/ServerMessageHandler.java,
        processV0Msg and exceptionCaught).
      - The consumer side reads the stored body as pairs (InLongMsg.parseMixAttr, same file): data length,
        data, attribute length, attributes; a data or attribute length <= 0 stops the parse there and the
        rest of the body is dropped; a record's attributes are the message's joined with its own,
        `<message attrs>&<record attrs>`. checkData only counts chunks, so an odd number of chunks (a last
        record without attributes) and zero lengths pass the server and are lost downstream.
      This spec accepts exactly what parseMixAttr reads to the end: both lengths at least 1, the pairs
      filling the body. A body that is not so is well-formed on the wire (the server accepts it) but its
      records are not readable; the runtime flags it (an error in FAILFAST, an error field otherwise).
    seq:
      - id: items
        type: multi_body_attr_item
        repeat: eos
        doc: The records with their own attributes, in order.
  multi_body_attr_item:
    doc: One MsgType 6 record followed by its attributes (an InLongMsg v3 pair).
    seq:
      - id: item_len
        type: s4
        valid:
          min: 1
        doc: Bytes of data; parseMixAttr stops at a length <= 0 (InLongMsg.java).
      - id: data
        size: item_len
        doc: The record.
      - id: attr_len
        type: s4
        valid:
          min: 1
        doc: Bytes of the record's attributes; parseMixAttr stops at a length <= 0, so every record has some.
      - id: attr
        type: str
        size: attr_len
        doc: |
          The record's own attributes, `k=v&k=v`, appended to the message's with '&' downstream (Java reads
          them with the platform charset, `new String(bytes)`; UTF-8 here).
  bin_items:
    doc: MsgType 7 body (ExtField bits 0 and 5 clear), {len:u4, data} until the end.
    seq:
      - id: items
        type: bin_item
        repeat: eos
        doc: The records, in order.
  bin_item:
    doc: One MsgType 7 record.
    seq:
      - id: item_len
        type: u4
        doc: Bytes of data.
      - id: data
        size: item_len
        doc: The record.
  bin_items_with_attrs:
    doc: MsgType 7 body with ExtField bit 0, {len:u4, data, attr_len:u4, attr} until the end.
    seq:
      - id: items
        type: bin_item_with_attrs
        repeat: eos
        doc: The records with their own attributes, in order.
  bin_item_with_attrs:
    doc: One MsgType 7 record followed by its attributes.
    seq:
      - id: item_len
        type: u4
        doc: Bytes of data.
      - id: data
        size: item_len
        doc: The record.
      - id: attr_len
        type: u4
        doc: Bytes of the record's attributes.
      - id: attr
        type: str
        size: attr_len
        doc: The record's attributes, `k=v&k=v`.
  lf_block:
    doc: MsgType 7 body with ExtField bit 5, exactly one {len:u4, records joined by LF}.
    seq:
      - id: block_len
        type: u4
        doc: Bytes of the block.
      - id: data
        size: block_len
        valid:
          expr: _io.eof
        doc: Records joined by LF; the block must fill the body.
