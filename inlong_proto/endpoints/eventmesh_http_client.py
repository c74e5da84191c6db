"""Reference asyncio EventMesh HTTP client: what the Java SDK's HTTP producer and consumer do.

`EventMeshHttpClient` calls the runtime on one keep-alive connection, one request at a time (the SDK's
requests, built by `inlong_proto.eventmesh.http`: MSG_SEND_ASYNC / MSG_SEND_SYNC, SUBSCRIBE, UNSUBSCRIBE,
HEARTBEAT, REPLY_MESSAGE); each answer is read by the spec-driven decoder and a retCode other than 0
raises EventMeshHttpError. `WebhookReceiver` is the subscriber's side of the push: a small h11 server
(sharing the runtime server's request framing) that answers the runtime's abuse-protection handshake (an
OPTIONS request with WebHook-Request-Origin: 200 with WebHook-Allowed-Origin for an origin it accepts, 403
otherwise), answers each push with {"retCode": n} (OK unless told otherwise) and hands the pushed messages
out.

Recording: the client's `record` / `record_sent` files get the exact bytes of every answer read / request
written, the receiver's `record_pushes` / `record_push_replies` those of every push read / answer written:
each file is one direction of HTTP, a dump `inlong-proto decode -p eventmesh-http` reads.

With `strict` (a core.conformance Report) the client reports each answer of the runtime that breaks a rule of
specs/eventmesh/conformance.yaml, at its offset in what the runtime sent on the connection.
"""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
import os
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import BinaryIO

import h11

from inlong_proto.endpoints.common import Link, RawStream, connection_scope, finish_handlers
from inlong_proto.core.conformance import Report
from inlong_proto.core.errors import DecodeError
from inlong_proto.eventmesh import http
from inlong_proto.eventmesh.http import (ClientConfig, ClientRetCode, HttpRequest, HttpResponse, HttpStreamDecoder,
                                         RetCode, SubscriptionItem)
from inlong_proto.endpoints.eventmesh_http_server import (ALLOWED_ORIGIN, ALLOWED_RATE, READ_SIZE, REQUEST_ORIGIN,
                                                          Refused, RequestReader, read_request, wants_close)

log = logging.getLogger(__name__)

MAX_ANSWER_SIZE = 1 << 20  # an answer longer than this ends the connection
MAX_PUSH_SIZE = 1 << 20  # a push body longer than this is answered 413


class EventMeshHttpError(Exception):
    """The runtime answered with a retCode other than 0 (or no JSON answer at all)."""

    def __init__(self, answer: HttpResponse):
        self.answer = answer
        ret = answer.ret
        self.ret_code = None if ret is None else ret.ret_code
        what = (f"retCode {self.ret_code}: {ret.ret_msg}" if answer.kind == "runtime" and ret is not None
                else f"HTTP {answer.status} ({answer.kind} answer)")  # a webhook-style reply has no retMsg
        super().__init__(f"{answer.message_type} {what}")


@dataclass
class HttpClientReport:
    """What a client did. ok: nothing failed, went unanswered or was lost."""

    sent: Counter = field(default_factory=Counter)  # requests written, by request code name
    answered: Counter = field(default_factory=Counter)  # answers read, by retCode name (or "HTTP <status>")
    published: int = 0
    publish_ok: int = 0
    publish_failed: int = 0  # answers with retCode != 0, or none
    heartbeats: int = 0
    heartbeats_answered: int = 0
    messages: int = 0  # pushes received
    webhook_replies: Counter = field(default_factory=Counter)  # what the pushes were answered, by ClientRetCode
    handshakes: Counter = field(default_factory=Counter)  # the webhook's answers to handshakes: allowed / refused
    expected: int | None = None  # messages a subscriber waited for
    error: str | None = None  # why the run ended early

    @property
    def lost(self) -> int:
        return 0 if self.expected is None else max(0, self.expected - self.messages)

    @property
    def ok(self) -> bool:
        return not self.publish_failed and not self.lost and self.error is None

    def to_dict(self) -> dict:
        out = {"sent": dict(sorted(self.sent.items())), "answered": dict(sorted(self.answered.items())),
               "published": self.published, "publish_ok": self.publish_ok, "publish_failed": self.publish_failed,
               "heartbeats": self.heartbeats, "heartbeats_answered": self.heartbeats_answered,
               "messages": self.messages, "webhook_replies": dict(sorted(self.webhook_replies.items())),
               "handshakes": dict(sorted(self.handshakes.items()))}
        if self.expected is not None:
            out["lost"] = self.lost
        return {**out, "error": self.error, "ok": self.ok}


