"""Issue 27, items 1-4: decode's packet list (-T table, the default on a terminal), its Info column from the
specs' registry/summary, its fit to the terminal, its streaming; -T wide; -p auto by default; inspect's bit
fields under their byte; the progress bar's rule (stderr a terminal, a big regular file)."""
from __future__ import annotations

import fcntl
import io
import json
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path

from inlong_proto.cli.packet_list import PacketList, info
from inlong_proto.core import protocols

ROOT = Path(__file__).resolve().parent.parent
CAPTURE = ROOT / "tests" / "vectors" / "capture" / "dataproxy_lo.pcap"
GRPC = ROOT / "tests" / "vectors" / "capture" / "eventmesh_grpc_lo.pcap"
MIXED = ROOT / "examples" / "data" / "mixed.pcap"
DUMP = ROOT / "examples" / "data" / "dataproxy.bin"
CLI = [sys.executable, "-m", "inlong_proto"]


def on_terminal(*argv: str, columns: int) -> str:
    """The command's stdout as a terminal `columns` wide shows it (a pty, as `script -qc "stty cols N; ..."`)."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    env = {key: value for key, value in os.environ.items() if key not in ("COLUMNS", "LINES")}
    process = subprocess.Popen([*CLI, *argv], stdout=follower, stderr=subprocess.PIPE, env=env)
    os.close(follower)
    out = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the other end closed
            break
        if not chunk:
            break
        out += chunk
    os.close(leader)
    assert process.wait(timeout=60) == 0, process.stderr.read()
    return out.decode().replace("\r\n", "\n")


def test_the_reproducer_is_a_compact_table_on_a_terminal():
    """`script -qc "stty cols 120; inlong-proto decode -p auto -T table dataproxy_lo.pcap"`: six columns, no
    line wider than the terminal, numbers whole, Info from the registry's summary."""
    lines = on_terminal("decode", "-p", "auto", "-T", "table", str(CAPTURE), columns=120).splitlines()
    assert lines[0].split() == ["No.", "Time", "Source", "→", "Destination", "Protocol", "Length", "Info"]
    assert all(len(line) <= 120 for line in lines), max(map(len, lines))
    first = lines[1].split()
    assert first[:2] == ["1", "0.000000"] and first[2] == "127.0.0.1:50002" and first[4] == "127.0.0.1:46801"
    assert first[5:8] == ["dataproxy", "180", "ack_service"] and "group=demo_group" in lines[1]
    assert len(lines) - 1 == len(subprocess.run([*CLI, "decode", str(CAPTURE)], capture_output=True,
                                                 text=True, check=True).stdout.splitlines())


def test_eighty_columns_cut_info_never_numbers():
    """At 80 columns the ends are written short (the ports, both ends being on one host) and Info is cut
    with …; every number is whole. The table is the default on a terminal, and -p auto the default."""
    out = on_terminal("decode", str(MIXED), columns=80)
    lines = out.splitlines()
    assert lines[0].startswith(" No.") and all(len(line) <= 80 for line in lines)
    assert any(line.endswith("…") for line in lines)
    everything = [json.loads(line) for line in subprocess.run([*CLI, "decode", str(MIXED)], capture_output=True,
                                                               text=True, check=True).stdout.splitlines()]
    for line, item in zip(lines[1:], everything):
        cells = line.split()
        assert cells[0] == str(everything.index(item) + 1)
        assert str(item["length"]) in cells and item["protocol"] in cells
    loopback = on_terminal("decode", str(CAPTURE), columns=80).splitlines()
    assert ":50002 → :46801" in loopback[1] and all(len(line) <= 80 for line in loopback)


