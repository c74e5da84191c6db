"""The audit (issue 28) against captures with a known truth: what was dropped, failed, delayed, sent without
an ack and re-sent, per group, stream and minute, for DataProxy; TubeMQ sends and pulls; EventMesh TCP."""
from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import inlong_proto  # noqa: E402
from inlong_proto.audit import AuditTable, Auditor, audit_capture, audit_chunks, diff, parse_window  # noqa: E402
from inlong_proto.audit.table import COUNTS  # noqa: E402
from inlong_proto.capture.writer import Conversation, pcap_file  # noqa: E402
from traffic import T0, _minute, dataproxy_capture  # noqa: E402

pytestmark = pytest.mark.timeout(120)


def _table(items, **kw) -> list[dict]:
    table = AuditTable(**kw)
    for item in items:
        table.add(item)
    return table.rows()


def _expected(truth) -> dict:
    return {key: {name: counts.get(name, 0) for name in COUNTS} for key, counts in truth.counts.items()}


def _got(rows) -> dict:
    return {(r["group"], r["stream"], r["window_start"]): {name: r[name] for name in COUNTS} for r in rows}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_dataproxy_counts_match_the_truth_per_group_stream_minute(seed):
    data, truth = dataproxy_capture(seed)
    rows = _table(audit_capture(data))
    assert _got(rows) == _expected(truth)
    assert all(r["system"] == "dataproxy" for r in rows)
    failed = [r for r in rows if r["failed"]]
    assert failed and all(r["top_error"].startswith("115 ") for r in failed)


def test_delays_show_in_latency_and_a_timeout_makes_them_unanswered():
    data, truth = dataproxy_capture(4)
    delayed = sum(c["delayed"] for c in truth.counts.values())
    assert delayed
    items = audit_capture(data)
    answered = [i for i in items if getattr(i, "latency_s", None) is not None]
    assert sum(1 for i in answered if round(i.latency_s, 3) == 0.9) == delayed
    assert max(r["max_ms"] or 0 for r in _table(items)) == 900.0
    # with a 0.5 s timeout the delayed ones are unanswered and their late answers unmatched
    auditor = Auditor(timeout=0.5)
    rows = _table(audit_capture(data, auditor=auditor))
    expected = _expected(truth)
    for key, counts in truth.counts.items():
        expected[key]["unanswered"] += counts.get("delayed", 0)
        expected[key]["acked_ok"] -= counts.get("delayed", 0)
    got = _got(rows)
    assert {k: v["unanswered"] for k, v in got.items()} == {k: v["unanswered"] for k, v in expected.items()}
    assert {k: v["acked_ok"] for k, v in got.items()} == {k: v["acked_ok"] for k, v in expected.items()}
    assert auditor.stats["timed_out"] == delayed and auditor.stats["unmatched_answers"] == delayed
    reasons = Counter(i.error for i in audit_capture(data, timeout=0.5) if i.outcome == "unanswered")
    assert reasons["no answer within 0.5 s"] == delayed
    assert reasons["connection closed before the answer"] == sum(c["unanswered"] for c in truth.counts.values())


def test_memory_is_bounded_by_the_open_requests():
    data, _ = dataproxy_capture(5, connections=4, per_connection=60)
    auditor = Auditor()
    peak = 0
    for _ in audit_chunks((data[at:at + 4096] for at in range(0, len(data), 4096)), auditor=auditor):
        peak = max(peak, auditor.open_requests)
    assert 1 <= peak <= 10  # a few per connection (the decoder releases held frames in bursts), not 240
    assert auditor.open_requests == 0 and not auditor._conns
    small = Auditor(max_open=1)
    items = audit_capture(data, auditor=small)
    assert small.stats["given_up"] > 0
    assert sum(i.error.startswith("over 1 open") for i in items if i.outcome == "unanswered") == small.stats["given_up"]


def test_window_and_by():
    data, truth = dataproxy_capture(1)
    items = audit_capture(data)
    whole = _table(items, window=parse_window("1h"), by=("group",))
    assert {(r["group"], r["stream"]) for r in whole} == {("g1", "*"), ("g2", "*")}
    assert sum(r["messages"] for r in whole) == sum(c["messages"] for c in truth.counts.values())
    assert parse_window("30s") == 30 and parse_window("1m") == 60 and parse_window(5) == 5
    with pytest.raises(ValueError):
        parse_window("0m")
    with pytest.raises(ValueError):
        AuditTable(by=("topic-x",))


