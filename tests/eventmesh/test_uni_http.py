"""The new runtime's uni HTTP API (specs/eventmesh/uni_http.yaml) in the HTTP decoder: requests typed by route
beside the legacy request-code API, and text/event-stream answers read event by event as they arrive, within
the decoder's memory budget. The dumps are hand-written HTTP text (test data)."""
import json

import pytest
import yaml

from inlong_proto import iter_frames
from inlong_proto.core.errors import LimitError
from inlong_proto.core.stream import Limits
from inlong_proto.eventmesh import http, uni
from inlong_proto.eventmesh.frame import chunk_frame
from inlong_proto import encode
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CE = '{"specversion":"1.0","id":"e-1","source":"/orders","type":"created","datacontenttype":"application/json","data":{"a":1}}'


def post(target, body=b"", *, headers=(), method="POST"):
    body = body.encode() if isinstance(body, str) else body
    head = f"{method} {target} HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers)
    if method != "GET":
        head += f"Content-Length: {len(body)}\r\n"
    return head.encode() + b"\r\n" + body


def chunk(text):
    data = text.encode() if isinstance(text, str) else text
    return b"%x\r\n" % len(data) + data + b"\r\n"


SSE_HEAD = b"HTTP/1.1 200 OK\r\nDate: Thu, 26 Nov 2026 15:00:00 GMT\r\nContent-type: text/event-stream\r\n" \
           b"Cache-control: no-cache\r\nTransfer-encoding: chunked\r\n\r\n"
DELIVERY = 'data: {"deliveryId":"d-1","event":%s}\n\n' % CE
CHUNKS = ['data: {"sessionId":"s-9","seq":0,"chunk":"Hel","done":false,"error":null,"eventType":"token","meta":null}\n\n',
          'data: {"sessionId":"s-9","seq":1,"chunk":"lo","done":false,"error":null,"eventType":"token","meta":null}\n\n',
          'data: {"sessionId":"s-9","seq":-1,"chunk":"","done":true,"error":"timeout","eventType":null,"meta":null}\n\n']


def messages(data, direction, mode="FAILFAST"):
    return list(http.iter_messages(data, direction, mode))


def test_route_table_names_every_upstream_route_once_with_its_facts():
    table = yaml.safe_load((ROOT / "specs" / "eventmesh" / "uni_http.yaml").read_text())
    paths = [r["path"] for r in table["routes"]]
    assert len(paths) == len(set(paths)) == 27
    for route in table["routes"]:
        assert route["method"] in ("GET", "POST") and route["body"] in table["body-kinds"]
        assert route["source"].startswith("rt/http/UniHttpServer.java") and route["answers"]
        assert all(isinstance(s, int) for s in route["answers"])
    publish = next(r for r in table["routes"] if r["path"] == "/events/publish")
    assert {202, 413, 429} <= set(publish["answers"]) and table["limits"]["max-message-size"] == 1 << 20


@pytest.mark.parametrize("target,name", [
    ("/events/publish?topic=a", "UNI_PUBLISH"), ("/events/publish-batch?topic=a", "UNI_PUBLISH_BATCH"),
    ("/events/lite/publish-bytes?topic=a&lite=b", "UNI_LITE_PUBLISH_BYTES"),
    ("/events/lite/publish?topic=a&lite=b", "UNI_LITE_PUBLISH"), ("/events/publishX", "UNI_PUBLISH"),
    ("/session/stream/s-9", "UNI_SESSION_STREAM"), ("/agent/heartbeat", "UNI_AGENT_HEARTBEAT"),
])
def test_longest_prefix_wins_as_in_the_jdk_server(target, name):
    assert uni.route_of(target)["name"] == name


def test_publish_is_typed_by_its_route_with_its_cloudevent():
    [request] = messages(post("/events/publish?topic=orders%2Fus", CE,
                              headers=[("Content-Type", "application/cloudevents+json")]), "request")
    out = request.to_dict()
    assert (out["message_type"], out["kind"], out["route"]) == ("UNI_PUBLISH", "uni", "UNI_PUBLISH")
    assert out["fields"]["query"] == {"topic": "orders/us"}
    assert out["fields"]["body"]["id"] == "e-1" and out["fields"]["body"]["data"] == {"a": 1}
    assert "warnings" not in out


def test_what_the_runtime_would_refuse_is_reported_not_raised():
    big = post("/events/publish?topic=t", CE, headers=[("Content-Type", "application/cloudevents+json")])
    big = big.replace(f"Content-Length: {len(CE)}".encode(), b"Content-Length: 1048577")[:-len(CE)]
    [request] = messages(big + b"x" * 1048577, "request")
    assert any("413" in w for w in request.warnings)
    [no_topic] = messages(post("/events/publish", CE), "request")
    assert any("'topic' is missing" in w for w in no_topic.warnings)
    [wrong] = messages(post("/events/poll?clientId=c", "", method="POST"), "request")
    assert any("405" in w for w in wrong.warnings)
    [bad] = messages(post("/events/publish?topic=t", '{"id":"x"}'), "request")
    assert any("not a valid CloudEvent" in w for w in bad.warnings)


