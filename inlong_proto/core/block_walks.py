"""Memoised walks over counted lists of self-sized items, for resynchronisation (TubeMQ's blocks).

A TubeMQ frame has no total length: a header claims up to 3,584 blocks and the decoder walks them one
by one. While resynchronising, the scanner decodes a frame at offset after offset, and crafted bytes
(a header claiming 3,584 blocks of 12 bytes, each block itself such a header) make every one of them
walk thousands of blocks: 128 KB took 40 s. The walks of neighbouring offsets run through the same
block positions. A ``Chains`` keeps the latest run of consecutive items decoded: a walk that starts
inside it takes its items as a slice, and decodes only the items past its end (each item once per run)
or the one item that fails, so the error is exactly the one a plain loop raises. A walk starting
elsewhere is first decided with binary lifting (per position, where 1, 2, 4 ... 2**j items from there
end: each block header read once per scan, a walk of any claimed length decided in O(log count)
lookups), and only a walk that decodes starts a new run.

A run also joins its items' data (``Joined``) as far as a payload layer reads it, so TubeMQ's RPC parse
of a frame taken from a run (``joined``) reads a slice of data joined once, not thousands of blocks
joined again at every offset: a resynchronising scan's cost per offset stays a small constant, whatever
the claimed block count (issue 24, item 20).

Generated code calls ``walk`` (see tools/ksygen: a root-level ``repeat: expr`` of a type whose size
follows from its header, whose module says ``CHAINS = True``). A Chains is valid for one buffer whose
bytes do not change; every fact it keeps was read before the ``end`` its query was given.
"""
from __future__ import annotations

import sys
import weakref
from bisect import bisect_right
from itertools import accumulate
from operator import itemgetter

from inlong_proto.core.errors import DecodeError

SMALL = 8  # lists this short are walked plainly: the memo would cost more than it saves
BAD = -1  # a jump that meets an item the decoder refuses
MAX_JUMPS = 1 << 19  # remembered jumps (all levels) before they are forgotten
MAX_ITEM_BYTES = 8 << 20  # bytes of remembered items before they are forgotten


