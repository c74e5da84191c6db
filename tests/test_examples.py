"""examples/analyse_dumps.py end to end: its printed and saved answers equal what plain Python (iter_frames,
records, pair_calls; no Spark) computes from the dumps it generated, and its figure is a real PNG."""
import csv
import os
import struct
import subprocess
import sys
from collections import Counter, defaultdict
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pytest

from inlong_proto import iter_frames
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


def minute(at: datetime | float) -> str:
    """The text pandas writes for the minute holding `at` (a naive UTC datetime or epoch seconds)."""
    if not isinstance(at, datetime):
        at = datetime.fromtimestamp(at, timezone.utc).replace(tzinfo=None)
    return at.replace(second=0, microsecond=0).isoformat(sep=" ")


def frames(dumps: Path, folder: str, protocol: str, direction=None):
    """(file relative to dumps, frame) of every frame under dumps/folder."""
    for path in sorted((dumps / folder).glob("*.bin")):
        for frame in iter_frames(path.read_bytes(), protocol, direction, "FAILFAST"):
            yield path.relative_to(dumps).as_posix(), frame


def capture_times(dumps: Path) -> dict[tuple[str, int], float]:
    return {(row["file"], int(row["offset"])): float(row["time"]) for row in table(dumps / "capture_times.csv")}


def test_rates_per_group_and_stream(run):
    out, stdout = run
    expected = Counter()
    for _, frame in frames(out / "dumps", "dataproxy/requests", "dataproxy", "request"):
        for _, record in records([frame]):
            expected[minute(record.data_time), record.group_id, record.stream_id] += 1
    found = {(row["minute"], row["group_id"], row["stream_id"]): int(row["records"]) for row in table(out / "rates.csv")}
    assert found == expected
    assert {group for _, group, _ in expected} == {"orders", "clicks", "logs"}
    totals = Counter()
    for (_, group, stream), count in expected.items():
        totals[group, stream] += count
    for (group, stream), total in totals.items():
        assert f" {group} {stream} {total} " in " ".join(stdout.split()), (group, stream, total)


def test_tubemq_latency_by_method(run):
    out, stdout = run
    dumps = out / "dumps"
    times = capture_times(dumps)
    by_file = defaultdict(list)
    for file, frame in frames(dumps, "tubemq", "tubemq"):
        by_file[file].append(frame)
    latencies, failed = defaultdict(list), Counter()
    for file, connection in by_file.items():
        for call in pair_calls(connection, [times[file, frame.offset] for frame in connection]):
            latencies[call.method].append(call.latency * 1000)
            failed[call.method] += call.failed
    rows = {row["method"]: row for row in table(out / "latency.csv")}
    assert rows.keys() == latencies.keys() and len(rows) == 5
    for method, values in latencies.items():
        row = rows[method]
        p50, p95 = np.percentile(values, [50, 95])  # linear interpolation, as Spark's percentile()
        assert (int(row["calls"]), int(row["failed"]), int(row["unanswered"])) == (len(values), failed[method], 0)
        assert float(row["p50_ms"]) == pytest.approx(p50, rel=1e-9)
        assert float(row["p95_ms"]) == pytest.approx(p95, rel=1e-9)
        line = f"{method} {len(values)} {failed[method]} 0 {p50:.2f} {p95:.2f}"
        assert line in " ".join(stdout.split()), line
    assert failed["producerHeartbeatP2M"] > 0  # the master fail-over


def test_error_codes_per_minute(run):
    out, stdout = run
    dumps = out / "dumps"
    expected = Counter()
    for _, frame in frames(dumps, "dataproxy/responses", "dataproxy", "response"):
        if frame.message_type == "bin_response":
            content = payload(frame)
            expected[minute(int(content.attr("rtms")) / 1000), "dataproxy", int(content.error_code)] += 1
    times = capture_times(dumps)
    refused = 0
    for file, frame in frames(dumps, "eventmesh", "eventmesh"):
        if frame.message_type == "ASYNC_MESSAGE_TO_SERVER_ACK":
            code = frame.payload.header.code
            expected[minute(times[file, frame.offset]), "eventmesh", code] += 1
            refused += code != 0
    found = {(row["minute"], row["protocol"], int(row["code"])): int(row["responses"])
             for row in table(out / "errors.csv")}
    assert found == expected
    assert {code for _, _, code in expected} == {0, 1, 114}
    assert f"Abnormal propKey: traceId {refused}" in " ".join(stdout.split())


def test_figure_is_a_png(run):
    out, _ = run
    data = (out / "analysis.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (990, 1080)  # 11 x 12 inches at 90 dpi
    assert len(data) > 30_000  # three drawn panels, not an empty canvas
