"""EventMesh gRPC: a plain Python event model and its CloudEvent / legacy SimpleMessage forms.

The current runtime (1.9.0 and later) serves specs/eventmesh/eventmesh-service.proto, whose every
request and response is the CloudEvent of specs/eventmesh/eventmesh-cloudevents.proto. How the
runtime fills that message (facts: docs/protocols/eventmesh.md, section 3.4):

* Only id, source, spec_version and type are top-level fields. ``subject`` (the topic),
  ``datacontenttype`` and every EventMesh key travel in the ``attributes`` map, and the runtime
  reads them with the string accessor: a value under another oneof case reads as "". The one
  exception is ``clienttype``, read as ce_integer (1 = PUB, 2 = SUB; the legacy proto's enum was
  PUB = 0, SUB = 1).
* The data case follows ``datacontenttype``: text/*, application/json, application/xml, *+json,
  *+xml carry ``text_data``; application/protobuf carries ``proto_data``; anything else (an absent
  content type included) ``binary_data``.
* Responses have a fresh id, spec_version "1.0" and the attributes statuscode (the StatusCode
  table, as a *string*), responsemessage and time (ce_timestamp). A client tells a response from a
  delivered message by the absence of both seqnum and uniqueid.

:class:`Event` is the neutral model; :func:`to_cloud_event` / :func:`from_cloud_event` map it to
and from the generated CloudEvent class, :func:`to_legacy_simple_message` /
:func:`from_legacy_simple_message` to and from the pre-1.9 ``SimpleMessage``. The generated
modules are passed in, or imported lazily from ``inlong_proto.generated.protobuf.eventmesh``, so
this module imports without them.
"""
from __future__ import annotations

import json
import secrets
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from types import ModuleType
from typing import Iterable, Mapping, NamedTuple, Union

from inlong_proto.core.errors import EncodeError, ValidationError


class Key:
    """Attribute keys (upstream ``common/protocol/grpc/common/ProtocolKey.java``); all lowercase."""

    # client identity: publish requires all of these non-empty, pid numeric
    ENV, IDC, SYS, PID, IP = "env", "idc", "sys", "pid", "ip"
    USERNAME, PASSWD, LANGUAGE = "username", "passwd", "language"
    # protocol: type is cloudevents | eventmeshmessage | openmessage, version the CE spec version
    PROTOCOL_TYPE, PROTOCOL_VERSION, PROTOCOL_DESC = "protocoltype", "protocolversion", "protocoldesc"
    # message: publish requires uniqueid, producergroup, subject and ttl non-empty
    SEQ_NUM, UNIQUE_ID, TTL = "seqnum", "uniqueid", "ttl"
    PRODUCER_GROUP, CONSUMER_GROUP = "producergroup", "consumergroup"
    TAG, CONTENT_TYPE, CLUSTER, URL = "tag", "contenttype", "cluster", "url"
    CLIENT_TYPE = "clienttype"  # the only ce_integer key
    # responses and streams
    STATUS_CODE, RESPONSE_MESSAGE, RESPONSE_TIME = "statuscode", "responsemessage", "time"
    SUB_MESSAGE_TYPE = "submessagetype"
    # standard CloudEvents names
    ID, SOURCE, SPEC_VERSION, TYPE = "id", "source", "specversion", "type"
    DATA_CONTENT_TYPE, DATA_SCHEMA, SUBJECT, TIME, EVENT_DATA = (
        "datacontenttype", "dataschema", "subject", "time", "eventdata")


SUBSCRIPTION_REPLY = "subscription_reply"  # value of submessagetype on a reply sent up a subscribeStream
CLIENT_TYPE_PUB, CLIENT_TYPE_SUB = 1, 2  # clienttype ce_integer (grpc/common/ClientType.java)
SUBSCRIPTION_MODES = ("CLUSTERING", "BROADCASTING")  # JSON enum names, exact case
SUBSCRIPTION_TYPES = ("ASYNC", "SYNC")

