"""decode's packet list (-T table) from the compiled batches, a column at a time (cli/packet_list.py
write_columns, cells_of; dataproxy/summary.py for the payload fields of DataProxy's Info) against the
streaming path, frame by frame: for the capture vectors, the sample dumps, and generated captures whose
DataProxy attributes the columns read and refuse (repeated keys, counts and error codes of every form,
Snappy, non-ASCII), the same bytes and exit status on a pipe and on terminals of several widths."""
from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pyarrow")

from click.testing import CliRunner  # noqa: E402
from test_cli_jsonl_batches import mixed_capture  # noqa: E402

from inlong_proto import encode  # noqa: E402
from inlong_proto.cli import packet_list, whole_files  # noqa: E402
from inlong_proto.cli.commands import main  # noqa: E402
from inlong_proto.dataproxy import builders  # noqa: E402
from inlong_proto.dataproxy.payload import MsgType  # noqa: E402
from inlong_proto.generated.codec.dataproxy import dataproxy_common as common  # noqa: E402
from inlong_proto.generated.codec.dataproxy import dataproxy_request as request_codec  # noqa: E402
from inlong_proto.generated.codec.dataproxy import dataproxy_response as response_codec  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
VECTORS = sorted([*(ROOT / "tests" / "vectors" / "capture").glob("*.pcap*"),
                  *(ROOT / "tests" / "vectors" / "capture").glob("*.bin"), *ROOT.glob("examples/data/*")])


def run(args, fast: bool, monkeypatch, columns: int | None):
    monkeypatch.setattr(whole_files, "FAST", fast)
    monkeypatch.setattr(packet_list, "width", lambda: columns)
    result = CliRunner().invoke(main, ["decode", *args])
    return result.exit_code, result.stdout_bytes


@pytest.fixture
def taken(monkeypatch):
    """Whether each file went through write_table's batches."""
    done = []
    write = whole_files.write_table
    monkeypatch.setattr(whole_files, "write_table", lambda *args: done.append(write(*args)) or done[-1])
    return done


def same(args, monkeypatch, widths=(None, 120, 60)):
    for columns in widths:
        fast = run(args, True, monkeypatch, columns)
        assert fast == run(args, False, monkeypatch, columns), (args, columns)
    return fast


@pytest.mark.parametrize("protocol", ["dataproxy", "broadcast"])
def test_the_vectors_table_is_the_streaming_table(protocol, taken, monkeypatch):
    for path in VECTORS:
        for extra in ([], ["-d", "response"], ["--mode", "DROPMALFORMED"]):
            same(["-p", protocol, *extra, "-T", "table", str(path)], monkeypatch)
    assert any(taken)


def request(attr: str, msg_type=MsgType.ack_service, body=b"a\nb") -> bytes:
    return encode(request_codec.DataproxyRequest(auth=False, encrypted=False, compressed=False, base_type=msg_type,
                                                 body=common.TextMessage(body=body, attr=attr)))


def answer(attr: str) -> bytes:
    return encode(response_codec.DataproxyResponse(auth=False, encrypted=False, compressed=False,
                                                   base_type=MsgType.ack_service,
                                                   body=common.TextMessage(body=b"2", attr=attr)))


def covered_frames() -> list[tuple[str, bytes]]:
    """Requests and answers whose Info the columns say, payload errors included."""
    kw = {"group_id": "g", "stream_id": "s", "data_time_ms": 1_700_000_000_000}
    frames = [("client", encode(builders.text_request([b"x", b"y"], message_id=1, **kw))),
              ("client", encode(builders.text_request([b"a", b"bb"], message_id=2, msg_type=MsgType.multi_body_attr,
                                                      record_attrs=[{"k": 1}, {"k": 2}], **kw)))]
    for attr in ("groupId=g&groupId=h&cnt=1", "groupId=&streamId=s&cnt=+5", "groupId=g&cnt=007&=v",
                 "streamId=s&cnt=99999999999", "groupId=g~!&streamId=[x]&cnt=x", "cnt=-3&mt=pb"):
        frames.append(("client", request(attr)))
    frames.append(("client", request("groupId=g&cnt=2", MsgType.multi_body_attr, body=b"\x00\x00\x00\x09xx")))
    for attr in ("dpIp=1.2.3.4&groupId=g&cnt=5", "errCode=1&errMsg=busy&groupId=g", "errCode=abc&groupId=g",
                 "errCode=999&errMsg=what", "errCode=&errMsg=", "errCode=-0&errCode=1", "errCode=+00001&cnt=1"):
        frames.append(("server", answer(attr)))
    return frames


