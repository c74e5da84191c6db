from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RequestHeader(_message.Message):
    __slots__ = ("env", "region", "idc", "ip", "pid", "sys", "username", "password", "language", "protocolType", "protocolVersion", "protocolDesc")
    ENV_FIELD_NUMBER: _ClassVar[int]
    REGION_FIELD_NUMBER: _ClassVar[int]
    IDC_FIELD_NUMBER: _ClassVar[int]
    IP_FIELD_NUMBER: _ClassVar[int]
    PID_FIELD_NUMBER: _ClassVar[int]
    SYS_FIELD_NUMBER: _ClassVar[int]
    USERNAME_FIELD_NUMBER: _ClassVar[int]
    PASSWORD_FIELD_NUMBER: _ClassVar[int]
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    PROTOCOLTYPE_FIELD_NUMBER: _ClassVar[int]
    PROTOCOLVERSION_FIELD_NUMBER: _ClassVar[int]
    PROTOCOLDESC_FIELD_NUMBER: _ClassVar[int]
    env: str
    region: str
    idc: str
    ip: str
    pid: str
    sys: str
    username: str
    password: str
    language: str
    protocolType: str
    protocolVersion: str
    protocolDesc: str
    def __init__(self, env: _Optional[str] = ..., region: _Optional[str] = ..., idc: _Optional[str] = ..., ip: _Optional[str] = ..., pid: _Optional[str] = ..., sys: _Optional[str] = ..., username: _Optional[str] = ..., password: _Optional[str] = ..., language: _Optional[str] = ..., protocolType: _Optional[str] = ..., protocolVersion: _Optional[str] = ..., protocolDesc: _Optional[str] = ...) -> None: ...

class SimpleMessage(_message.Message):
    __slots__ = ("header", "producerGroup", "topic", "content", "ttl", "uniqueId", "seqNum", "tag", "properties")
    class PropertiesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    HEADER_FIELD_NUMBER: _ClassVar[int]
    PRODUCERGROUP_FIELD_NUMBER: _ClassVar[int]
    TOPIC_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    TTL_FIELD_NUMBER: _ClassVar[int]
    UNIQUEID_FIELD_NUMBER: _ClassVar[int]
    SEQNUM_FIELD_NUMBER: _ClassVar[int]
    TAG_FIELD_NUMBER: _ClassVar[int]
    PROPERTIES_FIELD_NUMBER: _ClassVar[int]
    header: RequestHeader
    producerGroup: str
    topic: str
    content: str
    ttl: str
    uniqueId: str
    seqNum: str
    tag: str
    properties: _containers.ScalarMap[str, str]
    def __init__(self, header: _Optional[_Union[RequestHeader, _Mapping]] = ..., producerGroup: _Optional[str] = ..., topic: _Optional[str] = ..., content: _Optional[str] = ..., ttl: _Optional[str] = ..., uniqueId: _Optional[str] = ..., seqNum: _Optional[str] = ..., tag: _Optional[str] = ..., properties: _Optional[_Mapping[str, str]] = ...) -> None: ...

class BatchMessage(_message.Message):
    __slots__ = ("header", "producerGroup", "topic", "messageItem")
    class MessageItem(_message.Message):
        __slots__ = ("content", "ttl", "uniqueId", "seqNum", "tag", "properties")
        class PropertiesEntry(_message.Message):
            __slots__ = ("key", "value")
            KEY_FIELD_NUMBER: _ClassVar[int]
            VALUE_FIELD_NUMBER: _ClassVar[int]
            key: str
            value: str
            def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
        CONTENT_FIELD_NUMBER: _ClassVar[int]
        TTL_FIELD_NUMBER: _ClassVar[int]
        UNIQUEID_FIELD_NUMBER: _ClassVar[int]
        SEQNUM_FIELD_NUMBER: _ClassVar[int]
        TAG_FIELD_NUMBER: _ClassVar[int]
        PROPERTIES_FIELD_NUMBER: _ClassVar[int]
        content: str
        ttl: str
        uniqueId: str
        seqNum: str
        tag: str
        properties: _containers.ScalarMap[str, str]
        def __init__(self, content: _Optional[str] = ..., ttl: _Optional[str] = ..., uniqueId: _Optional[str] = ..., seqNum: _Optional[str] = ..., tag: _Optional[str] = ..., properties: _Optional[_Mapping[str, str]] = ...) -> None: ...
    HEADER_FIELD_NUMBER: _ClassVar[int]
    PRODUCERGROUP_FIELD_NUMBER: _ClassVar[int]
    TOPIC_FIELD_NUMBER: _ClassVar[int]
    MESSAGEITEM_FIELD_NUMBER: _ClassVar[int]
    header: RequestHeader
    producerGroup: str
    topic: str
    messageItem: _containers.RepeatedCompositeFieldContainer[BatchMessage.MessageItem]
    def __init__(self, header: _Optional[_Union[RequestHeader, _Mapping]] = ..., producerGroup: _Optional[str] = ..., topic: _Optional[str] = ..., messageItem: _Optional[_Iterable[_Union[BatchMessage.MessageItem, _Mapping]]] = ...) -> None: ...

class Response(_message.Message):
    __slots__ = ("respCode", "respMsg", "respTime")
    RESPCODE_FIELD_NUMBER: _ClassVar[int]
    RESPMSG_FIELD_NUMBER: _ClassVar[int]
    RESPTIME_FIELD_NUMBER: _ClassVar[int]
    respCode: str
    respMsg: str
    respTime: str
    def __init__(self, respCode: _Optional[str] = ..., respMsg: _Optional[str] = ..., respTime: _Optional[str] = ...) -> None: ...

