"""Synthetic captures for the capture tests, every header encoded by the generated codecs."""
from __future__ import annotations

from ipaddress import ip_address

from inlong_proto.generated.codec.capture import ipv4_packet as ip4, ipv6_packet as ip6, linux_sll, pcap, tcp_segment as tcp

CLIENT, SERVER = ("10.0.0.1", 40000), ("10.0.0.2", 9000)
LINK_RAW, LINK_SLL = 101, 113


def segment(src, dst, seq, data=b"", *, syn=False, ack=None, fin=False, rst=False, cut=0, v6=False) -> bytes:
    """An IP packet holding one TCP segment; `cut` bytes of its data are left out as a snap length would."""
    header = tcp.TcpSegment(src_port=src[1], dst_port=dst[1], seq_num=seq % 2**32, ack_num=(ack or 0) % 2**32,
                            data_offset=5, reserved=0, ns=False, cwr=False, ece=False, urg=False,
                            ack=ack is not None, psh=bool(data), rst=rst, syn=syn, fin=fin, window=65535,
                            checksum=0, urgent_pointer=0, options=b"", data=data)
    body = tcp.encode_tcp_segment(header)
    if v6:
        packet = ip6.encode_ipv6_packet(ip6.Ipv6Packet(
            version=6, traffic_class=0, flow_label=0, payload_length=len(body), next_header=6, hop_limit=64,
            src_addr=ip_address(src[0]).packed, dst_addr=ip_address(dst[0]).packed, rest=body))
    else:
        packet = ip4.encode_ipv4_packet(ip4.Ipv4Packet(
            version=4, ihl=5, dscp=0, ecn=0, total_length=20 + len(body), identification=0, reserved_flag=False,
            dont_fragment=True, more_fragments=False, fragment_offset=0, ttl=64, protocol=6, header_checksum=0,
            src_addr=ip_address(src[0]).packed, dst_addr=ip_address(dst[0]).packed, options=b"", rest=body))
    return packet[:len(packet) - cut]


def sll(packet: bytes) -> bytes:
    return linux_sll.encode_linux_sll(linux_sll.LinuxSll(packet_type=0, arphrd_type=772, address_length=6,
                                                         address=bytes(8), protocol=0x0800, payload=packet))


def pcap_file(packets, *, linktype=LINK_RAW, le=True, nano=False) -> bytes:
    """packets: [(timestamp ns, bytes)] (or bytes, timestamped 1 s apart)."""
    magic = {(True, False): pcap.Magic.le_micro, (True, True): pcap.Magic.le_nano,
             (False, False): pcap.Magic.be_micro, (False, True): pcap.Magic.be_nano}[le, nano]
    records = []
    for index, item in enumerate(packets):
        ts, data = item if isinstance(item, tuple) else ((index + 1) * 10**9, item)
        frac = ts % 10**9 if nano else ts % 10**9 // 1000
        records.append(pcap.Packet(ts_sec=ts // 10**9, ts_frac=frac, incl_len=len(data), orig_len=len(data), data=data))
    header = pcap.Header(version_major=2, version_minor=4, thiszone=0, sigfigs=0, snaplen=262144, linktype=linktype)
    return pcap.encode_pcap(pcap.Pcap(magic=magic, header=header, packets=records))


def conversation(request: bytes, response: bytes, *, isn=(1000, 5000), split=7):
    """Handshake, the request and the response in segments of `split` bytes, FINs: [(direction, packet)]."""
    c, s = isn
    out = [("c", segment(CLIENT, SERVER, c, syn=True)), ("s", segment(SERVER, CLIENT, s, syn=True, ack=c + 1)),
           ("c", segment(CLIENT, SERVER, c + 1, ack=s + 1))]
    for at in range(0, len(request), split):
        out.append(("c", segment(CLIENT, SERVER, c + 1 + at, request[at:at + split], ack=s + 1)))
    for at in range(0, len(response), split):
        out.append(("s", segment(SERVER, CLIENT, s + 1 + at, response[at:at + split], ack=c + 1 + len(request))))
    end_c, end_s = c + 1 + len(request), s + 1 + len(response)
    out += [("c", segment(CLIENT, SERVER, end_c, fin=True, ack=end_s)),
            ("s", segment(SERVER, CLIENT, end_s, fin=True, ack=end_c + 1))]
    return out
