meta:
  id: linux_sll2
  title: Linux "cooked" capture header, version 2 (LINKTYPE_LINUX_SLL2)
  license: Apache-2.0
  ks-version: "0.11"
  endian: be
doc: |
  The 20-byte pseudo header current libpcap writes for captures on Linux's "any" device (tcpdump -i any,
  LINKTYPE_LINUX_SLL2, 276). Unlike version 1 it starts with the protocol and names the interface.
doc-ref: "https://www.tcpdump.org/linktypes/LINKTYPE_LINUX_SLL2.html"
seq:
  - id: protocol
    type: u2
    doc: EtherType of the payload (0x0800 IPv4, 0x86DD IPv6).
  - id: reserved
    type: u2
    doc: Reserved, 0.
  - id: interface_index
    type: u4
    doc: Index of the interface the packet was captured on (1 is usually lo).
  - id: arphrd_type
    type: u2
    doc: ARPHRD_ type of the device (772 loopback, 1 Ethernet).
  - id: packet_type
    type: u1
    doc: 0 to us, 1 broadcast, 2 multicast, 3 to another host, 4 sent by us.
  - id: address_length
    type: u1
    doc: Bytes of the link-layer address that are meaningful.
  - id: address
    size: 8
    doc: Link-layer source address, zero-padded to 8 bytes.
  - id: payload
    size-eos: true
    doc: The packet after the pseudo header.
