"""Sans-IO server state of the broadcasting protocol: the value history and the replay rule.

Kept free of sockets so the replay semantics the spec's doc fixes (specs/broadcast/broadcast_frame.ksy)
can be tested as plain functions, and so the asyncio server stays a thin adapter around them.
"""
from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta

from ..generated.codec.broadcast.broadcast_frame import DataResponse, Status

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

    A client whose last item has been dropped is "not found" and gets the whole remaining history,
    exactly as the spec says for any unknown (timestamp, value).
    """

    def __init__(self, items: Iterable[Item] = (), *, max_length: int | None = None):
        if max_length is not None and max_length < 1:
            raise ValueError(f"max_length must be at least 1 or None, not {max_length!r}")
        self._items: deque[Item] = deque(maxlen=max_length)
        for item in items:
            self.append(item)

    @property
    def max_length(self) -> int | None:
        return self._items.maxlen

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Item]:
        return iter(self._items)

    @property
    def last(self) -> Item | None:
        return self._items[-1] if self._items else None

    def append(self, item: Item) -> None:
        """Add an item; timestamps must strictly increase, since replay matches on them."""
        last = self.last
        if last is not None and item.timestamp <= last.timestamp:
            raise ValueError(f"timestamps must strictly increase: {item.timestamp} after {last.timestamp}")
        self._items.append(item)

    def produce(self, rng: random.Random, clock: Callable[[], datetime] = datetime.now) -> Item:
        """Make the next real-time item (see next_item) and append it."""
        last = self.last
        item = next_item(last.timestamp if last else None, rng, clock)
        self.append(item)
        return item

    def replay(self, last_timestamp: datetime, last_data: int) -> list[DataResponse]:
        """The responses answering a request, per the spec doc.

        Found (same timestamp and value): every later item, status history (nothing if it is the
        newest). Not found: the whole history, the first item with last_data_not_found, the rest
        history. Empty history: nothing.
        """
        later: list[Item] = []
        found = False
        # Timestamps strictly increase, so scan from the newest end: cost is O(items replayed).
        for item in reversed(self._items):
            if item.timestamp > last_timestamp:
                later.append(item)
                continue
            found = item.timestamp == last_timestamp and item.value == last_data
            break
        if found:
            return [item.response(Status.history) for item in reversed(later)]
        return [item.response(Status.last_data_not_found if index == 0 else Status.history)
                for index, item in enumerate(self._items)]
