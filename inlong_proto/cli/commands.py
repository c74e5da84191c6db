"""`inlong-proto` command line: decode, encode, inspect, and the per-protocol endpoints."""
from __future__ import annotations

import json
import os
import stat
import sys
import time
from contextlib import closing, contextmanager
from typing import Iterator

import click

from inlong_proto.core import frames, protocols
from inlong_proto.core.errors import InlongProtoError
from inlong_proto.cli.failure import Failure, Usage, missing_extra, require
from inlong_proto.cli.options import frame_size_option
from inlong_proto.cli.output import FORMATS, console
from inlong_proto.cli.progress import current_stdout, with_progress
from inlong_proto.cli.query import QueryError
from inlong_proto.core.plain import printable

FOLLOW_POLL = 0.2  # seconds between looks at a followed file that has not grown
FOLLOW_CHECK = 4096  # bytes at the start and before the read position of a followed file, compared at each look

def _protocol_name(ctx, param, value: str | None) -> str | None:
    """-p as the project spells it (eventmesh_legacy is read as eventmesh-legacy); an unknown name is a usage
    error."""
    if value in (None, "auto"):
        return value
    try:
        return protocols.checked(value)
    except protocols.UnknownProtocolError as exc:
        raise click.BadParameter(str(exc), ctx, param) from None


def _encoder_protocol(ctx, param, value: str | None) -> str:
    """An encoder's -p: one protocol, named (bytes are written in one layout; auto reads, it cannot write)."""
    if value is None:
        raise Usage(f"{ctx.info_name} writes one protocol's bytes: name it with -p (see `inlong-proto protocols`)")
    if value == "auto":
        raise Usage(f"{ctx.info_name} writes one protocol's bytes: -p auto only reads; name the protocol "
                    "(see `inlong-proto protocols`)")
    try:
        return protocols.get(value).name
    except protocols.UnknownProtocolError as exc:
        raise Usage(f"{ctx.info_name}: {exc}") from None


PROTOCOL = click.option("--protocol", "-p", default="auto", show_default=True, callback=_protocol_name,
                        help="A protocol name (see `inlong-proto protocols`), or auto (a capture: per flow; a "
                             "raw dump: by its first frames).")
ENCODER_PROTOCOL = click.option("--protocol", "-p", default=None, callback=_encoder_protocol,
                                help="The protocol to write (see `inlong-proto protocols`); required.")
DIRECTION = click.option("--direction", "-d", type=click.Choice(protocols.DIRECTIONS), default=None,
                         help="Which side sent the bytes; default: whatever the frame says.")


MAX_FRAME_SIZE = frame_size_option(None, "The largest frame a framed protocol may have (256k, 4m; at most 64m); "
                                         "default: each protocol's spec limit (DataProxy 64k, as its server's).")


class _Cli(click.Group):
    """Every failure as one line on stderr (cli.failure), never a traceback: status 2 for the command line's
    fault (click's usage errors, a bad -e / -Y / -T), 1 for the data's (the library's errors, files)."""

    def make_context(self, info_name, args, parent=None, **extra):
        try:
            return super().make_context(info_name, args, parent, **extra)
        except click.UsageError as exc:
            raise _usage(exc) from None

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except (Usage, Failure):
            raise
        except click.UsageError as exc:
            raise _usage(exc) from None
        except click.ClickException as exc:
            failure = Failure(exc.format_message())
            failure.exit_code = exc.exit_code
            raise failure from None
        except InlongProtoError as exc:
            raise Failure(str(exc)) from None
        except QueryError as exc:  # a bad -e / -Y / -T: the command line's fault, as click's usage errors
            raise Usage(str(exc)) from None
        except BrokenPipeError:  # `inlong-proto decode ... | head` is normal use
            sys.stdout = open(os.devnull, "w")
            ctx.exit(0)
        except OSError as exc:
            raise Failure(f"{exc.filename or ''}: {exc.strerror or exc}" if exc.filename else str(exc)) from None
        except ImportError as exc:  # an optional dependency the command needs
            raise _missing(exc) from None
        except (click.exceptions.Exit, click.exceptions.Abort, KeyboardInterrupt):
            raise
        except Exception as exc:  # a bug: still one line (INLONG_PROTO_TRACEBACK=1 shows where)
            if os.environ.get("INLONG_PROTO_TRACEBACK"):
                raise
            raise Failure(f"internal error ({type(exc).__name__}): {exc}; please report it "
                          "(INLONG_PROTO_TRACEBACK=1 shows where)") from None


