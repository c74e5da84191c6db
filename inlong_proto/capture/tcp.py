"""Link layer -> IP -> TCP, and TCP reassembly of one direction of a connection. Sans-IO.

Every header is decoded by the generated codecs of specs/capture; this module only chooses which one
comes next (link type, EtherType, IP version, protocol number) and does the sequence arithmetic.
"""
from __future__ import annotations

import bisect
from functools import lru_cache
from ipaddress import ip_address
from typing import NamedTuple

from inlong_proto.core.errors import TruncatedError
from inlong_proto.generated.codec.capture import (bsd_loopback, ethernet_frame, ipv4_packet, ipv6_packet, linux_sll,
                                                  linux_sll2, raw_ip, tcp_segment)

# LINKTYPE_ values (https://www.tcpdump.org/linktypes.html) -> how to reach the IP packet.
LINK_ETHERNET, LINK_NULL, LINK_LOOP, LINK_SLL, LINK_SLL2 = 1, 0, 108, 113, 276
LINK_RAW = (101, 228, 229)  # LINKTYPE_RAW, _IPV4, _IPV6
ETHERTYPE_IPV4, ETHERTYPE_IPV6 = 0x0800, 0x86DD
AF_INET, AF_INET6 = 2, (10, 24, 28, 30)  # AF_INET6 differs per OS (Linux, BSDs, macOS)
IPPROTO_TCP = 6
SEQ_MOD = 1 << 32


class Segment(NamedTuple):
    """A TCP segment: endpoints, numbers and flags, the captured data, and how many data bytes the
    packet carried on the wire but the capture cut off (snap length)."""

    src: str
    src_port: int
    dst: str
    dst_port: int
    seq: int
    ack: int | None
    syn: bool
    fin: bool
    rst: bool
    data: bytes
    missing: int


def _ip_of(linktype: int, data: bytes):
    """(IP version, IP packet bytes) or None when the packet is not IP."""
    if linktype == LINK_ETHERNET:
        frame, _ = ethernet_frame.decode_ethernet_frame(data)
        ether_type, body = frame.ether_type, frame.body
        while isinstance(body, ethernet_frame.VlanTagged):
            ether_type, body = body.ether_type, body.body
        return _by_ethertype(ether_type, body)
    if linktype == LINK_SLL:
        header, _ = linux_sll.decode_linux_sll(data)
        return _by_ethertype(header.protocol, header.payload)
    if linktype == LINK_SLL2:
        header, _ = linux_sll2.decode_linux_sll2(data)
        return _by_ethertype(header.protocol, header.payload)
    if linktype in (LINK_NULL, LINK_LOOP):
        header, _ = bsd_loopback.decode_bsd_loopback(data)
        family = header.family_swapped if linktype == LINK_LOOP else header.family
        if linktype == LINK_NULL and family > 0xFFFF:  # written by a big-endian host
            family = header.family_swapped
        return (4, header.payload) if family == AF_INET else (6, header.payload) if family in AF_INET6 else None
    if linktype in LINK_RAW:
        first, _ = raw_ip.decode_raw_ip(data)
        return (first.version, data) if first.version in (4, 6) else None
    return None


def _by_ethertype(ether_type: int, payload: bytes):
    return (4, payload) if ether_type == ETHERTYPE_IPV4 else (6, payload) if ether_type == ETHERTYPE_IPV6 else None


def segment_of(linktype: int, data: bytes) -> Segment | None:
    """The TCP segment a packet carries; None when it carries none (another protocol, an IP fragment, an
    IPv6 extension header before TCP). Raises DecodeError when a header is malformed or cut."""
    found = _ip_of(linktype, data)
    if found is None:
        return None
    version, packet = found
    if version == 4:
        ip, _ = ipv4_packet.decode_ipv4_packet(packet)
        if ip.protocol != IPPROTO_TCP or ip.more_fragments or ip.fragment_offset:
            return None
        length = ip.total_length - ip.ihl * 4
    else:
        ip, _ = ipv6_packet.decode_ipv6_packet(packet)
        if ip.next_header != IPPROTO_TCP:
            return None
        length = ip.payload_length
    payload = ip.rest[:length]
    tcp, _ = tcp_segment.decode_tcp_segment(payload)
    on_wire = length - tcp.data_offset * 4
    if on_wire < 0:
        raise TruncatedError(len(payload), "tcp.options", "the IP length ends inside the TCP header")
    data = tcp.data[:on_wire]
    return Segment(_address(ip.src_addr), tcp.src_port, _address(ip.dst_addr), tcp.dst_port,
                   tcp.seq_num, tcp.ack_num if tcp.ack else None, tcp.syn, tcp.fin, tcp.rst, data,
                   on_wire - len(data))


