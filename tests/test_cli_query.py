"""decode -e / -Y / -T / --records (issue 13, item 2): the filter language, the paths known from the specs,
each output format through the CLI, and exit status 2 with one error line for what cannot be done."""
from __future__ import annotations

import csv
import io
import json
import subprocess
import sys

import pytest

from inlong_proto.cli.query import Filter, QueryError, check_known, field_path, known_tree
from tests.vectors import ROOT, mixed_capture

CAPTURE = ROOT / "capture" / "dataproxy_lo.pcap"
DUMP = ROOT / "capture" / "dataproxy_lo.server.bin"  # what the server received: requests

RECORD = {"protocol": "dataproxy", "offset": 7, "message_type": "text_message", "error": None,
          "payload": {"group_id": "demo_group", "record_count": 5, "attrs": [["dt", "1"], ["cnt", "5"]],
                      "records": [{"data": "a"}, {"data": "b"}]},
          "flow": {"client": "10.0.0.1", "server_port": 46801}, "stream": "request"}


@pytest.mark.parametrize("expression, expected", [
    ('message_type == "text_message"', True),
    ('message_type eq "text_message"', True),
    ('message_type != "text_message"', False),
    ("payload.record_count > 3 and flow.server_port == 46801", True),
    ("payload.record_count > 3 && flow.server_port < 1000", False),
    ("payload.record_count >= 5 || protocol == 'broadcast'", True),
    ("offset ge 7 and offset le 7 and offset gt 6 and offset lt 8 and offset ne 8", True),
    ("not exists error", True),
    ("!error", True),
    ("error", False),
    ("payload.group_id", True),
    ("payload.nothing", False),
    ('payload.group_id contains "mo_g"', True),
    ('payload.group_id matches "^demo_"', True),
    ('payload.group_id matches "^group"', False),
    ('payload.records.data == "b"', True),  # through a list: any element
    ('payload.records.data != "b"', False),  # != holds only when every value differs
    ('payload.records[0].data == "b"', False),
    ('payload.attrs contains "cnt"', True),
    ("flow.server_port in (8123, 46801)", True),
    ("flow.server_port not in (8123, 46801)", False),
    ('offset == "7"', False),  # text and numbers are never equal
    ("offset > 'a'", False),  # nor ordered
    ("payload.nothing != 3", False),  # a missing value satisfies no comparison
    ("(offset == 1 or offset == 7) and stream == 'request'", True),
    ("offset == -1", False),
    ("true", True),
])
def test_filter_language(expression, expected):
    assert Filter(expression)(RECORD) is expected


@pytest.mark.parametrize("expression, message", [
    ("offset ==", "cannot parse"),
    ("offset & 1", "not an operator"),
    ("offset + 1 == 2", r"unexpected '\+' at column 8"),
    ("__import__('os').system('true')", "not a test"),
    ("offset.real()", "not a test"),
    ("offset == flow", None),  # two paths compared is allowed
    ("'a' == 'a'", None),
    ("7", "not a test"),
    ("offset in 7", "'in' takes a list"),
    ('payload.group_id matches "("', "bad regular expression"),
    ("offset contains flow", "contains takes a literal"),
    ("lambda: 1", "unexpected ':'"),
    ("[x for x in offset]", "unexpected 'for'|not a test|cannot"),
])
def test_filter_errors(expression, message):
    if message is None:
        Filter(expression)
        return
    with pytest.raises(QueryError, match=message):
        Filter(expression)


def test_field_paths_pick_values():
    assert field_path("payload.group_id").pick(RECORD) == "demo_group"
    assert field_path("payload.records.data").pick(RECORD) == ["a", "b"]  # through a list: a list
    assert field_path("payload.records[1].data").pick(RECORD) == "b"
    assert field_path("payload.attrs[0]").pick(RECORD) == ["dt", "1"]
    assert field_path("payload.nothing").pick(RECORD) is None
    with pytest.raises(QueryError, match="not a field path"):
        field_path("a == 1")


