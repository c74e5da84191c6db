"""`inlong-proto tubemq calls` (issue 13, item 5): per-method count, latency percentiles and exceptions from
paired calls, from a capture and from a dump, as a table, CSV or JSON."""
from __future__ import annotations

import csv
import io
import json
import subprocess
import sys

import inlong_proto
from inlong_proto.capture.writer import Conversation, pcap_file
from inlong_proto.generated.protobuf.tubemq import MasterService_pb2 as master
from inlong_proto.tubemq import rpc
from inlong_proto.tubemq.calls import CallStats

MS = 1_000_000
STANDBY = "org.apache.inlong.tubemq.corerpc.exception.StandbyException"


def _heartbeat(serial: int) -> bytes:
    return inlong_proto.encode(rpc.request_frame(serial, "producerHeartbeatP2M",
                                                 master.HeartRequestP2M(clientId="c1", brokerCheckSum=0, hostName="h")))


def _heartbeat_ok(serial: int) -> bytes:
    return inlong_proto.encode(rpc.response_frame(serial, "producerHeartbeatP2M",
                                                  master.HeartResponseM2P(success=True, errCode=200, errMsg="OK", brokerCheckSum=0)))


def _close(serial: int) -> bytes:
    return inlong_proto.encode(rpc.request_frame(serial, "producerCloseClientP2M", master.CloseRequestP2M(clientId="c1")))


def _capture() -> bytes:
    """Heartbeats answered in 1, 2, 3 and 40 ms, a close refused by a standby master in 5 ms, and a close
    never answered; on two connections, the second reusing serial numbers."""
    packets, t = [], 10**18
    first = Conversation(("10.0.0.1", 40000), ("10.0.0.2", 8715))
    second = Conversation(("10.0.0.1", 40001), ("10.0.0.2", 8715))
    packets += first.open(t) + second.open(t)
    for conv, serial, latency in ((first, 1, 1), (first, 2, 2), (second, 1, 3), (second, 2, 40)):
        t += 100 * MS
        packets += conv.send("client", _heartbeat(serial), t) + conv.send("server", _heartbeat_ok(serial), t + latency * MS)
    t += 100 * MS
    packets += first.send("client", _close(3), t)
    packets += first.send("server", inlong_proto.encode(rpc.exception_frame(3, STANDBY, "not master")), t + 5 * MS)
    packets += second.send("client", _close(3), t + 6 * MS)
    return pcap_file(packets + first.close(t + 7 * MS) + second.close(t + 7 * MS), nano=True)


EXPECTED = [
    {"method": "producerHeartbeatP2M", "calls": 4, "answered": 4, "unanswered": 0, "exceptions": 0,
     "p50_ms": 2.0, "p95_ms": 40.0, "max_ms": 40.0, "top_exception": None, "collisions": 0},
    {"method": "producerCloseClientP2M", "calls": 2, "answered": 1, "unanswered": 1, "exceptions": 1,
     "p50_ms": 5.0, "p95_ms": 5.0, "max_ms": 5.0, "top_exception": "StandbyException (1)", "collisions": 0},
]


def cli(*args, stderr: list | None = None):
    done = subprocess.run([sys.executable, "-m", "inlong_proto", "tubemq", "calls", *args], capture_output=True,
                          text=True, check=True)
    if stderr is not None:
        stderr.append(done.stderr)
    return done.stdout


def test_calls_from_a_capture_as_json(tmp_path):
    path = tmp_path / "tubemq.pcap"
    path.write_bytes(_capture())
    assert json.loads(cli("-T", "json", str(path))) == EXPECTED


def test_calls_as_csv_and_table(tmp_path):
    path = tmp_path / "tubemq.pcap"
    path.write_bytes(_capture())
    rows = list(csv.DictReader(io.StringIO(cli("-T", "csv", str(path)))))
    assert [(r["method"], r["calls"], r["p95_ms"], r["top_exception"]) for r in rows] == [
        ("producerHeartbeatP2M", "4", "40.0", ""), ("producerCloseClientP2M", "2", "5.0", "StandbyException (1)")]
    table = cli(str(path))
    assert "producerHeartbeatP2M" in table and "StandbyException (1)" in table and "p95_ms" in table


def test_calls_from_a_dump_have_no_latency(tmp_path):
    """A dump (both directions in one file, e.g. --record and --record-sent appended to one) has no clock."""
    path = tmp_path / "calls.bin"
    path.write_bytes(_heartbeat(1) + _heartbeat_ok(1) + _close(2))
    rows = [json.loads(line) for line in cli("-T", "jsonl", str(path)).splitlines()]
    assert [(r["method"], r["calls"], r["answered"], r["p50_ms"]) for r in rows] == [
        ("producerCloseClientP2M", 1, 0, None), ("producerHeartbeatP2M", 1, 1, None)]


def test_stats_are_kept_per_connection():
    stats = CallStats()
    request, response = (inlong_proto.decode(_heartbeat(7), "tubemq"), inlong_proto.decode(_heartbeat_ok(7), "tubemq"))
    stats.feed(request, "a", 1.0)
    stats.feed(response, "b", 1.5)  # another connection's answer to the same serial is not this call's
    stats.feed(response, "a", 1.25)
    rows = stats.rows()
    assert rows[0]["calls"] == 2 and rows[0]["answered"] == 2 and rows[0]["max_ms"] == 250.0


def test_pair_calls_takes_seconds_or_datetimes():
    from datetime import datetime, timedelta, timezone

    frames = [inlong_proto.decode(_heartbeat(1), "tubemq"), inlong_proto.decode(_heartbeat_ok(1), "tubemq")]
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    for times in ([1.0, 1.5], [start, start + timedelta(milliseconds=500)]):
        (call,) = rpc.pair_calls(frames, times)
        assert call.latency == 0.5 and isinstance(call.latency, float)