def _usage(exc: click.UsageError) -> Usage:
    """click's usage error as the one line, naming the command and where its help is."""
    ctx = exc.ctx
    command = " ".join(ctx.command_path.split()[1:]) if ctx is not None else ""
    where = f"{command}: " if command else ""
    hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
    return Usage(f"{where}{exc.format_message().rstrip('.')}{hint}")


def _missing(exc: ImportError) -> Failure:
    """The error for a module the command needs that is not installed: the extra that brings it."""
    from importlib.metadata import PackageNotFoundError, requires

    module = (exc.name or "").split(".")[0]
    try:
        wanted = requires("inlong-proto") or []
    except PackageNotFoundError:
        wanted = []
    for requirement in wanted:
        distribution, _, marker = requirement.partition(";")
        name = distribution.strip().split("[")[0]
        for cut in "=<>!~ ":
            name = name.split(cut)[0]
        if module and "extra ==" in marker and name.lower().replace("-", "_").startswith(module.lower()):
            extra = marker.split("extra ==")[1].strip().strip("'\"")
            return missing_extra(module, extra, "this command")
    return Failure(f"{module or exc} is not installed" + (f" ({exc})" if not module else ""))


@click.group(cls=_Cli, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="inlong-proto")
def main():
    """Decode, encode and inspect InLong / EventMesh wire traffic, from specs."""


@main.command("protocols")
def list_protocols():
    """List the protocols the specs define."""
    for name in sorted([*protocols.names(), *protocols.STREAM_PROTOCOLS]):
        click.echo(name)


def _read(path: str) -> bytes:
    if path == "-":
        return sys.stdin.buffer.read()
    with open(path, "rb") as handle:
        return handle.read()


def chunks(path: str, follow: bool = False, size: int = 1 << 16) -> Iterator[bytes | None]:
    """The bytes of path (- for stdin) as they arrive: a pipe's or socket's as soon as any are there (one
    os.read each, never to the end first). With follow, a file that grows is read on, as tail -F does:
    when it is found shorter than what was read, or with other bytes at its start or just before the read
    position (truncated and rewritten between two looks; looked for before every read), or once it has no
    more bytes its name names another file (rotated: the old one was read to its end), a notice goes to
    stderr and the file is read again from its start, and None is yielded first so that the caller starts
    a fresh decoder (offsets restart at 0)."""
    if path == "-":
        fd = sys.stdin.buffer.fileno()
        while chunk := os.read(fd, size):
            yield chunk
        return
    handle = open(path, "rb", buffering=0)
    try:
        read, inaccessible = _Read(), False
        while True:
            if follow and read.rewritten(handle.fileno()):
                handle.seek(0)
                read = _Read()
                _notice(path, "file truncated; reading it again from the start (offsets restart at 0)")
                yield None
            chunk = handle.read(size)
            if chunk:
                read.add(chunk)
                yield chunk
                continue
            if not follow:
                return
            time.sleep(FOLLOW_POLL)
            try:
                named = os.stat(path)
            except OSError as exc:  # removed (rotation under way): wait for the name to come back
                if not inaccessible:
                    _notice(path, f"has become inaccessible ({exc.strerror}); waiting for it to reappear")
                inaccessible = True
                continue
            inaccessible, held = False, os.fstat(handle.fileno())
            if (named.st_dev, named.st_ino) != (held.st_dev, held.st_ino):
                try:
                    replacement = open(path, "rb", buffering=0)
                except FileNotFoundError:
                    continue
                handle.close()
                handle, read = replacement, _Read()
                _notice(path, "has been replaced; following new file from its start (offsets restart at 0)")
                yield None
    finally:
        handle.close()


