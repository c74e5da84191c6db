"""--max-frame-size (issue 27, item 3): a valid DataProxy frame over the spec's 64 KiB limit (a 200 KB MsgType 7
request built by dataproxy.builders.bin_request) is refused by default everywhere, and read whole wherever the
limit can be raised: the CLI's decode, inspect and capture, the capture readers (CaptureDecoder,
iter_capture_frames). Above the ceiling (64 MiB) the option is one clear error."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

import inlong_proto
from inlong_proto.capture import CaptureDecoder, iter_capture_frames
from inlong_proto.capture.writer import Conversation, pcap_file
from inlong_proto.core import frames
from inlong_proto.dataproxy.builders import bin_request

BIG = inlong_proto.encode(bin_request([b"x" * 1000] * 200, group_id="g", stream_id="s", data_time_ms=1_700_000_000_000,
                                      unique_id=1, report_time_ms=None))
LIMIT = str(256 << 10)


def _pcap(port: int = 46801) -> bytes:
    conv = Conversation(("10.0.0.1", 40000), ("10.0.0.2", port))
    return pcap_file(conv.open(0) + conv.send("client", BIG, 10**6) + conv.close(2 * 10**6))


def cli(*args):
    return subprocess.run([sys.executable, "-m", "inlong_proto", *args], capture_output=True, text=True, timeout=120)


def test_the_frame_is_over_the_spec_limit():
    assert 65536 < len(BIG) < 256 << 10
    with pytest.raises(inlong_proto.DecodeError, match="over max_frame_size 65536"):
        list(frames.iter_frames(BIG, "dataproxy"))
    assert [f.length for f in frames.iter_frames(BIG, "dataproxy", max_frame_size=1 << 20)] == [len(BIG)]


@pytest.mark.parametrize("kind", ["dump", "capture"])
def test_decode(kind, tmp_path):
    path = tmp_path / ("big.bin" if kind == "dump" else "big.pcap")
    path.write_bytes(BIG if kind == "dump" else _pcap())
    refused = cli("decode", "-p", "dataproxy" if kind == "dump" else "auto", str(path))
    assert refused.returncode == 1 and "over max_frame_size 65536" in refused.stderr
    done = cli("decode", "-p", "dataproxy" if kind == "dump" else "auto", "--max-frame-size", "256k", str(path))
    assert done.returncode == 0, done.stderr
    (row,) = [json.loads(line) for line in done.stdout.splitlines()]
    assert (row["length"], row["message_type"], row.get("error")) == (len(BIG), "bin_message", None)


@pytest.mark.parametrize("kind", ["dump", "capture"])
def test_inspect(kind, tmp_path):
    path = tmp_path / ("big.bin" if kind == "dump" else "big.pcap")
    path.write_bytes(BIG if kind == "dump" else _pcap())
    assert "over max_frame_size 65536" in cli("inspect", "-p", "dataproxy" if kind == "dump" else "auto",
                                              str(path)).stdout
    done = cli("inspect", "-p", "dataproxy" if kind == "dump" else "auto", "--max-frame-size", LIMIT, str(path))
    assert done.returncode == 0, done.stderr
    assert f"frame bin_message (request), {len(BIG)} bytes" in done.stdout
    assert "over max_frame_size" not in done.stdout


def test_capture_summary(tmp_path):
    path = tmp_path / "big.pcap"
    path.write_bytes(_pcap())
    done = cli("capture", "--max-frame-size", "1m", str(path))
    assert done.returncode == 0, done.stderr
    row = [line for line in done.stdout.splitlines() if "dataproxy" in line][0].split("│")
    assert [cell.strip() for cell in row[6:9]] == ["0", "1", "0"]  # bytes back, frames, errors


def test_capture_readers():
    data = _pcap()
    assert [i.frame.error is not None for i in iter_capture_frames(data, "auto", "PERMISSIVE")][0]
    (item,) = iter_capture_frames(data, "auto", "PERMISSIVE", max_frame_size=1 << 20)
    assert (item.frame.length, item.frame.error) == (len(BIG), None)
    decoder = CaptureDecoder("dataproxy", "FAILFAST", max_frame_size=1 << 20)
    items = decoder.feed(data) + decoder.close()
    assert [i.frame.length for i in items] == [len(BIG)]


@pytest.mark.parametrize("command", [["decode"], ["inspect"], ["capture"], ["tubemq", "calls"]])
@pytest.mark.parametrize("value, reason", [("65m", "out of range: 1 to 67108864 bytes"), ("0", "out of range"),
                                           ("lots", "not a number of bytes")])
def test_bad_values_are_one_clear_error(command, value, reason, tmp_path):
    path = tmp_path / "big.bin"
    path.write_bytes(BIG)
    done = cli(*command, "--max-frame-size", value, str(path))
    assert done.returncode == 2 and reason in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


@pytest.mark.parametrize("command, smallest", [(["dataproxy", "serve"], 5), (["tubemq", "broker"], 16),
                                               (["tubemq", "master"], 16)])
def test_the_servers_take_the_readers_values(command, smallest):
    """The reference servers' --max-frame-size reads as the readers' (k/m suffixes, the 64 MiB ceiling), above
    the protocol's smallest frame."""
    from inlong_proto.cli import main
    from inlong_proto.cli.options import FrameSize

    server = main
    for name in command:
        server = server.commands[name]
    option = next(param for param in server.params if param.name == "max_frame_size")
    assert isinstance(option.type, FrameSize) and option.type.minimum == smallest
    assert option.type.convert("256k", option, None) == 256 << 10 and option.type.convert("4m", None, None) == 4 << 20
    for value, reason in [("65m", "out of range"), (str(smallest - 1), f"smallest frame, {smallest} bytes"),
                          ("lots", "not a number of bytes")]:
        done = cli(*command, "--max-frame-size", value)
        assert done.returncode == 2 and reason in done.stderr and "Traceback" not in done.stderr, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_the_python_readers_check_the_ceiling():
    with pytest.raises(ValueError, match="out of range"):
        CaptureDecoder("auto", max_frame_size=(64 << 20) + 1)
    assert frames.check_max_frame_size(64 << 20) == 64 << 20 and frames.check_max_frame_size(None) is None


