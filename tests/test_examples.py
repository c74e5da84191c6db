"""examples/analyse_dumps.py end to end: its printed and saved answers equal what plain Python
(iter_capture_frames, records, pair_calls; no Spark) computes from the captures it generated, and its
figure is a real PNG."""
import csv
import os
import struct
import subprocess
import sys
from collections import Counter, defaultdict
from datetime import datetime, timezone
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from inlong_proto.capture import iter_capture_frames
from inlong_proto.dataproxy.payload import payload
from inlong_proto.dataproxy.records import records
from inlong_proto.tubemq.rpc import pair_calls

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """(output folder, stdout) of one run of the example."""
    out = tmp_path_factory.mktemp("analysis")
    # A short-lived JVM on few cores spends far less CPU warming up with the C1 compiler only.
    env = {**os.environ, "JDK_JAVA_OPTIONS": "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"}
    result = subprocess.run([sys.executable, str(EXAMPLES / "analyse_dumps.py"), "--out", str(out)],
                            capture_output=True, text=True, timeout=240, cwd=out, env=env)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return out, result.stdout


def table(path: Path) -> list[dict]:
    with open(path, newline="") as file:
        return list(csv.DictReader(file))


def minute(at: datetime) -> str:
    """The text pandas writes for the UTC minute holding `at`."""
    return at.astimezone(timezone.utc).replace(tzinfo=None, second=0, microsecond=0).isoformat(sep=" ")


@cache
def items(folder: Path) -> tuple:
    """(file name, CaptureFrame) of every frame of every capture the example wrote (FAILFAST: none is bad)."""
    return tuple((path.name, item) for path in sorted((folder / "captures").glob("*.pcap"))
                 for item in iter_capture_frames(path.read_bytes(), "auto", "FAILFAST"))


def flat(stdout: str) -> str:
    return " ".join(stdout.split())


def test_rates_per_group_and_stream(run):
    out, stdout = run
    expected = Counter()
    for _, item in items(out):
        if item.frame.protocol == "dataproxy" and item.direction == "request":
            for _, record in records([item.frame]):
                expected[minute(item.timestamp), record.group_id, record.stream_id] += 1
    found = {(row["minute"], row["group_id"], row["stream_id"]): int(row["records"]) for row in table(out / "rates.csv")}
    assert found == expected
    assert {group for _, group, _ in expected} == {"orders", "clicks", "logs"}
    totals = Counter()
    for (_, group, stream), count in expected.items():
        totals[group, stream] += count
    for (group, stream), total in totals.items():
        assert f" {group} {stream} {total} " in flat(stdout), (group, stream, total)


def tubemq_calls(out: Path) -> list:
    by_flow = defaultdict(list)
    for name, item in items(out):
        if item.frame.protocol == "tubemq":
            by_flow[name, item.flow.number].append(item)
    # nanoseconds: exact, where float seconds since 1970 would blur microseconds
    return [call for flow in by_flow.values()
            for call in pair_calls([item.frame for item in flow], [item.timestamp_ns for item in flow])]


def test_tubemq_latency_by_method(run):
    out, stdout = run
    latencies, failed = defaultdict(list), Counter()
    for call in tubemq_calls(out):
        latencies[call.method].append(call.latency / 1e6)
        failed[call.method] += call.failed
    rows = {row["method"]: row for row in table(out / "latency.csv")}
    assert rows.keys() == latencies.keys() and len(rows) == 5
    for method, values in latencies.items():
        row = rows[method]
        p50, p95 = np.percentile(values, [50, 95])  # linear interpolation, as Spark's percentile()
        assert (int(row["calls"]), int(row["failed"]), int(row["unanswered"])) == (len(values), failed[method], 0)
        assert float(row["p50_ms"]) == pytest.approx(p50, rel=1e-9)
        assert float(row["p95_ms"]) == pytest.approx(p95, rel=1e-9)
        assert f"{method} {len(values)} {failed[method]} 0 {p50:.2f} {p95:.2f}" in flat(stdout)
    assert failed["producerHeartbeatP2M"] > 0  # the master fail-over


def answer_codes(out: Path):
    """(protocol, client, capture time, code) of every DataProxy batch answer and EventMesh publish ack."""
    for _, item in items(out):
        frame = item.frame
        if frame.protocol == "dataproxy" and frame.message_type == "bin_response":
            yield "dataproxy", item.flow.client, item.timestamp, int(payload(frame).error_code)
        elif frame.protocol == "eventmesh" and frame.message_type == "ASYNC_MESSAGE_TO_SERVER_ACK":
            yield "eventmesh", item.flow.client, item.timestamp, frame.payload.header.code


def test_error_codes_per_minute(run):
    out, stdout = run
    expected = Counter((minute(at), protocol, code) for protocol, _, at, code in answer_codes(out))
    found = {(row["minute"], row["protocol"], int(row["code"])): int(row["responses"])
             for row in table(out / "errors.csv")}
    assert found == expected
    assert {code for _, _, code in expected} == {0, 1, 114}
    refused = sum(count for (_, protocol, code), count in expected.items() if protocol == "eventmesh" and code)
    assert f"Abnormal propKey: traceId {refused}" in flat(stdout)


def test_clients(run):
    out, stdout = run
    connections, frames, sent, streams = defaultdict(set), Counter(), Counter(), defaultdict(set)
    for name, item in items(out):
        if item.direction == "request":
            key = item.flow.client, item.frame.protocol
            connections[key].add((name, item.flow.number))
            frames[key] += 1
            sent[key] += item.frame.length
            streams[key].update(f"{r.group_id}/{r.stream_id}" for _, r in records([item.frame]))
    refused = Counter((client, protocol) for protocol, client, _, code in answer_codes(out) if code)
    for _, item in items(out):
        if item.frame.protocol == "tubemq" and item.direction == "response" and item.frame.payload.exception:
            refused[item.flow.client, "tubemq"] += 1
    found = {(row["client"], row["protocol"]): (int(row["connections"]), int(row["frames"]), int(row["bytes"]),
                                                row["streams"], int(row["refused"]))
             for row in table(out / "clients.csv")}
    assert found == {key: (len(connections[key]), frames[key], sent[key], " ".join(sorted(streams[key])),
                           refused[key]) for key in frames}
    assert [int(row["bytes"]) for row in table(out / "clients.csv")] == sorted(sent.values(), reverse=True)
    assert len({client for client, _ in found}) == 7 and refused[("10.2.0.7", "tubemq")] > 0
    top = max(sent, key=sent.get)
    assert f"{top[0]} {top[1]} {len(connections[top])} {frames[top]} {sent[top]}" in flat(stdout)


def test_figure_is_a_png(run):
    out, _ = run
    data = (out / "analysis.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (990, 1440)  # 11 x 16 inches at 90 dpi
    assert len(data) > 40_000  # four drawn panels, not an empty canvas


def test_make_dumps_parses_its_arguments(tmp_path):
    """Issue 13: `make_dumps.py --help` created a folder named --help."""
    import subprocess
    import sys

    script = Path(__file__).resolve().parent.parent / "examples" / "make_dumps.py"
    done = subprocess.run([sys.executable, str(script), "--help"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0 and "usage:" in done.stdout and not list(tmp_path.iterdir())
