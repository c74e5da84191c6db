"""Message-level pairing: every message sent on the wire with its outcome, as frames stream by. Sans-IO.

    auditor = Auditor(timeout=30.0)
    for item in capture_items:                      # capture.CaptureFrame, in capture order
        for result in auditor.feed(item): ...       # AuditedMessage / Delivered, as soon as they are known
    for result in auditor.end_flow(flow): ...       # a connection closed: what it left open is unanswered
    for result in auditor.close(): ...              # the capture ended

What a frame means is its protocol package's audit reader's (readers.events); here the requests of each connection wait
for their answers, keyed as the reader says. Memory is bounded by the requests still open (at most
max_open; past it the oldest is given up as unanswered, with the reason) and by the message ids remembered
for duplicates (at most max_seen, least recently seen forgotten first), never by the frames seen.

Outcomes: "ok", "failed" (error says what: an errCode, an exception class, a code), "unanswered" (reason:
the connection closed, the capture ended, the timeout passed, the open-request limit), "not_asked" (the
request asked for no answer: DataProxy isAck=false), "unknown" (the source may hold one direction only, a
raw dump, and held no answer at all: Auditor(may_lack_answers=True)). A message whose id (Sent.identity) was
already seen from the same client (group, stream and id alike) is a duplicate: a re-send. Every copy keeps
its own outcome.
"""
from __future__ import annotations

from collections import OrderedDict, deque
from dataclasses import dataclass

from inlong_proto.audit.readers import events
from inlong_proto.core.audit_events import Answer, Call, Delivery, Done, Pull, Sent

__all__ = ["AuditedMessage", "Auditor", "Delivered", "MAX_OPEN", "MAX_SEEN", "NO_ANSWERS", "OUTCOMES"]

MAX_OPEN = 1 << 20  # requests waiting for their answers, all connections together
MAX_SEEN = 1 << 20  # message ids remembered for duplicates
OUTCOMES = ("ok", "failed", "unanswered", "not_asked", "unknown")
NO_ANSWERS = "the source holds no answers (one direction only): not known whether it was answered"


@dataclass(frozen=True, slots=True)
class AuditedMessage:
    """One message sent, with what became of it. time_ns: the capture time of the request; latency_s: to its
    answer (None without one)."""

    system: str
    group: str
    stream: str
    time_ns: int | None
    flow: int | None
    client: str | None
    message_id: str | None
    records: int
    size: int
    frame_bytes: int
    outcome: str
    error: str | None = None
    latency_s: float | None = None
    duplicate: bool = False
    request: object | None = None  # the request Frame, with Auditor(keep_requests=True) only (replay)

    def to_dict(self) -> dict:
        return {name: getattr(self, name) for name in self.__slots__ if name != "request"}


@dataclass(frozen=True, slots=True)
class Delivered:
    """Messages handed to a consumer (a TubeMQ pull's answer, an EventMesh push)."""

    system: str
    group: str
    stream: str
    time_ns: int | None
    records: int
    size: int

    def to_dict(self) -> dict:
        return {name: getattr(self, name) for name in self.__slots__}


class _Open:
    __slots__ = ("event", "time_ns", "flow", "client", "duplicate", "done", "conn", "key", "frame")

    def __init__(self, event, time_ns, flow, client, duplicate, conn, key, frame):
        self.event, self.time_ns, self.flow, self.client = event, time_ns, flow, client
        self.duplicate, self.conn, self.key, self.done, self.frame = duplicate, conn, key, False, frame


