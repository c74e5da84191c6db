"""`inlong-proto eventmesh ...` commands: thin wrappers that run the asyncio TCP and HTTP endpoints.

Logs go to stderr. `serve` runs until Ctrl-C, then prints one JSON line of counters. `client` prints
each pushed message it receives as one JSON line, then one JSON summary line last, and exits 1 when
the connection failed, the hello was refused, or a publish was refused or went unanswered. Ctrl-C
stops either command cleanly (status 0 for `serve`; `client` says goodbye and still prints its
summary, marked "interrupted").

`http-serve` and `http-client publish|subscribe` do the same over EventMesh's legacy HTTP API: the
subscriber runs a webhook, prints each push as one JSON line, and also exits 1 when fewer than --count
messages came before its --timeout.

`grpc-serve` and `grpc-client publish|subscribe|heartbeat` do the same over EventMesh's gRPC CloudEvent
services (they need the optional grpcio: `pip install 'inlong-proto[grpc]'`); `--capture FILE.pcap` records
their connections through a recording relay, since gRPC hides the bytes.

Every server and client takes `--strict FILE`: it checks what the other side sends against
specs/eventmesh/conformance.yaml and appends one JSON line per finding to FILE (a summary table on stderr at
exit); the answers stay the same.
"""
from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import os
import sys

import click

from inlong_proto.endpoints.common import (HOST, LOG_LEVEL, LOG_RATE, host_port, idle_timeout_option, run_until_stopped,
                                           setup_logging, strict_option, strict_report)
from inlong_proto.cli.failure import missing_extra
from inlong_proto.cli.output import terminal_json
from inlong_proto.endpoints.faults import faults_option

log = logging.getLogger(__name__)

SUBSCRIPTION_MODE = click.option("--mode", type=click.Choice(["CLUSTERING", "BROADCASTING"]), default="CLUSTERING",
                                 show_default=True, help="The subscription's distribution mode.")
RECORD_SENT = click.option("--record-sent", type=click.Path(dir_okay=False), default=None,
                           help="Append the raw bytes of every frame sent to this file (a dump).")


def _echo_json(value: dict) -> None:
    click.echo(terminal_json(value))  # received content: no control character reaches the terminal raw


@click.group()
def eventmesh():
    """Reference endpoints of the Apache EventMesh TCP, HTTP and gRPC protocols."""


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
@strict_option("eventmesh")
@faults_option("ASYNC_MESSAGE_TO_SERVER, BROADCAST_MESSAGE_TO_SERVER or REQUEST_TO_SERVER",
               "the answer with code 1, nothing pushed")
def serve(host, port, record, record_sent, idle_timeout, max_event_size, log_rate, log_level, strict, faults):
    """Answer EventMesh TCP clients like the runtime: sessions, subscriptions, acks, pushes.

    A client that sends no whole frame for --idle-timeout seconds is disconnected (clients send
    heartbeats); one that leaves over 4 MiB unread is dropped.
    """
    from inlong_proto.endpoints.eventmesh_server import EventMeshServer

    setup_logging(log_level)
    with strict_report("eventmesh", strict) as report:
        server = EventMeshServer(host, port, record=record, record_sent=record_sent, idle_timeout=idle_timeout,
                                 max_event_size=max_event_size, log_rate=log_rate, faults=faults, strict=report)
        run_until_stopped(server.serve_forever(), log)
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
@SUBSCRIPTION_MODE
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
@strict_option("eventmesh")
@click.pass_context
def client(ctx, host, port, topic, publish, body, listen, count, mode, type_, group, heartbeat_interval, timeout,
           record, record_sent, log_level, strict):
    """Say hello, optionally subscribe and listen, publish, receive, say goodbye; print a summary."""
    from inlong_proto.endpoints.eventmesh_client import EventMeshClient, EventMeshError, make_user_agent, text_message

    setup_logging(log_level)
    if count is not None and not listen:
        raise click.UsageError("--count needs --listen")
    report = ctx.with_resource(strict_report("eventmesh", strict))
    endpoint = EventMeshClient(host, port, user_agent=make_user_agent(purpose="sub" if listen else "pub", group=group),
                               record=record, record_sent=record_sent, heartbeat_interval=heartbeat_interval,
                               timeout=timeout, strict=report)
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


