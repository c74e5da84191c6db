"""Reference asyncio TubeMQ broker: stores what producers send, in memory, and serves it to consumers.

`BrokerState` is the sans-IO part; `serve` runs it behind `server.RpcServer`. What the real broker
(apache/inlong BrokerServiceServer) does and this one mirrors:

* sendMessageP2B: the topic must be deployed and the partition exist (else 403 "... not existed, please
  check your configure"); empty data 400, data over the maximum size 400, a checkSum other than -1 that
  is not CRC32(data) & 0x7FFFFFFF 403. The message is stored with the checksum the broker computes and
  the flag as sent; the answer carries errCode 200, the message id (also as errMsg, the deprecated
  form older clients read), appendTime and appendOffset.
* consumerRegisterC2B: opType 31 registers a consumer of a group on a partition (410 while another live
  consumer of the group holds it) and answers the group's offset and the partition's max offset;
  opType 32 releases it. A group without an offset starts at the first stored message, or at the end with
  readStatus READ_FROM_MAX (1, 2 always).
* getMessagesC2B: 411 for a consumer not registered on the partition, 412 for one that is not its
  holder; else the messages from the group's offset (TransferedMessage: messageId, checkSum, the data
  exactly as sent, flag), currOffset and maxOffset, or 404 "The request offset reached maxOffset!" when
  there is nothing new. lastPackConsumed=true confirms the previous answer's messages (the offset moves
  past them); false gets them again.
* consumerHeartbeatC2B: keeps the listed partitions' registrations alive; partitions the consumer does
  not hold come back in failureInfo (`411:` or `412:` + the partition).
* consumerCommitC2B: confirms the last messages served, as lastPackConsumed does.

Offsets count messages (0, 1, 2, ...) where the real broker counts bytes of its index file. Memory is
bounded: each partition keeps its last max_messages messages (older ones are dropped, and a group whose
offset fell behind resumes at the oldest kept), a message is at most max_message_size bytes, all partitions
together hold at most max_bytes of message data (a produce that would go over is refused with 419
SERVER_RECEIVE_OVERFLOW, the real broker's answer when its store cannot take a message; its clients retry),
topics are fixed at start, and at most max_groups group offsets are kept (when full, the oldest offset no
consumer holds makes room; 503 only when every one is held). A registration not refreshed (heartbeat or
fetch) for session_timeout seconds lapses, so a vanished consumer does not hold a partition forever; one
connection holds at most max_registrations partitions at once (503 beyond), and its registrations are
released as soon as it closes.

faults (endpoints.faults, tests of the audit): a plan over the sendMessageP2B requests the broker receives;
"fail" answers as upstream's broker does when its store cannot take a message (419 SERVER_RECEIVE_OVERFLOW,
"Put message failed from HOST, server receive message overflow!"), nothing stored.
"""
from __future__ import annotations

import asyncio
import itertools
import logging
import os
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from inlong_proto.endpoints.common import DEFAULT_LOG_RATE, peer_name
from inlong_proto.endpoints.faults import Faults
from inlong_proto.core.errors import DecodeError
from inlong_proto.generated.protobuf.tubemq import BrokerService_pb2 as pb
from inlong_proto.generated.tables.tubemq.methods import DATA as TABLE
from inlong_proto.tubemq import strings
from inlong_proto.tubemq.rpc import RpcMessage, checksum_of, message_data, response_frame
from inlong_proto.core.conformance import Report
from inlong_proto.endpoints.tubemq_server import DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_FRAME_SIZE, RpcServer, RuleNotes

log = logging.getLogger(__name__)

ERR = TABLE["enums"]["error_code"]["values"]
OP = TABLE["enums"]["register_op_type"]["values"]
READ_FROM_MAX = TABLE["enums"]["consume_model"]["values"]["READ_FROM_MAX"]
DEFAULT_PORT = strings.DEFAULT_BROKER_PORT
DEFAULT_TOPIC = "demo"
DEFAULT_PARTITIONS = 3
DEFAULT_MAX_MESSAGE_SIZE = 1024 * 1024  # TBaseConstants.META_MAX_MESSAGE_DATA_SIZE
#: Messages kept per partition; older ones are dropped first.
DEFAULT_MAX_MESSAGES = 10_000
#: Payload bytes one getMessagesC2B answer carries at most (at least one message always goes).
DEFAULT_FETCH_BYTES = 512 * 1024
DEFAULT_SESSION_TIMEOUT = 30.0
#: Group offsets kept at once (one per group and partition); a register that needs another gets 503.
DEFAULT_MAX_GROUPS = 10_000
#: Message data all partitions hold together, in bytes; a produce over it is answered 419.
DEFAULT_MAX_BYTES = 256 * 1024 * 1024
#: Partitions one connection may hold registered at once (consumers of one process share a connection).
DEFAULT_MAX_REGISTRATIONS = 64
OK = "OK!"


