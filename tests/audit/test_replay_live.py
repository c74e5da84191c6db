"""Replay of TubeMQ, EventMesh TCP and EventMesh HTTP messages with a known truth (issue 28): traffic through
the recording tap into the reference server told to drop, fail, close on and delay chosen messages (its
`faults`, endpoints.faults); the audit of the tap's capture counts exactly those; the unacknowledged set
replayed into a fresh server is all accepted, and the audit of both captures together shows nothing missing."""
from __future__ import annotations

import asyncio
import json

import pytest
from click.testing import CliRunner

import inlong_proto
from inlong_proto.audit import AuditTable, audit_capture
from inlong_proto.audit.replay import fresh_request, replay_items
from inlong_proto.cli import main
from inlong_proto.core.frames import iter_frames
from inlong_proto.endpoints.replayer import ReplayConnection, replay
from inlong_proto.endpoints.tap import Tap

pytestmark = pytest.mark.timeout(120)

COUNT = 8
FAULTS = {2: "drop", 5: "fail", 6: "close", 7: 0.3}
ANSWER_WAIT = 1.0  # how long the client waits for each answer: a dropped message costs this much
TOPICS = ("audit-odd", "audit-even")  # message n goes to TOPICS[1 - n % 2]
# per topic: (messages, acked ok, failed, unanswered, delayed); odd: 5 failed, 7 delayed; even: 2 dropped, 6 closed
TRUTH = {"audit-odd": (4, 3, 1, 0, 1), "audit-even": (4, 2, 0, 2, 0)}


def _topic(n: int) -> str:
    return TOPICS[1 - n % 2]


def _tubemq():
    from functools import partial

    from inlong_proto.endpoints.tubemq_broker import TubeMQBroker
    from inlong_proto.generated.protobuf.tubemq import BrokerService_pb2 as broker
    from inlong_proto.tubemq import rpc
    from inlong_proto.tubemq.rpc import encode_message_data

    def request(n):
        data, flag = encode_message_data(b"message %d" % n, "")
        return inlong_proto.encode(rpc.request_frame(n, "sendMessageP2B", broker.SendMessageRequestP2B(
            clientId="audit-producer", topicName=_topic(n), partitionId=n % 3, data=data, flag=flag,
            checkSum=-1, sentAddr=0)))

    return (partial(TubeMQBroker, topics=TOPICS), request,
            "419 Put message failed from 127.0.0.1, server receive message overflow!")


def _eventmesh():
    from inlong_proto.endpoints.eventmesh_server import EventMeshServer
    from inlong_proto.eventmesh import tcp

    def request(n):
        message = tcp.EventMeshMessage(topic=_topic(n), properties={"uniqueid": f"u{n}"}, body=f"event {n}")
        return inlong_proto.encode(tcp.message(tcp.Command.ASYNC_MESSAGE_TO_SERVER, message, f"{n:010d}"))

    return EventMeshServer, request, "1 java.lang.Exception: fault injected"


def _eventmesh_http():
    from inlong_proto.endpoints.eventmesh_http_server import EventMeshHttpServer
    from inlong_proto.eventmesh import http

    def request(n):
        return http.send_message(http.ClientConfig(), _topic(n), f"event {n}", ttl="4000", bizseqno=f"b{n}",
                                 uniqueid=f"u{n}")

    return (EventMeshHttpServer, request,
            "15 EVENTMESH_SEND_ASYNC_MSG_ERR: eventMesh send async msg error: fault injected")


CASES = {"tubemq": _tubemq, "eventmesh": _eventmesh, "eventmesh-http": _eventmesh_http}


async def _send_all(port: int, protocol: str, requests: list[bytes]) -> list:
    """Send each request and wait for its answer, as a client that reconnects after a lost connection or an
    answer that did not come does; the answers (None: lost)."""
    answers, connection = [], None
    for number, data in enumerate(requests, 1):
        if connection is None:
            connection = await ReplayConnection("127.0.0.1", port, protocol, timeout=ANSWER_WAIT).open()
        [frame] = iter_frames(data, protocol, "request")
        answer = await connection.send(*fresh_request(frame, number))
        answers.append(answer)
        if answer is None:
            await connection.close()
            connection = None
    if connection is not None:
        await connection.close()
    return answers


def _table(*pcaps) -> dict:
    """The audit's rows by topic (one window)."""
    table = AuditTable(window=3600, by=("group",))
    items = [item for pcap in pcaps for item in audit_capture(pcap)]
    for item in items:
        table.add(item)
    rows = {row["group"]: row for row in table.rows()}
    for topic, row in rows.items():
        row["delayed"] = sum(1 for i in items if i.group == topic and i.latency_s is not None and i.latency_s >= 0.3)
    return rows


@pytest.mark.parametrize("protocol", sorted(CASES))
def test_dropped_failed_closed_and_delayed_messages_are_counted_then_replayed(protocol, tmp_path):
    server_class, request, failure = CASES[protocol]()

    async def first():
        async with server_class(port=0, faults=FAULTS) as server, Tap() as tap:
            answers = await _send_all(await tap.relay(server.port), protocol, [request(n) for n in range(1, COUNT + 1)])
            await asyncio.sleep(0.1)
            await tap.close()
            return tap.pcap(), answers, server.faulted

    pcap, answers, faulted = asyncio.run(first())
    assert faulted == sorted(FAULTS.items())
    assert [a is None for a in answers] == [FAULTS.get(n) in ("drop", "close") for n in range(1, COUNT + 1)]
    rows = _table(pcap)
    assert {row["system"] for row in rows.values()} == {protocol}
    assert {topic: (row["messages"], row["acked_ok"], row["failed"], row["unanswered"], row["delayed"])
            for topic, row in rows.items()} == TRUTH
    assert rows["audit-odd"]["top_error"] == f"{failure} (1)"  # (how many times)
    assert rows["audit-odd"]["max_ms"] >= 300 and rows["audit-even"]["top_error"] is None
    assert not any(row["unknown"] or row["not_asked"] or row["duplicates"] for row in rows.values())

    # the unacknowledged set: what the server dropped, failed or closed on, and nothing else
    unacked = replay_items(pcap, protocol, only_unacked=True)
    assert sorted(item.outcome for item in unacked) == ["failed", "unanswered", "unanswered"]
    path = tmp_path / "first.pcap"
    path.write_bytes(pcap)
    dry = CliRunner().invoke(main, ["replay", "--dry-run", "--only-unacked", "--to", "127.0.0.1:9", str(path)])
    assert dry.exit_code == 0, dry.output
    assert json.loads(dry.output)["would_send"] == 3 and json.loads(dry.output)["protocol"] == protocol

    async def again():
        async with server_class(port=0) as fresh, Tap() as tap:
            report = await replay("127.0.0.1", await tap.relay(fresh.port), unacked, rate=200, timeout=5.0)
            await asyncio.sleep(0.1)
            await tap.close()
            return report, tap.pcap()

    report, replayed = asyncio.run(again())
    assert report.ok and report.sent == report.accepted == 3, report.to_dict()
    union = _table(pcap, replayed)
    # nothing missing: every message acknowledged once, here or there
    assert {topic: row["records_ok"] for topic, row in union.items()} == {topic: 4 for topic in TOPICS}
    assert sum(row["acked_ok"] for row in _table(replayed).values()) == 3
    if protocol != "tubemq":  # (a TubeMQ message carries no id of its own)
        acked = [i.message_id for p in (pcap, replayed) for i in audit_capture(p) if i.outcome == "ok"]
        assert sorted(acked) == sorted(f"u{n}" for n in range(1, COUNT + 1))
