"""A minimal reference endpoint of the new runtime's uni HTTP API (specs/eventmesh/uni_http.yaml): publish,
subscribe, unsubscribe, ack, poll and the SSE stream, in memory, answering as UniHttpServer does (405 wrong
method, 400 missing parameters or an invalid CloudEvent, 413 a publish over 1 MiB by Content-Length, 429 a topic
over its rate, 202/200/404). Published events are kept as EventMeshFrame bytes, as the runtime stores them.
The other routes answer 501 (they need lite-capable storage or an agent plane); an unknown path gets the JDK
server's 404. Every request is read by the spec-driven decoder (eventmesh.http / eventmesh.uni).
"""
from __future__ import annotations

import asyncio
import itertools
import json
import logging
import time
from collections import defaultdict, deque

from inlong_proto.core.frames import decode, encode
from inlong_proto.eventmesh import convert
from inlong_proto.eventmesh.uni import LIMITS
from inlong_proto.endpoints.eventmesh_http_server import Refused, RequestReader, read_request, wants_close

log = logging.getLogger("inlong_proto.eventmesh.uni_server")
NOT_FOUND = b"<h1>404 Not Found</h1>No context found for request"  # the JDK HttpServer's own answer


def _json(status: int, value) -> tuple[int, bytes, bytes]:
    return status, b"application/json", json.dumps(value, separators=(",", ":")).encode("utf-8")


def _error(status: int, text: str):
    return _json(status, {"error": text})


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
        import base64

        out["data_base64"] = base64.b64encode(event.data).decode("ascii")
    return out


