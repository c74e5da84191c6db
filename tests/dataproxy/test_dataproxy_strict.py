"""The strict DataProxy peers (issue 29, item 3): for each rule of specs/dataproxy/conformance.yaml a client (or,
for the sender's rules, a server) that breaks exactly that rule, and the report naming exactly that rule at the
offending frame's offset, while the answers stay the reference server's."""
from __future__ import annotations

import asyncio
import json
import re
import signal
import subprocess

import pytest

import inlong_proto
from inlong_proto.core.conformance import Report, rules
from inlong_proto.dataproxy import builders
from inlong_proto.dataproxy.payload import ErrCode, parse_attrs, response_status
from inlong_proto.endpoints.dataproxy_sender import DataProxySender
from inlong_proto.endpoints.dataproxy_server import DataProxyServer
from inlong_proto.generated.codec.dataproxy.dataproxy_common import MsgType
from peers import HOST, free_port, run, start_server, until, wait_for_line

T_MS = 1_700_000_000_000


def wire(message) -> bytes:
    return inlong_proto.encode(message)


def text(**options):
    options.setdefault("group_id", "g1")
    options.setdefault("stream_id", "s1")
    return builders.text_request([b"a", b"b"], data_time_ms=T_MS, message_id="1", **options)


def binary(**options):
    return builders.bin_request([b"a", b"b"], group_id="g1", stream_id="s1", data_time_ms=T_MS, unique_id=7,
                                **options)


def with_body(message, **changes):
    return message._replace(body=message.body._replace(**changes))


HEARTBEAT = wire(builders.heartbeat_request(data_time_ms=T_MS))
# rule -> (the faulty frame, whether the server closes the connection on it, the length reported: None where
# no frame could be cut, else the frame's own length unless given)
SERVER_CASES = {
    "dataproxy.total-len": (bytes(9), True, None),
    "dataproxy.msg-type": (bytes.fromhex("000000091f") + bytes(8), True, None),
    "dataproxy.max-frame-size": (bytes.fromhex("0001000003") + bytes(16), True, 5 + 0xFFFF),
    "dataproxy.layout": (bytes.fromhex("0000000903ffffffff00000000"), True, 13),
    "dataproxy.magic": (wire(binary())[:-2] + b"\xee\x02", False, ...),
    "dataproxy.ext-field": (with_body(binary(), ext_field=binary().body.ext_field._replace(file_check=True)),
                            False, ...),
    "dataproxy.body-present": (with_body(text(), body=b""), False, ...),
    "dataproxy.attr-syntax": (with_body(text(), attr=text().body.attr + "&oops"), False, ...),
    "dataproxy.ack-conflict": (text(is_ack=False, extra_attrs={"syncSend": "true"}), False, ...),
    "dataproxy.compressed-body": (with_body(text(compress=True), body=b"\xff\xff\xff\xff"), False, ...),
    "dataproxy.body-items": (with_body(text(msg_type=5), body=b"\x00\x00\x00\x09ab"), False, ...),
    "dataproxy.group-id": (with_body(text(), attr="streamId=s1&messageId=1"), False, ...),
    "dataproxy.inlongmsg-v3": (with_body(text(msg_type=6, record_attrs=[{"i": 0}, {"i": 1}]), body=b"not pairs"),
                               False, ...),
    "dataproxy.bin-body": (with_body(binary(compress=True), body=b"\xff\xff\xff\xff"), False, ...),
}
# what the reference server answers each answered case with (its answers do not change under --strict)
ANSWERS = {"dataproxy.magic": ErrCode.field_magic_not_equal,
           "dataproxy.ext-field": ErrCode.unsupported_extend_field_value,
           "dataproxy.body-present": ErrCode.body_length_zero, "dataproxy.attr-syntax": ErrCode.split_attr_error,
           "dataproxy.ack-conflict": ErrCode.attr_order_control_conflict_error,
           "dataproxy.compressed-body": ErrCode.uncompress_data_error,
           "dataproxy.body-items": ErrCode.msg_body_items_invalid,
           "dataproxy.group-id": ErrCode.miss_required_groupid_argument,
           "dataproxy.inlongmsg-v3": ErrCode.success, "dataproxy.bin-body": ErrCode.success}