class Chains:
    """One scan's memo of item walks over one buffer (positions are that buffer's)."""

    def __init__(self):
        self.jumps: list[dict[int, int]] = []  # level j: position -> end of 2**j items from there, or BAD
        self.jumps_held = 0
        self._run()

    def _run(self, pos: int | None = None) -> None:
        """Start over the items remembered: one run of consecutive items (what neighbouring walks share)."""
        self.items: list = []
        self.ends: list[int] = [] if pos is None else [pos]  # ends[i]: where item i begins
        self.index: dict[int, int] = {} if pos is None else {pos: 0}
        self.item_bytes = 0
        self.joined = Joined(self.items)  # the run's item data, joined as far as a payload layer asks
        self.joined_ref = weakref.ref(self.joined)
        self.window: tuple[int, tuple] = (0, ())  # (first, items[first:...]): walks' items are sliced from it

    def walk(self, buf, pos: int, end: int, count: int, decode_item, size_item, path: str):
        """(tuple of count items from pos, position after them), or the error the plain loop raises."""
        if count <= SMALL:
            items = []
            for index in range(count):
                item, pos = decode_item(buf, pos, end, f"{path}[{index}].")
                items.append(item)
            return tuple(items), pos
        first = self.index.get(pos)
        if first is None:  # a walk outside the run: decided first, a run only for one that decodes
            whole, at = self._prefix(buf, pos, end, count, size_item)
            if whole < count:  # item `whole` is the first that fails: let its decoder say why
                decode_item(buf, at, end, f"{path}[{whole}].")
                raise AssertionError(f"{path}[{whole}] at {at} decoded, but its walk said it fails")
        return self._build(buf, pos, end, count, decode_item, path, first)

    def _prefix(self, buf, pos: int, end: int, count: int, size_item) -> tuple[int, int]:
        """How many of the count items from pos decode whole before end, and where the next one begins."""
        taken, at = 0, pos
        for level in range(count.bit_length() - 1, -1, -1):
            if taken + (1 << level) <= count:
                target = self._jump(buf, at, level, end, size_item)
                if target is not None and target != BAD and target <= end:
                    taken, at = taken + (1 << level), target
        return taken, at

    def _jump(self, buf, pos: int, level: int, end: int, size_item) -> int | None:
        """Where 2**level items from pos end (BAD if one is refused); None when that depends on bytes at
        or past end (not remembered: another query may know more)."""
        while len(self.jumps) <= level:
            self.jumps.append({})
        table = self.jumps[level]
        known = table.get(pos)
        if known is not None:
            return known
        if level == 0:
            try:
                size = size_item(buf, pos, end)
            except DecodeError:
                size = BAD
            if size is None:  # the item's header is not all before end
                return None
            target = BAD if size == BAD else pos + size
        else:
            middle = self._jump(buf, pos, level - 1, end, size_item)
            if middle is None or middle == BAD:
                target = middle
            elif middle > end:
                return None
            else:
                target = self._jump(buf, middle, level - 1, end, size_item)
            if target is None:
                return None
        if self.jumps_held >= MAX_JUMPS:
            for other in self.jumps:
                other.clear()
            self.jumps_held = 0
        table[pos] = target
        self.jumps_held += 1
        return target

    def _build(self, buf, pos: int, end: int, count: int, decode_item, path: str, first: int | None):
        """The items of a walk: a slice of the run of items remembered when it starts inside it (neighbouring
        walks share their tails), else a new run. Items past the run's end are decoded and added; the
        first that fails under this end (one the run holds that ends past it, or a new one) raises the
        plain loop's error."""
        global _latest
        if first is None:
            self._run(pos)
            first = 0
        items, ends = self.items, self.ends
        need = first + count
        fits = bisect_right(ends, end, first) - 1  # items [first, fits) end at or before end
        if fits < need and fits < len(items):  # item `fits` is held but overruns this end
            decode_item(buf, ends[fits], end, f"{path}[{fits - first}].")
            raise AssertionError(f"{path}[{fits - first}] at {ends[fits]} decoded past {end}, but it ends later")
        try:
            if len(items) < need:
                self._extend(buf, end, need, decode_item, path, first)
            start, held = self.window
            if first < start or need > start + len(held):  # a new window: the items of about two walks
                try:
                    self._extend(buf, end, need + count, decode_item, path, first)
                except DecodeError:
                    pass  # the chain ends sooner: the window ends with it
                self.window = start, held = first, tuple(items[first:need + count])
            built = held[first - start:need - start]  # one copy of the items, not two
            _latest = (built, self.joined_ref, first)
            return built, ends[need]
        finally:
            if self.item_bytes > MAX_ITEM_BYTES:  # walks that fail grow the run too
                self._run()

    def _extend(self, buf, end: int, need: int, decode_item, path: str, first: int) -> None:
        """Decode items onto the run until it holds need of them (the plain loop's error if one fails)."""
        items, ends = self.items, self.ends
        while len(items) < need:
            at = ends[-1]
            item, after = decode_item(buf, at, end, f"{path}[{len(items) - first}].")
            items.append(item)
            ends.append(after)
            self.index[after] = len(ends) - 1
            self.item_bytes += after - at


class Joined:
    """The data of a list's items joined (each item's last field: its sized run of bytes), as far as asked;
    starts[i] is where item i's data begins. A run's item list only grows, so one Joined serves every
    walk inside the run; data already joined is never joined again."""

    __slots__ = ("items", "data", "starts", "__weakref__")

    def __init__(self, items):
        self.items, self.data, self.starts = items, bytearray(), [0]

    def reach(self, stop: int, last: int) -> int:
        """Join items (up to index last) until the data holds stop bytes; where the data of the items
        before last ends, or the data joined when that is further on."""
        starts, run = self.starts, 16
        while len(self.data) < stop and len(starts) <= last:
            done = len(starts) - 1
            pieces = list(map(_data_of, self.items[done:min(last, done + run)]))
            if not pieces:  # fewer items than last
                break
            starts += accumulate(map(len, pieces), initial=starts.pop())
            self.data += b"".join(pieces)
            run *= 2  # runs that double: the joining is done in C, and at most twice what is read
        return starts[last] if len(starts) > last else len(self.data)

    def start(self, index: int) -> int:
        """Where item index's data begins (the items before it joined)."""
        self.reach(sys.maxsize, index)
        return self.starts[index]


_data_of = itemgetter(-1)
_latest: tuple | None = None  # (items, weakref to the Joined, first) of the latest walk a run answered


def joined(items) -> tuple[Joined, int]:
    """(Joined, index of items[0] in it) for a list of items: its run's when a Chains built it (its latest
    walk, still held), else a Joined of these items alone."""
    latest = _latest
    if latest is not None and latest[0] is items:
        shared = latest[1]()
        if shared is not None:
            return shared, latest[2]
    return Joined(items), 0
