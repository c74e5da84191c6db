"""EventMesh HTTP: vectors (requests captured from Apache HttpClient driven as the Java SDK and the runtime's
push drive it, answers written by Netty as the runtime writes them, every request-code family, webhook
replies, chunked bodies, pipelining, malformed input with offsets), builders against the captures, the
Java HashMap key order, form encoding and decoding as Netty reads it, hypothesis round trips (builder ->
bytes -> parse), streams split anywhere, fuzzing (only DecodeError escapes) and the CLI as a subprocess."""
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]


from inlong_proto import DecodeError, TruncatedError, ValidationError
from inlong_proto.eventmesh import http

VECTORS = ROOT / "tests" / "vectors" / "eventmesh" / "http"
ALL = {f.stem: json.loads(f.read_text()) for f in sorted(VECTORS.glob("*.json"))}
VALID = [pytest.param(v, id=k) for k, v in ALL.items() if v["kind"] == "valid"]
MALFORMED = [pytest.param(v, id=k) for k, v in ALL.items() if v["kind"] == "malformed"]


def data_of(vector) -> bytes:
    return bytes.fromhex(vector["hex"]) if "hex" in vector else vector["text"].encode("utf-8")


def decode(data, direction=None, mode="FAILFAST"):
    return [m.to_dict() for m in http.iter_messages(data, direction, mode)]


def fed(data, direction=None, mode="FAILFAST", step=7):
    """The same stream through HttpStreamDecoder, fed `step` bytes at a time."""
    decoder = http.HttpStreamDecoder(direction, mode=mode)
    out = []
    for i in range(0, len(data), step):
        out += decoder.feed(data[i:i + step])
    return [m.to_dict() for m in out + decoder.close()]


def summary(items):
    out = []
    for d in items:
        item = {"offset": d["offset"], "length": d["length"], "message_type": d["message_type"]}
        if "error" in d:
            item["error"] = {k: d["error"][k] for k in ("kind", "offset", "field")}
        if d.get("warnings"):
            item["warnings"] = d["warnings"]
        out.append(item)
    return out


# ------------------------------------------------------------------------------------------ vectors
def test_every_request_code_family_has_a_vector():
    seen = {e["message_type"] for v in ALL.values() if v["kind"] == "valid" for e in v["expected"]}
    families = {"HEARTBEAT", "SUBSCRIBE", "UNSUBSCRIBE", "MSG_SEND_ASYNC", "MSG_SEND_SYNC", "MSG_BATCH_SEND",
                "MSG_BATCH_SEND_V2", "REPLY_MESSAGE", "HTTP_PUSH_CLIENT_ASYNC", "HTTP_PUSH_CLIENT_SYNC",
                "WEBHOOK_REPLY", "INFORMATIONAL", "HTTP_RESPONSE", "PUBLISH_BATCH"}
    assert families <= seen
    kinds = {(e["direction"], e["kind"]) for v in ALL.values() if v["kind"] == "valid" for e in v["expected"]}
    assert kinds == {("request", "request"), ("request", "push"), ("request", "route"), ("response", "runtime"),
                     ("response", "webhook_reply"), ("response", "informational"), ("response", "other")}
    assert any(e["chunked"] for v in ALL.values() if v["kind"] == "valid" for e in v["expected"])
    assert sum(v["source"].startswith("captured") for v in ALL.values()) >= 13


@pytest.mark.parametrize("vector", VALID)
def test_valid_vector(vector):
    data = data_of(vector)
    expected = vector["expected"]
    assert decode(data, vector["direction"]) == expected
    assert json.loads(json.dumps(expected)) == expected
    assert decode(data, None) == expected  # the direction is told from the first bytes
    assert decode(data, vector["direction"], "PERMISSIVE") == expected
    assert decode(data, vector["direction"], "DROPMALFORMED") == expected
    for step in (1, 5, 64, 10**6):
        assert fed(data, vector["direction"], step=step) == expected
    ends = [(e["offset"], e["offset"] + e["length"]) for e in expected]
    assert all(a[1] <= b[0] for a, b in zip(ends, ends[1:])) and ends[-1][1] == len(data)


