"""The structured strings TubeMQ puts inside its protobuf messages, parsed with the separators the code
uses (TokenConstants: '#' segments, ':' attributes, '@' group, ',' arrays). The proto comments show '-'
separators; those are outdated (quirk Q-T8).

Each parser raises ValidationError(offset in the string, field, reason) on text that does not have the
documented shape, so a malformed value is reported instead of half-parsed. That includes a value that is
not UTF-8 at all: proto2 strings are not checked on the wire, so such a field arrives as bytes.
"""
from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from inlong_proto.core.errors import ValidationError
from inlong_proto.generated.tables.tubemq.methods import DATA as TABLE

DEFAULT_BROKER_PORT = 8123
#: A topic's partition ids: store s, partition i is s * STORE_ID_BASE + i (TBaseConstants.META_STORE_INS_BASE).
STORE_ID_BASE = 10000
EVENT_TYPES = {v: k for k, v in TABLE["enums"]["event_type"]["values"].items()}
EVENT_STATUSES = {v: k for k, v in TABLE["enums"]["event_status"]["values"].items()}


def _text(value: str | bytes, field: str) -> str:
    """The field's text; bytes (a proto2 string that is not UTF-8) cannot have any documented shape."""
    if isinstance(value, str):
        return value
    try:
        return bytes(value).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValidationError(exc.start, field, f"not valid UTF-8: {exc.reason}") from None


def _split(text: str, separator: str, count: int, field: str, shape: str) -> list[str]:
    text = _text(text, field)
    parts = text.split(separator)
    if len(parts) != count:
        raise ValidationError(0, field, f"{text!r} is not {shape}")
    return parts