@dataclass(frozen=True)
class StoredMessage:
    offset: int
    message_id: int
    checksum: int
    data: bytes
    flag: int


class Partition:
    """One partition's messages: the last `limit` ones, offsets counting every message ever stored."""

    def __init__(self, limit: int):
        self.messages: deque[StoredMessage] = deque(maxlen=limit)
        self.max_offset = 0  # the next message's offset
        self.bytes = 0  # message data held

    @property
    def evicts(self) -> int:
        """Bytes the next append drops (the oldest message, when the partition is full)."""
        return len(self.messages[0].data) if len(self.messages) == self.messages.maxlen else 0

    @property
    def min_offset(self) -> int:
        return self.messages[0].offset if self.messages else self.max_offset

    def append(self, message_id: int, checksum: int, data: bytes, flag: int) -> StoredMessage:
        stored = StoredMessage(self.max_offset, message_id, checksum, data, flag)
        self.bytes += len(data) - self.evicts
        self.messages.append(stored)
        self.max_offset += 1
        return stored

    def read(self, offset: int, max_bytes: int) -> list[StoredMessage]:
        """Messages from offset on (from the oldest kept if it was dropped), up to max_bytes of data."""
        start = max(offset, self.min_offset) - self.min_offset
        out, size = [], 0
        for stored in itertools.islice(self.messages, start, None):
            if out and size + len(stored.data) > max_bytes:
                break
            out.append(stored)
            size += len(stored.data)
        return out


@dataclass
class _Offset:
    confirmed: int  # where the next read starts unless the last answer is confirmed
    served: int  # past the last answer's messages


@dataclass
class _Holder:
    client_id: str
    seen: float
    peer: str = "?"  # the connection it registered on


