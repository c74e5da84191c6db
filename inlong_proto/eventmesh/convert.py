"""One event model across EventMesh's three transports: TCP, HTTP and gRPC messages <-> the gRPC CloudEvent.

The gRPC layer's `Event` (inlong_proto.eventmesh.grpc) is the meeting point: a TCP message body (an
EventMeshMessage or a CloudEvents JSON body) or an HTTP send-message request becomes an Event, which
`grpc.to_cloud_event` turns into the protobuf CloudEvent; an Event becomes a TCP EventMeshMessage body
for `tcp.message`; a gRPC message read from a capture (eventmesh.h2) becomes one too (event_from_grpc), so
that the events of one system seen on all three transports fit one table. The mapping follows the runtime's protocol adaptors (facts section 3.4): the topic is
the subject, the content is text data, message properties are string extensions, and protocol headers
(protocoltype, protocolversion) ride along as extensions.
"""
from __future__ import annotations

import json

from inlong_proto.core.errors import EncodeError
from inlong_proto.generated.eventmesh.bodies.cloud_event import CloudEvent
from inlong_proto.generated.eventmesh.bodies.event_mesh_message import EventMeshMessage
from inlong_proto.eventmesh.grpc import Event

_TEXT = "text/plain"
_CLOUD_EVENT_FIELDS = ("specversion", "id", "source", "type", "datacontenttype", "dataschema", "subject", "time",
                       "data")


def _extensions(pairs: dict) -> dict[str, str]:
    """String extensions, dropping empty names and the attributes Event keeps in its own fields."""
    return {str(k): str(v) for k, v in (pairs or {}).items()
            if k and k not in ("subject", "datacontenttype") and v is not None}


def from_cloud_event_json(body: CloudEvent) -> Event:
    """A CloudEvents JSON body (TCP protocoltype=cloudevents, or HTTP content) as an Event."""
    data = body.data
    if data is not None and not isinstance(data, (str, bytes)):
        data = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    extensions = _extensions({k: v for k, v in body.extra.items() if isinstance(v, (str, int, bool))})
    for name in ("dataschema", "time"):
        if getattr(body, name):
            extensions[name] = getattr(body, name)
    return Event(id=body.id, source=body.source, spec_version=body.specversion, type=body.type,
                 subject=body.subject or "", data=data, data_content_type=body.datacontenttype or "",
                 extensions=extensions)


def event_from_tcp(message) -> Event:
    """The Event of a decoded TCP message (a TcpMessage from Frame.payload) carrying a message body."""
    body = message.body
    protocol = {k: v for k, v in (message.header.properties or {}).items()
                if k in ("protocoltype", "protocolversion", "protocoldesc") and isinstance(v, str)}
    if isinstance(body, CloudEvent):
        event = from_cloud_event_json(body)
        return Event(**{**event.__dict__, "extensions": {**event.extensions, **protocol}})
    if isinstance(body, EventMeshMessage):
        properties = _extensions(body.properties)
        return Event(id=properties.get("uniqueid") or message.header.seq or "", subject=body.topic or "",
                     data=body.body, data_content_type=_TEXT if body.body is not None else "",
                     extensions={**properties, **protocol})
    raise EncodeError("body", f"{message.command.name} carries no message body ({message.body_kind})")


def tcp_body_of(event: Event) -> EventMeshMessage:
    """An Event as the EventMeshMessage body of a TCP message (the inverse of event_from_tcp)."""
    data = event.data.decode("utf-8") if isinstance(event.data, bytes) else event.data
    properties = {k: v for k, v in event.extensions.items() if isinstance(v, str)
                  and k not in ("protocoltype", "protocolversion", "protocoldesc")}
    return EventMeshMessage(topic=event.subject or None, properties=properties, body=data)


def event_from_http(request) -> Event:
    """The Event of an HTTP send-message request (MSG_SEND_ASYNC / MSG_SEND_SYNC, or a webhook push)."""
    fields = request.fields
    content = fields.get("content")
    protocol = {k: v for k, v in request.protocol_headers.items()
                if k in ("protocoltype", "protocolversion", "protocoldesc") and isinstance(v, str)}
    if isinstance(content, CloudEvent):
        event = from_cloud_event_json(content)
        return Event(**{**event.__dict__, "extensions": {**event.extensions, **protocol}})
    if "topic" not in fields and content is None:
        raise EncodeError("fields", f"{request.message_type} carries no message")
    extensions = {name: str(fields[name]) for name in ("bizseqno", "uniqueid", "ttl", "producergroup", "tag")
                  if fields.get(name) not in (None, "")}
    return Event(id=extensions.get("uniqueid", ""), subject=str(fields.get("topic") or ""),
                 data=content if isinstance(content, (str, bytes)) else None,
                 data_content_type=_TEXT if content is not None else "", extensions={**extensions, **protocol})


