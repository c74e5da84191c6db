"""One pcap / pcapng file cut into byte ranges whose packets are read in parallel, exactly once. Sans-IO.

A split reads its byte range through a source (``sources``: ``size``, ``read(offset, length)``, ``head``)
in chunks, never the whole file, and yields the container's ``Packet`` items that it owns, then one
``SplitEnd`` saying how its reading ended. The reader that stitches the splits (``spark_capture``) keeps
the packets of the splits on the chain (below) that come before the container's first break, and
nothing else; the packets kept are then exactly those of the sequential ``PacketReader``, and so are
the flows built from them.

The walk
--------
The sequential reader reads the file header (and, for pcapng, the blocks before the first packet block:
the *head*), then record after record: from a record start p the next one is next(p) = p + the
record's size (pcap: 16 bytes of header and incl_len, at most 256 KiB; pcapng: block_total_length, at
most 16 MiB, written at both ends). Whether a record is valid and how long it is is what the generated
codecs (``generated.codec.capture.pcap`` / ``pcapng``) say; a record they refuse, or one the file ends
inside, ends the sequential reading (one error span to the end of the file). next() is a function of
the bytes alone, so two walks that meet at one position coincide from there on. The state the reader
carries (byte order, link type, the interfaces of a pcapng section) is the head's, so from any record
start on the sequential walk a reader primed with the head reads what the sequential one reads.

Sync points: certain, not probable
----------------------------------
For the boundary S of split k the sequential walk's first position >= S is next(q) for its last
position q < S. The *entries* are S and next(q) for every q in [S - window, S) at which a record decodes
and ends past S (pcapng: only positions that are a multiple of 4 after the head, since block lengths
are). The walks from all entries are advanced together, smallest position first, each step one record
decoded by the generated codec; a walk whose record does not decode dies (the sequential reader would
stop there, so it cannot be the sequential walk unless the file is broken there). When a single walk
is left, its position is the sync point M(S), the first record split k reads.

Why that is certain: if the sequential walk's last record before S starts within the window, it is
one of the entries, and it either reaches M(S) or dies on the way, before M(S) (walks are advanced
smallest first, so every walk that died did so below the survivor's position). It dying means the
container is broken there, at an offset below M(S), and everything from that offset on is dropped
(below). A payload full of things that look like record headers makes the walks merge later, never
wrongly.

The window is 64 KiB + 64 bytes, tried in steps (4 KiB, 16 KiB, then all of it) since most records are
a few KiB: a shorter window whose likeliest walk clearly looks like captured TCP (CLEAR: 90% of 4 or more
records decode as TCP segments no longer than on the wire) settles the boundary, and where walks are
still apart at the horizon the likeliest one is taken. Neither shortcut, nor a record longer than the
window (pcap allows 256 KiB, pcapng 16 MiB), can make the rows wrong, because the chain checks the one
assumption: split k - 1 reads on until its own walk meets a later split's start exactly (normally
M(S), the next boundary's). If the guess was wrong, or a record jumped over M(S), split k - 1 reads on
to the next start it meets and split k is off the chain, its packets dropped. The chain starts at
split 0 (which reads from byte 0 as the sequential reader does) and follows the positions where each
split's walk met the next one's start; only splits on it count. Since every split on the chain starts
on the sequential walk, and the next one starts where its walk arrives, the chain's splits read the
sequential walk, each record once. A wrong guess costs parallelism (one task reads two ranges), never
rows; ``sync_window`` trades the search's cost against that.

Bounds. A boundary has no sync point when the walks have not merged below the end of its split or
S + 2 * window + 64 KiB, when all of them die, or when one meets a pcapng Section Header Block (a new
section could change the byte order); the split then owns nothing and the previous split on the chain
reads on through it, as for dumps (spark.pieces). A head longer than HEAD_LIMIT (no packet block in the
first MiB), or broken, makes the file unsplittable: split 0 reads it all.

Damage
------
The sequential reader stops at the first record that does not decode, with one error span from that
record to the end of the file (``ContainerError``). A split that meets a break reports it
(``SplitEnd.broken``) and stops; the stitching keeps the smallest break of the chain and drops every
packet after it, which is what the sequential reader never reads. Whether a record decodes, and the
error when it does not, depend on the record's bytes alone (a record is judged once all of it, or the
end of the file, is in), so the split's error is the sequential reader's. Splits read in chunks of
CHUNK bytes on a grid from byte 0, each on to the end of the chunk in which its walk meets the next
split (packets past that point are the next split's).

pcapng sections and interfaces
------------------------------
Enhanced Packet Blocks name their interface by its position among the section's Interface Description
Blocks (linktype, if_tsresol), so every split is primed with the head's. An IDB or a second Section
Header Block after the head changes that state for everything after it; the splits after it cannot know
it without reading everything before them. A split that reads one, while a later split's reading
depends on it, reports it (``SplitEnd.section``), and the stitching fails the read with a
CaptureSplitError naming the file and offset: such a file must be read by one task
(``spark.read.format("inlong")``). A file whose IDBs all come before its first packet (what tcpdump,
dumpcap and editcap write) splits normally.
"""
from __future__ import annotations