class _Read:
    """What was read of a followed file, enough to tell a file that grew from one truncated and rewritten
    while it was not looked at (its size alone cannot: the new content may already be longer): its first
    and its last FOLLOW_CHECK bytes. A rewrite that leaves both the same is not seen."""

    def __init__(self):
        self.position, self.head, self.tail = 0, b"", b""

    def add(self, chunk: bytes) -> None:
        self.position += len(chunk)
        if len(self.head) < FOLLOW_CHECK:
            self.head = (self.head + chunk)[:FOLLOW_CHECK]
        self.tail = (self.tail + chunk)[-FOLLOW_CHECK:]

    def rewritten(self, fd: int) -> bool:
        if not self.position:
            return False
        held = os.fstat(fd)
        if not stat.S_ISREG(held.st_mode):  # a FIFO or a device: nothing to compare
            return False
        return held.st_size < self.position or (
            os.pread(fd, len(self.head), 0) != self.head
            or os.pread(fd, len(self.tail), self.position - len(self.tail)) != self.tail)


def _notice(path: str, text: str) -> None:
    """One line on stderr about a followed file, as tail -F gives one."""
    click.echo(f"inlong-proto: {printable(path)}: {text}", err=True)


class _LiveDecoder:
    """decode's sans-IO core for one input: bytes in as they come, items out as soon as they are whole. The
    first bytes say what follows (a capture's magic; with -p auto, the protocol of a raw dump)."""

    def __init__(self, path: str, protocol: str, direction: str | None, mode: str,
                 max_frame_size: int | None = None):
        self.path, self.protocol, self.direction, self.mode = path, protocol, direction, mode
        self.max_frame_size = max_frame_size
        self.head = b""
        self.decoder = None
        self.capture = False

    def feed(self, chunk: bytes, final: bool = False) -> list:
        if self.decoder is None:
            self.head += chunk
            if not self._start(final):
                return []
            chunk, self.head = self.head, b""
        items = self.decoder.feed(chunk) if chunk else []
        if final:
            items += self.decoder.close()
        if self.capture and self.direction is not None:
            items = [item for item in items if item.direction == self.direction]
        return items

    def _start(self, final: bool) -> bool:
        """Choose the decoder once the head decides it; False: wait for more bytes."""
        from inlong_proto.capture import CaptureDecoder, is_capture

        head = self.head
        if len(head) < 4 and not final:
            return False
        if is_capture(head):
            self.capture, self.decoder = True, CaptureDecoder(self.protocol, self.mode, keep_flows=False,
                                                              max_frame_size=self.max_frame_size)
            return True
        protocol = self.protocol
        if protocol == "auto":
            from inlong_proto.core.detect import HEAD_SIZE, settle

            found, settled = settle(head[:HEAD_SIZE])
            if not (final or len(head) >= HEAD_SIZE or settled):
                return False
            if found is None:
                raise Failure(f"{self.path}: no known protocol reads its first frame (expected a capture, or a raw "
                              f"dump of {', '.join(protocols.every_name())}; name one with -p)")
            protocol = found
        self.decoder = frames.stream_decoder(protocol, self.direction, mode=self.mode,
                                             max_frame_size=self.max_frame_size)
        return True


@main.command()
@PROTOCOL
@DIRECTION
@click.option("--mode", type=click.Choice(frames.MODES, case_sensitive=False), default="FAILFAST",
              show_default=True, help="What to do with malformed bytes.")
@click.option("--payload", "with_payload", is_flag=True,
              help="Also decode what each frame carries (DataProxy: attributes and records).")
@click.option("--follow", "-f", is_flag=True,
              help="Keep reading each FILE as it grows (as tail -f does), until Ctrl-C.")
@click.option("--field", "-e", "fields", multiple=True, metavar="PATH",
              help="Print only this value, by its dotted path in the JSON (repeat: payload.group_id, flow.client).")
@click.option("--filter", "-Y", "expression", metavar="EXPR",
              help='Keep the items that match, e.g. \'message_type == "text_message" and payload.record_count > 3\' '
                   "(the language: `python -m pydoc inlong_proto.cli.query`, or docs/how-to/command-line.md).")
@click.option("--format", "-T", "output_format", type=click.Choice(FORMATS), default=None,
              help="table (default on a terminal: one line per item, No., time, ends, protocol, length, Info, "
                   "fitted to the width), jsonl (default elsewhere), one json array, csv, wide (every identifying "
                   "column), or parquet (to a file or pipe); csv, wide and parquet show the -e fields, or a few "
                   "identifying columns (so does table with -e or --records). On files, csv and parquet with no "
                   "-e/-Y/--records/--payload write every column of spark.read.format('inlong'), through the "
                   "compiled path.")