@pytest.mark.parametrize("vector", MALFORMED)
def test_malformed_vector(vector):
    data = data_of(vector)
    with pytest.raises(DecodeError) as caught:
        decode(data, vector["direction"])
    error = vector["error"]
    assert (type(caught.value).__name__, caught.value.offset, caught.value.field, caught.value.reason) == (
        error["type"], error["offset"], error["field"], error["reason"])
    assert summary(decode(data, vector["direction"], "PERMISSIVE")) == vector["permissive"]
    assert summary(fed(data, vector["direction"], "PERMISSIVE", step=3)) == vector["permissive"]
    dropped = [p for p in vector["permissive"] if "error" not in p]
    assert summary(decode(data, vector["direction"], "DROPMALFORMED")) == dropped
    spans = [(p["offset"], p["offset"] + p["length"]) for p in vector["permissive"]]
    assert spans[0][0] == 0 and spans[-1][1] == len(data)
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))


@pytest.mark.parametrize("name, points_at", [
    ("subscribe_topic_not_json", b"%7D%5D"),  # the stray '}' after the comma, inside the %-encoded field
    ("bad_chunk_header", b"zz\r\n"),
    ("bad_header_line", b"code 104\r\n"),
    ("bad_percent_escape", b"%"),
    ("empty_field_name", b"=x"),
    ("runtime_answer_not_json", b"retCode"),
])
def test_error_offsets_point_at_the_fault(name, points_at):
    vector = ALL[name]
    data = data_of(vector)
    offset = vector["error"]["offset"]
    assert data[offset:offset + len(points_at)] == points_at


@pytest.mark.parametrize("data, offset, reason", [
    (b"GARBAGE\r\n\r\n", 0, "illegal request line: GARBAGE"),
    (b"\xff\xfeX\r\n\r\n", 0, "illegal request line: hex fffe58"),
    (b"GET / HTTP/1.1\r\nHost: x\r\nbad\x1b[2J line\r\n\r\n", 25, "illegal header line: bad\\x1b[2J line"),
])
def test_the_bytes_h11_refuses_are_shown_as_peer_text_not_as_a_python_repr(data, offset, reason):
    """h11 names them as bytearray(b'...'); the reason shows their text, controls escaped (or their hex when
    they are not UTF-8), and the error still points at them."""
    with pytest.raises(ValidationError) as caught:
        decode(data, "request")
    assert (caught.value.offset, caught.value.field, caught.value.reason) == (offset, "http.head", reason)


def test_a_cut_stream_is_a_truncation_at_its_end():
    data = data_of(ALL["send_async_java"])
    for cut in (1, 20, 300, len(data) - 1):
        with pytest.raises(TruncatedError) as caught:
            decode(data[:cut], "request")
        assert caught.value.offset == cut
        [span] = decode(data[:cut], "request", "PERMISSIVE")
        assert (span["offset"], span["length"], span["error"]["kind"]) == (0, cut, "truncated")
    decoder = http.HttpStreamDecoder("request")
    assert decoder.feed(data[:-1]) == [] and decoder.buffered == len(data) - 1
    assert [m.message_type for m in decoder.feed(data[-1:])] == ["MSG_SEND_ASYNC"] and decoder.buffered == 0
    assert decoder.close() == []


def test_failfast_returns_messages_before_the_error_then_raises():
    data = data_of(ALL["heartbeat_java"]) + b"BAD LINE\r\n\r\n"
    decoder = http.HttpStreamDecoder("request")
    assert [m.message_type for m in decoder.feed(data)] == ["HEARTBEAT"]
    with pytest.raises(ValidationError):
        decoder.close()


def test_long_garbage_is_reported_in_bounded_pieces():
    decoder = http.HttpStreamDecoder("request", mode="PERMISSIVE")
    items = []
    for _ in range(48):
        items += decoder.feed(b"x" * 65536)
        assert decoder.buffered <= (1 << 20) + 65536
    items += decoder.feed(data_of(ALL["heartbeat_java"])) + decoder.close()
    assert [i.message_type for i in items][-1] == "HEARTBEAT"
    assert sum(i.length for i in items) == 48 * 65536 + len(data_of(ALL["heartbeat_java"]))
    assert len(items) > 2 and all(isinstance(i, http.HttpError) for i in items[:-1])


