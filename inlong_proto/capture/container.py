"""pcap and pcapng containers: bytes in, packets out (sans-IO), every layout from the generated codecs.

The reader is incremental: feed() any chunk of the file, get the packets it completes. It holds at most
one record or block (the specs cap them at 256 KiB and 16 MiB) plus what the chunk brought. A container
that is corrupt or cut cannot be resynchronised reliably (no sync marker), so the first such error ends
the file: FAILFAST raises it, PERMISSIVE reports it once with the rest of the file as its span
(`ContainerError`), DROPMALFORMED stops quietly.
"""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import NamedTuple

from inlong_proto.core.errors import DecodeError, TruncatedError, ValidationError
from inlong_proto.core.stream import check_mode
from inlong_proto.generated.codec.capture import pcap, pcapng

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
PCAP_MAGICS = {m.value.to_bytes(4, "big"): m for m in pcap.Magic}
PCAPNG_MAGIC = pcapng.BlockType.section_header.value.to_bytes(4, "big")  # a palindrome: either byte order


class Packet(NamedTuple):
    """One captured packet: capture time (ns since 1970, UTC), LINKTYPE_ of its first header, the captured
    bytes, the length on the wire, the byte offset of its record/block in the file, its interface."""

    timestamp_ns: int
    linktype: int
    data: bytes
    orig_len: int
    file_offset: int
    interface: int = 0

    @property
    def timestamp(self) -> datetime | None:
        return ns_datetime(self.timestamp_ns)


