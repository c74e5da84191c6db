"""`inlong-proto tubemq ...` commands: thin wrappers that run the asyncio TubeMQ endpoints.

Logs go to stderr. `master` and `broker` run until Ctrl-C, then print one JSON line of counters.
`produce` prints one JSON report line and exits 1 when a message failed or was lost, or the master or
broker could not be used (a standby master included). `consume` prints each message as one JSON line,
then a JSON summary last, and exits 1 on an error or when fewer than --count messages came in time.
"""
from __future__ import annotations

import asyncio
import logging
import sys

import click

from inlong_proto.endpoints.common import (HOST, LOG_LEVEL, LOG_RATE, StdinLines, host_port, idle_timeout_option,
                                           run_until_stopped, setup_logging, strict_option, strict_report)
from inlong_proto.cli.options import frame_size_option
from inlong_proto.cli.output import terminal_json
from inlong_proto.endpoints.faults import faults_option
from inlong_proto.tubemq import strings

log = logging.getLogger(__name__)

RECORD = click.option("--record", type=click.Path(dir_okay=False), default=None,
                      help="Append the raw bytes of every well-formed frame received to this file (a dump).")
RECORD_SENT = click.option("--record-sent", type=click.Path(dir_okay=False), default=None,
                           help="Append the raw bytes of every frame sent to this file (a dump).")
TOPICS = click.option("--topic", "topics", multiple=True, default=("demo",), show_default=True,
                      help="A deployed topic (repeat for more). Master and broker must agree.")
PARTITIONS = click.option("--partitions", type=click.IntRange(min=1), default=3, show_default=True,
                          help="Partitions of each topic. Master and broker must agree.")
MAX_MESSAGE_SIZE = click.option("--max-message-size", type=click.IntRange(min=1), default=1024 * 1024,
                                show_default=True, help="Largest message data accepted, in bytes.")
MAX_FRAME_SIZE = frame_size_option(2 * 1024 * 1024, "Largest request frame accepted (256k, 4m; at most 64m; "
                                                   "bigger ones close the connection).", minimum=16)
def _address(ctx, param, value: str) -> tuple[str, int]:
    return host_port(value)


def _run_server(server) -> None:
    """Run a server until Ctrl-C or SIGTERM, then print its counters as one JSON line."""
    run_until_stopped(server.serve_forever(), log)
    click.echo(terminal_json(server.stats.to_dict()))


MASTER = click.option("--master", default="127.0.0.1:8715", show_default=True, callback=_address,
                      help="The master's HOST:PORT.")


@click.group()
def tubemq():
    """Reference endpoints of the Apache InLong TubeMQ RPC protocol (master, broker, producer, consumer)."""


@tubemq.command()
@HOST
@click.option("--port", type=click.IntRange(0, 65535), default=8715, show_default=True,
              help="Port to listen on; 0 picks a free one (logged at start).")
@click.option("--broker", default="127.0.0.1:8123", show_default=True, callback=_address,
              help="HOST:PORT of the broker the master announces.")
@click.option("--broker-id", type=click.IntRange(min=0), default=1, show_default=True)
@TOPICS
@PARTITIONS
@MAX_MESSAGE_SIZE
@click.option("--standby", is_flag=True, help="Answer every request with StandbyException, as a master that "
                                              "is not the active one does.")
@click.option("--max-clients-per-connection", type=click.IntRange(min=1), default=32, show_default=True,
              help="Producers and consumers one connection may hold registered; more are refused (503).")
@RECORD
@RECORD_SENT
@idle_timeout_option(180.0)
@MAX_FRAME_SIZE
@LOG_RATE
@LOG_LEVEL
@strict_option("tubemq")
def master(host, port, broker, broker_id, topics, partitions, max_message_size, standby, max_clients_per_connection,
           record, record_sent, idle_timeout, max_frame_size, log_rate, log_level, strict):
    """Register producers and consumers, tell them the broker, and share partitions among a group.

    Clients not heard from for 30 s are forgotten, and so are a connection's clients when it closes; at most
    1000 are known at once, at most --max-clients-per-connection through one connection. A connection without
    a whole frame for --idle-timeout seconds is closed; one that leaves over 1 MiB unread is dropped.
    """
    from inlong_proto.endpoints.tubemq_master import TubeMQMaster

    setup_logging(log_level)
    with strict_report("tubemq", strict) as report:
        _run_server(TubeMQMaster(host, port, broker=strings.BrokerInfo(broker_id, *broker), topics=topics,
                                 partitions=partitions, max_message_size=max_message_size, standby=standby,
                                 max_clients_per_connection=max_clients_per_connection,
                                 record=record, record_sent=record_sent, idle_timeout=idle_timeout,
                                 max_frame_size=max_frame_size, log_rate=log_rate, strict=report))