def test_large_bodies_through_the_slices():
    config = http.ClientConfig()
    content = "0123456789abcdef" * 20000
    for chunked in (False, True):
        data = http.send_message(config, "T", content, ttl="1", bizseqno="2", uniqueid="3", chunked=chunked)
        [message] = http.iter_messages(data)
        assert message.fields["content"] == content and message.chunked is chunked
        assert any("320000 characters, over 1000: retCode 8" in w for w in message.warnings)
        assert [m.to_dict() for m in http.iter_messages(data)] == fed(data, step=4099)


# ----------------------------------------------------------------------- builders and Java captures
CONFIG = http.ClientConfig()
TOPIC, URL = "TEST-TOPIC-HTTP-ASYNC", "http://127.0.0.1:8088/sub/test"
CAPTURED_AS = {
    "heartbeat_java": lambda: http.heartbeat(CONFIG, [TOPIC], URL),
    "subscribe_java": lambda: http.subscribe(CONFIG, [http.SubscriptionItem(
        topic=TOPIC, mode=http.SubscriptionMode.CLUSTERING, type=http.SubscriptionType.ASYNC)], URL),
    "unsubscribe_java": lambda: http.unsubscribe(CONFIG, [TOPIC], URL),
    "send_async_java": lambda: http.send_message(CONFIG, TOPIC, "testPublishMessage", ttl="4000",
                                                 bizseqno="45183457920457820139", uniqueid="67924019324827015432"),
    "send_sync_java": lambda: http.send_message(CONFIG, TOPIC, "testPublishMessage", ttl="4000", sync=True,
                                                bizseqno="45183457920457820139", uniqueid="67924019324827015432"),
    "send_async_cloudevents_java": lambda: http.send_cloudevent(CONFIG, (
        '{"specversion":"1.0","id":"b3a9c1e4-0f7e-4c59-9d43-2f6a1d0c5e77","source":"/","type":"cloudevents",'
        '"datacontenttype":"application/cloudevents+json","subject":"TEST-TOPIC-HTTP-ASYNC","ttl":"4000",'
        '"data":"testAsyncMessage"}')),
    "batch_send_java": lambda: http.batch_send(CONFIG, "batch-1", [
        http.BatchMessageEntity(biz_seq_no="1", topic=TOPIC, msg="a b", tag="", ttl="4000"),
        http.BatchMessageEntity(biz_seq_no="2", topic=TOPIC, msg="c&d=é", tag="t", ttl="4000")]),
    "batch_send_v2_java": lambda: http.batch_send_v2(CONFIG, TOPIC, "hello", bizseqno="45183457920457820139"),
    "reply_message_java": lambda: http.reply_message(CONFIG, TOPIC, "replyContent", bizseqno="45183457920457820139",
                                                     uniqueid="67924019324827015432",
                                                     ext_fields={"msgtype": "persistent"}),
    "push_async_java": lambda: http.push(URL, "testPublishMessage", TOPIC, bizseqno="45183457920457820139",
                                         unique_id="67924019324827015432", random_no="7391",
                                         ext_fields={"ttl": "4000", "protocoltype": "eventmeshmessage"},
                                         eventmesh_ip="10.0.0.7"),
    "response_send_async_netty": lambda: http.response(104, 0, "success", 1700000000123, instance={
        "eventmeshcluster": "EventMeshCluster", "eventmeship": "10.0.0.7", "eventmeshenv": "env",
        "eventmeshidc": "idc"}),
    "response_code_invalid_netty": lambda: http.response("0", 2, "requestCode can't be null, or must be number",
                                                         1700000000123, status=400),
    "response_405_netty": lambda: http.error_status(405),
}


def _host_moved_last(data: bytes) -> bytes:
    """h11 writes Host right after the request line (RFC 7230 5.4); Apache HttpClient after Content-Type.
    Put it back where HttpClient has it, to compare the rest byte for byte."""
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    host = [line for line in lines if line.lower().startswith(b"host:")]
    rest = [line for line in lines if not line.lower().startswith(b"host:")]
    return b"\r\n".join(rest + host) + b"\r\n\r\n" + body