# ------------------------------------------------------------------ a broker's dumps of two connections (issue 27)
def _broker_traffic() -> list[tuple[str, bytes, bytes]]:
    """What a broker serves to a producer (10 sendMessageP2B, serials 1-10) and a consumer (6
    consumerRegisterC2B, serials 1-6) on two connections, in arrival order, each answered at once:
    [(connection, request, response)]. Both clients count serials from 1, so they collide."""
    from inlong_proto.generated.protobuf.tubemq import BrokerService_pb2 as broker

    def send(serial):
        return (inlong_proto.encode(rpc.request_frame(serial, "sendMessageP2B", broker.SendMessageRequestP2B(
                    clientId="p1", topicName="demo", partitionId=0, data=b"m%d" % serial, flag=0, checkSum=-1,
                    sentAddr=0))),
                inlong_proto.encode(rpc.response_frame(serial, "sendMessageP2B", broker.SendMessageResponseB2P(
                    success=True, errCode=200, errMsg="OK"))))

    def register(serial):
        return (inlong_proto.encode(rpc.request_frame(serial, "consumerRegisterC2B", broker.RegisterRequestC2B(
                    opType=31, clientId="c1", groupName="g", topicName="demo", partitionId=0, readStatus=0))),
                inlong_proto.encode(rpc.response_frame(serial, "consumerRegisterC2B", broker.RegisterResponseB2C(
                    success=True, errCode=200, errMsg="OK"))))

    out = []
    for serial in range(1, 11):
        out.append(("producer", *send(serial)))
        if serial <= 6:
            out.append(("consumer", *register(serial)))
    return out


MERGED_EXPECTED = {"sendMessageP2B": (10, 10), "consumerRegisterC2B": (6, 6)}  # method -> (calls, answered)


def test_a_merged_dump_is_paired_by_method_and_its_collisions_are_told(tmp_path):
    """`cat broker.bin broker_sent.bin > both.bin` (the broker's --record and --record-sent: every request, then
    every response, of both connections): the counts are right (serial and method pair them), and the
    collisions are a warning line on stderr and a column of the result, not silent."""
    traffic = _broker_traffic()
    (tmp_path / "broker.bin").write_bytes(b"".join(request for _, request, _ in traffic))
    (tmp_path / "broker_sent.bin").write_bytes(b"".join(response for _, _, response in traffic))
    both = tmp_path / "both.bin"
    both.write_bytes((tmp_path / "broker.bin").read_bytes() + (tmp_path / "broker_sent.bin").read_bytes())
    stderr = []
    rows = json.loads(cli("-T", "json", str(both), stderr=stderr))
    assert {r["method"]: (r["calls"], r["answered"]) for r in rows} == MERGED_EXPECTED
    assert {r["method"]: r["collisions"] for r in rows} == {"sendMessageP2B": 6, "consumerRegisterC2B": 6}
    lines = [line for line in stderr[0].splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"warning: {both}: serial numbers collide 6 time(s)"), stderr
    # each connection's own dump alone: no collision, no warning
    alone = tmp_path / "producer.bin"
    alone.write_bytes(b"".join(q + a for who, q, a in traffic if who == "producer"))
    stderr = []
    rows = json.loads(cli("-T", "json", str(alone), stderr=stderr))
    assert [(r["method"], r["calls"], r["answered"], r["collisions"]) for r in rows] == [("sendMessageP2B", 10, 10, 0)]
    assert not stderr[0].strip()


def test_a_second_request_before_the_answer_or_another_method_is_a_collision():
    stats = CallStats()
    a, b = (inlong_proto.decode(f, "tubemq") for f in (_heartbeat(1), _heartbeat_ok(1)))
    for frame in (a, a, b, b):  # two requests of serial 1 before an answer: two calls, both answered
        stats.feed(frame)
    close = inlong_proto.decode(_close(2), "tubemq")
    for frame in (close, inlong_proto.decode(_heartbeat_ok(2), "tubemq")):  # an answer of another method
        stats.feed(frame)
    rows = {r["method"]: r for r in stats.rows()}
    assert (rows["producerHeartbeatP2M"]["calls"], rows["producerHeartbeatP2M"]["answered"]) == (3, 3)
    assert (rows["producerCloseClientP2M"]["calls"], rows["producerCloseClientP2M"]["answered"]) == (1, 0)
    assert stats.collisions == 2 and len(stats.warnings) == 1 and "collide 2 time(s)" in stats.warnings[0]


def test_a_capture_of_the_same_traffic_pairs_each_connection(tmp_path):
    """The same calls captured: each connection is paired apart, so nothing collides and nothing is told."""
    packets, t = [], 10**18
    conversations = {"producer": Conversation(("10.0.0.1", 40000), ("10.0.0.2", 8123)),
                     "consumer": Conversation(("10.0.0.3", 40000), ("10.0.0.2", 8123))}
    for conv in conversations.values():
        packets += conv.open(t)
    for who, request, response in _broker_traffic():
        t += MS
        packets += conversations[who].send("client", request, t) + conversations[who].send("server", response, t + MS)
    for conv in conversations.values():
        packets += conv.close(t + 2 * MS)
    path = tmp_path / "broker.pcap"
    path.write_bytes(pcap_file(packets, nano=True))
    stderr = []
    rows = json.loads(cli("-T", "json", str(path), stderr=stderr))
    assert {r["method"]: (r["calls"], r["answered"]) for r in rows} == MERGED_EXPECTED
    assert all(r["collisions"] == 0 for r in rows) and not stderr[0].strip()
    assert all(r["p50_ms"] == 1.0 for r in rows)
