"""The audit of raw dumps (issue 28): a dump of both directions counts exactly what the capture it came from
counts; a dump of the requests only says the outcomes are unknown, never unanswered. TubeMQ re-sends."""
from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import inlong_proto  # noqa: E402
from inlong_proto.audit import AuditTable, audit_capture, audit_dump  # noqa: E402
from inlong_proto.audit.table import COUNTS  # noqa: E402
from inlong_proto.capture import packet_segment  # noqa: E402
from inlong_proto.capture.container import iter_packets  # noqa: E402
from inlong_proto.capture.writer import Conversation, pcap_file  # noqa: E402
from test_audit import _tubemq_capture  # noqa: E402
from traffic import T0, dataproxy_capture  # noqa: E402

pytestmark = pytest.mark.timeout(120)
EXAMPLES = Path(__file__).parent.parent.parent / "examples" / "data"


def _as_dump(pcap: bytes, server_port: int, only: str | None = None) -> bytes:
    """The TCP payloads of a capture in capture order, every connection after the other as a relay writes
    them (only="request": the client's bytes alone, as a server's record file holds them)."""
    out = []
    for packet in iter_packets(pcap):
        segment = packet_segment(packet)
        if segment is None or not segment.data:
            continue
        side = "request" if segment.dst_port == server_port else "response"
        if only in (None, side):
            out.append(segment.data)
    return b"".join(out)


def _totals(items) -> dict:
    """The counts per key over all time (a dump has no windows, nor latencies)."""
    table = AuditTable(window=10**9, by=("group", "stream"))
    for item in items:
        table.add(item)
    return {(r["system"], r["group"], r["stream"]): {name: r[name] for name in COUNTS} for r in table.rows()}


def _em_tcp_capture() -> bytes:
    from inlong_proto.eventmesh import tcp

    conv = Conversation(client=("10.0.0.7", 46000), server=("10.0.0.2", 10000))
    packets, ts = conv.open(T0), T0
    for n, what in enumerate(["ok", "fail", "drop", "ok", "ok"]):
        ts += 10**9
        seq = f"{n:010d}"
        event = tcp.EventMeshMessage(topic=f"topic-{n % 2}", properties={"uniqueid": f"u{n % 4}"}, body="hi")
        packets += conv.send("client", inlong_proto.encode(tcp.message(tcp.Command.ASYNC_MESSAGE_TO_SERVER, event,
                                                                        seq)), ts)
        if what != "drop":
            packets += conv.send("server", inlong_proto.encode(tcp.reply(
                tcp.Command.ASYNC_MESSAGE_TO_SERVER_ACK, seq, code=0 if what == "ok" else 1,
                desc="success" if what == "ok" else "send failed")), ts + 10**6)
    return pcap_file(packets + conv.close(ts + 10**6), nano=True)


CASES = {"dataproxy": (lambda: dataproxy_capture(2)[0], 46801),
         "tubemq": (lambda: _tubemq_capture()[0], 8123),
         "eventmesh": (_em_tcp_capture, 10000)}


@pytest.mark.parametrize("protocol", sorted(CASES))
def test_a_dump_of_both_directions_counts_what_its_capture_counts(protocol):
    build, port = CASES[protocol]
    pcap = build()
    from_capture = _totals(audit_capture(pcap))
    from_dump = _totals(audit_dump([_as_dump(pcap, port)], protocol))
    assert from_dump == from_capture
    assert sum(row["unanswered"] for row in from_dump.values()) > 0  # (what was dropped is still found)
    assert all(row["unknown"] == 0 for row in from_dump.values())


@pytest.mark.parametrize("protocol", sorted(CASES))
def test_a_dump_of_the_requests_only_says_the_outcomes_are_unknown(protocol):
    build, port = CASES[protocol]
    pcap = build()
    from_capture = _totals(audit_capture(pcap))
    items = list(audit_dump([_as_dump(pcap, port, only="request")], protocol))
    from_dump = _totals(items)
    assert from_dump.keys() == from_capture.keys()
    for key, row in from_dump.items():
        sent = from_capture[key]
        assert (row["messages"], row["records"], row["bytes"], row["not_asked"]) == \
            (sent["messages"], sent["records"], sent["bytes"], sent["not_asked"])
        assert row["unknown"] == sent["messages"] - sent["not_asked"]
        assert row["acked_ok"] == row["failed"] == row["unanswered"] == 0
    assert {item.error for item in items if item.outcome == "unknown"} == {
        "the source holds no answers (one direction only): not known whether it was answered"}


