meta:
  id: tcp_segment
  title: TCP segment (header with options, then the data)
  license: Apache-2.0
  ks-version: "0.11"
  endian: be
doc: |
  A TCP segment (RFC 9293 section 3.1, which obsoletes RFC 793): ports, sequence and acknowledgment
  numbers, data offset, flags (with the ECN bits of RFC 3168), window, checksum, urgent pointer,
  options kept as bytes, then the data. How many bytes of `data` are real is known only from the IP
  header's length (a capture may cut the segment, or Ethernet padding may follow it).
doc-ref: "RFC 9293 section 3.1 (Header Format); RFC 793 section 3.1; RFC 3168 section 6.1"
seq:
  - id: src_port
    type: u2
    doc: Source port.
  - id: dst_port
    type: u2
    doc: Destination port.
  - id: seq_num
    type: u4
    doc: Sequence number of the first data byte (of the SYN itself when SYN is set); wraps at 2^32.
  - id: ack_num
    type: u4
    doc: Next sequence number the sender expects, when ack is set.
  - id: data_offset
    type: b4
    valid:
      min: 5
    doc: Header length in 32-bit words (5 without options).
  - id: reserved
    type: b3
    doc: Reserved, 0.
  - id: ns
    type: b1
    doc: ECN-nonce flag (RFC 3540, historic).
  - id: cwr
    type: b1
    doc: Congestion window reduced (RFC 3168).
  - id: ece
    type: b1
    doc: ECN echo (RFC 3168).
  - id: urg
    type: b1
    doc: The urgent pointer is significant.
  - id: ack
    type: b1
    doc: The acknowledgment number is significant.
  - id: psh
    type: b1
    doc: Push function.
  - id: rst
    type: b1
    doc: Reset the connection.
  - id: syn
    type: b1
    doc: Synchronise sequence numbers (opens a connection; takes one sequence number).
  - id: fin
    type: b1
    doc: No more data from the sender (takes one sequence number).
  - id: window
    type: u2
    doc: Receive window (scaled by the window scale option).
  - id: checksum
    type: u2
    doc: Checksum over a pseudo header and the segment (not verified; offloaded on captured outgoing packets).
  - id: urgent_pointer
    type: u2
    doc: Offset of the end of urgent data, when urg is set.
  - id: options
    size: data_offset * 4 - 20
    doc: Options (MSS, window scale, SACK, timestamps, ...), kept as bytes.
  - id: data
    size-eos: true
    doc: The segment's data as captured (see the type's doc for how much of it is real).