@pytest.mark.parametrize("kind", ["dump", "capture"])
def test_spark_readers(kind, tmp_path, spark):
    """format("inlong")'s maxFrameSize option and read_dumps' max_frame_size: the same frame, refused by
    default as a malformed span, read whole when raised; a value over the ceiling is refused up front."""
    from inlong_proto.spark.dumps import read_dumps
    from inlong_proto.spark.source import register

    register(spark)
    path = tmp_path / ("big.bin" if kind == "dump" else "big.pcap")
    path.write_bytes(BIG if kind == "dump" else _pcap())
    reader = spark.read.format("inlong").option("protocol", "dataproxy")
    refused = reader.load(str(path)).collect()
    assert refused and all(row.error is not None for row in refused)  # a malformed span, cut in pieces
    assert "over max_frame_size 65536" in refused[0].error
    for rows in (reader.option("maxFrameSize", "256k").load(str(path)).collect(),
                 read_dumps(spark, str(path), "dataproxy", max_frame_size=256 << 10).collect()):
        assert [(row.length, row.message_type, row.error) for row in rows] == [(len(BIG), "bin_message", None)]
    with pytest.raises(Exception, match="maxFrameSize"):
        reader.option("maxFrameSize", "1g").load(str(path)).collect()


def test_spark_parse_and_ingest(tmp_path, spark):
    """spark parse and spark ingest take --max-frame-size to the readers' maxFrameSize: the frame is an error
    span by default and one frame when raised."""
    import os

    from click.testing import CliRunner

    from inlong_proto.cli import main
    from inlong_proto.spark import ingestion, job

    source = tmp_path / "dumps"
    source.mkdir()
    (source / "big.bin").write_bytes(BIG)
    os.utime(source / "big.bin", (1, 1))  # complete long ago, for ingest
    assert job.parse(spark, str(source), str(tmp_path / "default"), protocol="dataproxy")[0][3] > 0  # error spans
    assert job.parse(spark, str(source), str(tmp_path / "raised"), protocol="dataproxy", max_frame_size=256 << 10) \
        == [("dataproxy", "bin_message", 1, 0, len(BIG))]
    query = ingestion.ingest(spark, str(source), str(tmp_path / "table"), str(tmp_path / "checkpoint"),
                             protocol="dataproxy", max_frame_size=256 << 10)
    query.awaitTermination(240)
    rows = spark.read.parquet(str(tmp_path / "table")).collect()
    assert [(row.length, row.error) for row in rows] == [(len(BIG), None)]
    seen, runner = [], CliRunner()
    with pytest.MonkeyPatch.context() as patch:  # the commands pass the option on
        patch.setattr(job, "run", lambda *args, **options: seen.append(options["max_frame_size"]) or [])
        patch.setattr(ingestion, "run", lambda *args, **options: seen.append(options["max_frame_size"]) or {})
        assert runner.invoke(main, ["spark", "parse", "--max-frame-size", "256k", str(source), "out"]).exit_code == 0
        assert runner.invoke(main, ["spark", "ingest", "--max-frame-size", "1m", str(source), "--to", "t",
                                    "--checkpoint", "c", "--once"]).exit_code == 0
    assert seen == [256 << 10, 1 << 20]