# ---------------------------------------------------------------------------------------------- HTTP
RECORD_PUSHES = click.option("--record-pushes", type=click.Path(dir_okay=False), default=None,
                             help="Append the exact bytes of every webhook push to this file (a request dump).")
RECORD_PUSH_REPLIES = click.option("--record-push-replies", type=click.Path(dir_okay=False), default=None,
                                   help="Append the exact bytes of every webhook answer to this file (a response "
                                        "dump).")


# webhook pushes: both runtimes push through http_server.WebhookPusher (its defaults, repeated here so that
# --help works without importing the servers)
MAX_PENDING_PUSHES = click.option(
    "--max-pending-pushes", type=click.IntRange(min=1), default=1000, show_default=True,
    help="Pushes that may wait for their webhooks, all together; further ones are dropped and counted.")
MAX_SUBSCRIPTIONS = click.option(
    "--max-subscriptions", type=click.IntRange(min=1), default=100, show_default=True,
    help="Topic subscriptions one client (IP address) may hold; more are refused.")


def _allow_list(ctx, param, values):
    for value in values:
        host_port(value)  # click.BadParameter when it is not HOST:PORT
    return values


WEBHOOK_ALLOW = click.option(
    "--webhook-allow", metavar="HOST:PORT", multiple=True, callback=_allow_list,
    help="A webhook target (host and port as the subscribed url writes them) pushed to without the "
         "CloudEvents abuse-protection handshake; repeatable. Every other url must first answer the "
         "handshake (OPTIONS with WebHook-Request-Origin) with 200 and WebHook-Allowed-Origin. For tests and "
         "demos.")
PUSH_TIMEOUT = click.option(
    "--push-timeout", type=click.FloatRange(min=0, min_open=True), default=5.0, show_default=True,
    help="Seconds to connect to a webhook and get its answer before the push is retried.")


@eventmesh.command("http-serve")
@HOST
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="Port to listen on; 0 picks a free one (logged at start).")
@click.option("--record", type=click.Path(dir_okay=False), default=None,
              help="Append the exact bytes of every request received to this file (a request dump).")
@click.option("--record-sent", type=click.Path(dir_okay=False), default=None,
              help="Append the exact bytes of every answer sent to this file (a response dump).")
@RECORD_PUSHES
@RECORD_PUSH_REPLIES
@idle_timeout_option(60.0)
@click.option("--max-event-size", type=click.IntRange(min=1), default=1000, show_default=True,
              help="Longest message content accepted, in characters (eventMesh.server.maxEventSize).")
@click.option("--max-request-size", type=click.IntRange(min=1), default=1 << 20, show_default=True,
              help="Largest request body, in bytes; a larger one is answered 413 and the connection closed.")
@MAX_PENDING_PUSHES
@PUSH_TIMEOUT
@WEBHOOK_ALLOW
@MAX_SUBSCRIPTIONS
@click.option("--reply-timeout", type=click.FloatRange(min=0, min_open=True), default=10.0, show_default=True,
              help="Longest wait, in seconds, for the REPLY_MESSAGE a MSG_SEND_SYNC waits for (or its ttl).")
@LOG_RATE
@LOG_LEVEL
@strict_option("eventmesh")
@faults_option("send (MSG_SEND_ASYNC, MSG_SEND_SYNC, a batch)", "retCode 15, 3 or 17, nothing pushed")
@click.pass_context
def http_serve(ctx, host, port, record, record_sent, record_pushes, record_push_replies, idle_timeout, max_event_size,
               max_request_size, max_pending_pushes, push_timeout, webhook_allow, max_subscriptions, reply_timeout,
               log_rate, log_level, strict, faults):
    """Answer EventMesh HTTP clients like the runtime and push to subscribers' webhooks.

    The legacy request-code API: MSG_SEND_ASYNC, MSG_SEND_SYNC, REPLY_MESSAGE, SUBSCRIBE, UNSUBSCRIBE,
    HEARTBEAT. A webhook gets pushes only once it agreed in the abuse-protection handshake (or is named by
    --webhook-allow). Runs until Ctrl-C, then prints one JSON line of counters.
    """
    from inlong_proto.endpoints.eventmesh_http_server import EventMeshHttpServer

    setup_logging(log_level)
    server = EventMeshHttpServer(host, port, record=record, record_sent=record_sent, record_pushes=record_pushes,
                                 record_push_replies=record_push_replies, idle_timeout=idle_timeout,
                                 max_event_size=max_event_size, max_request_size=max_request_size,
                                 max_pending_pushes=max_pending_pushes, push_timeout=push_timeout,
                                 reply_timeout=reply_timeout, log_rate=log_rate, webhook_allow=webhook_allow,
                                 max_subscriptions=max_subscriptions, faults=faults,
                                 strict=ctx.with_resource(strict_report("eventmesh", strict)))
    run_until_stopped(server.serve_forever(), log)
    _echo_json(server.stats.to_dict())