def _leaf_paths(value, prefix=()):
    if isinstance(value, dict) and value:
        for key, item in value.items():
            yield from _leaf_paths(item, prefix + (key,))
    elif isinstance(value, list) and value:
        for item in value:
            yield from _leaf_paths(item, prefix + (0,))
    else:
        yield prefix


def test_every_path_decode_prints_is_known():
    """Every leaf of the JSON of every frame (with its payload) of every protocol's vectors, read from one
    capture, passes the static check: the known paths come from the specs and the payload classes'
    JSON_KEYS, and they are complete."""
    from inlong_proto.capture import iter_capture_frames
    from inlong_proto.cli.commands import Selection

    data, _ = mixed_capture()
    selection = Selection("auto", (), None, False, True)
    trees = {}
    seen = set()
    for item in iter_capture_frames(data, "auto", "PERMISSIVE"):
        record = selection._frame_dict(item, "PERMISSIVE")
        protocol = item.frame.protocol
        seen.add(protocol)
        for parts in _leaf_paths(record):
            text = ".".join(str(p) if isinstance(p, str) else "[0]" for p in parts).replace(".[", "[")
            for name in {protocol, "auto"} - {"capture", "unknown", "eventmesh-grpc"}:
                tree = trees.setdefault(name, known_tree(name))
                check_known(field_path(text), tree, name)
    assert {"dataproxy", "tubemq", "eventmesh", "broadcast", "eventmesh-http"} <= seen


def test_unknown_paths_name_what_is_there():
    with pytest.raises(QueryError, match="body has bin_heartbeat, bin_message"):
        check_known(field_path("body.text_mesage.attr"), known_tree("dataproxy"), "dataproxy")
    with pytest.raises(QueryError, match="payload has .*group_id"):
        check_known(field_path("payload.grup_id"), known_tree("dataproxy"), "dataproxy")
    with pytest.raises(QueryError, match="the top level has"):
        check_known(field_path("serial"), known_tree("tubemq"), "tubemq")
    check_known(field_path("serial_no"), known_tree("tubemq"), "tubemq")
    check_known(field_path("group_id"), known_tree("dataproxy", records=True), "dataproxy")


# ------------------------------------------------------------------------------------------ the CLI
def cli(*args, check=True):
    return subprocess.run([sys.executable, "-m", "inlong_proto", *args], capture_output=True, text=True,
                          check=check)


def test_fields_as_json_lines():
    out = cli("decode", "-p", "dataproxy", "-d", "request", "-e", "offset", "-e", "payload.group_id", str(DUMP)).stdout
    rows = [json.loads(line) for line in out.splitlines()]
    assert rows[0] == {"offset": 0, "payload.group_id": "demo_group"}
    assert all(list(row) == ["offset", "payload.group_id"] for row in rows)


def test_filter_and_csv_on_a_capture():
    out = cli("decode", "-p", "auto", "-Y", 'stream == "request" and message_type == "text_message"', "-T", "csv",
              "-e", "timestamp", "-e", "flow.client_port", "-e", "payload.message_id", str(CAPTURE)).stdout
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["timestamp", "flow.client_port", "payload.message_id"]
    assert len(rows) > 2 and all(row[1] == rows[1][1] and row[2] for row in rows[1:])
    everything = [json.loads(line) for line in cli("decode", "-p", "auto", str(CAPTURE)).stdout.splitlines()]
    expected = [r for r in everything if r["stream"] == "request" and r["message_type"] == "text_message"]
    assert len(rows) - 1 == len(expected)


