"""Per-method TubeMQ call statistics (`inlong-proto tubemq calls`): count, latency percentiles, exceptions.

Sans-IO: feed CaptureFrames (or Frames of a dump) as they are decoded; each connection's frames are paired
by serial number (rpc.CallPairer) and only the figures are kept, so memory grows with open calls and with
one float per answered call, never with the frames.

A capture pairs each connection apart. A dump has no connections: when it holds several (a server's record
of all its clients, dumps concatenated) their serial numbers collide, so a dump is paired by serial and
method (rpc.CallPairer merged) and every collision is counted: `collisions` per method in the rows, and
`warnings`, one line to show the user.
"""
from __future__ import annotations

import math
from collections import Counter

from inlong_proto.core.plain import lenient_text
from inlong_proto.tubemq.rpc import Call, CallPairer

COLUMNS = ("method", "calls", "answered", "unanswered", "exceptions", "p50_ms", "p95_ms", "max_ms",
           "top_exception", "collisions")


def _percentile(ordered: list[float], fraction: float) -> float | None:
    """The nearest-rank percentile of sorted values."""
    if not ordered:
        return None
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


class CallStats:
    """feed(frame, connection): connection is None for frames whose connection is unknown (a dump), which
    are paired as possibly merged connections (serial and method; collisions counted)."""

    def __init__(self):
        self.pairers: dict[object, CallPairer] = {}  # per connection (a capture's flow; None: a dump)
        self.methods: dict[str, dict] = {}
        self.collisions = 0  # serial-number collisions of frames without a connection
        self.collided: Counter = Counter()  # method -> collisions

    def feed(self, frame, connection=None, at_seconds: float | None = None) -> None:
        pairer = self.pairers.get(connection)
        if pairer is None:
            pairer = self.pairers[connection] = CallPairer(merged=connection is None)
        for call in pairer.feed(frame, at_seconds):
            self._add(call)

    def end_connection(self, connection=None) -> None:
        pairer = self.pairers.pop(connection, None)
        if pairer is not None:
            for call in pairer.close():
                self._add(call)
            self.collisions += pairer.collisions
            self.collided.update(pairer.collided)

    @property
    def warnings(self) -> list[str]:
        """One line per problem with the figures (after rows()): colliding serial numbers of a dump."""
        if not self.collisions:
            return []
        methods = ", ".join(f"{m} ({n})" for m, n in sorted(self.collided.items(), key=lambda i: (-i[1], i[0])))
        return [f"serial numbers collide {self.collisions} time(s) ({methods}): the dump holds several "
                f"connections' calls, paired by serial and method, so the figures may be wrong; a capture "
                f"pairs each connection apart"]

    def _add(self, call: Call) -> None:
        entry = self.methods.setdefault(call.method or "unknown", {
            "calls": 0, "answered": 0, "exceptions": Counter(), "latencies": []})
        entry["calls"] += 1
        if call.response is not None:
            entry["answered"] += 1
        if call.failed:
            exception = call.response.payload.exception
            entry["exceptions"][lenient_text(exception.class_name).rsplit(".", 1)[-1]] += 1
        if call.latency is not None:
            entry["latencies"].append(call.latency)

    def rows(self) -> list[dict]:
        """One row per method, most called first; latencies in milliseconds (None without capture times)."""
        for connection in list(self.pairers):
            self.end_connection(connection)
        out = []
        for method, entry in sorted(self.methods.items(), key=lambda item: (-item[1]["calls"], item[0])):
            ordered = sorted(entry["latencies"])
            ms = [None if v is None else round(v * 1000, 3) for v in
                  (_percentile(ordered, 0.5), _percentile(ordered, 0.95), ordered[-1] if ordered else None)]
            top = entry["exceptions"].most_common(1)
            out.append({"method": method, "calls": entry["calls"], "answered": entry["answered"],
                        "unanswered": entry["calls"] - entry["answered"],
                        "exceptions": sum(entry["exceptions"].values()), "p50_ms": ms[0], "p95_ms": ms[1],
                        "max_ms": ms[2], "top_exception": f"{top[0][0]} ({top[0][1]})" if top else None,
                        "collisions": self.collided.get(method, 0)})
        return out
