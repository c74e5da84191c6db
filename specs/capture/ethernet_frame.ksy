meta:
  id: ethernet_frame
  title: Ethernet II frame with optional IEEE 802.1Q VLAN tags
  license: Apache-2.0
  ks-version: "0.11"
  endian: be
doc: |
  An Ethernet II frame as libpcap captures it (LINKTYPE_ETHERNET, 1): destination and source MAC, the
  EtherType, the payload. The frame check sequence is not captured. An EtherType of 0x8100 (802.1Q) or
  0x88A8 (802.1ad) means a VLAN tag follows, with the real EtherType after it; tags nest.
  Short frames are padded to 60 bytes on the wire, so the payload may end with padding that the IP
  header's own length excludes.
doc-ref: "IEEE 802.3 clause 3.2 (MAC frame); IEEE 802.1Q clause 9 (tag format); https://www.tcpdump.org/linktypes/LINKTYPE_ETHERNET.html"
seq:
  - id: dst_mac
    size: 6
    doc: Destination MAC address.
  - id: src_mac
    size: 6
    doc: Source MAC address.
  - id: ether_type
    type: u2
    doc: Protocol of the payload (0x0800 IPv4, 0x86DD IPv6, 0x8100 / 0x88A8 a VLAN tag follows).
  - id: body
    size-eos: true
    type:
      switch-on: ether_type
      cases:
        0x8100: vlan_tagged
        0x88a8: vlan_tagged
    doc: The VLAN-tagged rest of the frame, or for any other EtherType the payload bytes.
types:
  vlan_tagged:
    doc: An 802.1Q tag control field and the EtherType it wraps (IEEE 802.1Q clause 9.6).
    seq:
      - id: priority
        type: b3
        doc: Priority code point (PCP).
      - id: drop_eligible
        type: b1
        doc: Drop eligible indicator (DEI).
      - id: vlan_id
        type: b12
        doc: VLAN identifier (VID).
      - id: ether_type
        type: u2
        doc: Protocol of what follows, possibly another tag.
      - id: body
        size-eos: true
        type:
          switch-on: ether_type
          cases:
            0x8100: vlan_tagged
            0x88a8: vlan_tagged
        doc: Another tag, or the payload bytes.
