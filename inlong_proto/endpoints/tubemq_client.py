"""Reference asyncio TubeMQ producer and consumer, talking to a master and a broker as the Java client does.

`RpcChannel` is one connection: requests built by `rpc.request_frame`, answers cut by the runtime's
StreamDecoder and matched by serial number, both optionally recorded (exact bytes).

The producer registers with the master (producerRegisterP2M: the broker list), asks for its topic's
partitions with a heartbeat (producerHeartbeatP2M: `topic#brokerId:partNum:storeNum#maxMsgSize`), sends
each message to the next partition in turn (sendMessageP2B, data built as the Java producer builds it,
checkSum -1), heartbeats while it runs and says goodbye (producerCloseClientP2M).

The consumer registers with the master (consumerRegisterC2M) and heartbeats (consumerHeartbeatC2M) to be
given partitions by rebalance events; it registers on each given partition at the broker
(consumerRegisterC2B, opType 31), reports the event done, fetches (getMessagesC2B, confirming each pack
with lastPackConsumed), checks each message's checksum (a mismatch is counted, not delivered, where the
Java consumer drops it silently), heartbeats the broker (consumerHeartbeatC2B), and at the end confirms
its last pack (consumerCommitC2B), releases its partitions (opType 32) and leaves the master.
"""
from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import random
import time
from collections import Counter
from collections.abc import AsyncIterable, Callable, Iterable
from dataclasses import dataclass, field
from typing import BinaryIO

from inlong_proto.core.conformance import Report
from inlong_proto.core.errors import DecodeError
from inlong_proto.endpoints.common import RawStream
from inlong_proto.core.frames import StreamDecoder, encode
from inlong_proto.core.plain import lenient_text
from inlong_proto.generated.protobuf.tubemq import BrokerService_pb2 as broker_pb
from inlong_proto.generated.protobuf.tubemq import MasterService_pb2 as master_pb
from inlong_proto.generated.tables.tubemq.methods import DATA as TABLE
from inlong_proto.tubemq import strings
from inlong_proto.tubemq.rpc import MessageData, RpcException, encode_message_data, message_data, request_frame

log = logging.getLogger(__name__)

PROTOCOL = "tubemq"
READ_SIZE = 65536
ERR = TABLE["enums"]["error_code"]["values"]
EVENT = TABLE["enums"]["event_type"]["values"]
EVENT_DONE = TABLE["enums"]["event_status"]["values"]["DONE"]
OP = TABLE["enums"]["register_op_type"]["values"]
CONSUME_MODEL = TABLE["enums"]["consume_model"]["values"]
CLIENT_VERSION = "python"  # the last part of a client id (the Java client writes its version there)


class CallFailed(Exception):
    """A call got no usable answer: an exception answer (`exception` set), or none at all."""

    def __init__(self, text: str, exception: RpcException | None = None):
        super().__init__(text)
        self.exception = exception

    @property
    def standby(self) -> bool:
        return self.exception is not None and self.exception.is_standby