DEFAULT_SOURCE = "/"  # what the Java SDK sends
DEFAULT_SPEC_VERSION = "1.0"
DEFAULT_TYPE = "org.apache.eventmesh"
DEFAULT_TTL = "4000"  # Constants.DEFAULT_EVENTMESH_MESSAGE_TTL, milliseconds
PROTOCOL_DESC_GRPC = "grpc-cloud-event"  # Constants.PROTOCOL_DESC_GRPC_CLOUD_EVENT
LEGACY_EVENT_TYPE = "eventmeshmessage"  # the 1.8 meshmessage resolver's CloudEvent type for SimpleMessage


class Status(NamedTuple):
    name: str
    err_msg: str


# gRPC StatusCode (common/protocol/grpc/common/StatusCode.java): code (a string on the wire) ->
# name and the errMsg the runtime puts in responsemessage. "17" is declared twice upstream
# (EVENTMESH_SEND_BATCHLOG_MSG_ERR and EVENTMESH_SUBSCRIBE_ERR); STATUS keeps the later one and
# STATUS_17_ALSO the other. These numbers differ from the HTTP EventMeshRetCode table.
STATUS: dict[str, Status] = {
    "0": Status("SUCCESS", "success"),
    "1": Status("OVERLOAD", "eventMesh overload, try later, "),
    "2": Status("EVENTMESH_REQUESTCODE_INVALID", "requestCode can't be null, or must be number, "),
    "3": Status("EVENTMESH_SEND_SYNC_MSG_ERR", "eventMesh send rr msg err, "),
    "4": Status("EVENTMESH_WAITING_RR_MSG_ERR", "eventMesh waiting rr msg err, "),
    "6": Status("EVENTMESH_PROTOCOL_HEADER_ERR", "eventMesh CloudEvent[header] err, "),
    "7": Status("EVENTMESH_PROTOCOL_BODY_ERR", "eventMesh CloudEvent[body] err, "),
    "8": Status("EVENTMESH_STOP", "eventMesh will stop or had stopped, "),
    "9": Status("EVENTMESH_REJECT_BY_PROCESSOR_ERROR", "eventMesh reject by processor error, "),
    "10": Status("EVENTMESH_BATCH_PUBLISH_ERR", "eventMesh batch publish messages error, "),
    "11": Status("EVENTMESH_BATCH_SPEED_OVER_LIMIT_ERR", "eventMesh batch msg speed over the limit, "),
    "12": Status("EVENTMESH_PACKAGE_MSG_ERR", "eventMesh package msg err, "),
    "13": Status("EVENTMESH_GROUP_PRODUCER_STOPED_ERR", "eventMesh group producer stopped, "),
    "14": Status("EVENTMESH_SEND_ASYNC_MSG_ERR", "eventMesh send async msg err, "),
    "15": Status("EVENTMESH_REPLY_MSG_ERR", "eventMesh reply msg err, "),
    "16": Status("EVENTMESH_RUNTIME_ERR", "eventMesh runtime err, "),
    "17": Status("EVENTMESH_SUBSCRIBE_ERR", "eventMesh subscribe err"),
    "18": Status("EVENTMESH_UNSUBSCRIBE_ERR", "eventMesh unsubscribe err"),
    "19": Status("EVENTMESH_HEARTBEAT_ERR", "eventMesh heartbeat err"),
    "20": Status("EVENTMESH_ACL_ERR", "eventMesh acl err"),
    "21": Status("EVENTMESH_SEND_MESSAGE_SPEED_OVER_LIMIT_ERR", "eventMesh send message speed over the limit err."),
    "22": Status("EVENTMESH_REQUEST_REPLY_MSG_ERR", "eventMesh request reply msg err, "),
    "30": Status("CLIENT_RESUBSCRIBE", "client needs to resubscribe."),
}
STATUS_17_ALSO = Status("EVENTMESH_SEND_BATCHLOG_MSG_ERR", "eventMesh send batchlog msg err, ")
SUCCESS = "0"

ExtensionValue = Union[str, int, bool, bytes, datetime]
_INT32 = (-(1 << 31), (1 << 31) - 1)
_TEXT_CASES = ("ce_string", "ce_uri", "ce_uri_ref")


