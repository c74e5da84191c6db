"""Reference asyncio TubeMQ master: producers and consumers register and heartbeat, and learn the broker.

`MasterState` is the sans-IO part (what each request is answered with); `serve` runs it behind
`server.RpcServer`. What the real master (apache/inlong TMaster) does and this one mirrors:

* producerRegisterP2M: success with the broker list (`brokerId:host:port`, the default port 8123 written
  as a single space) and its checksum, a version id of that list; no topics yet.
* producerHeartbeatP2M: the topics the producer asked for that are deployed, as
  `topic#brokerId:partNum:storeNum#maxMsgSize`, and the broker list only when the producer's checksum
  differs from the master's.
* producerCloseClientP2M, consumerCloseClientC2M: the client is forgotten.
* consumerRegisterC2M: the group joins; every topic asked for must be deployed.
* consumerHeartbeatC2M: rebalancing by events. The master gives each consumer of a group its share of
  the partitions (partition k to the k-th member modulo the group size, members sorted by id) in an
  EventProto: DISCONNECT for what it must release first, then CONNECT for what it may take, each with
  `consumerId@group#brokerId:host:port#topic:partitionId` entries. An event is sent once; the consumer
  reports it done (its rebalanceId) in a later heartbeat, and only then does the master count the change.
  A partition is never offered while another consumer of the group still holds it.
* Business errors are SUCCESS answers with success=false and an errCode (400, 411 for an unknown
  client); with standby=True every request is answered with the StandbyException a master that is not
  the active one throws ("<host:port> is not master now. the connecting client id is <clientId>").

Kept small on purpose: one broker, topics fixed at start (each with the same partitions and stores),
no authentication, no flow control. Clients not heard from for session_timeout seconds are forgotten
(the real master's heartbeat timeout), and at most max_clients are known at once (others get 503), so a
peer cannot grow its memory without bound. So that one connection cannot fill that table and lock every
other client out, a connection may hold at most max_clients_per_connection registrations (a client belongs
to the connection it last registered or heartbeated on; more get 503), and a connection's clients are
forgotten as soon as it closes.
"""
from __future__ import annotations

import asyncio
import itertools
import logging
import os
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from inlong_proto.endpoints.common import DEFAULT_LOG_RATE, peer_name
from inlong_proto.generated.protobuf.tubemq import MasterService_pb2 as pb
from inlong_proto.generated.tables.tubemq.methods import DATA as TABLE
from inlong_proto.tubemq import strings
from inlong_proto.tubemq.rpc import STANDBY_CLASS
from inlong_proto.core.conformance import Report
from inlong_proto.endpoints.tubemq_server import (DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_FRAME_SIZE, Refusal, RpcServer,
                                                  RuleNotes)

log = logging.getLogger(__name__)

ERR = TABLE["enums"]["error_code"]["values"]
EVENT = TABLE["enums"]["event_type"]["values"]
EVENT_DONE = TABLE["enums"]["event_status"]["values"]["DONE"]
DEFAULT_PORT = 8715  # TBaseConstants: the master's default port
DEFAULT_TOPIC = "demo"
DEFAULT_PARTITIONS = 3
#: Largest message the topics accept, in bytes (TBaseConstants.META_MAX_MESSAGE_DATA_SIZE, 1 MiB).
DEFAULT_MAX_MESSAGE_SIZE = 1024 * 1024
#: Seconds after which a client that sent nothing is forgotten.
DEFAULT_SESSION_TIMEOUT = 30.0
#: Clients (producers and consumers) known at once; a register over it is refused with 503.
DEFAULT_MAX_CLIENTS = 1000
#: Clients one connection may hold registered at once; a register over it is refused with 503. A Java
#: process's producers and consumers share one connection to the master, so this is a handful, not one.
DEFAULT_MAX_CLIENTS_PER_CONNECTION = 32
OK = "OK!"


@dataclass
class _Event:
    rebalance_id: int
    op_type: int  # EVENT CONNECT or DISCONNECT
    parts: frozenset  # (topic, partition id)
    sent: bool = False


@dataclass
class _Client:
    group: str | None  # None: a producer
    topics: tuple[str, ...]
    seen: float
    peer: str = "?"  # the connection ("ip:port") it last registered or heartbeated on
    held: set = field(default_factory=set)  # (topic, partition id) the consumer confirmed it holds
    event: _Event | None = None