class RpcChannel:
    """One connection to a master or a broker. `await channel.call(method, message)` gives the business
    message of the answer; an exception answer, a timeout or a lost connection raise CallFailed.

    record / record_sent: open binary files every answer received / request sent is appended to. strict:
    the conformance report (core.conformance) of the rules of specs/tubemq/conformance.yaml the answers break.
    """

    def __init__(self, host: str, port: int, *, timeout: float = 10.0, record: BinaryIO | None = None,
                 record_sent: BinaryIO | None = None, strict: Report | None = None):
        self.host, self.port, self.timeout, self.strict = host, port, timeout, strict
        self.record, self.record_sent = record, record_sent
        self.unexpected = 0  # answers matching no call, and malformed bytes
        self._serials = itertools.count(1)
        self._calls: dict[int, asyncio.Future] = {}
        self._writer: asyncio.StreamWriter | None = None
        self._receiver: asyncio.Task | None = None
        self._lost: str | None = None

    @property
    def name(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def lost(self) -> str | None:
        """Why the connection is gone (None while it holds)."""
        return self._lost

    async def open(self) -> "RpcChannel":
        try:
            reader, self._writer = await asyncio.wait_for(asyncio.open_connection(self.host, self.port),
                                                          self.timeout)
        except OSError as exc:  # refused, unreachable, or TimeoutError
            raise CallFailed(f"cannot connect to {self.name}: {exc or type(exc).__name__}") from None
        self._receiver = asyncio.create_task(self._receive(reader), name=f"tubemq-{self.name}")
        return self

    async def call(self, method: str, message, timeout: float | None = None):
        if self._lost is not None:
            raise CallFailed(self._lost)
        serial = next(self._serials)
        data = encode(request_frame(serial, method, message))
        future = asyncio.get_running_loop().create_future()
        self._calls[serial] = future
        try:
            self._writer.write(data)
            _append(self.record_sent, data)
            rpc = await asyncio.wait_for(future, timeout or self.timeout)
        except TimeoutError:
            raise CallFailed(f"{method}: no answer from {self.name} in {timeout or self.timeout}s") from None
        finally:
            self._calls.pop(serial, None)
        if rpc.exception is not None:
            exc = rpc.exception
            raise CallFailed(f"{method}: {self.name} answered {exc.class_name}: {exc.message}", exc)
        return rpc.business

    async def close(self) -> None:
        if self._receiver is not None:
            self._receiver.cancel()
            await asyncio.gather(self._receiver, return_exceptions=True)
        if self._writer is not None:
            self._writer.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._writer.wait_closed(), 1.0)

    async def _receive(self, reader: asyncio.StreamReader) -> None:
        decoder = StreamDecoder(PROTOCOL, "response", mode="PERMISSIVE")
        raw = RawStream()
        try:
            while True:
                data = await reader.read(READ_SIZE)
                raw.add(data)
                for frame in decoder.feed(data) if data else decoder.close():
                    chunk = raw.take(frame)
                    if frame.error is not None:
                        self.unexpected += 1
                        log.warning("%s: ignoring %d malformed bytes: %s", self.name, frame.length, frame.error)
                        self._broke("tubemq.response-frame", frame, f"{frame.error.kind}: {frame.error}")
                        continue
                    _append(self.record, chunk)
                    future = self._calls.get(frame.payload.serial_no)
                    if future is None or future.done():
                        self.unexpected += 1
                        log.warning("%s: an answer to no call (serial %d)", self.name, frame.payload.serial_no)
                        self._broke("tubemq.response-serial", frame, f"an answer with serial {frame.payload.serial_no}")
                    else:
                        future.set_result(frame.payload)
                if not data:
                    self._fail(f"{self.name} closed the connection")
                    return
        except (OSError, DecodeError) as exc:
            self._fail(f"connection to {self.name} lost: {exc}")

    def _broke(self, rule: str, frame, got: str) -> None:
        if self.strict is not None:
            self.strict(rule, peer=self.name, offset=frame.offset, length=frame.length, got=got)

    def _fail(self, reason: str) -> None:
        self._lost = reason
        for future in self._calls.values():
            if not future.done():
                future.set_exception(CallFailed(reason))


def _append(handle: BinaryIO | None, data: bytes) -> None:
    if handle is not None:
        handle.write(data)
        handle.flush()


#: The address the client ids, hostName and sentAddr carry (the Java client finds its own; loopback here).
LOCAL_ADDRESS = "127.0.0.1"


def producer_id() -> str:
    """`ip-pid-nanoTime-random-version`, the Java producer's form (strings.client_id reads it)."""
    return f"{LOCAL_ADDRESS}-{os.getpid()}-{time.monotonic_ns()}-{random.randrange(1 << 31)}-{CLIENT_VERSION}"


def consumer_id(group: str) -> str:
    """`group_ip-pid-nanoTime-random-Pull-version`, the Java pull consumer's form."""
    return (f"{group}_{LOCAL_ADDRESS}-{os.getpid()}-{time.monotonic_ns()}-{random.randrange(1 << 31)}"
            f"-Pull-{CLIENT_VERSION}")


@contextlib.contextmanager
def _recording(record, record_sent):
    with contextlib.ExitStack() as stack:
        yield tuple(None if path is None else stack.enter_context(open(path, "ab")) for path in (record, record_sent))


# -- the producer -----------------------------------------------------------------------------------

@dataclass
class ProduceReport:
    """What a producer run did. ok: every message was acknowledged and nothing went wrong."""

    sent: int = 0  # sendMessageP2B requests written
    acked: int = 0  # answered with errCode 200
    failed: int = 0  # answered with another errCode, or with an exception
    lost: int = 0  # no answer (timeout, or the connection went)
    error_codes: Counter = field(default_factory=Counter)  # errCode, or exception class -> answers
    partitions: Counter = field(default_factory=Counter)  # partition id -> messages acknowledged
    standby: bool = False  # the master answered StandbyException
    error: str | None = None  # why the run stopped early

    @property
    def ok(self) -> bool:
        return not self.failed and not self.lost and self.error is None

    def to_dict(self) -> dict:
        return {"sent": self.sent, "acked": self.acked, "failed": self.failed, "lost": self.lost,
                "error_codes": dict(sorted(self.error_codes.items())),
                "partitions": {str(pid): n for pid, n in sorted(self.partitions.items())},
                "standby": self.standby, "error": self.error, "ok": self.ok}