@click.option("--records", "as_records", is_flag=True,
              help="One item per DataProxy record (group, stream, time, attributes, data), as read_records "
                   "gives; other protocols' frames are left out.")
@MAX_FRAME_SIZE
@click.argument("files", nargs=-1, required=True)
def decode(protocol, direction, mode, with_payload, follow, fields, expression, output_format, as_records,
           max_frame_size, files):
    """Print every frame of each FILE (a raw stream dump, a .pcap / .pcapng capture, - for stdin) as one
    JSON object per line, each as soon as it is whole (a pipe is read as it comes: tcpdump -U -w - | ...),
    flushed. A capture (told by its magic) is reassembled per TCP flow; each frame also gets its flow,
    stream (request: client to server) and capture timestamp; -p auto classifies each flow (or, for a
    raw dump, the whole input: once four frames of one protocol are in, or 1 MiB, or the end) by content,
    then port. Memory is bounded whatever the input's length.

    -e, -Y and -T pick values, keep the matching items and choose the format, with tshark's letters. A
    malformed filter, an unknown field or a format that cannot hold the data: one error line, status 2.
    Input that holds no frame at all (empty, or no protocol reads it): one error line, status 1."""
    if output_format is None:  # tshark's habit: a summary line per item on a terminal, data elsewhere
        output_format = "table" if sys.stdout.isatty() else "jsonl"
    with _without(UNUSED_BY_DECODE):
        _decode(protocol, direction, mode, with_payload, follow, fields, expression, output_format, as_records,
                max_frame_size, files)


# What decode's own code never uses but a library would load: pyarrow imports pandas (0.3 s) at its first
# pa.array() only to ask whether the input is a pandas object, and has no switch to say there is none.
# (decode's whole-file reads go through spark.pieces, which imports no pyspark.)
UNUSED_BY_DECODE = ("pandas",)


@contextmanager
def _without(modules):
    """When this process is the command itself (the console script, python -m inlong_proto), the modules
    not loaded yet cannot be imported while the block runs (ImportError, which pyarrow and spark.source take
    as their absence); inside another program (a test's CliRunner, a notebook), which may use them later,
    nothing is hidden."""
    if getattr(sys.modules.get("__main__"), "main", None) is not main:
        yield
        return
    hidden = _Hidden({name for name in modules if name not in sys.modules})
    sys.meta_path.insert(0, hidden)
    try:
        yield
    finally:
        sys.meta_path.remove(hidden)


class _Hidden:
    """A finder, first on sys.meta_path, that refuses to import these top-level packages (and their
    modules)."""

    def __init__(self, names: set[str]):
        self.names = names

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in self.names:
            raise ModuleNotFoundError(f"decode does not use {name}", name=name)
        return None


def _decode(protocol, direction, mode, with_payload, follow, fields, expression, output_format, as_records,
            max_frame_size, files):
    from inlong_proto.cli import whole_files

    if whole_files.applies(files, output_format, follow, fields, expression, as_records, with_payload,
                           max_frame_size):  # the compiled batch path, as format("inlong") reads (its doc)
        if output_format == "parquet" and current_stdout.isatty():
            raise QueryError("parquet is binary: redirect the output to a file (> frames.parquet)")
        whole_files.write(files, protocol, direction, mode, output_format, current_stdout)
        return
    selection = Selection(protocol, fields, expression, as_records, with_payload,
                           summary=output_format == "table" and not fields and not as_records)
    output = _output_writer(output_format, selection, as_records, protocol)
    batched = whole_files.jsonl_applies(files, output_format, follow, fields, expression, as_records, with_payload,
                                        max_frame_size, protocol)
    tabled = whole_files.table_applies(files, output_format, follow, fields, expression, as_records, with_payload,
                                       max_frame_size, protocol)
    for path in files:
        named = path if len(files) > 1 else None
        if batched and whole_files.write_jsonl(path, protocol, direction, mode, current_stdout, named):
            continue  # a raw dump's JSON lines from the compiled batches (whole_files: JSON lines)
        if tabled and whole_files.write_table(path, protocol, direction, mode, output):
            continue  # the packet list from the compiled batches, a column at a time (packet_list.cells_of)
        live = _LiveDecoder(path, protocol, direction, mode, max_frame_size)
        read = 0
        try:
            with closing(with_progress(chunks(path, follow), path, follow)) as stream:
                for chunk in stream:
                    if chunk is None:  # a followed file truncated or replaced: what was held of it ends here
                        output.write(selection.records(live.feed(b"", final=True), mode, named))
                        live = _LiveDecoder(path, protocol, direction, mode, max_frame_size)
                        continue
                    read += len(chunk)
                    output.write(selection.records(live.feed(chunk), mode, named))
            if not read:
                raise Failure(f"{path}: empty: expected a raw dump or a .pcap / .pcapng capture")
            output.write(selection.records(live.feed(b"", final=True), mode, named))
        except InlongProtoError as exc:
            raise with_file(exc, path) from None
    output.close()