def test_diff_between_two_capture_points():
    data, truth = dataproxy_capture(1)
    rows = _table(audit_capture(data))
    fewer = [dict(r, records_ok=r["records_ok"] - 2) if i == 0 else r for i, r in enumerate(rows)]
    out = diff(rows, fewer)
    assert out == [{"system": "dataproxy", "group": rows[0]["group"], "stream": rows[0]["stream"],
                    "window_start": rows[0]["window_start"], "column": "records_ok", "a": rows[0]["records_ok"],
                    "b": rows[0]["records_ok"] - 2, "b_minus_a": -2}]
    assert diff(rows, rows) == []
    gone = diff(rows, rows[1:])
    assert {d["column"] for d in gone} <= set(COUNTS) and all(d["b"] == 0 for d in gone)


# ------------------------------------------------------------------ TubeMQ
def _tubemq_capture() -> tuple[bytes, dict]:
    from inlong_proto.generated.protobuf.tubemq import BrokerService_pb2 as broker
    from inlong_proto.tubemq import rpc

    conv = Conversation(client=("10.0.0.5", 45000), server=("10.0.0.2", 8123))
    packets = conv.open(T0)
    ts = T0
    plan = ["ok", "ok", "exception", "refused", "ok", "drop"]
    for serial, what in enumerate(plan, 1):
        ts += 10**9
        topic = "t1" if serial % 2 else "t2"
        request = rpc.request_frame(serial, "sendMessageP2B", broker.SendMessageRequestP2B(
            clientId="p1", topicName=topic, partitionId=0, data=b"m%d" % serial, flag=0, checkSum=-1, sentAddr=0))
        packets += conv.send("client", inlong_proto.encode(request), ts)
        if what == "ok":
            answer = rpc.response_frame(serial, "sendMessageP2B", broker.SendMessageResponseB2P(
                success=True, errCode=200, errMsg="OK"))
        elif what == "refused":
            answer = rpc.response_frame(serial, "sendMessageP2B", broker.SendMessageResponseB2P(
                success=False, errCode=403, errMsg="checksum"))
        elif what == "exception":
            answer = rpc.exception_frame(serial, "org.apache.inlong.tubemq.corebase.TErrCodeException", "boom")
        else:
            continue
        packets += conv.send("server", inlong_proto.encode(answer), ts + 2 * 10**6)
    # a consumer's pull of t1: two messages delivered
    ts += 10**9
    pull = rpc.request_frame(100, "getMessagesC2B", broker.GetMessageRequestC2B(
        clientId="c1", partitionId=0, groupName="cg", topicName="t1"))
    packets += conv.send("client", inlong_proto.encode(pull), ts)
    got = rpc.response_frame(100, "getMessagesC2B", broker.GetMessageResponseB2C(
        success=True, errCode=200, messages=[broker.TransferedMessage(messageId=n, checkSum=-1, payLoadData=b"m%d" % n,
                                                                       flag=0) for n in (1, 5)]))
    packets += conv.send("server", inlong_proto.encode(got), ts + 10**6)
    packets += conv.close(ts + 2 * 10**6)
    return pcap_file(packets, nano=True), {"t1": dict(messages=3, acked_ok=2, failed=1, unanswered=0, delivered=2),
                                           "t2": dict(messages=3, acked_ok=1, failed=1, unanswered=1, delivered=0)}


def test_tubemq_sends_paired_by_serial_and_pulls_delivered():
    data, expected = _tubemq_capture()
    rows = _table(audit_capture(data), window=3600)
    assert {r["group"]: {k: r[k] for k in expected["t1"]} for r in rows} == expected
    errors = {r["group"]: r["top_error"] for r in rows}
    assert errors == {"t1": "TErrCodeException (1)", "t2": "403 checksum (1)"}
    assert all(r["system"] == "tubemq" and r["stream"] == "" for r in rows)