@eventmesh.command("uni-serve")
@HOST
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="Port to listen on; 0 picks a free one (logged at start).")
@click.option("--rate-limit", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Events per second a topic takes before publish answers 429 (default: no limit).")
@click.option("--dump-frames", type=click.Path(dir_okay=False), default=None,
              help="At exit, write every event accepted (the topic log) to this file as concatenated "
                   "EventMeshFrames (read it with decode -p eventmesh-frame).")
@LOG_LEVEL
def uni_serve(host, port, rate_limit, dump_frames, log_level):
    """Answer the new runtime's uni HTTP API (CloudEvents JSON, SSE) in memory.

    publish (202; 413 over 1 MiB, 429 over --rate-limit), publish-batch, subscribe, unsubscribe, ack, poll,
    the SSE stream at /events/stream, request/reply and the lite routes (publish-bytes and poll-bytes carry
    EventMeshFrames); events are kept as EventMeshFrames. The agent and session routes answer 503 (none
    configured). Runs until Ctrl-C or SIGTERM, then prints one JSON line of counters.
    """
    from inlong_proto.endpoints.eventmesh_uni_server import UniServer

    setup_logging(log_level)
    server = UniServer(host, port, rate_limit=rate_limit)
    run_until_stopped(server.serve_forever(), log)  # Ctrl-C or kill: the frames are dumped either way
    if dump_frames is not None:
        log.info("%d frames written to %s", server.dump_frames(dump_frames), dump_frames)
    _echo_json(server.stats)


@eventmesh.group("uni-client")
@HOST
@click.option("--port", type=click.IntRange(1, 65535), required=True, help="Server port.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=10.0, show_default=True,
              help="Seconds to connect and to wait for each answer; poll and stream: for all --count events.")
@LOG_LEVEL
@click.pass_context
def uni_client(ctx, host, port, timeout, log_level):
    """Publish to, poll, or follow the SSE stream of, a uni HTTP runtime (uni-serve); print a JSON summary last.

    Exits 1 when a call failed or was refused, or fewer than --count events came before --timeout.
    """
    setup_logging(log_level)
    ctx.obj = {"host": host, "port": port, "timeout": timeout}


def _run_uni(options: dict, main) -> None:
    """Run main(client, summary), then print the summary last; exit 1 unless it says ok."""
    from inlong_proto.endpoints.eventmesh_uni_client import UniClient, UniHttpError

    client = UniClient(options["host"], options["port"], timeout=options["timeout"])
    summary = {"ok": False}

    async def run():
        try:
            await main(client, summary)
        except (ConnectionError, UniHttpError) as exc:
            summary["error"] = str(exc)
        finally:
            await client.close()

    try:
        asyncio.run(run())
    except KeyboardInterrupt:
        summary["interrupted"] = True
        log.info("interrupted, exiting")
    summary["answers"] = {str(status): n for status, n in sorted(client.answers.items())}
    _echo_json(summary)
    if not summary["ok"]:
        sys.exit(1)


UNI_TOPIC = click.option("--topic", default="inlong-proto-demo", show_default=True, help="Topic.")
UNI_CLIENT_ID = click.option("--client-id", default="inlong-proto", show_default=True,
                             help="The subscriber's clientId.")
UNI_COUNT = click.option("--count", type=click.IntRange(min=1), default=1, show_default=True,
                         help="Events to publish, or to wait for.")


@uni_client.command("publish")
@UNI_TOPIC
@UNI_COUNT
@click.option("--data", default="hello", show_default=True, help="Each event's text data (' <n>' appended).")
@click.option("--id-prefix", default="e-", show_default=True, help="Event ids are this prefix and 1..count.")
@click.option("--batch", is_flag=True, help="Send all events in one POST /events/publish-batch.")
@click.pass_obj
def uni_client_publish(options, topic, count, data, id_prefix, batch):
    """Publish --count structured CloudEvents (202 each, or one 202 for the batch)."""
    from inlong_proto.endpoints.eventmesh_uni_client import cloud_event

    events = [cloud_event(f"{id_prefix}{n}", f"{data} {n}") for n in range(1, count + 1)]

    async def main(client, summary):
        if batch:
            await client.publish_batch(topic, events)
        else:
            for event in events:
                await client.publish(topic, event)
        summary.update(ok=True, published=len(events))

    _run_uni(options, main)


async def _subscribed(client, summary: dict, client_id: str, topic: str, mode: str) -> None:
    """Subscribe client_id to topic; the summary counts what it receives from now on."""
    summary["received"] = 0
    await client.subscribe(client_id, topic, mode)
    log.info("subscribed %s to %s", client_id, topic)


def _delivered(client, summary: dict, delivery: dict):
    """Print one delivery as a JSON line and ack it."""
    _echo_json(delivery)
    summary["received"] += 1
    return client.ack(delivery["deliveryId"])


@uni_client.command("poll")
@UNI_TOPIC
@UNI_CLIENT_ID
@UNI_COUNT
@SUBSCRIPTION_MODE
@click.pass_obj
def uni_client_poll(options, topic, client_id, count, mode):
    """Subscribe, then long-poll until --count deliveries came (each printed as a JSON line and acked)."""

    async def main(client, summary):
        await _subscribed(client, summary, client_id, topic, mode)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + options["timeout"]
        while summary["received"] < count and loop.time() < deadline:
            wait_ms = max(1, int((deadline - loop.time()) * 1000))
            for delivery in await client.poll(client_id, count - summary["received"], min(wait_ms, 1000)):
                await _delivered(client, summary, delivery)
        summary["ok"] = summary["received"] >= count

    _run_uni(options, main)


@uni_client.command("stream")
@UNI_TOPIC
@UNI_CLIENT_ID
@UNI_COUNT
@SUBSCRIPTION_MODE
@click.pass_obj
def uni_client_stream(options, topic, client_id, count, mode):
    """Subscribe, then follow GET /events/stream (SSE) until --count deliveries came (each printed and acked)."""

    async def main(client, summary):
        await _subscribed(client, summary, client_id, topic, mode)

        async def follow():
            async with contextlib.aclosing(client.follow(client_id)) as items:
                async for item in items:
                    if item.message_type == "SSE_DELIVERY":
                        await _delivered(client, summary, item.to_dict()["sse"]["value"])
                        if summary["received"] >= count:
                            return

        try:
            await asyncio.wait_for(follow(), options["timeout"])
        except asyncio.TimeoutError:
            log.info("%d of %d events before the timeout", summary["received"], count)
        summary["ok"] = summary["received"] >= count

    _run_uni(options, main)


@eventmesh.group("http-client")
@HOST
@click.option("--port", type=click.IntRange(1, 65535), required=True, help="Server port.")
@click.option("--topic", default="inlong-proto-demo", show_default=True, help="Topic to publish to / subscribe to.")
@click.option("--group", default="inlong-proto", show_default=True, help="Producer / consumer group.")
@click.option("--record", type=click.Path(dir_okay=False), default=None,
              help="Append the exact bytes of every answer received from the server to this file (a response "
                   "dump).")
@click.option("--record-sent", type=click.Path(dir_okay=False), default=None,
              help="Append the exact bytes of every request sent to the server to this file (a request dump).")
@LOG_LEVEL
@strict_option("eventmesh")
@click.pass_context
def http_client(ctx, host, port, topic, group, record, record_sent, log_level, strict):
    """Publish to, or subscribe by webhook at, an EventMesh HTTP runtime; print a JSON summary last.

    Exits 1 when a request failed or went unanswered, or a subscriber got fewer than --count messages.
    """
    setup_logging(log_level)
    ctx.obj = {"host": host, "port": port, "topic": topic, "group": group, "record": record,
               "record_sent": record_sent, "strict": ctx.with_resource(strict_report("eventmesh", strict))}


def _http_endpoint(options: dict, timeout: float):
    from inlong_proto.eventmesh.http import ClientConfig
    from inlong_proto.endpoints.eventmesh_http_client import EventMeshHttpClient

    config = ClientConfig(pid=str(os.getpid()), consumer_group=options["group"], producer_group=options["group"],
                          host=f"{options['host']}:{options['port']}")
    return EventMeshHttpClient(options["host"], options["port"], config=config, record=options["record"],
                               record_sent=options["record_sent"], timeout=timeout, strict=options["strict"])


def _run_reporting(main, report) -> None:
    """Run main(), then print the report last; exit 1 unless it is ok (Ctrl-C: marked interrupted)."""
    interrupted = False
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        interrupted = True
        log.info("interrupted, exiting")
    summary = report.to_dict()
    if interrupted:
        summary["interrupted"] = True
    _echo_json(summary)
    if not report.ok:
        sys.exit(1)


@http_client.command("publish")
@click.option("--count", type=click.IntRange(min=0), default=None,
              help="Publish this many messages (BODY-0, BODY-1, ...); without it, one per line of stdin.")
@click.option("--body", default="message", show_default=True, help="Prefix of the --count message contents.")
@click.option("--sync", is_flag=True, help="MSG_SEND_SYNC: each waits for a subscriber's reply (printed).")
@click.option("--ttl", default=None, help="The messages' ttl in milliseconds (sync: how long the runtime waits).")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=10.0, show_default=True,
              help="Seconds to wait for the connection and for each answer.")
