"""Issue 12, DataProxy: MsgType 6 bodies are InLongMsg v3 {len, data}{len, attr} pairs, and the reply to a
MsgType 7 request with the ExtField trace bit carries node2ip=<listen port>&rtime2=<receive ms>.

The vectors are data: tests/vectors/dataproxy/payload (a frame and the records or the error its payload
gives) and tests/vectors/dataproxy/replies (a request, the server's situation, the exact reply bytes).
"""
import asyncio
import json
import subprocess
import sys

import pytest

import inlong_proto as ip
from inlong_proto.dataproxy import builders, read_payload as payload, record_rows, iter_records as records, text_request
from inlong_proto.dataproxy.payload import ErrCode
from inlong_proto.endpoints.dataproxy_server import DataProxyServer, DataProxySession
from inlong_proto.core.errors import DecodeError, EncodeError, ValidationError

import vectors

PAYLOADS = vectors.load("dataproxy", "payload")
REPLIES = vectors.load("dataproxy", "replies")
MS = 1_700_000_000_000


def frame_of(vector):
    return ip.decode(bytes.fromhex(vector["hex"]), "dataproxy", vector["direction"])


# -- MsgType 6 ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("vector", PAYLOADS)
def test_payload_vector(vector):
    read = payload(frame_of(vector))
    assert [{"data": r.data.decode(), "attrs": [list(a) for a in r.attrs]} for r in read.records] == vector["records"]
    want = vector["error"]
    if want is None:
        assert read.error is None and "error" not in read.to_dict()
        assert payload(frame_of(vector), strict=True) == read
        return
    assert (type(read.error).__name__, read.error.offset, read.error.field) == (
        want["kind"], want["offset"], want["field"])
    assert read.to_dict()["error"] == str(read.error) and read.records == ()
    with pytest.raises(DecodeError) as caught:  # strict (FAILFAST) readers: the same error, raised
        payload(frame_of(vector), strict=True)
    assert (caught.value.offset, caught.value.field) == (want["offset"], want["field"])


def test_builder_writes_the_pair_layout_the_vector_holds():
    vector = next(p.values[0] for p in PAYLOADS if p.id == "multi_body_attr_pairs")
    message = text_request([b"r1\nstill r1", b"r2"], msg_type=6, group_id="g", stream_id="s", data_time_ms=1,
                           message_id=11, record_attrs=[{"k": "v"}, {"src": "a", "n": 2}],
                           report_time_ms=None, sdk_version=None)
    assert ip.encode(message).hex() == vector["hex"]


GOOD6 = text_request([b"one", b"two"], msg_type=6, group_id="g6", stream_id="s6", data_time_ms=MS, message_id=1,
                     record_attrs=[{"k": "1"}, {"k": "2", "x": "y"}])
BAD6 = ip.encode(text_request([b"x"], msg_type=3, group_id="g6", stream_id="s6", data_time_ms=MS,
                              message_id=2))
BAD6 = BAD6[:4] + b"\x06" + BAD6[5:]  # the same text frame as MsgType 6: a body of one record, not pairs
DUMP = ip.encode(GOOD6) + BAD6


def test_records_and_rows_see_each_record_with_its_own_attributes_and_flag_the_rest():
    frames = lambda: ip.iter_frames(DUMP, "dataproxy", "request")  # noqa: E731
    assert [(r.data, r.attrs, r.group_id) for _, r in records(frames(), on_error="skip")] == [
        (b"one", (("k", "1"),), "g6"), (b"two", (("k", "2"), ("x", "y")), "g6")]
    with pytest.raises(ValidationError, match="InLongMsg v3"):
        list(records(frames()))
    rows = list(record_rows(frames(), "PERMISSIVE"))
    assert [(row.record_index, row.data, row.record_attrs, row.error is None) for row in rows] == [
        (0, b"one", (("k", "1"),), True), (1, b"two", (("k", "2"), ("x", "y")), True), (None, b"x", (), False)]
    assert rows[2].frame_offset == len(ip.encode(GOOD6)) and rows[2].message_type == "multi_body_attr"
    assert len(list(record_rows(frames(), "DROPMALFORMED"))) == 2
    with pytest.raises(ValidationError, match="InLongMsg v3"):
        list(record_rows(frames(), "FAILFAST"))


def test_cli_payload_error_field_and_failfast(tmp_path):
    dump = tmp_path / "six.bin"
    dump.write_bytes(DUMP)
    command = [sys.executable, "-m", "inlong_proto", "decode", "-p", "dataproxy", "-d", "request", "--payload"]
    ok = subprocess.run(command + ["--mode", "PERMISSIVE", str(dump)], capture_output=True, timeout=120)
    assert ok.returncode == 0, ok.stderr
    good, bad = (json.loads(line)["payload"] for line in ok.stdout.decode().splitlines())
    assert [r["attrs"] for r in good["records"]] == [[["k", "1"]], [["k", "2"], ["x", "y"]]] and "error" not in good
    assert bad["records"] == [] and "InLongMsg v3" in bad["error"]
    failfast = subprocess.run(command + [str(dump)], capture_output=True, timeout=120)  # FAILFAST, the default
    assert failfast.returncode != 0 and b"InLongMsg v3" in failfast.stderr