def data_case(content_type: str | None) -> str:
    """The CloudEvent data field the runtime expects for a datacontenttype (ProtoSupport.java)."""
    if content_type and (content_type.startswith("text/") or content_type in ("application/json", "application/xml")
                         or content_type.endswith("+json") or content_type.endswith("+xml")):
        return "text_data"
    if content_type == "application/protobuf":
        return "proto_data"
    return "binary_data"


@dataclass(frozen=True)
class Event:
    """A CloudEvent as EventMesh uses it, independent of the generated classes.

    ``subject`` and ``data_content_type`` are the ``subject`` / ``datacontenttype`` attributes
    (never repeated in ``extensions``); every other attribute is an extension: str -> ce_string,
    bool -> ce_boolean, int -> ce_integer (int32), bytes -> ce_bytes, datetime -> ce_timestamp
    (naive means UTC). ``data`` is str (text_data), bytes (binary_data, or the serialized
    google.protobuf.Any for proto_data) or None (no data).
    """

    id: str = ""
    source: str = DEFAULT_SOURCE
    spec_version: str = DEFAULT_SPEC_VERSION
    type: str = DEFAULT_TYPE
    subject: str = ""
    data: bytes | str | None = None
    data_content_type: str = ""
    extensions: Mapping[str, ExtensionValue] = field(default_factory=dict, hash=False)

    def __post_init__(self):
        for name in ("id", "source", "spec_version", "type", "subject", "data_content_type"):
            if not isinstance(getattr(self, name), str):
                raise EncodeError(name, f"must be str, not {type(getattr(self, name)).__name__}")
        if self.data is not None and not isinstance(self.data, (bytes, str)):
            raise EncodeError("data", f"must be bytes, str or None, not {type(self.data).__name__}")
        extensions = dict(self.extensions)
        for key, value in extensions.items():
            where = f"extensions[{key!r}]"
            if not isinstance(key, str) or not key:
                raise EncodeError(where, "extension names are non-empty strings")
            if key in (Key.SUBJECT, Key.DATA_CONTENT_TYPE):
                raise EncodeError(where, "use the subject / data_content_type fields")
            if isinstance(value, int) and not isinstance(value, bool) and not _INT32[0] <= value <= _INT32[1]:
                raise EncodeError(where, f"{value} does not fit ce_integer (int32)")
            if not isinstance(value, (str, int, bytes, datetime)):
                raise EncodeError(where, f"unsupported type {type(value).__name__}")
        object.__setattr__(self, "extensions", extensions)

    def ext(self, key: str, default: str = "") -> str:
        """An attribute as the runtime reads it (string accessor): non-str values read as ``default``."""
        value = self.extensions.get(key)
        return value if isinstance(value, str) else default

    @property
    def is_response(self) -> bool:
        """The Java SDK's test: a response carries neither seqnum nor uniqueid."""
        return not self.ext(Key.SEQ_NUM) and not self.ext(Key.UNIQUE_ID)


# ------------------------------------------------------------------------------ generated modules

def _cloudevents(module: ModuleType | None) -> ModuleType:
    if module is not None:
        return module
    from inlong_proto.generated.protobuf.eventmesh import eventmesh_cloudevents_pb2

    return eventmesh_cloudevents_pb2


def _client(module: ModuleType | None) -> ModuleType:
    if module is not None:
        return module
    from inlong_proto.generated.protobuf.eventmesh import eventmesh_client_pb2

    return eventmesh_client_pb2


# ------------------------------------------------------------------------------ CloudEvent

def _set_attribute(value_message, key: str, value: ExtensionValue) -> None:
    if isinstance(value, bool):
        value_message.ce_boolean = value
    elif isinstance(value, int):
        value_message.ce_integer = value
    elif isinstance(value, str):
        value_message.ce_string = value
    elif isinstance(value, bytes):
        value_message.ce_bytes = value
    elif isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=timezone.utc)
        value_message.ce_timestamp.FromDatetime(value)
    else:  # pragma: no cover - Event.__post_init__ rejects these
        raise EncodeError(f"attributes[{key!r}]", f"unsupported type {type(value).__name__}")


