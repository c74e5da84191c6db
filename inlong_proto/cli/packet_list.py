"""decode's compact table (-T table, the default on a terminal), as Wireshark's packet list and tshark's
summary lines: No., relative time (a capture) or offset (a raw dump), source → destination (a capture) or
direction (a dump), protocol, length, and an Info column.

Info is written from each protocol's `summary` in its registry block (specs/, generated/registry.py): pieces
of text with {dotted.path} placeholders into the item's JSON, a piece left out when a value it names is
missing or empty. Nothing here knows a protocol. A malformed span's Info is its error, the reason without
the spec's field doc.

Rows are written as they are decoded (the first row fixes the column widths, which grow if a later value is
wider) and fit the terminal's width: Info is cut with …, never a number. Written to a file or a pipe nothing
is cut (on a terminal COLUMNS, when set, is the width). Every cell is escaped as inspect escapes values.

A file that cli.whole_files reads as the compiled path's Arrow batches is written from its columns
(PacketList.write_columns, cells_of): the same lines, built a column at a time, its Info from the summary's
pieces over text columns (info_column; a payload's fields from its protocol's columnar reader,
PAYLOAD_COLUMNS)."""
from __future__ import annotations

import os
import re

from inlong_proto.core import protocols
from inlong_proto.core.plain import printable

PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
INFO_MIN = 30  # below this many columns of Info, a capture's ends are written short (see ends())
_MISSING = object()
# payload reader -> the function giving, from a batch, the payload fields its summary names as text columns
PAYLOAD_COLUMNS = {"inlong_proto.dataproxy.payload": "inlong_proto.dataproxy.summary:summary_columns"}


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

    def write_columns(self, cells: dict) -> None:
        """Rows given as cells_of's columns, written as write writes their items (widths grown row by row)."""
        import numpy as np
        import pyarrow as pa
        import pyarrow.compute as pc

        rows = len(cells["protocol"])
        if not rows:
            return
        if self.widths is None:
            self._start(cells["first"])
        if cells["capture"]:
            ns = cells["ns"]
            if self.first_ns is None:
                self.first_ns = int(ns[0])
            when = pa.array([f"{value:.6f}" for value in ((ns - self.first_ns) / 1e9).tolist()], pa.string())
        else:
            when = cells["offset"]
        text = {"no": pc.cast(pa.array(np.arange(self.number + 1, self.number + rows + 1)), pa.string()),
                "time": when, "ends": cells["short" if self.short_ends else "ends"],
                "protocol": cells["protocol"], "length": cells["length"]}
        self.number += rows
        keys = ("no", "time", "ends", "protocol", "length")
        grown = {key: np.maximum.accumulate(np.maximum(
            pc.utf8_length(text[key]).to_numpy(zero_copy_only=False), self.widths[key])) for key in keys}
        changed = np.zeros(rows, bool)
        changed[0] = True
        for key in keys:
            changed[1:] |= grown[key][1:] != grown[key][:-1]
        starts = np.append(np.flatnonzero(changed), rows)
        parts = []
        for start, end in zip(starts[:-1].tolist(), starts[1:].tolist()):
            w = {key: int(grown[key][start]) for key in keys}
            piece = {key: text[key].slice(start, end - start) for key in keys}
            left = [pc.utf8_lpad(piece["no"], w["no"]), pc.utf8_lpad(piece["time"], w["time"]),
                    pc.utf8_rpad(piece["ends"], w["ends"]), pc.utf8_rpad(piece["protocol"], w["protocol"]),
                    pc.utf8_lpad(piece["length"], w["length"])]
            info = cells["info"].slice(start, end - start)
            if self.columns is not None:  # cut as cut() cuts
                room = max(self.columns - sum(w.values()) - 5 - 1, 1)
                info = pc.if_else(pc.greater(pc.utf8_length(info), room), pc.binary_join_element_wise(
                    pc.utf8_slice_codeunits(info, 0, room - 1), "…", ""), info)
            parts.append(pc.binary_join_element_wise(*left, pc.binary_join_element_wise(info, "\n", ""), " "))
        self.widths.update({key: int(grown[key][-1]) for key in keys})
        from inlong_proto.cli.columns import text_bytes

        lines = pa.concat_arrays(parts)
        self.stream.write(text_bytes(lines).tobytes().decode("utf-8"))
        self.stream.flush()

    def close(self) -> None:
        pass

    def _ends(self, record: dict) -> str:  # (cells_of writes them by columns)
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