class UniServer:
    """In-memory uni runtime: topics -> subscribers (clientId), a delivery buffer per client."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, rate_limit: float | None = None,
                 max_body: int = 4 << 20):
        self.host, self.requested_port = host, port
        self.rate_limit = rate_limit  # events per second and topic (token bucket of one second), None: none
        self.max_body = max_body
        self.subscriptions: dict[str, set[str]] = defaultdict(set)  # topic -> client ids
        self.buffers: dict[str, deque] = defaultdict(deque)  # client id -> (deliveryId, frame bytes)
        self.pending: dict[str, tuple[str, bytes]] = {}  # deliveryId -> (client, frame) until acked
        self.stored: list[tuple[str, bytes]] = []  # (topic, EventMeshFrame bytes) of every accepted event
        self.stats = {"requests": 0, "published": 0, "delivered": 0, "acked": 0, "refused": 0}
        self._ids = itertools.count(1)
        self._buckets: dict[str, tuple[float, float]] = {}
        self._wake = asyncio.Event()
        self._server: asyncio.Server | None = None

    @property
    def port(self) -> int:
        return self._server.sockets[0].getsockname()[1]

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._handle, self.host, self.requested_port)
        log.info("uni HTTP ingress on %s:%d", self.host, self.port)

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            self._wake.set()
            await self._server.wait_closed()
            self._server = None

    async def serve_forever(self) -> None:
        await self.start()
        try:
            await self._server.serve_forever()
        finally:
            await self.stop()

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
                        await self._stream(writer, request.fields["query"]["clientId"])
                        return
                    await self._answer(writer, *self._dispatch(request), close=wants_close(request))
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
        head = [b"HTTP/1.1 %d %s" % (status, _REASONS.get(status, b"Status")),
                b"Date: " + time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime()).encode(),
                b"Content-type: " + content_type, b"Content-length: %d" % len(body)]
        if close:
            head.append(b"Connection: close")
        writer.write(b"\r\n".join(head) + b"\r\n\r\n" + body)
        await writer.drain()

    # ---- the routes
    def _dispatch(self, request):
        if request.kind != "uni":
            return 404, b"text/html", NOT_FOUND
        name, method = request.route, request.method
        query, body = request.fields.get("query", {}), request.fields.get("body")
        expected = {"UNI_POLL": "GET", "UNI_STREAM": "GET"}.get(name, "POST")
        if method != expected:
            return _error(405, "method not allowed")
        if name == "UNI_PUBLISH":
            return self._publish(request, query, body)
        if name == "UNI_SUBSCRIBE":
            body = body if isinstance(body, dict) else {}
            if not all(isinstance(body.get(k), str) for k in ("clientId", "topic", "mode")):
                return _error(400, "missing clientId/topic/mode")
            self.subscriptions[body["topic"]].add(body["clientId"])
            return _json(200, {"subscriptionId": f"{body['topic']}:{body['clientId']}", "instanceUrl": ""})
        if name == "UNI_UNSUBSCRIBE":
            body = body if isinstance(body, dict) else {}
            client = body.get("clientId")
            if not isinstance(client, str):
                return _error(400, "missing clientId")
            topics = [body["topic"]] if isinstance(body.get("topic"), str) else list(self.subscriptions)
            removed = any(client in self.subscriptions[t] for t in topics)
            for topic in topics:
                self.subscriptions[topic].discard(client)
            return _json(200, {"removed": removed})
        if name == "UNI_ACK":
            delivery = body.get("deliveryId") if isinstance(body, dict) else None
            if not isinstance(delivery, str):
                return _error(400, "missing deliveryId")
            if self.pending.pop(delivery, None) is None:
                return _error(404, "unknown deliveryId")
            self.stats["acked"] += 1
            return _json(200, {"status": "acked"})
        if name == "UNI_POLL":
            client = query.get("clientId")
            if client is None:
                return _error(400, "missing clientId")
            try:
                most = int(query.get("max", "100"))
            except ValueError:
                return _error(500, "invalid max")
            out = []
            while self.buffers[client] and len(out) < most:
                delivery, frame = self.buffers[client].popleft()
                out.append({"deliveryId": delivery, "event": event_json(frame)})
                self.stats["delivered"] += 1
            return _json(200, out)
        return _error(501, "not served by this reference endpoint")

    def _publish(self, request, query, body):
        length = next((v for k, v in request.headers if k.lower() == "content-length"), None)
        if length is not None and length.strip().isdecimal() and int(length) > LIMITS["max-message-size"]:
            return _error(413, f"payload too large (max {LIMITS['max-message-size']} bytes)")
        topic = query.get("topic")
        if topic is None:
            return _error(400, "missing query param 'topic'")
        if body is None or any("CloudEvent" in w for w in request.warnings):
            return _error(400, "invalid CloudEvent")
        if not self._take(topic):
            return _error(429, f"rate limited: topic {topic}")
        frame = encode(convert.frame_of_event(convert.from_cloud_event_json(body)))
        self.stored.append((topic, frame))
        self.stats["published"] += 1
        for client in sorted(self.subscriptions.get(topic, ())):
            delivery = f"d-{next(self._ids)}"
            self.buffers[client].append((delivery, frame))
            self.pending[delivery] = (client, frame)
        self._wake.set()
        return _json(202, {"status": "accepted"})

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

    async def _stream(self, writer, client: str) -> None:
        """GET /events/stream: chunked text/event-stream, one `data:` line per delivery (SseConnection)."""
        writer.write(b"HTTP/1.1 200 OK\r\nDate: " + time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime()).encode()
                     + b"\r\nContent-type: text/event-stream\r\nCache-control: no-cache\r\nTransfer-encoding: chunked"
                       b"\r\n\r\n")
        await writer.drain()
        while self._server is not None:
            while self.buffers[client]:
                delivery, frame = self.buffers[client].popleft()
                line = '{"deliveryId":"%s","event":%s}' % (delivery, json.dumps(event_json(frame), separators=(",", ":")))
                data = ("data: " + line + "\n\n").encode("utf-8")
                writer.write(b"%x\r\n" % len(data) + data + b"\r\n")
                self.stats["delivered"] += 1
            await writer.drain()
            self._wake.clear()
            try:
                await asyncio.wait_for(self._wake.wait(), 0.5)
            except asyncio.TimeoutError:
                pass
            if writer.is_closing():
                return
        writer.write(b"0\r\n\r\n")
        await writer.drain()


_REASONS = {200: b"OK", 201: b"Created", 202: b"Accepted", 400: b"Bad Request", 404: b"Not Found",
            405: b"Method Not Allowed", 413: b"Request Entity Too Large", 429: b"Too Many Requests",
            500: b"Internal Server Error", 501: b"Not Implemented"}