def _get_attribute(value_message) -> ExtensionValue | None:
    case = value_message.WhichOneof("attr")
    if case is None:
        return None
    if case == "ce_timestamp":
        return value_message.ce_timestamp.ToDatetime(tzinfo=timezone.utc)
    return getattr(value_message, case)  # ce_uri / ce_uri_ref come back as plain str


def to_cloud_event(event: Event, message_module: ModuleType | None = None):
    """The generated ``CloudEvent`` for an Event.

    ``message_module`` is the generated eventmesh_cloudevents_pb2 (or anything with a ``CloudEvent``
    class); by default it is imported from inlong_proto.generated. The data case follows the
    content type as the runtime checks it (:func:`data_case`), converting str <-> bytes as UTF-8
    where the two disagree; with no content type, str goes to text_data and bytes to binary_data
    (note the runtime's publish check then wants binary_data: see :func:`publish_problems`).
    """
    proto = _cloudevents(message_module).CloudEvent(
        id=event.id, source=event.source, spec_version=event.spec_version, type=event.type)
    for key, value in event.extensions.items():
        _set_attribute(proto.attributes[key], key, value)
    if event.subject:
        proto.attributes[Key.SUBJECT].ce_string = event.subject
    if event.data_content_type:
        proto.attributes[Key.DATA_CONTENT_TYPE].ce_string = event.data_content_type

    data = event.data
    if data is None:
        return proto
    case = data_case(event.data_content_type) if event.data_content_type else (
        "text_data" if isinstance(data, str) else "binary_data")
    if case == "text_data":
        if isinstance(data, bytes):
            try:
                data = data.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise EncodeError("data", f"text content type {event.data_content_type!r} needs UTF-8: {exc}") from None
        proto.text_data = data
    elif case == "proto_data":
        raw = data.encode("utf-8") if isinstance(data, str) else data  # as the Java SDK: Any.parseFrom(bytes)
        proto.proto_data.SetInParent()
        try:
            proto.proto_data.MergeFromString(raw)
        except Exception as exc:  # google.protobuf.message.DecodeError
            raise EncodeError("data", f"application/protobuf data must be a serialized google.protobuf.Any: {exc}") \
                from None
    else:
        proto.binary_data = data.encode("utf-8") if isinstance(data, str) else data
    return proto


def from_cloud_event(proto) -> Event:
    """The Event for a generated ``CloudEvent`` (any of the wire-identical copies).

    ce_uri / ce_uri_ref values come back as str and ce_timestamp as an aware UTC datetime
    (microseconds; nanoseconds are cut). proto_data comes back as the serialized Any.
    """
    extensions: dict[str, ExtensionValue] = {}
    subject = content_type = ""
    for key in sorted(proto.attributes):
        value_message = proto.attributes[key]
        value = _get_attribute(value_message)
        if key in (Key.SUBJECT, Key.DATA_CONTENT_TYPE):
            if value_message.WhichOneof("attr") not in (*_TEXT_CASES, None):
                raise ValidationError(0, f"attributes.{key}",
                                      f"holds {value_message.WhichOneof('attr')}, not a string")
            if key == Key.SUBJECT:
                subject = value or ""
            else:
                content_type = value or ""
        elif value is not None:
            extensions[key] = value
    case = proto.WhichOneof("data")
    data: bytes | str | None
    if case == "text_data":
        data = proto.text_data
    elif case == "binary_data":
        data = proto.binary_data
    elif case == "proto_data":
        data = proto.proto_data.SerializeToString(deterministic=True)
    else:
        data = None
    return Event(id=proto.id, source=proto.source, spec_version=proto.spec_version, type=proto.type,
                 subject=subject, data=data, data_content_type=content_type, extensions=extensions)


def to_cloud_event_batch(events: Iterable[Event], message_module: ModuleType | None = None):
    """A ``CloudEventBatch`` (for batchPublish) of the given events."""
    module = _cloudevents(message_module)
    return module.CloudEventBatch(events=[to_cloud_event(event, module) for event in events])


# ------------------------------------------------------------------------------ runtime conventions

