"""Reference asyncio client of the new runtime's uni HTTP API (specs/eventmesh/uni_http.yaml): what an SDK of
the uni runtime does over CloudEvents JSON.

`UniClient` makes its calls on one keep-alive connection, one at a time, and reads every answer with the
spec-driven decoder (eventmesh.http); a status the route table does not list as success raises UniHttpError.
`follow` opens a connection of its own for GET /events/stream and yields each SSE delivery as the decoder reads
it, while the stream stays open.
"""
from __future__ import annotations

import asyncio
import base64
import contextlib
import json
from collections.abc import AsyncIterator
from urllib.parse import quote

from inlong_proto.core.errors import DecodeError
from inlong_proto.eventmesh.http import HttpResponse, HttpStreamDecoder
from inlong_proto.endpoints.eventmesh_http_server import READ_SIZE, wants_close

MAX_ANSWER_SIZE = 16 << 20  # an answer longer than this ends the connection (a poll of 100 large events fits)


class UniHttpError(Exception):
    """The runtime answered with a status other than the route's success."""

    def __init__(self, what: str, answer: HttpResponse):
        self.answer = answer
        super().__init__(f"{what}: HTTP {answer.status} {answer.body[:200].decode('utf-8', 'replace')}")


def cloud_event(event_id: str, data: str, *, source: str = "inlong-proto", type_: str = "inlong-proto.demo",
                content_type: str = "text/plain") -> dict:
    """A structured CloudEvent 1.0 with text data."""
    return {"specversion": "1.0", "id": event_id, "source": source, "type": type_, "datacontenttype": content_type,
            "data": data}


def _query(**params) -> str:
    pairs = [f"{name}={quote(str(value), safe='')}" for name, value in params.items() if value is not None]
    return "?" + "&".join(pairs) if pairs else ""


