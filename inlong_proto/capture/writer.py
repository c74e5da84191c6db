"""Writing captures: TCP conversations as IP packets, and pcap files of them. Sans-IO (bytes out).

For tests and for opening raw dumps in Wireshark / tcpdump. Every header is encoded by the generated
codecs of specs/capture, the same specs the reader decodes with, so a round trip checks both.

    conv = Conversation(client=("10.0.0.1", 40000), server=("10.0.0.2", 46801))
    packets = conv.open(ts) + conv.send("client", request, ts) + conv.send("server", response, ts) + conv.close(ts)
    data = pcap_file(packets)           # [(timestamp ns, IP packet)] -> pcap bytes (Ethernet II by default)
"""
from __future__ import annotations

from ipaddress import ip_address

from inlong_proto.generated.codec.capture import (ethernet_frame, ipv4_packet as ip4, ipv6_packet as ip6, linux_sll,
                                                  pcap, raw_ip, tcp_segment as tcp)
from inlong_proto.capture.tcp import ETHERTYPE_IPV4, ETHERTYPE_IPV6, IPPROTO_TCP, LINK_ETHERNET, LINK_SLL, SEQ_MOD

__all__ = ["Conversation", "LINK_ETHERNET", "LINK_RAW", "LINK_SLL", "pcap_file", "segment", "sll", "wrap"]

LINK_RAW = 101  # LINKTYPE_RAW: IPv4 or IPv6, told apart by the version nibble
_ARPHRD_LOOPBACK = 772


def segment(src: tuple[str, int], dst: tuple[str, int], seq: int, data: bytes = b"", *, syn: bool = False,
            ack: int | None = None, fin: bool = False, rst: bool = False, cut: int = 0) -> bytes:
    """One TCP segment in an IPv4 packet, or IPv6 when the addresses are. `cut` drops that many bytes from
    the end, as a snap length does, to test how readers handle cut packets. Checksums are left 0: readers
    (and Wireshark by default) do not verify them."""
    header = tcp.TcpSegment(src_port=src[1], dst_port=dst[1], seq_num=seq % SEQ_MOD, ack_num=(ack or 0) % SEQ_MOD,
                            data_offset=5, reserved=0, ns=False, cwr=False, ece=False, urg=False,
                            ack=ack is not None, psh=bool(data), rst=rst, syn=syn, fin=fin, window=65535,
                            checksum=0, urgent_pointer=0, options=b"", data=data)
    body = tcp.encode_tcp_segment(header)
    source, target = ip_address(src[0]), ip_address(dst[0])
    if source.version == 6:
        packet = ip6.encode_ipv6_packet(ip6.Ipv6Packet(
            version=6, traffic_class=0, flow_label=0, payload_length=len(body), next_header=IPPROTO_TCP,
            hop_limit=64, src_addr=source.packed, dst_addr=target.packed, rest=body))
    else:
        packet = ip4.encode_ipv4_packet(ip4.Ipv4Packet(
            version=4, ihl=5, dscp=0, ecn=0, total_length=20 + len(body), identification=0, reserved_flag=False,
            dont_fragment=True, more_fragments=False, fragment_offset=0, ttl=64, protocol=IPPROTO_TCP,
            header_checksum=0, src_addr=source.packed, dst_addr=target.packed, options=b"", rest=body))
    return packet[:len(packet) - cut]


def _ethertype(packet: bytes) -> int:
    first, _ = raw_ip.decode_raw_ip(packet)
    return ETHERTYPE_IPV6 if first.version == 6 else ETHERTYPE_IPV4


def sll(packet: bytes) -> bytes:
    """An IP packet behind the Linux "cooked" header that `tcpdump -i any` writes (LINKTYPE_LINUX_SLL)."""
    return linux_sll.encode_linux_sll(linux_sll.LinuxSll(
        packet_type=0, arphrd_type=_ARPHRD_LOOPBACK, address_length=6, address=bytes(8),
        protocol=_ethertype(packet), payload=packet))


def wrap(packet: bytes, linktype: int) -> bytes:
    """An IP packet as a capture of `linktype` holds it: Ethernet II (zero MACs), Linux SLL or raw IP."""
    if linktype == LINK_ETHERNET:
        return ethernet_frame.encode_ethernet_frame(ethernet_frame.EthernetFrame(
            dst_mac=bytes(6), src_mac=bytes(6), ether_type=_ethertype(packet), body=packet))
    if linktype == LINK_SLL:
        return sll(packet)
    if linktype == LINK_RAW:
        return packet
    raise ValueError(f"cannot write link type {linktype}: use LINK_ETHERNET, LINK_SLL or LINK_RAW")


