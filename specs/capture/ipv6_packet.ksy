meta:
  id: ipv6_packet
  title: IPv6 packet (fixed header, then the payload)
  license: Apache-2.0
  ks-version: "0.11"
  endian: be
doc: |
  An IPv6 packet as captured: the 40-byte fixed header (RFC 8200 section 3), then everything else the
  capture holds. Extension headers (RFC 8200 section 4) are not decoded: next_header names the first of
  them, and a reader that wants TCP takes only packets whose next_header is 6 (TCP directly after the
  fixed header) and counts the others as packets it does not use.
doc-ref: "RFC 8200 section 3 (IPv6 Header Format)"
seq:
  - id: version
    type: b4
    valid:
      eq: 6
    doc: IP version, 6.
  - id: traffic_class
    type: b8
    doc: Traffic class (DSCP and ECN).
  - id: flow_label
    type: b20
    doc: Flow label.
  - id: payload_length
    type: u2
    doc: Bytes after the fixed header, extension headers included (0 only for jumbograms, unsupported).
  - id: next_header
    type: u1
    doc: Type of the header after this one (6 TCP; IANA protocol numbers).
  - id: hop_limit
    type: u1
    doc: Hop limit.
  - id: src_addr
    size: 16
    doc: Source address.
  - id: dst_addr
    size: 16
    doc: Destination address.
  - id: rest
    size-eos: true
    doc: What the capture holds after the fixed header; its first payload_length bytes are the payload.
