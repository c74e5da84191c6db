meta:
  id: dataproxy_payload
  title: InLong DataProxy TCP protocol (v0) - how a message body holds its records
  license: Apache-2.0
  ks-version: "0.11"
  endian: be
  encoding: UTF-8
doc: |
  The record layouts inside a (decompressed) body. Which one applies is decided by the frame: MsgType 5
  uses text_items; MsgType 2/3/4 join records with LF and MsgType 6 is one record (no layout needed);
  MsgType 7 uses bin_items, bin_items_with_attrs when ExtField bit 0 is set, or lf_block when ExtField
  bit 5 is set. The server stops silently at the first bad MsgType 5 item; this spec reports it instead,
  so no record is ever dropped without a word.
doc-ref: "shared/design/protocols/inlong-dataproxy-and-tubemq.md, Part 1 (sections 1.5, 1.8, 1.9)"
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
