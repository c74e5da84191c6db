"""`inlong-proto eventmesh ...` commands: thin wrappers that run the asyncio TCP endpoints.

Logs go to stderr. `serve` runs until Ctrl-C, then prints one JSON line of counters. `client` prints
each pushed message it receives as one JSON line, then one JSON summary line last, and exits 1 when
the connection failed, the hello was refused, or a publish was refused or went unanswered. Ctrl-C
stops either command cleanly (status 0 for `serve`; `client` says goodbye and still prints its
summary, marked "interrupted").
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sys

import click

from ..endpoints import HOST, LOG_LEVEL, LOG_RATE, idle_timeout_option, setup_logging
from ..values import json_text

log = logging.getLogger(__name__)

RECORD_SENT = click.option("--record-sent", type=click.Path(dir_okay=False), default=None,
                           help="Append the raw bytes of every frame sent to this file (a dump).")


def _echo_json(value: dict) -> None:
    click.echo(json_text(value))


@click.group()
def eventmesh():
    """Reference endpoints of the Apache EventMesh TCP protocol."""


@eventmesh.command()
@HOST
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="Port to listen on; 0 picks a free one (logged at start).")
@click.option("--record", type=click.Path(dir_okay=False), default=None,
              help="Append the raw bytes of every well-formed frame received to this file (a dump).")
@RECORD_SENT
@idle_timeout_option(120.0)
@click.option("--max-event-size", type=click.IntRange(min=1), default=1000, show_default=True,
              help="Longest message data accepted, in characters (eventMesh.server.maxEventSize).")
@LOG_RATE
@LOG_LEVEL
def serve(host, port, record, record_sent, idle_timeout, max_event_size, log_rate, log_level):
    """Answer EventMesh TCP clients like the runtime: sessions, subscriptions, acks, pushes.

    A client that sends no whole frame for --idle-timeout seconds is disconnected (clients send
    heartbeats); one that leaves over 4 MiB unread is dropped.
    """
    from .server import EventMeshServer

    setup_logging(log_level)
    server = EventMeshServer(host, port, record=record, record_sent=record_sent, idle_timeout=idle_timeout,
                             max_event_size=max_event_size, log_rate=log_rate)
    try:
        asyncio.run(server.serve_forever())
    except KeyboardInterrupt:
        log.info("interrupted, exiting")
    _echo_json(server.stats.to_dict())


def _message_line(message) -> dict:
    body = message.body
    out = {"command": message.command.name, "seq": message.header.seq, "protocol_type": message.protocol_type}
    if hasattr(body, "to_json"):
        json_body = body.to_json()
        out["topic"] = json_body.get("topic", json_body.get("subject"))
        out["body"] = json_body.get("body", json_body.get("data"))
    else:
        out["body"] = body
    return out


@eventmesh.command()
@HOST
@click.option("--port", type=click.IntRange(1, 65535), required=True, help="Server port.")
@click.option("--topic", default="inlong-proto-demo", show_default=True, help="Topic to publish to / listen on.")
@click.option("--publish", type=click.IntRange(min=0), default=0, show_default=True,
              help="Publish this many messages (BODY-0, BODY-1, ...), each waiting for its ack.")
@click.option("--body", default="message", show_default=True, help="Prefix of the published message bodies.")
@click.option("--listen", is_flag=True, help="Subscribe to the topic and print the messages pushed.")
@click.option("--count", type=click.IntRange(min=1), default=None,
              help="With --listen: stop after this many messages (default: until Ctrl-C or the server leaves).")
@click.option("--mode", type=click.Choice(["CLUSTERING", "BROADCASTING"]), default="CLUSTERING", show_default=True)
@click.option("--type", "type_", type=click.Choice(["ASYNC", "SYNC"]), default="ASYNC", show_default=True)
@click.option("--group", default="inlong-proto", show_default=True, help="Producer / consumer group.")
@click.option("--heartbeat-interval", type=click.FloatRange(min=0, min_open=True), default=30.0, show_default=True,
              help="Seconds between heartbeats.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=10.0, show_default=True,
              help="Seconds to wait for the connection and for each reply.")
@click.option("--record", type=click.Path(dir_okay=False), default=None,
              help="Append every byte received to this file (a dump).")
@RECORD_SENT
@LOG_LEVEL
def client(host, port, topic, publish, body, listen, count, mode, type_, group, heartbeat_interval, timeout, record,
           record_sent, log_level):
    """Say hello, optionally subscribe and listen, publish, receive, say goodbye; print a summary."""
    from .client import EventMeshClient, EventMeshError, make_user_agent, text_message

    setup_logging(log_level)
    if count is not None and not listen:
        raise click.UsageError("--count needs --listen")
    endpoint = EventMeshClient(host, port, user_agent=make_user_agent(purpose="sub" if listen else "pub", group=group),
                               record=record, record_sent=record_sent, heartbeat_interval=heartbeat_interval,
                               timeout=timeout)
    received = 0

    async def main():
        nonlocal received
        try:
            await endpoint.connect()
            await endpoint.hello()
            if listen:
                await endpoint.subscribe(topic, mode, type_)
                await endpoint.listen()
            for i in range(publish):
                with contextlib.suppress(EventMeshError, TimeoutError):  # counted in the report
                    await endpoint.publish_async(text_message(topic, f"{body}-{i}"))
            while listen and (count is None or received < count):
                message = await endpoint.receive()
                received += 1
                _echo_json(_message_line(message))
            if endpoint.connected and endpoint.session_open:
                await endpoint.goodbye()
        except (EventMeshError, ConnectionError, TimeoutError) as exc:
            if endpoint.report.error is None:
                endpoint.report.error = str(exc)
            log.error("%s", exc)
        except asyncio.CancelledError:  # Ctrl-C: leave politely
            if endpoint.connected and endpoint.session_open:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(endpoint.goodbye(), 2.0)
            raise
        finally:
            await endpoint.close()

    interrupted = False
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        interrupted = True
        log.info("interrupted after %d message(s), exiting", received)
    summary = endpoint.report.to_dict()
    if interrupted:
        summary["interrupted"] = True
    _echo_json(summary)
    if not endpoint.report.ok:
        sys.exit(1)
