"""Captures: pcap / pcapng files (tcpdump, dumpcap) in, protocol frames with their TCP flow out. Sans-IO.

    for item in iter_capture_frames(open("lo.pcap", "rb").read(), protocol="auto", mode="PERMISSIVE"):
        item.flow.client, item.flow.server_port, item.direction, item.timestamp, item.frame.message_type

Layers, each from the generated codecs of specs/capture: the container (container.py), link -> IP -> TCP
and per-direction reassembly (tcp.py), then here the connections: who is client and server, which
protocol the flow speaks, and each direction's bytes through the protocol's stream decoder
(frames.StreamDecoder, or the EventMesh HTTP decoder).

* client = the sender of the SYN (or the receiver of the SYN-ACK); without a handshake in the capture,
  the side not on a known server port (SERVER_PORTS), else the side with the higher port.
* protocol: with protocol="auto", detect.classify, the one "auto" rule: content first (a stream protocol's
  opening, then the framed protocols' scores on the client's first bytes, else the server's), then the server
  port (the registry's). Content wins when they disagree. A flow is classified once its client has sent
  DETECT_BYTES bytes or its server 4x that, or it ends or has a gap (what waits meanwhile is bounded).
* Frames and error spans of one direction tile its reassembled bytes (PERMISSIVE): gaps are error spans
  of kind "gap" after which the stream decoder restarts; an unrecognised flow is error spans. A protocol
  whose registry entry names a connection context (EventMesh gRPC: eventmesh.h2.H2Connection, its streams,
  calls and the capture clock) has both directions' decoders share one.
* Memory: one record of the file, per open connection the out-of-order data (max_pending) and one
  partial frame per direction. A connection is freed once both sides have closed (FIN or RST); its 4-tuple
  is remembered (at most MAX_CLOSED of them) so that its last ACKs or a retransmitted FIN start no new
  flow. A connection that never got past SYNs is forgotten after SYN_TIMEOUT of capture time, and past
  MAX_SYN_ONLY of those or MAX_OPEN open connections the least recently active goes first.
"""
from __future__ import annotations

import bisect
import heapq
from collections import OrderedDict
from contextlib import contextmanager
from datetime import datetime
from itertools import takewhile
from typing import Iterator, NamedTuple

from inlong_proto.core import protocols
from inlong_proto.core.detect import classify as detect_classify
from inlong_proto.core.errors import DecodeError, TruncatedError, ValidationError
from inlong_proto.core.frames import Frame, check_max_frame_size, stream_decoder
from inlong_proto.core.stream import check_mode
from inlong_proto.capture.container import ContainerError, Packet, PacketReader, is_capture, iter_packets, ns_datetime
from inlong_proto.capture.tcp import Chunk, Reassembler, Segment, segment_of

__all__ = ["CaptureDecoder", "CaptureFrame", "Flow", "GapError", "Packet", "PacketReader", "SERVER_PORTS",
           "classify", "container_error_frame", "is_capture", "iter_capture_frames", "iter_packets", "packet_segment"]

# Default server ports of the real projects (docs/protocols): DataProxy 46801; TubeMQ master
# 8715 and broker 8123; EventMesh TCP 10000, HTTP 10105, gRPC 10205. Broadcast has none (content only).
SERVER_PORTS = protocols.SERVER_PORTS  # from the specs' registry blocks
UNKNOWN = "unknown"
DETECT_BYTES = 4096
# A 4-tuple silent this long in capture time is forgotten (CaptureDecoder): ten minutes, past every
# server's own idle timeout (DataProxy 180 s, EventMesh 120 s) and Linux's TIME_WAIT (60 s).
IDLE_TIMEOUT = 600.0
# A connection whose packets so far are all SYNs (SYN or SYN-ACK, no data, FIN or RST: a scan, a flood, an
# unanswered connect) holds no data: it is forgotten after this much capture time without a packet (Linux
# resends a SYN after 1, 2, then 4 s), and a later packet of its 4-tuple starts a new connection.
SYN_TIMEOUT = 5.0
MAX_SYN_ONLY = 4096  # such connections held at once (Linux's tcp_max_syn_backlog on a large host)
# Open connections held at once (the usual nf_conntrack_max): past it the least recently active one is
# finished, as if it had ended (its unfinished frame is an error span), and its 4-tuple forgotten.
MAX_OPEN = 1 << 16
# Closed 4-tuples remembered (for idle_timeout of capture time): their late ACKs and retransmitted FINs
# are ignored rather than starting a flow; past this many the least recently seen is forgotten.
MAX_CLOSED = 1 << 16
# With protocol="auto", frames wait while an earlier flow is not yet classified, so that they come out in
# capture order; past this many waiting frames the oldest go out anyway (memory stays bounded; the order
# is then only approximate, which the docstring says).
MAX_HELD_FRAMES = 1 << 16