def test_tubemq_calls_that_send_nothing_are_paired_and_ignored():
    """A producer's register, heartbeat and close are no messages: their answers match them (not counted as
    answers that matched no request, which `audit` notes), and one left without an answer is no lost message."""
    from inlong_proto.generated.protobuf.tubemq import BrokerService_pb2 as broker
    from inlong_proto.generated.protobuf.tubemq import MasterService_pb2 as master
    from inlong_proto.tubemq import rpc

    conv = Conversation(client=("10.0.0.5", 45000), server=("10.0.0.2", 8000))
    calls = [(rpc.request_frame(1, "producerRegisterP2M", master.RegisterRequestP2M(
                  clientId="p1", topicList=["t1"], brokerCheckSum=-1, hostName="10.0.0.5")),
              rpc.response_frame(1, "producerRegisterP2M", master.RegisterResponseM2P(
                  success=True, errCode=200, errMsg="OK", brokerCheckSum=1))),
             (rpc.request_frame(2, "sendMessageP2B", broker.SendMessageRequestP2B(
                  clientId="p1", topicName="t1", partitionId=0, data=b"m", flag=0, checkSum=-1, sentAddr=0)),
              rpc.response_frame(2, "sendMessageP2B", broker.SendMessageResponseB2P(
                  success=True, errCode=200, errMsg="OK"))),
             (rpc.request_frame(3, "producerHeartbeatP2M", master.HeartRequestP2M(
                  clientId="p1", brokerCheckSum=1, hostName="10.0.0.5")),
              rpc.exception_frame(3, "org.apache.inlong.tubemq.corebase.exception.StandbyException", "standby")),
             (rpc.request_frame(4, "producerCloseClientP2M", master.CloseRequestP2M(clientId="p1")), None)]
    packets, ts = conv.open(T0), T0
    for request, answer in calls:
        ts += 10**9
        packets += conv.send("client", inlong_proto.encode(request), ts)
        if answer is not None:
            packets += conv.send("server", inlong_proto.encode(answer), ts + 10**6)
    packets += conv.close(ts + 10**9)
    auditor = Auditor()
    items = audit_capture(pcap_file(packets, nano=True), auditor=auditor)
    assert [(item.group, item.outcome) for item in items] == [("t1", "ok")]
    assert auditor.stats["answers"] == 3 and auditor.stats["unmatched_answers"] == 0


# ------------------------------------------------------------------ EventMesh TCP
def test_eventmesh_tcp_sends_acked_by_seq_and_pushes_delivered():
    from inlong_proto.eventmesh import tcp

    conv = Conversation(client=("10.0.0.7", 46000), server=("10.0.0.2", 10000))
    packets = conv.open(T0)
    ts = T0
    for n, what in enumerate(["ok", "fail", "drop", "ok"]):
        ts += 10**9
        seq = f"{n:010d}"
        event = tcp.EventMeshMessage(topic="em-topic", properties={"uniqueid": f"u{n % 3}"}, body="hi")
        packets += conv.send("client", inlong_proto.encode(tcp.message(tcp.Command.ASYNC_MESSAGE_TO_SERVER, event,
                                                                        seq)), ts)
        if what != "drop":
            packets += conv.send("server", inlong_proto.encode(tcp.reply(
                tcp.Command.ASYNC_MESSAGE_TO_SERVER_ACK, seq, code=0 if what == "ok" else 1,
                desc="success" if what == "ok" else "send failed")), ts + 10**6)
    ts += 10**9
    push = tcp.EventMeshMessage(topic="em-topic", properties={}, body="pushed")
    packets += conv.send("server", inlong_proto.encode(tcp.message(tcp.Command.ASYNC_MESSAGE_TO_CLIENT, push,
                                                                    "1")), ts)
    packets += conv.close(ts + 10**6)
    rows = _table(audit_capture(pcap_file(packets, nano=True)), window=3600)
    assert len(rows) == 1
    row = rows[0]
    assert (row["system"], row["group"]) == ("eventmesh", "em-topic")
    assert {k: row[k] for k in ("messages", "acked_ok", "failed", "unanswered", "duplicates", "delivered")} == \
        {"messages": 4, "acked_ok": 2, "failed": 1, "unanswered": 1, "duplicates": 1, "delivered": 1}
    assert row["top_error"] == "1 send failed (1)"


# ------------------------------------------------------------------ replay's requests (sans-IO)
def test_replay_items_from_a_dump_and_fresh_ids():
    from inlong_proto.audit.replay import replay_items
    from inlong_proto.dataproxy import builders
    from inlong_proto.dataproxy.audit import renumber
    from inlong_proto.dataproxy.payload import attr_value, parse_attrs

    bin_request = builders.bin_request([b"a", b"b"], group_id="g", stream_id="s", data_time_ms=1, unique_id=7,
                                       is_ack=False)
    text_request = builders.text_request([b"c"], group_id="g", stream_id="s2", data_time_ms=1, message_id=7)
    dump = inlong_proto.encode(bin_request) + inlong_proto.encode(text_request)
    items = replay_items(dump)  # a dump of the requests only: what became of them is unknown
    assert [(i.outcome, i.group, i.stream, i.records) for i in items] == [("not_asked", "g", "s", 2),
                                                                         ("unknown", "g", "s2", 1)]
    fresh = [renumber(item.request.message, n) for n, item in enumerate(items, 100)]
    assert fresh[0].body.unique_id == 100 and "isAck" not in fresh[0].body.attr
    assert attr_value(parse_attrs(fresh[1].body.attr), "messageId") == "101"
    assert fresh[0].body.body == bin_request.body.body  # the records as captured