def cells_of(batch, protocol: str, capture: bool) -> dict | None:
    """The cells of a batch of the compiled path's rows (a capture's: with compiled_capture.ITEM_COLUMNS) as
    PacketList.write_columns takes them, or None where a row's Info cannot be said from the columns (then
    its file is streamed): a capture's ends both full and short, its times in nanoseconds, and the first
    row as the dict PacketList._start reads."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from inlong_proto.core import arrow

    info = info_column(batch, protocol)
    if info is None:
        return None
    cells = {"capture": capture, "protocol": _printable(batch.column("protocol")),
             "length": pc.cast(batch.column("length"), pa.string()), "info": _printable(info)}
    if capture:
        field = batch.column(arrow.CAPTURE_COLUMN).field
        ns = batch.column("timestamp_ns")
        ends = [field(name) for name in ("client", "client_port", "server", "server_port", "sender")]
        if ns.null_count or any(column.null_count for column in ends):
            return None
        client, client_port, server, server_port, sender = (pc.cast(column, pa.string()) for column in ends)
        answer = pc.not_equal(sender, "client")
        source, source_port = pc.if_else(answer, server, client), pc.if_else(answer, server_port, client_port)
        target, target_port = pc.if_else(answer, client, server), pc.if_else(answer, client_port, server_port)
        cells["ends"] = _printable(pc.binary_join_element_wise(source, ":", source_port, " → ", target, ":",
                                                               target_port, ""))
        cells["short"] = _printable(pc.if_else(
            pc.equal(source, target), pc.binary_join_element_wise(":", source_port, " → :", target_port, ""),
            pc.binary_join_element_wise(source, " → ", target, "")))
        cells["ns"] = ns.to_numpy()
        first = batch.slice(0, 1).to_pylist()[0]
        where = first[arrow.CAPTURE_COLUMN]
        cells["first"] = {"flow": {key: where[key] for key in ("client", "client_port", "server", "server_port")},
                          "stream": "request" if where["sender"] == "client" else "response",
                          **{key: first[key] for key in ("timestamp_ns", "protocol", "length")}}
    else:
        cells["offset"] = pc.cast(batch.column("offset"), pa.string())
        cells["ends"] = cells["short"] = _printable(batch.column("direction").fill_null(""))
        first = batch.slice(0, 1).to_pylist()[0]
        cells["first"] = {key: first[key] for key in ("offset", "direction", "protocol", "length")}
    return cells


def info_column(batch, protocol: str):
    """The Info of every row of a batch of protocol's frames (error rows are not taken: None), from its
    summary's pieces: a placeholder names a top-level column, a field of a switch's case ({body.*.status}:
    _case_text), or a payload field that PAYLOAD_COLUMNS' reader gives; None where a piece names anything
    else, a value's kind _cell_text does not say, or the reader does not cover a row. protocol auto (a capture's auto_schema rows): each row's own protocol's Info (columns.by_protocol)."""
    import importlib

    import pyarrow as pa
    import pyarrow.compute as pc

    if batch.column("error").null_count != batch.num_rows:
        return None
    if protocol == "auto":
        from inlong_proto.cli.columns import by_protocol

        return by_protocol(batch, info_column)
    values = {}
    reader = protocols.PAYLOAD_READERS.get(protocol)
    if summary_needs_payload(protocol):
        module, _, name = PAYLOAD_COLUMNS.get(reader, ":").partition(":")
        values = getattr(importlib.import_module(module), name)(batch) if module else None
        if values is None:
            return None
    rows = batch.num_rows
    none = pa.nulls(rows, pa.string())
    info, seen = pa.array([""] * rows, pa.string()), pa.array([False] * rows)
    for piece in protocols.SUMMARIES.get(protocol, ("{message_type}",)):
        parts = []
        for literal, path in zip(PLACEHOLDER.split(piece)[::2], [*PLACEHOLDER.findall(piece), None]):
            parts.append(literal)
            if path is None:
                break
            column = values.get(path)
            if column is None:
                column = _case_text(batch, protocol, path) if ".*." in path else (
                    _cell_text(batch.column(path)) if path in batch.schema.names else None)
                if column is None:
                    return None
                column = pc.if_else(pc.equal(column, ""), none, column)
            parts.append(column)
        text = pc.binary_join_element_wise(*[pa.scalar(part) if isinstance(part, str) else part for part in parts],
                                           "", null_handling="emit_null")
        if not isinstance(text, pa.Array):  # a piece with no placeholder
            text = pa.array([text.as_py()] * rows, pa.string())
        present = text.is_valid()
        info = pc.if_else(present, pc.binary_join_element_wise(info, pc.if_else(seen, " ", ""), text.fill_null(""),
                                                               ""), info)
        seen = pc.or_(seen, present)
    return info


def _case_text(batch, protocol: str, path: str):
    """A {switch.*.field} placeholder's text (the field of whichever case a row's switch holds; null where
    that case has no such field), from the cases' struct columns (arrow lifts a switch's cases to the top);
    None where the path is not a top-level switch's field or a value's text is not _cell_text's."""
    import pyarrow as pa
    import pyarrow.compute as pc

    switch, _, field = path.partition(".*.")
    cases = {case: case_cls for cls in protocols.get(protocol).frame_types for info in cls.FIELDS
             if info.kind == "switch" and info.name == switch for case, case_cls in info.detail}
    if not cases or "." in field:
        return None
    text = pa.nulls(batch.num_rows, pa.string())
    for case, case_cls in cases.items():
        if field not in {info.name for info in case_cls.FIELDS}:
            continue
        column = batch.column(case)
        value = _cell_text(pc.struct_field(column, field))
        if value is None:
            return None
        text = pc.if_else(column.is_valid(), value, text)
    return text


