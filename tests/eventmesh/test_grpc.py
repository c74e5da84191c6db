"""EventMesh gRPC: the protobuf specs match the facts, Events convert both ways, and the generated
stubs talk over loopback (facts: docs/protocols/eventmesh.md, sections 3 and 4)."""
from __future__ import annotations

import json
import subprocess
import sys
from concurrent import futures
from datetime import datetime, timezone
from pathlib import Path

import grpc
import pytest
from google.protobuf import any_pb2, descriptor_pb2, timestamp_pb2
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.internal import api_implementation

from inlong_proto.core.errors import EncodeError, ValidationError
from inlong_proto.eventmesh import grpc as emgrpc
from inlong_proto.eventmesh.grpc import Event, Key

import protos

ROOT = Path(__file__).resolve().parent.parent.parent
SPECS = ROOT / "specs" / "eventmesh"
MODULES = ("eventmesh_cloudevents_pb2", "eventmesh_service_pb2", "eventmesh_service_pb2_grpc",
           "eventmesh_client_pb2", "eventmesh_client_pb2_grpc")
CE_PACKAGE = "org.apache.eventmesh.cloudevents.v1"
LEGACY_PACKAGE = "eventmesh.common.protocol.grpc"
TIMEOUT = 5

TYPE = {FieldDescriptor.TYPE_INT32: "int32", FieldDescriptor.TYPE_BOOL: "bool",
        FieldDescriptor.TYPE_STRING: "string", FieldDescriptor.TYPE_BYTES: "bytes",
        FieldDescriptor.TYPE_ENUM: "enum", FieldDescriptor.TYPE_MESSAGE: "message"}


@pytest.fixture(scope="module")
def pb(tmp_path_factory):
    """Compiles a copy of only specs/eventmesh/*.proto and imports the generated modules.

    grpcio-tools writes cross-file imports as `from eventmesh import ...`, so <out>/protobuf goes on
    sys.path for the module's lifetime (the real tree's generator rewrites them package-relative).
    """
    with protos.compiled(tmp_path_factory.mktemp("eventmesh_protos"), "eventmesh", MODULES) as (compiled, modules):
        assert sorted(p.name for p in compiled) == ["eventmesh-client.proto", "eventmesh-cloudevents.proto",
                                                    "eventmesh-service.proto"]
        yield modules


@pytest.fixture(scope="module")
def ce(pb):
    return pb["eventmesh_cloudevents_pb2"]


@pytest.fixture(scope="module")
def legacy(pb):
    return pb["eventmesh_client_pb2"]


def label(field):
    return "repeated" if field.is_repeated else "optional"


def shape(descriptor):
    """name -> (number, label, type[, message/enum full name]) of every field."""
    result = {}
    for f in descriptor.fields:
        kind = TYPE[f.type]
        target = f.message_type.full_name if f.message_type else f.enum_type.full_name if f.enum_type else None
        result[f.name] = (f.number, label(f), kind) + ((target,) if target else ())
    return result


def file_proto(module):
    proto = descriptor_pb2.FileDescriptorProto()
    module.DESCRIPTOR.CopyToProto(proto)
    return proto


def methods(module, service):
    """method -> (input, output, client streaming, server streaming), from the service descriptor."""
    proto = descriptor_pb2.ServiceDescriptorProto()
    module.DESCRIPTOR.services_by_name[service].CopyToProto(proto)
    return {m.name: (m.input_type.lstrip("."), m.output_type.lstrip("."), m.client_streaming, m.server_streaming)
            for m in proto.method}


def map_shape(field):
    entry = field.message_type
    assert entry.GetOptions().map_entry
    key, value = entry.fields_by_name["key"], entry.fields_by_name["value"]
    return TYPE[key.type], (value.message_type.full_name if value.message_type else TYPE[value.type])


# ---------------------------------------------------------------------------------------- runtime

def test_protobuf_runtime_is_upb():
    assert api_implementation.Type() == "upb"


def test_grpc_module_imports_without_generated_code():
    # the generated modules are imported only when a conversion needs one and none was passed in
    code = ("import sys\n"
            "class Block:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name.startswith('inlong_proto.generated.protobuf'): raise ImportError(name)\n"
            "sys.meta_path.insert(0, Block())\n"
            "from inlong_proto.eventmesh import grpc\n"
            "try:\n"
            "    grpc.to_cloud_event(grpc.Event(id='x'))\n"
            "except ImportError:\n"
            "    print('lazy')\n")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "lazy"


