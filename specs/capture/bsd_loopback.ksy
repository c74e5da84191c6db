meta:
  id: bsd_loopback
  title: BSD loopback encapsulation (LINKTYPE_NULL and LINKTYPE_LOOP)
  license: Apache-2.0
  ks-version: "0.11"
  endian: le
doc: |
  A 4-byte address family, then the packet. With LINKTYPE_NULL (0) the family is in the byte order of
  the host that captured (little-endian on every current platform, which is how `family` reads it);
  with LINKTYPE_LOOP (108) it is big-endian, which `family_swapped` gives. IPv4 is AF_INET = 2; IPv6 is
  24, 28 or 30 depending on the BSD that wrote it.
doc-ref: "https://www.tcpdump.org/linktypes/LINKTYPE_NULL.html"
seq:
  - id: family
    type: u4
    doc: Address family of the payload, read little-endian (LINKTYPE_NULL from a little-endian host).
  - id: payload
    size-eos: true
    doc: The IP packet.
instances:
  family_swapped:
    value: >-
      (family >> 24 & 0xff) | (family >> 8 & 0xff00) | (family << 8 & 0xff0000) | (family << 24 & 0xff000000)
    doc: The family read big-endian (LINKTYPE_LOOP, or LINKTYPE_NULL from a big-endian host).
