"""Per-method TubeMQ call statistics (`inlong-proto tubemq calls`): count, latency percentiles, exceptions.

Sans-IO: feed CaptureFrames (or Frames of a dump) as they are decoded; each connection's frames are paired
by serial number (rpc.CallPairer) and only the figures are kept, so memory grows with open calls and with
one float per answered call, never with the frames.
"""
from __future__ import annotations

import math
from collections import Counter

from inlong_proto.core.plain import lenient_text
from inlong_proto.tubemq.rpc import Call, CallPairer

COLUMNS = ("method", "calls", "answered", "unanswered", "exceptions", "p50_ms", "p95_ms", "max_ms",
           "top_exception")


def _percentile(ordered: list[float], fraction: float) -> float | None:
    """The nearest-rank percentile of sorted values."""
    if not ordered:
        return None
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


class CallStats:
    def __init__(self):
        self.pairers: dict[object, CallPairer] = {}  # per connection (a capture's flow; one for a dump)
        self.methods: dict[str, dict] = {}

    def feed(self, frame, connection=None, at_seconds: float | None = None) -> None:
        pairer = self.pairers.setdefault(connection, CallPairer())
        for call in pairer.feed(frame, at_seconds):
            self._add(call)

    def end_connection(self, connection=None) -> None:
        pairer = self.pairers.pop(connection, None)
        if pairer is not None:
            for call in pairer.close():
                self._add(call)

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
                        "max_ms": ms[2], "top_exception": f"{top[0][0]} ({top[0][1]})" if top else None})
        return out
