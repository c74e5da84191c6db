"""decode's compact table (-T table, the default on a terminal), as Wireshark's packet list and tshark's
summary lines: No., relative time (a capture) or offset (a raw dump), source → destination (a capture) or
direction (a dump), protocol, length, and an Info column.

Info is written from each protocol's `summary` in its registry block (specs/, generated/registry.py): pieces
of text with {dotted.path} placeholders into the item's JSON, a piece left out when a value it names is
missing or empty. Nothing here knows a protocol. A malformed span's Info is its error, the reason without
the spec's field doc.

Rows are written as they are decoded (the first row fixes the column widths, which grow if a later value is
wider) and fit the terminal's width: Info is cut with …, never a number. Written to a file or a pipe nothing
is cut (on a terminal COLUMNS, when set, is the width). Every cell is escaped as inspect escapes values."""
from __future__ import annotations

import os
import re

from inlong_proto.core import protocols
from inlong_proto.core.plain import printable

PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
INFO_MIN = 30  # below this many columns of Info, a capture's ends are written short (see ends())
_MISSING = object()


def summary_needs_payload(protocol: str) -> bool:
    """Whether the Info of this protocol (or, for auto, of any) names what its payload reader gives."""
    names = protocols.PAYLOAD_READERS if protocol == "auto" else [protocol]
    return any(name in protocols.PAYLOAD_READERS and any("{payload." in piece for piece in
                                                          protocols.SUMMARIES.get(name, ())) for name in names)


def _reach(value, parts: list[str]):
    for part in parts:
        if not isinstance(value, dict):
            return _MISSING
        if part == "*":  # any one key: a switch's case ({"data_request": {...}}), a protobuf message's type
            value = next(iter(value.values()), _MISSING) if len(value) == 1 else _MISSING
        else:
            value = value.get(part, _MISSING)
    return value


def _text(value) -> str | None:
    """A value as Info shows it; None: missing or empty (the piece is left out)."""
    if value is _MISSING or value is None or value == "" or value == [] or value == {}:
        return None
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, list):
        if not all(isinstance(item, (str, int, float)) for item in value):
            return None
        return ",".join(str(item) for item in value)
    if isinstance(value, dict):
        return None
    return str(value)


def info(record: dict) -> str:
    """The Info of one item's JSON: its protocol's summary, or its error."""
    error = record.get("error")
    if isinstance(error, dict):
        from inlong_proto.cli.failure import without_spec_doc

        return f"[{error.get('kind', 'malformed')}] {without_spec_doc(str(error.get('reason', '')))}"
    pieces = []
    for piece in protocols.SUMMARIES.get(record.get("protocol"), ("{message_type}",)):
        texts = []
        for path in PLACEHOLDER.findall(piece):
            path, _, count = path.partition("|")
            value = _reach(record, path.split("."))
            if count and value is not _MISSING:
                value = len(value) if isinstance(value, (list, dict)) else _MISSING
            texts.append(_text(value))
        if all(text is not None for text in texts):
            filled = iter(texts)
            pieces.append(PLACEHOLDER.sub(lambda _: next(filled), piece))
    return " ".join(pieces)


def width() -> int | None:
    """The columns to fit when stdout is a terminal (COLUMNS when set, else the terminal's); None elsewhere
    (a file or a pipe: nothing is cut)."""
    try:
        if not os.isatty(1):
            return None
        columns = os.environ.get("COLUMNS", "")
        return int(columns) if columns.isdigit() and int(columns) > 0 else os.get_terminal_size(1).columns
    except OSError:
        return None


def cut(text: str, room: int) -> str:
    return text if len(text) <= room else text[:max(room - 1, 0)] + "…"