class UniClient:
    """Calls to one uni runtime. timeout: seconds to connect and to wait for each answer (a long poll or a
    request waits timeoutMs more)."""

    def __init__(self, host: str, port: int, *, timeout: float = 10.0):
        self.host, self.port, self.timeout = host, port, timeout
        self.answers: dict[int, int] = {}  # status -> how many
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._decoder: HttpStreamDecoder | None = None
        self._lock = asyncio.Lock()

    async def close(self) -> None:
        self._disconnect()

    def _disconnect(self) -> None:
        if self._writer is not None:
            self._writer.close()
        self._reader = self._writer = self._decoder = None

    def _head(self, method: str, target: str, content_type: str | None, length: int) -> bytes:
        lines = [f"{method} {target} HTTP/1.1", f"Host: {self.host}:{self.port}"]
        if content_type is not None:
            lines.append(f"Content-Type: {content_type}")
        lines.append(f"Content-Length: {length}")
        return ("\r\n".join(lines) + "\r\n\r\n").encode("ascii")

    async def call(self, method: str, target: str, body: bytes = b"", *, content_type: str | None = None,
                   expect: tuple[int, ...] = (200,), wait: float = 0.0) -> HttpResponse:
        """One request and its answer; an answer status not in expect raises UniHttpError."""
        async with self._lock:
            try:
                async with asyncio.timeout(self.timeout + wait):
                    if self._writer is None:
                        self._reader, self._writer = await asyncio.open_connection(self.host, self.port)
                        self._decoder = HttpStreamDecoder("response")
                    self._writer.write(self._head(method, target, content_type, len(body)) + body)
                    await self._writer.drain()
                    answer = await self._read()
            except (OSError, DecodeError) as exc:  # TimeoutError is an OSError
                self._disconnect()
                raise ConnectionError(f"{method} {target}: {str(exc) or type(exc).__name__}") from None
        if wants_close(answer):
            self._disconnect()
        self.answers[answer.status] = self.answers.get(answer.status, 0) + 1
        if answer.status not in expect:
            raise UniHttpError(f"{method} {target.split('?', 1)[0]}", answer)
        return answer

    async def _read(self) -> HttpResponse:
        while True:
            data = await self._reader.read(READ_SIZE)
            found = self._decoder.feed(data) if data else self._decoder.close()
            if found:
                return found[0]
            if not data:
                raise ConnectionError("the runtime closed the connection without an answer")
            if self._decoder.buffered > MAX_ANSWER_SIZE:
                raise ConnectionError(f"an answer over {MAX_ANSWER_SIZE} bytes")

    async def _json_call(self, method, target, value=None, *, expect=(200,), wait: float = 0.0,
                         content_type="application/json"):
        body = b"" if value is None else json.dumps(value, separators=(",", ":")).encode("utf-8")
        answer = await self.call(method, target, body, content_type=content_type if value is not None else None,
                                 expect=expect, wait=wait)
        return json.loads(answer.body) if answer.body else None

    # -- the routes --------------------------------------------------------------------------------
    async def publish(self, topic: str, event: dict) -> dict:
        return await self._json_call("POST", "/events/publish" + _query(topic=topic), event, expect=(202,),
                                     content_type="application/cloudevents+json")

    async def publish_batch(self, topic: str, events: list[dict]) -> dict:
        return await self._json_call("POST", "/events/publish-batch" + _query(topic=topic), events, expect=(202,),
                                     content_type="application/cloudevents-batch+json")

    async def subscribe(self, client_id: str, topic: str, mode: str = "CLUSTERING") -> dict:
        return await self._json_call("POST", "/events/subscribe", {"clientId": client_id, "topic": topic, "mode": mode})

    async def unsubscribe(self, client_id: str, topic: str | None = None) -> dict:
        body = {"clientId": client_id} if topic is None else {"clientId": client_id, "topic": topic}
        return await self._json_call("POST", "/events/unsubscribe", body)

    async def poll(self, client_id: str, most: int = 100, timeout_ms: int = 1000) -> list[dict]:
        """[{deliveryId, event}], waiting up to timeout_ms for the first."""
        return await self._json_call("GET", "/events/poll" + _query(clientId=client_id, max=most, timeoutMs=timeout_ms),
                                     wait=timeout_ms / 1000)

    async def ack(self, delivery_id: str) -> dict:
        return await self._json_call("POST", "/events/ack", {"deliveryId": delivery_id})

    async def request(self, topic: str, event: dict, timeout_ms: int = 30000) -> dict:
        """The reply's CloudEvent."""
        return await self._json_call("POST", "/events/request" + _query(topic=topic, timeoutMs=timeout_ms), event,
                                     wait=timeout_ms / 1000, content_type="application/cloudevents+json")

    async def reply(self, correlation_id: str, event: dict) -> dict:
        return await self._json_call("POST", "/events/reply", {"correlationId": correlation_id, "event": event})

    async def lite_publish_bytes(self, topic: str, lite: str, frame: bytes) -> HttpResponse:
        return await self.call("POST", "/events/lite/publish-bytes" + _query(topic=topic, lite=lite), frame,
                               content_type="application/octet-stream", expect=(202,))

    async def lite_poll_bytes(self, topic: str, lite: str, most: int = 100, timeout_ms: int = 1000) -> list[bytes]:
        """The EventMeshFrames waiting on a lite topic, as bytes."""
        values = await self._json_call("GET", "/events/lite/poll-bytes" + _query(topic=topic, lite=lite, max=most,
                                                                                  timeoutMs=timeout_ms),
                                       wait=timeout_ms / 1000)
        return [base64.b64decode(value) for value in values]

    async def follow(self, client_id: str) -> AsyncIterator:
        """GET /events/stream on a connection of its own: each SSE event (eventmesh.uni.SseEvent) as it arrives,
        until the runtime ends the stream (the SSE_END item is the last) or the caller closes the iterator (use
        contextlib.aclosing): then the client ends its side and reads the stream's end before closing."""
        reader, writer = await asyncio.wait_for(asyncio.open_connection(self.host, self.port), self.timeout)
        decoder = HttpStreamDecoder("response")
        try:
            writer.write(self._head("GET", "/events/stream" + _query(clientId=client_id), None, 0))
            await writer.drain()
            while data := await reader.read(READ_SIZE):
                for item in decoder.feed(data):
                    if isinstance(item, HttpResponse) and item.status != 200:
                        raise UniHttpError("GET /events/stream", item)
                    yield item
            for item in decoder.close():
                yield item
        finally:
            with contextlib.suppress(OSError, asyncio.TimeoutError):
                if writer.can_write_eof() and not reader.at_eof():
                    writer.write_eof()
                    async with asyncio.timeout(self.timeout):
                        while await reader.read(READ_SIZE):
                            pass
            writer.close()