import heapq
from functools import partial
from typing import Iterator, NamedTuple

from inlong_proto.core.errors import DecodeError, InlongProtoError, TruncatedError
from inlong_proto.generated.codec.capture import pcap, pcapng
from inlong_proto.core.sources import split_count
from inlong_proto.capture.container import PCAPNG_MAGIC, ContainerError, Packet, PacketReader

CHUNK = 1 << 20  # the grid the sequential reader is fed on (spark.pieces.CAPTURE_CHUNK)
WINDOW = (64 << 10) + 64  # how far before a boundary a straddling record is looked for (module doc)
SLACK = 4 << 10  # beyond twice the window, what the walks may take to merge, or to be told apart
STEPS = (4 << 10, 16 << 10)  # shorter windows tried first: most records are shorter than a few KiB
CLEAR = 0.9  # a walk whose records are this much captured TCP (of 4 at least) settles a shorter window
HEAD_LIMIT = 1 << 20  # a head longer than this (no packet block in it) makes the file unsplittable
ALIGNMENT = {"pcap": 1, "pcapng": 4}  # pcapng.ksy: block_total_length % 4 == 0, so blocks start aligned
DEAD, SECTION, FAR = -1, -2, -3  # walk results besides a position


class CaptureSplitError(InlongProtoError, ValueError):
    """A capture that cannot be split exactly (a pcapng section or interface defined after the first
    packet, which later splits would need); read that file with one task, spark.read.format("inlong")."""

    def __init__(self, path: str, offset: int, what: str):
        self.path, self.offset = path, offset
        super().__init__(f"{path}: offset {offset}: {what} after the first packet: the packets after it "
                         f"depend on it, so this file cannot be split; read it with one task "
                         f"(spark.read.format(\"inlong\"))")


class Head(NamedTuple):
    """What every split needs from the start of the file: the format, the records' byte order, where the
    first packet record starts (None: the file cannot be split) and the bytes before it."""

    format: str
    le: bool
    end: int | None
    data: bytes


class SplitEnd(NamedTuple):
    """How one split's reading ended (module doc): start, the first record it owns (None: it owns none);
    met, the later split start (or the file size) where its walk arrived (None: a break or the end of
    the file came first); broken, the break it read from a chunk whose start it read (the sequential
    error span); section, the offset of a pcapng SHB or IDB after the head that a later split needs."""

    index: int
    start: int | None
    met: int | None
    broken: ContainerError | None
    section: int | None


class _TrackedReader(PacketReader):
    """The sequential PacketReader, told where each record starts and ends and whether it changed the
    pcapng interface table; resumable at a record boundary with the head's state.

    It reads PacketReader's own state (_step, _base, _interfaces, _le): the split must read exactly what
    the sequential reader reads, so it runs that reader rather than a copy of its rules.
    """

    def __init__(self, watch=None):
        super().__init__("PERMISSIVE")
        self.watch = watch

    @classmethod
    def primed(cls, head: Head, offset: int, watch=None) -> "_TrackedReader":
        reader = cls()
        reader.feed(head.data)  # SHB, IDBs (or the pcap header): the state at the first packet
        reader._base, reader.watch = offset, watch  # what follows is the file from offset on
        return reader

    @property
    def little_endian(self) -> bool:
        return self._le

    def _step(self, view, pos: int, out: list) -> int | None:
        interfaces, count = self._interfaces, len(self._interfaces)
        stop = super()._step(view, pos, out)
        if stop is not None and self.watch is not None:
            changed = self._interfaces is not interfaces or len(self._interfaces) != count
            self.watch(self._base + pos, self._base + stop, changed)
        return stop