def test_server_acknowledges_a_body_it_would_drop_with_a_note():
    session = DataProxySession(dp_ip="10.0.0.1", clock=lambda: MS / 1000)
    good, bad = session.feed(DUMP)
    assert (good.err_code, len(good.payload.records), good.note) == (0, 2, None)
    assert bad.err_code == ErrCode.success and bad.payload.records == () and "InLongMsg v3" in bad.note


# -- the ExtField trace bit in replies ----------------------------------------------------------------

@pytest.mark.parametrize("vector", REPLIES)
def test_reply_vector_from_the_builder(vector):
    request = ip.decode(bytes.fromhex(vector["request"]), "dataproxy", "request")
    reply = getattr(builders, vector["builder"])(request, **vector["arguments"])
    assert ip.encode(reply).hex() == vector["response"]


@pytest.mark.parametrize("vector", [v for v in REPLIES if v.values[0]["arguments"].get("err_code") is None])
def test_reply_vector_from_the_server(vector):
    """What `dataproxy serve` answers: the session's reply for a request that passes, at the vector's time."""
    arguments = vector["arguments"]
    session = DataProxySession(dp_ip=arguments["dp_ip"], clock=lambda: arguments["receive_time_ms"] / 1000,
                               listen_port=arguments["listen_port"])
    (outcome,) = session.feed(bytes.fromhex(vector["request"]))
    assert ip.encode(outcome.reply).hex() == vector["response"]


def test_trace_reply_needs_the_port_and_reads_back():
    request = builders.bin_request([b"a"], group_id="g", data_time_ms=MS, unique_id=3, report_time_ms=5)
    traced = request._replace(body=request.body._replace(ext_field=request.body.ext_field._replace(trace=True)))
    with pytest.raises(EncodeError, match="listen_port"):
        builders.bin_response(traced, dp_ip="h", receive_time_ms=9)
    assert builders.bin_response(traced, dp_ip="h").body.attr == "dpIp=h&" + traced.body.attr  # before the fill
    reply = payload(ip.decode(ip.encode(builders.bin_response(traced, dp_ip="h", receive_time_ms=9, listen_port=46801)),
                              "dataproxy", "response"))
    assert (reply.attr("node2ip"), reply.attr("rtime2"), reply.attr("rtms")) == ("46801", "9", "5")


def test_serve_writes_its_own_listen_port_as_node2ip():
    request = builders.bin_request([b"a"], group_id="g", data_time_ms=MS, unique_id=4)
    traced = request._replace(body=request.body._replace(ext_field=request.body.ext_field._replace(trace=True)))

    async def body():
        async with DataProxyServer("127.0.0.1", 0, dp_ip="10.0.0.1", clock=lambda: 1_700_000_000.25) as server:
            reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
            writer.write(ip.encode(traced))
            await writer.drain()
            size = int.from_bytes(await reader.readexactly(4), "big")
            data = (size).to_bytes(4, "big") + await reader.readexactly(size)
            writer.close()
            await writer.wait_closed()
            return server.port, data

    port, data = asyncio.run(asyncio.wait_for(body(), 30))
    reply = payload(ip.decode(data, "dataproxy", "response"))
    assert reply.attrs[:3] == (("dpIp", "10.0.0.1"), ("node2ip", str(port)), ("rtime2", "1700000000250"))
    assert reply.error_code == ErrCode.success and reply.unique_id == 4


def test_read_records_gives_msgtype_6_records_their_attributes(spark, tmp_path):
    pytest.importorskip("pyspark")
    from inlong_proto.spark.records import read_records

    (tmp_path / "six.bin").write_bytes(DUMP)
    rows = sorted(read_records(spark, str(tmp_path)).collect(), key=lambda r: (r.frame_offset, r.record_index or 0))
    assert [(r.record_index, r.data, r.record_attrs, r.message_type) for r in rows[:2]] == [
        (0, b"one", {"k": "1"}, "multi_body_attr"), (1, b"two", {"k": "2", "x": "y"}, "multi_body_attr")]
    assert rows[2].record_index is None and rows[2].data == b"x" and "InLongMsg v3" in rows[2].error
    assert read_records(spark, str(tmp_path), mode="DROPMALFORMED").count() == 2
    with pytest.raises(Exception, match="InLongMsg v3"):
        read_records(spark, str(tmp_path), mode="FAILFAST").collect()