def _int(text: str, field: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValidationError(0, field, f"{what} {text!r} is not a number") from None


@dataclass(frozen=True)
class BrokerInfo:
    broker_id: int
    host: str
    port: int


def broker_info(text: str, field: str = "brokerInfos") -> BrokerInfo:
    """`brokerId:ip:port`; a port of a single space means the default 8123 (what the master sends)."""
    broker_id, host, port = _split(text, ":", 3, field, "brokerId:host:port")
    return BrokerInfo(_int(broker_id, field, "brokerId"), host,
                      DEFAULT_BROKER_PORT if not port.strip() else _int(port, field, "port"))


def format_broker_info(info: BrokerInfo) -> str:
    """The inverse of broker_info, as the master writes it: the default port as a single space."""
    port = " " if info.port == DEFAULT_BROKER_PORT else str(info.port)
    return f"{info.broker_id}:{info.host}:{port}"


@dataclass(frozen=True)
class PartitionSlot:
    broker_id: int
    partitions: int
    stores: int

    @property
    def partition_ids(self) -> list[int]:
        """The ids the producer derives from partNum and storeNum (ProducerManager), store by store."""
        return [store * STORE_ID_BASE + index for store in range(self.stores) for index in range(self.partitions)]


@dataclass(frozen=True)
class TopicInfo:
    topic: str
    slots: tuple[PartitionSlot, ...]
    max_message_size: int | None


def topic_info(text: str, field: str = "topicInfos") -> TopicInfo:
    """`topic#brokerId:partNum:storeNum[,...]#maxMsgSizeInBytes` (the last segment may be empty or absent)."""
    text = _text(text, field)
    segments = text.split("#")
    if len(segments) not in (2, 3):
        raise ValidationError(0, field, f"{text!r} is not topic#brokerId:partNum:storeNum,...#maxMsgSize")
    slots = []
    for item in filter(None, segments[1].split(",")):
        broker_id, partitions, stores = _split(item, ":", 3, field, "brokerId:partNum:storeNum")
        slots.append(PartitionSlot(_int(broker_id, field, "brokerId"), _int(partitions, field, "partNum"),
                                   _int(stores, field, "storeNum")))
    size = segments[2].strip() if len(segments) == 3 else ""
    return TopicInfo(segments[0], tuple(slots), _int(size, field, "maxMsgSize") if size else None)


def format_topic_info(info: TopicInfo) -> str:
    """The inverse of topic_info; an unknown max message size leaves the last segment empty."""
    slots = ",".join(f"{slot.broker_id}:{slot.partitions}:{slot.stores}" for slot in info.slots)
    size = "" if info.max_message_size is None else str(info.max_message_size)
    return f"{info.topic}#{slots}#{size}"


@dataclass(frozen=True)
class Partition:
    broker_id: int
    host: str | None
    port: int | None
    topic: str
    partition_id: int

    @property
    def key(self) -> str:
        """The partition key, `brokerId:topic:partitionId`."""
        return f"{self.broker_id}:{self.topic}:{self.partition_id}"


def partition_key(text: str, field: str = "partitionKey") -> Partition:
    """`brokerId:topic:partitionId`."""
    broker_id, topic, partition_id = _split(text, ":", 3, field, "brokerId:topic:partitionId")
    return Partition(_int(broker_id, field, "brokerId"), None, None, topic, _int(partition_id, field, "partitionId"))


def partition(text: str, field: str = "partitionInfo") -> Partition:
    """`brokerId:host:port#topic:partitionId` (HeartBeatRequestC2B.partitionInfo, Partition.toString)."""
    broker, topic_part = _split(text, "#", 2, field, "brokerId:host:port#topic:partitionId")
    info = broker_info(broker, field)
    topic, partition_id = _split(topic_part, ":", 2, field, "topic:partitionId")
    return Partition(info.broker_id, info.host, info.port, topic, _int(partition_id, field, "partitionId"))


def format_partition(info: Partition) -> str:
    """`brokerId:host:port#topic:partitionId` (Partition.toString: the port always as a number)."""
    return f"{info.broker_id}:{info.host}:{info.port}#{info.topic}:{info.partition_id}"


@dataclass(frozen=True)
class PartitionFailure:
    error_code: int
    partition: Partition


def failure_info(text: str, field: str = "failureInfo") -> PartitionFailure:
    """`errCode:brokerId:host:port#topic:partitionId` (HeartBeatResponseB2C.failureInfo, e.g. 411, 412)."""
    text = _text(text, field)
    code, rest = text.split(":", 1) if ":" in text else (text, "")
    return PartitionFailure(_int(code, field, "errCode"), partition(rest, field))


def format_failure_info(error_code: int, info: Partition) -> str:
    """`errCode:brokerId:host:port#topic:partitionId`, the inverse of failure_info."""
    return f"{error_code}:{format_partition(info)}"


@dataclass(frozen=True)
class Subscription:
    consumer_id: str
    group: str
    partition: Partition


def subscribe_info(text: str, field: str = "subscribeInfo") -> Subscription:
    """`consumerId@group#brokerId:host:port#topic:partitionId`."""
    text = _text(text, field)
    who, broker, topic_part = _split(text, "#", 3, field, "consumerId@group#brokerId:host:port#topic:partitionId")
    if "@" not in who:
        raise ValidationError(0, field, f"{who!r} is not consumerId@group")
    consumer_id, group = who.rsplit("@", 1)
    return Subscription(consumer_id, group, partition(f"{broker}#{topic_part}", field))


def format_subscribe_info(info: Subscription) -> str:
    """`consumerId@group#brokerId:host:port#topic:partitionId`, the inverse of subscribe_info."""
    return f"{info.consumer_id}@{info.group}#{format_partition(info.partition)}"


@dataclass(frozen=True)
class Event:
    rebalance_id: int | None
    op_type: str | int
    status: str | int
    subscriptions: tuple[Subscription, ...]


def event(proto) -> Event:
    """An EventProto with its op type and status named (EventType, EventStatus) and its subscriptions parsed."""
    return Event(proto.rebalanceId if proto.HasField("rebalanceId") else None,
                 EVENT_TYPES.get(proto.opType, proto.opType), EVENT_STATUSES.get(proto.status, proto.status),
                 tuple(subscribe_info(text, "event.subscribeInfo") for text in proto.subscribeInfo))


def sent_address(value: int) -> str:
    """SendMessageRequestP2B.sentAddr: an IPv4 address packed big-endian into a signed int32."""
    return str(ipaddress.IPv4Address(value & 0xFFFFFFFF))


def pack_address(address: str) -> int:
    """The inverse of sent_address (what the producer writes)."""
    packed = int(ipaddress.IPv4Address(address))
    return packed - (1 << 32) if packed & 0x80000000 else packed


@dataclass(frozen=True)
class ClientId:
    """What the Java client packs into its clientId (others' ids are kept as text, role "unknown")."""

    role: str  # "producer", "consumer" or "unknown"
    group: str | None
    address: str | None
    pid: str | None
    nano_time: int | None
    random: int | None
    consume_mode: str | None  # Pull, Push or Balance (consumers)
    version: str | None
    text: str


def client_id(text: str | bytes) -> ClientId:
    """Producer `ip-pid-nanoTime-random-version` (ProducerManager.generateProducerID); consumer
    `group_ip-pid-nanoTime-random-{Pull|Push|Balance}-version` (BaseMessageConsumer /
    SimpleClientBalanceConsumer.generateConsumerID). The group may itself contain '_', so the address is
    taken after the last '_' before the first '-'. Bytes that are not UTF-8 raise ValidationError."""
    text = _text(text, "clientId")
    head, _, rest = text.partition("-")
    parts = rest.split("-")
    group, _, address = head.rpartition("_")
    for mode in ("Pull", "Push", "Balance"):
        if len(parts) == 5 and parts[3] == mode and group and parts[1].isdigit() and parts[2].isdigit():
            return ClientId("consumer", group, address, parts[0], int(parts[1]), int(parts[2]), mode, parts[4], text)
    if len(parts) == 4 and parts[1].isdigit() and parts[2].isdigit() and not group:
        return ClientId("producer", None, head, parts[0], int(parts[1]), int(parts[2]), None, parts[3], text)
    return ClientId("unknown", None, None, None, None, None, None, None, text)