def event_from_grpc(message) -> Event:
    """The Event of a gRPC message read from a capture (an eventmesh.h2 GrpcMessage): a CloudEvent of the
    current services, or a SimpleMessage of the legacy ones. Its body is json_format's rendering of the
    protobuf, read back into the generated class."""
    from google.protobuf import json_format

    from inlong_proto.generated.protobuf.eventmesh import eventmesh_client_pb2, eventmesh_cloudevents_pb2
    from inlong_proto.eventmesh.grpc import from_cloud_event, from_legacy_simple_message

    kinds = {"CloudEvent": (eventmesh_cloudevents_pb2.CloudEvent, from_cloud_event),
             "SimpleMessage": (eventmesh_client_pb2.SimpleMessage, from_legacy_simple_message)}
    name = (message.type_name or "").rsplit(".", 1)[-1]
    if name not in kinds:
        raise EncodeError("type", f"a gRPC {message.type_name or 'message'} carries no event")
    cls, reader = kinds[name]
    try:
        proto = json_format.ParseDict(message.body, cls(), ignore_unknown_fields=True)
    except json_format.ParseError as exc:
        raise EncodeError("body", f"the {name} cannot be read back: {exc}") from None
    return reader(proto)


# ------------------------------------------------------------------ EventMeshFrame (the new runtime, issue 30)
# the CloudEvent attributes upstream's EventMeshFrame.toCloudEvent sets through the builder; every other name is
# an extension (docs/protocols/eventmesh.md, section 5.1)
_FRAME_FIELDS = {"id": "id", "source": "source", "type": "type", "subject": "subject",
                 "datacontenttype": "data_content_type"}
_FRAME_DROPPED = ("specversion", "datacontentencoding")  # V1 is implied; datacontentencoding was removed


def _text_type(content_type: str) -> bool:
    kind = content_type.split(";", 1)[0].strip().lower()
    return not kind or kind.startswith("text/") or kind.endswith("json") or kind.endswith("+json") \
        or kind.endswith("xml")


def event_from_frame(message) -> Event:
    """The Event of an EVENT EventMeshFrame (a decoded eventmesh-frame message), as toCloudEvent rebuilds it:
    id, source, type, subject and datacontenttype into their fields, specversion implied (1.0, kept when the
    frame names it), every other attribute (time and dataschema too) a string extension, in frame order; the
    data as text when the content type is textual and the bytes are UTF-8, else as bytes; no data is None."""
    from inlong_proto.eventmesh.frame import read

    payload = read(message)
    if payload.msg_type.name != "event":
        raise EncodeError("msg_type", f"a {payload.msg_type.name} frame carries no event (toCloudEvent refuses it)")
    attributes = payload.attribute_map
    fields = {field: attributes[name] for name, field in _FRAME_FIELDS.items() if name in attributes}
    extensions = {name: value for name, value in attributes.items()
                  if name and name not in _FRAME_FIELDS and name not in _FRAME_DROPPED}
    data = payload.data or None
    if data is not None and _text_type(fields.get("data_content_type", "")) and payload.text is not None:
        data = payload.text
    return Event(spec_version=attributes.get("specversion") or "1.0", data=data, extensions=extensions, **fields)


def frame_of_event(event: Event):
    """An Event as an EVENT EventMeshFrame, as fromCloudEvent captures it: specversion, id, source, type, then
    datacontenttype and subject when set, then the extensions in order (values as their str); the data's
    bytes (text as UTF-8). Upstream's attribute order is the CloudEvents SDK's attribute-name order, which
    this does not reproduce; readers keep whatever order a frame has."""
    from inlong_proto.eventmesh.frame import event_frame

    attributes = [("specversion", event.spec_version), ("id", event.id), ("source", event.source),
                  ("type", event.type)]
    attributes += [(name, value) for name, value in (("datacontenttype", event.data_content_type),
                                                     ("subject", event.subject)) if value]
    for name, value in event.extensions.items():
        if isinstance(value, bytes):
            raise EncodeError(f"extensions[{name!r}]", "a bytes extension has no toString upstream would write")
        text = value if isinstance(value, str) else value.isoformat() if hasattr(value, "isoformat") \
            else str(value).lower() if isinstance(value, bool) else str(value)
        attributes.append((name, text))
    data = event.data.encode("utf-8") if isinstance(event.data, str) else (event.data or b"")
    return event_frame(attributes, data)


def event_from_uni(item) -> Event:
    """The Event of a uni-API message (eventmesh.uni): a publish / request / lite publish request's CloudEvent
    body, a reply's event, or an SSE delivery's event (GET /events/stream)."""
    value = None
    if getattr(item, "kind", None) == "sse_event":
        value = (item.value or {}).get("event") if item.data_kind == "delivery" else None
    elif getattr(item, "kind", None) == "uni":
        body = item.fields.get("body")
        value = body.get("event") if isinstance(body, dict) else body
    if not isinstance(value, CloudEvent):
        raise EncodeError("body", f"{item.message_type} carries no CloudEvent")
    return from_cloud_event_json(value)