#: The heartbeats a registered client sends within the session timeout.
_HEARTBEATS = frozenset({"producerHeartbeatP2M", "consumerHeartbeatC2M"})


class MasterState(RuleNotes):
    """The sans-IO master: `handle(method, request, peer)` gives the response message or raises Refusal.

    broker: the one broker every topic lives on. topics: the deployed topics, each with `partitions`
    partitions in each of `stores` stores. address: "host:port" the standby answer names. clock: seconds.
    peer (of handle): the connection a request came on; release(peer) forgets its clients.
    """

    methods = frozenset({"producerRegisterP2M", "producerHeartbeatP2M", "producerCloseClientP2M",
                         "consumerRegisterC2M", "consumerHeartbeatC2M", "consumerCloseClientC2M"})

    def __init__(self, broker: strings.BrokerInfo, topics: Iterable[str] = (DEFAULT_TOPIC,), *,
                 partitions: int = DEFAULT_PARTITIONS, stores: int = 1,
                 max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE, standby: bool = False,
                 address: str = f"127.0.0.1:{DEFAULT_PORT}", session_timeout: float = DEFAULT_SESSION_TIMEOUT,
                 max_clients: int = DEFAULT_MAX_CLIENTS,
                 max_clients_per_connection: int = DEFAULT_MAX_CLIENTS_PER_CONNECTION,
                 clock: Callable[[], float] = time.time):
        if partitions < 1 or stores < 1:
            raise ValueError("a topic needs at least one partition and one store")
        self.broker, self.standby, self.address, self.clock = broker, standby, address, clock
        self.session_timeout, self.max_clients = session_timeout, max_clients
        self.max_clients_per_connection = max_clients_per_connection
        slot = strings.PartitionSlot(broker.broker_id, partitions, stores)
        self.topics = {topic: strings.TopicInfo(topic, (slot,), max_message_size) for topic in topics}
        self.broker_checksum = int(clock() * 1000)  # a version id of the broker list, as the real one
        self.clients: dict[str, _Client] = {}
        self._held: Counter = Counter()  # peer -> clients it holds
        self._rebalance_ids = itertools.count(int(clock() * 1000))

    def handle(self, method: str, request, peer: str):
        if self.standby:
            raise Refusal(STANDBY_CLASS, f"{self.address} is not master now. "
                                         f"the connecting client id is {request.clientId}")
        silent = self._silent_for(request.clientId) if method in _HEARTBEATS else None
        self._forget_silent()
        response = getattr(self, "_" + method)(request, peer)
        if method in _HEARTBEATS and response.errCode == ERR["HB_NO_NODE"]:
            if silent is not None and silent > self.session_timeout:
                self._note("tubemq.heartbeat-timeout", f"a heartbeat of {request.clientId} {silent:.3g} s after "
                                                       f"its last, over the session timeout {self.session_timeout:g} s")
            else:
                self._note("tubemq.register-first", f"a heartbeat of {request.clientId}, not registered as one")
        return response

    def release(self, peer: str) -> int:
        """The connection `peer` closed: forget the clients it holds at once; how many."""
        gone = [cid for cid, client in self.clients.items() if client.peer == peer]
        for client_id in gone:
            self._remove(client_id)
        if gone:
            log.info("%s closed: forgetting its %d client(s)", peer, len(gone))
        return len(gone)

    # -- producers -----------------------------------------------------------------------------

    def _producerRegisterP2M(self, request, peer: str):
        response = pb.RegisterResponseM2P(success=False, brokerCheckSum=-1)
        problem = self._check_client(request.clientId, request.topicList, need_deployed=False)
        if problem is None:
            problem = self._join(request.clientId, _Client(None, tuple(request.topicList), self.clock(), peer))
        if problem is not None:
            return _failed(response, *problem)
        response.brokerCheckSum = self.broker_checksum
        response.brokerInfos.append(strings.format_broker_info(self.broker))
        return _succeeded(response)

    def _producerHeartbeatP2M(self, request, peer: str):
        response = pb.HeartResponseM2P(success=False, brokerCheckSum=-1)
        client = self.clients.get(request.clientId)
        if client is None or client.group is not None:
            return _failed(response, ERR["HB_NO_NODE"], f"Producer {request.clientId} is not registered")
        self._move(client, peer)
        client.seen, client.topics = self.clock(), tuple(request.topicList)
        response.brokerCheckSum = self.broker_checksum
        if request.brokerCheckSum != self.broker_checksum:
            response.brokerInfos.append(strings.format_broker_info(self.broker))
        response.topicInfos.extend(strings.format_topic_info(self.topics[topic])
                                   for topic in dict.fromkeys(request.topicList) if topic in self.topics)
        return _succeeded(response)

    def _producerCloseClientP2M(self, request, peer: str):
        self._remove(request.clientId)
        return _succeeded(pb.CloseResponseM2P(success=False))

    # -- consumers -----------------------------------------------------------------------------

    def _consumerRegisterC2M(self, request, peer: str):
        response = pb.RegisterResponseM2C(success=False)
        problem = self._check_client(request.clientId, request.topicList, need_deployed=True)
        if problem is None and not request.groupName.strip():
            problem = ERR["BAD_REQUEST"], "Request miss necessary groupName field!"
            self._note("tubemq.required-fields", problem[1])
        if problem is None:
            known = self.clients.get(request.clientId)
            consumer = _Client(request.groupName, tuple(dict.fromkeys(request.topicList)), self.clock(), peer=peer)
            if known is not None and known.group == consumer.group:
                consumer.held = known.held  # registering again keeps what it holds
            problem = self._join(request.clientId, consumer)
        if problem is not None:
            return _failed(response, *problem)
        response.notAllocated = False
        return _succeeded(response)

    def _consumerHeartbeatC2M(self, request, peer: str):
        response = pb.HeartResponseM2C(success=False)
        client = self.clients.get(request.clientId)
        if client is None or client.group != request.groupName:
            return _failed(response, ERR["HB_NO_NODE"], f"Not found groupName {request.groupName} in holder!")
        self._move(client, peer)
        client.seen = self.clock()
        event = client.event
        if (event is not None and request.HasField("event") and request.event.rebalanceId == event.rebalance_id
                and request.event.status == EVENT_DONE):
            client.held = (client.held | event.parts if event.op_type == EVENT["CONNECT"]
                           else client.held - event.parts)
            client.event = event = None
        if event is None:
            client.event = event = self._next_event(request.clientId, client)
        if event is not None and not event.sent:
            event.sent = True
            response.event.CopyFrom(pb.EventProto(rebalanceId=event.rebalance_id, opType=event.op_type,
                                                  subscribeInfo=self._subscribe_infos(request.clientId,
                                                                                      client.group, event.parts)))
        response.notAllocated = False
        return _succeeded(response)

    def _consumerCloseClientC2M(self, request, peer: str):
        self._remove(request.clientId)
        return _succeeded(pb.CloseResponseM2C(success=False))

    # -- rebalancing ---------------------------------------------------------------------------

    def _next_event(self, client_id: str, client: _Client) -> _Event | None:
        """What the consumer must release first, else what it may take now (None: nothing changes)."""
        members = sorted(cid for cid, c in self.clients.items() if c.group == client.group)
        parts = sorted((topic, pid) for topic in client.topics for slot in self.topics[topic].slots
                       for pid in slot.partition_ids)
        share = {part for k, part in enumerate(parts) if members[k % len(members)] == client_id}
        release = client.held - share
        if release:
            return _Event(next(self._rebalance_ids), EVENT["DISCONNECT"], frozenset(release))
        taken = set().union(*(c.held | (c.event.parts if c.event else set())
                              for cid, c in self.clients.items() if c.group == client.group and cid != client_id))
        take = share - client.held - taken
        if take:
            return _Event(next(self._rebalance_ids), EVENT["CONNECT"], frozenset(take))
        return None

    def _subscribe_infos(self, client_id: str, group: str, parts) -> list[str]:
        broker = self.broker
        return [strings.format_subscribe_info(strings.Subscription(
            client_id, group, strings.Partition(broker.broker_id, broker.host, broker.port, topic, pid)))
            for topic, pid in sorted(parts)]

    # -- bookkeeping ---------------------------------------------------------------------------

    def _silent_for(self, client_id: str) -> float | None:
        """Seconds since a known client was last heard (None: not known)."""
        client = self.clients.get(client_id)
        return None if client is None else self.clock() - client.seen

    def _check_client(self, client_id: str, topics, *, need_deployed: bool) -> tuple[int, str] | None:
        if not client_id.strip():
            self._note("tubemq.required-fields", "a register without clientId")
            return ERR["BAD_REQUEST"], "Request miss necessary clientId field!"
        if not topics:
            self._note("tubemq.required-fields", f"a register of {client_id} without topicList")
            return ERR["BAD_REQUEST"], "Request miss necessary topicList field!"
        missing = [topic for topic in topics if topic not in self.topics]
        if need_deployed and missing:
            return ERR["BAD_REQUEST"], f"Topic(s) {', '.join(missing)} not deployed"
        return None

    def _join(self, client_id: str, client: _Client) -> tuple[int, str] | None:
        known = self.clients.get(client_id)
        if known is None and len(self.clients) >= self.max_clients:
            return ERR["SERVICE_UNAVAILABLE"], f"over {self.max_clients} clients registered"
        if (known is None or known.peer != client.peer) and self._held[client.peer] >= self.max_clients_per_connection:
            return ERR["SERVICE_UNAVAILABLE"], (f"over {self.max_clients_per_connection} clients registered on "
                                                f"this connection")
        self._remove(client_id)
        self.clients[client_id] = client
        self._held[client.peer] += 1
        return None

    def _move(self, client: _Client, peer: str) -> None:
        """A client heard on another connection (its old one reconnected) now belongs to that one."""
        if client.peer != peer:
            self._drop_hold(client.peer)
            client.peer = peer
            self._held[peer] += 1

    def _remove(self, client_id: str) -> None:
        client = self.clients.pop(client_id, None)
        if client is not None:
            self._drop_hold(client.peer)

    def _drop_hold(self, peer: str) -> None:
        self._held[peer] -= 1
        if self._held[peer] <= 0:
            del self._held[peer]

    def _forget_silent(self) -> None:
        limit = self.clock() - self.session_timeout
        for client_id in [cid for cid, client in self.clients.items() if client.seen < limit]:
            log.info("forgetting %s: nothing heard for %gs", client_id, self.session_timeout)
            self._remove(client_id)


