"""An EventMesh gRPC client on grpcio's asyncio API: the requests the Java SDK sends (eventmesh.grpc's
message_event / subscription_event / heartbeat_event) to the three services of eventmesh-service.proto.

    async with EventMeshGrpcClient("127.0.0.1", 10205) as client:
        answer = await client.publish(client.message("topic", "hello"))       # a grpc.Response
        stream = await client.stream([("topic", "CLUSTERING", "ASYNC")])        # subscribeStream
        proto = await stream.receive()                                          # a delivered CloudEvent

Answers are read with grpc.response_of; a statuscode other than "0" is counted in ``report`` (and raised as
EventMeshGrpcError where the call has nothing else to return). ``capture``: the channel goes through a
recording relay (capture.tap.Tap) and close() writes the conversation to that pcap file. ``strict`` (a
core.conformance Report): each answer of the runtime that breaks a rule of specs/eventmesh/conformance.yaml is
reported, its offset the number of the message on its call (gRPC hides the bytes).
"""
from __future__ import annotations

import asyncio
import logging
import os
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable

import grpc

from inlong_proto.core.conformance import Report
from inlong_proto.endpoints.tap import Tap
from inlong_proto.generated.protobuf.eventmesh import eventmesh_cloudevents_pb2 as ce_pb2
from inlong_proto.generated.protobuf.eventmesh import eventmesh_service_pb2_grpc as service_grpc
from inlong_proto.eventmesh import grpc as meshgrpc
from inlong_proto.eventmesh.grpc import (CLIENT_TYPE_PUB, CLIENT_TYPE_SUB, SUBSCRIPTION_REPLY, Event, Key, Response,
                                         client_extensions, heartbeat_event, message_event, response_of,
                                         subscription_event, to_cloud_event, to_cloud_event_batch)

log = logging.getLogger(__name__)


class EventMeshGrpcError(Exception):
    """A call answered with a statuscode other than "0" (or a broken stream)."""

    def __init__(self, message: str, response: Response | None = None):
        super().__init__(message)
        self.response = response


@dataclass
class GrpcClientReport:
    """What a client did. ok: nothing was refused, went unanswered or was missed."""

    sent: Counter = field(default_factory=Counter)  # calls made, by RPC name
    answered: Counter = field(default_factory=Counter)  # answers read, by status name
    published: int = 0  # events sent by publish / batchPublish / requestReply / the one-way calls
    publish_ok: int = 0
    publish_failed: int = 0
    replies: int = 0  # request-reply answers received / replies sent by a subscriber
    heartbeats: int = 0
    heartbeats_answered: int = 0
    messages: int = 0  # events received on a subscribeStream
    expected: int | None = None
    error: str | None = None

    @property
    def lost(self) -> int:
        return 0 if self.expected is None else max(0, self.expected - self.messages)

    @property
    def ok(self) -> bool:
        return not self.publish_failed and not self.lost and self.error is None

    def to_dict(self) -> dict:
        out = {"sent": dict(sorted(self.sent.items())), "answered": dict(sorted(self.answered.items())),
               "published": self.published, "publish_ok": self.publish_ok, "publish_failed": self.publish_failed,
               "replies": self.replies, "heartbeats": self.heartbeats,
               "heartbeats_answered": self.heartbeats_answered, "messages": self.messages}
        if self.expected is not None:
            out["lost"] = self.lost
        return {**out, "error": self.error, "ok": self.ok}


def _status_name(response: Response) -> str:
    status = meshgrpc.STATUS.get(response.code)
    return status.name if status else f"statuscode {response.code!r}"


def is_response(proto) -> bool:
    """A response (statuscode present, or neither seqnum nor uniqueid: the SDK's test) rather than a message."""
    attributes = proto.attributes
    return Key.STATUS_CODE in attributes or (Key.SEQ_NUM not in attributes and Key.UNIQUE_ID not in attributes)