class BrokerState(RuleNotes):
    """The sans-IO broker: `handle(method, request, peer)` gives the response message.

    broker: this broker's id, host and port (what failureInfo names). topics: the deployed topics, each
    with `partitions` partitions in each of `stores` stores (ids store * 10000 + n, as the master says).
    peer (of handle): the connection a request came on; release(peer) drops its registrations.
    """

    methods = frozenset({"sendMessageP2B", "consumerRegisterC2B", "consumerHeartbeatC2B", "getMessagesC2B",
                         "consumerCommitC2B"})

    def __init__(self, broker: strings.BrokerInfo, topics: Iterable[str] = (DEFAULT_TOPIC,), *,
                 partitions: int = DEFAULT_PARTITIONS, stores: int = 1,
                 max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE, max_messages: int = DEFAULT_MAX_MESSAGES,
                 fetch_bytes: int = DEFAULT_FETCH_BYTES, session_timeout: float = DEFAULT_SESSION_TIMEOUT,
                 max_groups: int = DEFAULT_MAX_GROUPS, max_bytes: int = DEFAULT_MAX_BYTES,
                 max_registrations: int = DEFAULT_MAX_REGISTRATIONS, clock: Callable[[], float] = time.time):
        if max_messages < 1:
            raise ValueError("max_messages must be at least 1")
        self.broker, self.clock = broker, clock
        self.max_message_size, self.fetch_bytes = max_message_size, fetch_bytes
        self.session_timeout, self.max_groups = session_timeout, max_groups
        self.max_bytes, self.max_registrations = max_bytes, max_registrations
        ids = strings.PartitionSlot(broker.broker_id, partitions, stores).partition_ids
        self.partitions = {(topic, pid): Partition(max_messages) for topic in topics for pid in ids}
        self.offsets: dict[tuple[str, str, int], _Offset] = {}  # (group, topic, partition id)
        self.holders: dict[tuple[str, str, int], _Holder] = {}
        self._held: Counter = Counter()  # peer -> partitions it holds registered
        self._message_ids = itertools.count(1)

    def handle(self, method: str, request, peer: str):
        return getattr(self, "_" + method)(request, peer)

    @property
    def stored_bytes(self) -> int:
        """Message data held by every partition together (what max_bytes bounds)."""
        return sum(partition.bytes for partition in self.partitions.values())

    def release(self, peer: str) -> int:
        """The connection `peer` closed: its registrations end at once (the partitions are free for other
        consumers of the group); how many."""
        gone = [key for key, holder in self.holders.items() if holder.peer == peer]
        for key in gone:
            self._unhold(key)
        if gone:
            log.info("%s closed: releasing its %d partition registration(s)", peer, len(gone))
        return len(gone)

    def stored(self, topic: str, partition_id: int) -> list[StoredMessage]:
        """What a partition holds now (tests read it)."""
        return list(self.partitions[topic, partition_id].messages)

    # -- producers -----------------------------------------------------------------------------

    def _sendMessageP2B(self, request, peer: str):
        response = pb.SendMessageResponseB2P(success=False)
        partition = self.partitions.get((request.topicName, request.partitionId))
        data = request.data
        if partition is None:
            return _failed(response, ERR["FORBIDDEN"], _no_partition(request.topicName, request.partitionId))
        if not data:
            self._note("tubemq.message-size", "a message of 0 bytes")
            return _failed(response, ERR["BAD_REQUEST"], "data length is zero!")
        if len(data) > self.max_message_size:
            self._note("tubemq.message-size", f"a message of {len(data)} bytes, over {self.max_message_size}")
            return _failed(response, ERR["BAD_REQUEST"], f"data length over max length, allowed max length is "
                                                         f"{self.max_message_size}, data length is {len(data)}")
        checksum = checksum_of(data)
        if request.checkSum != -1 and request.checkSum != checksum:
            self._note("tubemq.checksum", f"checkSum {request.checkSum}, the data's is {checksum}")
            return _failed(response, ERR["FORBIDDEN"], f"Checksum msg data failure: {request.checkSum} of "
                           f"{request.topicName} not equal to the data's checksum of {checksum}")
        if self.stored_bytes - partition.evicts + len(data) > self.max_bytes:
            return _failed(response, ERR["SERVER_RECEIVE_OVERFLOW"], f"Put message failed from {self.broker.host}, "
                           f"server receive message overflow! (over {self.max_bytes} bytes stored)")
        if self.notes is not None and (error := message_data(data, request.flag, strict=False).error):
            self._note("tubemq.message-flag", error)  # stored all the same, as the real broker does
        stored = partition.append(next(self._message_ids), checksum, data, request.flag)
        _succeeded(response, str(stored.message_id))
        response.messageId, response.appendOffset = stored.message_id, stored.offset
        response.appendTime = int(self.clock() * 1000)
        return response

    # -- consumers -----------------------------------------------------------------------------

    def _consumerRegisterC2B(self, request, peer: str):
        response = pb.RegisterResponseB2C(success=False, currOffset=-1)
        key = (request.groupName, request.topicName, request.partitionId)
        partition = self.partitions.get(key[1:])
        if partition is None:
            return _failed(response, ERR["FORBIDDEN"], _no_partition(request.topicName, request.partitionId))
        holder = self._holder(key)
        if request.opType == OP["MSG_OPTYPE_UNREGISTER"]:
            if holder is None or holder.client_id != request.clientId:
                self._note("tubemq.register-first", f"{request.clientId} releases {_part_str(key)}, which it does "
                                                    "not hold")
                return _failed(response, ERR["HB_NO_NODE"], f"UnRegistered Consumer {request.clientId}, "
                                                            "you have to register firstly!")
            self._unhold(key)
            return _succeeded(response)
        if request.opType != OP["MSG_OPTYPE_REGISTER"]:
            self._note("tubemq.register-op", f"opType {request.opType}")
            return _failed(response, ERR["BAD_REQUEST"], f"Invalid request:{request.opType}")
        if holder is not None and holder.client_id != request.clientId:
            return _failed(response, ERR["PARTITION_OCCUPIED"], f"[Duplicated Register] Partition "
                           f"{self.broker.broker_id}#{_part_str(key)} has been registered by {holder.client_id}")
        if (holder is None or holder.peer != peer) and self._held[peer] >= self.max_registrations:
            return _failed(response, ERR["SERVICE_UNAVAILABLE"], f"over {self.max_registrations} partitions "
                                                                 "registered on this connection")
        offset = self.offsets.get(key)
        if offset is None:
            if len(self.offsets) >= self.max_groups and not self._forget_an_offset():
                return _failed(response, ERR["SERVICE_UNAVAILABLE"], f"over {self.max_groups} group offsets kept")
            start = partition.max_offset if request.readStatus >= READ_FROM_MAX else partition.min_offset
            offset = self.offsets[key] = _Offset(start, start)
        elif request.readStatus > READ_FROM_MAX:  # READ_FROM_MAX_ALWAYS
            offset.confirmed = offset.served = partition.max_offset
        if holder is not None:
            self._unhold(key)
        self.holders[key] = _Holder(request.clientId, self.clock(), peer)
        self._held[peer] += 1
        _succeeded(response)
        response.currOffset, response.maxOffset = offset.confirmed, partition.max_offset
        return response

    def _consumerHeartbeatC2B(self, request, peer: str):
        response = pb.HeartBeatResponseB2C(success=False)
        for text in request.partitionInfo:
            try:
                part = strings.partition(text)
            except DecodeError:  # not brokerId:host:port#topic:partitionId
                response.failureInfo.append(f"{ERR['BAD_REQUEST']}:{text}")
                continue
            key = (request.groupName, part.topic, part.partition_id)
            known, holder = self.holders.get(key), self._holder(key)
            if holder is not None and holder.client_id == request.clientId:
                holder.seen = self.clock()
            else:
                self._note_not_held(key, request.clientId, known, holder)
                code = ERR["HB_NO_NODE"] if holder is None else ERR["DUPLICATE_PARTITION"]
                response.failureInfo.append(strings.format_failure_info(code, part))
        response.hasPartFailure = bool(response.failureInfo)
        return _succeeded(response)

    def _getMessagesC2B(self, request, peer: str):
        response = pb.GetMessageResponseB2C(success=False, currOffset=-1, escFlowCtrl=False, currDataDlt=-1,
                                            minLimitTime=0)
        key = (request.groupName, request.topicName, request.partitionId)
        problem = self._check_holder(key, request.clientId)
        if problem is not None:
            return _failed(response, *problem)
        partition = self.partitions[key[1:]]
        offset = self.offsets[key]
        if request.lastPackConsumed:
            offset.confirmed = offset.served
        start = max(offset.confirmed, partition.min_offset)
        messages = partition.read(start, self.fetch_bytes)
        offset.served = start + len(messages)
        if not messages:
            return _failed(response, ERR["NOT_FOUND"], "The request offset reached maxOffset!")
        response.messages.extend(pb.TransferedMessage(messageId=m.message_id, checkSum=m.checksum,
                                                      payLoadData=m.data, flag=m.flag) for m in messages)
        _succeeded(response)
        response.currOffset, response.maxOffset = start, partition.max_offset
        response.currDataDlt, response.requireSlow = partition.max_offset - offset.served, False
        return response

    def _consumerCommitC2B(self, request, peer: str):
        response = pb.CommitOffsetResponseB2C(success=False, currOffset=-1)
        key = (request.groupName, request.topicName, request.partitionId)
        problem = self._check_holder(key, request.clientId)
        if problem is not None:
            return _failed(response, ERR["UNAUTHORIZED"], "The partition not registered by consumers")
        offset = self.offsets[key]
        if request.lastPackConsumed:
            offset.confirmed = offset.served
        _succeeded(response)
        response.currOffset, response.maxOffset = offset.confirmed, self.partitions[key[1:]].max_offset
        return response

    # -- bookkeeping ---------------------------------------------------------------------------

    def _holder(self, key) -> _Holder | None:
        """The live registration of a partition for a group (a lapsed one is removed)."""
        holder = self.holders.get(key)
        if holder is not None and self.clock() - holder.seen > self.session_timeout:
            log.info("registration of %s on %s lapsed", holder.client_id, _part_str(key))
            self._unhold(key)
            return None
        return holder

    def _unhold(self, key) -> None:
        holder = self.holders.pop(key, None)
        if holder is not None:
            self._held[holder.peer] -= 1
            if self._held[holder.peer] <= 0:
                del self._held[holder.peer]

    def _forget_an_offset(self) -> bool:
        """Make room for a group offset: drop the oldest one no live consumer holds (False: all are held)."""
        for key in self.offsets:
            if self._holder(key) is None:
                del self.offsets[key]
                return True
        return False

    def _note_not_held(self, key, client_id: str, known: _Holder | None, holder: _Holder | None) -> None:
        """A consumer used a partition it does not hold (`known`: its registration before a lapse was checked)."""
        where = _part_str(key)
        if holder is not None:
            self._note("tubemq.partition-owner", f"{client_id} on {where}, held by {holder.client_id}")
        elif known is not None and known.client_id == client_id:
            self._note("tubemq.heartbeat-timeout", f"{client_id}'s registration on {where} lapsed: no heartbeat "
                                                   f"or fetch for {self.session_timeout:g} s")
        else:
            self._note("tubemq.register-first", f"{client_id} on {where}, not registered there")

    def _check_holder(self, key, client_id: str) -> tuple[int, str] | None:
        known, holder = self.holders.get(key), self._holder(key)
        if holder is None or holder.client_id != client_id:
            self._note_not_held(key, client_id, known, holder)
        if holder is None:
            return ERR["HB_NO_NODE"], f"UnRegistered Consumer:{client_id}, you have to register firstly!"
        if holder.client_id != client_id:
            return ERR["DUPLICATE_PARTITION"], (f"[Duplicated Request] Partition={_part_str(key)} of Broker="
                                                f"{self.broker.broker_id} has been consumed by {holder.client_id}"
                                                f";Current consumer {client_id}")
        holder.seen = self.clock()
        return None