class GapError(TruncatedError):
    """Bytes of a TCP stream that the capture does not hold (lost or cut); never guessed."""

    kind = "gap"


class Flow(NamedTuple):
    """One TCP connection: its number in the capture (a reused 4-tuple gets a new one), its ends, and the
    file offset of its first packet (its id in the Spark readers: it needs no count of the connections
    before it, so a reader that splits the file finds the same one)."""

    number: int
    client: str
    client_port: int
    server: str
    server_port: int
    transport: str = "tcp"
    first_packet_offset: int | None = None

    def to_dict(self) -> dict:
        return self._asdict()


class CaptureFrame(NamedTuple):
    """A frame (or error span) of one direction of a flow. frame.offset/length are in that direction's
    reassembled stream; timestamp_ns and file_offset are those of the packet holding its first byte.
    direction: "request" = client to server, "response" = server to client. flow is None only for a
    broken container (frame.protocol "capture")."""

    frame: object
    flow: Flow | None
    direction: str | None
    timestamp_ns: int | None
    file_offset: int

    @property
    def timestamp(self) -> datetime | None:
        return None if self.timestamp_ns is None else ns_datetime(self.timestamp_ns)

    def to_dict(self) -> dict:
        out = {"flow": self.flow.to_dict() if self.flow else None, "stream": self.direction,
               "timestamp": self.timestamp.isoformat() if self.timestamp is not None else None,
               "timestamp_ns": self.timestamp_ns, "file_offset": self.file_offset}
        out.update(self.frame.to_dict())
        return out


def _error_frame(protocol: str, offset: int, length: int, error: DecodeError, raw: bytes = b"") -> Frame:
    return Frame(protocol, offset, length, None, None, None, error, raw)


def in_flow(error: DecodeError, flow: Flow, direction: str) -> DecodeError:
    """error (FAILFAST's) led by the flow and direction it was found in (error.where): its offset is one of
    that direction's reassembled stream, which says nothing in a file of many flows."""
    if not error.where:
        error.where = (f"flow {flow.number} {flow.client}:{flow.client_port} → {flow.server}:{flow.server_port} "
                       f"{direction}")
        error.args = (f"{error.where}, {error}",)
    return error


