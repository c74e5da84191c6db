"""Sans-IO server state of the broadcasting protocol: the value history and the replay rule.

Kept free of sockets so the replay semantics the spec's doc fixes (specs/broadcast/broadcast_frame.ksy)
can be tested as plain functions, and so the asyncio server stays a thin adapter around them.
"""
from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta

from inlong_proto.generated.codec.broadcast.broadcast_frame import DataResponse, Status

#: What a client that holds nothing yet sends (spec doc): the epoch, with last_data 0.
EPOCH = datetime(1970, 1, 1)
VALUE_RANGE = range(0, 100)
_ONE_MS = timedelta(milliseconds=1)


@dataclass(frozen=True, slots=True)
class Item:
    """One produced value: the wire carries only millisecond timestamps and values in [0, 100)."""

    timestamp: datetime
    value: int

    def __post_init__(self) -> None:
        if self.timestamp.tzinfo is not None or self.timestamp.microsecond % 1000:
            raise ValueError(f"timestamp must be naive with millisecond precision, not {self.timestamp!r}")
        if self.value not in VALUE_RANGE:
            raise ValueError(f"value must be in [0, 100), not {self.value!r}")

    def response(self, status: Status) -> DataResponse:
        return DataResponse(status=status, timestamp=self.timestamp, data=self.value)


def truncate_to_ms(moment: datetime) -> datetime:
    """Drop sub-millisecond digits, which the 25-byte timestamp cannot carry."""
    return moment.replace(microsecond=moment.microsecond - moment.microsecond % 1000)


def format_timestamp(stamp: datetime) -> str:
    """`yyyy-MM-dd HH:mm:ss.SSS`: the wire's timestamp without its brackets, for logs and output."""
    return f"{stamp:%Y-%m-%d %H:%M:%S}.{stamp.microsecond // 1000:03d}"


def next_item(previous: datetime | None, rng: random.Random,
              clock: Callable[[], datetime] = datetime.now) -> Item:
    """A new real-time item stamped now (local time, as Java's SimpleDateFormat writes it).

    Timestamps identify items in requests, so they must be unique: if the clock has not moved past
    the previous item (same millisecond, or stepped back), the previous timestamp plus 1 ms is used.
    """
    stamp = truncate_to_ms(clock())
    if previous is not None and stamp <= previous:
        stamp = previous + _ONE_MS
    return Item(stamp, rng.randrange(VALUE_RANGE.start, VALUE_RANGE.stop))


class History:
    """Items in production order, optionally bounded (oldest dropped first).

    Every item has a sequence number, its rank in production (the first item ever is 0), so that a replay
    can be a position in the history (Replay) instead of a copy of it. A client whose last item has been
    dropped is "not found" and gets the whole remaining history, exactly as the spec says for any unknown
    (timestamp, value).
    """

    def __init__(self, items: Iterable[Item] = (), *, max_length: int | None = None):
        if max_length is not None and max_length < 1:
            raise ValueError(f"max_length must be at least 1 or None, not {max_length!r}")
        self._max_length = max_length
        # A list with a moving head rather than a deque: replays read it by position, in O(1).
        self._items: list[Item] = []
        self._head = 0  # index in _items of the oldest item kept
        self._base = 0  # sequence number of _items[0]
        for item in items:
            self.append(item)

    @property
    def max_length(self) -> int | None:
        return self._max_length

    def __len__(self) -> int:
        return len(self._items) - self._head

    def __iter__(self) -> Iterator[Item]:
        return itertools.islice(self._items, self._head, None)

    @property
    def last(self) -> Item | None:
        return self._items[-1] if len(self) else None

    @property
    def start(self) -> int:
        """Sequence number of the oldest item kept."""
        return self._base + self._head

    @property
    def end(self) -> int:
        """Sequence number the next item will get."""
        return self._base + len(self._items)

    def append(self, item: Item) -> None:
        """Add an item; timestamps must strictly increase, since replay matches on them."""
        last = self.last
        if last is not None and item.timestamp <= last.timestamp:
            raise ValueError(f"timestamps must strictly increase: {item.timestamp} after {last.timestamp}")
        self._items.append(item)
        if self._max_length is not None and len(self) > self._max_length:
            self._head += 1
            if self._head >= 1024 and self._head * 2 >= len(self._items):  # compact, amortised O(1)
                del self._items[:self._head]
                self._base += self._head
                self._head = 0

    def produce(self, rng: random.Random, clock: Callable[[], datetime] = datetime.now) -> Item:
        """Make the next real-time item (see next_item) and append it."""
        last = self.last
        item = next_item(last.timestamp if last else None, rng, clock)
        self.append(item)
        return item

    def find(self, last_timestamp: datetime, last_data: int) -> int | None:
        """Sequence number of the item with this timestamp and value, or None."""
        # Timestamps strictly increase, so scan from the newest end: cost is O(items after it).
        for index in range(len(self._items) - 1, self._head - 1, -1):
            item = self._items[index]
            if item.timestamp > last_timestamp:
                continue
            if item.timestamp == last_timestamp and item.value == last_data:
                return self._base + index
            return None
        return None

    def since(self, seq: int, limit: int) -> list[Item]:
        """At most `limit` items from sequence number `seq` on (seq must still be held, or be end)."""
        if not self.start <= seq <= self.end:
            raise IndexError(f"item {seq} is not held (held: {self.start} to {self.end - 1})")
        index = seq - self._base
        return self._items[index:index + limit]

    def replay(self, last_timestamp: datetime, last_data: int) -> list[DataResponse]:
        """The responses answering a request, per the spec doc, all at once (see Replay).

        Found (same timestamp and value): every later item, status history (nothing if it is the
        newest). Not found: the whole history, the first item with last_data_not_found, the rest
        history. Empty history: nothing.
        """
        return Replay(self, last_timestamp, last_data).take(len(self))


class Replay:
    """What one request still has to be sent: a position in the history, not a copy of it.

    The server writes a replay a chunk at a time, as fast as the client reads, so a client costs the
    server one position however long the history and however many requests it sends. The statuses are
    those of the spec doc for the history as it was when the request arrived; items produced while the
    replay is being written follow it with status real_time, as they would have been pushed to a client
    whose replay was written at once. `lost`: items still to be sent have left a bounded history (the
    client reads more slowly than values are produced); nothing more can be sent.
    """

    def __init__(self, history: History, last_timestamp: datetime, last_data: int):
        self.history = history
        found = history.find(last_timestamp, last_data)
        self.found = found is not None
        self.next = found + 1 if found is not None else history.start
        self._first = self.next
        self.snapshot_end = history.end  # items from here on were produced after the request

    @property
    def remaining(self) -> int:
        return self.history.end - self.next

    @property
    def done(self) -> bool:
        return self.next >= self.history.end

    @property
    def lost(self) -> bool:
        return self.next < self.history.start

    def take(self, limit: int) -> list[DataResponse]:
        """The next at most `limit` responses (none when done)."""
        if self.lost:
            raise LookupError(f"item {self.next} has left the history")
        items = self.history.since(self.next, limit)
        responses = [item.response(self._status(self.next + offset)) for offset, item in enumerate(items)]
        self.next += len(items)
        return responses

    def _status(self, seq: int) -> Status:
        if seq >= self.snapshot_end:
            return Status.real_time
        if not self.found and seq == self._first:
            return Status.last_data_not_found
        return Status.history