def _output_writer(name: str, selection: "Selection", as_records: bool, protocol: str):
    """-T's writer; table without -e or --records is the packet list (cli.packet_list), otherwise the columns."""
    from inlong_proto.cli.output import writer

    if name == "table" and not selection.fields and not as_records:
        from inlong_proto.cli.packet_list import PacketList

        return PacketList(current_stdout, protocols.every_name() if protocol == "auto" else [protocol])
    return writer(name, current_stdout, selection.fields, as_records)


class Selection:
    """What decode prints of each item: its JSON (with the payload when asked for, or when a path needs
    it), or its DataProxy records, kept by the -Y filter. Paths are checked against the protocol's specs
    up front, so that a misspelt field is an error rather than an empty column."""

    def __init__(self, protocol: str, fields, expression: str | None, as_records: bool, with_payload: bool,
                 summary: bool = False):
        from inlong_proto.cli.packet_list import summary_needs_payload
        from inlong_proto.cli.query import Filter, check_known, field_path, known_tree

        if as_records and protocol not in ("dataproxy", "auto"):
            raise QueryError(f"--records reads DataProxy records; -p {protocol} has none")
        self.fields = [field_path(text) for text in fields]
        self.filter = Filter(expression) if expression else None
        tree = known_tree(protocol, records=as_records)
        paths = self.fields + (self.filter.paths if self.filter else [])
        for path in paths:
            check_known(path, tree, protocol)
        wants_payload = any(path.parts[0] == "payload" for path in paths)
        self.as_records = as_records
        self.reader = _payload_reader(protocol) if (with_payload or wants_payload) and not as_records else None
        # the table's Info may name what a payload reader gives: read for it, a bad payload shown, not fatal
        self.for_summary = self.reader is None and summary and summary_needs_payload(protocol)
        if self.for_summary:
            self.reader = _payload_reader(protocol)
        self.count = 0  # items decoded, kept or not (none at all: the input held no frame)

    def records(self, items: list, mode: str, path: str | None) -> list[dict]:
        out = []
        self.count += len(items)
        for item in items:
            for record in (self._record_dicts(item, mode) if self.as_records else [self._frame_dict(item, mode)]):
                if path is not None:
                    record = {"file": path, **record}
                if self.filter is None or self.filter(record):
                    out.append(record)
        return out

    def _frame_dict(self, item, mode: str) -> dict:
        record = item.to_dict()
        frame = getattr(item, "frame", item)  # a CaptureFrame's protocol frame
        if (self.reader is not None and getattr(frame, "error", None) is None
                and frame.protocol in protocols.PAYLOAD_READERS):
            record["payload"] = _read_payload(self.reader, frame, "PERMISSIVE" if self.for_summary else mode)
        return record

    @staticmethod
    def _record_dicts(item, mode: str) -> list[dict]:
        from inlong_proto.dataproxy.records import record_rows

        frame = getattr(item, "frame", item)
        rows = [row.to_dict() for row in record_rows([frame], mode)]
        if frame is not item:  # a capture's frame: where the records came from
            where = {key: value for key, value in item.to_dict().items() if key in (
                "flow", "stream", "timestamp", "timestamp_ns", "file_offset")}
            rows = [{**row, **where} for row in rows]
        return rows


def _payload_reader(protocol: str):
    import importlib

    name = protocols.PAYLOAD_READERS.get(protocol)
    if name is None and protocol == "auto":  # every flow's own, chosen per frame
        return _AutoPayload()
    return importlib.import_module(name).payload if name else None