class _Framer:
    """One direction's bytes through the flow protocol's stream decoder, restarted after each gap."""

    def __init__(self, flow: Flow, protocol: str, direction: str, mode: str, shared: dict | None = None,
                 max_frame_size: int | None = None):
        self.flow, self.protocol, self.direction, self.mode = flow, protocol, direction, mode
        self.max_frame_size = max_frame_size  # None: each protocol's own
        self.shared = shared if shared is not None else {}  # what both directions' decoders share
        self.base = 0  # stream offset where the current decoder started
        self.decoder = self._new()

    @property
    def context(self):
        """The state both directions of the connection share (HTTP/2's streams and calls), made once, when
        the protocol's registry entry names one; None otherwise."""
        if "connection" not in self.shared:
            self.shared["connection"] = protocols.connection_context(self.protocol)
        return self.shared["connection"]

    def _new(self):
        if self.protocol in protocols.STREAM_PROTOCOLS:
            return stream_decoder(self.protocol, self.direction, mode=self.mode, offset=self.base,
                                  connection=self.context)
        if self.protocol in protocols.names():
            directional = protocols.get(self.protocol).directional
            return stream_decoder(self.protocol, self.direction if directional else None, mode=self.mode,
                                  offset=self.base, max_frame_size=self.max_frame_size)
        return None  # unrecognised: every byte is an error span

    @property
    def buffered(self) -> int:
        return self.decoder.buffered if self.decoder is not None else 0

    def data(self, chunk: Chunk) -> list:
        with self._located():
            if self.decoder is None:
                why = "no known protocol was recognised in this flow"
                return self._span(chunk.offset, chunk.length, ValidationError(chunk.offset, "", why), chunk.data)
            if self.context is not None:
                self.context.now_ns = chunk.timestamp_ns  # the capture clock (call latencies)
            return self.decoder.feed(chunk.data)

    def gap(self, chunk: Chunk) -> list:
        with self._located():
            if self.context is not None:  # what the connection shares (its calls) goes on after a gap
                out = self.decoder.close(end_calls=False)
            else:
                out = self.close()
            out += self._span(chunk.offset, chunk.length, GapError(chunk.offset, "tcp", f"{chunk.length} bytes: "
                                                                                f"{chunk.reason}"), b"")
        self.base = chunk.offset + chunk.length
        self.decoder = self._new()
        return out

    def close(self) -> list:
        with self._located():
            return self.decoder.close() if self.decoder is not None else []

    @contextmanager
    def _located(self):
        """What the decoder raises (FAILFAST) names this framer's flow and direction (in_flow)."""
        try:
            yield
        except DecodeError as error:
            raise in_flow(error, self.flow, self.direction)

    def _span(self, offset: int, length: int, error: DecodeError, raw: bytes) -> list:
        if self.mode == "FAILFAST":
            raise error
        return [_error_frame(self.protocol, offset, length, error, raw)] if self.mode == "PERMISSIVE" else []


class _Side:
    """One direction of a connection: reassembly, chunks waiting for classification, framing, and which
    packet each stream offset came from (pruned as frames complete)."""

    def __init__(self, max_pending: int):
        self.stream = Reassembler(max_pending)
        self.waiting: list[tuple[Chunk, int]] = []  # with the number of the segment that delivered each
        self.waiting_bytes = 0
        self.framer: _Framer | None = None
        self.starts: list[int] = []  # stream offsets where delivered chunks start
        self.origins: list[tuple[int, int]] = []  # (timestamp ns, file offset) of those chunks
        self.end = 0
        self.conflicts_seen = 0

    def origin(self, offset: int) -> tuple[int, int]:
        index = max(0, bisect.bisect_right(self.starts, offset) - 1)
        return self.origins[index] if self.origins else (None, 0)

    def prune(self) -> None:
        oldest = self.end - (self.framer.buffered if self.framer else self.waiting_bytes)
        cut = max(0, bisect.bisect_right(self.starts, oldest) - 1)
        if cut:
            del self.starts[:cut], self.origins[:cut]


class _Connection:
    def __init__(self, flow: Flow, max_pending: int, timestamp_ns: int, rank: int):
        self.flow = flow
        self.protocol: str | None = None
        self.sides = {"request": _Side(max_pending), "response": _Side(max_pending)}
        self.closed = {"request": False, "response": False}
        self.last_ns = timestamp_ns  # capture time of its 4-tuple's last packet (idle expiry)
        self.rank = rank  # its 4-tuple's order of appearance (a 4-tuple forgotten and seen again is new)
        self.shared: dict = {}  # state both directions' framers share (EventMesh gRPC's HTTP/2 connection)
        self.totals = {"flow": flow, "protocol": None, "bytes": {"request": 0, "response": 0},
                       "frames": {"request": 0, "response": 0}, "errors": {"request": 0, "response": 0},
                       "gaps": 0, "closed": False}


def classify(client_head: bytes, server_head: bytes = b"", server_port: int = 0) -> str:
    """The protocol of a flow (or a raw dump: its bytes as the client head) from its first bytes, then its
    port: a protocol name (the HTTP/2 preface, or HTTP/2 frames from the first byte: "eventmesh-grpc") or
    "unknown"."""
    return detect_classify(client_head, server_head, server_port) or UNKNOWN


