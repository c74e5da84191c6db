"""The demo (issue 13, item 7): every reference endpoint pair on loopback (gRPC included), captured with tcpdump or the
project's recording relay, every message of every pair in the capture, then the whole `inlong-proto demo`
(Spark, protocol=auto) with a table per protocol, in about a minute."""
from __future__ import annotations

import asyncio
import subprocess
import sys
from collections import Counter

import pytest

from inlong_proto.capture import iter_capture_frames
from inlong_proto.endpoints.demo import COUNT, record_capture
from tests.capture.test_capture_vectors import _can_capture

# (protocol, stream, message type) -> how many of them every demo run captures
EXPECTED = {
    ("broadcast", "response", "data_response"): COUNT,
    ("tubemq", "request", "sendMessageP2B"): COUNT,
    ("tubemq", "response", "sendMessageP2B"): COUNT,
    ("eventmesh", "request", "ASYNC_MESSAGE_TO_SERVER"): COUNT,
    ("eventmesh", "response", "ASYNC_MESSAGE_TO_CLIENT"): COUNT,
    ("eventmesh-http", "request", "MSG_SEND_ASYNC"): COUNT,
    ("eventmesh-http", "request", "HTTP_PUSH_CLIENT_ASYNC"): COUNT,
    ("eventmesh-http", "response", "WEBHOOK_REPLY"): COUNT,
    ("eventmesh-http", "request", "UNSUBSCRIBE"): 1,
    ("eventmesh-grpc", "request", "publish"): COUNT,  # the request messages of the publish calls
    ("eventmesh-grpc", "request", "PREFACE"): 1,
}


def _check(path) -> None:
    items = list(iter_capture_frames(path.read_bytes(), "auto", "PERMISSIVE"))
    assert not [item for item in items if item.frame.error is not None]
    seen = Counter((item.frame.protocol, item.direction, item.frame.message_type) for item in items)
    assert {key: seen[key] for key in EXPECTED} == EXPECTED
    records = sum(1 for item in items if item.frame.protocol == "dataproxy" and item.direction == "request"
                  and item.frame.message_type in ("text_message", "bin_message"))
    assert records == 20  # 100 records in batches of 5, MsgTypes 3, 5 and 7 in turn with heartbeats (8)


@pytest.mark.parametrize("capture_with", ["relay", pytest.param("tcpdump", marks=pytest.mark.skipif(
    not _can_capture(), reason="tcpdump missing or not allowed to capture on lo"))])
def test_every_pair_is_captured(tmp_path, capture_with):
    path, how, report = asyncio.run(record_capture(tmp_path, capture_with))
    assert capture_with.split()[0] in how or "relay" in how
    assert set(report) == {"broadcast", "dataproxy", "tubemq", "eventmesh", "eventmesh-http", "eventmesh-grpc"}
    assert report["eventmesh-grpc"].startswith(f"{COUNT} published, {COUNT} delivered")
    _check(path)


def test_the_whole_demo(tmp_path):
    """The demo runs to its end (about a minute on 2 cores with tests beside it): the subprocess's timeout is
    the hang guard, its speed no test's business."""
    result = subprocess.run([sys.executable, "-m", "inlong_proto", "demo", "--out", str(tmp_path)],
                            capture_output=True, text=True, timeout=240)
    assert result.returncode == 0, result.stderr[-3000:]
    for protocol in ("broadcast", "dataproxy", "tubemq", "eventmesh", "eventmesh-http", "eventmesh-grpc"):
        assert f"\n{protocol}: " in result.stdout  # its table's title
    assert "sendMessageP2B" in result.stdout and "HTTP_PUSH_CLIENT_ASYNC" in result.stdout
    assert "Traceback" not in result.stderr and "Exception in callback" not in result.stderr
