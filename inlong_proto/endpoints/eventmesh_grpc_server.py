"""A reference EventMesh gRPC runtime: the three services of specs/eventmesh/eventmesh-service.proto on grpcio's
asyncio API, answering the way the runtime answers (docs/protocols/eventmesh.md, section 3).

* PublisherService: ``publish`` checks the event as the runtime does (grpc.publish_problems: identity
  attributes missing -> "6" EVENTMESH_PROTOCOL_HEADER_ERR, message attributes or data missing -> "7"
  EVENTMESH_PROTOCOL_BODY_ERR), delivers it and answers "0". ``batchPublish`` refuses the whole batch when one
  event is bad (naming its index), else delivers every event. ``requestReply`` hands the event to one stream
  subscriber of its topic (a SYNC one first) and answers with the CloudEvent that subscriber sends back on its
  stream (``submessagetype = subscription_reply``, matched by seqnum or uniqueid); "22"
  EVENTMESH_REQUEST_REPLY_MSG_ERR when nobody subscribes or no reply comes within the ttl (at most
  --reply-timeout). ``publishOneWay`` / ``batchPublishOneWay`` deliver the same way and answer Empty; the real
  runtime leaves these two UNIMPLEMENTED (a deliberate difference: the reference endpoint serves every RPC of
  the .proto). Bad one-way events are logged and dropped.
* ConsumerService: ``subscribe`` registers a webhook (attribute ``url``) for the items of its text_data;
  ``subscribeStream`` takes a subscription as its first message, acknowledges it with a copy carrying
  statuscode "0" (grpc.stream_response_event), then streams every event delivered to it. Later messages on
  the stream are more subscriptions (acknowledged the same way) or request-reply answers. ``unsubscribe``
  removes the topics from the group's subscribers of that client (same ip and pid; a given url limits it to
  that webhook).
* HeartbeatService: ``heartbeat`` checks clienttype (ce_integer 1/2) and the group; a SUB heartbeat refreshes
  the subscribers of that client and group and is answered "30" CLIENT_RESUBSCRIBE when none of its topics
  is subscribed any more (as after an idle expiry).

Delivery: every BROADCASTING subscriber of the topic, and one subscriber per consumer group for CLUSTERING
ones (in turn), streams and webhooks alike. A webhook gets the runtime's HTTP push (a form POST, code 105, or
106 for a SYNC item) from the HTTP runtime's pusher (http_server.WebhookPusher): one push at a time on a
keep-alive connection, its answer read as the runtime reads it, retried up to the spec's limit.

Defences: each stream subscriber queues at most ``max_queued`` events (default 1000), and at most
``max_pending_pushes`` webhook pushes wait in all; further ones are dropped and counted, so a subscriber that
does not read costs bounded memory. A webhook is pushed to only once it agreed in the CloudEvents
abuse-protection handshake (http_server's module doc; ``webhook_allow`` targets skip it). One client (an IP
address) holds at most ``max_subscriptions`` topic subscriptions over its webhooks and streams ("17"
beyond). A subscriber (stream or webhook) that sends nothing on its stream and no heartbeat for
``idle_timeout`` seconds is expired: a stream is ended with a "30" CLIENT_RESUBSCRIBE message. A connection
with no RPC in progress for ``idle_timeout`` seconds is closed by grpc core (``grpc.max_connection_idle_ms``,
which also closes silent and preface-only TCP connections, and ``grpc.server_handshake_timeout_ms``). HTTP/2
keepalive pings find dead connections. Log lines a peer causes go through endpoints.PeerLog (``log_rate``
per second per peer, and the process-wide LogBudget). On stop, streams get an "8" EVENTMESH_STOP message and
end.

``capture``: the server listens through a recording relay (capture.tap.Tap) on the requested port, with the
real gRPC port on a free loopback port behind it; stop() writes every relayed connection to that pcap file
(gRPC hides the bytes, so this is how its traffic is recorded). The relay keeps every byte in memory until
then: meant for demos and tests, not long runs.

``strict`` (a core.conformance Report): each rule of specs/eventmesh/conformance.yaml a client breaks is
reported; gRPC hides the bytes, so a finding's offset is the number of the offending message on its call (0
for a unary request). An unknown method and a request that is no protobuf message of its method are seen by
an interceptor (unary requests; a subscribeStream message that does not parse is grpcio's to refuse), and
answered as grpcio answers them (UNIMPLEMENTED "Method not found!", INTERNAL "Exception deserializing
request!"). Answers stay the same.
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import random
from collections import Counter, OrderedDict, deque
from dataclasses import dataclass, field

import grpc

from inlong_proto.endpoints.tap import Tap
from inlong_proto.endpoints.common import DEFAULT_LOG_RATE, LOG_BUDGET, LogBudget, PeerLog
from inlong_proto.core.conformance import Report
from inlong_proto.core.errors import EncodeError, ValidationError
from inlong_proto.generated.protobuf.eventmesh import eventmesh_cloudevents_pb2 as ce_pb2
from inlong_proto.generated.protobuf.eventmesh import eventmesh_service_pb2_grpc as service_grpc
from inlong_proto.eventmesh import grpc as meshgrpc
from inlong_proto.eventmesh.grpc import (CLIENT_TYPE_PUB, CLIENT_TYPE_SUB, SUBSCRIPTION_MODES, SUBSCRIPTION_REPLY,
                                         SUBSCRIPTION_TYPES, SUCCESS, Event, Key, from_cloud_event, publish_problems,
                                         response_event, stream_response_event)
from inlong_proto.endpoints.eventmesh_http_server import (DEFAULT_MAX_PENDING_PUSHES, DEFAULT_MAX_SUBSCRIPTIONS,
                                                          DEFAULT_VERDICT_TTL, DEFAULT_WEBHOOK_ORIGIN, Message,
                                                          WebhookPusher, split_url)

log = logging.getLogger(__name__)

DEFAULT_MAX_QUEUED = 1000  # events one subscriber may have waiting
DEFAULT_IDLE_TIMEOUT = 120.0
DEFAULT_REPLY_TIMEOUT = 10.0
DEFAULT_PUSH_TIMEOUT = 5.0
DEFAULT_RETRY_DELAY = 1.0  # seconds before a push the webhook asked to retry goes again
DEFAULT_MAX_EVENT_SIZE = 4 << 20  # grpc's own default receive limit
DEFAULT_MAX_CALLS = 1000  # concurrent RPCs (streams included)
MAX_PENDING_REPLIES = 10000
MAX_PEER_LOGS = 1024
HEADER_KEYS = (Key.IDC, Key.ENV, Key.IP, Key.PID, Key.SYS, Key.USERNAME, Key.PASSWD, Key.LANGUAGE)
HEADER_ERR, BODY_ERR = "6", "7"
SUBSCRIBE_ERR, UNSUBSCRIBE_ERR = "17", "18"
REQUEST_REPLY_ERR, RESUBSCRIBE, STOPPING, OVERLOAD = "22", "30", "8", "1"


class Refusal(Exception):
    """A request the runtime answers with a non-zero statuscode, and the rule of
    specs/eventmesh/conformance.yaml it broke, when one says so."""

    def __init__(self, code: str, message: str, rule: str | None = None):
        super().__init__(message)
        self.code, self.message, self.rule = code, message, rule


SPEC_VERSIONS = ("1.0", "0.3")


def cloud_event_problems(proto) -> list[str]:
    """The attributes the CloudEvents specification requires that a CloudEvent lacks."""
    problems = [f"{name} is empty" for name in ("id", "source", "spec_version", "type") if not getattr(proto, name)]
    if proto.spec_version and proto.spec_version not in SPEC_VERSIONS:
        problems.append(f"spec_version {proto.spec_version!r} is neither 1.0 nor 0.3")
    return problems


def header_problems(event: Event) -> list[str]:
    """What ServiceUtils.validateCloudEventAttributes rejects (statuscode "6")."""
    problems = [f"{key} is empty" for key in HEADER_KEYS if not event.ext(key)]
    if event.ext(Key.PID) and not event.ext(Key.PID).isdecimal():
        problems.append("pid is not numeric")
    return problems


def read_event(proto) -> Event:
    try:
        return from_cloud_event(proto)
    except (ValidationError, EncodeError) as exc:
        raise Refusal(BODY_ERR, str(exc)) from None


def check_header(event: Event) -> None:
    problems = header_problems(event)
    if problems:
        raise Refusal(HEADER_ERR, "; ".join(problems), "eventmesh.grpc-identity")


def check_publish(event: Event) -> None:
    check_header(event)
    problems = publish_problems(event)
    if problems:
        raise Refusal(BODY_ERR, "; ".join(problems), "eventmesh.grpc-publish")


def _json_array(event: Event, what: str, rule: str) -> list:
    data = event.data
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError:
            raise Refusal(BODY_ERR, f"{what} data is not UTF-8", rule) from None
    try:
        value = json.loads(data or "")
    except ValueError as exc:
        raise Refusal(BODY_ERR, f"{what} data is not JSON: {exc}", rule) from None
    if not isinstance(value, list):
        raise Refusal(BODY_ERR, f"{what} data is not a JSON array", rule)
    return value


def subscription_items(event: Event, *, need_items: bool = True) -> dict[str, tuple[str, str]]:
    """topic -> (mode, type) of a subscription's text_data (the runtime rejects UNRECOGNIZED enum names)."""
    rule = "eventmesh.grpc-subscription"
    if not event.ext(Key.CONSUMER_GROUP):
        raise Refusal(BODY_ERR, "consumergroup is empty", rule)
    items: dict[str, tuple[str, str]] = {}
    for number, item in enumerate(_json_array(event, "subscription", rule)):
        if not isinstance(item, dict) or not isinstance(item.get("topic"), str) or not item["topic"]:
            raise Refusal(BODY_ERR, f"subscription item {number} has no topic", rule)
        mode, kind = item.get("mode", "CLUSTERING"), item.get("type", "ASYNC")
        if mode not in SUBSCRIPTION_MODES or kind not in SUBSCRIPTION_TYPES:
            raise Refusal(BODY_ERR, f"subscription item {number}: mode {mode!r} / type {kind!r} not recognised", rule)
        items[item["topic"]] = (mode, kind)
    if need_items and not items:
        raise Refusal(BODY_ERR, "no subscription item", rule)
    return items