# ---------------------------------------------------------------------------------------- 3.2 cloudevents

def test_cloudevents_file_facts(ce):
    proto = file_proto(ce)
    assert proto.name == "eventmesh/eventmesh-cloudevents.proto"
    assert proto.syntax == "proto3"
    assert proto.package == CE_PACKAGE
    assert list(proto.dependency) == ["google/protobuf/any.proto", "google/protobuf/timestamp.proto"]
    options = proto.options
    assert options.java_package == "org.apache.eventmesh.common.protocol.grpc.cloudevents"
    assert options.java_multiple_files is True
    assert options.java_outer_classname == "EventMeshCloudEvents"
    assert sorted(ce.DESCRIPTOR.message_types_by_name) == ["CloudEvent", "CloudEventBatch"]


def test_cloud_event_fields(ce):
    descriptor = ce.CloudEvent.DESCRIPTOR
    assert descriptor.full_name == f"{CE_PACKAGE}.CloudEvent"
    assert shape(descriptor) == {
        "id": (1, "optional", "string"),
        "source": (2, "optional", "string"),
        "spec_version": (3, "optional", "string"),
        "type": (4, "optional", "string"),
        "attributes": (5, "repeated", "message", f"{CE_PACKAGE}.CloudEvent.AttributesEntry"),
        "binary_data": (6, "optional", "bytes"),
        "text_data": (7, "optional", "string"),
        "proto_data": (8, "optional", "message", "google.protobuf.Any"),
    }
    assert map_shape(descriptor.fields_by_name["attributes"]) == (
        "string", f"{CE_PACKAGE}.CloudEvent.CloudEventAttributeValue")
    assert [o.name for o in descriptor.oneofs] == ["data"]
    assert [f.name for f in descriptor.oneofs_by_name["data"].fields] == ["binary_data", "text_data", "proto_data"]
    # proto3 scalars without `optional`: no synthetic oneofs, no presence on id/source/...
    assert not descriptor.fields_by_name["id"].has_presence


def test_cloud_event_attribute_value_fields(ce):
    descriptor = ce.CloudEvent.CloudEventAttributeValue.DESCRIPTOR
    assert descriptor.full_name == f"{CE_PACKAGE}.CloudEvent.CloudEventAttributeValue"
    assert shape(descriptor) == {
        "ce_boolean": (1, "optional", "bool"),
        "ce_integer": (2, "optional", "int32"),
        "ce_string": (3, "optional", "string"),
        "ce_bytes": (4, "optional", "bytes"),
        "ce_uri": (5, "optional", "string"),
        "ce_uri_ref": (6, "optional", "string"),
        "ce_timestamp": (7, "optional", "message", "google.protobuf.Timestamp"),
    }
    assert [o.name for o in descriptor.oneofs] == ["attr"]
    assert [f.number for f in descriptor.oneofs_by_name["attr"].fields] == [1, 2, 3, 4, 5, 6, 7]


def test_cloud_event_batch_fields(ce):
    assert shape(ce.CloudEventBatch.DESCRIPTOR) == {"events": (1, "repeated", "message", f"{CE_PACKAGE}.CloudEvent")}


def test_cloud_event_wire_bytes(ce):
    # hand-written bytes: tag = number << 3 | wire type; the CNCF layout, so the Java SDK's trick works
    event = ce.CloudEvent(id="1", source="/", spec_version="1.0", type="t", text_data="x")
    event.attributes["subject"].ce_string = "T"
    entry = b"\x0a\x07subject" + b"\x12\x03\x1a\x01T"  # map entry: key = 1, value = 2 (ce_string = 3)
    expected = b"\x0a\x011\x12\x01/\x1a\x031.0\x22\x01t" + b"\x2a" + bytes([len(entry)]) + entry + b"\x3a\x01x"
    assert event.SerializeToString(deterministic=True) == expected
    assert ce.CloudEvent.FromString(expected) == event
    binary = ce.CloudEvent(binary_data=b"\x00\xff").SerializeToString()
    assert binary == b"\x32\x02\x00\xff"
    integer = ce.CloudEvent.CloudEventAttributeValue(ce_integer=-1).SerializeToString()
    assert integer == b"\x10" + b"\xff" * 9 + b"\x01"  # int32 negatives are 10-byte varints