def _part_str(key) -> str:
    group, topic, partition_id = key
    return f"{group}-{topic}-{partition_id}"


def _no_partition(topic: str, partition_id: int) -> str:
    return f"Topic {topic}-{partition_id} not existed, please check your configure"


def _succeeded(response, text: str = OK):
    response.success, response.errCode, response.errMsg = True, ERR["SUCCESS"], text
    return response


def _failed(response, code: int, text: str):
    response.errCode, response.errMsg = code, text
    return response


class TubeMQBroker(RpcServer):
    """The broker over TCP: `async with TubeMQBroker(port=0) as broker:`; `broker.state` holds the store.

    broker_id must be the one the master announces; the state's host and port are this server's own.
    strict: the conformance report (RpcServer). faults: the module doc's; `faulted` lists (n, what).
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, broker_id: int = 1,
                 topics: Iterable[str] = (DEFAULT_TOPIC,), partitions: int = DEFAULT_PARTITIONS, stores: int = 1,
                 max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE, max_messages: int = DEFAULT_MAX_MESSAGES,
                 session_timeout: float = DEFAULT_SESSION_TIMEOUT, max_groups: int = DEFAULT_MAX_GROUPS,
                 max_bytes: int = DEFAULT_MAX_BYTES, max_registrations: int = DEFAULT_MAX_REGISTRATIONS,
                 record: str | os.PathLike | None = None, record_sent: str | os.PathLike | None = None,
                 idle_timeout: float | None = DEFAULT_IDLE_TIMEOUT, max_frame_size: int = DEFAULT_MAX_FRAME_SIZE,
                 log_rate: float | None = DEFAULT_LOG_RATE, faults: dict | None = None, strict: Report | None = None):
        self.faults = Faults(faults)
        self.state = BrokerState(strings.BrokerInfo(broker_id, host, port), topics, partitions=partitions,
                                 stores=stores, max_message_size=max_message_size, max_messages=max_messages,
                                 session_timeout=session_timeout, max_groups=max_groups, max_bytes=max_bytes,
                                 max_registrations=max_registrations)
        super().__init__(self.state, host, port, logger=log, record=record, record_sent=record_sent,
                         idle_timeout=idle_timeout, max_frame_size=max_frame_size, log_rate=log_rate, strict=strict)

    async def start(self) -> None:
        await super().start()
        host, port = self.address
        self.state.broker = strings.BrokerInfo(self.state.broker.broker_id, host, port)

    @property
    def faulted(self) -> list[tuple[int, str | float]]:
        return self.faults.faulted

    def _fault_of(self, rpc: RpcMessage) -> str | float | None:
        if not self.faults or rpc.method != "sendMessageP2B" or rpc.business is None:
            return None
        return self.faults.next()

    def _failure(self, rpc: RpcMessage):
        response = _failed(pb.SendMessageResponseB2P(success=False), ERR["SERVER_RECEIVE_OVERFLOW"],
                           f"Put message failed from {self.state.broker.host}, server receive message overflow!")
        return response_frame(rpc.serial_no, rpc.method, response), None

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """A connection's registrations end the moment it closes, not a session timeout later."""
        try:
            await super()._handle(reader, writer)
        finally:
            self.state.release(peer_name(writer))