@dataclass(eq=False)
class Subscriber:
    """A subscribeStream call or a webhook: its topics and the events waiting for it (at most max_queued)."""

    kind: str  # "stream" or "webhook"
    group: str
    owner: str  # the IP address of the client that subscribed it (what max_subscriptions counts by)
    ip: str
    pid: str
    url: str
    peer: str
    max_queued: int
    last_seen: float
    items: dict[str, tuple[str, str]] = field(default_factory=dict)
    received: int = 1  # messages read on its stream (the subscription is message 0)
    queue: deque = field(default_factory=deque)  # ("event" | "ack" | "end", proto)
    wakeup: asyncio.Event = field(default_factory=asyncio.Event)
    queued: int = 0  # "event" entries in queue
    ended: str | None = None  # why a stream ends: "eof", "idle", "stopping", "error"

    def offer(self, proto) -> bool:
        if self.queued >= self.max_queued:
            return False
        self.queue.append(("event", proto))
        self.queued += 1
        self.wakeup.set()
        return True

    def control(self, kind: str, proto) -> None:
        self.queue.append((kind, proto))
        self.wakeup.set()

    def end(self, reason: str) -> None:
        if self.ended is None:
            self.ended = reason
        self.wakeup.set()


@dataclass
class GrpcServerStats:
    calls: Counter = field(default_factory=Counter)  # by RPC name
    answered: Counter = field(default_factory=Counter)  # by status name
    published: int = 0  # events accepted for delivery
    delivered: int = 0  # events written to streams
    dropped: int = 0  # events a full subscriber queue could not take
    unrouted: int = 0  # events nobody subscribed to
    replies: int = 0  # requestReply calls answered with a subscriber's reply
    pushed: int = 0  # webhook push requests written (retries included)
    push_ok: int = 0  # pushes the webhook completed with REMOTE_OK or OK
    push_failed: int = 0  # pushes answered FAIL, or given up after retries / 410 / 415
    push_retries: int = 0
    push_dropped: int = 0  # pushes not queued: max_pending_pushes were waiting
    handshakes: int = 0  # abuse-protection OPTIONS requests sent to webhooks
    webhooks_refused: int = 0  # handshakes a webhook refused (its pushes are dropped)
    push_refused: int = 0  # pushes not sent because their webhook refused the handshake
    subscriptions_refused: int = 0  # subscriptions over a client's max_subscriptions
    closed_idle: int = 0
    subscribers_peak: int = 0
    suppressed_lines: int = 0

    def to_dict(self) -> dict:
        return {"calls": dict(sorted(self.calls.items())), "answered": dict(sorted(self.answered.items())),
                "published": self.published, "delivered": self.delivered, "dropped": self.dropped,
                "unrouted": self.unrouted, "replies": self.replies, "pushed": self.pushed,
                "push_ok": self.push_ok, "push_failed": self.push_failed, "push_retries": self.push_retries,
                "push_dropped": self.push_dropped, "handshakes": self.handshakes,
                "webhooks_refused": self.webhooks_refused, "push_refused": self.push_refused,
                "subscriptions_refused": self.subscriptions_refused, "closed_idle": self.closed_idle,
                "subscribers_peak": self.subscribers_peak, "suppressed_lines": self.suppressed_lines}