class _AutoPayload:
    """The payload reader of each frame's protocol, for -p auto."""

    def __call__(self, frame):
        return _payload_reader(frame.protocol)(frame)


def _read_payload(reader, frame, mode: str):
    """A frame's payload as JSON; in FAILFAST a bad one stops the run, otherwise it is reported in place
    (a payload that reads but flags its own error, e.g. a DataProxy body the server drops, keeps it in its
    "error" field)."""
    try:
        read = reader(frame)
        if mode.upper() == "FAILFAST" and isinstance(getattr(read, "error", None), InlongProtoError):
            raise read.error
        return read.to_dict()
    except InlongProtoError as exc:
        if mode.upper() == "FAILFAST":
            raise
        return {"error": str(exc)}


def with_file(exc: InlongProtoError, path: str) -> InlongProtoError:
    """exc with its message prefixed by the file it is about (for the commands reading several files)."""
    exc.args = (f"{path}: {exc}",)
    return exc


@main.command()
@click.option("--protocol", "-p", default="auto", show_default=True, callback=_protocol_name,
              help="A protocol name, or auto (per flow).")
@click.option("--mode", type=click.Choice(frames.MODES, case_sensitive=False), default="PERMISSIVE",
              show_default=True)
@MAX_FRAME_SIZE
@click.argument("file")
def capture(protocol, mode, max_frame_size, file):
    """Summarise the TCP flows of a .pcap / .pcapng FILE: ends, protocol, bytes, frames, errors, gaps.
    A file that is not a capture, or whose container breaks, ends with that error and exit status 1
    (in PERMISSIVE and DROPMALFORMED after the table of what was read before the break)."""
    from rich.table import Table

    from inlong_proto.capture import CaptureDecoder, is_capture

    decoder = CaptureDecoder(protocol, mode, max_frame_size=max_frame_size)
    read = 0
    try:
        with closing(with_progress(chunks(file, size=1 << 20), file)) as stream:
            for chunk in stream:
                if not read and not is_capture(chunk[:4]):
                    raise Failure(f"{file}: offset 0 in magic: not a capture: expected a .pcap or .pcapng file "
                                  "(a raw dump: use decode or inspect)")
                read += len(chunk)
                decoder.feed(chunk)
        if not read:
            raise Failure(f"{file}: empty: expected a .pcap or .pcapng file")
        decoder.close()
    except InlongProtoError as exc:
        raise with_file(exc, file) from None
    table = Table(title=f"{file}: " + ", ".join(f"{v} {k}" for k, v in decoder.stats.items()) + " packets")
    for column in ("flow", "client", "server", "protocol", "bytes c>s", "bytes s>c", "frames", "errors", "gaps"):
        table.add_column(column, justify="right" if column not in ("client", "server", "protocol") else "left")
    for number, row in decoder.flows.items():
        flow = row["flow"]
        table.add_row(str(number), f"{flow.client}:{flow.client_port}", f"{flow.server}:{flow.server_port}",
                      str(row["protocol"]), str(row["bytes"]["request"]), str(row["bytes"]["response"]),
                      str(sum(row["frames"].values())), str(sum(row["errors"].values())), str(row["gaps"]))
    if decoder.stats["packets"] or decoder.reader.broken is None:
        console().print(table)
    if decoder.reader.broken is not None:  # every mode: a broken container is never a silent "0 packets"
        raise with_file(decoder.reader.broken, file)


@main.command("write-pcap")
@ENCODER_PROTOCOL
@click.option("--client", default="10.0.0.1:40000", show_default=True, help="The client end, HOST:PORT.")
@click.option("--server", default=None, help="The server end, HOST:PORT (default 10.0.0.2 on the protocol's port).")
@click.argument("dump")
@click.argument("output")
def write_pcap(protocol, client, server, dump, output):
    """Write a raw DUMP as one TCP conversation in a pcap OUTPUT (requests from the client, responses
    from the server, 1 ms apart), to open dumps with packet tools or read them as captures."""
    from inlong_proto.capture import SERVER_PORTS
    from inlong_proto.capture.writer import dump_to_pcap
    from inlong_proto.endpoints.common import host_port

    protocols.get(protocol)
    port = next((p for p, name in sorted(SERVER_PORTS.items()) if name == protocol), 9000)
    ends = {"client": host_port(client), "server": host_port(server) if server else ("10.0.0.2", port)}
    data = _read(dump)
    if not data:
        raise Failure(f"{dump}: empty: expected a raw dump of {protocol} frames")
    if all(frame.error is not None for frame in frames.iter_frames(data, protocol, mode="PERMISSIVE")):
        raise Failure(f"{dump}: no {protocol} frame found: expected a raw dump of {protocol} frames (see -p)")
    with open(output, "wb") as handle:
        handle.write(dump_to_pcap(data, protocol, **ends))