@lru_cache(maxsize=4096)
def _address(raw: bytes) -> str:
    """An address as text; cached, as a capture repeats the same few endpoints in every packet."""
    return str(ip_address(raw))


class Chunk(NamedTuple):
    """A stretch of one direction's stream: data at a stream offset, or a gap (data is None). The
    reassembler's output, and also what it holds while earlier bytes are missing."""

    offset: int
    length: int
    data: bytes | None
    timestamp_ns: int
    file_offset: int
    reason: str = ""


class Reassembler:
    """One direction of one TCP connection: segments in any order in, contiguous chunks and gaps out.

    Stream offsets count from the first data byte (after the SYN, or the first segment seen when the
    capture began mid-stream). Sequence numbers are compared modulo 2^32 relative to the next expected
    byte, so wraparound needs nothing special. Out-of-order data waits (at most max_pending bytes, then
    the hole before it is declared a gap); retransmitted or overlapping bytes are dropped, and reported
    (`conflicts`) when they differ from the copy already taken, which is kept. A hole is declared a gap
    (never guessed) when the pending data overflows or when the connection ends (FINs, RST, end of
    capture) with data after it, and bytes a packet carried but the capture cut (snap length) are a gap
    where they fall. Pending pieces are capped in number too (max_pieces): tiny segments each leaving a
    hole would otherwise cost memory per piece without nearing max_pending; every operation is then
    linear in the pieces it touches. Acknowledgments are not used to declare holes early: captures on `any` can show an
    ACK before the data it acknowledges, so a hole waits for one of those events instead.
    """

    def __init__(self, max_pending: int = 1 << 22, recent: int = 1 << 16, max_pieces: int = 4096):
        self.next_seq: int | None = None  # sequence number of the next expected byte
        self.offset = 0  # stream offset of next_seq
        self.max_pending, self.recent_limit, self.max_pieces = max_pending, recent, max_pieces
        self._pending: list[Chunk] = []  # what waits for the bytes before it (data None: a known gap), by offset
        self.pending_bytes = 0
        self._recent = bytearray()  # the last bytes delivered, to compare retransmissions with
        self.conflicts: list[tuple[int, int]] = []  # (stream offset, length) of retransmitted bytes that differ
        self.fin_at: int | None = None  # stream offset of the FIN: data before it that never came is a gap

    def syn(self, seq: int) -> None:
        self.next_seq = (seq + 1) % SEQ_MOD

    def _at(self, seq: int) -> int:
        delta = (seq - self.next_seq) % SEQ_MOD
        return self.offset + (delta - SEQ_MOD if delta >= SEQ_MOD // 2 else delta)

    def add(self, seq: int, data: bytes, missing: int, ts: int, file_offset: int, fin: bool = False) -> list[Chunk]:
        if self.next_seq is None:  # mid-stream start: this segment's first byte is offset 0
            self.next_seq = seq
        start = self._at(seq)
        if fin:
            self.fin_at, self._fin_origin = start + len(data) + missing, (ts, file_offset)
        if data:
            self._insert(start, data, len(data), ts, file_offset, "")
        if missing:
            self._insert(start + len(data), None, missing, ts, file_offset, "the capture cut this packet (snap length)")
        out = self._drain()
        if self.pending_bytes > self.max_pending or len(self._pending) > self.max_pieces:
            # Down to half the caps at once, so that the holes cost one pass, not one pass each.
            keep_bytes, keep_pieces, forced = self.max_pending // 2, self.max_pieces // 2, 0
            bytes_left = self.pending_bytes
            while forced < len(self._pending) and (bytes_left > keep_bytes or
                                                    len(self._pending) - forced > keep_pieces):
                piece = self._pending[forced]
                bytes_left -= piece.length if piece.data is not None else 0
                forced += 1
            out += self._drain(forced, "out-of-order buffer full")
        return out

    def finish(self, why: str) -> list[Chunk]:
        """End of the direction: every hole before pending data, or before the FIN, is a gap."""
        out = self._drain(len(self._pending), why)
        if self.fin_at is not None and self.fin_at > self.offset:
            self._insert(self.offset, None, self.fin_at - self.offset, *self._fin_origin,
                         f"bytes missing from the capture ({why})")
            out += self._drain()
        return out

    def _insert(self, start: int, data: bytes | None, length: int, ts: int, file_offset: int, reason: str) -> None:
        if start < self.offset:  # (partly) retransmitted: compare with what was delivered
            if data is not None:
                self._compare(start, data[:self.offset - start])
                data = data[self.offset - start:]
            length -= self.offset - start
            start = self.offset
            if length <= 0:
                return
        index = bisect.bisect_left(self._pending, start, key=lambda piece: piece.offset)
        if index and self._pending[index - 1].offset + self._pending[index - 1].length > start:
            index -= 1
        while length > 0 and index < len(self._pending):
            other, other_length, other_data = self._pending[index][:3]
            if other >= start + length:
                break
            if other > start:  # the part before the other piece is new
                head = other - start
                self._put(index, Chunk(start, head, data[:head] if data is not None else None, ts, file_offset,
                                       reason))
                data = data[head:] if data is not None else None
                start, length, index = other, length - head, index + 1
                continue
            overlap = min(other + other_length, start + length) - start
            if data is not None and other_data is not None and \
                    other_data[start - other:start - other + overlap] != data[:overlap]:
                self.conflicts.append((start, overlap))
            data = data[overlap:] if data is not None else None
            start, length, index = start + overlap, length - overlap, index + 1
        if length > 0:
            self._put(index, Chunk(start, length, data, ts, file_offset, reason))

    def _put(self, index: int, piece: Chunk) -> None:
        self._pending.insert(index, piece)
        if piece.data is not None:
            self.pending_bytes += piece.length

    def _compare(self, start: int, data: bytes) -> None:
        kept_from = self.offset - len(self._recent)
        lo = max(start, kept_from)
        if lo < start + len(data) and self._recent[lo - kept_from:start + len(data) - kept_from] != data[lo - start:]:
            self.conflicts.append((lo, start + len(data) - lo))

    def _drain(self, forced: int = 0, why: str = "") -> list[Chunk]:
        """Deliver the pending pieces that are next in the stream, and the first `forced` ones whatever
        the hole before each (declared a gap, for `why`)."""
        out, taken, pending = [], 0, self._pending
        while taken < len(pending) and (pending[taken].offset <= self.offset or taken < forced):
            piece = pending[taken]
            taken += 1
            if piece.offset > self.offset:  # a hole, never to be filled: a gap
                out.append(Chunk(self.offset, piece.offset - self.offset, None, piece.timestamp_ns,
                                 piece.file_offset, f"bytes missing from the capture ({why})"))
                self._recent.clear()
                self.next_seq = (self.next_seq + piece.offset - self.offset) % SEQ_MOD
                self.offset = piece.offset
            start, length, data = piece[:3]
            if data is not None:
                self.pending_bytes -= length
            skip = self.offset - start  # a piece inside a gap already declared
            if skip >= length:
                continue
            if data is not None:
                data = data[skip:]
                self._recent += data
                del self._recent[:max(0, len(self._recent) - self.recent_limit)]
            else:
                self._recent.clear()
            out.append(piece._replace(offset=self.offset, length=length - skip, data=data))
            self.offset += length - skip
            self.next_seq = (self.next_seq + length - skip) % SEQ_MOD
        del pending[:taken]  # once: popping one by one from the front is quadratic
        return out