class CaptureDecoder:
    """Sans-IO: feed() the bytes of a pcap / pcapng file in chunks (or feed_packet() packets from your
    own reader), get CaptureFrame items back; close() at the end of the capture.

    protocol: "auto" (classify each flow) or a protocol name for every flow. mode: PERMISSIVE (error
    spans, the stream decoder resynchronises, gaps are spans), DROPMALFORMED, FAILFAST (the first error,
    a gap included, raises). Counters in `stats`; per-flow totals in `flows` (closed flows included)
    unless keep_flows is False (then memory does not grow with the number of connections seen).
    on_bytes(flow, direction, chunk), if given, sees each direction's reassembled bytes in stream order
    (chunk.data None for a gap), before they are framed: what `inspect` shows the frames' bytes from.

    Memory is bounded by the open connections, each by max_pending bytes per direction. A 4-tuple with
    no packet for idle_timeout seconds of capture time is forgotten: an open (half-open, abandoned)
    connection is finished then, with reason "idle", and a later packet on it starts a new connection,
    as a connection-tracking firewall would see it; a closed one's stray ACKs stop being ignored. The
    rule depends only on the 4-tuple's own packet times, so a reader that replays each 4-tuple apart
    (spark_capture) finds the same connections; with capture times that go backwards by more than
    idle_timeout the two may differ. None keeps every 4-tuple until the end of the capture.

    max_frame_size: the largest frame of a framed protocol, for every flow (None: each protocol's spec limit;
    at most frames.MAX_FRAME_SIZE_CEILING, else ValueError).

    The other limits (keywords; None: the module constant of the name in capitals): a connection of
    SYNs only is forgotten after syn_timeout (None: never); past max_syn_only of those, or max_open open
    connections, the least recently active is forgotten (finished first, with a reason naming the limit);
    at most max_closed closed 4-tuples are remembered. The caps depend on the other 4-tuples: a reader
    replaying each 4-tuple apart never reaches them. Every packet costs O(1) in the number of connections:
    the tables are kept in order of last activity, and only their oldest entries are looked at.

    Order: items come out in the order their last byte was captured (the segment that completed them),
    whatever the protocol setting. With "auto" a flow's frames wait until the flow is classified, and so
    do the later frames of other flows; more than MAX_HELD_FRAMES of those waiting release the oldest out
    of order rather than grow.
    """

    def __init__(self, protocol: str = "auto", mode: str = "FAILFAST", *, max_pending: int = 1 << 22,
                 idle_timeout: float | None = IDLE_TIMEOUT, keep_flows: bool = True, on_bytes=None,
                 syn_timeout: float | None = SYN_TIMEOUT, max_syn_only: int | None = None,
                 max_open: int | None = None, max_closed: int | None = None, max_frame_size: int | None = None):
        self.mode = check_mode(mode)
        self.max_frame_size = check_max_frame_size(max_frame_size)  # None: each flow's protocol's own limit
        self.on_bytes = on_bytes  # called (flow, direction, chunk) with each chunk of a reassembled stream
        self.idle_ns = None if idle_timeout is None else int(idle_timeout * 1e9)
        self.idle_reason = None if idle_timeout is None else f"idle for over {idle_timeout:g} s of capture time"
        self.syn_ns = None if syn_timeout is None else int(syn_timeout * 1e9)
        self.max_syn_only, self.max_open, self.max_closed = (
            MAX_SYN_ONLY if max_syn_only is None else max_syn_only, MAX_OPEN if max_open is None else max_open,
            MAX_CLOSED if max_closed is None else max_closed)
        if min(self.max_syn_only, self.max_open, self.max_closed) < 1:
            raise ValueError("max_syn_only, max_open and max_closed must be at least 1")
        self.keep_flows = keep_flows
        self.now_ns: int | None = None  # the latest capture time seen
        self._count = 0  # connections opened
        self._tuples = 0  # 4-tuples that appeared (again, once forgotten): the order close() finishes them in
        protocol = protocol if protocol == "auto" else protocols.canonical(protocol)
        if protocol != "auto" and protocol not in protocols.names() and protocol not in protocols.STREAM_PROTOCOLS:
            protocols.get(protocol)  # raises UnknownProtocolError with the list of names
        self.protocol = protocol
        self.max_pending = max_pending
        self.reader = PacketReader(self.mode)
        # 4-tuple -> open connection, least recently active first; those of SYNs only are in _syn_only too
        self._open: OrderedDict[tuple, _Connection] = OrderedDict()
        self._syn_only: OrderedDict[tuple, _Connection] = OrderedDict()
        self._closed: OrderedDict[tuple, tuple[int, int]] = OrderedDict()  # 4-tuple -> (last packet ns, rank)
        self._segment = 0  # segments fed: the capture-order key of what each one completes
        self._held: list[tuple[int, int, CaptureFrame]] = []  # (segment, emission count, item), a heap
        self._emitted = 0
        self._unclassified: list[tuple[int, int]] = []  # (first waiting segment, flow number), lazily pruned
        self._waiting_since: dict[int, int] = {}  # flow number -> its first waiting chunk's segment
        self._late = False  # _Late items are on their way out
        self.flows: dict[int, dict] = {}
        self.stats = {"packets": 0, "tcp": 0, "not_tcp": 0, "malformed": 0}

    def feed(self, data: bytes) -> list[CaptureFrame]:
        return self._packets(self.reader.feed(data))

    def close(self) -> list[CaptureFrame]:
        out = self._packets(self.reader.close())
        finished = []
        for conn in sorted(self._open.values(), key=lambda conn: conn.rank):
            idle = self._idle(conn.last_ns, self.now_ns)
            finished += self._finish(conn, self.idle_reason if idle else "end of capture")
        self._open.clear()
        self._syn_only.clear()
        self._closed.clear()
        return out + self._in_order(finished, final=True)

    def _in_order(self, items: list, final: bool = False) -> list[CaptureFrame]:
        """Items released in capture order: those completed by segment n wait while a flow whose bytes
        arrived at or before n is still unclassified (only ever the case with protocol "auto"). An item
        is a CaptureFrame completed by the current segment, or a _Late one completed by an earlier one."""
        if not (self._held or self._waiting_since or self._late or final):
            return items  # the common case: nothing waits, items are already in order
        self._late = False
        for item in items:
            key, item = (item.segment, item.item) if isinstance(item, _Late) else (self._segment, item)
            heapq.heappush(self._held, (key, self._emitted, item))
            self._emitted += 1
        while self._unclassified and self._waiting_since.get(self._unclassified[0][1]) != self._unclassified[0][0]:
            heapq.heappop(self._unclassified)  # classified or finished since
        watermark = None if final or not self._unclassified else self._unclassified[0][0]
        out = []
        while self._held and (watermark is None or self._held[0][0] < watermark
                              or len(self._held) > MAX_HELD_FRAMES):
            out.append(heapq.heappop(self._held)[2])
        return out

    def _idle(self, last_ns: int | None, now_ns: int | None) -> bool:
        """Whether a 4-tuple whose last packet came at last_ns is forgotten at capture time now_ns."""
        return self.idle_ns is not None and now_ns is not None and last_ns is not None and \
            now_ns - last_ns > self.idle_ns

    def _sweep(self) -> list[CaptureFrame]:
        """Forget what is idle at the latest capture time, looking only at each table's least recently active
        entries (capture times that go backwards can leave an idle one behind a newer one for a while)."""
        out: list[CaptureFrame] = []
        now = self.now_ns
        if now is None:
            return out
        while self._syn_only and self.syn_ns is not None:
            key, conn = next(iter(self._syn_only.items()))
            if now - conn.last_ns <= self.syn_ns:
                break
            out += self._forget(key, f"SYNs only, then nothing for over {self.syn_ns / 1e9:g} s of capture time")
        while self._open:
            key, conn = next(iter(self._open.items()))
            if not self._idle(conn.last_ns, now):
                break
            out += self._forget(key, self.idle_reason)
        while self._closed and self._idle(next(iter(self._closed.values()))[0], now):
            self._closed.popitem(last=False)
        return out

    def _over_caps(self) -> list[CaptureFrame]:
        """Forget the least recently active connections past max_syn_only and max_open."""
        out: list[CaptureFrame] = []
        while len(self._syn_only) > self.max_syn_only:
            out += self._forget(next(iter(self._syn_only)), f"over {self.max_syn_only} connections of SYNs only")
        while len(self._open) > self.max_open:
            out += self._forget(next(iter(self._open)), f"over {self.max_open} open connections (the least "
                                                        f"recently active is finished first)")
        return out

    def _forget(self, key: tuple, why: str) -> list[CaptureFrame]:
        """Finish an open connection and forget its 4-tuple: its next packet starts a new connection."""
        conn = self._open.pop(key)
        self._syn_only.pop(key, None)
        return self._finish(conn, why)

    def _packets(self, items: list) -> list[CaptureFrame]:
        out: list[CaptureFrame] = []
        for item in items:
            if isinstance(item, ContainerError):
                out += self._in_order([container_error_frame(item)])
            else:
                out += self.feed_packet(item)
        return out

    def feed_packet(self, packet: Packet) -> list[CaptureFrame]:
        self.stats["packets"] += 1
        self.see(packet.timestamp_ns)
        try:
            segment = packet_segment(packet)
        except ValidationError:
            self.stats["malformed"] += 1
            if self.mode == "FAILFAST":
                raise
            return []
        if segment is None:
            self.stats["not_tcp"] += 1
            return []
        self.stats["tcp"] += 1
        return self.feed_segment(segment, packet.timestamp_ns, packet.file_offset)

    def see(self, timestamp_ns: int | None) -> None:
        """A packet's capture time (any packet, TCP or not): the clock of idle expiry."""
        if timestamp_ns is not None and (self.now_ns is None or timestamp_ns > self.now_ns):
            self.now_ns = timestamp_ns

    def feed_segment(self, seg: Segment, timestamp_ns: int, file_offset: int) -> list[CaptureFrame]:
        """A TCP segment already taken out of its packet (packet_segment), with that packet's capture time
        and file offset: what feed_packet does after decoding the headers."""
        self._segment += 1
        return self._in_order(self._segment_items(seg, timestamp_ns, file_offset))

    def _segment_items(self, seg: Segment, timestamp_ns: int, file_offset: int) -> list:
        ends = ((seg.src, seg.src_port), (seg.dst, seg.dst_port))
        key = tuple(sorted(ends))
        out = self._sweep()
        conn = self._open.get(key)
        if conn is not None and self._idle(conn.last_ns, timestamp_ns):
            out += self._forget(key, self.idle_reason)
            conn = None
        syns_only = seg.syn and not (seg.fin or seg.rst or seg.data or seg.missing)
        if conn is None:
            rank = None
            if key in self._closed:
                last_ns, rank = self._closed.pop(key)
                if self._idle(last_ns, timestamp_ns):
                    rank = None
                elif not (seg.syn and seg.ack is None):  # not a new connection on the same 4-tuple:
                    self._closed[key] = (timestamp_ns, rank)  # the last ACKs (or a retransmitted FIN)
                    return out
            if rank is None:
                rank, self._tuples = self._tuples, self._tuples + 1
            conn = self._open[key] = self._new(seg, timestamp_ns, file_offset, rank)
            if syns_only:
                self._syn_only[key] = conn
        else:
            conn.last_ns = timestamp_ns
            self._open.move_to_end(key)
            if key in self._syn_only:
                if syns_only:
                    self._syn_only.move_to_end(key)
                else:
                    del self._syn_only[key]
        direction = "request" if (seg.src, seg.src_port) == (conn.flow.client, conn.flow.client_port) else "response"
        side = conn.sides[direction]
        ts, at = timestamp_ns, file_offset
        if seg.syn:
            side.stream.syn(seg.seq)
        seq = (seg.seq + 1) % (1 << 32) if seg.syn else seg.seq
        out += self._chunks(conn, direction, side.stream.add(seq, seg.data, seg.missing, ts, at, seg.fin))
        out += self._conflicts(conn, direction)
        if seg.fin:
            conn.closed[direction] = True
        if seg.rst:
            conn.closed = {"request": True, "response": True}
        if all(conn.closed.values()):  # freed at once; its 4-tuple is remembered for its stray packets
            out += self._finish(conn, "reset" if seg.rst else "connection closed")
            del self._open[key]
            self._syn_only.pop(key, None)
            self._closed[key] = (timestamp_ns, conn.rank)
            if len(self._closed) > self.max_closed:
                self._closed.popitem(last=False)
        return out + self._over_caps()

    def _new(self, seg: Segment, timestamp_ns: int, file_offset: int, rank: int) -> _Connection:
        a, b = (seg.src, seg.src_port), (seg.dst, seg.dst_port)
        if seg.syn:
            client, server = (a, b) if seg.ack is None else (b, a)
        elif (b[1] in SERVER_PORTS) != (a[1] in SERVER_PORTS):
            client, server = (a, b) if b[1] in SERVER_PORTS else (b, a)
        else:
            client, server = (a, b) if a[1] > b[1] else (b, a)
        flow = Flow(self._count, client[0], client[1], server[0], server[1], first_packet_offset=file_offset)
        self._count += 1
        conn = _Connection(flow, self.max_pending, timestamp_ns, rank)
        if self.protocol != "auto":
            conn.protocol = conn.totals["protocol"] = self.protocol
            if self.protocol in protocols.STREAM_PROTOCOLS:  # (their decoders share the connection's state)
                for direction, side in conn.sides.items():
                    side.framer = _Framer(conn.flow, self.protocol, direction, self.mode, conn.shared,
                                          self.max_frame_size)
        if self.keep_flows:
            self.flows[flow.number] = conn.totals
        return conn

    def _chunks(self, conn: _Connection, direction: str, chunks: list[Chunk]) -> list[CaptureFrame]:
        side = conn.sides[direction]
        out: list[CaptureFrame] = []
        for chunk in chunks:
            if self.on_bytes is not None:
                self.on_bytes(conn.flow, direction, chunk)
            side.end = chunk.offset + chunk.length
            conn.totals["bytes"][direction] += chunk.length
            if chunk.data is None:
                conn.totals["gaps"] += 1
            side.starts.append(chunk.offset)
            side.origins.append((chunk.timestamp_ns, chunk.file_offset))
            if side.framer is None and conn.protocol is not None:  # a framed protocol named: from its first bytes
                side.framer = _Framer(conn.flow, conn.protocol, direction, self.mode, conn.shared, self.max_frame_size)
            if side.framer is None:
                side.waiting.append((chunk, self._segment))
                side.waiting_bytes += chunk.length
                if conn.flow.number not in self._waiting_since:
                    self._waiting_since[conn.flow.number] = self._segment
                    heapq.heappush(self._unclassified, (self._segment, conn.flow.number))
                if chunk.data is None or self._ready(conn):
                    out += self._classified(conn)
                continue
            out += self._emit(conn, direction, side.framer.gap(chunk) if chunk.data is None
                              else side.framer.data(chunk))
        side.prune()
        return out

    def _ready(self, conn: _Connection) -> bool:
        client, server = conn.sides["request"], conn.sides["response"]
        return client.waiting_bytes >= DETECT_BYTES or server.waiting_bytes >= 4 * DETECT_BYTES

    def _classified(self, conn: _Connection) -> list[CaptureFrame]:
        """Decide the flow's protocol from what both sides sent so far, then frame what waited."""
        # what each side sent before its first gap (content detection looks at nothing past one)
        heads = {d: b"".join(c.data for c, _ in takewhile(lambda w: w[0].data is not None, s.waiting))
                 for d, s in conn.sides.items()}
        conn.protocol = classify(heads["request"][:DETECT_BYTES], heads["response"][:DETECT_BYTES],
                                  conn.flow.server_port)
        conn.totals["protocol"] = conn.protocol
        self._waiting_since.pop(conn.flow.number, None)
        self._late = True
        out: list[_Late] = []
        waiting = []
        for direction, side in conn.sides.items():
            side.framer = _Framer(conn.flow, conn.protocol, direction, self.mode, conn.shared, self.max_frame_size)
            waiting += [(segment, direction, chunk) for chunk, segment in side.waiting]
            side.waiting, side.waiting_bytes = [], 0
        # Both directions in capture order (a segment carries one direction; the sort is stable): directions
        # that share a connection context (HTTP/2's calls) must see their bytes as they happened, or a client's
        # RST_STREAM framed before the server's DATA it followed ends the call before its answer is read.
        waiting.sort(key=lambda entry: entry[0])
        for segment, direction, chunk in waiting:
            framer = conn.sides[direction].framer
            out += [_Late(segment, item) for item in self._emit(
                conn, direction, framer.gap(chunk) if chunk.data is None else framer.data(chunk))]
        return out

    def _conflicts(self, conn: _Connection, direction: str) -> list[CaptureFrame]:
        side = conn.sides[direction]
        found = side.stream.conflicts[side.conflicts_seen:]
        side.conflicts_seen = len(side.stream.conflicts)
        items = []
        for offset, length in found:
            error = ValidationError(offset, "tcp", f"{length} retransmitted bytes differ from the copy "
                                                   f"first captured, which is kept")
            if self.mode == "FAILFAST":
                raise in_flow(error, conn.flow, direction)
            if self.mode == "PERMISSIVE":
                items.append(_error_frame(conn.protocol or UNKNOWN, offset, 0, error))
        return self._emit(conn, direction, items)

    def _emit(self, conn: _Connection, direction: str, items: list) -> list[CaptureFrame]:
        side = conn.sides[direction]
        totals = conn.totals
        out = []
        for item in items:
            bad = getattr(item, "error", None) is not None
            totals["errors" if bad else "frames"][direction] += 1
            ts, at = side.origin(item.offset)
            out.append(CaptureFrame(item, conn.flow, direction, ts, at))
        return out

    def _finish(self, conn: _Connection, why: str) -> list[CaptureFrame]:
        out: list[CaptureFrame] = []
        for direction, side in conn.sides.items():
            out += self._chunks(conn, direction, side.stream.finish(why))
        if conn.protocol is None:
            out += self._classified(conn)
        for direction, side in conn.sides.items():  # (a framed side without a byte has no framer: nothing to close)
            if side.framer is not None:
                out += self._emit(conn, direction, side.framer.close())
        conn.totals["closed"] = True
        conn.sides = {}  # its buffers are no longer needed
        return out


