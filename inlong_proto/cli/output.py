"""decode's output formats (-T): JSON lines, one JSON array, CSV, a table, Parquet. Each writer takes the
items' JSON dicts in batches as they are decoded and writes them at once (a table and Parquet a block of
rows at a time), so that live input stays live and memory stays bounded.

Frame content is never written so that it could drive a terminal or a spreadsheet: JSON escapes every
control character (json itself escapes C0; DEL and C1 are escaped here), table and CSV cells escape the
characters inspect escapes (values.printable), and a CSV text cell that a spreadsheet would read as a
formula gets a leading quote (OWASP's advice on CSV injection)."""
from __future__ import annotations

import csv
import re
import sys

from inlong_proto.cli.failure import require
from inlong_proto.cli.query import Path, QueryError, field_path
from inlong_proto.core.plain import json_text, printable

FORMATS = ("jsonl", "json", "csv", "table", "wide", "parquet")
# Columns of csv / table / parquet when no -e is given: what identifies a frame or record and its error.
FRAME_COLUMNS = ("protocol", "offset", "length", "direction", "message_type", "error.reason")
RECORD_COLUMNS = ("frame_offset", "record_index", "group_id", "stream_id", "data_time", "data", "attributes",
                  "error.reason")
CAPTURE_COLUMNS = ("timestamp", "flow.client", "flow.client_port", "flow.server", "flow.server_port", "stream")
TABLE_ROWS = 1000  # a table is printed per this many rows (and at the end)
PARQUET_ROWS = 8192  # rows per Parquet row group


_RAW_IN_JSON = re.compile("[\x7f-\x9f]")  # control characters json.dumps(ensure_ascii=False) leaves raw


def terminal_json(value) -> str:
    """json_text with DEL and the C1 controls (U+009B is CSI to some terminals) escaped as well: JSON lines
    of frame content for a terminal (decode, the clients' received messages), same JSON value."""
    return terminal_escapes(json_text(value))


def terminal_escapes(text: str) -> str:
    """JSON text with DEL and the C1 controls written as JSON escapes (terminal_json's second step)."""
    return _RAW_IN_JSON.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def _json_cell(value) -> str:
    """A nested value as JSON text for a cell, every character printable() would escape written as a JSON
    escape, so that the cell is still JSON."""
    text = json_text(value)
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else "".join(
        f"\\u{unit:04x}" for unit in _utf16(char)) for char in text)


def _utf16(char: str) -> tuple[int, ...]:
    code = ord(char)
    if code < 0x10000:
        return (code,)
    code -= 0x10000
    return 0xD800 + (code >> 10), 0xDC00 + (code & 0x3FF)


def console():
    """Rich's console for tables on stdout: the terminal's width, or, written to a file or a pipe, as wide as
    the table needs (rich would cut every cell to 80 columns there)."""
    from rich.console import Console

    return Console() if sys.stdout.isatty() else Console(width=1 << 16)


def writer(name: str, stream, fields: list[Path], records: bool):
    """The writer for -T name: fields are the -e paths (none: the whole item, or default columns)."""
    if name == "jsonl":
        return JsonLines(stream, fields)
    if name == "json":
        return JsonArray(stream, fields)
    if name == "parquet":
        if stream.isatty():
            raise QueryError("parquet is binary: redirect the output to a file (> frames.parquet)")
        require("pyarrow", "spark", "-T parquet")
    cls = {"csv": Csv, "table": Table, "wide": Table, "parquet": Parquet}[name]
    return cls(stream, fields, RECORD_COLUMNS if records else FRAME_COLUMNS)


class JsonLines:
    def __init__(self, stream, fields: list[Path]):
        self.stream, self.fields = stream, fields

    def shape(self, record: dict):
        return {path.text: path.pick(record) for path in self.fields} if self.fields else record

    def write(self, records: list[dict]) -> None:
        for record in records:
            self.stream.write(terminal_json(self.shape(record)) + "\n")
        if records:
            self.stream.flush()

    def close(self) -> None:
        pass


class JsonArray(JsonLines):
    """One JSON array, written element by element (valid JSON once closed)."""

    def __init__(self, stream, fields: list[Path]):
        super().__init__(stream, fields)
        self.count = 0

    def write(self, records: list[dict]) -> None:
        for record in records:
            self.stream.write(("[\n" if self.count == 0 else ",\n") + terminal_json(self.shape(record)))
            self.count += 1
        if records:
            self.stream.flush()

    def close(self) -> None:
        self.stream.write("[]\n" if self.count == 0 else "\n]\n")
        self.stream.flush()


def _cell(value):
    """A value for a flat cell of data (Parquet): text and numbers as they are, anything nested as JSON."""
    if value is None:
        return None
    if isinstance(value, (dict, list, bool)):
        return json_text(value)
    return value