def test_the_examples_dumps_through_the_command():
    import json

    from click.testing import CliRunner

    from inlong_proto.cli import main

    runner = CliRunner()
    rows = {}
    for name in ("dataproxy", "tubemq", "eventmesh", "eventmesh-http", "eventmesh-grpc"):
        out = runner.invoke(main, ["audit", "-T", "jsonl", str(EXAMPLES / f"{name}.bin")])
        assert out.exit_code == 0, out.output
        found = [json.loads(line) for line in out.output.splitlines() if line.startswith("{")]
        assert all(row["window_start"] is None for row in found)  # a dump has no capture times
        rows[name] = {column: sum(row[column] for row in found) for column in COUNTS}
    # both directions: tubemq.bin (4 ok, 1 ServerRejectedException), eventmesh.bin (2 acked, 1 push)
    assert (rows["tubemq"]["acked_ok"], rows["tubemq"]["failed"], rows["tubemq"]["unknown"]) == (4, 1, 0)
    assert (rows["eventmesh"]["acked_ok"], rows["eventmesh"]["delivered"], rows["eventmesh"]["unknown"]) == (2, 1, 0)
    # one direction: every message unknown, none unanswered
    for name in ("dataproxy", "eventmesh-http", "eventmesh-grpc"):
        assert rows[name]["unknown"] == rows[name]["messages"] > 0 and rows[name]["unanswered"] == 0, name


def test_tubemq_resends_of_the_same_message_are_duplicates():
    """A producer re-sends a message whose answer it lost, on a new connection and another partition: the
    same data and flag. The lost original stays unanswered, the copy is acked and counted a duplicate."""
    from inlong_proto.generated.protobuf.tubemq import BrokerService_pb2 as broker
    from inlong_proto.tubemq import rpc

    def send(conv, serial, data, partition, ts, answer=True):
        request = rpc.request_frame(serial, "sendMessageP2B", broker.SendMessageRequestP2B(
            clientId="p1", topicName="t", partitionId=partition, data=data, flag=0, checkSum=-1, sentAddr=0))
        out = conv.send("client", inlong_proto.encode(request), ts)
        if answer:
            out += conv.send("server", inlong_proto.encode(rpc.response_frame(
                serial, "sendMessageP2B", broker.SendMessageResponseB2P(success=True, errCode=200, errMsg="OK"))),
                ts + 10**6)
        return out

    first = Conversation(client=("10.0.0.5", 45000), server=("10.0.0.2", 8123))
    packets = first.open(T0)
    packets += send(first, 1, b"m1", 0, T0 + 10**9)
    packets += send(first, 2, b"m2", 1, T0 + 2 * 10**9, answer=False)  # lost: the connection breaks
    packets += first.close(T0 + 3 * 10**9)
    second = Conversation(client=("10.0.0.5", 45001), server=("10.0.0.2", 8123))
    packets += second.open(T0 + 4 * 10**9)
    packets += send(second, 1, b"m2", 2, T0 + 5 * 10**9)  # the re-send
    packets += send(second, 2, b"m3", 0, T0 + 6 * 10**9)
    packets += send(second, 3, b"m1x", 0, T0 + 7 * 10**9)  # other data: a new message
    packets += second.close(T0 + 8 * 10**9)
    items = audit_capture(pcap_file(packets, nano=True))
    assert [(i.outcome, i.duplicate) for i in items] == [
        ("ok", False), ("unanswered", False), ("ok", True), ("ok", False), ("ok", False)]
    [row] = _totals(items).values()
    assert (row["messages"], row["acked_ok"], row["unanswered"], row["duplicates"]) == (5, 4, 1, 1)
    assert Counter(i.message_id for i in items) == {None: 5}  # (TubeMQ carries no producer message id)


def test_replayed_requests_differ_from_the_captured_ones_only_in_what_is_made_fresh():
    from inlong_proto.audit.replay import fresh_request, replay_items
    from inlong_proto.core.frames import iter_frames

    for protocol in ("eventmesh-http", "eventmesh", "tubemq"):
        data = (EXAMPLES / f"{protocol}.bin").read_bytes()
        items = replay_items(data, protocol)
        assert items, protocol
        for number, item in enumerate(items, 41):
            captured = data[item.request.offset:item.request.offset + item.request.length]
            fresh, key = fresh_request(item.request, number)
            if protocol == "eventmesh-http":  # nothing to renumber: HTTP/1.1 answers in order
                assert fresh == captured and key == ("code", 104)
            elif protocol == "eventmesh":  # the header's seq only
                assert fresh.replace(b"%010d" % number, item.request.payload.header.seq.encode()) == captured
                assert key == ("seq", "%010d" % number)
            else:  # the RPC serial; the message itself as captured
                [frame] = iter_frames(fresh, "tubemq", "request")
                assert frame.payload.serial_no == number and key == ("rpc", number)
                assert frame.payload.business == item.request.payload.business
