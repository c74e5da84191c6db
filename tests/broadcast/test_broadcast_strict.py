"""The broadcast server's --strict conformance report (issue 29, item 3): each rule of
specs/broadcast/conformance.yaml a client breaks is reported with its offset, and the client served on."""
from __future__ import annotations

import asyncio
import json

import inlong_proto
from inlong_proto.core.conformance import Report
from inlong_proto.endpoints.broadcast_history import EPOCH
from inlong_proto.endpoints.broadcast_server import BroadcastServer
from inlong_proto.generated.codec.broadcast.broadcast_frame import BroadcastFrame, DataRequest
from peers import HOST, free_port, run, start_server, until, wait_for_line

REQUEST = inlong_proto.encode(BroadcastFrame(body=DataRequest(last_timestamp=EPOCH, last_data=0)))
MONTH_13 = REQUEST.replace(b"1970-01-", b"1970-13-")


def test_strict_reports_each_violation_with_its_offset_and_serves_on():
    report = Report("broadcast")

    async def body():
        async with BroadcastServer(HOST, 0, 0.05, strict=report) as server:
            await until(lambda: len(server.history) >= 1)
            reader, writer = await asyncio.open_connection(HOST, server.port)
            writer.write(b"\xa5GARBAG" + MONTH_13 + REQUEST)
            await writer.drain()
            answer = await asyncio.wait_for(reader.readexactly(38), 10)  # the valid request is answered
            assert answer[:4] == b"\x00\x00\x00\x26"
            await until(lambda: len(report.findings) >= 1)
            writer.close()
            await writer.wait_closed()

    run(body())
    # garbage and the bad frame are one span a conforming decoder rejects, from offset 0 up to the request
    assert [(f.offset, f.length, f.rule) for f in report.findings] == [(0, 44, "broadcast.request-frame")]
    assert report.findings[0].peer.startswith("127.0.0.1") and report.findings[0].got.startswith("invalid: ")
    json.dumps([f.to_dict() for f in report.findings])  # a report of plain JSON


def test_strict_reports_a_client_that_never_sends_its_request():
    report = Report("broadcast")

    async def body():
        async with BroadcastServer(HOST, 0, 0.05, idle_timeout=0.3, strict=report) as server:
            reader, writer = await asyncio.open_connection(HOST, server.port)
            writer.write(REQUEST[:10])  # a request begun, never finished
            await writer.drain()
            assert await asyncio.wait_for(reader.read(), 10) == b""  # closed by the deadline
            writer.close()
            await until(lambda: len(report.findings) >= 1)

    run(body())
    [finding] = report.findings
    assert (finding.rule, finding.offset, finding.length) == ("broadcast.request-first", 10, None)


def test_strict_option_of_the_command_writes_the_report(tmp_path):
    import subprocess

    port = free_port()
    report = tmp_path / "violations.jsonl"
    server, peer = start_server("broadcast", "serve", "--port", str(port), "--interval", "0.05", "--strict",
                                str(report), port=port, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        with peer:
            peer.sendall(MONTH_13 + REQUEST)
            assert len(peer.recv(38)) > 0  # answered
            wait_for_line(report)
    finally:
        server.terminate()
        server.wait(30)
    [line] = report.read_text().splitlines()
    item = json.loads(line)
    assert (item["rule"], item["offset"], item["length"]) == ("broadcast.request-frame", 0, 37)
    assert item["got"] == "invalid: offset 14 in body.last_timestamp.month: " + item["got"].split(": ", 3)[-1]
    assert item["spec"] == "specs/broadcast/broadcast_frame.ksy#data_request"