def _open(path) -> BinaryIO | None:
    return None if path is None else open(path, "ab")


def _append(handle: BinaryIO | None, data: bytes) -> None:
    if handle is not None:
        handle.write(data)
        handle.flush()


class EventMeshHttpClient:
    """Requests to one runtime, one at a time on a keep-alive connection (opened again when the runtime
    closes it). timeout: seconds to connect and to wait for each answer. strict: the conformance report of
    the rules the runtime's answers break (module doc)."""

    def __init__(self, host: str, port: int, *, config: ClientConfig | None = None,
                 record: str | os.PathLike | None = None, record_sent: str | os.PathLike | None = None,
                 timeout: float = 10.0, report: HttpClientReport | None = None, seed: int | None = None,
                 strict: Report | None = None):
        self.host, self.port, self.timeout, self.strict = host, port, timeout, strict
        self.config = config if config is not None else ClientConfig(pid=str(os.getpid()), host=f"{host}:{port}")
        self.report = report if report is not None else HttpClientReport()
        self._rng = random.Random(seed)
        self._files = {"received": _open(record), "sent": _open(record_sent)}
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._decoder: HttpStreamDecoder | None = None
        self._raw: RawStream | None = None
        self._lock = asyncio.Lock()

    async def close(self) -> None:
        self._disconnect()
        for handle in self._files.values():
            if handle is not None:
                handle.close()

    def _disconnect(self) -> None:
        if self._writer is not None:
            self._writer.close()
        self._reader = self._writer = self._decoder = self._raw = None

    def new_id(self) -> str:
        """A bizseqno / uniqueid as the SDK makes them: random decimal digits."""
        return "".join(self._rng.choices("0123456789", k=30))

    async def call(self, name: str, data: bytes) -> HttpResponse:
        """Send one request (name: for the counters) and read its answer; retCode != 0 raises."""
        async with self._lock:
            try:
                async with asyncio.timeout(self.timeout):
                    if self._writer is None:
                        self._reader, self._writer = await asyncio.open_connection(self.host, self.port)
                        self._decoder, self._raw = HttpStreamDecoder("response"), RawStream()
                    self._writer.write(data)
                    self.report.sent[name] += 1
                    _append(self._files["sent"], data)
                    await self._writer.drain()
                    answer = await self._read()
            except (OSError, DecodeError) as exc:  # TimeoutError is an OSError
                self._disconnect()
                raise ConnectionError(f"{name} to {self.host}:{self.port}: {str(exc) or type(exc).__name__}") from None
        if wants_close(answer):
            self._disconnect()
        self._check(answer)
        ret = answer.ret
        self.report.answered[RetCode(ret.ret_code).name if answer.kind == "runtime" and ret is not None
                             and ret.ret_code in RetCode._value2member_map_ else f"HTTP {answer.status}"] += 1
        if answer.kind != "runtime" or ret is None or ret.ret_code != RetCode.SUCCESS:
            raise EventMeshHttpError(answer)
        return answer

    def _check(self, answer: HttpResponse) -> None:
        """Report a 200 answer that is not the runtime's text/plain JSON with a code header."""
        if self.strict is None or answer.status != 200:
            return
        content_type = next((v for n, v in answer.headers if n.lower() == "content-type"), "")
        if answer.kind != "runtime" or answer.ret is None or not content_type.lower().startswith("text/plain"):
            self.strict("eventmesh.http-answer", peer=f"{self.host}:{self.port}", offset=answer.offset,
                        length=answer.length, got=f"{answer.kind} answer, Content-Type {content_type!r}")

    async def _read(self) -> HttpResponse:
        while True:
            data = await self._reader.read(READ_SIZE)
            self._raw.add(data)
            found = self._decoder.feed(data) if data else self._decoder.close()
            if found:
                _append(self._files["received"], self._raw.take(found[0]))
                return found[0]
            if not data:
                raise ConnectionError("the runtime closed the connection without an answer")
            if self._decoder.buffered > MAX_ANSWER_SIZE:
                raise ConnectionError(f"an answer over {MAX_ANSWER_SIZE} bytes")

    # -- the SDK's requests ------------------------------------------------------------------------

    async def publish(self, topic: str, content: str, *, sync: bool = False, ttl: str | None = None) -> HttpResponse:
        """MSG_SEND_ASYNC (or MSG_SEND_SYNC, whose answer carries the reply: `.reply`); failures are counted."""
        data = http.send_message(self.config, topic, content, ttl=ttl, bizseqno=self.new_id(),
                                 uniqueid=self.new_id(), sync=sync)
        self.report.published += 1
        try:
            answer = await self.call("MSG_SEND_SYNC" if sync else "MSG_SEND_ASYNC", data)
        except (EventMeshHttpError, ConnectionError):
            self.report.publish_failed += 1
            raise
        self.report.publish_ok += 1
        return answer

    async def subscribe(self, items: list[SubscriptionItem], url: str) -> HttpResponse:
        return await self.call("SUBSCRIBE", http.subscribe(self.config, items, url))

    async def unsubscribe(self, topics: list[str], url: str) -> HttpResponse:
        return await self.call("UNSUBSCRIBE", http.unsubscribe(self.config, topics, url))

    async def heartbeat(self, topics: list[str], url: str) -> HttpResponse:
        self.report.heartbeats += 1
        answer = await self.call("HEARTBEAT", http.heartbeat(self.config, topics, url))
        self.report.heartbeats_answered += 1
        return answer

    async def reply(self, push: HttpRequest, content: str) -> HttpResponse:
        """REPLY_MESSAGE to a pushed message (for a SYNC subscription): its uniqueId and bizseqno."""
        fields = push.fields
        data = http.reply_message(self.config, fields.get("topic") or "", content, bizseqno=fields.get("bizseqno"),
                                  uniqueid=fields.get("uniqueId"))
        return await self.call("REPLY_MESSAGE", data)

    async def heartbeats(self, topics: list[str], url: str, interval: float) -> None:
        """Heartbeat every interval seconds until cancelled; a failed one is logged and counted."""
        while True:
            await asyncio.sleep(interval)
            try:
                await self.heartbeat(topics, url)
            except (EventMeshHttpError, ConnectionError) as exc:
                log.warning("heartbeat: %s", exc)