def _shown_cell(value):
    """A cell that people read (a table, CSV): numbers as they are, text escaped as inspect escapes it,
    anything nested as JSON escaped likewise (still JSON)."""
    if isinstance(value, (dict, list, bool)):
        return _json_cell(value)
    if isinstance(value, str):
        return printable(value)
    return value


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")  # what makes a spreadsheet read a cell as a formula (OWASP)


def csv_cell(value):
    """A CSV cell: shown as in a table, and text that starts like a formula (=HYPERLINK(, @SUM(, +1+1,
    -2+3+cmd|) gets a leading single quote, so that a spreadsheet shows it as text. Only text: a number
    (-5) stays a number, and nested values (JSON) never start so."""
    value = _shown_cell(value)
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


class _Columns:
    """Flat output: the -e paths, or default columns chosen from the first item (capture columns when
    the items come from a capture, the file when several files are decoded)."""

    cell = staticmethod(_cell)  # how a value becomes a cell

    def __init__(self, stream, fields: list[Path], defaults: tuple[str, ...]):
        self.stream, self.fields, self.defaults = stream, fields or None, defaults

    def columns(self, record: dict) -> list[Path]:
        if self.fields is None:
            names = (("file",) if "file" in record else ()) + (CAPTURE_COLUMNS if "flow" in record else ())
            self.fields = [field_path(name) for name in names + self.defaults]
        return self.fields

    def rows(self, records: list[dict]) -> list[list]:
        return [[self.cell(path.pick(record)) for path in self.columns(record)] for record in records]


class Csv(_Columns):
    cell = staticmethod(csv_cell)

    def __init__(self, stream, fields, defaults):
        super().__init__(stream, fields, defaults)
        self.csv = csv.writer(stream, lineterminator="\n")
        self.header = False

    def write(self, records: list[dict]) -> None:
        rows = self.rows(records)
        if rows and not self.header:
            self.csv.writerow([path.text for path in self.fields])
            self.header = True
        self.csv.writerows(rows)
        if rows:
            self.stream.flush()

    def close(self) -> None:
        if not self.header and self.fields:
            self.csv.writerow([path.text for path in self.fields])


class Table(_Columns):
    cell = staticmethod(_shown_cell)

    def __init__(self, stream, fields, defaults):
        super().__init__(stream, fields, defaults)
        self.pending: list[list] = []
        self.printed = False

    def write(self, records: list[dict]) -> None:
        self.pending += self.rows(records)
        if len(self.pending) >= TABLE_ROWS:
            self._print()

    def close(self) -> None:
        if self.pending or not self.printed:
            self._print()

    def _print(self) -> None:
        """Cells go in as rich Text, never as markup: a value holding [link=...] or [bold] is shown as it is.
        A column of numbers only is right-aligned."""
        from rich.table import Table as RichTable
        from rich.text import Text

        table = RichTable()
        for index, path in enumerate(self.fields or [field_path(name) for name in self.defaults]):
            values = [row[index] for row in self.pending if index < len(row) and row[index] is not None]
            numbers = bool(values) and all(isinstance(value, (int, float)) for value in values)
            table.add_column(Text(path.text), justify="right" if numbers else "left")
        for row in self.pending:
            table.add_row(*(Text("" if cell is None else str(cell)) for cell in row))
        console().print(table)
        self.pending, self.printed = [], True


class Parquet(_Columns):
    """Row groups of PARQUET_ROWS; the column types are those of the first row group (nested values are
    JSON text), and a later value that does not fit its column's type is an error, not a silent cast."""

    def __init__(self, stream, fields, defaults):
        super().__init__(stream, fields, defaults)
        self.pending: list[list] = []
        self.writer = None
        self.schema = None

    def write(self, records: list[dict]) -> None:
        self.pending += self.rows(records)
        if len(self.pending) >= PARQUET_ROWS:
            self._flush()

    def close(self) -> None:
        if self.pending or self.writer is None:
            self._flush()
        self.writer.close()
        self.stream.flush()

    def _flush(self) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        names = [path.text for path in self.fields or [field_path(name) for name in self.defaults]]
        columns = list(zip(*self.pending)) if self.pending else [() for _ in names]
        if self.schema is None:
            fields = []
            for name, values in zip(names, columns):
                kind = pa.array(values).type
                fields.append(pa.field(name, pa.string() if pa.types.is_null(kind) else kind))
            self.schema = pa.schema(fields)
            self.writer = pq.ParquetWriter(self.stream.buffer if hasattr(self.stream, "buffer") else self.stream,
                                           self.schema)
        arrays = []
        for field, values in zip(self.schema, columns):
            try:
                arrays.append(pa.array(values, type=field.type))
            except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
                found = sorted({type(v).__name__ for v in values if v is not None})
                raise QueryError(f"-T parquet: column {field.name!r} started as {field.type} and now holds "
                                 f"{', '.join(found)}: pick fields of one type with -e, or use -T jsonl") from None
        self.writer.write_table(pa.Table.from_arrays(arrays, schema=self.schema))
        self.pending = []
