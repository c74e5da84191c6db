"""`inlong-proto dataproxy ...` commands: thin wrappers that run the asyncio endpoints.

Logs go to stderr; `send` prints one JSON report line on stdout and exits 1 when a message failed,
was lost, or the connection could not be made. Ctrl-C stops either command cleanly (status 0 for
`serve`; `send` still prints the report of what it did).
"""
from __future__ import annotations

import asyncio
import json
import logging
import sys

import click

from inlong_proto.endpoints.common import (HOST, LOG_LEVEL, LOG_RATE, StdinLines, idle_timeout_option,
                                           run_until_stopped, setup_logging, strict_option, strict_report)
from inlong_proto.cli.options import frame_size_option
from inlong_proto.endpoints.faults import faults_option

log = logging.getLogger(__name__)


@click.group()
def dataproxy():
    """Reference endpoints of the InLong DataProxy TCP (v0) protocol."""


@dataproxy.command()
@HOST
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="Port to listen on; 0 picks a free one (logged at start).")
@click.option("--record", type=click.Path(dir_okay=False), default=None,
              help="Append every well-formed request frame's raw bytes to this file (a request dump).")
@click.option("--dp-ip", default="127.0.0.1", show_default=True, help="The dpIp the replies carry.")
@frame_size_option(65536, "Largest frame accepted, length prefix included (256k, 4m; at most 64m; bigger ones "
                         "close the connection).", minimum=5)
@idle_timeout_option(180.0)
@LOG_RATE
@LOG_LEVEL
@strict_option("dataproxy")
@faults_option("data request (heartbeats not counted)", "errCode 115, nothing accepted")
def serve(host, port, record, dp_ip, max_frame_size, idle_timeout, log_rate, log_level, strict, faults):
    """Acknowledge DataProxy SDK messages the way the real server does.

    A client that sends no whole frame for --idle-timeout seconds is disconnected (real SDKs send
    heartbeats); one that leaves over 1 MiB of replies unread is dropped.
    """
    from inlong_proto.endpoints.dataproxy_server import serve as run_server

    setup_logging(log_level)
    with strict_report("dataproxy", strict) as report:
        run_until_stopped(run_server(host, port, record=record, dp_ip=dp_ip, max_frame_size=max_frame_size,
                                     idle_timeout=idle_timeout, log_rate=log_rate, faults=faults, strict=report), log)


@dataproxy.command()
@HOST
@click.option("--port", type=click.IntRange(1, 65535), required=True, help="Server port.")
@click.option("--mix", default="3,5,7,8", show_default=True,
              help="MsgTypes used in turn: 2-6 text, 7 binary (each carries a batch), 8 and 1 heartbeats.")
@click.option("--count", type=click.IntRange(min=0), default=None,
              help="Send this many generated records (record-0, record-1, ...); default: one per stdin line.")
@click.option("--batch-size", type=click.IntRange(min=1), default=10, show_default=True,
              help="Records per data message.")
@click.option("--compress", is_flag=True, help="Snappy-compress the bodies (cp=snappy, or the MsgType 7 flag).")
@click.option("--no-ack", is_flag=True, help="Send isAck=false: the server answers no data message.")
@click.option("--group-id", default="demo_group", show_default=True)
@click.option("--stream-id", default="demo_stream", show_default=True)
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=10.0, show_default=True,
              help="Seconds to wait for the connection and for outstanding replies.")
@click.option("--record", type=click.Path(dir_okay=False), default=None,
              help="Append every response frame's raw bytes to this file (a response dump).")
@LOG_LEVEL
@strict_option("dataproxy")
def send(host, port, mix, count, batch_size, compress, no_ack, group_id, stream_id, timeout, record, log_level,
         strict):
    """Send records (empty stdin lines are skipped) and print a one-line JSON report."""
    setup_logging(log_level)
    with strict_report("dataproxy", strict) as report:
        ok = _send(host, port, mix, count, batch_size, compress, no_ack, group_id, stream_id, timeout, record,
                   report)
    if not ok:
        sys.exit(1)


def _send(host, port, mix, count, batch_size, compress, no_ack, group_id, stream_id, timeout, record,
          strict) -> bool:
    """Run the sender, print its report line; whether the run was ok."""
    from inlong_proto.endpoints.dataproxy_sender import DataProxySender

    try:
        sender = DataProxySender(host, port, mix=mix, group_id=group_id, stream_id=stream_id, compress=compress,
                                 record=record, timeout=timeout, is_ack=False if no_ack else None, strict=strict)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--mix") from None

    async def main():
        if count is not None:
            records = (f"record-{i}".encode() for i in range(count))
        else:
            records = StdinLines(asyncio.get_running_loop())
        await sender.run(records, batch_size)

    interrupted = False
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        interrupted = True
        log.info("interrupted after %d message(s), exiting", sender.report.sent)
    report = sender.report.to_dict()
    if interrupted:
        report["interrupted"] = True
    click.echo(json.dumps(report, sort_keys=False))
    return sender.report.ok