# ---------------------------------------------------------------------------------------- 3.3 services

def test_service_file_facts(pb):
    proto = file_proto(pb["eventmesh_service_pb2"])
    assert proto.name == "eventmesh/eventmesh-service.proto"
    assert proto.syntax == "proto3"
    assert proto.package == CE_PACKAGE
    assert list(proto.dependency) == ["google/protobuf/empty.proto", "eventmesh/eventmesh-cloudevents.proto"]
    assert proto.options.java_package == "org.apache.eventmesh.common.protocol.grpc.cloudevents"
    assert proto.options.java_multiple_files is True
    assert proto.options.java_outer_classname == "EventMeshGrpcService"
    assert not proto.message_type


def test_services_and_methods(pb):
    module = pb["eventmesh_service_pb2"]
    assert {name: s.full_name for name, s in module.DESCRIPTOR.services_by_name.items()} == {
        "PublisherService": f"{CE_PACKAGE}.PublisherService",
        "ConsumerService": f"{CE_PACKAGE}.ConsumerService",
        "HeartbeatService": f"{CE_PACKAGE}.HeartbeatService",
    }
    event, batch, empty = f"{CE_PACKAGE}.CloudEvent", f"{CE_PACKAGE}.CloudEventBatch", "google.protobuf.Empty"
    assert methods(module, "PublisherService") == {
        "publish": (event, event, False, False),
        "requestReply": (event, event, False, False),
        "publishOneWay": (event, empty, False, False),
        "batchPublish": (batch, event, False, False),
        "batchPublishOneWay": (batch, empty, False, False),
    }
    assert methods(module, "ConsumerService") == {
        "subscribe": (event, event, False, False),
        "subscribeStream": (event, event, True, True),  # bidi
        "unsubscribe": (event, event, False, False),
    }
    assert methods(module, "HeartbeatService") == {"heartbeat": (event, event, False, False)}


# ---------------------------------------------------------------------------------------- 3.5 legacy

def test_legacy_file_facts(legacy):
    proto = file_proto(legacy)
    assert proto.name == "eventmesh/eventmesh-client.proto"
    assert proto.syntax == "proto3"
    assert proto.package == LEGACY_PACKAGE
    assert not proto.dependency
    assert proto.options.java_multiple_files is True
    assert proto.options.java_package == "org.apache.eventmesh.common.protocol.grpc.protos"
    assert proto.options.java_outer_classname == "EventmeshGrpc"
    assert list(legacy.DESCRIPTOR.message_types_by_name) == [
        "RequestHeader", "SimpleMessage", "BatchMessage", "Response", "Subscription", "Heartbeat"]