_DATETIMES = (-30610224000000, 253402300800000)  # years 1000 to 9999 in ms: Arrow writes them as isoformat does


def _cell_text(column):
    """A column's values as Info writes them (str() of the JSON value: render_datetime for a time, true /
    false); None for a kind it does not say."""
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = column.type
    if pa.types.is_string(kind) or pa.types.is_integer(kind):
        return pc.cast(column, pa.string())
    if pa.types.is_boolean(kind):
        return pc.if_else(column, "true", "false")
    if kind == pa.timestamp("ms"):  # render_datetime: isoformat(sep=" ", timespec="milliseconds")
        ms = pc.cast(column, pa.int64())
        low, high = pc.min_max(ms).values()
        if low.is_valid and (low.as_py() < _DATETIMES[0] or high.as_py() >= _DATETIMES[1]):
            return None
        return pc.cast(column, pa.string())
    return None


def _printable(column):
    """A text column's cells as printable() writes them: as they are where printable ASCII (by Arrow),
    the others value by value."""
    import pyarrow as pa
    import pyarrow.compute as pc

    plain = pc.fill_null(pc.ascii_is_printable(column), True)
    if pc.all(plain).as_py():
        return column
    rest = pc.invert(plain)
    cells = pa.array([printable(value) for value in pc.filter(column, rest).to_pylist()], pa.string())
    return pc.replace_with_mask(column, rest, cells)
