meta:
  id: ipv4_packet
  title: IPv4 packet (header with options, then the payload)
  license: Apache-2.0
  ks-version: "0.11"
  endian: be
doc: |
  An IPv4 packet as captured: the header (RFC 791 section 3.1) with its options kept as bytes, then
  everything else the capture holds. `payload_length` says how much of `rest` is the IP payload: the
  rest may be shorter (the capture's snap length cut the packet) or longer (Ethernet padding).
  Fragments are not reassembled; a reader treats a fragment (more_fragments or a fragment offset) as
  a packet it cannot use.
doc-ref: "RFC 791 section 3.1 (Internet Header Format)"
seq:
  - id: version
    type: b4
    valid:
      eq: 4
    doc: IP version, 4.
  - id: ihl
    type: b4
    valid:
      min: 5
    doc: Header length in 32-bit words (5 without options).
  - id: dscp
    type: b6
    doc: Differentiated services code point (RFC 2474; formerly type of service).
  - id: ecn
    type: b2
    doc: Explicit congestion notification (RFC 3168).
  - id: total_length
    type: u2
    valid:
      expr: _ >= ihl * 4
    doc: Length of the whole packet, header included.
  - id: identification
    type: u2
    doc: Identifies the fragments of one datagram.
  - id: reserved_flag
    type: b1
    doc: Reserved, 0.
  - id: dont_fragment
    type: b1
    doc: DF, do not fragment.
  - id: more_fragments
    type: b1
    doc: MF, more fragments follow.
  - id: fragment_offset
    type: b13
    doc: Where this fragment goes in the datagram, in 8-byte units.
  - id: ttl
    type: u1
    doc: Time to live.
  - id: protocol
    type: u1
    doc: Protocol of the payload (6 TCP, 17 UDP, 1 ICMP; IANA protocol numbers).
  - id: header_checksum
    type: u2
    doc: Header checksum (not verified; captures of outgoing packets carry offloaded, unset checksums).
  - id: src_addr
    size: 4
    doc: Source address.
  - id: dst_addr
    size: 4
    doc: Destination address.
  - id: options
    size: ihl * 4 - 20
    doc: Options (RFC 791 section 3.1), kept as bytes.
  - id: rest
    size-eos: true
    doc: What the capture holds after the header; its first payload_length bytes are the payload.
instances:
  payload_length:
    value: total_length - ihl * 4
    doc: Bytes of the IP payload on the wire.