def test_legacy_messages(legacy):
    p = LEGACY_PACKAGE
    s = "string"
    assert shape(legacy.RequestHeader.DESCRIPTOR) == {
        name: (number, "optional", s) for number, name in enumerate(
            ["env", "region", "idc", "ip", "pid", "sys", "username", "password", "language", "protocolType",
             "protocolVersion", "protocolDesc"], start=1)}
    assert shape(legacy.SimpleMessage.DESCRIPTOR) == {
        "header": (1, "optional", "message", f"{p}.RequestHeader"), "producerGroup": (2, "optional", s),
        "topic": (3, "optional", s), "content": (4, "optional", s), "ttl": (5, "optional", s),
        "uniqueId": (6, "optional", s), "seqNum": (7, "optional", s), "tag": (8, "optional", s),
        "properties": (9, "repeated", "message", f"{p}.SimpleMessage.PropertiesEntry")}
    assert map_shape(legacy.SimpleMessage.DESCRIPTOR.fields_by_name["properties"]) == ("string", "string")
    assert shape(legacy.BatchMessage.DESCRIPTOR) == {
        "header": (1, "optional", "message", f"{p}.RequestHeader"), "producerGroup": (2, "optional", s),
        "topic": (3, "optional", s), "messageItem": (4, "repeated", "message", f"{p}.BatchMessage.MessageItem")}
    assert shape(legacy.BatchMessage.MessageItem.DESCRIPTOR) == {
        "content": (1, "optional", s), "ttl": (2, "optional", s), "uniqueId": (3, "optional", s),
        "seqNum": (4, "optional", s), "tag": (5, "optional", s),
        "properties": (6, "repeated", "message", f"{p}.BatchMessage.MessageItem.PropertiesEntry")}
    assert shape(legacy.Response.DESCRIPTOR) == {
        "respCode": (1, "optional", s), "respMsg": (2, "optional", s), "respTime": (3, "optional", s)}
    assert shape(legacy.Subscription.DESCRIPTOR) == {
        "header": (1, "optional", "message", f"{p}.RequestHeader"), "consumerGroup": (2, "optional", s),
        "subscriptionItems": (3, "repeated", "message", f"{p}.Subscription.SubscriptionItem"),
        "url": (4, "optional", s), "reply": (5, "optional", "message", f"{p}.Subscription.Reply")}
    item = legacy.Subscription.SubscriptionItem
    assert shape(item.DESCRIPTOR) == {
        "topic": (1, "optional", s),
        "mode": (2, "optional", "enum", f"{p}.Subscription.SubscriptionItem.SubscriptionMode"),
        "type": (3, "optional", "enum", f"{p}.Subscription.SubscriptionItem.SubscriptionType")}
    assert dict(item.SubscriptionMode.items()) == {"CLUSTERING": 0, "BROADCASTING": 1}
    assert dict(item.SubscriptionType.items()) == {"ASYNC": 0, "SYNC": 1}
    assert shape(legacy.Subscription.Reply.DESCRIPTOR) == {
        "producerGroup": (1, "optional", s), "topic": (2, "optional", s), "content": (3, "optional", s),
        "ttl": (4, "optional", s), "uniqueId": (5, "optional", s), "seqNum": (6, "optional", s),
        "tag": (7, "optional", s),
        "properties": (8, "repeated", "message", f"{p}.Subscription.Reply.PropertiesEntry")}
    assert shape(legacy.Heartbeat.DESCRIPTOR) == {
        "header": (1, "optional", "message", f"{p}.RequestHeader"),
        "clientType": (2, "optional", "enum", f"{p}.Heartbeat.ClientType"),
        "producerGroup": (3, "optional", s), "consumerGroup": (4, "optional", s),
        "heartbeatItems": (5, "repeated", "message", f"{p}.Heartbeat.HeartbeatItem")}
    # legacy PUB = 0 / SUB = 1, unlike the current clienttype ce_integer 1 / 2
    assert dict(legacy.Heartbeat.ClientType.items()) == {"PUB": 0, "SUB": 1}
    assert (emgrpc.CLIENT_TYPE_PUB, emgrpc.CLIENT_TYPE_SUB) == (1, 2)
    assert shape(legacy.Heartbeat.HeartbeatItem.DESCRIPTOR) == {"topic": (1, "optional", s), "url": (2, "optional", s)}


def test_legacy_services(legacy):
    p = LEGACY_PACKAGE
    assert {name: s.full_name for name, s in legacy.DESCRIPTOR.services_by_name.items()} == {
        "PublisherService": f"{p}.PublisherService", "ConsumerService": f"{p}.ConsumerService",
        "HeartbeatService": f"{p}.HeartbeatService"}
    simple, response, batch, sub = (f"{p}.SimpleMessage", f"{p}.Response", f"{p}.BatchMessage", f"{p}.Subscription")
    assert methods(legacy, "PublisherService") == {
        "publish": (simple, response, False, False),
        "requestReply": (simple, simple, False, False),  # the public docs say Response
        "batchPublish": (batch, response, False, False)}
    assert methods(legacy, "ConsumerService") == {
        "subscribe": (sub, response, False, False),
        "subscribeStream": (sub, simple, True, True),  # the public docs show a non-streaming request
        "unsubscribe": (sub, response, False, False)}
    assert methods(legacy, "HeartbeatService") == {"heartbeat": (f"{p}.Heartbeat", response, False, False)}


# ---------------------------------------------------------------------------------------- conversions

CLIENT = emgrpc.client_extensions(env="dev", idc="idc1", ip="127.0.0.1", pid=4242, sys="5023", username="u",
                                  passwd="p")