@pytest.mark.parametrize("name", sorted(CAPTURED_AS))
def test_builders_write_what_java_writes(name):
    """Header names, values and order (Java HashMap order), form bytes, Netty's answers: all identical to
    the captures; requests differ only in where h11 puts the Host line."""
    built, captured = CAPTURED_AS[name](), data_of(ALL[name])
    if name.endswith("_netty"):
        assert built == captured
    else:
        assert built != captured and _host_moved_last(built) == _host_moved_last(captured)
        assert len(built) == len(captured)
    def without_headers(items):
        return [{k: v for k, v in item.items() if k != "headers"} for item in items]

    assert without_headers(decode(built)) == without_headers(ALL[name]["expected"])


def test_java_hashmap_order():
    assert http._java_hash("hello") == 99162322 and http._java_hash("code") == 3059181
    keys = ["env", "idc", "ip", "pid", "sys", "username", "passwd", "version", "language", "code"]
    assert [k for k, _ in http.java_hashmap_order((k, k) for k in keys)] == [
        "code", "passwd", "ip", "idc", "pid", "language", "env", "sys", "version", "username"]
    # a repeated key keeps its first place and its last value; past 12 keys the table doubles
    assert http.java_hashmap_order([("a", 1), ("b", 2), ("a", 3)]) == [("a", 3), ("b", 2)]
    many = [(f"k{i}", i) for i in range(13)]
    assert sorted(http.java_hashmap_order(many)) == sorted(many)


def test_form_encoding_is_apache_httpclients():
    assert http.form_encode([("a b", "x*y~é-_.!"), ("bare", None), ("e", "")]) == (
        b"a+b=x*y%7E%C3%A9-_.%21&bare&e=")


@pytest.mark.parametrize("body, fields, error", [  # observed with Netty 4.2's HttpPostRequestDecoder
    (b"a&b=1", {"a": "", "b": "1"}, None),
    (b"a=1&", {"a": "1"}, None),
    (b"=x&b=2", None, "empty name"),
    (b"a=%zz", None, "bad %-escape"),
    (b"a=%4", None, "bad %-escape"),
    (b"%zz=1", None, "bad %-escape"),
    (b"a=%e9", {"a": "\ufffd"}, None),
    (b"a=x+y%2B", {"a": "x y+"}, None),
    (b"a=1&a=2", {"a": "2"}, None),
    (b"a=1&&b=2", {"a": "1", "b": "2"}, None),
    (b"a==b", {"a": "=b"}, None),
    (b"a=%C3%A9", {"a": "é"}, None),
])
def test_form_decoding_is_nettys(body, fields, error):
    data = http.build_request("POST", "/", [("Host", "h"), ("code", "201"), ("Content-Length", None)], body)
    if error:
        with pytest.raises(ValidationError, match=error):
            decode(data)
    else:
        assert decode(data)[0]["other_fields"] == fields


def test_header_names_as_the_runtime_reads_them():
    data = http.build_request("POST", "/", [("Host", "h"), ("CoDe", "203"), ("VERSION", "2.0"), ("Pid", "7"),
                                            ("pid", "8"), ("pid", "9"), ("idc", "i"), ("sys", "s"),
                                            ("Content-Length", None)], b"")
    [message] = http.iter_messages(data)
    assert message.message_type == "HEARTBEAT"  # code and version: Netty headers, any case
    assert message.protocol_headers == {"code": "203", "version": "2.0", "idc": "i", "sys": "s", "pid": "9"}
    assert "header 'pid' is not numeric" not in " ".join(message.warnings)


# ------------------------------------------------------------------------------- hypothesis round trips
TOKEN = st.text(st.sampled_from("abcXYZ019-._:/"), min_size=1, max_size=10)
TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=30)
CONFIGS = st.builds(http.ClientConfig, env=TOKEN, idc=TOKEN, ip=TOKEN, pid=st.from_regex(r"[0-9]{1,6}", fullmatch=True),
                    sys=TOKEN, username=TOKEN, passwd=TOKEN, consumer_group=TEXT, producer_group=TEXT)