class Auditor:
    """feed() CaptureFrames (or (frame, direction, time_ns, flow) through feed_frame), get AuditedMessage and
    Delivered items back. timeout: seconds of capture time after which an open request is unanswered (None:
    it waits for its connection or the capture to end). keep_requests: each AuditedMessage carries its request
    Frame (what replay re-sends); open requests then hold their frames. may_lack_answers: the source may hold
    the requests only (a raw dump of one direction): as long as no answer at all was seen, a request left
    open is "unknown" (error NO_ANSWERS), never "unanswered"."""

    def __init__(self, *, timeout: float | None = None, max_open: int = MAX_OPEN, max_seen: int = MAX_SEEN,
                 keep_requests: bool = False, may_lack_answers: bool = False):
        if timeout is not None and timeout <= 0:
            raise ValueError(f"timeout must be positive, not {timeout!r}")
        if max_open < 1 or max_seen < 1:
            raise ValueError("max_open and max_seen must be at least 1")
        self.timeout_ns = None if timeout is None else int(timeout * 1e9)
        self.max_open, self.max_seen, self.keep_requests = max_open, max_seen, keep_requests
        self.may_lack_answers = may_lack_answers
        self._conns: dict[object, dict[tuple, deque]] = {}  # connection -> key -> open requests, oldest first
        self._order: deque[_Open] = deque()  # every open request, in arrival order (done ones lazily dropped)
        self._open = 0
        self._seen: OrderedDict[tuple, None] = OrderedDict()
        self.stats = {"frames": 0, "answers": 0, "unmatched_answers": 0, "timed_out": 0, "given_up": 0}

    def feed(self, item) -> list:
        """A capture.CaptureFrame."""
        if item.flow is None:
            return []
        return self.feed_frame(item.frame, item.direction, item.timestamp_ns, item.flow)

    def feed_frame(self, frame, direction: str | None, time_ns: int | None, flow=None) -> list:
        """A frame of one direction of connection `flow` (any hashable; a capture.Flow names its client)."""
        self.stats["frames"] += 1
        out = self._expire(time_ns)
        conn = self._conns.get(flow)
        for event in events(frame, direction):
            if isinstance(event, Answer):
                self.stats["answers"] += 1
                out += self._answer(conn, event, time_ns)
                continue
            if isinstance(event, Delivery):
                out.append(Delivered(event.system, event.group, event.stream, time_ns, event.records, event.size))
                continue
            if isinstance(event, Done):  # paired already (a gRPC call): its request came latency_s earlier
                out.append(self._done(event, time_ns, flow, frame))
                continue
            client = getattr(flow, "client", None)
            duplicate = isinstance(event, Sent) and self._duplicate(event, client)
            number = getattr(flow, "number", None)
            kept = frame if self.keep_requests else None
            if event.key is None:  # asks for no answer
                out.append(_message(event, time_ns, number, client, duplicate, "not_asked", request=kept))
                continue
            if conn is None:
                conn = self._conns[flow] = {}
            opened = _Open(event, time_ns, number, client, duplicate, conn, event.key, kept)
            conn.setdefault(event.key, deque()).append(opened)
            self._order.append(opened)
            self._open += 1
            while self._open > self.max_open:
                oldest = self._oldest()
                self.stats["given_up"] += 1
                out += self._finish(oldest, f"over {self.max_open} open requests (the oldest is given up)")
        self._compact()
        return out

    def _compact(self) -> None:
        """Drop answered requests from the arrival order: from its front at once, and all of them whenever
        they outnumber the open ones (a request open for long keeps the later answered ones behind it)."""
        order = self._order
        while order and order[0].done:
            order.popleft()
        if len(order) > 2 * self._open + 1024:
            self._order = deque(opened for opened in order if not opened.done)

    def end_flow(self, flow, reason: str = "connection closed before the answer") -> list:
        """The connection ended: its open requests are unanswered."""
        conn = self._conns.pop(flow, None)
        out: list = []
        for waiting in list((conn or {}).values()):
            for opened in list(waiting):
                out += self._finish(opened, reason)
        return out

    def close(self, reason: str = "capture ended before the answer") -> list:
        out: list = []
        for flow in list(self._conns):
            out += self.end_flow(flow, reason)
        self._order.clear()
        return out

    @property
    def open_requests(self) -> int:
        return self._open

    # -- inside ----------------------------------------------------------------------------------------

    def _done(self, done: Done, time_ns, flow, frame) -> AuditedMessage:
        client = getattr(flow, "client", None)
        duplicate = self._duplicate(done.sent, client)
        start = time_ns if time_ns is None or done.latency_s is None else time_ns - int(done.latency_s * 1e9)
        error = done.error
        if done.ok is None:
            outcome, error = self._left_open(error)
        else:
            self.stats["answers"] += 1
            outcome = "ok" if done.ok else "failed"
        return _message(done.sent, start, getattr(flow, "number", None), client, duplicate, outcome, error,
                        done.latency_s, frame if self.keep_requests else None)

    def _left_open(self, reason: str) -> tuple[str, str]:
        """The outcome of a request whose answer did not come, and why."""
        if self.may_lack_answers and not self.stats["answers"]:
            return "unknown", NO_ANSWERS
        return "unanswered", reason

    def _duplicate(self, event: Sent, client) -> bool:
        identity = event.identity
        if identity is None:
            return False
        key = (event.system, client, event.group, event.stream, identity)
        if key in self._seen:
            self._seen.move_to_end(key)
            return True
        self._seen[key] = None
        if len(self._seen) > self.max_seen:
            self._seen.popitem(last=False)
        return False

    def _answer(self, conn, answer: Answer, time_ns) -> list:
        waiting = conn.get(answer.key) if conn is not None else None
        if not waiting:
            self.stats["unmatched_answers"] += 1  # an answer to a request given up, or not in the capture
            return []
        opened = waiting[0]
        latency = None if time_ns is None or opened.time_ns is None else (time_ns - opened.time_ns) / 1e9
        self._close(opened)
        event = opened.event
        if isinstance(event, Call):
            return []
        if isinstance(event, Pull):
            if answer.ok and answer.delivered:
                return [Delivered(event.system, event.group, event.stream, time_ns, answer.delivered, answer.size)]
            return []
        return [_message(event, opened.time_ns, opened.flow, opened.client, opened.duplicate,
                         "ok" if answer.ok else "failed", answer.error, latency, opened.frame)]

    def _close(self, opened: _Open) -> None:
        waiting = opened.conn[opened.key]
        waiting.remove(opened)  # (the oldest of its key but for a given-up one: short deques)
        if not waiting:
            del opened.conn[opened.key]
        opened.done = True
        self._open -= 1

    def _oldest(self) -> _Open:
        while self._order[0].done:
            self._order.popleft()
        return self._order[0]

    def _finish(self, opened: _Open, reason: str) -> list:
        self._close(opened)
        event = opened.event
        if isinstance(event, (Pull, Call)):  # no message: nothing left unanswered
            return []
        outcome, reason = self._left_open(reason)
        return [_message(event, opened.time_ns, opened.flow, opened.client, opened.duplicate, outcome, reason,
                         request=opened.frame)]

    def _expire(self, now_ns: int | None) -> list:
        out: list = []
        if self.timeout_ns is None or now_ns is None:
            return out
        while self._order:
            first = self._order[0]
            if first.done:
                self._order.popleft()
                continue
            if first.time_ns is None or now_ns - first.time_ns <= self.timeout_ns:
                break
            self._order.popleft()
            self.stats["timed_out"] += 1
            out += self._finish(first, f"no answer within {self.timeout_ns / 1e9:g} s")
        return out


def _message(event: Sent, time_ns, flow, client, duplicate: bool, outcome: str, error: str | None = None,
             latency: float | None = None, request=None) -> AuditedMessage:
    return AuditedMessage(event.system, event.group, event.stream, time_ns, flow, client, event.message_id,
                          event.records, event.size, event.frame_bytes, outcome, error, latency, duplicate, request)