def test_info_comes_from_the_registry():
    assert set(protocols.SUMMARIES) == set(protocols.REGISTRY)  # every protocol declares its Info
    request = {"protocol": "tubemq", "message_type": "sendMessageP2B", "serial_no": 12,
               "payload": {"message": {"SendMessageRequestP2B": {"topicName": "orders", "partitionId": 0}}}}
    assert info(request) == "sendMessageP2B #12 topic=orders partition=0"
    response = {"protocol": "tubemq", "message_type": "sendMessageP2B", "serial_no": 12,
                "payload": {"header": {"status": "SUCCESS"}, "message": {"SendMessageResponseB2P": {
                    "errCode": 200, "errMsg": "OK!"}}}}
    assert info(response) == "sendMessageP2B #12 → SUCCESS 200 OK!"
    call = {"protocol": "eventmesh-grpc", "message_type": "publish", "kind": "call", "stream_id": 1,
            "status_name": "OK", "status_message": "", "latency_ms": 3.0}
    assert info(call) == "publish call stream 1 → OK 3.0 ms"
    error = {"protocol": "dataproxy", "error": {"kind": "invalid", "reason": "value 9 is outside [1, 2] (Bytes "
                                                "after this field (MsgType byte included). At most 20 MiB - 4, "
                                                "the server's largest limit.)"}}
    assert info(error) == "[invalid] value 9 is outside [1, 2]"


def test_cells_are_escaped():
    out = io.StringIO()
    table = PacketList(out, ["dataproxy"], columns=None)
    table.write([{"protocol": "dataproxy", "offset": 0, "length": 18, "direction": "request\x1b[2J",
                  "base_type": "ack_service", "payload": {"group_id": "g\x1b]0;owned\x07", "stream_id": "s\u202e"}}])
    text = out.getvalue()
    assert "\x1b" not in text and "\u202e" not in text and "\x07" not in text
    assert "group=g\\x1b]0;owned\\x07" in text and "\\u202e" in text