ITEMS = st.builds(http.SubscriptionItem, topic=TEXT, mode=st.sampled_from(list(http.SubscriptionMode)),
                  type=st.sampled_from(list(http.SubscriptionType)))
ENTITIES = st.builds(http.BatchMessageEntity, biz_seq_no=st.none() | TEXT, topic=st.none() | TEXT,
                     msg=st.none() | TEXT, tag=st.none() | TEXT, ttl=st.none() | TEXT)
STRING_MAPS = st.dictionaries(TEXT, TEXT, max_size=3)
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def one(data, message_type):
    [message] = http.iter_messages(data)
    assert message.message_type == message_type
    return message


def client_headers_match(message, config):
    for key in ("env", "idc", "ip", "pid", "sys", "username", "passwd"):
        assert message.protocol_headers[key] == getattr(config, key)


@SETTINGS
@given(config=CONFIGS, topics=st.lists(TEXT, max_size=3), url=TEXT, chunked=st.booleans())
def test_round_trip_heartbeat(config, topics, url, chunked):
    message = one(http.heartbeat(config, topics, url, chunked=chunked), "HEARTBEAT")
    client_headers_match(message, config)
    assert message.fields == {"consumerGroup": config.consumer_group, "clientType": "SUB",
                              "heartbeatEntities": [http.HeartbeatEntity(topic=t, url=url) for t in topics]}
    assert message.chunked is chunked


@SETTINGS
@given(config=CONFIGS, items=st.lists(ITEMS, max_size=3), url=TEXT, topics=st.lists(TEXT, max_size=3),
       chunked=st.booleans())
def test_round_trip_subscribe_and_unsubscribe(config, items, url, topics, chunked):
    message = one(http.subscribe(config, items, url, chunked=chunked), "SUBSCRIBE")
    assert message.fields == {"topic": items, "consumerGroup": config.consumer_group, "url": url}
    message = one(http.unsubscribe(config, topics, url, chunked=chunked), "UNSUBSCRIBE")
    assert message.fields == {"topic": topics, "consumerGroup": config.consumer_group, "url": url}


@SETTINGS
@given(config=CONFIGS, topic=TEXT, content=TEXT, ttl=st.none() | TEXT, bizseqno=st.none() | TEXT,
       uniqueid=st.none() | TEXT, sync=st.booleans(), chunked=st.booleans())
def test_round_trip_send_message(config, topic, content, ttl, bizseqno, uniqueid, sync, chunked):
    data = http.send_message(config, topic, content, ttl=ttl, bizseqno=bizseqno, uniqueid=uniqueid, sync=sync,
                             chunked=chunked)
    message = one(data, "MSG_SEND_SYNC" if sync else "MSG_SEND_ASYNC")
    client_headers_match(message, config)
    assert message.protocol_headers["protocoltype"] == "eventmeshmessage"
    assert message.fields == {"producergroup": config.producer_group, "topic": topic, "content": content,
                              "ttl": ttl or "", "bizseqno": bizseqno or "", "uniqueid": uniqueid or ""}


@SETTINGS
@given(config=CONFIGS, event_id=TEXT.filter(bool), subject=TEXT, data=TEXT, version=st.sampled_from(["1.0", "0.3"]),
       sync=st.booleans())
def test_round_trip_send_cloudevent(config, event_id, subject, data, version, sync):
    event = http.CloudEvent.from_json({"specversion": version, "id": event_id, "source": "/", "type": "t",
                                       "subject": subject, "data": data})
    message = one(http.send_cloudevent(config, event, sync=sync), "MSG_SEND_SYNC" if sync else "MSG_SEND_ASYNC")
    assert message.protocol_headers["protocolversion"] == version
    assert message.fields == {"producergroup": config.producer_group, "content": event}


@SETTINGS
@given(config=CONFIGS, batch_id=TEXT, contents=st.lists(ENTITIES, max_size=3), topic=TEXT, msg=TEXT, seq=TEXT,
       ext=STRING_MAPS, chunked=st.booleans())
