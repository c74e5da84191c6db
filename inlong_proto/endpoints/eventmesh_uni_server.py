"""A minimal reference endpoint of the new runtime's uni HTTP API (specs/eventmesh/uni_http.yaml), in memory.

Served as UniHttpServer answers them (every handler checks the route table's method first, 405):
publish (202; 413 over MAX_MESSAGE_SIZE by Content-Length, 400 no topic or an invalid CloudEvent, 429 a topic
over --rate-limit), publish-batch (202, 400 not an array, 500 an invalid element, 429), subscribe, unsubscribe,
ack (200/404), poll (a long poll of timeoutMs), the SSE stream, request/reply (the request is published with
an `emcorrelationid` extension, "req-N" when it has none, and its answer is the reply's CloudEvent, 504 on a
timeout), and the lite routes on an in-memory lite-capable storage (create, publish, poll, publish-bytes, whose
body is one EventMeshFrame, poll-bytes, base64 frames). The agent and session control plane answers 503, as
the runtime does without a registrar or matchmaker (/session/recommend: 200, no advertised instance URL); the
legacy /eventmesh/* bridge is not configured, so those paths get the JDK server's 404, as does an unknown path.
A max or timeoutMs that is not a number, where the runtime parses it outside its try (poll, request), gets the
JDK server's own answer to a handler's NumberFormatException: 400 text/html, then the connection closes.

Every accepted event is kept as EventMeshFrame bytes in one topic log, in arrival order (`log`: topic and
frame; a lite topic is logged as "<topic>/<lite>"), which `dump_frames` writes as concatenated frames (a dump
`-p eventmesh-frame` reads). Every request is read by the spec-driven decoder (eventmesh.http / eventmesh.uni).
"""
from __future__ import annotations

import asyncio
import base64
import dataclasses
import itertools
import json
import logging
import re
import time
from collections import defaultdict, deque

from inlong_proto.core.errors import DecodeError, EncodeError
from inlong_proto.core.frames import decode, encode
from inlong_proto.eventmesh import convert, uni
from inlong_proto.endpoints.eventmesh_http_server import Refused, RequestReader, read_request, wants_close

log = logging.getLogger("inlong_proto.eventmesh.uni_server")
NOT_FOUND = b"<h1>404 Not Found</h1>No context found for request"  # the JDK HttpServer's own answer
ROUTES = {route["name"]: route for route in uni.ROUTES}
CORRELATION_EXTENSION = "emcorrelationid"  # UniIngressService.EXT_CORRELATION_ID
MAX_WAIT_MS = 60_000  # the longest a poll or a request is held here, whatever timeoutMs says
JSON_TYPE, CLOUDEVENT_TYPE = b"application/json", b"application/cloudevents+json"


class _Rejected(Exception):
    """A handler threw NumberFormatException where the runtime does not catch it: the JDK server's reject()."""

    ANSWER = b"<h1>400 Bad Request</h1>NumberFormatException thrown"


def _json(status: int, value) -> tuple[int, bytes, bytes]:
    return status, JSON_TYPE, json.dumps(value, separators=(",", ":")).encode("utf-8")


def _error(status: int, text: str):
    return _json(status, {"error": text})


def _status(status: int, text: str):
    return _json(status, {"status": text})


def _java_int(text: str) -> int:
    """Integer.parseInt / Long.parseLong: an optional sign and ASCII digits, nothing else (ValueError)."""
    if not re.fullmatch(r"[+-]?[0-9]+", text):
        raise ValueError(f"{text!r} is not a number")
    return int(text)


def _number(request, name: str) -> int:
    """A query parameter as the runtime's intParam/longParam read it (outside its try), the route's default
    when absent."""
    query = request.fields.get("query", {})
    default = next(p["default"] for p in ROUTES[request.route]["query"] if p["name"] == name)
    try:
        return _java_int(query.get(name, default))
    except ValueError:
        raise _Rejected(f"{name} {query.get(name)!r} is not a number") from None