def test_only_unacked_leaves_out_what_a_resend_got_acked():
    from inlong_proto.audit.replay import replay_items

    data, truth = dataproxy_capture(1)
    unacked = replay_items(data, only_unacked=True)
    assert len(unacked) == sum(c["failed"] + c["unanswered"] + c["not_asked"] for c in truth.counts.values())
    assert {item.outcome for item in unacked} == {"failed", "unanswered", "not_asked"}


# ------------------------------------------------------------------ EventMesh HTTP and gRPC
def test_eventmesh_http_sends_paired_by_request_code_in_order():
    from inlong_proto.eventmesh import http

    config = http.ClientConfig()
    conv = Conversation(client=("10.0.0.8", 47000), server=("10.0.0.2", 10105))
    packets = conv.open(T0)
    ts = T0
    plan = [("ok", "u1"), ("fail", "u2"), ("ok", "u1"), ("drop", "u3")]
    for n, (what, uid) in enumerate(plan):
        ts += 10**9
        packets += conv.send("client", http.send_message(config, "orders", f"c{n}", uniqueid=uid, ttl="4000",
                                                        bizseqno=f"b{n}"), ts)
        if what == "drop":
            break
        packets += conv.send("server", http.response(http.RequestCode.MSG_SEND_ASYNC, 0 if what == "ok" else 2,
                                                     "success" if what == "ok" else "rejected", 1), ts + 4 * 10**6)
    packets += conv.close(ts + 10**6)
    rows = _table(audit_capture(pcap_file(packets, nano=True)), window=3600)
    assert [(r["system"], r["group"]) for r in rows] == [("eventmesh-http", "orders")]
    row = rows[0]
    assert {k: row[k] for k in ("messages", "bytes", "acked_ok", "failed", "unanswered", "duplicates")} == \
        {"messages": 4, "bytes": 8, "acked_ok": 2, "failed": 1, "unanswered": 1, "duplicates": 1}
    assert row["top_error"].startswith("2 ") and row["top_error"].endswith(": rejected (1)")
    assert row["p50_ms"] == row["max_ms"] == 4.0


def test_eventmesh_grpc_publish_calls():
    path = Path(__file__).parent.parent / "vectors" / "capture" / "eventmesh_grpc_lo.pcap"
    items = audit_capture(path.read_bytes())
    assert [(i.system, i.group, i.outcome, i.records) for i in items] == [("eventmesh-grpc", "t", "ok", 1)] * 3
    assert all(i.latency_s is not None and 0 < i.latency_s < 0.01 for i in items)


# ------------------------------------------------------------------ the command line
def test_cli_usage_and_data_errors(tmp_path):
    from click.testing import CliRunner

    from inlong_proto.cli import main

    data, truth = dataproxy_capture(1)
    capture = tmp_path / "a.pcap"
    capture.write_bytes(data)
    runner = CliRunner()
    assert runner.invoke(main, ["audit", "--diff", str(capture)]).exit_code == 2
    assert runner.invoke(main, ["audit", "--window", "0s", str(capture)]).exit_code == 2
    assert runner.invoke(main, ["audit", "--by", "flavour", str(capture)]).exit_code == 2
    dump = tmp_path / "requests.bin"
    dump.write_bytes(Path(__file__).parent.parent.parent.joinpath("examples", "data", "dataproxy.bin").read_bytes())
    one_sided = runner.invoke(main, ["audit", "-T", "csv", str(dump)])
    assert one_sided.exit_code == 0 and "7 message(s) of unknown outcome" in one_sided.output
    garbage = tmp_path / "garbage.bin"
    garbage.write_bytes(b"\x00" * 64)
    refused = runner.invoke(main, ["audit", str(garbage)])
    assert refused.exit_code == 1 and "name the dump's protocol with -p" in refused.output
    out = runner.invoke(main, ["audit", "-T", "csv", "--by", "topic", "--timeout", "0.5", str(capture)])
    assert out.exit_code == 0, out.output
    lines = [line for line in out.output.strip().splitlines() if not line.startswith("note: ")]
    assert lines[0].startswith("system,group,stream,window_start,messages")
    assert all(",*," in line for line in lines[1:])
    delayed = sum(c["delayed"] for c in truth.counts.values())
    assert f"{delayed} answer(s) matched no request" in out.output  # (CliRunner mixes stderr in)
    dry = runner.invoke(main, ["replay", "--dry-run", "--to", "127.0.0.1:9", str(dump)])
    assert dry.exit_code == 0 and '"would_send"' in dry.output