@tubemq.command()
@HOST
@click.option("--port", type=click.IntRange(0, 65535), default=8123, show_default=True,
              help="Port to listen on; 0 picks a free one (logged at start).")
@click.option("--broker-id", type=click.IntRange(min=0), default=1, show_default=True,
              help="This broker's id (the one the master announces).")
@TOPICS
@PARTITIONS
@MAX_MESSAGE_SIZE
@click.option("--max-messages", type=click.IntRange(min=1), default=10_000, show_default=True,
              help="Messages kept per partition in memory; the oldest go first.")
@click.option("--max-bytes", type=click.IntRange(min=1), default=256 * 1024 * 1024, show_default=True,
              help="Message data kept by all partitions together, in bytes; a produce over it is refused "
                   "with 419 SERVER_RECEIVE_OVERFLOW.")
@click.option("--max-registrations", type=click.IntRange(min=1), default=64, show_default=True,
              help="Partitions one connection may hold registered by consumers; more are refused (503).")
@RECORD
@RECORD_SENT
@idle_timeout_option(180.0)
@MAX_FRAME_SIZE
@LOG_RATE
@LOG_LEVEL
@strict_option("tubemq")
@faults_option("sendMessageP2B", "419 SERVER_RECEIVE_OVERFLOW, nothing stored")
def broker(host, port, broker_id, topics, partitions, max_message_size, max_messages, max_bytes, max_registrations,
           record, record_sent, idle_timeout, max_frame_size, log_rate, log_level, strict, faults):
    """Store produced messages in memory, per topic and partition, and serve them to consumers.

    A connection without a whole frame for --idle-timeout seconds is closed; one that leaves over 1 MiB
    unread is dropped; a consumer connection's registrations end when it closes.
    """
    from inlong_proto.endpoints.tubemq_broker import TubeMQBroker

    setup_logging(log_level)
    with strict_report("tubemq", strict) as report:
        _run_server(TubeMQBroker(host, port, broker_id=broker_id, topics=topics, partitions=partitions,
                                 max_message_size=max_message_size, max_messages=max_messages, max_bytes=max_bytes,
                                 max_registrations=max_registrations, record=record,
                                 record_sent=record_sent, idle_timeout=idle_timeout, max_frame_size=max_frame_size,
                                 log_rate=log_rate, faults=faults, strict=report))


@tubemq.command()
@MASTER
@click.option("--topic", default="demo", show_default=True)
@click.option("--count", type=click.IntRange(min=0), default=None,
              help="Send this many generated messages (message-0, message-1, ...); default: one per stdin line.")
@click.option("--attribute", default="", help="The k=v,k=v attribute every message carries (default: none).")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=10.0, show_default=True,
              help="Seconds to wait for each connection and each answer.")
@RECORD
@RECORD_SENT
@LOG_LEVEL
@strict_option("tubemq")
def produce(master, topic, count, attribute, timeout, record, record_sent, log_level, strict):
    """Send messages through the master's broker (empty stdin lines are skipped); print a JSON report."""
    setup_logging(log_level)
    with strict_report("tubemq", strict) as report:
        ok = _produce(master, topic, count, attribute, timeout, record, record_sent, report)
    if not ok:
        sys.exit(1)


def _produce(master, topic, count, attribute, timeout, record, record_sent, strict) -> bool:
    """Run the producer, print its report line; whether the run was ok."""
    from inlong_proto.endpoints.tubemq_client import TubeMQProducer

    host, port = master
    producer = TubeMQProducer(host, port, topic, attribute=attribute, timeout=timeout, record=record,
                              record_sent=record_sent, strict=strict)

    async def main():
        if count is not None:
            payloads = (f"message-{i}".encode() for i in range(count))
        else:
            payloads = StdinLines(asyncio.get_running_loop())
        await producer.run(payloads)

    interrupted = False
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        interrupted = True
        log.info("interrupted after %d message(s), exiting", producer.report.sent)
    report = producer.report.to_dict()
    if interrupted:
        report["interrupted"] = True
    click.echo(terminal_json(report))
    return producer.report.ok