class _Late(NamedTuple):
    """An item completed by an earlier segment than the current one (it waited for its flow's protocol)."""

    segment: int
    item: CaptureFrame


def container_error_frame(error: ContainerError) -> CaptureFrame:
    """The item of a broken container: an error span of protocol "capture" from the break on, no flow."""
    frame = _error_frame("capture", error.file_offset, error.length, error.error)
    return CaptureFrame(frame, None, None, None, error.file_offset)


def packet_segment(packet: Packet) -> Segment | None:
    """The TCP segment a packet carries, None when it carries none (tcp.segment_of); a malformed header
    raises ValidationError naming the packet's file offset."""
    try:
        return segment_of(packet.linktype, packet.data)
    except DecodeError as exc:
        raise ValidationError(packet.file_offset, exc.field, f"packet at file offset {packet.file_offset}: "
                              f"{exc.reason}") from None


def iter_capture_frames(data: bytes, protocol: str = "auto", mode: str = "FAILFAST", *,
                        max_frame_size: int | None = None) -> Iterator[CaptureFrame]:
    """Every frame of every TCP flow of a whole pcap / pcapng file, in capture order (see CaptureDecoder;
    for files too large for memory, feed CaptureDecoder chunks instead). max_frame_size: the largest frame
    of a framed protocol (None: each protocol's spec limit; at most frames.MAX_FRAME_SIZE_CEILING)."""
    decoder = CaptureDecoder(protocol, mode, max_frame_size=max_frame_size)
    view = memoryview(data)
    for start in range(0, len(view), 1 << 20):
        yield from decoder.feed(view[start:start + (1 << 20)])
    yield from decoder.close()
