"""`inlong-proto broadcast ...` commands: thin wrappers that run the asyncio endpoints.

Logs go to stderr (stdout carries only the client's items), and Ctrl-C is the normal way to stop
either endpoint, so it exits with status 0 and no traceback.
"""
from __future__ import annotations

import asyncio
import logging

import click

from inlong_proto.endpoints.common import (HOST, LOG_LEVEL, LOG_RATE, idle_timeout_option, run_until_stopped,
                                           setup_logging, strict_option, strict_report)

log = logging.getLogger(__name__)


@click.group()
def broadcast():
    """Reference endpoints of the simple broadcasting protocol."""


@broadcast.command()
@HOST
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="Port to listen on; 0 picks a free one (logged at start).")
@click.option("--interval", type=click.FloatRange(min=0, min_open=True), default=1.0, show_default=True,
              help="Seconds between two values.")
@click.option("--seed", type=int, default=None, help="Seed of the value generator, for reproducible values.")
@click.option("--max-history", type=click.IntRange(min=0), default=10_000, show_default=True,
              help="Keep only this many latest values for replay (0: all, which grows without bound).")
@idle_timeout_option(60.0)
@LOG_RATE
@LOG_LEVEL
@strict_option("broadcast")
def serve(host, port, interval, seed, max_history, idle_timeout, log_rate, log_level, strict):
    """Produce a random value every INTERVAL seconds; replay history to each client, then push live.

    A client must send its request within --idle-timeout seconds; once live it may stay silent. Replays
    are written as the client reads them, and a client that leaves over 1 MiB unread is dropped.
    """
    from inlong_proto.endpoints.broadcast_server import serve as run_server

    setup_logging(log_level)
    with strict_report("broadcast", strict) as report:
        run_until_stopped(run_server(host, port, interval, seed=seed, max_history=max_history or None,
                                     idle_timeout=idle_timeout, log_rate=log_rate, strict=report), log)


@broadcast.command()
@HOST
@click.option("--port", type=click.IntRange(1, 65535), required=True, help="Server port.")
@click.option("--count", type=click.IntRange(min=1), default=None, help="Stop after this many items (default: never).")
@click.option("--record", type=click.Path(dir_okay=False), default=None,
              help="Append each received frame's raw bytes to this file (a clean raw dump of the responses).")
@click.option("--resume", is_flag=True,
              help="Start after the last item already in the --record file instead of from nothing.")
@click.option("--retries", type=click.IntRange(min=0), default=5, show_default=True,
              help="Failed connections in a row tolerated before giving up.")
@click.option("--backoff", type=click.FloatRange(min=0), default=0.2, show_default=True,
              help="First wait before reconnecting, in seconds; doubles per failed attempt (at most 5 s).")
@click.option("--idle-timeout", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Reconnect when nothing arrives for this many seconds (default: wait forever).")
@LOG_LEVEL
def client(host, port, count, record, resume, retries, backoff, idle_timeout, log_level):
    """Print each item as `yyyy-MM-dd HH:mm:ss.SSS STATUS VALUE`, reconnecting and resuming on loss."""
    from inlong_proto.endpoints.broadcast_client import BroadcastClient, last_recorded

    if resume and record is None:
        raise click.UsageError("--resume needs --record")
    setup_logging(log_level)
    start = last_recorded(record) if resume else None
    endpoint = BroadcastClient(host, port, record=record, resume=start, retries=retries, backoff=backoff,
                               idle_timeout=idle_timeout)
    try:
        asyncio.run(endpoint.run(count))
    except KeyboardInterrupt:
        log.info("interrupted after %d item(s), exiting", endpoint.received)
    except ConnectionError as exc:
        raise click.ClickException(str(exc)) from None
