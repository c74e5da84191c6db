"""The audit table: audited messages counted per (system, group or topic, stream, window), and the
differences between two tables (two capture points of one pipeline). Sans-IO.

A row holds what InLong Audit counts per group, stream and minute (docs/how-to/audit.md): messages and
records sent, their data bytes (size), how many were acknowledged, failed, left unanswered, sent without
asking for an answer or of unknown outcome (a dump of the requests only), duplicates (re-sends), deliveries
to consumers, and the acknowledgement latency (delay) as p50 / p95 / max in milliseconds. Memory: one row per
key and window, each with the latencies of its answered messages.
"""
from __future__ import annotations

import math
from collections import Counter
from datetime import datetime, timezone

from inlong_proto.audit.pairing import AuditedMessage, Delivered

__all__ = ["AuditTable", "COLUMNS", "DIFF_COLUMNS", "KEYS", "diff", "parse_window"]

KEYS = ("group", "stream")  # what --by may name (system and the window are always part of the key)
COLUMNS = ("system", "group", "stream", "window_start", "messages", "records", "bytes", "acked_ok", "records_ok",
           "failed", "top_error", "unanswered", "not_asked", "unknown", "duplicates", "delivered", "p50_ms", "p95_ms",
           "max_ms")
COUNTS = ("messages", "records", "bytes", "acked_ok", "records_ok", "failed", "unanswered", "not_asked", "unknown",
          "duplicates", "delivered")
DIFF_COLUMNS = ("system", "group", "stream", "window_start", "column", "a", "b", "b_minus_a")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_window(text: str | int | float) -> float:
    """'1m', '30s', '5m', '1h', or seconds as a number: the window length in seconds (positive)."""
    if isinstance(text, (int, float)):
        seconds = float(text)
    else:
        value = text.strip().lower()
        unit = value[-1:] if value[-1:] in _UNITS else "s"
        number = value[:-1] if value[-1:] in _UNITS else value
        try:
            seconds = float(number) * _UNITS[unit]
        except ValueError:
            raise ValueError(f"window {text!r}: expected a number and a unit, e.g. 1m, 30s, 1h") from None
    if not seconds > 0 or math.isinf(seconds):
        raise ValueError(f"window {text!r}: must be positive")
    return seconds


def _percentile(ordered: list[float], fraction: float) -> float | None:
    if not ordered:
        return None
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def _window_start(time_ns: int | None, window_ns: int) -> str | None:
    if time_ns is None:
        return None
    start = time_ns - time_ns % window_ns
    return datetime.fromtimestamp(start // 10**9, tz=timezone.utc).replace(
        microsecond=(start % 10**9) // 1000).isoformat().replace("+00:00", "Z")


class AuditTable:
    """add() AuditedMessage / Delivered items; rows() gives the table, sorted by key and window.

    window: seconds per bucket (InLong Audit's minute: 60). by: the key columns kept, a subset of KEYS
    (those left out are shown as "*", their rows summed)."""

    def __init__(self, window: float = 60.0, by: tuple[str, ...] = KEYS):
        unknown = [name for name in by if name not in KEYS]
        if unknown:
            raise ValueError(f"cannot group by {', '.join(unknown)}: choose from {', '.join(KEYS)}")
        self.window_ns = max(1, int(window * 1e9))
        self.by = tuple(by)
        self._rows: dict[tuple, dict] = {}
        self._window: tuple[int | None, str | None] = (None, None)  # the last item's window start, and as text

    def _row(self, item) -> dict:
        group = item.group if "group" in self.by else "*"
        stream = item.stream if "stream" in self.by else "*"
        start = None if item.time_ns is None else item.time_ns - item.time_ns % self.window_ns
        if start != self._window[0]:  # (items come mostly in time order: one text per window, not per item)
            self._window = (start, _window_start(item.time_ns, self.window_ns))
        key = (item.system, group, stream, self._window[1])
        row = self._rows.get(key)
        if row is None:
            row = self._rows[key] = dict.fromkeys(COUNTS, 0)
            row["errors"], row["latencies"] = Counter(), []
        return row

    def add(self, item) -> None:
        row = self._row(item)
        if isinstance(item, Delivered):
            row["delivered"] += item.records
            return
        if not isinstance(item, AuditedMessage):
            raise TypeError(f"expected AuditedMessage or Delivered, not {type(item).__name__}")
        row["messages"] += 1
        row["records"] += item.records
        row["bytes"] += item.size
        row["duplicates"] += item.duplicate
        if item.outcome == "ok":
            row["acked_ok"] += 1
            row["records_ok"] += item.records
        elif item.outcome == "failed":
            row["failed"] += 1
            row["errors"][item.error or "unknown"] += 1
        elif item.outcome == "unanswered":
            row["unanswered"] += 1
        elif item.outcome == "unknown":
            row["unknown"] += 1
        else:
            row["not_asked"] += 1
        if item.latency_s is not None:
            row["latencies"].append(item.latency_s)

    def merge(self, other: "AuditTable") -> None:
        """Add another table's counts (of the same window and key columns): captures audited apart."""
        if (other.window_ns, other.by) != (self.window_ns, self.by):
            raise ValueError("tables of different windows or keys do not merge")
        for key, theirs in other._rows.items():
            mine = self._rows.get(key)
            if mine is None:
                mine = self._rows[key] = dict.fromkeys(COUNTS, 0)
                mine["errors"], mine["latencies"] = Counter(), []
            for name in COUNTS:
                mine[name] += theirs[name]
            mine["errors"].update(theirs["errors"])
            mine["latencies"] += theirs["latencies"]

    def rows(self) -> list[dict]:
        out = []
        for (system, group, stream, window), row in sorted(self._rows.items(),
                                                           key=lambda kv: tuple("" if v is None else v
                                                                                for v in kv[0])):
            ordered = sorted(row["latencies"])
            ms = [None if v is None else round(v * 1000, 3)
                  for v in (_percentile(ordered, 0.5), _percentile(ordered, 0.95), ordered[-1] if ordered else None)]
            top = row["errors"].most_common(1)
            out.append({"system": system, "group": group, "stream": stream, "window_start": window,
                        **{name: row[name] for name in COUNTS},
                        "top_error": f"{top[0][0]} ({top[0][1]})" if top else None,
                        "p50_ms": ms[0], "p95_ms": ms[1], "max_ms": ms[2]})
        return [{name: row[name] for name in COLUMNS} for row in out]


def diff(a: list[dict], b: list[dict], columns: tuple[str, ...] = COUNTS) -> list[dict]:
    """Per key and window, each count that differs between two tables (rows() of each): one row per
    (key, column) with a, b and b - a. A key present on one side only counts as zeros on the other."""
    index_a = {(r["system"], r["group"], r["stream"], r["window_start"]): r for r in a}
    index_b = {(r["system"], r["group"], r["stream"], r["window_start"]): r for r in b}
    out = []
    for key in sorted(set(index_a) | set(index_b), key=lambda k: tuple("" if v is None else v for v in k)):
        left, right = index_a.get(key, {}), index_b.get(key, {})
        for column in columns:
            x, y = left.get(column, 0), right.get(column, 0)
            if x != y:
                out.append(dict(zip(DIFF_COLUMNS, (*key, column, x, y, y - x))))
    return out