def read_head(src) -> Head:
    """The head: the bytes before the first packet record, read by the sequential reader itself."""
    fmt = "pcapng" if src.head(4) == PCAPNG_MAGIC else "pcap"
    limit = min(src.size, HEAD_LIMIT)
    reader, fed, first = _TrackedReader(), 0, None
    while first is None and fed < limit and reader.broken is None:  # a break before any packet: unsplittable
        step = min(limit, max(2 * fed, 4 << 10)) - fed  # 4 KiB first, then doubling: heads are small
        items = reader.feed(src.read(fed, step))
        fed += step
        if fed >= src.size:
            items += reader.close()
        if items:  # a packet (or, at the end of the file, the break before any)
            first = items[0]
    if not isinstance(first, Packet):
        return Head(fmt, False, None, b"")
    data = src.read(0, first.file_offset)
    le = _TrackedReader.primed(Head(fmt, False, first.file_offset, data), first.file_offset).little_endian
    return Head(fmt, le, first.file_offset, data)


# ---------------------------------------------------------------------------------------------------
# Sync points


class _Bytes:
    """A stretch [lo, hi) of the source as one buffer, read on demand and grown forward."""

    def __init__(self, src, lo: int, limit: int):
        self.src, self.lo, self.size, self.limit = src, lo, src.size, limit
        self.data = bytearray()

    @property
    def hi(self) -> int:
        return self.lo + len(self.data)

    def grow(self, stop: int) -> None:
        """Make [lo, stop) present (64 KiB more at least, short of limit), in reads of at most CHUNK."""
        stop = min(self.size, max(stop, min(self.limit, self.hi + (64 << 10))))
        while self.hi < stop:
            self.data += self.src.read(self.hi, min(CHUNK, stop - self.hi))

    def startswith(self, prefix: bytes, at: int) -> bool:
        self.grow(at + len(prefix))
        return self.data.startswith(prefix, at - self.lo)


class CaptureWalker:
    """next(p) of the sequential walk over one file, records decoded by the generated codecs."""

    def __init__(self, src, head: Head, lo: int, reach: int):
        self.size, self.pcapng = src.size, head.format == "pcapng"
        self.reach = reach  # bytes past this are not read: a record reaching further is FAR
        self.bytes = _Bytes(src, lo, reach)
        self.decode = partial(pcapng.decode_block if self.pcapng else pcap.decode_packet, le=head.le)

    def _section_at(self, p: int) -> bool:
        return self.pcapng and self.bytes.startswith(PCAPNG_MAGIC, p)

    def record(self, p: int):
        """(end, record) of the record at p, (DEAD, None) if the sequential reader would stop there, or
        (FAR, None) if it cannot be told without reading past reach."""
        data = self.bytes
        decode = pcapng.decode_section_header_block if self._section_at(p) else self.decode
        data.grow(min(self.reach, p + (64 << 10)))
        while True:
            try:
                record, stop = decode(data.data, p - data.lo, len(data.data))
                return data.lo + stop, record
            except TruncatedError as exc:
                if exc.offset >= len(data.data) and data.hi < self.size:  # needs bytes not read yet
                    if data.hi >= self.reach:
                        return FAR, None
                    data.grow(min(self.reach, data.hi + max(len(data.data), 64 << 10)))
                    continue
                return DEAD, None  # a field overruns its record, or the file ends inside it
            except DecodeError:
                return DEAD, None

    def step(self, p: int) -> tuple[int, bool | None]:
        """(next(p), whether the record looks captured), DEAD, or SECTION (a pcapng Section Header Block:
        the walk's byte order may change). A packet record looks captured when it holds some bytes and no
        more than the packet had on the wire; other records say nothing (None)."""
        stop, record = self.record(p)
        if stop in (DEAD, FAR):
            return stop, None
        if self._section_at(p):
            return SECTION, None
        if not self.pcapng:
            return stop, 0 < record.incl_len <= record.orig_len
        body = record.body
        if isinstance(body, pcapng.EnhancedPacketBlock):
            return stop, 0 < body.captured_packet_length <= body.original_packet_length
        return stop, True if isinstance(body, pcapng.SimplePacketBlock) else None

    def entries(self, lo: int, hi: int, boundary: int, align: int) -> Iterator[int]:
        """next(q) for every q in [lo, hi) (every align-th) where a record decodes and ends past the
        boundary (SECTION for a section header). The hot loop of a sync point: most positions hold no
        valid header, and the codec refuses them from the bytes before the boundary alone."""
        data = self.bytes
        data.grow(boundary)
        buf, base, decode = data.data, data.lo, self.decode
        end = boundary - base
        for q in range(lo - base, hi - base, align):
            try:
                if self.pcapng and buf.startswith(PCAPNG_MAGIC, q):
                    pcapng.decode_section_header_block(buf, q, end)
                else:
                    decode(buf, q, end)
                continue  # it fits before the boundary
            except TruncatedError as exc:
                if exc.offset < end:
                    continue  # a field overruns its own record: invalid whatever follows
            except DecodeError:
                continue
            stop, _ = self.record(base + q)
            if stop not in (DEAD, FAR):  # FAR: a walk not followed (the chain covers it, module doc)
                yield SECTION if self._section_at(base + q) else stop