def test_batch_subscribe_reply_and_session_bodies():
    data = (post("/events/publish-batch?topic=t", f"[{CE},{CE}]")
            + post("/events/subscribe", '{"clientId":"c1","topic":"t","mode":"CLUSTERING"}')
            + post("/events/reply", '{"correlationId":"k","event":%s}' % CE)
            + post("/session/stream/s-9", '{"prompt":"hi","model":"m"}')
            + post("/events/poll?clientId=c1&max=5", method="GET"))
    found = [m.to_dict() for m in messages(data, "request")]
    assert [m["message_type"] for m in found] == ["UNI_PUBLISH_BATCH", "UNI_SUBSCRIBE", "UNI_REPLY",
                                                  "UNI_SESSION_STREAM", "UNI_POLL"]
    assert [e["id"] for e in found[0]["fields"]["body"]] == ["e-1", "e-1"]
    assert found[1]["fields"]["body"]["mode"] == "CLUSTERING"
    assert found[2]["fields"]["body"]["event"]["type"] == "created"
    assert found[3]["fields"]["path_id"] == "s-9" and found[3]["fields"]["body"]["prompt"] == "hi"
    assert found[4]["fields"]["query"] == {"clientId": "c1", "max": "5"}


def test_lite_publish_bytes_body_is_an_eventmesh_frame():
    frame = encode(chunk_frame("s-9", 3, "tok", event_type="token"))
    [request] = messages(post("/events/lite/publish-bytes?topic=p&lite=l", frame,
                              headers=[("Content-Type", "application/octet-stream")]), "request")
    body = request.to_dict()["fields"]["body"]
    assert body["msg_type"] == "stream_chunk" and body["seq"] == 3 and body["attributes"] == {"sid": "s-9", "etype": "token"}
    [empty] = messages(post("/events/lite/publish-bytes?topic=p&lite=l"), "request")
    assert any("400" in w for w in empty.warnings)


def test_legacy_request_code_api_is_unchanged_beside_the_routes():
    legacy = b"POST / HTTP/1.1\r\nHost: x\r\ncode: 104\r\nContent-Length: 0\r\n\r\n"
    route = post("/eventmesh/publish", "{}")
    found = messages(legacy + route, "request")
    assert [(m.kind, m.message_type) for m in found] == [("request", "MSG_SEND_ASYNC"), ("route", "PUBLISH")]


def sse_stream(events, *, split=None):
    body = b"".join(chunk(e) for e in events)
    return SSE_HEAD + body + b"0\r\n\r\n"


def test_events_stream_is_read_event_by_event_and_tiles_the_stream():
    data = sse_stream([DELIVERY, DELIVERY.replace("d-1", "d-2")])
    found = messages(data, "response")
    assert [m.message_type for m in found] == ["SSE_STREAM", "SSE_DELIVERY", "SSE_DELIVERY", "SSE_END"]
    assert [m.to_dict()["sse"]["value"]["deliveryId"] for m in found[1:3]] == ["d-1", "d-2"]
    assert found[1].to_dict()["sse"]["value"]["event"]["source"] == "/orders"
    assert found[0].to_dict()["kind"] == "sse" and found[0].status == 200
    at = 0
    for m in found:
        assert m.offset == at
        at += m.length
    assert at == len(data)


def test_each_event_comes_out_when_its_blank_line_arrives():
    data = sse_stream(CHUNKS)
    decoder = http.HttpStreamDecoder("response")
    seen = []
    for index in range(len(data)):
        for item in decoder.feed(data[index:index + 1]):
            seen.append((index, item))
    seen += [(len(data), item) for item in decoder.close()]
    types = [item.message_type for _, item in seen]
    assert types == ["SSE_STREAM"] + ["SSE_STREAM_CHUNK"] * 3 + ["SSE_END"]
    first_blank = data.index(b"\n\n", len(SSE_HEAD)) + 1  # the second LF of the first event
    assert seen[1][0] == first_blank  # not at the end of the stream
    last = seen[3][1].to_dict()["sse"]["value"]
    assert (last["seq"], last["done"], last["error"]) == (-1, True, "timeout")
    assert [i.to_dict() for _, i in seen] == [m.to_dict() for m in messages(data, "response")]


def test_an_open_stream_keeps_only_the_unfinished_event():
    decoder = http.HttpStreamDecoder("response")
    decoder.feed(SSE_HEAD)
    total = 0
    for n in range(2000):
        total += len(decoder.feed(chunk(DELIVERY.replace("d-1", f"d-{n}"))))
        assert decoder.buffered < 1024 and decoder.retained < 1024
    assert total == 2000
    decoder.feed(chunk("data: {\"half"))
    assert decoder.retained >= len('data: {"half')


def test_sse_fields_comments_line_endings_and_multi_line_data():
    text = ": keep-alive\r\nevent: update\r\nid: 42\r\nretry: 3000\r\ndata: line one\rdata:line two\n\nretry: soon\ndata\n\n"
    found = messages(sse_stream([text]), "response")
    first, second = found[1].to_dict()["sse"], found[2]
    assert first == {"event": "update", "id": "42", "retry": 3000, "data": "line one\nline two", "data_kind": "text"}
    assert second.data == "" and any("retry" in w for w in second.warnings)


