"""The same event through TCP, HTTP and gRPC: the converters agree with each other and round-trip."""
import json
from pathlib import Path

import pytest

import inlong_proto
from inlong_proto.eventmesh import convert, grpc, http

VECTORS = Path(__file__).resolve().parents[1] / "vectors" / "eventmesh"


def vector_bytes(path: Path) -> bytes:
    vector = json.loads(path.read_text())
    return bytes.fromhex(vector["hex"]) if "hex" in vector else vector["text"].encode("utf-8")


def tcp_payload(name: str):
    return inlong_proto.decode(vector_bytes(VECTORS / "tcp" / "valid" / f"{name}.json"), "eventmesh").payload


def test_tcp_eventmeshmessage_to_cloud_event_and_back():
    message = tcp_payload("async_message_to_server_eventmeshmessage")
    event = convert.event_from_tcp(message)
    assert event.subject == message.body.topic and event.data == message.body.body
    assert event.extensions["protocoltype"] == "eventmeshmessage"
    proto = grpc.to_cloud_event(event)
    assert grpc.from_cloud_event(proto) == event
    body = convert.tcp_body_of(event)
    assert (body.topic, body.body) == (message.body.topic, message.body.body)
    assert {k: v for k, v in body.properties.items()} == {k: v for k, v in message.body.properties.items()}


def test_tcp_cloudevents_body_keeps_its_attributes():
    message = tcp_payload("broadcast_message_to_server_cloudevents")
    event = convert.event_from_tcp(message)
    assert (event.id, event.source, event.type) == (message.body.id, message.body.source, message.body.type)
    assert grpc.from_cloud_event(grpc.to_cloud_event(event)) == event


@pytest.mark.parametrize("name", ["send_async_java", "send_async_cloudevents_java"])
def test_http_send_message_to_event(name):
    request = next(iter(http.iter_messages(vector_bytes(VECTORS / "http" / f"{name}.json"))))
    event = convert.event_from_http(request)
    if name == "send_async_java":
        assert (event.subject, event.data, event.id) == (request.fields["topic"], request.fields["content"],
                                                         request.fields["uniqueid"])
    else:
        assert event.id == request.fields["content"].id
    assert event.extensions["protocoltype"] == request.protocol_headers["protocoltype"]
    assert grpc.from_cloud_event(grpc.to_cloud_event(event)) == event


def test_messages_without_an_event_are_refused():
    with pytest.raises(inlong_proto.EncodeError):
        convert.event_from_tcp(tcp_payload("client_goodbye_request"))


def test_grpc_messages_of_a_capture_are_events_too():
    """The gRPC CloudEvents read off the wire (eventmesh.h2) map to the same Event as TCP and HTTP, so one
    table holds all three transports (issue 16, item 4)."""
    from tests.eventmesh.test_h2_grpc import conversation, decode_both

    client, server, order = conversation()
    messages = [item for item in decode_both(client, server, order) if item.kind == "message"
                and item.message_type == "publish" and item.direction == "request"]
    events = [convert.event_from_grpc(item) for item in messages]
    assert sorted(e.id for e in events) == ["id-1", "id-2"]
    assert {e.subject for e in events} == {"TEST-TOPIC"} and {e.data for e in events} == {"x" * 300, "hello"}
    tcp = convert.event_from_tcp(tcp_payload("async_message_to_server_eventmeshmessage"))
    http_event = convert.event_from_http(next(iter(http.iter_messages(
        vector_bytes(VECTORS / "http" / "send_async_java.json")))))
    table = [{"transport": t, "subject": e.subject, "data": e.data, "id": e.id}
             for t, e in (("tcp", tcp), ("http", http_event), *(("grpc", e) for e in events))]
    assert [row["transport"] for row in table] == ["tcp", "http", "grpc", "grpc"] and all(row["subject"] for row in table)
    heartbeat = next(item for item in decode_both(client, server, order) if item.kind == "message"
                     and item.message_type == "heartbeat")
    with pytest.raises(inlong_proto.EncodeError, match="carries no event"):
        convert.event_from_grpc(heartbeat)