@main.command()
@ENCODER_PROTOCOL
@DIRECTION
@click.argument("input", default="-")
@click.option("--output", "-o", default="-", help="Where the bytes go (default: stdout).")
def encode(protocol, direction, input, output):
    """Read JSON lines (the shape `decode` prints) and write the frames' bytes.

    The layout is the one --direction names, else each record's own "direction" key."""
    from inlong_proto.core.plain import from_plain

    proto = protocols.get(protocol)
    try:
        text = sys.stdin.buffer.read() if input == "-" else _read(input)
        text = text.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Failure(f"{input}: not JSON lines (byte {exc.start} is not UTF-8): expected the JSON objects "
                      "`decode` prints, one a line") from None
    encoded = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise Failure(f"{input}: line {number}: not JSON ({exc}): expected the JSON objects `decode` prints, "
                          "one a line") from None
        if not isinstance(record, dict):
            raise Failure(f"{input}: line {number}: expected a JSON object (as `decode` prints), got "
                          f"{type(record).__name__}")
        said = direction or record.get("direction")
        if said not in (None, *protocols.DIRECTIONS):
            raise Failure(f"{input}: line {number}: direction {said!r} is not one of {', '.join(protocols.DIRECTIONS)}")
        frame_type = proto.frame_type_for(said)
        fields = {k: v for k, v in record.items() if k in {f.name for f in frame_type.FIELDS}}
        try:
            encoded.append(frames.encode(from_plain(frame_type, fields)))
        except InlongProtoError as exc:
            raise Failure(f"{input}: line {number}: {exc}") from None
    if not encoded:
        raise Failure(f"{input}: empty: expected the JSON objects `decode` prints, one a line")
    data = b"".join(encoded)
    if output == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    else:
        with open(output, "wb") as handle:
            handle.write(data)


@main.command()
@click.option("--protocol", "-p", default="auto", show_default=True, callback=_protocol_name,
              help="A protocol name, or auto (a capture: per flow; a dump: by its first frames).")
@DIRECTION
@click.option("--mode", type=click.Choice(frames.MODES, case_sensitive=False), default="PERMISSIVE",
              show_default=True)
@MAX_FRAME_SIZE
@click.argument("file")
def inspect(protocol, direction, mode, max_frame_size, file):
    """Annotated hex dump of FILE (a raw dump, a .pcap / .pcapng capture, - for stdin): every field's
    offset (decimal, as in errors), bytes and decoded value; a capture's frames under their flow, stream
    (-d keeps one) and time."""
    from inlong_proto.cli.hexview import inspect_file

    try:
        with closing(with_progress(chunks(file), file)) as stream:
            inspect_file(stream, protocol, mode, direction, max_frame_size=max_frame_size)
    except InlongProtoError as exc:
        raise with_file(exc, file) from None
    except click.ClickException as exc:  # the view's own: about this file
        raise Failure(f"{file}: {exc.format_message()}") from None


@main.command()
@click.option("--out", "out", default="out/demo", show_default=True, help="Folder for the capture (demo.pcap).")
@click.option("--capture", "capture_with", type=click.Choice(["auto", "tcpdump", "relay"]), default="auto",
              show_default=True, help="How to capture: tcpdump on loopback, the project's recording relay, or "
                                      "auto (tcpdump when it can capture here).")
def demo(out, capture_with):
    """Every reference endpoint pair on loopback, captured as a pcap (tcpdump, or the project's relay and
    pcap writer), then read by the embedded local Spark with protocol=auto: a summary table per protocol."""
    from pathlib import Path

    require("pyspark", "spark", "demo (its second half reads the capture with Spark)")
    from inlong_proto.endpoints.demo import run

    run(Path(out), capture_with)