def pcap_file(packets, *, linktype: int = LINK_ETHERNET, nano: bool = False, le: bool = True) -> bytes:
    """A classic pcap file of IP packets, each wrapped for `linktype`. packets: [(timestamp ns, packet)],
    or bare packets, stamped 1 s apart from 1 s (handy when only the order matters). nano: nanosecond
    stamps (else microseconds, truncated); le: byte order of the file."""
    magic = {(True, False): pcap.Magic.le_micro, (True, True): pcap.Magic.le_nano,
             (False, False): pcap.Magic.be_micro, (False, True): pcap.Magic.be_nano}[le, nano]
    records = []
    for index, item in enumerate(packets):
        ts, packet = item if isinstance(item, tuple) else ((index + 1) * 10**9, item)
        data = wrap(packet, linktype)
        frac = ts % 10**9 if nano else ts % 10**9 // 1000
        records.append(pcap.Packet(ts_sec=ts // 10**9, ts_frac=frac, incl_len=len(data), orig_len=len(data),
                                   data=data))
    header = pcap.Header(version_major=2, version_minor=4, thiszone=0, sigfigs=0, snaplen=262144, linktype=linktype)
    return pcap.encode_pcap(pcap.Pcap(magic=magic, header=header, packets=records))


class Conversation:
    """One TCP connection's packets, keeping each side's sequence number so that the segments a reader
    reassembles are what was sent. Methods return [(timestamp ns, IP packet)] for pcap_file; the
    handshake is optional (a capture may start mid-stream)."""

    def __init__(self, client: tuple[str, int], server: tuple[str, int], *, isn: tuple[int, int] = (1000, 5000),
                 mss: int = 1460):
        if mss < 1:
            raise ValueError("mss must be at least 1")
        self.ends = {"client": client, "server": server}
        self.isn = dict(zip(("client", "server"), isn))
        self.next = {side: (start + 1) % SEQ_MOD for side, start in self.isn.items()}  # after the SYN
        self.mss = mss

    def _other(self, side: str) -> str:
        if side not in self.ends:
            raise ValueError(f"side must be 'client' or 'server', not {side!r}")
        return "server" if side == "client" else "client"

    def _segment(self, side: str, seq: int, data: bytes = b"", **flags) -> bytes:
        return segment(self.ends[side], self.ends[self._other(side)], seq, data, **flags)

    def open(self, ts_ns: int) -> list[tuple[int, bytes]]:
        """SYN, SYN-ACK, ACK."""
        c, s = self.isn["client"], self.isn["server"]
        return [(ts_ns, self._segment("client", c, syn=True)),
                (ts_ns, self._segment("server", s, syn=True, ack=c + 1)),
                (ts_ns, self._segment("client", c + 1, ack=s + 1))]

    def send(self, side: str, data: bytes, ts_ns: int) -> list[tuple[int, bytes]]:
        """`data` from `side` ("client" or "server") in segments of at most mss bytes, acknowledging
        everything the other side sent."""
        ack = self.next[self._other(side)]
        out = []
        for at in range(0, len(data), self.mss):
            out.append((ts_ns, self._segment(side, self.next[side], data[at:at + self.mss], ack=ack)))
            self.next[side] = (self.next[side] + len(data[at:at + self.mss])) % SEQ_MOD
        return out

    def close(self, ts_ns: int) -> list[tuple[int, bytes]]:
        """FIN from the client, FIN-ACK from the server, the client's last ACK."""
        c, s = self.next["client"], self.next["server"]
        self.next = {"client": (c + 1) % SEQ_MOD, "server": (s + 1) % SEQ_MOD}
        return [(ts_ns, self._segment("client", c, fin=True, ack=s)),
                (ts_ns, self._segment("server", s, fin=True, ack=c + 1)),
                (ts_ns, self._segment("client", c + 1, ack=s + 1))]


def dump_to_pcap(data: bytes, protocol: str, *, client: tuple[str, int] = ("10.0.0.1", 40000),
                 server: tuple[str, int] = ("10.0.0.2", 46801), start_ns: int = 0, step_ns: int = 1_000_000,
                 linktype: int = LINK_ETHERNET) -> bytes:
    """A raw dump as one TCP conversation in a pcap, so that packet tools (tcpdump, Wireshark) and the
    capture readers can take it: each frame is sent by the side its direction names (responses by the
    server, everything else, error spans included, by the client), one frame per step_ns, since a dump
    has no clock. The frames come back byte for byte from iter_capture_frames."""
    from inlong_proto.core.frames import iter_frames

    conversation = Conversation(client, server)
    ts = start_ns
    packets = conversation.open(ts)
    for frame in iter_frames(data, protocol, mode="PERMISSIVE"):
        ts += step_ns
        side = "server" if frame.direction == "response" else "client"
        packets += conversation.send(side, data[frame.offset:frame.offset + frame.length], ts)
    return pcap_file(packets + conversation.close(ts + step_ns), linktype=linktype)