def test_default_columns_table_and_json():
    table = cli("decode", "-p", "auto", "-T", "wide", str(CAPTURE)).stdout  # the full table of every column
    assert "flow.server_port" in table and "message_type" in table and "46801" in table
    assert "…" not in table  # full width into a pipe
    packets = cli("decode", "-T", "table", str(CAPTURE)).stdout.splitlines()  # the packet list (test_cli_table)
    assert packets[0].split()[:3] == ["No.", "Time", "Source"] and "…" not in "".join(packets)
    array = json.loads(cli("decode", "-p", "auto", "-T", "json", "-e", "offset", str(CAPTURE)).stdout)
    assert array and all(list(item) == ["offset"] for item in array)
    assert json.loads(cli("decode", "-p", "auto", "-T", "json", "-Y", "offset < 0", str(CAPTURE)).stdout) == []


def test_parquet(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    target = tmp_path / "frames.parquet"
    with open(target, "wb") as handle:
        subprocess.run([sys.executable, "-m", "inlong_proto", "decode", "-p", "auto", "-T", "parquet", "-e",
                        "offset", "-e", "flow.server_port", "-e", "payload.group_id", str(CAPTURE)],
                       stdout=handle, check=True)
    table = pq.read_table(target)
    assert table.column_names == ["offset", "flow.server_port", "payload.group_id"]
    assert set(table.column("flow.server_port").to_pylist()) == {46801}
    assert str(table.schema.field("offset").type) == "int64"


def test_records_one_line_per_record():
    out = cli("decode", "-p", "auto", "--records", "-e", "group_id", "-e", "data", "-e", "attributes",
              "-e", "flow.client_port", str(CAPTURE)).stdout
    rows = [json.loads(line) for line in out.splitlines()]
    from inlong_proto import iter_frames
    from inlong_proto.dataproxy import iter_records

    requests = DUMP.read_bytes()
    expected = [record for _, record in iter_records(iter_frames(requests, "dataproxy", "request", mode="PERMISSIVE"),
                                                    on_error="skip")]
    good = [row for row in rows if row["data"] is not None]
    assert [row["data"] for row in good] == [r.data.decode() for r in expected]
    assert all(row["group_id"] == "demo_group" and row["flow.client_port"] for row in good)


@pytest.mark.parametrize("args, message", [
    (["-Y", "offset =="], "cannot parse the filter"),
    (["-e", "payload.grup_id"], "unknown field 'payload.grup_id' for protocol dataproxy (did you mean "
                                "'payload.group_id'?): payload has "),
    (["-e", "body.text_mesage"], "unknown field"),
    (["-Y", "flow.clinet == 'x'"], "unknown field 'flow.clinet' for protocol dataproxy (did you mean 'flow.client'?)"),
    (["--records", "-e", "payload.group_id"], "unknown field"),
    (["-T", "parquet", "-e", "offset"], "parquet is binary"),
])
def test_bad_queries_exit_2_with_one_line(args, message):
    if "parquet" in args:  # a terminal: run under a pseudo-terminal
        import pty
        import os

        pid, fd = pty.fork()
        if pid == 0:
            os.execv(sys.executable, [sys.executable, "-m", "inlong_proto", "decode", "-p", "dataproxy", *args,
                                      str(DUMP)])
        text = b""
        while True:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            text += chunk
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 2 and message in text.decode()
        return
    result = cli("decode", "-p", "dataproxy", *args, str(DUMP), check=False)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and message in result.stderr and "Traceback" not in result.stderr


def test_records_of_another_protocol_exit_2():
    result = cli("decode", "-p", "tubemq", "--records", str(DUMP), check=False)
    assert result.returncode == 2 and "--records reads DataProxy records" in result.stderr


def test_parquet_column_changing_type_exits_2(tmp_path, monkeypatch):
    pytest.importorskip("pyarrow")
    from inlong_proto.cli import output

    monkeypatch.setattr(output, "PARQUET_ROWS", 1)
    stream = open(tmp_path / "out.parquet", "w")
    parquet = output.writer("parquet", stream, [field_path("x")], False)
    parquet.write([{"x": 1}])
    with pytest.raises(QueryError, match="column 'x' started as int64"):
        parquet.write([{"x": "text"}])
    parquet.writer.close()
    stream.close()