def sync_point(src, head: Head, boundary: int, end: int, window: int = WINDOW) -> int | None:
    """M(boundary): the first record of the split starting at boundary, in [boundary, end); None when the
    boundary has none (module doc)."""
    if head.end is None or boundary >= src.size:
        return None
    if boundary <= head.end:
        return head.end if head.end < end else None
    align = ALIGNMENT[head.format]
    widths = [width for width in STEPS if width < window] + [window]
    walker = CaptureWalker(src, head, max(head.end, boundary - window),
                     min(src.size, boundary + 3 * window + SLACK))
    entries = {boundary} if (boundary - head.end) % align == 0 else set()
    scanned = boundary  # entries from [scanned, boundary) are in
    for width in widths:
        lo = max(head.end, boundary - width)
        lo += (head.end - lo) % align
        for entry in walker.entries(lo, scanned, boundary, align):
            if entry == SECTION:
                return None
            entries.add(entry)
        scanned = lo
        walks = _merge(walker, entries, min(src.size, boundary + 2 * width + SLACK))
        if walks is None:
            return None  # a section header: the byte order may change
        if not walks:
            continue  # every walk died: the sequential one started further back, or the file is broken
        since, looks = walks
        last = width == widths[-1]
        if len(since) == 1 and last:  # certain (module doc)
            best = next(iter(since))
        else:  # the likeliest (module doc): the chain checks it
            best, plausibility = _likeliest(walker, head, since, looks)
            if not last and plausibility < (CLEAR, 4):
                continue  # not clear: look further back
        return since[best] if since[best] < end else None
    return None


def _merge(walker: CaptureWalker, entries: set, horizon: int) -> tuple[dict, dict] | None:
    """The walks from the entries advanced together, smallest position first, up to the horizon, until
    one is left: {position: where it became one walk (its entry, or where others joined it)} and
    {position: (records since then that look captured, records)}; None for a section header."""
    live = sorted(entries)  # a sorted list is a heap
    since = {p: p for p in live}
    looks = {p: (0, 0) for p in live}
    parked = 0  # walks whose next record reaches past what is read stop where they are
    while len(live) + parked > 1 and live and live[0] < horizon:
        p = heapq.heappop(live)
        following, plausible = walker.step(p)
        if following == SECTION:
            return None
        if following == FAR:
            parked += 1
            continue
        first, (good, count) = since.pop(p), looks.pop(p)
        if following == DEAD:
            continue
        if following in since:  # two walks meet: one from here on
            since[following], looks[following] = following, (0, 0)
        else:
            since[following] = first
            looks[following] = (good + bool(plausible), count + (plausible is not None))
            heapq.heappush(live, following)
    return since, looks


def _likeliest(walker: CaptureWalker, head: Head, since: dict, looks: dict) -> tuple[int, tuple[float, int]]:
    """The walk whose records look most like captured TCP, and its plausibility: ranked by the share of
    records that look captured, the best three (if tied) by _plausibility."""
    def share(p):
        good, count = looks[p]
        return good / max(count, 1), count, -since[p]

    ranked = sorted(since, key=share, reverse=True)
    leaders = [p for p in ranked[:3] if share(p)[0] == share(ranked[0])[0]]
    scored = {p: _plausibility(walker, head, since[p], p) for p in leaders}
    best = max(leaders, key=lambda p: (scored[p], share(p)))
    return best, scored[best]