def _target(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _client(peer: str) -> str:
    """The IP address of a grpc peer ("ipv4:127.0.0.1:5000", "ipv6:[::1]:5000")."""
    return peer.split(":", 1)[-1].rsplit(":", 1)[0]


class EventMeshGrpcServer:
    """``async with EventMeshGrpcServer(port=0) as server: ... server.port``; serve_forever() until stop().

    webhook_allow: "host:port" webhook targets pushed to without the handshake; log_budget: the LogBudget
    the peers' log lines also draw on (the process's unless given); strict: the conformance report of the
    rules a client breaks (module doc).
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, capture: str | os.PathLike | None = None,
                 max_queued: int = DEFAULT_MAX_QUEUED, idle_timeout: float | None = DEFAULT_IDLE_TIMEOUT,
                 reply_timeout: float = DEFAULT_REPLY_TIMEOUT, push_timeout: float = DEFAULT_PUSH_TIMEOUT,
                 max_event_size: int = DEFAULT_MAX_EVENT_SIZE, max_calls: int = DEFAULT_MAX_CALLS,
                 retry_delay: float = DEFAULT_RETRY_DELAY, max_pending_pushes: int = DEFAULT_MAX_PENDING_PUSHES,
                 log_rate: float | None = DEFAULT_LOG_RATE, webhook_allow=(),
                 webhook_origin: str = DEFAULT_WEBHOOK_ORIGIN, verdict_ttl: float = DEFAULT_VERDICT_TTL,
                 max_subscriptions: int = DEFAULT_MAX_SUBSCRIPTIONS, log_budget: LogBudget | None = None,
                 strict: Report | None = None):
        if max_queued < 1:
            raise ValueError("max_queued must be at least 1")
        self.strict = strict
        self.host, self.requested_port, self.capture = host, port, capture
        self.max_queued, self.idle_timeout = max_queued, idle_timeout
        self.reply_timeout, self.push_timeout = reply_timeout, push_timeout
        self.max_event_size, self.max_calls, self.log_rate = max_event_size, max_calls, log_rate
        self.max_subscriptions, self.log_budget = max_subscriptions, log_budget
        self.stats = GrpcServerStats()
        self.subscribers: list[Subscriber] = []
        self._turn: Counter = Counter()
        self._pending: dict[str, asyncio.Future] = {}  # seqnum / uniqueid -> the requestReply waiting
        self._logs: OrderedDict[str, PeerLog] = OrderedDict()
        self._server: grpc.aio.Server | None = None
        self._tap: Tap | None = None
        self._port: int | None = None
        self._sweeper: asyncio.Task | None = None
        self._stopping = False
        self._stopped = asyncio.Event()
        self._rng = random.Random()
        self.pusher = WebhookPusher(self.stats, host=host, log_rate=log_rate, push_timeout=push_timeout,
                                    retry_delay=retry_delay, max_pending=max_pending_pushes, rng=self._rng,
                                    allow=webhook_allow, origin=webhook_origin, verdict_ttl=verdict_ttl,
                                    log_budget=log_budget)

    # -- lifecycle -------------------------------------------------------------------------------

    @property
    def port(self) -> int:
        """The port clients use (the relay's when capturing)."""
        if self._port is None:
            raise RuntimeError("the server is not started")
        return self._port

    async def start(self) -> None:
        if self._server is not None:
            raise RuntimeError("the server is already started")
        options = [("grpc.max_receive_message_length", self.max_event_size),
                   ("grpc.keepalive_time_ms", 60000), ("grpc.keepalive_timeout_ms", 20000),
                   ("grpc.http2.min_ping_interval_without_data_ms", 5000),
                   ("grpc.so_reuseport", 0)]
        if self.idle_timeout is not None:  # closes silent, preface-only and call-less connections alike
            idle_ms = max(1, int(self.idle_timeout * 1000))
            options += [("grpc.max_connection_idle_ms", idle_ms), ("grpc.server_handshake_timeout_ms", idle_ms)]
        interceptors = [] if self.strict is None else [_StrictInterceptor(self)]
        server = grpc.aio.server(options=options, maximum_concurrent_rpcs=self.max_calls, interceptors=interceptors)
        service_grpc.add_PublisherServiceServicer_to_server(_Publisher(self), server)
        service_grpc.add_ConsumerServiceServicer_to_server(_Consumer(self), server)
        service_grpc.add_HeartbeatServiceServicer_to_server(_Heartbeat(self), server)
        inner_host = self.host if self.capture is None else "127.0.0.1"
        try:
            bound = server.add_insecure_port(_target(inner_host, 0 if self.capture else self.requested_port))
        except RuntimeError as exc:
            raise OSError(f"cannot listen on {_target(self.host, self.requested_port)}: {exc}") from None
        if not bound:
            raise OSError(f"cannot listen on {_target(self.host, self.requested_port)}")
        await server.start()
        self._server, self._stopping = server, False
        self._stopped.clear()
        if self.capture is not None:
            self._tap = Tap(self.host)
            try:
                self._port = await self._tap.relay(bound, inner_host, listen_port=self.requested_port)
            except BaseException:
                await server.stop(None)
                self._server = None
                raise
            log.info("listening on %s (recording to %s; gRPC itself on %s)", _target(self.host, self._port),
                     self.capture, _target(inner_host, bound))
        else:
            self._port = bound
            log.info("listening on %s", _target(self.host, bound))
        if self.idle_timeout is not None:
            self._sweeper = asyncio.create_task(self._sweep(), name="grpc idle sweeper")

    async def serve_forever(self) -> None:
        if self._server is None:
            await self.start()
        try:
            await self._stopped.wait()
        finally:
            if self._server is not None:
                await self.stop()

    async def stop(self, grace: float = 1.0) -> None:
        """End every stream with an EVENTMESH_STOP message, stop the server, write the capture."""
        server, self._server = self._server, None
        if server is None:
            return
        self._stopping = True
        if self._sweeper is not None:
            self._sweeper.cancel()
            await asyncio.gather(self._sweeper, return_exceptions=True)
        for sub in list(self.subscribers):
            sub.end("stopping")
        await self.pusher.close()
        for future in self._pending.values():
            if not future.done():
                future.set_exception(Refusal(STOPPING, "the server is stopping"))
        await server.stop(grace)
        if self._tap is not None:
            await self._tap.close()
            with open(self.capture, "wb") as handle:
                handle.write(self._tap.pcap())
            log.info("capture written to %s (%d connection(s))", self.capture, len(self._tap.connections))
            self._tap = None
        for peer_log in self._logs.values():
            peer_log.flush()
            self.stats.suppressed_lines += peer_log.total_suppressed
        self._logs.clear()
        (self.log_budget or LOG_BUDGET).flush()
        self._stopped.set()
        log.info("stopped")

    async def __aenter__(self):
        await self.start()
        return self

    async def __aexit__(self, *exc_info) -> None:
        await self.stop()

    # -- helpers ---------------------------------------------------------------------------------

    def begin(self, name: str, context) -> PeerLog:
        """Count a call of RPC `name`; the log of its peer."""
        self.stats.calls[name] += 1
        return self.peer_log(context)

    def peer_log(self, context) -> PeerLog:
        peer = context.peer() or "?"
        found = self._logs.get(peer)
        if found is None:
            found = self._logs[peer] = PeerLog(log, peer, self.log_rate, budget=self.log_budget)
            if len(self._logs) > MAX_PEER_LOGS:
                _, old = self._logs.popitem(last=False)
                old.flush()
                self.stats.suppressed_lines += old.total_suppressed
        else:
            self._logs.move_to_end(peer)
        return found

    def report(self, rule: str, context, got: str, number: int = 0) -> None:
        """A strict finding about message `number` of the call."""
        if self.strict is not None:
            self.strict(rule, peer=context.peer() or "?", offset=number, got=got)

    def refused(self, context, refusal: Refusal, number: int = 0) -> None:
        """Report the rule a refused request broke, when one says so."""
        if refusal.rule is not None:
            self.report(refusal.rule, context, f"statuscode {refusal.code}: {refusal.message}", number)

    def check_event(self, proto, context, number: int = 0) -> None:
        """Report a CloudEvent without the attributes the CloudEvents specification requires."""
        if self.strict is not None:
            problems = cloud_event_problems(proto)
            if problems:
                self.report("eventmesh.grpc-cloudevent", context, "; ".join(problems), number)

    def answer(self, code: str, message: str | None = None):
        self.stats.answered[meshgrpc.STATUS[code].name] += 1
        return response_event(code, message)

    def _now(self) -> float:
        return asyncio.get_running_loop().time()

    def _add(self, sub: Subscriber) -> None:
        self.subscribers.append(sub)
        self.stats.subscribers_peak = max(self.stats.subscribers_peak, len(self.subscribers))

    def _remove(self, sub: Subscriber) -> None:
        with contextlib.suppress(ValueError):
            self.subscribers.remove(sub)

    def _pick(self, topic: str, candidates: list[Subscriber]) -> list[Subscriber]:
        """Every BROADCASTING subscriber and one per group of the CLUSTERING ones, in turn."""
        chosen, groups = [], {}
        for sub in candidates:
            if sub.items[topic][0] == "BROADCASTING":
                chosen.append(sub)
            else:
                groups.setdefault(sub.group, []).append(sub)
        for group, members in groups.items():
            key = (topic, group)
            chosen.append(members[self._turn[key] % len(members)])
            self._turn[key] += 1
        if len(self._turn) > 10000:
            self._turn.clear()
        return chosen

    def deliver(self, proto, topic: str, plog: PeerLog) -> int:
        """Queue a published event to its subscribers; how many took it."""
        self.stats.published += 1
        candidates = [s for s in self.subscribers if topic in s.items and s.ended is None]
        if not candidates:
            self.stats.unrouted += 1
            plog.info("no subscriber for topic %s", topic)
            return 0
        taken = 0
        for sub in self._pick(topic, candidates):
            if sub.kind == "webhook":
                taken += self._push(sub, proto, topic, plog)
            elif sub.offer(proto):
                taken += 1
            else:
                self.stats.dropped += 1
                plog.warning("%s has %d events waiting, dropping one for topic %s", sub.peer, sub.queued, topic)
        return taken

    def admit(self, owner: str, sub: Subscriber | None, items: dict) -> None:
        """Refusal "17" when owner (a client IP) would hold over max_subscriptions topic subscriptions once
        items are added to sub (None: a new subscriber)."""
        held = sum(len(s.items) for s in self.subscribers if s.owner == owner)
        added = sum(1 for topic in items if sub is None or topic not in sub.items)
        if held + added > self.max_subscriptions:
            self.stats.subscriptions_refused += 1
            raise Refusal(SUBSCRIBE_ERR, f"client {owner} would hold over {self.max_subscriptions} subscriptions")

    def client_subscribers(self, event: Event, group: str) -> list[Subscriber]:
        ip, pid = event.ext(Key.IP), event.ext(Key.PID)
        return [s for s in self.subscribers if s.group == group and s.ip == ip and s.pid == pid]

    async def _sweep(self) -> None:
        every = max(0.05, min(self.idle_timeout / 4, 5.0))
        while True:
            await asyncio.sleep(every)
            limit = self._now() - self.idle_timeout
            for sub in list(self.subscribers):
                if sub.last_seen < limit and sub.ended is None:
                    if self.strict is not None and sub.kind == "stream":
                        self.strict("eventmesh.grpc-stream-heartbeat", peer=sub.peer, offset=sub.received,
                                    got=f"nothing on the stream and no heartbeat for {self.idle_timeout:g} s")
                    self.stats.closed_idle += 1
                    log.warning("%s (%s %s): nothing on its stream and no heartbeat for %gs, expiring it",
                                sub.peer, sub.kind, sub.group, self.idle_timeout)
                    if sub.kind == "webhook":
                        self._remove(sub)
                    sub.end("idle")

    # -- webhooks --------------------------------------------------------------------------------

    def _push(self, sub: Subscriber, proto, topic: str, plog: PeerLog) -> bool:
        """Queue the HTTP push of an event to a webhook subscriber; False when too many are waiting."""
        event = from_cloud_event(proto)
        content = event.data.decode("utf-8", "replace") if isinstance(event.data, bytes) else event.data or ""
        message = Message(topic=topic, content=content, bizseqno=event.ext(Key.SEQ_NUM),
                          uniqueid=event.ext(Key.UNIQUE_ID), ext_fields={})
        return self.pusher.push(sub.url, message, sub.items[topic][1] == "SYNC", plog)

    # -- request-reply ---------------------------------------------------------------------------

    async def request_reply(self, proto, event: Event, plog: PeerLog):
        topic = event.subject
        candidates = [s for s in self.subscribers if s.kind == "stream" and topic in s.items and s.ended is None]
        if not candidates:
            raise Refusal(REQUEST_REPLY_ERR, f"no stream subscriber for topic {topic}")
        sync = [s for s in candidates if s.items[topic][1] == "SYNC"]
        sub = (sync or candidates)[self._turn[("rr", topic)] % len(sync or candidates)]
        self._turn[("rr", topic)] += 1
        if len(self._pending) >= MAX_PENDING_REPLIES:
            raise Refusal(OVERLOAD, f"{len(self._pending)} request-reply calls waiting")
        keys = [k for k in (event.ext(Key.SEQ_NUM), event.ext(Key.UNIQUE_ID)) if k]
        if any(k in self._pending for k in keys):
            raise Refusal(REQUEST_REPLY_ERR, "a request with this seqnum / uniqueid is already waiting")
        future = asyncio.get_running_loop().create_future()
        for key in keys:
            self._pending[key] = future
        ttl = event.ext(Key.TTL)
        timeout = min(self.reply_timeout, int(ttl) / 1000) if ttl.isdecimal() and int(ttl) > 0 else self.reply_timeout
        try:
            self.stats.published += 1
            if not sub.offer(proto):
                self.stats.dropped += 1
                raise Refusal(OVERLOAD, f"the subscriber {sub.peer} has {sub.queued} events waiting")
            try:
                reply = await asyncio.wait_for(future, timeout)
            except TimeoutError:
                raise Refusal(REQUEST_REPLY_ERR, f"no reply within {timeout:g}s") from None
        finally:
            for key in keys:
                if self._pending.get(key) is future:
                    del self._pending[key]
        self.stats.replies += 1
        plog.debug("reply for %s", keys[0] if keys else "?")
        return reply

    def take_reply(self, proto, plog: PeerLog, context, number: int) -> None:
        attributes = proto.attributes
        for key in (Key.SEQ_NUM, Key.UNIQUE_ID):
            value = attributes[key].ce_string if key in attributes else ""
            future = self._pending.get(value) if value else None
            if future is not None and not future.done():
                answer = ce_pb2.CloudEvent()
                answer.CopyFrom(proto)
                del answer.attributes[Key.SUB_MESSAGE_TYPE]
                future.set_result(answer)
                return
        seqnum = attributes[Key.SEQ_NUM].ce_string if Key.SEQ_NUM in attributes else ""
        plog.info("a reply matches no waiting request (seqnum %r)", seqnum)
        self.report("eventmesh.grpc-reply", context, f"a subscription_reply with seqnum {seqnum!r}, which no "
                                                     f"requestReply waits for", number)


class _Unparsed:
    """A request message that is not the method's protobuf message (strict mode's lenient deserializer)."""

    def __init__(self, error: Exception):
        self.error = error


class _StrictInterceptor(grpc.aio.ServerInterceptor):
    """The calls strict mode checks before a servicer sees them: the method is one of the .proto's, each
    unary request parses, each CloudEvent has the attributes CloudEvents requires. Answers are grpcio's own."""

    def __init__(self, server: EventMeshGrpcServer):
        self.server = server

    async def intercept_service(self, continuation, handler_call_details):
        handler = await continuation(handler_call_details)
        method = handler_call_details.method
        if handler is None:
            return grpc.stream_stream_rpc_method_handler(self._unknown(method))
        if handler.request_streaming or handler.unary_unary is None:
            return handler
        parse = handler.request_deserializer

        def lenient(data: bytes):
            try:
                return parse(data)
            except Exception as exc:  # whatever the protobuf runtime raises for bytes it cannot parse
                return _Unparsed(exc)

        return handler._replace(request_deserializer=lenient, unary_unary=self._checked(handler.unary_unary))

    def _unknown(self, method: str):
        async def refuse(request_iterator, context):
            self.server.report("eventmesh.grpc-method", context, f"a call of {method}")
            await context.abort(grpc.StatusCode.UNIMPLEMENTED, "Method not found!")

        return refuse

    def _checked(self, behaviour):
        async def checked(request, context):
            if isinstance(request, _Unparsed):
                self.server.report("eventmesh.grpc-message", context, f"no protobuf message: {request.error}")
                await context.abort(grpc.StatusCode.INTERNAL, "Exception deserializing request!")
            for event in request.events if isinstance(request, ce_pb2.CloudEventBatch) else (request,):
                self.server.check_event(event, context)
            return await behaviour(request, context)

        return checked


# ---------------------------------------------------------------------------------------------- services

class _Publisher(service_grpc.PublisherServiceServicer):
    def __init__(self, server: EventMeshGrpcServer):
        self.server = server

    async def _publish_one(self, proto, plog: PeerLog) -> None:
        event = read_event(proto)
        check_publish(event)
        self.server.deliver(proto, event.subject, plog)

    async def publish(self, request, context):
        server, plog = self.server, self.server.begin("publish", context)
        try:
            await self._publish_one(request, plog)
        except Refusal as exc:
            server.refused(context, exc)
            plog.warning("publish refused (%s): %s", exc.code, exc.message)
            return server.answer(exc.code, exc.message)
        return server.answer(SUCCESS, f"publish to {request.attributes[Key.SUBJECT].ce_string} accepted")

    async def publishOneWay(self, request, context):
        server, plog = self.server, self.server.begin("publishOneWay", context)
        try:
            await self._publish_one(request, plog)
        except Refusal as exc:
            server.refused(context, exc)
            plog.warning("one-way event dropped (%s): %s", exc.code, exc.message)
        return _empty()

    def _check_batch(self, request) -> list[tuple[object, Event]]:
        if not request.events:
            raise Refusal(BODY_ERR, "the batch has no event")
        checked = []
        for number, proto in enumerate(request.events):
            try:
                event = read_event(proto)
                check_publish(event)
            except Refusal as exc:
                raise Refusal(exc.code, f"event {number}: {exc.message}", exc.rule) from None
            checked.append((proto, event))
        return checked

    async def batchPublish(self, request, context):
        server, plog = self.server, self.server.begin("batchPublish", context)
        try:
            checked = self._check_batch(request)
        except Refusal as exc:
            server.refused(context, exc)
            plog.warning("batch refused (%s): %s", exc.code, exc.message)
            return server.answer(exc.code, exc.message)
        for proto, event in checked:
            server.deliver(proto, event.subject, plog)
        return server.answer(SUCCESS, f"batch of {len(checked)} events accepted")

    async def batchPublishOneWay(self, request, context):
        server, plog = self.server, self.server.begin("batchPublishOneWay", context)
        try:
            checked = self._check_batch(request)
        except Refusal as exc:
            server.refused(context, exc)
            plog.warning("one-way batch dropped (%s): %s", exc.code, exc.message)
            return _empty()
        for proto, event in checked:
            server.deliver(proto, event.subject, plog)
        return _empty()

    async def requestReply(self, request, context):
        server, plog = self.server, self.server.begin("requestReply", context)
        try:
            event = read_event(request)
            check_publish(event)
            reply = await server.request_reply(request, event, plog)
        except Refusal as exc:
            server.refused(context, exc)
            plog.warning("requestReply failed (%s): %s", exc.code, exc.message)
            return server.answer(exc.code, exc.message)
        server.stats.answered["reply"] += 1
        return reply


def _empty():
    from google.protobuf import empty_pb2

    return empty_pb2.Empty()


class _Consumer(service_grpc.ConsumerServiceServicer):
    def __init__(self, server: EventMeshGrpcServer):
        self.server = server

    async def subscribe(self, request, context):
        server, plog = self.server, self.server.begin("subscribe", context)
        try:
            event = read_event(request)
            check_header(event)
            items = subscription_items(event)
            url = event.ext(Key.URL)
            if split_url(url) is None:
                raise Refusal(BODY_ERR, f"url {url!r} is not an http:// webhook", "eventmesh.grpc-subscription")
        except Refusal as exc:
            server.refused(context, exc)
            plog.warning("subscribe refused (%s): %s", exc.code, exc.message)
            return server.answer(exc.code, exc.message)
        group, owner = event.ext(Key.CONSUMER_GROUP), _client(context.peer() or "?")
        found = [s for s in server.subscribers if s.kind == "webhook" and s.group == group and s.url == url]
        sub = found[0] if found else None
        try:
            server.admit(owner, sub, items)
        except Refusal as exc:
            plog.warning("subscribe refused (%s): %s", exc.code, exc.message)
            return server.answer(exc.code, exc.message)
        if sub is None:
            sub = Subscriber("webhook", group, owner, event.ext(Key.IP), event.ext(Key.PID), url, url,
                             server.max_queued, server._now())
            server._add(sub)
        sub.items.update(items)
        sub.last_seen = server._now()
        plog.info("webhook %s of group %s subscribes to %s", url, group, ", ".join(items))
        return server.answer(SUCCESS, "subscribe success")

    async def unsubscribe(self, request, context):
        server, plog = self.server, self.server.begin("unsubscribe", context)
        try:
            event = read_event(request)
            check_header(event)
            items = subscription_items(event)
        except Refusal as exc:
            server.refused(context, exc)
            plog.warning("unsubscribe refused (%s): %s", exc.code, exc.message)
            return server.answer(exc.code, exc.message)
        url, group = event.ext(Key.URL), event.ext(Key.CONSUMER_GROUP)
        mine = [s for s in server.subscribers if s.group == group and s.url == url] if url else \
            server.client_subscribers(event, group)
        touched = 0
        for sub in mine:
            for topic in items:
                if sub.items.pop(topic, None) is not None:
                    touched += 1
            if sub.kind == "webhook" and not sub.items:
                server._remove(sub)
        if not touched:
            return server.answer(UNSUBSCRIBE_ERR, "no such subscription")
        plog.info("unsubscribed from %s", ", ".join(items))
        return server.answer(SUCCESS, "unsubscribe success")

    async def subscribeStream(self, request_iterator, context):
        server, plog = self.server, self.server.begin("subscribeStream", context)
        try:
            first = await asyncio.wait_for(context.read(), server.idle_timeout)
        except TimeoutError:
            server.stats.closed_idle += 1
            plog.always(logging.WARNING, "no subscription on the stream for %gs, ending it", server.idle_timeout)
            return
        if first is grpc.aio.EOF:
            return
        owner = _client(context.peer() or "?")
        server.check_event(first, context)
        try:
            event = read_event(first)
            check_header(event)
            items = subscription_items(event)
            server.admit(owner, None, items)
        except Refusal as exc:
            server.refused(context, exc)
            plog.warning("subscribeStream refused (%s): %s", exc.code, exc.message)
            server.stats.answered[meshgrpc.STATUS[exc.code].name] += 1
            await context.write(stream_response_event(first, exc.code, exc.message))
            return
        sub = Subscriber("stream", event.ext(Key.CONSUMER_GROUP), owner, event.ext(Key.IP), event.ext(Key.PID), "",
                         context.peer() or "?", server.max_queued, server._now(), items=dict(items))
        server.stats.answered["SUCCESS"] += 1
        sub.control("ack", stream_response_event(first, SUCCESS))
        server._add(sub)
        plog.always(logging.INFO, "stream of group %s subscribes to %s", sub.group, ", ".join(items))
        reader = asyncio.create_task(self._read_stream(context, sub, plog))
        try:
            while True:
                while sub.queue:
                    kind, proto = sub.queue.popleft()
                    if kind == "event":
                        sub.queued -= 1
                    await context.write(proto)
                    if kind == "event":
                        server.stats.delivered += 1
                if sub.ended is not None:
                    break
                sub.wakeup.clear()
                await sub.wakeup.wait()
            if sub.ended in ("idle", "stopping"):
                code = RESUBSCRIBE if sub.ended == "idle" else STOPPING
                server.stats.answered[meshgrpc.STATUS[code].name] += 1
                await context.write(stream_response_event(first, code, meshgrpc.STATUS[code].err_msg))
        finally:
            server._remove(sub)
            reader.cancel()
            await asyncio.gather(reader, return_exceptions=True)
            plog.always(logging.INFO, "stream of group %s ends (%s)", sub.group, sub.ended or "cancelled")

    async def _read_stream(self, context, sub: Subscriber, plog: PeerLog) -> None:
        server = self.server
        try:
            while True:
                proto = await context.read()
                if proto is grpc.aio.EOF:
                    sub.end("eof")
                    return
                number, sub.received = sub.received, sub.received + 1
                sub.last_seen = server._now()
                server.check_event(proto, context, number)
                kind = proto.attributes.get(Key.SUB_MESSAGE_TYPE)
                if kind is not None and kind.ce_string == SUBSCRIPTION_REPLY:
                    server.take_reply(proto, plog, context, number)
                    continue
                try:
                    more = subscription_items(read_event(proto))
                    server.admit(sub.owner, sub, more)
                except Refusal as exc:
                    server.refused(context, exc, number)
                    plog.warning("stream message refused (%s): %s", exc.code, exc.message)
                    server.stats.answered[meshgrpc.STATUS[exc.code].name] += 1
                    sub.control("ack", stream_response_event(proto, exc.code, exc.message))
                    continue
                sub.items.update(more)
                server.stats.answered["SUCCESS"] += 1
                sub.control("ack", stream_response_event(proto, SUCCESS))
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the call was cancelled or broke
            plog.info("stream read ends: %s", str(exc) or type(exc).__name__)
            sub.end("error")


class _Heartbeat(service_grpc.HeartbeatServiceServicer):
    def __init__(self, server: EventMeshGrpcServer):
        self.server = server

    async def heartbeat(self, request, context):
        server, plog = self.server, self.server.begin("heartbeat", context)
        try:
            event = read_event(request)
            check_header(event)
            rule = "eventmesh.grpc-heartbeat"
            client_type = event.extensions.get(Key.CLIENT_TYPE)
            if isinstance(client_type, bool) or client_type not in (CLIENT_TYPE_PUB, CLIENT_TYPE_SUB):
                raise Refusal(BODY_ERR, "clienttype must be ce_integer 1 (PUB) or 2 (SUB)", rule)
            group_key = Key.PRODUCER_GROUP if client_type == CLIENT_TYPE_PUB else Key.CONSUMER_GROUP
            if not event.ext(group_key):
                raise Refusal(BODY_ERR, f"{group_key} is empty", rule)
            topics = []
            for number, item in enumerate(_json_array(event, "heartbeat", rule)):
                if not isinstance(item, dict) or not isinstance(item.get("topic"), str) or not item["topic"]:
                    raise Refusal(BODY_ERR, f"heartbeat item {number} has no topic", rule)
                topics.append(item["topic"])
        except Refusal as exc:
            server.refused(context, exc)
            plog.warning("heartbeat refused (%s): %s", exc.code, exc.message)
            return server.answer(exc.code, exc.message)
        if client_type == CLIENT_TYPE_SUB:
            mine = server.client_subscribers(event, event.ext(Key.CONSUMER_GROUP))
            now = server._now()
            live = [s for s in mine if s.ended is None and any(t in s.items for t in topics)]
            for sub in live:
                sub.last_seen = now
            if topics and not live:
                return server.answer(RESUBSCRIBE, f"no subscription of group {event.ext(Key.CONSUMER_GROUP)} "
                                                  f"to {', '.join(topics)}")
        plog.debug("heartbeat of %s", event.ext(group_key))
        return server.answer(SUCCESS, "heartbeat success")


__all__ = ["DEFAULT_MAX_QUEUED", "EventMeshGrpcServer", "GrpcServerStats", "Refusal", "Subscriber",
           "header_problems", "subscription_items"]