def client_extensions(*, env: str, idc: str, ip: str, pid: int | str, sys: str, username: str, passwd: str,
                      language: str = "PYTHON", protocol_type: str = "cloudevents",
                      protocol_version: str = DEFAULT_SPEC_VERSION) -> dict[str, str]:
    """The identity attributes every request carries (the Java SDK's common attributes)."""
    return {Key.ENV: env, Key.IDC: idc, Key.IP: ip, Key.PID: str(pid), Key.SYS: sys, Key.USERNAME: username,
            Key.PASSWD: passwd, Key.LANGUAGE: language, Key.PROTOCOL_TYPE: protocol_type,
            Key.PROTOCOL_VERSION: protocol_version}


def _random_digits(count: int = 30) -> str:
    return "".join(secrets.choice("0123456789") for _ in range(count))


def message_event(topic: str, data: bytes | str, *, client: Mapping[str, str], producer_group: str,
                  content_type: str = "text/plain", ttl: str = DEFAULT_TTL, unique_id: str | None = None,
                  seq_num: str | None = None, tag: str | None = None, id: str | None = None,
                  extensions: Mapping[str, ExtensionValue] | None = None) -> Event:
    """An event for publish / requestReply / batchPublish with everything the runtime checks.

    Missing unique_id / seq_num get 30 random digits, a missing id a UUID, as the Java SDK does.
    """
    ext: dict[str, ExtensionValue] = dict(client)
    ext.update({Key.PRODUCER_GROUP: producer_group, Key.TTL: ttl, Key.PROTOCOL_DESC: PROTOCOL_DESC_GRPC,
                Key.UNIQUE_ID: unique_id or _random_digits(), Key.SEQ_NUM: seq_num or _random_digits()})
    if tag:
        ext[Key.TAG] = tag
    ext.update(extensions or {})
    return Event(id=id or str(uuid.uuid4()), subject=topic, data=data, data_content_type=content_type,
                 extensions=ext)


def subscription_event(consumer_group: str, items: Iterable[tuple[str, str, str] | Mapping[str, str]], *,
                       client: Mapping[str, str], url: str | None = None, id: str | None = None) -> Event:
    """A subscribe / subscribeStream / unsubscribe request.

    items are (topic, mode, type) or {"topic", "mode", "type"}; text_data is their JSON array with
    the enum names as strings (exact case). url is required by the runtime for webhook subscribe.
    """
    array = []
    for item in items:
        topic, mode, kind = (item["topic"], item["mode"], item["type"]) if isinstance(item, Mapping) else item
        if not topic:
            raise EncodeError("items.topic", "must not be empty")
        if mode not in SUBSCRIPTION_MODES:
            raise EncodeError("items.mode", f"{mode!r} is not one of {SUBSCRIPTION_MODES}")
        if kind not in SUBSCRIPTION_TYPES:
            raise EncodeError("items.type", f"{kind!r} is not one of {SUBSCRIPTION_TYPES}")
        array.append({"topic": topic, "mode": mode, "type": kind})
    ext: dict[str, ExtensionValue] = dict(client)
    ext[Key.CONSUMER_GROUP] = consumer_group
    if url:
        ext[Key.URL] = url
    return Event(id=id or str(uuid.uuid4()), data=json.dumps(array, separators=(",", ":")),
                 data_content_type="application/json", extensions=ext)


def heartbeat_event(client_type: int, group: str, items: Iterable[tuple[str, str]], *,
                    client: Mapping[str, str], id: str | None = None) -> Event:
    """A heartbeat: clienttype ce_integer (1 = PUB, 2 = SUB), the matching group attribute, and
    text_data a JSON array of {"topic", "url"}."""
    if client_type not in (CLIENT_TYPE_PUB, CLIENT_TYPE_SUB):
        raise EncodeError("client_type", "1 (PUB) or 2 (SUB); the legacy 0/1 values are wrong here")
    ext: dict[str, ExtensionValue] = dict(client)
    ext[Key.CLIENT_TYPE] = client_type
    ext[Key.PRODUCER_GROUP if client_type == CLIENT_TYPE_PUB else Key.CONSUMER_GROUP] = group
    array = [{"topic": topic, "url": url} for topic, url in items]
    return Event(id=id or str(uuid.uuid4()), data=json.dumps(array, separators=(",", ":")),
                 data_content_type="application/json", extensions=ext)