class TubeMQProducer:
    """Sends payloads to one topic through the master's broker. `await producer.run(payloads)` -> report.

    attribute: the `k=v,k=v` attribute every message carries (none by default). max_in_flight: messages
    sent and not yet answered at most. timeout: seconds for the connections and for each answer.
    heartbeat_interval: seconds between heartbeats to the master while sending. strict: RpcChannel's, for
    every connection.
    """

    def __init__(self, master_host: str, master_port: int, topic: str, *, attribute: str = "",
                 timeout: float = 10.0, max_in_flight: int = 64, heartbeat_interval: float = 10.0,
                 record: str | os.PathLike | None = None, record_sent: str | os.PathLike | None = None,
                 strict: Report | None = None):
        if max_in_flight < 1:
            raise ValueError("max_in_flight must be at least 1")
        self.strict = strict
        self.master_host, self.master_port, self.topic = master_host, master_port, topic
        self.attribute, self.timeout, self.max_in_flight = attribute, timeout, max_in_flight
        self.heartbeat_interval, self.record, self.record_sent = heartbeat_interval, record, record_sent
        self.client_id = producer_id()
        self.report = ProduceReport()
        self._checksum = -1  # the master's version of the broker list we hold

    async def run(self, payloads: Iterable[bytes] | AsyncIterable[bytes]) -> ProduceReport:
        report = self.report
        channels: list[RpcChannel] = []
        with _recording(self.record, self.record_sent) as (record, record_sent):
            def channel(host: str, port: int) -> RpcChannel:
                channels.append(RpcChannel(host, port, timeout=self.timeout, record=record, record_sent=record_sent,
                                           strict=self.strict))
                return channels[-1]

            master = channel(self.master_host, self.master_port)
            heartbeats = None
            try:
                await master.open()
                brokers = await self._register(master)
                partitions = await self._partitions(master, brokers)
                broker_channels = {}
                for broker_id in {broker_id for broker_id, _ in partitions}:
                    info = brokers[broker_id]
                    broker_channels[broker_id] = await channel(info.host, info.port).open()
                heartbeats = asyncio.create_task(self._heartbeats(master))
                await self._send_all(payloads, [(broker_channels[b], pid) for b, pid in partitions])
                await self._close(master)
            except CallFailed as exc:
                report.standby = report.standby or exc.standby
                if report.error is None:
                    report.error = str(exc)
                log.error("%s", exc)
            finally:
                if heartbeats is not None:
                    heartbeats.cancel()
                    await asyncio.gather(heartbeats, return_exceptions=True)
                for item in channels:
                    await item.close()
        return report

    async def _register(self, master: RpcChannel) -> dict[int, strings.BrokerInfo]:
        request = master_pb.RegisterRequestP2M(clientId=self.client_id, topicList=[self.topic],
                                               brokerCheckSum=self._checksum, hostName=LOCAL_ADDRESS)
        response = await master.call("producerRegisterP2M", request)
        if not response.success:
            raise CallFailed(f"producerRegisterP2M refused: errCode {response.errCode}: {response.errMsg}")
        self._checksum = response.brokerCheckSum
        return {info.broker_id: info for info in map(strings.broker_info, response.brokerInfos)}

    async def _heartbeat(self, master: RpcChannel):
        request = master_pb.HeartRequestP2M(clientId=self.client_id, brokerCheckSum=self._checksum,
                                            hostName=LOCAL_ADDRESS, topicList=[self.topic])
        response = await master.call("producerHeartbeatP2M", request)
        if not response.success:
            raise CallFailed(f"producerHeartbeatP2M refused: errCode {response.errCode}: {response.errMsg}")
        return response

    async def _partitions(self, master: RpcChannel, brokers) -> list[tuple[int, int]]:
        """(broker id, partition id) of the topic, from the first heartbeat's topicInfos."""
        response = await self._heartbeat(master)
        out = [(slot.broker_id, pid) for info in map(strings.topic_info, response.topicInfos)
               if info.topic == self.topic for slot in info.slots if slot.broker_id in brokers
               for pid in slot.partition_ids]
        if not out:
            raise CallFailed(f"the master publishes no partition of topic {self.topic!r}")
        return out

    async def _heartbeats(self, master: RpcChannel) -> None:
        while True:
            await asyncio.sleep(self.heartbeat_interval)
            try:
                await self._heartbeat(master)
            except CallFailed as exc:  # sending goes on: the broker does not ask the master
                log.warning("heartbeat: %s", exc)

    async def _send_all(self, payloads, targets: list[tuple[RpcChannel, int]]) -> None:
        pending: set[asyncio.Task] = set()
        turn = itertools.cycle(targets)
        try:
            async for payload in _aiter(payloads):
                while len(pending) >= self.max_in_flight:
                    _, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                if self.report.error is not None:
                    break
                pending.add(asyncio.create_task(self._send(*next(turn), payload)))
        finally:
            await asyncio.gather(*pending, return_exceptions=True)

    async def _send(self, broker: RpcChannel, partition_id: int, payload: bytes) -> None:
        report = self.report
        data, flag = encode_message_data(payload, self.attribute)
        request = broker_pb.SendMessageRequestP2B(clientId=self.client_id, topicName=self.topic,
                                                  partitionId=partition_id, data=data, flag=flag, checkSum=-1,
                                                  sentAddr=strings.pack_address(LOCAL_ADDRESS))
        report.sent += 1
        try:
            response = await broker.call("sendMessageP2B", request)
        except CallFailed as exc:
            if exc.exception is None:
                report.lost += 1
                if report.error is None and broker.lost is not None:
                    report.error = broker.lost
            else:
                report.failed += 1
                report.error_codes[lenient_text(exc.exception.class_name)] += 1
            log.warning("message to partition %d: %s", partition_id, exc)
            return
        if response.errCode == ERR["SUCCESS"]:
            report.acked += 1
            report.partitions[partition_id] += 1
        else:
            report.failed += 1
            report.error_codes[str(response.errCode)] += 1
            log.warning("message to partition %d refused: errCode %d: %s", partition_id, response.errCode,
                        response.errMsg)

    async def _close(self, master: RpcChannel) -> None:
        response = await master.call("producerCloseClientP2M", master_pb.CloseRequestP2M(clientId=self.client_id))
        if not response.success:
            log.warning("producerCloseClientP2M: errCode %d: %s", response.errCode, response.errMsg)