@click.pass_obj
def http_publish(options, count, body, sync, ttl, timeout):
    """Send messages, each waiting for its answer (MSG_SEND_ASYNC, or MSG_SEND_SYNC with --sync)."""
    from inlong_proto.endpoints.eventmesh_http_client import EventMeshHttpError

    endpoint = _http_endpoint(options, timeout)
    contents = (f"{body}-{i}" for i in range(count)) if count is not None else (
        line.rstrip("\r\n") for line in sys.stdin)

    async def main():
        try:
            for content in contents:
                try:
                    answer = await endpoint.publish(options["topic"], content, sync=sync, ttl=ttl)
                except EventMeshHttpError as exc:  # counted in the report
                    log.error("%s", exc)
                    continue
                if answer.reply is not None:
                    _echo_json({"content": content, "reply": answer.reply.to_json()})
        except ConnectionError as exc:
            endpoint.report.error = str(exc)
            log.error("%s", exc)
        finally:
            await endpoint.close()

    _run_reporting(main, endpoint.report)


def _push_line(push) -> dict:
    """A pushed message as one JSON line: what the push's form fields say."""
    fields = push.fields
    return {"request_code": push.code_text, "topic": fields.get("topic"), "content": fields.get("content"),
            "bizseqno": fields.get("bizseqno"), "uniqueid": fields.get("uniqueId"),
            "ext_fields": fields.get("extFields")}