@tubemq.command()
@MASTER
@click.option("--topic", default="demo", show_default=True)
@click.option("--group", default="inlong-proto", show_default=True, help="Consumer group.")
@click.option("--count", type=click.IntRange(min=1), default=None,
              help="Stop after this many messages (default: at --timeout).")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=30.0, show_default=True,
              help="Seconds the run may last.")
@click.option("--from-max", is_flag=True, help="A group new to a partition starts at its end, not its start.")
@RECORD
@RECORD_SENT
@LOG_LEVEL
@strict_option("tubemq")
def consume(master, topic, group, count, timeout, from_max, record, record_sent, log_level, strict):
    """Fetch messages of a topic as a group member; one JSON line per message, a JSON summary last."""
    setup_logging(log_level)
    with strict_report("tubemq", strict) as report:
        ok = _consume(master, topic, group, count, timeout, from_max, record, record_sent, report)
    if not ok:
        sys.exit(1)


def _consume(master, topic, group, count, timeout, from_max, record, record_sent, strict) -> bool:
    """Run the consumer, print its messages and summary; whether the run was ok."""
    from inlong_proto.endpoints.tubemq_client import TubeMQConsumer

    host, port = master
    consumer = TubeMQConsumer(host, port, topic, group, count=count, timeout=timeout, from_max=from_max,
                              record=record, record_sent=record_sent, strict=strict)
    interrupted = False
    try:
        asyncio.run(consumer.run(lambda received: click.echo(terminal_json(received.to_dict()))))
    except KeyboardInterrupt:
        interrupted = True
        log.info("interrupted after %d message(s), exiting", consumer.report.received)
    summary = consumer.report.to_dict()
    if interrupted:
        summary["interrupted"] = True
    click.echo(terminal_json(summary))
    return consumer.report.ok


@tubemq.command()
@click.option("--format", "-T", "output_format", type=click.Choice(["table", "csv", "json", "jsonl"]), default="table",
              show_default=True)
@frame_size_option(None, "The largest TubeMQ frame (256k, 4m; at most 64m); default: the spec's limit.")
@click.argument("file")
def calls(output_format, max_frame_size, file):
    """Per-method TubeMQ calls of FILE (a capture, or a dump holding both directions, - for stdin): count,
    answered, exceptions, p50 / p95 / max latency in ms (from capture times; none for a dump) and the most
    frequent exception. Requests and responses are paired by serial number per connection in a capture; a
    dump has no connections, so it is paired by serial number and method, and serial numbers that collide
    (a dump of several connections) are counted per method (collisions) with a warning on stderr."""
    from inlong_proto.capture import CaptureDecoder, is_capture
    from inlong_proto.cli.commands import chunks, with_file
    from inlong_proto.core.errors import InlongProtoError
    from inlong_proto.core.frames import StreamDecoder
    from inlong_proto.cli.output import writer
    from inlong_proto.cli.query import field_path
    from inlong_proto.tubemq.calls import COLUMNS, CallStats

    from contextlib import closing

    from inlong_proto.cli.failure import Failure
    from inlong_proto.cli.progress import with_progress

    stats = CallStats()
    decoder, capture = None, False
    try:
        with closing(with_progress(chunks(file), file)) as stream:
            for chunk in stream:
                if decoder is None:
                    capture = is_capture(chunk)
                    decoder = (CaptureDecoder("auto", "PERMISSIVE", keep_flows=False, max_frame_size=max_frame_size)
                               if capture else StreamDecoder("tubemq", mode="PERMISSIVE", max_frame_size=max_frame_size))
                _count(stats, decoder.feed(chunk), capture)
        if decoder is not None:
            _count(stats, decoder.close(), capture)
    except InlongProtoError as exc:
        raise with_file(exc, file) from None
    rows = stats.rows()
    if not rows:  # empty, unrelated, or another protocol's traffic: not an empty table
        raise Failure(f"{file}: {'empty' if decoder is None else 'no TubeMQ call found'}: expected a capture of "
                      "TubeMQ traffic, or a raw dump of TubeMQ frames (both directions)")
    for warning in stats.warnings:
        click.echo(f"warning: {file}: {warning}", err=True)
    output = writer(output_format, sys.stdout, [field_path(name) for name in COLUMNS], False)
    output.write(rows)
    output.close()


def _count(stats, items: list, capture: bool) -> None:
    for item in items:
        if not capture:
            stats.feed(item)
        elif item.frame.protocol == "tubemq":
            at = item.timestamp_ns / 1e9 if item.timestamp_ns is not None else None
            flow = item.flow  # its connection: paired apart from the others
            stats.feed(item.frame, (flow.first_packet_offset, flow.number), at)