async def _aiter(items):
    if hasattr(items, "__aiter__"):
        async for item in items:
            yield item
    else:
        for item in items:
            yield item


# -- the consumer -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Received:
    """One message a consumer delivered."""

    topic: str
    partition_id: int
    message_id: int
    flag: int
    data: MessageData

    def to_dict(self) -> dict:
        return {"topic": self.topic, "partition": self.partition_id, "message_id": self.message_id,
                "flag": self.flag, **self.data.to_dict()}


@dataclass
class ConsumeReport:
    """What a consumer run did. ok: no error, and the count asked for (if any) was received."""

    received: int = 0
    expected: int | None = None
    corrupt: int = 0  # messages whose checksum did not match (not delivered)
    fetch_errors: Counter = field(default_factory=Counter)  # errCode -> getMessagesC2B answers (404 aside)
    partitions: list = field(default_factory=list)  # partition ids held when the run ended
    timed_out: bool = False
    standby: bool = False
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and (self.expected is None or self.received >= self.expected)

    def to_dict(self) -> dict:
        return {"received": self.received, "expected": self.expected, "corrupt": self.corrupt,
                "fetch_errors": {str(code): n for code, n in sorted(self.fetch_errors.items())},
                "partitions": sorted(self.partitions), "timed_out": self.timed_out, "standby": self.standby,
                "error": self.error, "ok": self.ok}


@dataclass
class _Held:
    broker: RpcChannel
    info: strings.Partition
    used_up: bool = True  # every message of the last pack was delivered (so it may be confirmed)