class EventMeshGrpcClient:
    def __init__(self, host: str = "127.0.0.1", port: int = 10205, *, group: str = "inlong-proto",
                 timeout: float = 10.0, capture: str | os.PathLike | None = None,
                 identity: dict[str, str] | None = None, strict: Report | None = None):
        self.host, self.port, self.group, self.timeout, self.capture = host, port, group, timeout, capture
        self.strict = strict
        self.identity = identity or client_extensions(env="env", idc="idc", ip="127.0.0.1", pid=os.getpid(),
                                                      sys="inlong-proto", username="inlong-proto",
                                                      passwd="inlong-proto")
        self.report = GrpcClientReport()
        self.channel: grpc.aio.Channel | None = None
        self._tap: Tap | None = None
        self._streams: list[SubscriptionStream] = []

    async def connect(self) -> None:
        host, port = self.host, self.port
        if self.capture is not None:
            self._tap = Tap(host)
            port = await self._tap.relay(self.port, host)
        target = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        self.channel = grpc.aio.insecure_channel(target)
        try:
            await asyncio.wait_for(self.channel.channel_ready(), self.timeout)
        except TimeoutError:
            raise ConnectionError(f"no gRPC server at {self.host}:{self.port} within {self.timeout:g}s") from None
        self.publisher = service_grpc.PublisherServiceStub(self.channel)
        self.consumer = service_grpc.ConsumerServiceStub(self.channel)
        self.heartbeater = service_grpc.HeartbeatServiceStub(self.channel)

    async def close(self) -> None:
        for stream in list(self._streams):
            await stream.close()
        if self.channel is not None:
            await self.channel.close()
            self.channel = None
        if self._tap is not None:
            await self._tap.close()
            with open(self.capture, "wb") as handle:
                handle.write(self._tap.pcap())
            self._tap = None

    async def __aenter__(self) -> "EventMeshGrpcClient":
        await self.connect()
        return self

    async def __aexit__(self, *exc_info) -> None:
        await self.close()

    # -- building requests -----------------------------------------------------------------------

    def message(self, topic: str, data: bytes | str, **kw) -> Event:
        """An event the runtime accepts for publish (see grpc.message_event)."""
        return message_event(topic, data, client=self.identity, producer_group=self.group, **kw)

    def _items(self, items) -> list:
        return [(item, "CLUSTERING", "ASYNC") if isinstance(item, str) else item for item in items]

    # -- calls -----------------------------------------------------------------------------------

    async def _unary(self, name: str, method, request):
        self.report.sent[name] += 1
        try:
            return await method(request, timeout=self.timeout)
        except grpc.aio.AioRpcError as exc:
            self.report.answered[f"grpc {exc.code().name}"] += 1
            raise EventMeshGrpcError(f"{name}: {exc.code().name} {exc.details() or ''}".rstrip()) from None

    def _read(self, name: str, proto, number: int = 0) -> Response:
        """The runtime's answer (message `number` of its call)."""
        attributes = proto.attributes
        if self.strict is not None and (Key.STATUS_CODE not in attributes or Key.RESPONSE_MESSAGE not in attributes
                                        or attributes[Key.STATUS_CODE].ce_string not in meshgrpc.STATUS):
            got = {key: str(attributes[key]).strip() for key in (Key.STATUS_CODE, Key.RESPONSE_MESSAGE)
                   if key in attributes}
            self.strict("eventmesh.grpc-answer", peer=f"{self.host}:{self.port}", offset=number,
                        got=f"{name} answered with {got or 'neither attribute'}")
        response = response_of(proto)
        self.report.answered[_status_name(response)] += 1
        if not response.ok:
            log.warning("%s answered %s: %s", name, response.code, response.message)
        return response

    async def publish(self, event: Event | object) -> Response:
        """publish: the runtime's answer (ok or not; failures are counted, not raised)."""
        proto = to_cloud_event(event) if isinstance(event, Event) else event
        self.report.published += 1
        try:
            response = self._read("publish", await self._unary("publish", self.publisher.publish, proto))
        except EventMeshGrpcError:
            self.report.publish_failed += 1
            raise
        if response.ok:
            self.report.publish_ok += 1
        else:
            self.report.publish_failed += 1
        return response

    async def publish_one_way(self, event: Event | object) -> None:
        proto = to_cloud_event(event) if isinstance(event, Event) else event
        self.report.published += 1
        await self._unary("publishOneWay", self.publisher.publishOneWay, proto)
        self.report.publish_ok += 1

    async def batch_publish(self, events: Iterable[Event], one_way: bool = False) -> Response | None:
        events = list(events)
        batch = to_cloud_event_batch(events)
        self.report.published += len(events)
        name = "batchPublishOneWay" if one_way else "batchPublish"
        try:
            answer = await self._unary(name, getattr(self.publisher, name), batch)
        except EventMeshGrpcError:
            self.report.publish_failed += len(events)
            raise
        if one_way:
            self.report.publish_ok += len(events)
            return None
        response = self._read(name, answer)
        if response.ok:
            self.report.publish_ok += len(events)
        else:
            self.report.publish_failed += len(events)
        return response

    async def request_reply(self, event: Event | object):
        """requestReply: the subscriber's reply CloudEvent; EventMeshGrpcError when the runtime refuses."""
        proto = to_cloud_event(event) if isinstance(event, Event) else event
        self.report.published += 1
        try:
            answer = await self._unary("requestReply", self.publisher.requestReply, proto)
        except EventMeshGrpcError:
            self.report.publish_failed += 1
            raise
        response = response_of(answer)
        if Key.STATUS_CODE in answer.attributes and not response.ok:
            self.report.answered[_status_name(response)] += 1
            self.report.publish_failed += 1
            raise EventMeshGrpcError(f"requestReply answered {response.code}: {response.message}", response)
        self.report.answered["reply"] += 1
        self.report.publish_ok += 1
        self.report.replies += 1
        return answer

    async def subscribe(self, items, url: str) -> Response:
        """subscribe (webhook): items are topics or (topic, mode, type)."""
        request = subscription_event(self.group, self._items(items), client=self.identity, url=url)
        return self._checked("subscribe", await self._unary("subscribe", self.consumer.subscribe,
                                                            to_cloud_event(request)))

    async def unsubscribe(self, items, url: str | None = None) -> Response:
        request = subscription_event(self.group, self._items(items), client=self.identity, url=url)
        return self._checked("unsubscribe", await self._unary("unsubscribe", self.consumer.unsubscribe,
                                                              to_cloud_event(request)))

    async def heartbeat(self, topics: Iterable[str], *, client_type: int = CLIENT_TYPE_SUB, url: str = "") -> Response:
        request = heartbeat_event(client_type, self.group, [(topic, url) for topic in topics], client=self.identity)
        self.report.heartbeats += 1
        response = self._read("heartbeat", await self._unary("heartbeat", self.heartbeater.heartbeat,
                                                             to_cloud_event(request)))
        if response.ok:
            self.report.heartbeats_answered += 1
        return response

    async def heartbeats(self, topics: list[str], interval: float, client_type: int = CLIENT_TYPE_SUB) -> None:
        """Heartbeat every interval seconds until cancelled (failures are logged)."""
        while True:
            await asyncio.sleep(interval)
            try:
                await self.heartbeat(topics, client_type=client_type)
            except EventMeshGrpcError as exc:
                log.warning("%s", exc)

    def _checked(self, name: str, proto) -> Response:
        response = self._read(name, proto)
        if not response.ok:
            raise EventMeshGrpcError(f"{name} answered {response.code}: {response.message}", response)
        return response

    async def stream(self, items) -> "SubscriptionStream":
        """Open a subscribeStream, send the subscription and wait for its acknowledgement."""
        stream = SubscriptionStream(self, self.consumer.subscribeStream())
        self._streams.append(stream)
        await stream.add(items)
        return stream