def event_json(frame_bytes: bytes) -> dict:
    """A stored EVENT frame as structured CloudEvent JSON (the egress adaptor's toCloudEventsJson)."""
    event = convert.event_from_frame(decode(frame_bytes, "eventmesh-frame").message)
    out = {"specversion": event.spec_version, "id": event.id, "source": event.source, "type": event.type}
    if event.data_content_type:
        out["datacontenttype"] = event.data_content_type
    if event.subject:
        out["subject"] = event.subject
    out.update({k: v for k, v in event.extensions.items() if isinstance(v, str)})
    if isinstance(event.data, str):
        try:
            out["data"] = json.loads(event.data) if "json" in event.data_content_type else event.data
        except ValueError:
            out["data"] = event.data
    elif isinstance(event.data, bytes):
        out["data_base64"] = base64.b64encode(event.data).decode("ascii")
    return out


def _frame_of(cloud_event, extensions: dict | None = None) -> bytes:
    """A typed CloudEvent body as the EVENT frame the cloudevents FrameAdaptor makes of it."""
    event = convert.from_cloud_event_json(cloud_event)
    if extensions:
        event = dataclasses.replace(event, extensions={**event.extensions, **extensions})
    return encode(convert.frame_of_event(event))


class UniServer:
    """In-memory uni runtime: topics -> subscribers (clientId), a delivery buffer per client, lite queues, the
    requests waiting for a reply, and the topic log of every accepted event."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, rate_limit: float | None = None,
                 max_body: int = 4 << 20):
        self.host, self.requested_port = host, port
        self.rate_limit = rate_limit  # events per second and topic (token bucket of one second), None: none
        self.max_body = max_body
        self.subscriptions: dict[str, set[str]] = defaultdict(set)  # topic -> client ids
        self.buffers: dict[str, deque] = defaultdict(deque)  # client id -> (deliveryId, frame bytes)
        self.pending: dict[str, tuple[str, bytes]] = {}  # deliveryId -> (client, frame) until acked
        self.lite: dict[tuple[str, str], deque] = defaultdict(deque)  # (topic, lite) -> frame bytes
        self.log: list[tuple[str, bytes]] = []  # (topic, EventMeshFrame bytes) of every accepted event
        self.stats = {"requests": 0, "published": 0, "delivered": 0, "acked": 0, "replied": 0, "refused": 0}
        self._ids = itertools.count(1)
        self._request_ids = itertools.count(1)
        self._replies: dict[str, asyncio.Future] = {}  # correlation id -> the waiting request's future
        self._buckets: dict[str, tuple[float, float]] = {}
        self._arrivals: dict[str, asyncio.Event] = defaultdict(asyncio.Event)  # client or lite queue -> woken
        self._stopping = False
        self._server: asyncio.Server | None = None
        self._handlers = {
            "UNI_PUBLISH": self._publish, "UNI_PUBLISH_BATCH": self._publish_batch, "UNI_SUBSCRIBE": self._subscribe,
            "UNI_UNSUBSCRIBE": self._unsubscribe, "UNI_ACK": self._ack, "UNI_POLL": self._poll,
            "UNI_STREAM": lambda *_: _error(400, "missing clientId"),  # with one, _handle streams
            "UNI_REQUEST": self._request, "UNI_REPLY": self._reply, "UNI_LITE_CREATE": self._lite_create,
            "UNI_LITE_PUBLISH": self._lite_publish, "UNI_LITE_POLL": self._lite_poll,
            "UNI_LITE_PUBLISH_BYTES": self._lite_publish_bytes, "UNI_LITE_POLL_BYTES": self._lite_poll_bytes}

    @property
    def port(self) -> int:
        return self._server.sockets[0].getsockname()[1]

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._handle, self.host, self.requested_port)
        log.info("uni HTTP ingress on %s:%d", self.host, self.port)

    async def stop(self) -> None:
        if self._server is not None:
            self._stopping = True
            for arrival in self._arrivals.values():
                arrival.set()
            self._server.close()
            await self._server.wait_closed()
            self._server = None

    async def serve_forever(self) -> None:
        await self.start()
        try:
            await self._server.serve_forever()
        finally:
            await self.stop()

    def dump_frames(self, path) -> int:
        """Write the topic log's frames, concatenated in arrival order, to path; the number written."""
        with open(path, "wb") as handle:
            for _, frame in self.log:
                handle.write(frame)
        return len(self.log)

    # ---- one connection
    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        requests = RequestReader(self.max_body)
        try:
            while True:
                data = await reader.read(65536)
                try:
                    raws = requests.feed(data)
                except Refused as exc:
                    await self._answer(writer, *_error(exc.status, str(exc)), close=True)
                    return
                for raw in raws:
                    request = read_request(raw)
                    self.stats["requests"] += 1
                    if request.route == "UNI_STREAM" and request.method == "GET" and "clientId" in \
                            request.fields.get("query", {}):
                        await self._stream(reader, writer, request.fields["query"]["clientId"])
                        return
                    try:
                        answer = await self._dispatch(request)
                    except _Rejected as exc:
                        log.info("%s %s: %s", request.method, request.target, exc)
                        self.stats["refused"] += 1
                        writer.write(b"HTTP/1.1 400 Bad Request\r\nContent-Length: %d\r\nContent-Type: text/html"
                                     b"\r\n\r\n" % len(_Rejected.ANSWER) + _Rejected.ANSWER)
                        await writer.drain()
                        return
                    await self._answer(writer, *answer, close=wants_close(request))
                    if wants_close(request):
                        return
                if not data or requests.closed:
                    return
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    async def _answer(self, writer, status: int, content_type: bytes, body: bytes, *, close: bool = False) -> None:
        if status >= 400:
            self.stats["refused"] += 1
        head = [b"HTTP/1.1 %d %s" % (status, _REASONS.get(status, b"Status")), b"Date: " + _date(),
                b"Content-type: " + content_type, b"Content-length: %d" % len(body)]
        if close:
            head.append(b"Connection: close")
        writer.write(b"\r\n".join(head) + b"\r\n\r\n" + body)
        await writer.drain()

    # ---- the routes
    async def _dispatch(self, request):
        if request.kind != "uni":
            return 404, b"text/html", NOT_FOUND
        route = ROUTES[request.route]
        if request.method != route["method"]:
            return _error(405, "method not allowed")
        handler = self._handlers.get(request.route)
        if handler is None:  # the agent and session plane: no registrar, no matchmaker here
            if request.route == "UNI_SESSION_RECOMMEND":
                return _json(200, {"instanceUrl": ""})
            return _error(503, route["unconfigured"])
        query, body = request.fields.get("query", {}), request.fields.get("body")
        answer = handler(request, query, body)
        return await answer if asyncio.iscoroutine(answer) else answer

    def _publish(self, request, query, body):
        length = next((v for k, v in request.headers if k.lower() == "content-length"), None)
        limit = uni.LIMITS["max-message-size"]
        if length is not None and length.strip().isdecimal() and int(length) > limit:
            return _error(413, f"payload too large (max {limit} bytes)")
        topic = query.get("topic")
        if topic is None:
            return _error(400, "missing query param 'topic'")
        if body is None or any("CloudEvent" in w for w in request.warnings):
            return _error(400, "invalid CloudEvent")
        if not self._store(topic, _frame_of(body)):
            return _error(429, f"rate limited: {topic}")
        return _status(202, "accepted")

    def _publish_batch(self, request, query, body):
        topic = query.get("topic")
        if topic is None:
            return _error(400, "missing query param 'topic'")
        if any(w.startswith("the body is not JSON") for w in request.warnings):
            return _error(500, "batch publish failed: the body is not JSON")
        if not isinstance(body, list):
            return _error(400, "expected a CloudEvent JSON array")
        if any(event is None for event in body):
            return _error(500, "batch publish failed: invalid CloudEvent")
        stored = [self._store(topic, _frame_of(event)) for event in body]  # each takes its own token
        if not all(stored):
            return _error(429, f"rate limited: {topic}")
        return _status(202, "accepted")

    def _subscribe(self, request, query, body):
        body = body if isinstance(body, dict) else {}
        if not all(isinstance(body.get(k), str) for k in ("clientId", "topic", "mode")):
            return _error(400, "missing clientId/topic/mode")
        self.subscriptions[body["topic"]].add(body["clientId"])
        return _json(200, {"subscriptionId": f"{body['topic']}:{body['clientId']}", "instanceUrl": ""})

    def _unsubscribe(self, request, query, body):
        body = body if isinstance(body, dict) else {}
        client = body.get("clientId")
        if not isinstance(client, str):
            return _error(400, "missing clientId")
        topics = [body["topic"]] if isinstance(body.get("topic"), str) else list(self.subscriptions)
        removed = any(client in self.subscriptions[t] for t in topics)
        for topic in topics:
            self.subscriptions[topic].discard(client)
        return _json(200, {"removed": removed})

    def _ack(self, request, query, body):
        delivery = body.get("deliveryId") if isinstance(body, dict) else None
        if not isinstance(delivery, str):
            return _error(400, "missing deliveryId")
        if self.pending.pop(delivery, None) is None:
            return _error(404, "unknown deliveryId")
        self.stats["acked"] += 1
        return _status(200, "acked")

    async def _poll(self, request, query, body):
        client = query.get("clientId")
        if client is None:
            return _error(400, "missing clientId")
        most, wait_ms = _number(request, "max"), _number(request, "timeoutMs")
        await self._wait(client, self.buffers[client], wait_ms)
        out = []
        while self.buffers[client] and len(out) < most:
            delivery, frame = self.buffers[client].popleft()
            out.append({"deliveryId": delivery, "event": event_json(frame)})
            self.stats["delivered"] += 1
        return _json(200, out)

    async def _request(self, request, query, body):
        topic, wait_ms = query.get("topic"), _number(request, "timeoutMs")
        if body is None or any("CloudEvent" in w for w in request.warnings) or topic is None:
            return _error(504, "request timeout/error: " + ("no topic" if body is not None else "invalid CloudEvent"))
        extensions = body.extra if isinstance(body.extra, dict) else {}
        correlation = extensions.get(CORRELATION_EXTENSION)
        correlation = str(correlation) if correlation is not None else f"req-{next(self._request_ids)}"
        future = asyncio.get_running_loop().create_future()
        self._replies[correlation] = future
        if not self._store(topic, _frame_of(body, {CORRELATION_EXTENSION: correlation})):
            self._replies.pop(correlation, None)
            return _error(504, f"request timeout/error: rate limited: {topic}")
        try:
            reply = await asyncio.wait_for(future, min(wait_ms, MAX_WAIT_MS) / 1000)
        except asyncio.TimeoutError:
            self._replies.pop(correlation, None)
            return _error(504, f"request timeout/error: request-reply timed out: {correlation}")
        return 200, CLOUDEVENT_TYPE, json.dumps(event_json(reply), separators=(",", ":")).encode("utf-8")

    def _reply(self, request, query, body):
        body = body if isinstance(body, dict) else {}
        event = body.get("event")
        if event is None or any("CloudEvent" in w for w in request.warnings):
            return _error(500, "reply error: invalid CloudEvent")
        future = self._replies.pop(str(body.get("correlationId")), None)
        if future is None or future.done():
            return _status(404, "ok")
        future.set_result(_frame_of(event))
        self.stats["replied"] += 1
        return _status(200, "ok")

    def _lite_queue(self, query):
        if query.get("topic") is None or query.get("lite") is None:
            return None
        return query["topic"], query["lite"]

    def _lite_create(self, request, query, body):
        queue = self._lite_queue(query)
        if queue is None:
            return _error(400, "missing query param 'topic' and/or 'lite'")
        try:
            _java_int(query.get("queueCount", "4"))
        except ValueError:
            return _error(500, "create lite topic failed: invalid queueCount")
        self.lite.setdefault(queue, deque())
        return _status(200, "created")

    def _lite_publish(self, request, query, body):
        queue = self._lite_queue(query)
        if queue is None:
            return _error(400, "missing query param 'topic' and/or 'lite'")
        if body is None or any("CloudEvent" in w for w in request.warnings):
            return _error(500, "lite publish failed: invalid CloudEvent")
        self._store_lite(queue, _frame_of(body))
        return _status(202, "accepted")

    def _lite_publish_bytes(self, request, query, body):
        """The body is kept as sent: it decoded as one EventMeshFrame, which upstream re-encodes to the same
        bytes (a frame naming an attribute twice aside)."""
        queue = self._lite_queue(query)
        if queue is None:
            return _error(400, "missing query param 'topic' and/or 'lite'")
        if not request.body:
            return _error(400, "empty body")
        if body is None:
            return _error(500, "lite publish-bytes failed: not an EventMeshFrame")
        self._store_lite(queue, request.body)
        return _status(202, "accepted")

    async def _lite_poll(self, request, query, body):
        return await self._drain_lite(query, "lite poll", event_json)

    async def _lite_poll_bytes(self, request, query, body):
        return await self._drain_lite(query, "lite poll-bytes", lambda f: base64.b64encode(f).decode("ascii"))

    async def _drain_lite(self, query, what: str, render):
        queue = self._lite_queue(query)
        if queue is None:
            return _error(400, "missing query param 'topic' and/or 'lite'")
        try:
            most, wait_ms = _java_int(query.get("max", "100")), _java_int(query.get("timeoutMs", "1000"))
        except ValueError:
            return _error(400, "invalid max/timeoutMs parameter")
        frames = self.lite[queue]
        await self._wait(queue, frames, wait_ms)
        taken = [frames.popleft() for _ in range(min(most, len(frames)))]
        try:
            return _json(200, [render(frame) for frame in taken])
        except (DecodeError, EncodeError) as exc:  # a STREAM_* frame has no CloudEvent (toCloudEvent throws)
            return _error(500, f"{what} failed: {exc}")

    # ---- storage
    def _store(self, topic: str, frame: bytes) -> bool:
        """Log one event of topic and buffer it for each subscriber; False: the topic's rate refused it."""
        if not self._take(topic):
            return False
        self.log.append((topic, frame))
        self.stats["published"] += 1
        for client in sorted(self.subscriptions.get(topic, ())):
            delivery = f"d-{next(self._ids)}"
            self.buffers[client].append((delivery, frame))
            self.pending[delivery] = (client, frame)
            self._arrivals[client].set()
        return True

    def _store_lite(self, queue: tuple[str, str], frame: bytes) -> None:
        self.log.append(("/".join(queue), frame))
        self.stats["published"] += 1
        self.lite[queue].append(frame)
        self._arrivals[queue].set()

    async def _wait(self, key, items, wait_ms: int) -> None:
        """A long poll: until items has something, timeoutMs passes or the server stops."""
        arrival = self._arrivals[key]
        if items or wait_ms <= 0 or self._stopping:
            return
        arrival.clear()
        try:
            await asyncio.wait_for(arrival.wait(), min(wait_ms, MAX_WAIT_MS) / 1000)
        except asyncio.TimeoutError:
            pass

    def _take(self, topic: str) -> bool:
        if self.rate_limit is None:
            return True
        now = time.monotonic()
        tokens, then = self._buckets.get(topic, (self.rate_limit, now))
        tokens = min(self.rate_limit, tokens + (now - then) * self.rate_limit)
        if tokens < 1:
            self._buckets[topic] = (tokens, now)
            return False
        self._buckets[topic] = (tokens - 1, now)
        return True

    async def _stream(self, reader, writer, client: str) -> None:
        """GET /events/stream: chunked text/event-stream, one `data:` line per delivery (SseConnection), until
        the client ends its side or the server stops; then the last chunk ends the answer (upstream's loop runs
        until a write fails, so its streams end cut)."""
        writer.write(b"HTTP/1.1 200 OK\r\nDate: " + _date() + b"\r\nContent-type: text/event-stream\r\n"
                     b"Cache-control: no-cache\r\nTransfer-encoding: chunked\r\n\r\n")
        await writer.drain()
        gone = asyncio.ensure_future(reader.read(1))  # the client sends nothing more: any read ends the stream
        arrival = self._arrivals[client]
        try:
            while not self._stopping and not gone.done():
                while self.buffers[client]:
                    delivery, frame = self.buffers[client].popleft()
                    line = json.dumps({"deliveryId": delivery, "event": event_json(frame)}, separators=(",", ":"))
                    data = ("data: " + line + "\n\n").encode("utf-8")
                    writer.write(b"%x\r\n" % len(data) + data + b"\r\n")
                    self.stats["delivered"] += 1
                await writer.drain()
                arrival.clear()
                await asyncio.wait([gone, asyncio.ensure_future(arrival.wait())], return_when=asyncio.FIRST_COMPLETED)
            writer.write(b"0\r\n\r\n")
            await writer.drain()
        finally:
            gone.cancel()

def _date() -> bytes:
    return time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime()).encode()


_REASONS = {200: b"OK", 201: b"Created", 202: b"Accepted", 400: b"Bad Request", 404: b"Not Found",
            405: b"Method Not Allowed", 413: b"Request Entity Too Large", 429: b"Too Many Requests",
            500: b"Internal Server Error", 501: b"Not Implemented", 503: b"Service Unavailable",
            504: b"Gateway Timeout"}