class TubeMQConsumer:
    """Consumes one topic as a member of `group`. `await consumer.run(on_message)` -> report.

    count: stop after this many messages (None: until timeout). timeout: seconds the run may last.
    call_timeout: seconds for the connections and for each answer. from_max: a group new to a partition
    starts at its end instead of its first stored message. poll_interval: seconds to wait when no
    partition had anything new. strict: RpcChannel's, for every connection.
    """

    def __init__(self, master_host: str, master_port: int, topic: str, group: str, *, count: int | None = None,
                 timeout: float = 30.0, call_timeout: float = 10.0, heartbeat_interval: float = 5.0,
                 poll_interval: float = 0.1, from_max: bool = False, record: str | os.PathLike | None = None,
                 record_sent: str | os.PathLike | None = None, strict: Report | None = None):
        self.strict = strict
        self.master_host, self.master_port, self.topic, self.group = master_host, master_port, topic, group
        self.count, self.timeout, self.call_timeout = count, timeout, call_timeout
        self.heartbeat_interval, self.poll_interval, self.from_max = heartbeat_interval, poll_interval, from_max
        self.record, self.record_sent = record, record_sent
        self.client_id = consumer_id(group)
        self.report = ConsumeReport(expected=count)
        self._held: dict[int, _Held] = {}
        self._brokers: dict[tuple[str, int], RpcChannel] = {}
        self._files: tuple[BinaryIO | None, BinaryIO | None] = (None, None)  # record, record_sent, while running
        self._done_event = None  # the EventProto to report done in the next heartbeat

    async def run(self, on_message: Callable[[Received], None] = lambda received: None) -> ConsumeReport:
        report = self.report
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout
        with _recording(self.record, self.record_sent) as files:
            self._files = files
            master = RpcChannel(self.master_host, self.master_port, timeout=self.call_timeout, record=files[0],
                                record_sent=files[1], strict=self.strict)
            try:
                await master.open()
                await self._register(master)
                next_heartbeat = next_broker_heartbeat = loop.time()
                while not self._enough() and loop.time() < deadline:
                    now = loop.time()
                    if now >= next_heartbeat or self._done_event is not None:
                        await self._heartbeat(master)
                        next_heartbeat = now + (self.heartbeat_interval if self._held else
                                                min(self.heartbeat_interval, 5 * self.poll_interval))
                    if now >= next_broker_heartbeat:
                        await self._broker_heartbeats()
                        next_broker_heartbeat = now + self.heartbeat_interval
                    if not await self._fetch_round(on_message):
                        await asyncio.sleep(max(0.0, min(self.poll_interval, deadline - loop.time())))
                report.timed_out = not self._enough()
                report.partitions = sorted(self._held)
                await self._leave(master)
            except CallFailed as exc:
                report.standby = exc.standby
                report.error = str(exc)
                log.error("%s", exc)
            except DecodeError as exc:  # a structured string from the master that does not parse
                report.error = f"unreadable answer: {exc}"
                log.error("%s", report.error)
            finally:
                report.partitions = report.partitions or sorted(self._held)
                for channel in [master, *self._brokers.values()]:
                    await channel.close()
        return report

    def _enough(self) -> bool:
        return self.count is not None and self.report.received >= self.count

    # -- with the master -------------------------------------------------------------------------

    async def _register(self, master: RpcChannel) -> None:
        request = master_pb.RegisterRequestC2M(clientId=self.client_id, groupName=self.group,
                                               hostName=LOCAL_ADDRESS, topicList=[self.topic],
                                               requireBound=False)
        response = await master.call("consumerRegisterC2M", request)
        if not response.success:
            raise CallFailed(f"consumerRegisterC2M refused: errCode {response.errCode}: {response.errMsg}")

    async def _heartbeat(self, master: RpcChannel) -> None:
        request = master_pb.HeartRequestC2M(clientId=self.client_id, groupName=self.group,
                                            subscribeInfo=self._subscribe_infos(), reportSubscribeInfo=True)
        if self._done_event is not None:
            request.event.CopyFrom(self._done_event)
            self._done_event = None
        response = await master.call("consumerHeartbeatC2M", request)
        if not response.success:
            raise CallFailed(f"consumerHeartbeatC2M refused: errCode {response.errCode}: {response.errMsg}")
        if response.HasField("event"):
            await self._apply(response.event)

    def _subscribe_infos(self) -> list[str]:
        return [strings.format_subscribe_info(strings.Subscription(self.client_id, self.group, held.info))
                for held in self._held.values()]

    async def _apply(self, event) -> None:
        """Take or release the event's partitions at their broker, then report it done."""
        connect = event.opType in (EVENT["CONNECT"], EVENT["ONLY_CONNECT"])
        for text in event.subscribeInfo:
            info = strings.subscribe_info(text, "event.subscribeInfo").partition
            if connect:
                await self._take(info)
            elif info.partition_id in self._held:
                await self._release(self._held.pop(info.partition_id), confirm=True)
        self._done_event = master_pb.EventProto(rebalanceId=event.rebalanceId, opType=event.opType,
                                                status=EVENT_DONE, subscribeInfo=event.subscribeInfo)

    async def _leave(self, master: RpcChannel) -> None:
        for held in list(self._held.values()):
            await self._release(held, confirm=held.used_up)
        self._held.clear()
        request = master_pb.CloseRequestC2M(clientId=self.client_id, groupName=self.group)
        await master.call("consumerCloseClientC2M", request)

    # -- with the broker -------------------------------------------------------------------------

    async def _broker(self, info: strings.Partition) -> RpcChannel:
        key = (info.host, info.port)
        if key not in self._brokers:
            channel = RpcChannel(info.host, info.port, timeout=self.call_timeout, record=self._files[0],
                                 record_sent=self._files[1], strict=self.strict)
            self._brokers[key] = await channel.open()
        return self._brokers[key]

    async def _take(self, info: strings.Partition) -> None:
        broker = await self._broker(info)
        read_status = CONSUME_MODEL["READ_FROM_MAX"] if self.from_max else CONSUME_MODEL["READ_NORMAL"]
        request = broker_pb.RegisterRequestC2B(opType=OP["MSG_OPTYPE_REGISTER"], clientId=self.client_id,
                                               groupName=self.group, topicName=info.topic,
                                               partitionId=info.partition_id, readStatus=read_status)
        response = await broker.call("consumerRegisterC2B", request)
        if response.success:
            self._held[info.partition_id] = _Held(broker, info)
            log.info("holding partition %d from offset %d", info.partition_id, response.currOffset)
        else:
            log.warning("cannot take partition %d: errCode %d: %s", info.partition_id, response.errCode,
                        response.errMsg)

    async def _release(self, held: _Held, *, confirm: bool) -> None:
        """Confirm the last pack if it was all delivered, then unregister from the partition."""
        info = held.info
        if confirm:
            await held.broker.call("consumerCommitC2B", broker_pb.CommitOffsetRequestC2B(
                clientId=self.client_id, topicName=info.topic, partitionId=info.partition_id,
                groupName=self.group, lastPackConsumed=True))
        await held.broker.call("consumerRegisterC2B", broker_pb.RegisterRequestC2B(
            opType=OP["MSG_OPTYPE_UNREGISTER"], clientId=self.client_id, groupName=self.group,
            topicName=info.topic, partitionId=info.partition_id, readStatus=CONSUME_MODEL["READ_NORMAL"]))

    async def _broker_heartbeats(self) -> None:
        for broker in {id(h.broker): h.broker for h in self._held.values()}.values():
            infos = [strings.format_partition(h.info) for h in self._held.values() if h.broker is broker]
            response = await broker.call("consumerHeartbeatC2B", broker_pb.HeartBeatRequestC2B(
                clientId=self.client_id, groupName=self.group, readStatus=CONSUME_MODEL["READ_NORMAL"],
                partitionInfo=infos))
            for text in response.failureInfo:
                log.warning("broker %s: partition failure %s", broker.name, text)

    async def _fetch_round(self, on_message: Callable[[Received], None]) -> bool:
        """One getMessagesC2B per held partition; True if any gave messages."""
        got = False
        for partition_id, held in list(self._held.items()):
            if self._enough():
                break
            response = await held.broker.call("getMessagesC2B", broker_pb.GetMessageRequestC2B(
                clientId=self.client_id, partitionId=partition_id, groupName=self.group, topicName=self.topic,
                lastPackConsumed=True))
            if response.errCode == ERR["NOT_FOUND"]:
                continue
            if not response.success:
                self.report.fetch_errors[response.errCode] += 1
                log.warning("getMessagesC2B on partition %d: errCode %d: %s", partition_id, response.errCode,
                            response.errMsg)
                continue
            got = True
            held.used_up = self._deliver(partition_id, response.messages, on_message)
        return got

    def _deliver(self, partition_id: int, messages, on_message) -> bool:
        """Hand the pack's messages over, up to the count; True if none was left undelivered."""
        for message in messages:
            if self._enough():
                return False
            data = message_data(message.payLoadData, message.flag, message.checkSum, strict=False)
            if not data.checksum_ok:
                self.report.corrupt += 1
                log.warning("partition %d: message %d fails its checksum, dropped", partition_id, message.messageId)
                continue
            self.report.received += 1
            on_message(Received(self.topic, partition_id, message.messageId, message.flag, data))
        return True
