"""Replay of TubeMQ, EventMesh TCP and EventMesh HTTP messages with a known truth (issue 28): traffic through
the recording tap and a relay that drops and fails chosen messages (faults.py) into the reference server; the
audit of the tap's capture counts exactly those; the unacknowledged set replayed into a fresh server is all
accepted, and the audit of both captures together shows nothing missing."""
from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parent))

import inlong_proto  # noqa: E402
from faults import FAIL_TEXT, FaultRelay, send_all  # noqa: E402
from inlong_proto.audit import AuditTable, audit_capture  # noqa: E402
from inlong_proto.audit.replay import replay_items  # noqa: E402
from inlong_proto.cli import main  # noqa: E402
from inlong_proto.endpoints.replayer import replay  # noqa: E402
from inlong_proto.endpoints.tap import Tap  # noqa: E402

pytestmark = pytest.mark.timeout(120)

COUNT = 8
FAULTS = {2: "drop", 5: "fail", 6: "drop"}


def _tubemq():
    from inlong_proto.endpoints.tubemq_broker import DEFAULT_TOPIC, TubeMQBroker
    from inlong_proto.generated.protobuf.tubemq import BrokerService_pb2 as broker
    from inlong_proto.tubemq import rpc
    from inlong_proto.tubemq.rpc import encode_message_data

    def request(n):
        data, flag = encode_message_data(b"message %d" % n, "")
        return inlong_proto.encode(rpc.request_frame(n, "sendMessageP2B", broker.SendMessageRequestP2B(
            clientId="audit-producer", topicName=DEFAULT_TOPIC, partitionId=n % 3, data=data, flag=flag,
            checkSum=-1, sentAddr=0)))

    return TubeMQBroker, DEFAULT_TOPIC, request


def _eventmesh():
    from inlong_proto.endpoints.eventmesh_server import EventMeshServer
    from inlong_proto.eventmesh import tcp

    def request(n):
        message = tcp.EventMeshMessage(topic="audit-topic", properties={"uniqueid": f"u{n}"}, body=f"event {n}")
        return inlong_proto.encode(tcp.message(tcp.Command.ASYNC_MESSAGE_TO_SERVER, message, f"{n:010d}"))

    return EventMeshServer, "audit-topic", request


def _eventmesh_http():
    from inlong_proto.endpoints.eventmesh_http_server import EventMeshHttpServer
    from inlong_proto.eventmesh import http

    def request(n):
        return http.send_message(http.ClientConfig(), "audit-topic", f"event {n}", ttl="4000", bizseqno=f"b{n}",
                                 uniqueid=f"u{n}")

    return EventMeshHttpServer, "audit-topic", request


CASES = {"tubemq": _tubemq, "eventmesh": _eventmesh, "eventmesh-http": _eventmesh_http}


def _table(*pcaps) -> dict:
    table = AuditTable(window=3600, by=("group",))
    for pcap in pcaps:
        for item in audit_capture(pcap):
            table.add(item)
    [row] = table.rows()
    return row


@pytest.mark.parametrize("protocol", sorted(CASES))
def test_dropped_and_failed_messages_are_counted_then_replayed(protocol, tmp_path):
    server_class, topic, request = CASES[protocol]()

    async def first():
        async with server_class(port=0) as server, FaultRelay(protocol, server.port, FAULTS) as relay, Tap() as tap:
            answers = await send_all(await tap.relay(relay.port), protocol, [request(n) for n in range(1, COUNT + 1)])
            await asyncio.sleep(0.1)
            await tap.close()
            return tap.pcap(), answers, relay.faulted

    pcap, answers, faulted = asyncio.run(first())
    assert faulted == sorted(FAULTS.items())
    assert [a is None for a in answers] == [FAULTS.get(n) == "drop" for n in range(1, COUNT + 1)]
    row = _table(pcap)
    assert (row["system"], row["group"]) == (protocol, topic)
    assert (row["messages"], row["acked_ok"], row["failed"], row["unanswered"], row["unknown"]) == (COUNT, 5, 1, 2, 0)
    assert FAIL_TEXT in row["top_error"]

    # the unacknowledged set: what the relay dropped or failed, and nothing else
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
    assert union["records_ok"] == COUNT  # nothing missing: every message acknowledged once, here or there
    assert _table(replayed)["acked_ok"] == 3
    if protocol != "tubemq":  # (a TubeMQ message carries no id of its own)
        acked = [i.message_id for p in (pcap, replayed) for i in audit_capture(p) if i.outcome == "ok"]
        assert sorted(acked) == sorted(f"u{n}" for n in range(1, COUNT + 1))