async def _read_until_closed(reader: asyncio.StreamReader) -> bytes:
    got = bytearray()
    while data := await reader.read(65536):
        got += data
    return bytes(got)


@pytest.mark.parametrize("rule", SERVER_CASES)
def test_the_server_reports_each_rule_a_client_breaks(rule):
    faulty, closes, length = SERVER_CASES[rule]
    faulty = faulty if isinstance(faulty, bytes) else wire(faulty)
    report = Report("dataproxy")

    async def body():
        async with DataProxyServer(HOST, 0, strict=report) as server:
            reader, writer = await asyncio.open_connection(HOST, server.port)
            writer.write(HEARTBEAT + faulty + HEARTBEAT)
            await writer.drain()
            if not closes:
                await until(lambda: len(report.findings) >= 1)
                writer.write_eof()
            got = await asyncio.wait_for(_read_until_closed(reader), 10)
            writer.close()
            return [frame.message for frame in inlong_proto.iter_frames(got, "dataproxy", "response")]

    replies = run(body())
    expected_length = len(faulty) if length is ... else length
    assert [(f.rule, f.offset, f.length) for f in report.findings] == [(rule, len(HEARTBEAT), expected_length)]
    assert report.findings[0].peer.startswith("127.0.0.1:") and report.findings[0].got
    if closes:  # the first heartbeat is answered, nothing after the faulty frame
        assert [MsgType(r.base_type) for r in replies] == [MsgType.bin_heartbeat]
    else:
        assert [MsgType(r.base_type) for r in replies][::2] == [MsgType.bin_heartbeat] * 2
        assert response_status(parse_attrs(replies[1].body.attr, strict=False))[0] == ANSWERS[rule]


def test_a_conforming_client_breaks_no_rule():
    report = Report("dataproxy")

    async def body():
        async with DataProxyServer(HOST, 0, strict=report) as server:
            return await DataProxySender(HOST, server.port, mix="2,3,4,5,6,7,8,1", timeout=5,
                                         strict=report).run([b"r%d" % i for i in range(16)], 2)

    assert run(body()).ok
    assert report.findings == []


def test_the_server_reports_a_frame_cut_by_the_end_of_the_stream():
    report = Report("dataproxy")

    async def body():
        async with DataProxyServer(HOST, 0, strict=report) as server:
            reader, writer = await asyncio.open_connection(HOST, server.port)
            writer.write(HEARTBEAT + HEARTBEAT[:10])
            writer.write_eof()
            await asyncio.wait_for(_read_until_closed(reader), 10)
            writer.close()
            await until(lambda: report.findings)

    run(body())
    assert [(f.rule, f.offset, f.length) for f in report.findings] == [("dataproxy.whole-frames", len(HEARTBEAT),
                                                                         None)]


def test_the_server_reports_a_client_silent_past_the_idle_timeout():
    report = Report("dataproxy")

    async def body():
        async with DataProxyServer(HOST, 0, idle_timeout=0.3, strict=report) as server:
            reader, writer = await asyncio.open_connection(HOST, server.port)
            writer.write(HEARTBEAT + HEARTBEAT[:10])  # a heartbeat begun, never finished
            await writer.drain()
            await asyncio.wait_for(_read_until_closed(reader), 10)  # closed by the deadline
            writer.close()
            await until(lambda: report.findings)

    run(body())
    assert [(f.rule, f.offset, f.length) for f in report.findings] == [("dataproxy.idle", len(HEARTBEAT) + 10, None)]


# -- the sender's rules: a faulty server ---------------------------------------------------------

def _stray(request):
    """Answers with a UniqueId nobody sent, then the right reply."""
    return [builders.bin_response(request._replace(body=request.body._replace(unique_id=999)), dp_ip="x"),
            builders.bin_response(request, dp_ip="x")]


def _garbage_first(request):
    return [b"\x00\x00\x00\x02\x1f\x00", builders.bin_response(request, dp_ip="x")]


def _wrong_type(request):
    return [builders.text_response(request._replace(base_type=MsgType.multi_body), dp_ip="x")]


SENDER_CASES = {
    "dataproxy.response-match": ("7", _stray),
    "dataproxy.response-frame": ("7", _garbage_first),
    "dataproxy.response-type": ("3", _wrong_type),
}