STAMP = datetime(2024, 5, 6, 7, 8, 9, 123456, tzinfo=timezone.utc)


@pytest.mark.parametrize("event", [
    Event(id="a", subject="T", data="hello", data_content_type="text/plain", extensions=CLIENT),
    Event(id="b", subject="T", data='{"k":1}', data_content_type="application/cloudevents+json"),
    Event(id="c", subject="T", data=b"\x00\x01\xff", data_content_type="application/octet-stream"),
    Event(id="d", data=b"\x00raw"),
    Event(id="e", data="text without type"),
    Event(id="f", data=None, extensions={"flag": True, "count": -7, "blob": b"\x00\x01", "when": STAMP,
                                         "big": (1 << 31) - 1, "small": -(1 << 31)}),
    Event(id="g", source="https://example.com/x", spec_version="0.3", type="custom", data=""),
    Event(id="h", data=any_pb2.Any(type_url="type.googleapis.com/google.protobuf.Timestamp",
                                   value=timestamp_pb2.Timestamp(seconds=5).SerializeToString())
          .SerializeToString(deterministic=True), data_content_type="application/protobuf"),
], ids=lambda e: e.id)
def test_event_round_trips_through_cloud_event(ce, event):
    wire = emgrpc.to_cloud_event(event, ce).SerializeToString()
    back = emgrpc.from_cloud_event(ce.CloudEvent.FromString(wire))
    assert back == event
    assert type(back.data) is type(event.data)


def test_cloud_event_layout_follows_the_runtime_conventions(ce):
    event = emgrpc.message_event("TOPIC", "hi", client=CLIENT, producer_group="pg", unique_id="u1", seq_num="s1",
                                 tag="tagA", id="id-1")
    proto = emgrpc.to_cloud_event(event, ce)
    assert (proto.id, proto.source, proto.spec_version, proto.type) == ("id-1", "/", "1.0", "org.apache.eventmesh")
    attrs = proto.attributes
    # subject and datacontenttype are attributes, read as ce_string, not top-level fields
    assert attrs["subject"].ce_string == "TOPIC"
    assert attrs["datacontenttype"].ce_string == "text/plain"
    for key, value in {"env": "dev", "idc": "idc1", "ip": "127.0.0.1", "pid": "4242", "sys": "5023",
                       "username": "u", "passwd": "p", "language": "PYTHON", "protocoltype": "cloudevents",
                       "protocolversion": "1.0", "protocoldesc": "grpc-cloud-event", "producergroup": "pg",
                       "ttl": "4000", "uniqueid": "u1", "seqnum": "s1", "tag": "tagA"}.items():
        assert attrs[key].WhichOneof("attr") == "ce_string", key
        assert attrs[key].ce_string == value, key
    assert proto.WhichOneof("data") == "text_data"
    assert emgrpc.publish_problems(event) == []
    assert not event.is_response


@pytest.mark.parametrize("content_type, data, case, value", [
    ("text/plain", b"abc", "text_data", "abc"),
    ("application/json", "[]", "text_data", "[]"),
    ("application/xml", "<a/>", "text_data", "<a/>"),
    ("application/vnd.x+json", "{}", "text_data", "{}"),
    ("image/svg+xml", "<svg/>", "text_data", "<svg/>"),
    ("application/octet-stream", "abc", "binary_data", b"abc"),
    ("application/jsonx", "abc", "binary_data", b"abc"),
    ("application/protobuf", b"", "proto_data", None),
])
def test_data_case_follows_content_type(ce, content_type, data, case, value):
    proto = emgrpc.to_cloud_event(Event(id="x", data=data, data_content_type=content_type), ce)
    assert proto.WhichOneof("data") == case
    if value is not None:
        assert getattr(proto, case) == value


def test_clienttype_is_ce_integer(ce):
    event = emgrpc.heartbeat_event(emgrpc.CLIENT_TYPE_SUB, "cg", [("T", "http://h/cb")], client=CLIENT)
    proto = emgrpc.to_cloud_event(event, ce)
    assert proto.attributes["clienttype"].WhichOneof("attr") == "ce_integer"
    assert proto.attributes["clienttype"].ce_integer == 2
    assert proto.attributes["consumergroup"].ce_string == "cg"
    assert proto.text_data == '[{"topic":"T","url":"http://h/cb"}]'
    assert event.ext(Key.CLIENT_TYPE) == ""  # the string accessor reads a ce_integer as ""
    with pytest.raises(EncodeError):
        emgrpc.heartbeat_event(0, "pg", [], client=CLIENT)