def ns_datetime(ns: int) -> datetime | None:
    """A capture time (ns since 1970, UTC) as an aware datetime; datetime holds microseconds only. None
    past datetime's year 9999: a pcapng time is any 64-bit count of any unit, so a damaged or hostile
    one can say year 58000 (found by tools/fuzz.py); timestamp_ns keeps the exact value."""
    try:
        return _EPOCH + timedelta(microseconds=ns // 1000)
    except OverflowError:
        return None


class ContainerError(NamedTuple):
    """PERMISSIVE: where the container broke; `length` covers the rest of the file, which is not read
    (given at close(), once the file's end is known, so it does not depend on how the file was fed)."""

    file_offset: int
    length: int
    error: DecodeError


def is_capture(head: bytes) -> bool:
    """Whether bytes start a pcap or pcapng file (by magic)."""
    return bytes(head[:4]) in PCAP_MAGICS or bytes(head[:4]) == PCAPNG_MAGIC


def _ns_factor(resolution: int) -> tuple[int, int]:
    """if_tsresol as (multiply, shift-or-divide): units of 10^-v or 2^-v seconds to nanoseconds."""
    if resolution & 0x80:
        return 10 ** 9, -(resolution & 0x7F)  # 2^-v: ns = ts * 10^9 >> v
    return (10 ** (9 - resolution), 0) if resolution <= 9 else (1, 10 ** (resolution - 9))


def _to_ns(ts: int, factor: tuple[int, int]) -> int:
    mul, div = factor
    if div < 0:
        return (ts * mul) >> -div
    return ts * mul // div if div else ts * mul


class PacketReader:
    """Feed a pcap or pcapng file in chunks; get Packet (and, PERMISSIVE, ContainerError) items back."""

    def __init__(self, mode: str = "FAILFAST"):
        self.mode = check_mode(mode)
        self.format: str | None = None  # "pcap" or "pcapng" once the magic is in
        self._buf = bytearray()
        self._base = 0  # file offset of _buf[0]
        self._done = self._closed = False
        self.broken: DecodeError | None = None  # the break, as soon as it is met (its span comes at close)
        self.broken_at = 0  # the file offset of the record it broke at
        self._skipped = 0  # bytes fed from the break on
        self._le = False
        self._nano = False
        self._linktype = 0
        self._interfaces: list[tuple[int, int, tuple[int, int]]] = []  # (linktype, snaplen, ns factor)

    def feed(self, data: bytes) -> list:
        if self._done:
            self._skipped += len(data)
            return []
        self._buf += data
        return self._run(final=False)

    def close(self) -> list:
        if self._closed:
            return []
        out = [] if self._done else self._run(final=True)
        self._closed = True
        if self.broken is not None and self.mode == "PERMISSIVE":
            out.append(ContainerError(self.broken_at, self._skipped, self.broken))
        return out

    def _run(self, final: bool) -> list:
        out: list = []
        view = memoryview(self._buf)
        pos = 0
        try:
            while not self._done:
                try:
                    step = self._step(view, pos, out)
                except TruncatedError as exc:
                    if exc.offset < len(view):  # a field overruns its own record or block
                        raise ValidationError(exc.offset, exc.field, f"overruns its record: {exc.reason}") from None
                    if final:
                        raise
                    break
                if step is None:
                    break
                pos = step
            if final and not self._done and pos < len(view):
                raise TruncatedError(len(view), "", "the file ends inside a record")
        except DecodeError as exc:
            error = exc.shifted(self._base)
            self._done = True
            if self.mode == "FAILFAST":
                raise error from None
            self.broken, self.broken_at = error, self._base + pos
            self._skipped = len(view) - pos
            pos = len(view)
        finally:
            view.release()
        del self._buf[:pos]
        self._base += pos
        return out

    def _step(self, view, pos: int, out: list) -> int | None:
        """Decode the next header, record or block at pos; the position after it, or None at the end."""
        end = len(view)
        if pos >= end:
            return None
        if self.format is None:
            if end - pos < 4:
                return None
            head = bytes(view[pos:pos + 4])
            if head == PCAPNG_MAGIC:
                self.format = "pcapng"
            elif head in PCAP_MAGICS:
                magic = PCAP_MAGICS[head]
                le = magic in (pcap.Magic.le_micro, pcap.Magic.le_nano)
                header, stop = pcap.decode_header(view, pos + 4, end, "header.", le=le)
                self.format, self._le, self._linktype = "pcap", le, header.linktype & 0xFFFF
                self._nano = magic in (pcap.Magic.le_nano, pcap.Magic.be_nano)
                return stop
            else:
                raise ValidationError(pos, "magic", f"not a pcap or pcapng file: starts with {head.hex()}")
        if self.format == "pcap":
            record, stop = pcap.decode_packet(view, pos, end, "packet.", le=self._le)
            ns = record.ts_sec * 10 ** 9 + record.ts_frac * (1 if self._nano else 1000)
            out.append(Packet(ns, self._linktype, record.data, record.orig_len, self._base + pos))
            return stop
        if bytes(view[pos:pos + 4]) == PCAPNG_MAGIC:
            shb, stop = pcapng.decode_section_header_block(view, pos, end, "section_header.")
            self._le = shb.byte_order_magic == pcapng.ByteOrder.little
            self._interfaces = []
            return stop
        block, stop = pcapng.decode_block(view, pos, end, "block.", le=self._le)
        body = block.body
        if isinstance(body, pcapng.InterfaceDescriptionBlock):
            resolution = next((o.value[0] for o in body.options if o.code == 9 and o.value), 6)
            self._interfaces.append((body.linktype, body.snaplen, _ns_factor(resolution)))
        elif isinstance(body, pcapng.EnhancedPacketBlock):
            linktype, _, factor = self._interface(body.interface_id, pos)
            ts = _to_ns(body.timestamp_high << 32 | body.timestamp_low, factor)
            out.append(Packet(ts, linktype, body.packet_data, body.original_packet_length, self._base + pos,
                              body.interface_id))
        elif isinstance(body, pcapng.SimplePacketBlock):
            linktype, snaplen, _ = self._interface(0, pos)
            kept = min(body.original_packet_length, snaplen or body.original_packet_length)
            out.append(Packet(0, linktype, body.packet_data[:kept], body.original_packet_length,
                              self._base + pos))
        return stop

    def _interface(self, index: int, pos: int) -> tuple:
        if index >= len(self._interfaces):
            raise ValidationError(pos, "block.body.interface_id",
                                  f"interface {index} has no Interface Description Block before it")
        return self._interfaces[index]


def iter_packets(data: bytes, mode: str = "FAILFAST"):
    """Every packet of a whole pcap / pcapng file (PERMISSIVE: a ContainerError last if it is broken)."""
    reader = PacketReader(mode)
    yield from reader.feed(data)
    yield from reader.close()
