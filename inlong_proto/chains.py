"""Memoised walks over counted lists of self-sized items, for resynchronisation (TubeMQ's blocks).

A TubeMQ frame has no total length: a header claims up to 3,584 blocks and the decoder walks them one
by one. While resynchronising, the scanner decodes a frame at offset after offset, and crafted bytes
(a header claiming 3,584 blocks of 12 bytes, each block itself such a header) make every one of them
walk thousands of blocks: 128 KB took 40 s. The walks of neighbouring offsets run through the same
block positions, so a ``Chains`` remembers, per position, where 1, 2, 4 ... 2**j blocks from there end
(binary lifting): each block header is read once per scan, each jump computed once, and a walk of any
claimed length is decided in O(log count) lookups. The first failing item is then decoded by the
generated decoder itself, so the error raised is exactly the one a plain loop raises. A list that does
decode is built by the generated item decoder too; the items of the latest run are remembered (within a
byte budget), so the next walk, one item further along the same chain, takes most of them as a slice.
Such a frame still costs its payload layer's work (TubeMQ's RPC parse of the joined blocks) per offset.

Generated code calls ``walk`` (see tools/ksygen: a root-level ``repeat: expr`` of a type whose size
follows from its header, whose module says ``CHAINS = True``). A Chains is valid for one buffer whose
bytes do not change; every fact it keeps was read before the ``end`` its query was given.
"""
from __future__ import annotations

from .errors import DecodeError

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

    def walk(self, buf, pos: int, end: int, count: int, decode_item, size_item, path: str):
        """(tuple of count items from pos, position after them), or the error the plain loop raises."""
        if count <= SMALL:
            items = []
            for index in range(count):
                item, pos = decode_item(buf, pos, end, f"{path}[{index}].")
                items.append(item)
            return tuple(items), pos
        whole, at = self._prefix(buf, pos, end, count, size_item)
        if whole < count:  # item `whole` is the first that fails: let its decoder say why
            decode_item(buf, at, end, f"{path}[{whole}].")
            raise AssertionError(f"{path}[{whole}] at {at} decoded, but its walk said it fails")
        return self._build(buf, pos, end, count, decode_item, path)

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

    def _build(self, buf, pos: int, end: int, count: int, decode_item, path: str):
        """The items of a walk known to decode: a slice of the run of items remembered when it starts
        inside it (neighbouring walks share their tails), else a new run."""
        first = self.index.get(pos)
        if first is None:
            self._run(pos)
            first = 0
        items, ends, index = self.items, self.ends, self.index
        need = first + count
        while len(items) < need:
            at = ends[-1]
            item, after = decode_item(buf, at, end, f"{path}[{len(items) - first}].")
            items.append(item)
            ends.append(after)
            index[after] = len(ends) - 1
            self.item_bytes += after - at
        built = tuple(items[first:need]), ends[need]
        if self.item_bytes > MAX_ITEM_BYTES:
            self._run()
        return built