@main.group("spark")
def spark_group():
    """Batch jobs on an embedded local Spark."""


@spark_group.command("parse")
@click.argument("source")
@click.argument("output")
@click.option("--protocol", "-p", default="auto", show_default=True, callback=_protocol_name,
              help="A protocol name, or auto (per file).")
@DIRECTION
@click.option("--mode", type=click.Choice(frames.MODES, case_sensitive=False), default="PERMISSIVE",
              show_default=True)
@click.option("--format", "output_format", type=click.Choice(["parquet", "json", "delta"]), default="parquet",
              show_default=True)
@click.option("--split-size", default="128m", show_default=True, help="Bytes per split (k/m/g suffixes).")
@MAX_FRAME_SIZE
@click.option("--cores", type=int, default=None, help="Local cores (default: all).")
def spark_parse(source, output, protocol, direction, mode, output_format, split_size, max_frame_size, cores):
    """Parse every dump under SOURCE into OUTPUT, partitioned by protocol and capture date."""
    require("pyspark", "spark", "spark parse")
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from inlong_proto.spark.job import run

    try:
        summary = run(source, output, cores=cores, console=Console(stderr=True), protocol=protocol,
                      direction=direction, mode=mode, output_format=output_format, split_size=split_size,
                      max_frame_size=max_frame_size)
    except (ValueError, FileNotFoundError) as exc:
        raise click.ClickException(str(exc)) from None
    table = Table(title=f"{output} ({output_format}, partitioned by protocol and date)")
    for column in ("protocol", "message type", "frames", "error spans", "bytes"):
        table.add_column(column, justify="left" if column in ("protocol", "message type") else "right")
    for row in summary:  # message types come from the data (an HTTP route, a gRPC path): escaped, not markup
        table.add_row(*[Text(printable(str(value))) for value in row])
    console().print(table)


@spark_group.command("ingest")
@click.argument("source")
@click.option("--to", "table", required=True, help="The table's folder (Parquet, partitioned by protocol and date).")
@click.option("--checkpoint", required=True, help="The query's checkpoint folder (what was read and committed).")
@click.option("--once", is_flag=True, help="Read every complete file not read yet, then stop (Trigger.AvailableNow).")
@click.option("--every", default=None, help="A micro-batch every this long (60s, 5m), until Ctrl-C or SIGTERM.")
@click.option("--protocol", "-p", default="auto", show_default=True, callback=_protocol_name,
              help="A protocol name, or auto (per file; a capture: per flow).")
@DIRECTION
@click.option("--mode", type=click.Choice(frames.MODES, case_sensitive=False), default="PERMISSIVE",
              show_default=True)
@click.option("--split-size", default="128m", show_default=True, help="Bytes per split (k/m/g suffixes).")
@click.option("--max-files-per-trigger", type=click.IntRange(min=1), default=None,
              help="At most this many new files per micro-batch (default: all).")
@click.option("--complete-after", default="60s", show_default=True,
              help="A file unchanged this long is complete (a newer file of its rotation completes it at once).")
@click.option("--max-file-age", default="7d", show_default=True, help="How long a file read is remembered.")
@MAX_FRAME_SIZE
@click.option("--cores", type=int, default=None, help="Local cores (default: all).")
def spark_ingest(source, table, checkpoint, once, every, protocol, direction, mode, split_size, max_files_per_trigger,
                 complete_after, max_file_age, max_frame_size, cores):
    """Ingest the files that appear under SOURCE (a folder, glob or bucket path) into a table, each once,
    exactly once across restarts (spark.stream)."""
    require("pyspark", "spark", "spark ingest")
    from inlong_proto.spark.ingestion import run

    if once == (every is not None):
        raise click.UsageError("give one of --once or --every")

    def report(progress):
        click.echo(f"batch {progress['batchId']}: {progress['numInputRows']} rows", err=True)

    try:
        totals = run(source, table, checkpoint, once=once, every=every or "60s", cores=cores, report=report,
                     protocol=protocol, direction=direction, mode=mode, split_size=split_size,
                     max_files=max_files_per_trigger, complete_after=complete_after, max_file_age=max_file_age,
                     max_frame_size=max_frame_size)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(json.dumps({"table": table, **totals}))
