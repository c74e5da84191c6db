"""The CLI as a user runs it: a subprocess, JSON lines out, one clear line on errors."""
import json
import subprocess
import sys
from datetime import datetime

import inlong_proto
from inlong_proto.generated.codec.broadcast import broadcast_frame as bf

REQUEST = inlong_proto.encode(bf.BroadcastFrame(body=bf.DataRequest(last_timestamp=datetime(2026, 1, 2), last_data=3)))
RESPONSE = inlong_proto.encode(bf.BroadcastFrame(body=bf.DataResponse(
    status=bf.Status.history, timestamp=datetime(2026, 1, 2, 3, 4, 5, 6000), data=7)))


def run(*args, stdin=b""):
    return subprocess.run([sys.executable, "-m", "inlong_proto", *args], input=stdin, capture_output=True,
                          timeout=120)


def test_decode_prints_json_lines(tmp_path):
    dump = tmp_path / "dump.bin"
    dump.write_bytes(REQUEST + RESPONSE)
    result = run("decode", "--protocol", "broadcast", str(dump))
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.decode().splitlines()]
    assert [line["message_type"] for line in lines] == ["data_request", "data_response"]
    assert lines[1]["body"]["data_response"] == {"status": "history", "timestamp": "2026-01-02 03:04:05.006",
                                                 "data": 7}


def test_decode_failfast_error_is_one_line_without_traceback(tmp_path):
    dump = tmp_path / "bad.bin"
    dump.write_bytes(REQUEST + b"\x00\x00\x00\x25\x00\x00\x00\x07" + b"x" * 29)
    result = run("decode", "-p", "broadcast", str(dump))
    assert result.returncode == 1
    assert result.stdout.decode().count("\n") == 1  # the good frame was printed first
    err = result.stderr.decode().strip()
    assert "\n" not in err and "Traceback" not in err
    assert "offset 41" in err and "command_id" in err and str(dump) in err


def test_decode_permissive_reports_error_spans(tmp_path):
    dump = tmp_path / "bad.bin"
    dump.write_bytes(b"??" + RESPONSE)
    result = run("decode", "-p", "broadcast", "--mode", "permissive", str(dump))
    lines = [json.loads(line) for line in result.stdout.decode().splitlines()]
    assert lines[0]["error"]["kind"] == "truncated" or lines[0]["length"] == 2
    assert lines[1]["offset"] == 2 and lines[1]["message_type"] == "data_response"


def test_direction_filter_and_missing_file(tmp_path):
    dump = tmp_path / "dump.bin"
    dump.write_bytes(REQUEST)
    assert run("decode", "-p", "broadcast", "-d", "response", str(dump)).returncode == 1
    missing = run("decode", "-p", "broadcast", str(tmp_path / "nope.bin"))
    assert missing.returncode == 1 and b"Traceback" not in missing.stderr


def test_encode_reads_what_decode_prints(tmp_path):
    dump = tmp_path / "dump.bin"
    dump.write_bytes(REQUEST + RESPONSE)
    decoded = run("decode", "-p", "broadcast", str(dump)).stdout
    encoded = run("encode", "-p", "broadcast", stdin=decoded)
    assert encoded.returncode == 0, encoded.stderr
    assert encoded.stdout == REQUEST + RESPONSE


def test_encode_rejects_bad_records():
    result = run("encode", "-p", "broadcast", stdin=b'{"body": {"data_request": {"last_timestamp": '
                                                    b'"2026-01-01 00:00:00.000", "last_data": 100}}}\n')
    assert result.returncode == 1 and b"last_data" in result.stderr and b"Traceback" not in result.stderr


def test_inspect_annotates_every_field(tmp_path):
    dump = tmp_path / "dump.bin"
    dump.write_bytes(RESPONSE + b"zz")
    result = run("inspect", "-p", "broadcast", str(dump))
    text = result.stdout.decode()
    assert result.returncode == 0, result.stderr
    assert "       0  00 00 00 26" in text and "total_length = 38" in text
    assert "status = history (49)" in text and "month = 1" in text and "data = 7" in text
    assert "      38  MALFORMED 2 bytes" in text


def test_protocols_and_version():
    assert "broadcast" in run("protocols").stdout.decode().split()
    assert run("--version").returncode == 0
