meta:
  id: raw_ip
  title: Raw IP link type (LINKTYPE_RAW, LINKTYPE_IPV4, LINKTYPE_IPV6)
  license: Apache-2.0
  ks-version: "0.11"
  endian: be
doc: |
  No link-layer header: the packet is an IPv4 or IPv6 packet, told apart by the version in its first
  four bits (RFC 791 section 3.1, RFC 8200 section 3). Only that nibble is read here; the packet is then
  decoded with ipv4_packet or ipv6_packet from its first byte.
doc-ref: "https://www.tcpdump.org/linktypes/LINKTYPE_RAW.html"
seq:
  - id: version
    type: b4
    doc: IP version, 4 or 6.
  - id: rest_of_first_byte
    type: b4
    doc: The other half of the first byte (IPv4 header length or IPv6 traffic class bits).