def test_the_table_streams():
    """A row is out as soon as its frame is whole, before the input ends (a pipe in, a pipe out)."""
    data = DUMP.read_bytes()
    process = subprocess.Popen([*CLI, "decode", "-p", "dataproxy", "-T", "table", "-"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        process.stdin.write(data[:200])  # the first two frames and a part of the third
        process.stdin.flush()
        header, first = process.stdout.readline().decode(), process.stdout.readline().decode()
        assert header.split()[:3] == ["No.", "Offset", "Direction"] and first.split()[:2] == ["1", "0"]
    finally:
        process.stdin.close()
        process.wait(timeout=60)


def test_wide_is_the_full_table_and_a_pipe_gets_json_lines():
    wide = subprocess.run([*CLI, "decode", "-T", "wide", str(CAPTURE)], capture_output=True, text=True,
                          check=True).stdout
    assert "flow.client_port" in wide and "message_type" in wide and "…" not in wide
    piped = subprocess.run([*CLI, "decode", str(CAPTURE)], capture_output=True, text=True, check=True).stdout
    assert json.loads(piped.splitlines()[0])["protocol"] == "dataproxy"


def test_inspect_puts_bit_fields_under_their_byte():
    """`inlong-proto inspect dataproxy_lo.pcap | head -8`: the MsgType byte (offset 4) holds auth, encrypted,
    compressed and base_type, each shown with its bits; HTTP/2's flags likewise (offset 4 of a frame)."""
    out = subprocess.run([*CLI, "inspect", str(CAPTURE)], capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()[:8]
    assert lines[3].split()[:2] == ["4", "03"] and lines[3].endswith("0... .... = auth: False")
    assert lines[5].endswith("..0. .... = compressed: False")
    assert lines[6].split()[:2] == ["4", "03"] and lines[6].endswith("...0 0011 = base_type: ack_service (3)")
    assert lines[7].split()[0] == "5"  # the body starts after the MsgType byte
    grpc = subprocess.run([*CLI, "inspect", str(GRPC)], capture_output=True, text=True, check=True).stdout
    assert "       4  00" in grpc and ".... ...0 = end_stream_or_ack: False" in grpc
    assert ".000 0000 0000 0000 0000 0000 0000 0000 = stream_id: 0" in grpc


def test_bit_positions_come_from_the_spec():
    from inlong_proto.generated.codec.dataproxy.dataproxy_request import DataproxyRequest

    assert DataproxyRequest.BITS == {"auth": ("auth", 0, 1), "encrypted": ("auth", 1, 1),
                                     "compressed": ("auth", 2, 1), "base_type": ("auth", 3, 5)}


def test_a_progress_bar_only_for_a_big_file_on_a_terminal(tmp_path, monkeypatch):
    from inlong_proto.cli import progress

    big = tmp_path / "big.bin"
    big.write_bytes(bytes(progress.PROGRESS_MIN))
    small = tmp_path / "small.bin"
    small.write_bytes(b"x")
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False, raising=False)
    assert progress.wanted(str(big)) is None  # stderr is not a terminal: never
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    assert progress.wanted(str(big)) == progress.PROGRESS_MIN
    assert progress.wanted(str(small)) is None and progress.wanted("-") is None
    assert progress.wanted(str(big), follow=True) is None
    assert list(progress.with_progress(iter([b"a", None, b"b"]), str(small))) == [b"a", None, b"b"]


def test_every_command_reading_a_file_through_draws_the_bar(monkeypatch):
    """decode (each of its paths), inspect, capture, tubemq calls and audit each advance a big file's bar by what
    they read (the bar wherever progress.wanted allows it: here every file, stderr being CliRunner's)."""
    from contextlib import contextmanager

    from click.testing import CliRunner

    from inlong_proto.cli import main, progress

    read: dict[str, int] = {}

    class Bar:
        def advance(self, task, size):
            read[task] = read.get(task, 0) + size

        def update(self, task, completed):
            read[task] = completed

    @contextmanager
    def bar(path, size):
        yield Bar(), path

    monkeypatch.setattr(progress, "wanted", lambda path, follow=False: None if path == "-" else os.path.getsize(path))
    monkeypatch.setattr(progress, "_bar", bar)
    tubemq = ROOT / "examples" / "data" / "tubemq.bin"
    for argv, path in ((["decode"], DUMP), (["decode", "-T", "table"], DUMP), (["decode"], MIXED),
                       (["decode", "-T", "table", "-p", "dataproxy"], CAPTURE), (["inspect"], DUMP),
                       (["inspect"], MIXED), (["capture"], MIXED), (["tubemq", "calls"], tubemq),
                       (["audit"], MIXED), (["audit", "-p", "dataproxy"], DUMP)):
        read.clear()
        result = CliRunner().invoke(main, [*argv, str(path)])
        assert result.exit_code == 0, result.output
        assert list(read) == [str(path)] and 0 < read[str(path)] <= path.stat().st_size, (argv, path.name, read)


def test_the_tours_show_the_table_decode_prints():
    """The README's tour, the tutorial and the CLI reference show the packet list as `decode -T table
    examples/data/mixed.pcap` prints it now (into a pipe: nothing cut)."""
    import re

    printed = subprocess.run([*CLI, "decode", "-T", "table", str(MIXED)], capture_output=True, text=True,
                             check=True).stdout.splitlines()
    for page in ("README.md", "docs/tutorials/tour.md", "docs/reference/cli.md"):
        (shown,) = re.findall(r"^```text\n( No\. .*?)^```", (ROOT / page).read_text(), re.S | re.M)
        lines = shown.splitlines()
        assert len(lines) >= 4 and lines == printed[:len(lines)], page


def test_the_other_tables_right_align_numbers():
    """In -T wide (cli.output.Table, which audit's and tubemq calls' tables are too) a column of numbers only is
    right-aligned."""
    wide = subprocess.run([*CLI, "decode", "-T", "wide", "-p", "dataproxy", "-e", "protocol", "-e", "offset",
                           "-e", "length", str(DUMP)], capture_output=True, text=True, check=True).stdout
    header = next(line for line in wide.splitlines() if line.startswith("┃")).split("┃")[1:-1]
    rows = [line.split("│")[1:-1] for line in wide.splitlines() if line.startswith("│")]
    assert [cell.strip() for cell in header] == ["protocol", "offset", "length"]
    assert rows[0][0] == " dataproxy " and rows[0][1] == " " * (len(header[1]) - 2) + "0 "
    assert all(row[2].startswith("  ") and row[2].strip().isdigit() for row in rows)