@http_client.command("subscribe")
@click.option("--count", type=click.IntRange(min=1), default=None,
              help="Stop after this many messages (fewer by --timeout: exit status 1).")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Stop after this many seconds (default: at --count messages, or Ctrl-C).")
@click.option("--webhook-host", default="127.0.0.1", show_default=True, help="Address the webhook listens on.")
@click.option("--webhook-port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="Port the webhook listens on; 0 picks a free one.")
@SUBSCRIPTION_MODE
@click.option("--type", "type_", type=click.Choice(["ASYNC", "SYNC"]), default="ASYNC", show_default=True,
              help="SYNC: pushes come with code 106 and each is answered by a REPLY_MESSAGE echoing it.")
@click.option("--reply-code", type=click.IntRange(0, 5), default=1, show_default=True,
              help="The retCode the webhook answers pushes with (ClientRetCode: 0/1 ok, 2 retry, 3 fail, 5 "
                   "nolisten); only ok pushes are printed and counted.")
@click.option("--heartbeat-interval", type=click.FloatRange(min=0, min_open=True), default=30.0, show_default=True,
              help="Seconds between heartbeats.")
@RECORD_PUSHES
@RECORD_PUSH_REPLIES
@click.pass_obj
def http_subscribe(options, count, timeout, webhook_host, webhook_port, mode, type_, reply_code, heartbeat_interval,
                   record_pushes, record_push_replies):
    """Run a webhook, subscribe it, print each pushed message as one JSON line, unsubscribe at the end."""
    from inlong_proto.eventmesh.http import SubscriptionItem, SubscriptionMode, SubscriptionType
    from inlong_proto.endpoints.eventmesh_http_client import EventMeshHttpError, WebhookReceiver

    endpoint = _http_endpoint(options, 10.0)
    report = endpoint.report
    report.expected = count
    topic = options["topic"]

    async def main():
        receiver = WebhookReceiver(webhook_host, webhook_port, reply_code=reply_code, record_pushes=record_pushes,
                                   record_push_replies=record_push_replies, report=report)
        await receiver.start()
        heartbeats = None
        try:
            item = SubscriptionItem(topic=topic, mode=SubscriptionMode(mode), type=SubscriptionType(type_))
            await endpoint.subscribe([item], receiver.url)
            await endpoint.heartbeat([topic], receiver.url)  # the SDK's first, at once
            heartbeats = asyncio.create_task(endpoint.heartbeats([topic], receiver.url, heartbeat_interval))
            printed = 0
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(timeout):
                    while count is None or printed < count:
                        push = await receiver.receive()
                        _echo_json(_push_line(push))
                        printed += 1
                        if type_ == "SYNC":
                            await endpoint.reply(push, push.fields.get("content") or "")
            await endpoint.unsubscribe([topic], receiver.url)
        except (EventMeshHttpError, ConnectionError) as exc:
            report.error = str(exc)
            log.error("%s", exc)
        finally:
            if heartbeats is not None:
                heartbeats.cancel()
                await asyncio.gather(heartbeats, return_exceptions=True)
            await receiver.stop()
            await endpoint.close()

    _run_reporting(main, report)


# ---------------------------------------------------------------------------------------------- gRPC
def _need_grpc() -> None:
    """The one error line naming the extra, not a traceback, when the optional grpcio is missing."""
    try:
        importlib.import_module("grpc")
    except ImportError:
        raise missing_extra("grpcio", "grpc", "an EventMesh gRPC endpoint") from None


CAPTURE = click.option("--capture", type=click.Path(dir_okay=False), default=None,
                       help="Record the connections to this pcap file, through a recording relay (written at the "
                            "end; gRPC hides the bytes from the program itself).")


@eventmesh.command("grpc-serve")
@HOST
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="Port to listen on (EventMesh's is 10205); 0 picks a free one (logged at start).")
@CAPTURE
@idle_timeout_option(120.0)
@click.option("--max-queued", type=click.IntRange(min=1), default=1000, show_default=True,
              help="Events one subscriber may have waiting; further ones are dropped and counted.")