def test_round_trip_batches_and_reply(config, batch_id, contents, topic, msg, seq, ext, chunked):
    message = one(http.batch_send(config, batch_id, contents, chunked=chunked), "MSG_BATCH_SEND")
    assert message.fields == {"batchId": batch_id, "size": str(len(contents)), "producerGroup": config.producer_group,
                              "contents": contents}
    message = one(http.batch_send_v2(config, topic, msg, bizseqno=seq, chunked=chunked), "MSG_BATCH_SEND_V2")
    assert message.fields == {"bizseqno": seq, "topic": topic, "msg": msg, "tag": "", "ttl": "4000",
                              "producergroup": config.producer_group}
    message = one(http.reply_message(config, topic, msg, bizseqno=seq, uniqueid=seq, ext_fields=ext,
                                     chunked=chunked), "REPLY_MESSAGE")
    assert message.fields == {"origtopic": topic, "bizseqno": seq, "uniqueid": seq, "content": msg,
                              "extFields": ext, "producergroup": config.producer_group}


@SETTINGS
@given(path=st.from_regex(r"/[a-z0-9/]{0,12}", fullmatch=True), content=TEXT, topic=TEXT, seq=TEXT, ext=STRING_MAPS,
       sync=st.booleans(), chunked=st.booleans())
def test_round_trip_push(path, content, topic, seq, ext, sync, chunked):
    data = http.push(f"http://10.0.0.1:8080{path}", content, topic, bizseqno=seq, unique_id=seq, random_no="1",
                     ext_fields=ext, sync=sync, chunked=chunked)
    message = one(data, "HTTP_PUSH_CLIENT_SYNC" if sync else "HTTP_PUSH_CLIENT_ASYNC")
    assert (message.kind, message.target, message.warnings) == ("push", path, ())
    assert message.protocol_headers["eventmeship"] == "127.0.0.1"
    assert message.fields == {"content": content, "bizseqno": seq, "uniqueId": seq, "randomNo": "1", "topic": topic,
                              "extFields": ext}


@SETTINGS
@given(code=st.sampled_from(list(http.RequestCode)), ret_code=st.integers(-2**31, 2**31 - 1),
       ret_msg=st.none() | TEXT, res_time=st.integers(0, 2**63 - 1), status=st.sampled_from([200, 400, 500]),
       instance=st.booleans(), chunked=st.booleans())
def test_round_trip_runtime_answers(code, ret_code, ret_msg, res_time, status, instance, chunked):
    extra = {"eventmeshcluster": "c", "eventmeship": "1.2.3.4", "eventmeshenv": "e", "eventmeshidc": "i"}
    data = http.response(code, ret_code, ret_msg, res_time, status=status, instance=extra if instance else None,
                         chunked=chunked)
    [message] = http.iter_messages(data, "response")
    assert (message.kind, message.message_type, message.status) == ("runtime", code.name, status)
    assert message.ret == http.HttpResponseBody(ret_code=ret_code, ret_msg=ret_msg, res_time=res_time)
    assert message.ret_code_name == (http.RetCode(ret_code).name if ret_code in http.RET_CODES else None)


@SETTINGS
@given(ret_code=st.integers(-3, 7) | st.text(max_size=2) | st.none() | st.booleans(), status=st.sampled_from(
    [200, 201, 202, 204, 429, 410, 415, 500]))
def test_round_trip_webhook_replies(ret_code, status):
    if status == 204:
        return  # a 204 has no body to carry a retCode
    [message] = http.iter_messages(http.webhook_reply(ret_code, status=status), "response")
    outcome = message.push_outcome
    if status in (200, 201, 202):
        known = type(ret_code) is int and ret_code in http.CLIENT_RET_CODES
        name = http.ClientRetCode(ret_code).name if known else "FAIL"
        assert outcome["client_ret_code"] == name
        assert outcome["outcome"] == ("retry" if name in ("RETRY", "NOLISTEN") else "complete")
    elif ret_code is None and status == 500:
        assert outcome is None and message.kind == "other"  # {} with a 500: the runtime's own 500 looks alike
    else:
        assert outcome["outcome"] == {429: "retry", 410: "no_retry", 415: "no_retry", 500: "retry"}[status]


