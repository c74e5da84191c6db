meta:
  id: pcapng
  title: PCAP Next Generation capture file
  license: Apache-2.0
  ks-version: "0.11"
  endian: be
doc: |
  A pcapng file is a sequence of blocks, each `block_type`, `block_total_length`, a body padded to 32 bits
  and `block_total_length` again. A Section Header Block (SHB) starts every section and fixes its byte
  order through its byte-order magic; Interface Description Blocks (IDB) describe the interfaces packets
  were captured on (link type, snap length, timestamp resolution `if_tsresol`); Enhanced and Simple
  Packet Blocks (EPB, SPB) hold the packets. Blocks of any other type are kept as raw bodies and skipped
  by their length, as the format requires of readers.

  The root type reads a file of one section (what dumpcap, editcap and this project's writer produce):
  the first SHB, then every block in the byte order that SHB declares. A file with several sections of
  different byte orders is read section by section by the runtime (inlong_proto.capture), which decodes
  each SHB with `section_header_block` and the blocks after it with `block` in that section's order.

  Lengths are checked against the data present before anything is read, and a block longer than 16 MiB
  is refused as corrupt.
doc-ref: "https://datatracker.ietf.org/doc/draft-ietf-opsawg-pcapng/ (PCAP Now Generic (pcapng) Capture File Format)"
seq:
  - id: section_header
    type: section_header_block
    doc: The Section Header Block every file starts with.
  - id: blocks
    type: block
    repeat: eos
    doc: The blocks of the section, up to the end of the file.
types:
  section_header_block:
    doc: |
      Section Header Block (draft section 4.1). Its type, 0x0A0D0D0A, reads the same in both byte orders;
      its length comes before the byte-order magic that says how to read it, so the length is kept as
      bytes and read as a number once the magic is known (block_total_length).
    seq:
      - id: block_type
        contents: [0x0a, 0x0d, 0x0d, 0x0a]
        doc: Block type of an SHB, a palindrome so that it reads the same in either byte order.
      - id: block_total_length_bytes
        size: 4
        doc: The block's total length (header and trailer included) in the section's byte order.
      - id: byte_order_magic
        type: u4be
        enum: byte_order
        valid:
          in-enum: true
        doc: 0x1A2B3C4D in the section's byte order; read big-endian here, so it names that order.
      - id: body
        size: block_total_length - 16
        type: section_header_body
        valid:
          expr: block_total_length >= 28 and block_total_length % 4 == 0 and block_total_length <= 16777216
        doc: Version, section length and options; at least 28 bytes in all, a multiple of 4.
      - id: block_total_length_trailer
        size: 4
        valid:
          eq: block_total_length_bytes
        doc: The total length repeated, so a reader can walk blocks backwards; must equal the first.
    instances:
      block_total_length:
        value: >-
          byte_order_magic == byte_order::big
          ? (block_total_length_bytes[0] << 24 | block_total_length_bytes[1] << 16
             | block_total_length_bytes[2] << 8 | block_total_length_bytes[3])
          : (block_total_length_bytes[3] << 24 | block_total_length_bytes[2] << 16
             | block_total_length_bytes[1] << 8 | block_total_length_bytes[0])
        doc: The block's total length as a number, in the byte order the magic names.
    types:
      section_header_body:
        meta:
          endian:
            switch-on: _parent.byte_order_magic
            cases:
              byte_order::big: be
              byte_order::little: le
        doc: What follows the byte-order magic (draft section 4.1).
        seq:
          - id: major_version
            type: u2
            valid:
              eq: 1
            doc: Major version of the format, 1.
          - id: minor_version
            type: u2
            doc: Minor version, 0 (writers that wrote 2 are read the same way).
          - id: section_length
            type: s8
            doc: Bytes of the section after this block, or -1 when not given (tcpdump and dumpcap write -1).
          - id: options
            size-eos: true
            doc: Section options (shb_hardware, shb_os, shb_userappl), kept as bytes; same layout as block::option.
  block:
    meta:
      endian:
        switch-on: _root.section_header.byte_order_magic
        cases:
          byte_order::big: be
          byte_order::little: le
    doc: Any block after the section header, in the section's byte order (draft section 3.1).
    seq:
      - id: block_type
        type: u4
        enum: block_type
        doc: What the body holds; unknown types keep their body as bytes.
      - id: block_total_length
        type: u4
        valid:
          expr: _ >= 12 and _ <= 16777216 and _ % 4 == 0
        doc: The whole block's length, header and trailer included; a multiple of 4 (draft section 3.1).
      - id: body
        size: block_total_length - 12
        type:
          switch-on: block_type
          cases:
            block_type::interface_description: interface_description_block
            block_type::enhanced_packet: enhanced_packet_block
            block_type::simple_packet: simple_packet_block
        doc: The block's body; the types this reader needs are decoded, others are bytes.
      - id: block_total_length_trailer
        type: u4
        valid:
          eq: block_total_length
        doc: The total length repeated; must equal the first.
    types:
      interface_description_block:
        doc: Interface Description Block (draft section 4.2); the n-th IDB of a section is interface n.
        seq:
          - id: linktype
            type: u2
            doc: LINKTYPE_ value of the interface's packets (as in pcap's header).
          - id: reserved
            type: u2
            doc: Reserved, 0.
          - id: snaplen
            type: u4
            doc: The most bytes of a packet kept on this interface, 0 for no limit.
          - id: options
            type: option
            repeat: eos
            doc: Options; if_tsresol (code 9) gives the timestamp unit, 10^-6 s when absent.
      enhanced_packet_block:
        doc: Enhanced Packet Block (draft section 4.3).
        seq:
          - id: interface_id
            type: u4
            doc: Which interface of the section (its IDB's position) captured the packet.
          - id: timestamp_high
            type: u4
            doc: Upper 32 bits of the 64-bit timestamp, in the interface's if_tsresol units since 1970.
          - id: timestamp_low
            type: u4
            doc: Lower 32 bits of the timestamp.
          - id: captured_packet_length
            type: u4
            doc: Bytes of the packet present in packet_data (without padding).
          - id: original_packet_length
            type: u4
            doc: Length of the packet on the wire.
          - id: packet_data
            size: captured_packet_length
            doc: The captured bytes, starting with the interface's link-layer header.
          - id: padding
            size: (4 - captured_packet_length % 4) % 4
            doc: Zero bytes padding packet_data to 32 bits.
          - id: options
            type: option
            repeat: eos
            doc: Packet options (flags, hash, ...), kept as they are.
      simple_packet_block:
        doc: |
          Simple Packet Block (draft section 4.4): a packet of interface 0 without timestamp. The captured
          length is not stored: it is the smaller of original_packet_length and interface 0's snaplen, so
          packet_data keeps the padding and the reader trims it.
        seq:
          - id: original_packet_length
            type: u4
            doc: Length of the packet on the wire.
          - id: packet_data
            size-eos: true
            doc: The captured bytes and the padding to 32 bits.
      option:
        doc: One option (draft section 3.5); opt_endofopt (code 0) ends the list.
        seq:
          - id: code
            type: u2
            doc: Option code; its meaning depends on the block (9 in an IDB is if_tsresol).
          - id: length
            type: u2
            doc: Bytes of value, without padding.
          - id: value
            size: length
            doc: The option's value.
          - id: padding
            size: (4 - length % 4) % 4
            doc: Zero bytes padding value to 32 bits.
enums:
  byte_order:
    0x1a2b3c4d:
      id: big
      doc: The section is big-endian.
    0x4d3c2b1a:
      id: little
      doc: The section is little-endian.
  block_type:
    0x00000001:
      id: interface_description
      doc: Interface Description Block.
    0x00000003:
      id: simple_packet
      doc: Simple Packet Block.
    0x00000005:
      id: interface_statistics
      doc: Interface Statistics Block (kept as bytes).
    0x00000006:
      id: enhanced_packet
      doc: Enhanced Packet Block.
    0x0a0d0d0a:
      id: section_header
      doc: Section Header Block (starts a new section).