class WebhookReceiver:
    """The subscriber's webhook: an h11 server that answers each push with {"retCode": reply_code} and
    queues the push (an HttpRequest of kind "push") for `receive`. A request that is no push is answered
    FAIL with HTTP 400; a push beyond max_queued waiting messages is answered RETRY (the runtime retries).

    The handshake (OPTIONS with WebHook-Request-Origin) is answered 200 with WebHook-Allowed-Origin naming
    the origin when allowed_origins is None (any origin) or holds it (case-insensitively), with
    WebHook-Allowed-Rate when allowed_rate is given; else 403. Handshakes are not recorded (no push)."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, reply_code: int = ClientRetCode.OK,
                 record_pushes: str | os.PathLike | None = None,
                 record_push_replies: str | os.PathLike | None = None, idle_timeout: float | None = None,
                 max_queued: int = 10000, report: HttpClientReport | None = None,
                 allowed_origins: Iterable[str] | None = None, allowed_rate: int | None = None):
        self.host, self.requested_port, self.reply_code = host, port, reply_code
        self.allowed_origins = None if allowed_origins is None else {o.lower() for o in allowed_origins}
        self.allowed_rate = allowed_rate
        self.idle_timeout, self.max_queued = idle_timeout, max_queued
        self.report = report if report is not None else HttpClientReport()
        self._paths = {"received": record_pushes, "sent": record_push_replies}
        self._files: dict[str, BinaryIO | None] = {}
        self._server: asyncio.Server | None = None
        self._links: dict[Link, None] = {}
        self._handlers: set[asyncio.Task] = set()
        self._messages: asyncio.Queue[HttpRequest] = asyncio.Queue()

    @property
    def port(self) -> int:
        return self._server.sockets[0].getsockname()[1]

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/"

    async def start(self) -> None:
        self._files = {name: _open(path) for name, path in self._paths.items()}
        self._server = await asyncio.start_server(self._handle, self.host, self.requested_port)
        log.info("webhook listening at %s", self.url)

    async def stop(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.close()
        for link in self._links:
            link.writer.close()
        await finish_handlers(self._handlers, lambda: list(self._links))
        if server is not None:
            await server.wait_closed()
        for handle in self._files.values():
            if handle is not None:
                handle.close()

    async def __aenter__(self) -> "WebhookReceiver":
        await self.start()
        return self

    async def __aexit__(self, *exc_info) -> None:
        await self.stop()

    @property
    def waiting(self) -> int:
        """Pushed messages not yet taken by receive()."""
        return self._messages.qsize()

    async def receive(self) -> HttpRequest:
        """The next pushed message."""
        return await self._messages.get()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        link = Link(writer, log, idle_timeout=self.idle_timeout)
        self._links[link] = None
        try:
            async with connection_scope(self._handlers, link):
                requests = RequestReader(MAX_PUSH_SIZE)
                while not link.closing:
                    data = await reader.read(READ_SIZE)
                    try:
                        chunks = requests.feed(data)
                    except Refused as exc:
                        link.log.always(logging.WARNING, "answering %d and closing: %s", exc.status, exc)
                        self._write(link, http.error_status(exc.status))
                        return
                    for raw in chunks:
                        link.progress()
                        if not self._on_request(link, raw):
                            return
                    if not data or requests.closed:
                        return
                    await link.drain()
        finally:
            self._links.pop(link, None)

    def _on_request(self, link: Link, raw: bytes) -> bool:
        if raw.startswith(b"OPTIONS "):
            return self._handshake(link, raw)
        _append(self._files["received"], raw)
        try:
            request = read_request(raw)
        except DecodeError as exc:
            link.log.warning("a request that does not decode: %s", exc)
            request = None
        if request is None or request.kind != "push":
            self._write(link, http.webhook_reply(int(ClientRetCode.FAIL), status=400))
            return request is not None and not wants_close(request)
        code = ClientRetCode(self.reply_code) if self.reply_code in ClientRetCode._value2member_map_ else None
        if self._messages.qsize() >= self.max_queued:
            code = ClientRetCode.RETRY
        elif code in (ClientRetCode.REMOTE_OK, ClientRetCode.OK):
            self.report.messages += 1
            self._messages.put_nowait(request)
        self.report.webhook_replies[code.name if code is not None else str(self.reply_code)] += 1
        self._write(link, http.webhook_reply(int(code) if code is not None else self.reply_code))
        return not wants_close(request)

    def _handshake(self, link: Link, raw: bytes) -> bool:
        """Answer the runtime's abuse-protection handshake (class doc)."""
        conn = h11.Connection(h11.SERVER)
        conn.receive_data(raw)
        request = conn.next_event()  # RequestReader has already read it as a whole request
        origin = next((v.decode("latin-1").strip() for n, v in request.headers if n == REQUEST_ORIGIN.lower().encode()),
                      None)
        if origin and (self.allowed_origins is None or origin.lower() in self.allowed_origins):
            self.report.handshakes["allowed"] += 1
            headers = [("Allow", "POST, OPTIONS"), (ALLOWED_ORIGIN, origin)]
            if self.allowed_rate is not None:
                headers.append((ALLOWED_RATE, str(self.allowed_rate)))
            link.write(http.build_response(200, headers + [("Content-Length", None)]))
        else:
            self.report.handshakes["refused"] += 1
            link.log.info("refusing the handshake of origin %r", origin)
            link.write(http.build_response(403 if origin else 400, [("Content-Length", None)]))
        return not any(n == b"connection" and v.lower() == b"close" for n, v in request.headers)

    def _write(self, link: Link, data: bytes) -> None:
        if link.write(data):
            _append(self._files["sent"], data)