class SubscriptionStream:
    """One subscribeStream call: receive() delivered events, reply() to requests, add() more topics.

    A task reads the call into a queue of at most ``max_queued`` events (beyond that, gRPC's flow control
    holds the server back), so a receive() cancelled by a timeout never cancels the call itself.
    """

    def __init__(self, client: EventMeshGrpcClient, call, max_queued: int = 1000):
        self.client, self.call = client, call
        self.ended: Response | None = None  # the runtime's last word (30 resubscribe, 8 stopping)
        self.received = 0  # messages read from the call
        self._queue: asyncio.Queue = asyncio.Queue(max_queued)
        self._pump: asyncio.Task | None = None

    async def _read(self):
        try:
            proto = await self.call.read()
        except grpc.aio.AioRpcError as exc:
            raise EventMeshGrpcError(f"subscribeStream: {exc.code().name} {exc.details() or ''}".rstrip()) from None
        if proto is grpc.aio.EOF:
            raise EventMeshGrpcError("the server ended the stream" + (
                f" ({self.ended.code}: {self.ended.message})" if self.ended else ""), self.ended)
        self.received += 1
        return proto

    async def _run_pump(self) -> None:
        client = self.client
        try:
            while True:
                proto = await self._read()
                if is_response(proto):
                    response = client._read("subscribeStream", proto, self.received - 1)
                    if not response.ok:
                        self.ended = response
                    continue
                await self._queue.put(proto)
        except EventMeshGrpcError as exc:
            await self._queue.put(exc)
        except asyncio.CancelledError:
            raise

    async def add(self, items) -> Response | None:
        """Subscribe the stream to more items; the first call waits for the acknowledgement (raising when the
        runtime refuses), later ones do not (their answers are counted in the report)."""
        client = self.client
        request = subscription_event(client.group, client._items(items), client=client.identity)
        client.report.sent["subscribeStream"] += 1
        try:
            await self.call.write(to_cloud_event(request))
        except grpc.aio.AioRpcError as exc:
            raise EventMeshGrpcError(f"subscribeStream: {exc.code().name} {exc.details() or ''}".rstrip()) from None
        if self._pump is not None:
            return None
        try:
            proto = await asyncio.wait_for(self._read(), client.timeout)
        except TimeoutError:
            raise EventMeshGrpcError(f"subscribeStream: no acknowledgement within {client.timeout:g}s") from None
        response = client._checked("subscribeStream", proto)
        self._pump = asyncio.create_task(self._run_pump(), name="subscribeStream reader")
        return response

    async def receive(self):
        """The next delivered CloudEvent (responses on the stream are counted and skipped); EventMeshGrpcError
        when the stream has ended."""
        item = await self._queue.get()
        if isinstance(item, EventMeshGrpcError):
            self._queue.put_nowait(item)  # stay at the end
            raise item
        self.client.report.messages += 1
        return item

    async def reply(self, request, data: bytes | str | None = None) -> None:
        """Answer a request-reply event: a copy of it with new data and submessagetype subscription_reply."""
        proto = ce_pb2.CloudEvent()
        proto.CopyFrom(request)
        if data is not None:
            if isinstance(data, str):
                proto.text_data = data
            else:
                proto.binary_data = data
        proto.attributes[Key.SUB_MESSAGE_TYPE].ce_string = SUBSCRIPTION_REPLY
        self.client.report.sent["subscribeStream reply"] += 1
        self.client.report.replies += 1
        await self.call.write(proto)

    async def close(self) -> None:
        if self in self.client._streams:
            self.client._streams.remove(self)
        if self._pump is not None:
            self._pump.cancel()
            await asyncio.gather(self._pump, return_exceptions=True)
        try:
            await self.call.done_writing()
        except Exception:  # already finished or cancelled
            pass
        self.call.cancel()


def event_line(proto) -> dict:
    """A delivered CloudEvent as one JSON line: topic, data, ids and the string attributes."""
    event = meshgrpc.from_cloud_event(proto)
    data = event.data
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError:
            data = data.hex()
    return {"topic": event.subject, "data": data, "id": event.id, "content_type": event.data_content_type,
            "seqnum": event.ext(Key.SEQ_NUM), "uniqueid": event.ext(Key.UNIQUE_ID),
            "producergroup": event.ext(Key.PRODUCER_GROUP)}


__all__ = ["CLIENT_TYPE_PUB", "CLIENT_TYPE_SUB", "EventMeshGrpcClient", "EventMeshGrpcError", "GrpcClientReport",
           "SubscriptionStream", "event_line", "is_response"]