@click.option("--reply-timeout", type=click.FloatRange(min=0, min_open=True), default=10.0, show_default=True,
              help="Longest wait, in seconds, for a subscriber's answer to a requestReply (or the event's ttl).")
@MAX_PENDING_PUSHES
@PUSH_TIMEOUT
@WEBHOOK_ALLOW
@MAX_SUBSCRIPTIONS
@click.option("--max-event-size", type=click.IntRange(min=1), default=4 << 20, show_default=True,
              help="Largest request message accepted, in bytes.")
@LOG_RATE
@LOG_LEVEL
@strict_option("eventmesh")
@click.pass_context
def grpc_serve(ctx, host, port, capture, idle_timeout, max_queued, reply_timeout, max_pending_pushes, push_timeout,
               webhook_allow, max_subscriptions, max_event_size, log_rate, log_level, strict):
    """Answer EventMesh gRPC clients like the runtime: publish, requestReply, batchPublish, the one-way calls,
    subscribe (webhook), subscribeStream, unsubscribe, heartbeat.

    A subscriber that sends nothing on its stream and no heartbeat for --idle-timeout seconds is expired
    (its stream ends with statuscode 30), and a connection without a call in progress for as long is closed.
    A webhook gets pushes only once it agreed in the abuse-protection handshake (or is named by
    --webhook-allow). Runs until Ctrl-C, then prints one JSON line of counters.
    """
    _need_grpc()
    from inlong_proto.endpoints.eventmesh_grpc_server import EventMeshGrpcServer

    setup_logging(log_level)
    server = EventMeshGrpcServer(host, port, capture=capture, idle_timeout=idle_timeout, max_queued=max_queued,
                                 reply_timeout=reply_timeout, push_timeout=push_timeout,
                                 max_pending_pushes=max_pending_pushes, max_event_size=max_event_size,
                                 log_rate=log_rate, webhook_allow=webhook_allow, max_subscriptions=max_subscriptions,
                                 strict=ctx.with_resource(strict_report("eventmesh", strict)))

    async def main():
        try:
            await server.serve_forever()
        except OSError as exc:
            log.error("%s", exc)
            sys.exit(1)

    run_until_stopped(main(), log)  # so a --capture file is written however it is stopped
    _echo_json(server.stats.to_dict())


