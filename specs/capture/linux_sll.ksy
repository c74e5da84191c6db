meta:
  id: linux_sll
  title: Linux "cooked" capture header, version 1 (LINKTYPE_LINUX_SLL)
  license: Apache-2.0
  ks-version: "0.11"
  endian: be
doc: |
  The 16-byte pseudo header libpcap writes for captures on Linux's "any" device with older libpcap
  (LINKTYPE_LINUX_SLL, 113). The protocol field is an EtherType for IP packets.
doc-ref: "https://www.tcpdump.org/linktypes/LINKTYPE_LINUX_SLL.html"
seq:
  - id: packet_type
    type: u2
    doc: 0 to us, 1 broadcast, 2 multicast, 3 to another host, 4 sent by us (loopback shows 0 and 4).
  - id: arphrd_type
    type: u2
    doc: ARPHRD_ type of the device (772 loopback, 1 Ethernet).
  - id: address_length
    type: u2
    doc: Bytes of the link-layer address that are meaningful.
  - id: address
    size: 8
    doc: Link-layer source address, zero-padded to 8 bytes.
  - id: protocol
    type: u2
    doc: EtherType of the payload (0x0800 IPv4, 0x86DD IPv6).
  - id: payload
    size-eos: true
    doc: The packet after the pseudo header.