def test_subscription_event(ce):
    event = emgrpc.subscription_event("cg", [("T", "CLUSTERING", "ASYNC"),
                                             {"topic": "U", "mode": "BROADCASTING", "type": "SYNC"}],
                                      client=CLIENT, url="http://h/cb")
    proto = emgrpc.to_cloud_event(event, ce)
    assert proto.text_data == ('[{"topic":"T","mode":"CLUSTERING","type":"ASYNC"},'
                               '{"topic":"U","mode":"BROADCASTING","type":"SYNC"}]')
    assert proto.attributes["datacontenttype"].ce_string == "application/json"
    assert (proto.source, proto.spec_version, proto.type) == ("/", "1.0", "org.apache.eventmesh")
    assert proto.attributes["url"].ce_string == "http://h/cb"
    for bad in [("T", "clustering", "ASYNC"), ("T", "CLUSTERING", 0), ("", "CLUSTERING", "ASYNC")]:
        with pytest.raises(EncodeError):
            emgrpc.subscription_event("cg", [bad], client=CLIENT)


def test_response_event_and_reading(ce):
    now = datetime(2025, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
    proto = emgrpc.response_event("0", "sent", message_module=ce, now=now)
    assert proto.id and proto.spec_version == "1.0" and not proto.source and not proto.type
    assert proto.attributes["statuscode"].ce_string == "0"  # the code is a string
    assert proto.attributes["responsemessage"].ce_string == "success sent"
    assert proto.attributes["time"].WhichOneof("attr") == "ce_timestamp"
    assert emgrpc.response_of(proto) == ("0", "success sent", now)
    assert emgrpc.response_of(proto).ok
    bare = emgrpc.response_event("19", message_module=ce, now=now)
    assert bare.id == "" and emgrpc.response_of(bare) == ("19", "eventMesh heartbeat err", now)
    assert emgrpc.from_cloud_event(proto).is_response
    assert emgrpc.STATUS["17"].name == "EVENTMESH_SUBSCRIBE_ERR"
    assert emgrpc.STATUS_17_ALSO.name == "EVENTMESH_SEND_BATCHLOG_MSG_ERR"
    request = emgrpc.to_cloud_event(emgrpc.subscription_event("cg", [("T", "CLUSTERING", "ASYNC")], client=CLIENT), ce)
    echoed = emgrpc.stream_response_event(request, "0", "subscribe success", now=now)
    assert echoed.text_data == request.text_data and echoed.id == request.id
    assert emgrpc.response_of(echoed) == ("0", "subscribe success", now)
    assert "statuscode" not in request.attributes


def test_event_validation_and_strict_reading(ce):
    with pytest.raises(EncodeError):
        Event(id="x", extensions={"subject": "T"})
    with pytest.raises(EncodeError):
        Event(id="x", extensions={"n": 1 << 31})
    with pytest.raises(EncodeError):
        Event(id="x", extensions={"f": 1.5})
    with pytest.raises(EncodeError):
        emgrpc.to_cloud_event(Event(id="x", data=b"\xff", data_content_type="text/plain"), ce)
    with pytest.raises(EncodeError):
        emgrpc.to_cloud_event(Event(id="x", data=b"\xff\xff", data_content_type="application/protobuf"), ce)
    proto = ce.CloudEvent(id="x")
    proto.attributes["subject"].ce_uri = "urn:t"  # a text case: still a usable subject
    proto.attributes["other"].ce_uri_ref = "/r"
    assert emgrpc.from_cloud_event(proto) == Event(id="x", source="", spec_version="", type="", subject="urn:t",
                                                    extensions={"other": "/r"})
    proto.attributes["subject"].ce_integer = 3
    with pytest.raises(ValidationError):
        emgrpc.from_cloud_event(proto)


def test_publish_problems():
    assert emgrpc.publish_problems(Event(id="x", data="t")) == [
        "idc is empty", "env is empty", "ip is empty", "pid is empty", "sys is empty", "username is empty",
        "passwd is empty", "language is empty", "uniqueid is empty", "producergroup is empty", "ttl is empty",
        "subject is empty", "binary_data is empty (no or non-text content type)"]
    good = emgrpc.message_event("T", "x", client=CLIENT, producer_group="pg")
    assert emgrpc.publish_problems(good) == []
    assert "pid is not numeric" in emgrpc.publish_problems(
        emgrpc.message_event("T", "x", client={**CLIENT, "pid": "12a"}, producer_group="pg"))
    assert emgrpc.publish_problems(emgrpc.message_event("T", "", client=CLIENT, producer_group="pg")) == [
        "text content type without text_data"]


def test_cloud_event_batch(ce):
    events = [Event(id=str(i), data=f"m{i}", data_content_type="text/plain") for i in range(3)]
    batch = emgrpc.to_cloud_event_batch(events, ce)
    assert [emgrpc.from_cloud_event(e) for e in ce.CloudEventBatch.FromString(batch.SerializeToString()).events] \
        == events


# ---------------------------------------------------------------------------------------- legacy mapping

def legacy_message(legacy):
    header = legacy.RequestHeader(env="dev", region="r1", idc="idc1", ip="127.0.0.1", pid="4242", sys="5023",
                                  username="u", password="p", language="GO", protocolType="eventmeshmessage",
                                  protocolVersion="1.0", protocolDesc="grpc")
    return legacy.SimpleMessage(header=header, producerGroup="pg", topic="T", content="hello", ttl="4000",
                                uniqueId="u1", seqNum="s1", tag="tagA",
                                properties={"datacontenttype": "text/plain", "custom": "v"})


def test_legacy_simple_message_round_trip(legacy):
    message = legacy_message(legacy)
    event = emgrpc.from_legacy_simple_message(legacy.SimpleMessage.FromString(message.SerializeToString()))
    assert event == Event(
        id="s1", source="/", spec_version="1.0", type="eventmeshmessage", subject="T", data="hello",
        data_content_type="text/plain",
        extensions={"env": "dev", "region": "r1", "idc": "idc1", "ip": "127.0.0.1", "pid": "4242", "sys": "5023",
                    "username": "u", "passwd": "p", "language": "GO", "protocoltype": "eventmeshmessage",
                    "protocolversion": "1.0", "protocoldesc": "grpc", "producergroup": "pg", "ttl": "4000",
                    "uniqueid": "u1", "seqnum": "s1", "tag": "tagA", "custom": "v"})
    assert emgrpc.to_legacy_simple_message(event, legacy) == message


def test_event_to_legacy_and_back(legacy, ce):
    event = emgrpc.message_event("T", b"bytes are utf-8", client=CLIENT, producer_group="pg", seq_num="s9",
                                 unique_id="u9", extensions={"flag": False, "n": 3})
    message = emgrpc.to_legacy_simple_message(event, legacy)
    assert message.header.password == "p" and message.header.pid == "4242" and message.header.region == ""
    assert (message.topic, message.content, message.seqNum, message.uniqueId, message.ttl) == (
        "T", "bytes are utf-8", "s9", "u9", "4000")
    assert dict(message.properties) == {"flag": "false", "n": "3", "datacontenttype": "text/plain"}
    back = emgrpc.from_legacy_simple_message(message)
    assert back.subject == "T" and back.data == "bytes are utf-8" and back.id == "s9"
    assert back.extensions["flag"] == "false"  # legacy properties are strings only
    # a legacy message becomes a CloudEvent the current runtime would accept for publish
    assert emgrpc.publish_problems(back) == []
    assert emgrpc.from_cloud_event(emgrpc.to_cloud_event(back, ce)) == back
    with pytest.raises(EncodeError):
        emgrpc.to_legacy_simple_message(Event(id="x", data=b"\xff"), legacy)


# ---------------------------------------------------------------------------------------- loopback gRPC

@pytest.fixture
def loopback(pb, ce):
    """A stub runtime on 127.0.0.1: PublisherService.publish and ConsumerService.subscribeStream."""
    service_grpc = pb["eventmesh_service_pb2_grpc"]
    seen = []

    class Publisher(service_grpc.PublisherServiceServicer):
        # publishOneWay / batchPublishOneWay are left to the base class: UNIMPLEMENTED, as the runtime
        def publish(self, request, context):
            event = emgrpc.from_cloud_event(request)
            seen.append(event)
            problems = emgrpc.publish_problems(event)
            if problems:
                return emgrpc.response_event("7", "; ".join(problems), message_module=ce)
            return emgrpc.response_event("0", f"msgId={event.ext(Key.UNIQUE_ID)}", message_module=ce)

    class Consumer(service_grpc.ConsumerServiceServicer):
        def subscribeStream(self, request_iterator, context):
            for request in request_iterator:
                if request.attributes.get(Key.SUB_MESSAGE_TYPE) is not None:
                    continue  # a request-reply answer from the client
                yield emgrpc.stream_response_event(request, "0", "subscribe success")
                group = request.attributes[Key.CONSUMER_GROUP].ce_string
                for item in json.loads(request.text_data):
                    for n in range(2):
                        yield emgrpc.to_cloud_event(emgrpc.message_event(
                            item["topic"], f"{group}:{n}", client=CLIENT, producer_group="pg",
                            unique_id=f"u{n}", seq_num=f"s{n}"), ce)

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    try:
        service_grpc.add_PublisherServiceServicer_to_server(Publisher(), server)
        service_grpc.add_ConsumerServiceServicer_to_server(Consumer(), server)
        port = server.add_insecure_port("127.0.0.1:0")
        assert port
        server.start()
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        try:
            grpc.channel_ready_future(channel).result(timeout=TIMEOUT)
            yield channel, seen
        finally:
            channel.close()
    finally:
        server.stop(None).wait(TIMEOUT)


def test_publish_over_loopback(pb, ce, loopback):
    channel, seen = loopback
    stub = pb["eventmesh_service_pb2_grpc"].PublisherServiceStub(channel)
    event = emgrpc.message_event("T", "payload", client=CLIENT, producer_group="pg", unique_id="u1", seq_num="s1")
    reply = stub.publish(emgrpc.to_cloud_event(event, ce), timeout=TIMEOUT)
    assert seen == [event]
    assert emgrpc.response_of(reply)[:2] == ("0", "success msgId=u1")
    assert emgrpc.from_cloud_event(reply).is_response
    bad = stub.publish(emgrpc.to_cloud_event(Event(id="x", data="t"), ce), timeout=TIMEOUT)
    code, message, _ = emgrpc.response_of(bad)
    assert code == "7" and message.startswith("eventMesh CloudEvent[body] err,  idc is empty")
    with pytest.raises(grpc.RpcError) as error:
        stub.publishOneWay(emgrpc.to_cloud_event(event, ce), timeout=TIMEOUT)
    assert error.value.code() == grpc.StatusCode.UNIMPLEMENTED


def test_subscribe_stream_over_loopback(pb, ce, loopback):
    channel, _ = loopback
    stub = pb["eventmesh_service_pb2_grpc"].ConsumerServiceStub(channel)
    subscription = emgrpc.to_cloud_event(
        emgrpc.subscription_event("cg", [("T", "CLUSTERING", "ASYNC")], client=CLIENT), ce)
    replies = [emgrpc.from_cloud_event(p) for p in stub.subscribeStream(iter([subscription]), timeout=TIMEOUT)]
    assert len(replies) == 3
    ack, *messages = replies
    assert ack.is_response and ack.ext(Key.STATUS_CODE) == "0" and ack.ext(Key.CONSUMER_GROUP) == "cg"
    assert [(m.subject, m.data, m.ext(Key.SEQ_NUM)) for m in messages] == [("T", "cg:0", "s0"), ("T", "cg:1", "s1")]
    assert not any(m.is_response for m in messages)


def test_legacy_client_gets_unimplemented_from_current_runtime(pb, legacy, loopback):
    # the Go SDK still calls /eventmesh.common.protocol.grpc.PublisherService/publish
    channel, _ = loopback
    stub = pb["eventmesh_client_pb2_grpc"].PublisherServiceStub(channel)
    with pytest.raises(grpc.RpcError) as error:
        stub.publish(legacy_message(legacy), timeout=TIMEOUT)
    assert error.value.code() == grpc.StatusCode.UNIMPLEMENTED