@eventmesh.group("grpc-client")
@HOST
@click.option("--port", type=click.IntRange(1, 65535), required=True, help="Server port.")
@click.option("--topic", default="inlong-proto-demo", show_default=True, help="Topic to publish to / subscribe to.")
@click.option("--group", default="inlong-proto", show_default=True, help="Producer / consumer group.")
@click.option("--timeout", "call_timeout", type=click.FloatRange(min=0, min_open=True), default=10.0,
              show_default=True, help="Seconds to wait for the connection and for each answer.")
@CAPTURE
@LOG_LEVEL
@strict_option("eventmesh")
@click.pass_context
def grpc_client(ctx, host, port, topic, group, call_timeout, capture, log_level, strict):
    """Publish to, subscribe by stream at, or heartbeat an EventMesh gRPC runtime; print a JSON summary last.

    Exits 1 when a call failed or was refused, or a subscriber got fewer than --count events.
    """
    _need_grpc()
    setup_logging(log_level)
    ctx.obj = {"host": host, "port": port, "topic": topic, "group": group, "timeout": call_timeout,
               "capture": capture, "strict": ctx.with_resource(strict_report("eventmesh", strict))}


def _grpc_endpoint(options: dict):
    from inlong_proto.endpoints.eventmesh_grpc_client import EventMeshGrpcClient

    return EventMeshGrpcClient(options["host"], options["port"], group=options["group"], timeout=options["timeout"],
                               capture=options["capture"], strict=options["strict"])


@grpc_client.command("publish")
@click.option("--count", type=click.IntRange(min=0), default=None,
              help="Publish this many events (BODY-0, BODY-1, ...); without it, one per line of stdin.")
@click.option("--body", default="message", show_default=True, help="Prefix of the --count event data.")
@click.option("--batch", type=click.IntRange(min=0), default=0, show_default=True,
              help="Send the events by batchPublish, this many per batch (0: one publish each).")
@click.option("--one-way", is_flag=True, help="publishOneWay / batchPublishOneWay: no answer (the real runtime "
                                              "leaves these unimplemented).")
