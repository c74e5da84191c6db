"""`inlong-proto audit` (where was data lost: every message on the wire with its outcome, per group, stream and
window) and `inlong-proto replay` (re-send captured messages: DataProxy, TubeMQ, EventMesh TCP and HTTP). Issue 28;
docs/how-to/audit.md."""
from __future__ import annotations

import asyncio
import sys
from contextlib import closing

import click

from inlong_proto.cli.commands import MAX_FRAME_SIZE, PROTOCOL
from inlong_proto.core.protocols import REPLAYERS

_FORMATS = ["table", "csv", "json", "jsonl", "parquet"]
_BY = {"group": "group", "topic": "group", "stream": "stream"}


def _window(ctx, param, value):
    from inlong_proto.audit import parse_window

    try:
        return parse_window(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def _by(ctx, param, value: str):
    names = [name.strip().lower() for name in value.split(",") if name.strip()]
    unknown = [name for name in names if name not in _BY]
    if unknown:
        raise click.BadParameter(f"{', '.join(unknown)}: choose from group, stream, topic (= group)")
    return tuple(dict.fromkeys(_BY[name] for name in names))


def _positive(ctx, param, value):
    if value is not None and not value > 0:
        raise click.BadParameter("must be positive")
    return value


MESSAGE_COLUMNS = ("path", "system", "group", "stream", "time", "kind", "outcome", "error", "records", "bytes",
                   "latency_ms", "duplicate", "flow", "client", "message_id")


def _message_row(path: str, item) -> dict:
    """One audited item as a --messages row."""
    from inlong_proto.audit import Delivered
    from inlong_proto.capture.container import ns_datetime

    when = None if item.time_ns is None else ns_datetime(item.time_ns).isoformat().replace("+00:00", "Z")
    if isinstance(item, Delivered):
        return dict(zip(MESSAGE_COLUMNS, (path, item.system, item.group, item.stream, when, "delivered", None, None,
                                          item.records, item.size, None, False, None, None, None)))
    latency = None if item.latency_s is None else round(item.latency_s * 1000, 3)
    return dict(zip(MESSAGE_COLUMNS, (path, item.system, item.group, item.stream, when, "sent", item.outcome,
                                      item.error, item.records, item.size, latency, item.duplicate, item.flow,
                                      item.client, item.message_id)))


def _table(path: str, *, protocol: str, window: float, by: tuple, timeout: float | None, max_frame_size,
           each=None):
    """The audit table of one capture or raw dump, its auditor and how many of its messages have an unknown
    outcome; each(item), if given, sees every audited item as it comes."""
    from inlong_proto.audit import AuditTable, Auditor, audit_chunks, audit_dump
    from inlong_proto.capture import CaptureDecoder, is_capture
    from inlong_proto.cli.commands import chunks, with_file
    from inlong_proto.cli.failure import Failure
    from inlong_proto.cli.progress import with_progress
    from inlong_proto.core.detect import HEAD_SIZE, settle
    from inlong_proto.core.errors import InlongProtoError

    table = AuditTable(window, by)
    with closing(with_progress(chunks(path), path)) as stream:
        head = next(stream, b"")
        if not head:
            raise Failure(f"{path}: empty: expected a capture (pcap / pcapng) or a raw dump")

        def again():
            yield head
            yield from (chunk for chunk in stream if chunk)

        if is_capture(head):
            auditor = Auditor(timeout=timeout)
            items = audit_chunks(again(), auditor=auditor, max_frame_size=max_frame_size,
                                 decoder=CaptureDecoder(protocol, "PERMISSIVE", max_frame_size=max_frame_size))
        else:
            named = protocol if protocol != "auto" else settle(head[:HEAD_SIZE])[0]
            if named is None:
                raise Failure(f"{path}: neither a capture (pcap / pcapng) nor a raw dump that a known protocol "
                              f"reads; name the dump's protocol with -p")
            auditor = Auditor(may_lack_answers=True)
            items = audit_dump(again(), named, auditor=auditor, max_frame_size=max_frame_size, name=path)
        unknown = 0
        try:
            for item in items:
                table.add(item)
                unknown += getattr(item, "outcome", None) == "unknown"
                if each is not None:
                    each(item)
        except InlongProtoError as exc:
            raise with_file(exc, path) from None
    return table, auditor, unknown


@click.command()
@click.option("--format", "-T", "output_format", type=click.Choice(_FORMATS), default="table", show_default=True)
@click.option("--window", "-w", default="1m", show_default=True, callback=_window,
              help="The time bucket of a row: 30s, 1m (InLong Audit's minute), 5m, 1h.")
@click.option("--by", default="group,stream", show_default=True, callback=_by,
              help="The key of a row beside the system and window: group,stream; group (or topic); stream; "
                   "those left out show * and are summed.")
@click.option("--timeout", type=float, default=None, callback=_positive, metavar="SECONDS",
              help="An answer later than this (capture time) counts the request unanswered.")
@click.option("--diff", "diff_mode", is_flag=True,
              help="Two captures A B (two points of one pipeline): each count that differs per key and window.")
@click.option("--messages", "-m", "lost", flag_value="all", default=None,
              help="One row per message instead of the table (path, system, group, stream, time, kind, outcome, "
                   "error, records, bytes, latency_ms, duplicate, flow, client, message_id), as they are found.")
@click.option("--lost", "lost", flag_value="lost",
              help="As --messages, only those not acknowledged OK (failed, unanswered, not asked to ack).")
@PROTOCOL
@MAX_FRAME_SIZE
@click.argument("captures", nargs=-1, required=True)
def audit(output_format, window, by, timeout, diff_mode, lost, protocol, max_frame_size, captures):
    """Where was data lost? Every message sent in CAPTURES (pcap / pcapng, or raw dumps; DataProxy data
    requests, TubeMQ sendMessageP2B, EventMesh TCP and HTTP sends, gRPC publish calls) paired with its answer
    on its connection, counted per system, group (or topic), stream and window: messages, records, bytes,
    acked OK, failed (and the top error), unanswered (the connection closed, the capture ended or --timeout
    passed first), not asked to ack (isAck=false), unknown (a raw dump of the requests only: no answer to
    tell), duplicates (re-sends of a message already seen from that client), delivered (TubeMQ pulls,
    EventMesh pushes) and the ack latency (p50 / p95 / max ms). A raw dump is one connection without times
    (window_start empty); -p names its protocol (auto: by its first frames). Several files are audited apart
    and counted in one table. With --diff, two files A B: per key and window, each count that differs."""
    from inlong_proto.audit import COLUMNS, DIFF_COLUMNS, diff
    from inlong_proto.cli.failure import Failure
    from inlong_proto.cli.output import writer
    from inlong_proto.cli.progress import current_stdout
    from inlong_proto.cli.query import field_path

    if diff_mode and len(captures) != 2:
        raise click.UsageError("--diff compares two captures: audit --diff A B")
    if diff_mode and lost:
        raise click.UsageError("--diff compares tables: --messages and --lost list messages")
    output, each = None, None
    if lost:
        # current_stdout: rows written while a progress bar runs go above it
        output = writer(output_format, current_stdout, [field_path(name) for name in MESSAGE_COLUMNS], False)

        def each(item):
            if lost == "lost" and getattr(item, "outcome", "ok") == "ok":  # (deliveries have no outcome)
                return
            output.write([_message_row(current[0], item)])
    current = [None]
    tables = []
    for path in captures:
        current[0] = path
        table, auditor, unknown = _table(path, protocol=protocol, window=window, by=by, timeout=timeout,
                                         max_frame_size=max_frame_size, each=each)
        if unknown:
            click.echo(f"note: {path}: a dump without answers (one direction only): {unknown} message(s) of "
                       f"unknown outcome (column unknown), not counted as unanswered", err=True)
        if auditor.stats["unmatched_answers"]:
            click.echo(f"note: {path}: {auditor.stats['unmatched_answers']} answer(s) matched no request seen "
                       f"(sent before the capture started, or after --timeout gave the request up)", err=True)
        tables.append(table)
    if output is not None:
        output.close()
        return
    if diff_mode:
        rows, columns = diff(tables[0].rows(), tables[1].rows()), DIFF_COLUMNS
    else:
        merged = tables[0]
        for other in tables[1:]:
            merged.merge(other)
        rows, columns = merged.rows(), COLUMNS
        if not rows:
            raise Failure(f"{', '.join(captures)}: no message found: expected a capture or dump of DataProxy, "
                          f"TubeMQ or EventMesh (TCP, HTTP, gRPC) traffic")
    output = writer(output_format, sys.stdout, [field_path(name) for name in columns], False)
    output.write(rows)
    output.close()


def _replay_protocol(data: bytes, source: str, protocol: str, only_unacked: bool, timeout: float, max_frame_size,
                     expression: str | None = None):
    """The protocol to replay (-p, or auto: a dump's by its first frames, a capture's only sending one) and
    its items, those whose request the --filter expression keeps."""
    from inlong_proto.audit.replay import PROTOCOLS, replay_items
    from inlong_proto.capture import is_capture
    from inlong_proto.cli.commands import Selection
    from inlong_proto.cli.failure import Failure
    from inlong_proto.core.detect import HEAD_SIZE, settle

    if not data:
        raise Failure(f"{source}: empty: expected a capture, or a raw dump of {', '.join(PROTOCOLS)}")
    capture = is_capture(data)
    if protocol == "auto" and not capture:
        protocol = settle(data[:HEAD_SIZE])[0]
        if protocol not in PROTOCOLS:
            raise Failure(f"{source}: not a capture, nor a raw dump of {', '.join(PROTOCOLS)}; name it with -p")
    # decode -Y's filter, its paths checked against the protocol's before anything is read
    selection = Selection(protocol, (), expression, as_records=False, with_payload=False) if expression else None
    items = replay_items(data, None if protocol == "auto" else protocol, only_unacked=only_unacked,
                         timeout=timeout if only_unacked and capture else None, max_frame_size=max_frame_size)
    if not items and not only_unacked:  # (--only-unacked finds none where every request was answered OK)
        raise Failure(f"{source}: no request to replay: expected a capture, or a raw dump, of "
                      f"{protocol if protocol != 'auto' else ', '.join(PROTOCOLS)} requests")
    if selection is not None:
        items = [item for item in items if selection.records([item.request], "PERMISSIVE", None)]
    found = sorted({item.request.protocol for item in items})
    if protocol == "auto" and len(found) > 1:
        raise Failure(f"{source}: requests of {', '.join(found)}: name the one to replay with -p")
    return (found[0] if protocol == "auto" and found else protocol), items


@click.command()
@click.option("--to", "target", required=True, metavar="HOST:PORT",
              help="The server to send to (for TubeMQ, the broker).")
@click.option("--protocol", "-p", type=click.Choice(["auto", *REPLAYERS]),
              default="auto", show_default=True,
              help="What to replay; auto: a dump's protocol, or the one protocol a capture has messages of.")
@click.option("--rate", type=float, default=None, callback=_positive, metavar="N",
              help="At most N requests a second (default: as fast as the answers come).")
@click.option("--only-unacked", is_flag=True,
              help="Only what the source shows not acknowledged OK (failed, unanswered, not asked to ack, "
                   "unknown), leaving out any whose re-send was.")
@click.option("--filter", "-Y", "expression", metavar="EXPR",
              help="Only the requests this filter keeps, in decode -Y's language over each request as decode shows "
                   "it (payload.* included): -Y 'payload.stream_id == \"s1\"'.")
@click.option("--dry-run", is_flag=True, help="Say what would be sent, send nothing.")
@click.option("--timeout", type=float, default=10.0, show_default=True, callback=_positive, metavar="SECONDS",
              help="How long to wait for each answer; also the audit's timeout for --only-unacked.")
@MAX_FRAME_SIZE
@click.argument("source")
def replay(target, protocol, rate, only_unacked, expression, dry_run, timeout, max_frame_size, source):
    """Re-send the messages of SOURCE (a capture, or a raw dump) to HOST:PORT, one at a time, waiting for each
    answer, and report what was accepted (exit status 1 unless all were): DataProxy data requests, TubeMQ
    sendMessageP2B (to a broker), EventMesh TCP sends (after a HELLO as a publisher) and EventMesh HTTP sends.
    A request left unanswered stops the replay: the rest count as unanswered. What clients match answers on
    is made fresh (DataProxy UniqueId / messageId, TubeMQ serial, EventMesh TCP seq), and DataProxy's
    isAck=false is dropped so that each is answered; the messages themselves are sent as captured."""
    from inlong_proto.cli.failure import Failure
    from inlong_proto.cli.output import terminal_json
    from inlong_proto.endpoints.common import host_port

    host, port = host_port(target) if not isinstance(target, tuple) else target
    try:
        with open(source, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise Failure(f"{source}: {exc.strerror or exc}") from None
    protocol, items = _replay_protocol(data, source, protocol, only_unacked, timeout, max_frame_size, expression)
    if only_unacked and any(item.outcome == "unknown" for item in items):
        click.echo(f"note: {source}: a dump without answers: nothing is known to be acknowledged, so every "
                   f"message is replayed", err=True)
    if dry_run:
        outcomes: dict = {}
        for item in items:
            outcomes[item.outcome] = outcomes.get(item.outcome, 0) + 1
        click.echo(terminal_json({"protocol": protocol, "would_send": len(items),
                                  "records": sum(i.records for i in items), "captured_outcomes": outcomes,
                                  "to": f"{host}:{port}"}))
        return
    if not items:
        click.echo(terminal_json({"sent": 0, "note": "nothing to replay"}))
        return
    from inlong_proto.endpoints.replayer import replay as run

    try:
        report = asyncio.run(run(host, port, items, rate=rate, timeout=timeout))
    except OSError as exc:  # (ConnectionError: an EventMesh HELLO refused)
        raise Failure(f"{host}:{port}: {exc.strerror or exc}") from None
    click.echo(terminal_json(report.to_dict()))
    if not report.ok:
        sys.exit(1)