def _plausibility(walker: CaptureWalker, head: Head, start: int, stop: int) -> tuple[float, int]:
    """How much the records of a walk over [start, stop) look like captured TCP: the share of them whose
    packet is no longer than on the wire and decodes to a TCP segment, and how many there are. The walk
    shifted by 4 bytes into the true one (pcap's orig_len read as incl_len) fails both."""
    from inlong_proto.capture import packet_segment

    reader = _TrackedReader.primed(head, start)
    data = walker.bytes
    data.grow(stop)
    good = count = 0
    for item in reader.feed(bytes(data.data[start - data.lo:stop - data.lo])):
        if isinstance(item, Packet):
            count += 1
            try:
                good += item.orig_len >= len(item.data) and packet_segment(item) is not None
            except DecodeError:
                pass
    return good / max(count, 1), count


def split_starts(src, head: Head, split_size: int, first: int, window: int = WINDOW) -> Iterator[int]:
    """The start of every split from index `first` on that has one, then the file size."""
    size = src.size
    for index in range(first, split_count(size, split_size)):
        point = sync_point(src, head, index * split_size, min(size, (index + 1) * split_size), window)
        if point is not None:
            yield point
    yield size


# ---------------------------------------------------------------------------------------------------
# Reading one split


class _Progress:
    """Where a split's walk is: the split start it is heading for, where it met one, what it crossed."""

    def __init__(self, head: Head, targets: Iterator[int]):
        self.head, self.targets = head, targets
        self.target = next(targets)
        self.met: int | None = None
        self.section: int | None = None

    def watch(self, at: int, following: int, changed: bool) -> None:
        if self.met is not None:
            return  # past the meeting point: the next split's records
        if changed and self.head.end is not None and at >= self.head.end and self.section is None:
            self.section = at
        while following > self.target:  # a record longer than the window jumped over that split's start
            self.target = next(self.targets)
        if following == self.target:
            self.met = following


def read_split(src, index: int, split_size: int, *, head: Head | None = None, chunk: int = CHUNK,
               window: int = WINDOW) -> Iterator[Packet | SplitEnd]:
    """The packets split `index` owns, in file order, then its SplitEnd (module doc)."""
    size = src.size
    head = head or read_head(src)
    if index == 0:
        start = 0
    else:
        start = sync_point(src, head, index * split_size, min(size, (index + 1) * split_size), window) \
            if head.end is not None else None
        if start is None:
            yield SplitEnd(index, None, None, None, None)
            return
    later = split_starts(src, head, split_size, index + 1, window) if head.end is not None else iter([size])
    progress = _Progress(head, later)
    reader = _TrackedReader(progress.watch) if index == 0 else _TrackedReader.primed(head, start, progress.watch)
    pos = start
    while pos < size and progress.met is None and reader.broken is None:
        hi = min(size, (pos // chunk + 1) * chunk)
        items = reader.feed(src.read(pos, hi - pos))
        if hi == size:
            items += reader.close()  # after the last chunk, as the sequential reader closes
        pos = hi
        for item in items:
            if isinstance(item, Packet) and (progress.met is None or item.file_offset < progress.met):
                yield item
    broken = None if reader.broken is None else ContainerError(reader.broken_at, size - reader.broken_at,
                                                               reader.broken)
    section = progress.section if progress.met is not None and progress.met < size else None
    yield SplitEnd(index, start, progress.met, broken, section)


# ---------------------------------------------------------------------------------------------------
# Stitching the splits of one file


class Stitch(NamedTuple):
    """What the splits' ends say about the whole file: the splits on the chain (their packets count), the
    sequential reader's error span if the container breaks (packets from its offset on are dropped), and
    a pcapng section or interface after the head that a later split needed (the file cannot be split)."""

    chain: frozenset
    broken: ContainerError | None
    section: int | None

    def keeps(self, index: int, file_offset: int) -> bool:
        return index in self.chain and (self.broken is None or file_offset < self.broken.file_offset)


def stitch(ends, size: int) -> Stitch:
    """The chain from split 0 through the split starting where each one's walk arrived (module doc)."""
    by_index = {end.index: end for end in ends}
    by_start = {end.start: end for end in ends if end.start is not None}
    chain, end = [], by_index.get(0)
    while end is not None:
        chain.append(end)
        if end.met is None or end.met >= size:
            break
        if end.met not in by_start:
            raise RuntimeError(f"split {end.index} met a split start at {end.met} that no split has")
        end = by_start[end.met]
    breaks = [end.broken for end in chain if end.broken is not None]
    broken = min(breaks, key=lambda error: error.file_offset, default=None)
    limit = broken.file_offset if broken is not None else size
    sections = [end.section for end in chain if end.section is not None and end.section < limit]
    return Stitch(frozenset(end.index for end in chain), broken, min(sections, default=None))