def test_an_event_over_the_body_budget_is_an_error_span_and_memory_stays_bounded():
    limits = Limits(max_body=256)
    decoder = http.HttpStreamDecoder("response", mode="PERMISSIVE", limits=limits)
    data = SSE_HEAD + chunk(DELIVERY[:100]) + chunk("data: " + "x" * 1000 + "\n\n") + b"0\r\n\r\n"
    out = decoder.feed(data) + decoder.close()
    errors = [o for o in out if o.error is not None]
    assert errors and isinstance(errors[0].error, LimitError)
    assert sum(o.length for o in out) == len(data)
    failfast = http.HttpStreamDecoder("response", limits=limits)
    with pytest.raises(LimitError):  # FAILFAST: what came before the error in the same call comes first
        assert [m.message_type for m in failfast.feed(data)] == ["SSE_STREAM"]
        failfast.close()


def test_a_stream_cut_inside_an_event_is_an_error_span_in_permissive_mode():
    data = SSE_HEAD + chunk(DELIVERY) + chunk("data: {\"partial")
    found = messages(data, "response", "PERMISSIVE")
    assert [m.message_type for m in found[:2]] == ["SSE_STREAM", "SSE_DELIVERY"]
    assert found[-1].error is not None and sum(m.length for m in found) == len(data)


def test_a_stream_read_until_close_reports_an_undispatched_event():
    data = b"HTTP/1.0 200 OK\r\nContent-Type: text/event-stream\r\n\r\n" + DELIVERY.encode() + b"data: tail"
    found = messages(data, "response")
    assert found[-1].message_type == "SSE_END" and found[-1].warnings
    assert sum(m.length for m in found) == len(data)


def test_json_answers_and_sse_rows_through_iter_frames():
    answer = b'HTTP/1.1 202 Accepted\r\nContent-type: application/json\r\nContent-length: 21\r\n\r\n{"status":"accepted"}'
    rows = [f.to_dict() for f in iter_frames(answer + sse_stream([DELIVERY]), "eventmesh-http", "response")]
    assert rows[0]["status"] == 202 and rows[0]["body"] == {"status": "accepted"} or rows[0]["status"] == 202
    assert [r["message_type"] for r in rows[1:]] == ["SSE_STREAM", "SSE_DELIVERY", "SSE_END"]
    json.dumps(rows)


def test_sse_events_map_into_the_event_model():
    from inlong_proto.eventmesh import convert

    [_, delivery, _] = messages(sse_stream([DELIVERY]), "response")
    event = convert.event_from_uni(delivery)
    assert (event.id, event.source, event.type, event.data) == ("e-1", "/orders", "created", '{"a":1}')
    [request] = messages(post("/events/publish?topic=orders", CE), "request")
    assert convert.event_from_uni(request).id == "e-1"


# ------------------------------------------------------------------------------------------ properties
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_line = st.text(st.characters(blacklist_characters="\r\n", blacklist_categories=("Cs",)), max_size=20)
_event = st.lists(st.tuples(st.sampled_from(["data", "event", "id", "retry", "", ":"]), _line), max_size=4)
_eol = st.sampled_from(["\n", "\r\n", "\r"])


@settings(max_examples=150, deadline=None)
@given(events=st.lists(st.tuples(_event, _eol), max_size=6), cuts=st.lists(st.integers(1, 40), max_size=8),
       feeds=st.lists(st.integers(1, 60), max_size=10), junk=st.binary(max_size=30))
def test_sse_any_split_gives_the_same_items_and_they_tile(events, cuts, feeds, junk):
    text = "".join("".join(f"{name}:{value}{eol}" if name != ":" else f":{value}{eol}" for name, value in fields) + eol
                   for fields, eol in events)
    body = text.encode()
    pieces, at = [], 0
    for cut in cuts:
        if at < len(body):
            pieces.append(body[at:at + cut])
            at += cut
    pieces.append(body[at:])
    junk = b"X" + junk if junk else b""  # (blank lines between messages are skipped, as RFC 7230 allows)
    data = SSE_HEAD + b"".join(chunk(p) for p in pieces if p) + b"0\r\n\r\n" + junk
    whole = messages(data, "response", "PERMISSIVE")
    decoder, items, at = http.HttpStreamDecoder("response", mode="PERMISSIVE"), [], 0
    for size in feeds:
        items += decoder.feed(data[at:at + size])
        at += size
    items += decoder.feed(data[at:]) + decoder.close()
    assert [i.to_dict() for i in items] == [i.to_dict() for i in whole]
    position = 0
    for item in whole:
        assert item.offset == position
        position += item.length
    assert position == len(data)
    dispatched = [i for i in whole if (i.message_type or "").startswith("SSE_")
                  and i.message_type not in ("SSE_STREAM", "SSE_END")]
    assert len(dispatched) <= len(events)