class Subscription(_message.Message):
    __slots__ = ("header", "consumerGroup", "subscriptionItems", "url", "reply")
    class SubscriptionItem(_message.Message):
        __slots__ = ("topic", "mode", "type")
        class SubscriptionMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
            __slots__ = ()
            CLUSTERING: _ClassVar[Subscription.SubscriptionItem.SubscriptionMode]
            BROADCASTING: _ClassVar[Subscription.SubscriptionItem.SubscriptionMode]
        CLUSTERING: Subscription.SubscriptionItem.SubscriptionMode
        BROADCASTING: Subscription.SubscriptionItem.SubscriptionMode
        class SubscriptionType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
            __slots__ = ()
            ASYNC: _ClassVar[Subscription.SubscriptionItem.SubscriptionType]
            SYNC: _ClassVar[Subscription.SubscriptionItem.SubscriptionType]
        ASYNC: Subscription.SubscriptionItem.SubscriptionType
        SYNC: Subscription.SubscriptionItem.SubscriptionType
        TOPIC_FIELD_NUMBER: _ClassVar[int]
        MODE_FIELD_NUMBER: _ClassVar[int]
        TYPE_FIELD_NUMBER: _ClassVar[int]
        topic: str
        mode: Subscription.SubscriptionItem.SubscriptionMode
        type: Subscription.SubscriptionItem.SubscriptionType
        def __init__(self, topic: _Optional[str] = ..., mode: _Optional[_Union[Subscription.SubscriptionItem.SubscriptionMode, str]] = ..., type: _Optional[_Union[Subscription.SubscriptionItem.SubscriptionType, str]] = ...) -> None: ...
    class Reply(_message.Message):
        __slots__ = ("producerGroup", "topic", "content", "ttl", "uniqueId", "seqNum", "tag", "properties")
        class PropertiesEntry(_message.Message):
            __slots__ = ("key", "value")
            KEY_FIELD_NUMBER: _ClassVar[int]
            VALUE_FIELD_NUMBER: _ClassVar[int]
            key: str
            value: str
            def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
        PRODUCERGROUP_FIELD_NUMBER: _ClassVar[int]
        TOPIC_FIELD_NUMBER: _ClassVar[int]
        CONTENT_FIELD_NUMBER: _ClassVar[int]
        TTL_FIELD_NUMBER: _ClassVar[int]
        UNIQUEID_FIELD_NUMBER: _ClassVar[int]
        SEQNUM_FIELD_NUMBER: _ClassVar[int]
        TAG_FIELD_NUMBER: _ClassVar[int]
        PROPERTIES_FIELD_NUMBER: _ClassVar[int]
        producerGroup: str
        topic: str
        content: str
        ttl: str
        uniqueId: str
        seqNum: str
        tag: str
        properties: _containers.ScalarMap[str, str]
        def __init__(self, producerGroup: _Optional[str] = ..., topic: _Optional[str] = ..., content: _Optional[str] = ..., ttl: _Optional[str] = ..., uniqueId: _Optional[str] = ..., seqNum: _Optional[str] = ..., tag: _Optional[str] = ..., properties: _Optional[_Mapping[str, str]] = ...) -> None: ...
    HEADER_FIELD_NUMBER: _ClassVar[int]
    CONSUMERGROUP_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIPTIONITEMS_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    REPLY_FIELD_NUMBER: _ClassVar[int]
    header: RequestHeader
    consumerGroup: str
    subscriptionItems: _containers.RepeatedCompositeFieldContainer[Subscription.SubscriptionItem]
    url: str
    reply: Subscription.Reply
    def __init__(self, header: _Optional[_Union[RequestHeader, _Mapping]] = ..., consumerGroup: _Optional[str] = ..., subscriptionItems: _Optional[_Iterable[_Union[Subscription.SubscriptionItem, _Mapping]]] = ..., url: _Optional[str] = ..., reply: _Optional[_Union[Subscription.Reply, _Mapping]] = ...) -> None: ...

class Heartbeat(_message.Message):
    __slots__ = ("header", "clientType", "producerGroup", "consumerGroup", "heartbeatItems")
    class ClientType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        PUB: _ClassVar[Heartbeat.ClientType]
        SUB: _ClassVar[Heartbeat.ClientType]
    PUB: Heartbeat.ClientType
    SUB: Heartbeat.ClientType
    class HeartbeatItem(_message.Message):
        __slots__ = ("topic", "url")
        TOPIC_FIELD_NUMBER: _ClassVar[int]
        URL_FIELD_NUMBER: _ClassVar[int]
        topic: str
        url: str
        def __init__(self, topic: _Optional[str] = ..., url: _Optional[str] = ...) -> None: ...
    HEADER_FIELD_NUMBER: _ClassVar[int]
    CLIENTTYPE_FIELD_NUMBER: _ClassVar[int]
    PRODUCERGROUP_FIELD_NUMBER: _ClassVar[int]
    CONSUMERGROUP_FIELD_NUMBER: _ClassVar[int]
    HEARTBEATITEMS_FIELD_NUMBER: _ClassVar[int]
    header: RequestHeader
    clientType: Heartbeat.ClientType
    producerGroup: str
    consumerGroup: str
    heartbeatItems: _containers.RepeatedCompositeFieldContainer[Heartbeat.HeartbeatItem]
    def __init__(self, header: _Optional[_Union[RequestHeader, _Mapping]] = ..., clientType: _Optional[_Union[Heartbeat.ClientType, str]] = ..., producerGroup: _Optional[str] = ..., consumerGroup: _Optional[str] = ..., heartbeatItems: _Optional[_Iterable[_Union[Heartbeat.HeartbeatItem, _Mapping]]] = ...) -> None: ...