def publish_problems(event: Event) -> list[str]:
    """What the runtime's publish checks (ServiceUtils.validateCloudEventAttributes / ...Data) reject."""
    problems = [f"{key} is empty" for key in (Key.IDC, Key.ENV, Key.IP, Key.PID, Key.SYS, Key.USERNAME,
                                              Key.PASSWD, Key.LANGUAGE) if not event.ext(key)]
    if event.ext(Key.PID) and not event.ext(Key.PID).isdecimal():
        problems.append("pid is not numeric")
    problems += [f"{key} is empty" for key in (Key.UNIQUE_ID, Key.PRODUCER_GROUP, Key.TTL) if not event.ext(key)]
    if not event.subject:
        problems.append("subject is empty")
    case = data_case(event.data_content_type)
    if case == "text_data" and not event.data:
        problems.append("text content type without text_data")
    elif case == "proto_data" and event.data is None:
        problems.append("application/protobuf without proto_data")
    elif case == "binary_data" and (not event.data or (isinstance(event.data, str) and not event.data_content_type)):
        problems.append("binary_data is empty (no or non-text content type)")
    return problems


class Response(NamedTuple):
    code: str
    message: str
    time: datetime | None

    @property
    def ok(self) -> bool:
        return self.code == SUCCESS


def response_event(code: str, message: str | None = None, *, message_module: ModuleType | None = None,
                   now: datetime | None = None, id: str | None = None):
    """A response CloudEvent built as ServiceUtils.sendResponseCompleted does.

    With a message: a UUID id and responsemessage = errMsg + " " + message; without one: no id and
    responsemessage = errMsg. spec_version is "1.0"; time is ``now`` (default: current UTC time;
    upstream takes the local wall clock and labels it UTC, a quirk not reproduced here).
    """
    status = STATUS[code]
    proto = _cloudevents(message_module).CloudEvent(spec_version=DEFAULT_SPEC_VERSION)
    if message is not None:
        proto.id = id or str(uuid.uuid4())
    elif id:
        proto.id = id
    proto.attributes[Key.STATUS_CODE].ce_string = code
    proto.attributes[Key.RESPONSE_MESSAGE].ce_string = status.err_msg if message is None else \
        f"{status.err_msg} {message}"
    proto.attributes[Key.RESPONSE_TIME].ce_timestamp.FromDatetime(now or datetime.now(timezone.utc))
    return proto


def stream_response_event(request, code: str, message: str | None = None, *, now: datetime | None = None):
    """A copy of ``request`` with the response attributes, as ServiceUtils.sendStreamResponse does
    (e.g. the subscribeStream acknowledgement): responsemessage = message, or errMsg when empty."""
    proto = type(request)()
    proto.CopyFrom(request)
    proto.attributes[Key.STATUS_CODE].ce_string = code
    proto.attributes[Key.RESPONSE_MESSAGE].ce_string = message or STATUS[code].err_msg
    proto.attributes[Key.RESPONSE_TIME].ce_timestamp.FromDatetime(now or datetime.now(timezone.utc))
    return proto


def response_of(proto) -> Response:
    """statuscode / responsemessage / time of a response CloudEvent, read as the runtime reads them."""
    def text(key: str) -> str:
        value = proto.attributes.get(key)
        return value.ce_string if value is not None else ""

    stamp = proto.attributes.get(Key.RESPONSE_TIME)
    time = stamp.ce_timestamp.ToDatetime(tzinfo=timezone.utc) \
        if stamp is not None and stamp.WhichOneof("attr") == "ce_timestamp" else None
    return Response(text(Key.STATUS_CODE), text(Key.RESPONSE_MESSAGE), time)


# ------------------------------------------------------------------------------ legacy SimpleMessage

# RequestHeader field -> attribute. "region" has no runtime attribute; it is kept as an extension of
# the same name so that a SimpleMessage survives the round trip (our convention, not upstream's).
_HEADER = (("env", Key.ENV), ("region", "region"), ("idc", Key.IDC), ("ip", Key.IP), ("pid", Key.PID),
           ("sys", Key.SYS), ("username", Key.USERNAME), ("password", Key.PASSWD), ("language", Key.LANGUAGE),
           ("protocolType", Key.PROTOCOL_TYPE), ("protocolVersion", Key.PROTOCOL_VERSION),
           ("protocolDesc", Key.PROTOCOL_DESC))
