"""Answers of the uni HTTP API typed by the route of the request they answer (specs/eventmesh/uni_http.yaml), when
both directions of a connection are read together through one eventmesh.uni.Exchanges, as a capture does: every
route's answer shape, the JDK HttpServer's own text/html rejects, and each mismatch a warning with its JSON path,
stream offset and reason. The exchanges are hand-written HTTP text (test data)."""
import base64
import json

import pytest

from inlong_proto.core.frames import encode
from inlong_proto.eventmesh import http, uni
from inlong_proto.eventmesh.frame import chunk_frame

CE = {"specversion": "1.0", "id": "e-1", "source": "/orders", "type": "created", "data": {"a": 1}}
REJECT = b"<h1>400 Bad Request</h1>NumberFormatException thrown"  # ServerImpl.reject(400, ..)


def request(method, target, body=b""):
    body = json.dumps(body).encode() if isinstance(body, (dict, list)) else body
    return f"{method} {target} HTTP/1.1\r\nHost: x\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body


def answer(status, body, content_type="application/json", reason="OK"):
    body = json.dumps(body, separators=(",", ":")).encode() if isinstance(body, (dict, list)) else body
    return (f"HTTP/1.1 {status} {reason}\r\nContent-type: {content_type}\r\nContent-length: {len(body)}\r\n\r\n"
            .encode() + body)


def exchange(*pairs):
    """The answers of (request bytes, answer bytes) pairs, both directions fed in turn through one Exchanges."""
    shared = uni.Exchanges()
    asking = http.HttpStreamDecoder("request", connection=shared)
    answering = http.HttpStreamDecoder("response", connection=shared)
    out = []
    for ask, reply in pairs:
        assert asking.feed(ask)
        out += answering.feed(reply)
    return [m for m in out + answering.close() if m.kind != "sse_event"]


def test_every_route_answer_is_typed_by_its_shape_without_warnings():
    frame = encode(chunk_frame("s-9", 3, "tok", event_type="token"))
    found = exchange(
        (request("POST", "/events/publish?topic=t", CE), answer(202, {"status": "accepted"}, reason="Accepted")),
        (request("POST", "/events/subscribe", {"clientId": "c", "topic": "t", "mode": "CLUSTERING"}),
         answer(200, {"subscriptionId": "t:c", "instanceUrl": ""})),
        (request("GET", "/events/poll?clientId=c"), answer(200, [{"deliveryId": "d-1", "event": CE}])),
        (request("POST", "/events/request?topic=t", CE), answer(200, CE, "application/cloudevents+json")),
        (request("GET", "/events/lite/poll?topic=t&lite=l"), answer(200, [CE, CE])),
        (request("GET", "/events/lite/poll-bytes?topic=t&lite=l"), answer(200, [base64.b64encode(frame).decode()])),
        (request("POST", "/events/ack", {"deliveryId": "d-9"}), answer(404, {"error": "unknown deliveryId"})),
        (request("POST", "/events/unsubscribe", {"clientId": "c"}), answer(200, {"removed": True})),
    )
    assert [m.message_type for m in found] == ["UNI_PUBLISH", "UNI_SUBSCRIBE", "UNI_POLL", "UNI_REQUEST",
                                               "UNI_LITE_POLL", "UNI_LITE_POLL_BYTES", "UNI_ACK", "UNI_UNSUBSCRIBE"]
    assert all(m.kind == "uni" and not m.warnings for m in found), [m.warnings for m in found]
    rows = [m.to_dict() for m in found]
    assert rows[0]["route"] == "UNI_PUBLISH" and rows[0]["answer"] == {"status": "accepted"}
    assert rows[2]["answer"][0]["event"]["id"] == "e-1" and rows[3]["answer"]["source"] == "/orders"
    assert [e["id"] for e in rows[4]["answer"]] == ["e-1", "e-1"]
    assert rows[5]["answer"][0]["seq"] == 3 and rows[5]["answer"][0]["attributes"]["sid"] == "s-9"
    json.dumps(rows)


def test_the_jdk_servers_reject_is_typed_where_the_table_lists_it():
    found = exchange(
        (request("GET", "/events/poll?clientId=c&max=lots"), answer(400, REJECT, "text/html", "Bad Request")),
        (request("GET", "/events/poll"), answer(400, {"error": "missing clientId"}, reason="Bad Request")),
        (request("POST", "/events/request?timeoutMs=soon", CE), answer(400, REJECT, "text/html", "Bad Request")),
        (request("POST", "/events/ack", b'{"deliveryId":"d"}'), answer(
            404, b"<h1>404 Not Found</h1>No context found for request", "text/html", "Not Found")),
    )
    assert [m.to_dict()["answer"] for m in found] == [
        {"jdk_reject": "NumberFormatException thrown"}, {"error": "missing clientId"},
        {"jdk_reject": "NumberFormatException thrown"}, {"jdk_reject": "No context found for request"}]
    assert not any(m.warnings for m in found)