def test_grpc_subscribe_stream_events_are_deliveries_and_its_own_answer_is_not():
    from inlong_proto.audit.readers import Delivery, events
    from inlong_proto.eventmesh.h2 import GrpcMessage

    path = "/org.apache.eventmesh.cloudevents.v1.ConsumerService/subscribeStream"
    event = {"id": "e1", "attributes": {"subject": {"ce_string": "t"}}, "text_data": "hello"}
    answer = {"id": "a1", "attributes": {"statuscode": {"ce_string": "0"}}}
    make = lambda body: GrpcMessage(0, "response", 1, 0, 0, 10, False,  # noqa: E731
                                    "org.apache.eventmesh.cloudevents.v1.CloudEvent", body, path)
    assert events(make(event), "response") == [Delivery("eventmesh-grpc", "t", "", 1, 5)]
    assert events(make(answer), "response") == []


def test_cli_lists_the_lost_messages(tmp_path):
    import json

    from click.testing import CliRunner

    from inlong_proto.cli import main

    data, truth = dataproxy_capture(1)
    capture = tmp_path / "a.pcap"
    capture.write_bytes(data)
    out = CliRunner().invoke(main, ["audit", "--lost", "-T", "jsonl", str(capture)])
    assert out.exit_code == 0, out.output
    rows = [json.loads(line) for line in out.output.splitlines()]
    want = Counter()
    for counts in truth.counts.values():
        want.update({"failed": counts["failed"], "unanswered": counts["unanswered"], "not_asked": counts["not_asked"]})
    assert Counter(row["outcome"] for row in rows) == want
    assert all(row["time"].endswith("Z") and row["kind"] == "sent" for row in rows)
    every = CliRunner().invoke(main, ["audit", "-m", "-T", "jsonl", str(capture)])
    assert len(every.output.splitlines()) == sum(c["messages"] for c in truth.counts.values())
    assert CliRunner().invoke(main, ["audit", "--diff", "--lost", str(capture), str(capture)]).exit_code == 2


def test_damaged_captures_never_break_the_audit_and_every_message_has_one_outcome():
    import random

    base = (Path(__file__).parent.parent.parent / "examples" / "data" / "mixed.pcap").read_bytes()
    rng = random.Random(28)
    for _ in range(60):
        damaged = bytearray(base)
        for _ in range(rng.randrange(1, 12)):
            damaged[rng.randrange(24, len(damaged))] = rng.randrange(256)
        for row in _table(audit_capture(bytes(damaged))):
            assert row["messages"] == row["acked_ok"] + row["failed"] + row["unanswered"] + row["not_asked"]
            assert row["unknown"] == 0  # (a capture holds both directions)
            assert row["records_ok"] <= row["records"] and row["duplicates"] <= row["messages"]


def test_replay_filter_selects_requests_with_decodes_filter_language(tmp_path):
    """replay --filter / -Y: decode -Y's expressions over each request (payload paths read on demand); what it
    keeps is what the known truth says of the group and stream it names; a misspelt path is a usage error."""
    import json

    from click.testing import CliRunner

    from inlong_proto.cli import main

    data, truth = dataproxy_capture(1)
    capture = tmp_path / "a.pcap"
    capture.write_bytes(data)

    def would_send(*args):
        out = CliRunner().invoke(main, ["replay", "--dry-run", "--to", "127.0.0.1:9", *args, str(capture)])
        assert out.exit_code == 0, out.output
        return json.loads(out.output)["would_send"]

    def truth_of(group, stream, *names):
        return sum(counts[name] for (g, s, _), counts in truth.counts.items() if (g, s) == (group, stream)
                   for name in names)

    assert would_send("-Y", 'payload.group_id == "g1" and payload.stream_id == "s2"') == truth_of(
        "g1", "s2", "messages")
    assert would_send("--only-unacked", "--filter", 'payload.group_id == "g2"') == truth_of(
        "g2", "s1", "failed", "unanswered", "not_asked")
    assert would_send("-Y", "length > 0") == sum(c["messages"] for c in truth.counts.values())
    bad = CliRunner().invoke(main, ["replay", "--dry-run", "--to", "127.0.0.1:9", "-Y", "payload.nope == 1",
                                    str(capture)])
    assert bad.exit_code == 2 and "unknown field 'payload.nope'" in bad.output