@click.option("--request-reply", is_flag=True, help="requestReply: each waits for a subscriber's reply (printed).")
@click.option("--content-type", default="text/plain", show_default=True, help="The events' datacontenttype.")
@click.option("--ttl", default="4000", show_default=True, help="The events' ttl in milliseconds.")
@click.pass_obj
def grpc_publish(options, count, body, batch, one_way, request_reply, content_type, ttl):
    """Send events, each (or each batch) waiting for its answer."""
    from inlong_proto.endpoints.eventmesh_grpc_client import EventMeshGrpcError, event_line

    if request_reply and (batch or one_way):
        raise click.UsageError("--request-reply goes with neither --batch nor --one-way")
    endpoint = _grpc_endpoint(options)
    topic = options["topic"]
    contents = (f"{body}-{i}" for i in range(count)) if count is not None else (
        line.rstrip("\r\n") for line in sys.stdin)

    async def send(events: list) -> None:
        try:
            if batch:
                await endpoint.batch_publish(events, one_way=one_way)
            elif one_way:
                await endpoint.publish_one_way(events[0])
            elif request_reply:
                reply = await endpoint.request_reply(events[0])
                _echo_json({"data": events[0].data, "reply": event_line(reply)})
            else:
                await endpoint.publish(events[0])
        except EventMeshGrpcError as exc:  # counted in the report
            log.error("%s", exc)

    async def main():
        try:
            await endpoint.connect()
            pending = []
            for content in contents:
                pending.append(endpoint.message(topic, content, content_type=content_type, ttl=ttl))
                if len(pending) >= max(batch, 1):
                    await send(pending)
                    pending = []
            if pending:
                await send(pending)
        except ConnectionError as exc:
            endpoint.report.error = str(exc)
            log.error("%s", exc)
        finally:
            await endpoint.close()

    _run_reporting(main, endpoint.report)


@grpc_client.command("subscribe")
@click.option("--count", type=click.IntRange(min=1), default=None,
              help="Stop after this many events (fewer by --timeout: exit status 1).")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Stop after this many seconds (default: at --count events, or Ctrl-C).")
@SUBSCRIPTION_MODE
@click.option("--type", "type_", type=click.Choice(["ASYNC", "SYNC"]), default="ASYNC", show_default=True,
              help="SYNC: every event is answered on the stream (a request-reply reply echoing its data).")
@click.option("--heartbeat-interval", type=click.FloatRange(min=0, min_open=True), default=30.0, show_default=True,
              help="Seconds between heartbeats.")
@click.pass_obj
def grpc_subscribe(options, count, timeout, mode, type_, heartbeat_interval):
    """Open a subscribeStream, print each event as one JSON line, unsubscribe at the end."""
    from inlong_proto.endpoints.eventmesh_grpc_client import EventMeshGrpcError, event_line

    endpoint = _grpc_endpoint(options)
    report = endpoint.report
    report.expected = count
    topic = options["topic"]

    async def main():
        heartbeats = None
        try:
            await endpoint.connect()
            stream = await endpoint.stream([(topic, mode, type_)])
            heartbeats = asyncio.create_task(endpoint.heartbeats([topic], heartbeat_interval))
            printed = 0
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(timeout):
                    while count is None or printed < count:
                        proto = await stream.receive()
                        _echo_json(event_line(proto))
                        printed += 1
                        if type_ == "SYNC":
                            await stream.reply(proto)
            await endpoint.unsubscribe([(topic, mode, type_)])
        except (EventMeshGrpcError, ConnectionError) as exc:
            report.error = str(exc)
            log.error("%s", exc)
        finally:
            if heartbeats is not None:
                heartbeats.cancel()
                await asyncio.gather(heartbeats, return_exceptions=True)
            await endpoint.close()

    _run_reporting(main, report)


@grpc_client.command("heartbeat")
@click.option("--client-type", type=click.Choice(["PUB", "SUB"]), default="PUB", show_default=True,
              help="PUB heartbeats name the producer group, SUB ones the consumer group (answered 30 when the "
                   "client has no such subscription).")
@click.pass_obj
def grpc_heartbeat(options, client_type):
    """Send one heartbeat and print the answer as one JSON line."""
    from inlong_proto.eventmesh.grpc import CLIENT_TYPE_PUB, CLIENT_TYPE_SUB
    from inlong_proto.endpoints.eventmesh_grpc_client import EventMeshGrpcError

    endpoint = _grpc_endpoint(options)

    async def main():
        try:
            await endpoint.connect()
            response = await endpoint.heartbeat(
                [options["topic"]], client_type=CLIENT_TYPE_PUB if client_type == "PUB" else CLIENT_TYPE_SUB)
            _echo_json({"statuscode": response.code, "responsemessage": response.message})
            if not response.ok:
                endpoint.report.error = f"heartbeat answered {response.code}"
        except (EventMeshGrpcError, ConnectionError) as exc:
            endpoint.report.error = str(exc)
            log.error("%s", exc)
        finally:
            await endpoint.close()

    _run_reporting(main, endpoint.report)