def _one(ask, reply):
    [found] = exchange((ask, reply))
    return found


@pytest.mark.parametrize("ask,reply,path,where,reason", [  # where: from the body's first byte
    (request("POST", "/events/publish?topic=t", CE), answer(202, {"state": "ok"}), "body", 0, "no status"),
    (request("POST", "/events/publish?topic=t", CE), answer(202, {"state": "ok"}), "body", 0, "unexpected state"),
    (request("GET", "/events/poll?clientId=c"), answer(200, b'[{"deliveryId": "d-1",}]'), "body", 22,
     "not valid JSON"),
    (request("GET", "/events/poll?clientId=c"), answer(200, [{"deliveryId": "d-1", "event": {"id": "x"}}]),
     "body[0].event.specversion", 0, "required, missing"),
    (request("GET", "/events/poll?clientId=c"), answer(200, {"deliveryId": "d-1"}), "body", 0,
     "expected a JSON array"),
    (request("GET", "/events/lite/poll-bytes?topic=t&lite=l"), answer(200, ["not base64!"]), "body[0]", 0,
     "not base64"),
    (request("GET", "/events/lite/poll-bytes?topic=t&lite=l"), answer(200, [base64.b64encode(b"\xef\x01").decode()]),
     "body[0]", 0, "not one EventMeshFrame"),
    (request("GET", "/events/poll?clientId=c&max=x"), answer(400, b"<h1>oops</h1>", "text/html"), "body", 0,
     "not one of the JDK server's reject() answers"),
], ids=["missing-key", "extra-key", "bad-json", "bad-cloudevent", "not-array", "bad-base64", "bad-frame",
        "not-a-reject"])
def test_an_answer_unlike_the_table_is_a_warning_with_path_offset_and_reason(ask, reply, path, where, reason):
    found = _one(ask, reply)
    body_at = len(reply) - len(reply.split(b"\r\n\r\n", 1)[1])
    expected = f"{path} at offset {body_at + where}: {reason}"
    assert any(w.startswith(expected) for w in found.warnings), (expected, found.warnings)
    assert found.kind == "uni" and found.error is None  # the stream goes on: a warning, not an error span


def test_a_status_or_content_type_the_route_does_not_list_is_a_warning():
    unlisted = _one(request("POST", "/events/publish?topic=t", CE), answer(201, {"status": "accepted"}))
    assert unlisted.warnings == ("UNI_PUBLISH does not answer 201 (the route table lists 202, 400, 405, 413, 429, "
                                 "500)",)
    typed = _one(request("POST", "/events/request?topic=t", CE), answer(200, CE))
    assert typed.warnings == ("Content-Type 'application/json': UNI_REQUEST's 200 is written as "
                              "application/cloudevents+json",) and typed.answer.id == "e-1"


def test_an_sse_answer_is_read_as_its_routes_data_kind():
    chunk = b'data: {"sessionId":"s","seq":0,"done":false}\n\n'
    sse = (b"HTTP/1.1 200 OK\r\nContent-type: text/event-stream\r\nTransfer-encoding: chunked\r\n\r\n"
           + b"%x\r\n" % len(chunk) + chunk + b"\r\n0\r\n\r\n")
    shared = uni.Exchanges()
    http.HttpStreamDecoder("request", connection=shared).feed(request("GET", "/events/stream?clientId=c"))
    head, event, _ = http.HttpStreamDecoder("response", connection=shared).feed(sse)
    assert head.route == "UNI_STREAM" and not head.warnings
    assert event.data_kind == "stream_chunk" and event.warnings == (
        "the data is not a delivery (keys deliveryId, event), as the route's stream carries",)


def test_a_gap_ends_the_pairing_and_unpaired_answers_stay_untyped():
    shared = uni.Exchanges()
    asking = http.HttpStreamDecoder("request", connection=shared)
    asking.feed(request("POST", "/events/publish?topic=t", CE))
    asking.close(end_calls=False)  # the capture lost bytes here: answers could shift onto the wrong route
    [after] = http.HttpStreamDecoder("response", connection=shared).feed(answer(202, {"status": "accepted"}))
    assert (after.kind, after.route, shared.paired) == ("other", None, False)
    [alone] = http.iter_messages(answer(202, {"status": "accepted"}), "response")
    assert alone.route is None and alone.answer is None  # one direction alone: nothing to pair with