class PacketList:
    """The writer: rows as they come, one line each, flushed per batch."""

    def __init__(self, stream, names: list[str] = (), columns: int | None = -1):
        """names: the protocols the rows may name (the column is as wide as the longest)."""
        self.stream, self.names = stream, list(names)
        self.columns = width() if columns == -1 else columns
        self.number = 0
        self.first_ns = None
        self.widths: dict[str, int] | None = None
        self.short_ends = False

    def write(self, records: list[dict]) -> None:
        for record in records:
            self.stream.write(self._line(record) + "\n")
        if records:
            self.stream.flush()

    def close(self) -> None:
        pass

    def _ends(self, record: dict) -> str:
        """A capture's ends, sender first: host:port → host:port; written short when the full form would
        leave Info fewer than INFO_MIN columns: the hosts, or the ports when both ends are on one host (on
        loopback the ports are what tells the ends apart)."""
        flow = record.get("flow") or {}
        client = (flow.get("client"), flow.get("client_port"))
        server = (flow.get("server"), flow.get("server_port"))
        source, target = (server, client) if record.get("stream") == "response" else (client, server)
        if not self.short_ends:
            return f"{source[0]}:{source[1]} → {target[0]}:{target[1]}"
        if source[0] == target[0]:
            return f":{source[1]} → :{target[1]}"
        return f"{source[0]} → {target[0]}"

    def _cells(self, record: dict) -> dict[str, str]:
        self.number += 1
        capture = "flow" in record
        if capture:
            ns = record.get("timestamp_ns")
            if ns is not None and self.first_ns is None:
                self.first_ns = ns
            when = "" if ns is None else f"{(ns - self.first_ns) / 1e9:.6f}"
            where = self._ends(record)
        else:
            when = str(record.get("offset", ""))
            where = record.get("direction") or ""
        return {"no": str(self.number), "time": when, "ends": printable(where),
                "protocol": printable(str(record.get("protocol") or "")), "length": str(record.get("length", "")),
                "info": printable(info(record))}

    def _line(self, record: dict) -> str:
        if self.widths is None:
            self._start(record)
        cells = self._cells(record)
        for key in ("no", "time", "ends", "protocol", "length"):
            self.widths[key] = max(self.widths[key], len(cells[key]))
        w = self.widths
        left = (f"{cells['no']:>{w['no']}} {cells['time']:>{w['time']}} {cells['ends']:<{w['ends']}} "
                f"{cells['protocol']:<{w['protocol']}} {cells['length']:>{w['length']}} ")
        room = None if self.columns is None else max(self.columns - len(left) - 1, 1)  # -1: no wrap at the edge
        return left + (cells["info"] if room is None else cut(cells["info"], room))

    def _start(self, record: dict) -> None:
        """The header, and the widths, from the first row."""
        capture = "flow" in record
        names = {"no": "No.", "time": "Time" if capture else "Offset",
                 "ends": "Source → Destination" if capture else "Direction", "protocol": "Protocol",
                 "length": "Length", "info": "Info"}
        self.widths = {key: len(text) for key, text in names.items()}
        self.widths["ends"] = 0 if not capture else self.widths["ends"]
        number, first = self.number, self.first_ns
        sample = self._cells(record)
        self.number, self.first_ns = number, first
        self.widths.update(no=max(4, len(names["no"])), time=max(self.widths["time"], len(sample["time"]), 8),
                           protocol=max([self.widths["protocol"], len(sample["protocol"]),
                                         *(len(name) for name in self.names)]),
                           length=max(self.widths["length"], len(sample["length"])))
        self.widths["ends"] = max(len(names["ends"]) if capture else 9, len(sample["ends"]))
        used = sum(self.widths[key] + 1 for key in ("no", "time", "ends", "protocol", "length"))
        if capture and self.columns is not None and self.columns - used - 1 < INFO_MIN:
            self.short_ends = True
            self.widths["ends"] = max(len(names["ends"]), len(self._ends(record)))
        w = self.widths
        self.stream.write(f"{names['no']:>{w['no']}} {names['time']:>{w['time']}} {names['ends']:<{w['ends']}} "
                          f"{names['protocol']:<{w['protocol']}} {names['length']:>{w['length']}} Info\n")