def _streams():
    config = http.ClientConfig()
    builders = [lambda c: http.heartbeat(config, ["T"], "http://u", chunked=c),
                lambda c: http.send_message(config, "T", "x&y", chunked=c),
                lambda c: http.push("http://h/p", "c", "T", bizseqno="1", unique_id="2", random_no="3",
                                    ext_fields={}, chunked=c)]
    return st.lists(st.tuples(st.sampled_from(builders), st.booleans()), min_size=1, max_size=4).map(
        lambda picks: b"".join(build(chunked) for build, chunked in picks))


@SETTINGS
@given(data=_streams(), cuts=st.lists(st.integers(0, 3000), max_size=8))
def test_pipelined_stream_split_anywhere(data, cuts):
    expected = decode(data, "request")
    decoder = http.HttpStreamDecoder("request")
    out, last = [], 0
    for cut in sorted(c % (len(data) + 1) for c in cuts) + [len(data)]:
        out += decoder.feed(data[last:cut])
        last = cut
    assert [m.to_dict() for m in out + decoder.close()] == expected


# ------------------------------------------------------------------------------------------- fuzzing
def _check_any_input(data: bytes):
    for direction in (None, "request", "response"):
        try:
            decode(data, direction)
        except DecodeError:
            pass
        items = decode(data, direction, "PERMISSIVE")
        spans = [(d["offset"], d["offset"] + d["length"]) for d in items]
        assert all(0 <= a <= b <= len(data) for a, b in spans)
        assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))
        decode(data, direction, "DROPMALFORMED")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=300))
def test_fuzz_random_bytes(data):
    _check_any_input(data)


HEADS = [b"POST / HTTP/1.1\r\nHost: h\r\ncode: 206\r\n", b"HTTP/1.1 200 OK\r\ncode: 101\r\n",
         b"GET /?code=203&", b"POST /eventmesh/publish HTTP/1.1\r\nHost: h\r\n"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(head=st.sampled_from(HEADS), rest=st.binary(max_size=200) | st.text(max_size=200).map(str.encode))
def test_fuzz_http_shaped_input(head, rest):
    _check_any_input(head + rest)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(ALL)), edits=st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255),
                                                                   st.sampled_from(["set", "insert", "delete"])),
                                                         min_size=1, max_size=4))
def test_fuzz_mutated_vectors(name, edits):
    data = bytearray(data_of(ALL[name]))
    for where, byte, how in edits:
        i = where % (len(data) + 1)
        if how == "insert":
            data[i:i] = bytes((byte,))
        elif i < len(data):
            if how == "set":
                data[i] = byte
            else:
                del data[i]
    _check_any_input(bytes(data))


@SETTINGS
@given(field_text=st.text(max_size=40), code=st.sampled_from(["203", "206", "207", "104", "101", "102", "301",
                                                              "105"]),
       key=st.sampled_from(["topic", "heartbeatEntities", "extFields", "contents", "content"]))
def test_fuzz_json_fields(field_text, code, key):
    body = http.form_encode([(key, field_text)])
    data = http.build_request("POST", "/", [("Host", "h"), ("code", code), ("protocoltype", "cloudevents"),
                                            ("Content-Length", None)], body)
    try:
        decode(data)
    except ValidationError as exc:
        assert len(data) - len(body) <= exc.offset <= len(data)  # inside the body


# ----------------------------------------------------------------------------------------------- CLI
def cli(*args, stdin=None):
    """`inlong-proto` in a subprocess, as a user runs it."""
    return subprocess.run([sys.executable, "-m", "inlong_proto", *args], capture_output=True, text=True,
                          input=stdin, cwd=ROOT, timeout=120)


def test_cli_decode(tmp_path):
    vector = ALL["pipelined_requests"]
    dump = tmp_path / "requests.bin"
    dump.write_bytes(data_of(vector))
    result = cli("decode", "--protocol", "eventmesh-http", str(dump))
    assert result.returncode == 0, result.stderr
    assert [json.loads(line) for line in result.stdout.splitlines()] == vector["expected"]
    responses = tmp_path / "responses.bin"
    responses.write_bytes(data_of(ALL["webhook_replies_pipelined"]))
    result = cli("decode", "-p", "eventmesh-http", "-d", "response", str(responses), str(dump))
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert result.returncode == 1 and [line["file"] for line in lines] == [str(responses)] * 7
    assert result.stderr.count("\n") == 1 and result.stderr.startswith(f"inlong-proto: error: {dump}: offset 0")