def _succeeded(response):
    response.success, response.errCode, response.errMsg = True, ERR["SUCCESS"], OK
    return response


def _failed(response, code: int, text: str):
    response.errCode, response.errMsg = code, text
    return response


class TubeMQMaster(RpcServer):
    """The master over TCP: `async with TubeMQMaster(broker=BrokerInfo(1, host, port), port=0) as master:`.

    The MasterState options (topics, partitions, stores, standby, ...) go to `master.state`; record,
    record_sent, the connection limits and strict (the conformance report) to RpcServer.
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, broker: strings.BrokerInfo,
                 topics: Iterable[str] = (DEFAULT_TOPIC,), partitions: int = DEFAULT_PARTITIONS, stores: int = 1,
                 max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE, standby: bool = False,
                 session_timeout: float = DEFAULT_SESSION_TIMEOUT, max_clients: int = DEFAULT_MAX_CLIENTS,
                 max_clients_per_connection: int = DEFAULT_MAX_CLIENTS_PER_CONNECTION,
                 record: str | os.PathLike | None = None, record_sent: str | os.PathLike | None = None,
                 idle_timeout: float | None = DEFAULT_IDLE_TIMEOUT, max_frame_size: int = DEFAULT_MAX_FRAME_SIZE,
                 log_rate: float | None = DEFAULT_LOG_RATE, strict: Report | None = None):
        self.state = MasterState(broker, topics, partitions=partitions, stores=stores,
                                 max_message_size=max_message_size, standby=standby,
                                 session_timeout=session_timeout, max_clients=max_clients,
                                 max_clients_per_connection=max_clients_per_connection)
        super().__init__(self.state, host, port, logger=log, record=record, record_sent=record_sent,
                         idle_timeout=idle_timeout, max_frame_size=max_frame_size, log_rate=log_rate, strict=strict)

    async def start(self) -> None:
        await super().start()
        self.state.address = "{}:{}".format(*self.address)  # what a standby answer names

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """A connection's clients are forgotten the moment it closes, not a session timeout later."""
        try:
            await super()._handle(reader, writer)
        finally:
            self.state.release(peer_name(writer))