def binary_frames() -> list[tuple[str, bytes]]:
    """MsgType 7 requests (the Java SDK's usual form: ids as attributes or numbers, each body layout,
    encrypted, a repeated key, a body that is not its layout, an empty attribute text), their answers,
    MsgType 5 requests (a body in and out of its layout) and binary heartbeats both ways: their Info from
    the columns."""
    kw = {"data_time_ms": 1_700_000_000_000}
    requests = [builders.bin_request([b"x", b"yy"], group_id="g", stream_id="s", unique_id=1, **kw),
                builders.bin_request([b"z"], group_num=12, stream_num=0, unique_id=2, **kw),
                builders.bin_request([b"a", b"b"], group_id="g", unique_id=3, record_attrs=[{"k": 1}, {"k": 2}], **kw),
                builders.bin_request([b"l1", b"l2"], group_num=3, stream_num=4, unique_id=4, separated_by_lf=True,
                                     **kw)]
    bad = builders.bin_request([b"r"], group_id="g", unique_id=6, **kw)
    requests.append(bad._replace(body=bad.body._replace(body=b"\x00\x00\x00\x09xx")))
    bare = builders.bin_request([b"r"], group_num=5, unique_id=7, report_time_ms=None, sdk_version=None, **kw)
    requests.append(bare._replace(body=bare.body._replace(attr="")))
    frames = []
    for message in requests:
        frames += [("client", encode(message)),
                   ("server", encode(builders.bin_response(message, dp_ip="1.2.3.4")))]
    frames.append(("client", encode(requests[0]._replace(encrypted=True))))
    repeated = builders.bin_request([b"d"], group_id="g", unique_id=8, **kw)
    frames.append(("client", encode(repeated._replace(body=repeated.body._replace(attr="groupId=g&groupId=h")))))
    frames.append(("client", request("groupId=g&cnt=2", MsgType.multi_body, body=b"\x00\x00\x00\x01a\x00\x00\x00\x01b")))
    frames.append(("client", request("groupId=g&cnt=2", MsgType.multi_body, body=b"\x00\x00\x00\x09a")))
    beat = builders.heartbeat_request(data_time_ms=1_700_000_000_123)
    frames += [("client", encode(beat)), ("server", encode(builders.heartbeat_response(beat, server_time_s=7)))]
    return frames


@pytest.mark.parametrize("extra", [[], ["-d", "response"], ["--mode", "FAILFAST"]])
def test_generated_captures_table_is_the_streaming_table(tmp_path, taken, monkeypatch, extra):
    """Many frames over several connections, binary requests and heartbeats with their answers, and the
    files the columns refuse (Snappy, non-ASCII attributes), each alone and all in one run (numbers and
    widths carried from file to file)."""
    from tools.bench.native_capture import dataproxy_frames

    kw = {"group_id": "g", "stream_id": "s", "data_time_ms": 1_700_000_000_000}
    refused = {"snappy": [("client", encode(builders.text_request([b"x"], message_id=3, compress=True, **kw)))],
               "accent": [("client", request("groupId=\u00e9&cnt=1"))]}
    files = {"bench": dataproxy_frames(700) + covered_frames(), "binary": covered_frames() + binary_frames(),
             **{name: covered_frames() + frames for name, frames in refused.items()}}
    paths = []
    for name, frames in files.items():
        paths.append(tmp_path / f"{name}.pcap")
        paths[-1].write_bytes(mixed_capture(frames, 46801, nano=name == "bench"))
    del taken[:]
    for path in paths:
        same(["-p", "dataproxy", *extra, "-T", "table", str(path)], monkeypatch)
    wanted = [True, True, *[extra == ["-d", "response"]] * 2]  # (the refused frames are requests)
    assert taken == [want for want in wanted for _ in range(3)]  # (three widths each)
    out = same(["-p", "dataproxy", *extra, "-T", "table", *map(str, paths), str(ROOT / "examples" / "data" /
                                                                               "dataproxy.bin")], monkeypatch)
    assert out[1].count(b"\n") > 200  # (-d response: the request dump read as answers fails, alike)


def test_auto_table_is_the_streaming_table(tmp_path, taken, monkeypatch):
    """-p auto, decode's default: the capture vectors, the sample dumps and generated captures (DataProxy
    alone, DataProxy with broadcast, with EventMesh too), each protocol's rows with their own Info, on a
    pipe and on terminals; the DataProxy capture goes through the batches."""
    from tools.bench.native_capture import dataproxy_frames

    from test_cli_jsonl_batches import auto_files

    (tmp_path / "dataproxy_only.pcap").write_bytes(mixed_capture(dataproxy_frames(300) + covered_frames(), 46801,
                                                                 nano=True))
    files = auto_files(tmp_path)
    for path in files:
        del taken[:]
        for extra in ([], ["-d", "response"], ["--mode", "DROPMALFORMED"]):
            same(["-p", "auto", *extra, "-T", "table", str(path)], monkeypatch)
        if path.name in ("dataproxy_only.pcap", "dp_broadcast.pcap"):
            assert all(taken) and len(taken) == 9
    same(["-T", "table", *map(str, files)], monkeypatch)


def test_broadcast_times_table_is_the_streaming_table(tmp_path, taken, monkeypatch):
    """Broadcast's Info names its switch's case fields ({body.*.timestamp}: packet_list._case_text): times
    at the ends of the years Arrow writes as isoformat does go through the batches, a capture holding one
    before the year 1000 is streamed, alike."""
    from datetime import datetime

    from tools.bench.codecs import bf
    from tools.bench.native_capture import broadcast_frames

    def at(when: datetime) -> list[tuple[str, bytes]]:
        return [("client", encode(bf.BroadcastFrame(body=bf.DataRequest(last_timestamp=when, last_data=1)))),
                ("server", encode(bf.BroadcastFrame(body=bf.DataResponse(status=list(bf.Status)[-1], timestamp=when,
                                                                         data=0))))]

    ends = at(datetime(1000, 1, 1)) + at(datetime(9999, 12, 31, 23, 59, 59, 999000))
    for name, frames in {"ends": broadcast_frames(60) + ends, "early": broadcast_frames(60) + at(datetime(999, 1, 1))
                         }.items():
        path = tmp_path / f"{name}.pcap"
        path.write_bytes(mixed_capture(frames, 8090, nano=False))
        del taken[:]
        for protocol in ("broadcast", "auto"):
            same(["-p", protocol, "-T", "table", str(path)], monkeypatch)
        assert taken == [name == "ends"] * 6