def test_cli_modes_and_listing(tmp_path):
    vector = ALL["garbage_between_requests"]
    dump = tmp_path / "bad.bin"
    dump.write_bytes(data_of(vector))
    result = cli("decode", "--protocol", "eventmesh-http", str(dump))
    assert result.returncode == 1 and result.stdout.count("\n") == 1  # the message before the error
    assert result.stderr == f"inlong-proto: error: {dump}: offset 559 in http.head: {vector['error']['reason']}\n"
    result = cli("decode", "--protocol", "eventmesh-http", "--mode", "permissive", str(dump))
    assert result.returncode == 0
    assert summary(json.loads(line) for line in result.stdout.splitlines()) == vector["permissive"]
    result = cli("decode", "-p", "eventmesh-http", "--mode", "DROPMALFORMED", "-")  # empty input (issue 27)
    assert result.returncode == 1 and result.stdout == "" and result.stderr.count("\n") == 1
    assert "eventmesh-http" in cli("protocols").stdout.split()


def test_raw_dumps_are_detected_by_their_first_line(tmp_path):
    """-p auto on a one-direction dump: a request line or a status line says eventmesh-http."""
    from vectors import HTTP_STREAMS

    for direction, stream in HTTP_STREAMS.items():
        path = tmp_path / f"{direction}.http"
        path.write_bytes(stream)
        run = subprocess.run([sys.executable, "-m", "inlong_proto", "decode", "-p", "auto", str(path)],
                             capture_output=True, text=True, check=True)
        rows = [json.loads(line) for line in run.stdout.splitlines()]
        assert rows == [item.to_dict() for item in http.iter_messages(stream, direction)]


def test_spark_rows_have_a_struct_of_their_own(spark, tmp_path):
    """format("inlong") on raw HTTP dumps, named and auto, and read_dumps: one row per message with its
    columns (method, status, headers, fields as JSON text, ...), the same as iter_frames gives."""
    pytest.importorskip("pyspark")
    from vectors import HTTP_STREAMS

    from inlong_proto.core import arrow
    from inlong_proto.core.frames import iter_frames
    from inlong_proto.spark.dumps import read_dumps
    from inlong_proto.spark.source import register

    for direction, stream in HTTP_STREAMS.items():
        (tmp_path / f"{direction}.http").write_bytes(stream)
    register(spark)
    want = {direction: [item.to_dict() for item in iter_frames(stream, "eventmesh-http", None, "PERMISSIVE")]
            for direction, stream in HTTP_STREAMS.items()}
    named = spark.read.format("inlong").option("protocol", "eventmesh-http").option("splitSize", "1k").load(str(tmp_path))
    assert named.columns == arrow.frame_schema("eventmesh-http").names + [arrow.DATE]
    auto = spark.read.format("inlong").option("protocol", "auto").load(str(tmp_path)).toArrow().to_pylist()
    for rows in (named.toArrow().to_pylist(), [{**r, **r["eventmesh_http"]} for r in auto],
                 read_dumps(spark, str(tmp_path), "eventmesh-http").toArrow().to_pylist()):
        for direction, items in want.items():
            own = sorted((r for r in rows if r["path"].endswith(f"{direction}.http")), key=lambda r: r["offset"])
            assert [(r["offset"], r["length"], r["message_type"], r["kind"]) for r in own] == \
                [(i["offset"], i["length"], i["message_type"], i["kind"]) for i in items]
            for row, item in zip(own, items):
                assert row["status"] == item.get("status") and row["method"] == item.get("method")
                assert [[h["name"], h["value"]] for h in row["headers"]] == item["headers"]
                assert (json.loads(row["fields"]) if row["fields"] else None) == item.get("fields")
    codes = named.where("method = 'POST'").groupBy("request_code").count().collect()
    assert sum(r["count"] for r in codes) == sum(1 for i in want["request"] if i.get("method") == "POST")