@pytest.mark.parametrize("rule", SENDER_CASES)
def test_the_sender_reports_each_rule_a_server_breaks(rule):
    mix, answer = SENDER_CASES[rule]
    report = Report("dataproxy")
    first = []

    async def handle(reader, writer):
        decoder = inlong_proto.StreamDecoder("dataproxy", direction="request")
        while data := await reader.read(65536):
            for frame in decoder.feed(data):
                replies = [r if isinstance(r, bytes) else wire(r) for r in answer(frame.message)]
                first.append(len(replies[0]))
                writer.write(b"".join(replies))
        writer.close()

    async def body():
        async with await asyncio.start_server(handle, HOST, 0) as server:
            port = server.sockets[0].getsockname()[1]
            return await DataProxySender(HOST, port, mix=mix, timeout=2, strict=report).run([b"a"], 1), port

    sent, port = run(body())
    assert sent.sent == 1
    assert [(f.rule, f.offset, f.length) for f in report.findings] == [(rule, 0, first[0])]
    assert report.findings[0].peer == f"{HOST}:{port}"


def test_every_rule_has_a_faulty_peer():
    tested = {*SERVER_CASES, *SENDER_CASES, "dataproxy.whole-frames", "dataproxy.idle"}
    assert tested == set(rules("dataproxy"))


def test_strict_option_of_serve_and_send_writes_the_report(tmp_path):
    served, sent = tmp_path / "served.jsonl", tmp_path / "sent.jsonl"
    cli = ("-m", "inlong_proto", "dataproxy")

    async def body():
        import sys

        server = await asyncio.create_subprocess_exec(sys.executable, *cli, "serve", "--port", "0", "--strict",
                                                      str(served), stderr=asyncio.subprocess.PIPE)
        try:
            async with asyncio.timeout(60):
                line = ""
                while "listening on" not in line:
                    line = (await server.stderr.readline()).decode()
                    assert line, "the server exited before listening"
            port = int(re.search(r"listening on [\d.]+:(\d+)", line).group(1))
            reader, writer = await asyncio.open_connection(HOST, port)
            writer.write(HEARTBEAT + wire(with_body(text(), body=b"")))
            writer.write_eof()
            await asyncio.wait_for(_read_until_closed(reader), 10)
            writer.close()
            sender = await asyncio.create_subprocess_exec(
                sys.executable, *cli, "send", "--port", str(port), "--count", "3", "--mix", "7,8", "--strict",
                str(sent), stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
            out, err = await asyncio.wait_for(sender.communicate(), 60)
            assert sender.returncode == 0, err
            assert json.loads(out)["ok"] and "no rule broken" in err.decode()
        finally:
            server.terminate()
            await asyncio.wait_for(server.wait(), 30)

    run(body(), timeout=120)
    [line] = served.read_text().splitlines()
    item = json.loads(line)
    assert (item["rule"], item["offset"]) == ("dataproxy.body-present", len(HEARTBEAT))
    assert item["spec"] == "specs/dataproxy/dataproxy_common.ksy#105: {id: body_length_zero"
    assert sent.read_text() == ""


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_serve_strict_summarises_however_a_script_stops_it(tmp_path, signum):
    """`dataproxy serve --strict FILE &` in a script: the shell starts it with SIGINT ignored, and `kill` sends
    SIGTERM; either way it stops cleanly, the summary table on stderr (before: SIGINT did nothing, SIGTERM
    killed it without a summary)."""
    port = free_port()
    report = tmp_path / "findings.jsonl"
    server, peer = start_server("dataproxy", "serve", "--port", str(port), "--strict", str(report), port=port,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    try:
        with peer:
            peer.sendall(b"\x00\x00\x00\x01\x09")  # MsgType 9: the connection is closed
            while peer.recv(65536):
                pass
        wait_for_line(report)
    finally:
        server.send_signal(signum)
        try:
            _, stderr = server.communicate(timeout=30)
        finally:
            server.kill()
    assert server.returncode == 0, stderr
    assert "interrupted, exiting" in stderr
    assert "dataproxy conformance: 1 findings" in stderr and "dataproxy.msg-type" in stderr