# SimpleMessage field -> attribute (topic -> subject is handled apart)
_MESSAGE = (("producerGroup", Key.PRODUCER_GROUP), ("ttl", Key.TTL), ("uniqueId", Key.UNIQUE_ID),
            ("seqNum", Key.SEQ_NUM), ("tag", Key.TAG))


def _as_property(key: str, value: ExtensionValue) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"  # Java's Boolean.toString
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            raise EncodeError(f"extensions[{key!r}]", "bytes must be UTF-8 to become a property") from None
    if isinstance(value, datetime):
        return (value if value.tzinfo else value.replace(tzinfo=timezone.utc)).isoformat()
    return str(value)


def to_legacy_simple_message(event: Event, message_module: ModuleType | None = None):
    """The pre-1.9 ``SimpleMessage`` for an Event (facts 3.5, mapping by analogy).

    Header fields and message fields come from the attributes of the same meaning (passwd ->
    password; non-str values as text), topic from subject, content from data (str, or UTF-8
    bytes). Every other extension,
    and datacontenttype, becomes a string property. id, source, spec_version and type have no place
    in a SimpleMessage and are dropped.
    """
    module = _client(message_module)
    used = {attribute for _, attribute in _HEADER + _MESSAGE}
    ext = event.extensions

    def text(attribute: str) -> str:
        return _as_property(attribute, ext[attribute]) if attribute in ext else ""

    header = module.RequestHeader(**{name: text(attribute) for name, attribute in _HEADER})
    fields = {name: text(attribute) for name, attribute in _MESSAGE}
    data = event.data
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError:
            raise EncodeError("data", "SimpleMessage.content is a string; bytes must be UTF-8") from None
    properties = {key: _as_property(key, value) for key, value in ext.items() if key not in used}
    if event.data_content_type:
        properties[Key.DATA_CONTENT_TYPE] = event.data_content_type
    return module.SimpleMessage(header=header, topic=event.subject, content=data or "", properties=properties,
                                **fields)


def from_legacy_simple_message(message) -> Event:
    """The Event for a legacy ``SimpleMessage``, as the 1.8 meshmessage resolver built its CloudEvent.

    id = seqNum, source "/", type "eventmeshmessage", spec_version = header.protocolVersion (or
    "1.0"); non-empty header / message fields become attributes, properties become string
    extensions (overriding those, as upstream's builder order does) except datacontenttype, which
    becomes the data_content_type; an empty content means no data.
    """
    extensions: dict[str, ExtensionValue] = {}
    for name, attribute in _HEADER:
        if getattr(message.header, name):
            extensions[attribute] = getattr(message.header, name)
    for name, attribute in _MESSAGE:
        if getattr(message, name):
            extensions[attribute] = getattr(message, name)
    properties = dict(message.properties)
    content_type = properties.pop(Key.DATA_CONTENT_TYPE, "")
    subject = message.topic or properties.pop(Key.SUBJECT, "")
    properties.pop(Key.SUBJECT, None)  # the topic field wins; Event keeps subject out of extensions
    extensions.update(properties)
    return Event(id=message.seqNum, source=DEFAULT_SOURCE,
                 spec_version=message.header.protocolVersion or DEFAULT_SPEC_VERSION, type=LEGACY_EVENT_TYPE,
                 subject=subject, data=message.content or None, data_content_type=content_type,
                 extensions=extensions)


__all__ = ["CLIENT_TYPE_PUB", "CLIENT_TYPE_SUB", "Event", "Key", "Response", "STATUS", "STATUS_17_ALSO", "SUCCESS",
           "SUBSCRIPTION_REPLY", "client_extensions", "data_case", "from_cloud_event", "from_legacy_simple_message",
           "heartbeat_event", "message_event", "publish_problems", "response_event", "response_of",
           "stream_response_event", "subscription_event", "to_cloud_event", "to_cloud_event_batch",
           "to_legacy_simple_message"]
