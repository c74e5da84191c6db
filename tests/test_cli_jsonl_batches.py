"""decode -T jsonl from the compiled batches (cli/whole_files.py, JSON lines) against the streaming path: for
every vector dump and capture (tests/vectors, examples/data), every protocol the batch path takes and every
mode, the same lines byte for byte and the same exit status."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("pyarrow")

from click.testing import CliRunner  # noqa: E402

from inlong_proto.cli import whole_files  # noqa: E402
from inlong_proto.cli.commands import main  # noqa: E402
from inlong_proto.core import protocols  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
BATCHED = [name for name in protocols.every_name() if whole_files.jsonl_protocol(name)]
MODES = ("PERMISSIVE", "DROPMALFORMED", "FAILFAST")


def dumps(where: Path) -> list[Path]:
    """The vector files as they are, and each JSON vector's bytes as a dump of its own."""
    files = sorted([*ROOT.glob("examples/data/*"), *(ROOT / "tests" / "vectors").rglob("*.bin"),
                    *(ROOT / "tests" / "vectors").rglob("*.pcap"), *(ROOT / "tests" / "vectors").rglob("*.pcapng")])
    for number, vector in enumerate(sorted((ROOT / "tests" / "vectors").rglob("*.json"))):
        data = json.loads(vector.read_text())
        if isinstance(data, dict) and isinstance(data.get("hex"), str):
            try:
                raw = bytes.fromhex(data["hex"])
            except ValueError:
                continue
            target = where / f"{number:04d}-{vector.stem}.bin"
            target.write_bytes(raw)
            files.append(target)
    return files


def run(args, fast: bool, monkeypatch):
    monkeypatch.setattr(whole_files, "FAST", fast)
    result = CliRunner().invoke(main, ["decode", *args])
    return result.exit_code, result.stdout_bytes if hasattr(result, "stdout_bytes") else result.output


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return dumps(tmp_path_factory.mktemp("vectors"))


@pytest.mark.parametrize("protocol", BATCHED)
@pytest.mark.parametrize("mode", MODES)
def test_batched_jsonl_is_the_streaming_jsonl(files, protocol, mode, monkeypatch):
    taken = []
    write = whole_files.write_jsonl

    def counted(*args, **kwargs):
        done = write(*args, **kwargs)
        taken.append(done)
        return done

    monkeypatch.setattr(whole_files, "write_jsonl", counted)
    for path in files:
        args = ["-p", protocol, "--mode", mode, "-T", "jsonl", str(path)]
        assert run(args, True, monkeypatch) == run(args, False, monkeypatch), path
    assert any(taken)  # the batch path wrote some of them


@pytest.mark.parametrize("protocol", BATCHED)
def test_several_files_are_named(files, protocol, monkeypatch):
    args = ["-p", protocol, "--mode", "DROPMALFORMED", "-T", "jsonl", *map(str, files[:40])]
    assert run(args, True, monkeypatch) == run(args, False, monkeypatch)


def test_bench_capture_dump(tmp_path, monkeypatch):
    """A dump of the bench's frames (many batches, every DataProxy message type the bench writes)."""
    from tools.bench.native_capture import dataproxy_frames

    dump = tmp_path / "dp.bin"
    dump.write_bytes(b"".join(frame for side, frame in dataproxy_frames(3000) if side == "client"))
    for mode in MODES:
        args = ["-p", "dataproxy", "--mode", mode, "-T", "jsonl", str(dump)]
        fast = run(args, True, monkeypatch)
        assert fast[0] == 0 and fast[1].count(b"\n") >= 3000
        assert fast == run(args, False, monkeypatch)


def test_csv_text_cells_are_csv_cell():
    """The vectorised CSV text (whole_files.safe_text) is output.csv_cell row by row: controls, formula
    starts, non-ASCII, empty and null values, sliced arrays, both string widths, bytes (UTF-8 or not)."""
    import random

    import pyarrow as pa

    from inlong_proto.cli.output import csv_cell
    from inlong_proto.core.plain import render_bytes

    pick = random.Random(7)
    alphabet = ["a", "=", "+", "-", "@", "\t", "\r", "\n", "\x00", "\x7f", "\x1b", "é", "\u202e", "\x85", " ", "'",
                "\\", "~", "1", "{"]
    values = [None, "", "=1", "\t=x", "-5"] + ["".join(pick.choice(alphabet) for _ in range(pick.randrange(6)))
                                               for _ in range(3000)]
    for kind in (pa.string(), pa.large_string()):
        column = pa.array(values, kind)
        for part in (column, column.slice(7, 500)):
            expected = [None if value is None else csv_cell(value) for value in part.to_pylist()]
            assert whole_files.safe_text(part).to_pylist() == expected
    raw = [None if value is None else value.encode() for value in values]
    for data in (raw, raw + [b"\xff\xfe", b"=\xff"]):
        batch = pa.RecordBatch.from_arrays([pa.array(data, pa.binary())], ["b"])
        schema = pa.schema([pa.field("b", pa.string())])
        expected = [None if value is None else csv_cell(render_bytes(value)) for value in data]
        assert whole_files.csv_batch(batch, schema).column(0).to_pylist() == expected


def test_progress_at_passes_items_through(monkeypatch, capsys):
    """cli.progress.with_progress_at (the fast path's bar): every item comes through, bar or no bar."""
    from inlong_proto.cli import progress

    assert list(progress.with_progress_at(iter(range(5)), "-", lambda item: item)) == list(range(5))
    monkeypatch.setattr(progress, "wanted", lambda path, follow=False: 10)
    assert list(progress.with_progress_at(iter(range(5)), "x.bin", lambda item: item * 4)) == list(range(5))


def test_controls_in_text_are_escaped_alike(tmp_path, monkeypatch):
    """DEL and C1 controls in frame text (terminal_json escapes them), several files named per line."""
    data = (ROOT / "examples" / "data" / "dataproxy.bin").read_bytes()
    assert b"order" in data
    dump = tmp_path / "controls.bin"
    dump.write_bytes(data.replace(b"order", b"\x7f\xc2\x85rd"))  # same length: DEL, U+0085, "rd"
    for files in ([dump], [dump, ROOT / "examples" / "data" / "dataproxy.bin"]):
        args = ["-p", "dataproxy", "-T", "jsonl", *map(str, files)]
        fast = run(args, True, monkeypatch)
        assert fast[0] == 0 and b"\\u007f\\u0085rd" in fast[1]
        assert fast == run(args, False, monkeypatch)


@pytest.mark.parametrize("direction", ["request", "response"])
@pytest.mark.parametrize("protocol", BATCHED)
def test_direction_is_kept_alike(direction, protocol, monkeypatch):
    files = [*ROOT.glob("examples/data/*.bin"), *(ROOT / "tests" / "vectors" / "capture").glob("*.bin")]
    for path in files:
        args = ["-p", protocol, "-d", direction, "--mode", "PERMISSIVE", "-T", "jsonl", str(path)]
        assert run(args, True, monkeypatch) == run(args, False, monkeypatch), path


def mixed_capture(frames, protocol_port: int, nano: bool) -> bytes:
    """Connections interleaved packet by packet, each direction's frames cut across packets, after a
    connection that never sends a byte (a SYN alone) and one that opens and closes empty: both are
    numbered flows that have no rows, so the rows' flow numbers skip them."""
    from inlong_proto.capture.writer import Conversation, pcap_file, segment

    server = ("10.255.0.1", protocol_port)
    ts = 1_700_000_000 * 10**9  # a whole second: isoformat leaves its fraction out
    packets = [(ts, segment(("10.9.9.9", 5555), server, 1, syn=True))]
    empty = Conversation(("10.9.9.8", 5556), server)
    packets += empty.open(ts + 10) + empty.close(ts + 20)
    conversations = [Conversation((f"10.0.0.{c}", 40000 + c), server) for c in range(5)]
    for conversation in conversations:
        packets += conversation.open(ts + 30)
    for index, (side, frame) in enumerate(frames):
        ts += 999_999 + index % 7
        cut = len(frame) // 2 if index % 3 == 0 else len(frame)  # some frames over two packets
        for part in (frame[:cut], frame[cut:]):
            if part:
                packets += conversations[index % 5].send(side, part, ts)
    for conversation in conversations[1:]:  # the first one stays open to the end of the capture
        packets += conversation.close(ts)
    return pcap_file(packets, nano=nano)


@pytest.mark.parametrize("nano", [False, True])
def test_mixed_capture_jsonl_is_the_streaming_jsonl(tmp_path, monkeypatch, nano):
    """A capture's JSON lines from the compiled walker's batches (flow numbers, times to the nanosecond,
    every DataProxy message type the bench writes, both directions) are the streaming path's, in every
    mode and with -d."""
    from tools.bench.native_capture import broadcast_frames, dataproxy_frames

    taken = []
    write = whole_files.write_jsonl
    monkeypatch.setattr(whole_files, "write_jsonl", lambda *args: taken.append(write(*args)) or taken[-1])
    for protocol, frames, port in (("dataproxy", dataproxy_frames(1500), 46801), ("broadcast", broadcast_frames(300),
                                                                                   8090)):
        path = tmp_path / f"{protocol}.pcap"
        path.write_bytes(mixed_capture(frames, port, nano))
        for extra in ([], ["-d", "request"], ["-d", "response"], ["--mode", "DROPMALFORMED"], ["--mode", "FAILFAST"]):
            args = ["-p", protocol, *extra, "-T", "jsonl", str(path)]
            fast = run(args, True, monkeypatch)
            assert fast[0] == 0 and fast[1].count(b"\n") > 100 or extra[:1] == ["-d"]
            assert fast == run(args, False, monkeypatch), args
    assert all(taken) and len(taken) == 10


def test_capture_items_number_every_flow():
    """compiled_capture.capture_items' flow numbers and nanosecond times are CaptureDecoder's."""
    from inlong_proto.backends import compiled_capture
    from inlong_proto.capture import iter_capture_frames
    from tools.bench.native_capture import dataproxy_frames

    data = mixed_capture(dataproxy_frames(200), 46801, True)
    batches = compiled_capture.capture_items(data, "dataproxy", "PERMISSIVE")
    got = [row for batch in batches for row in zip(*(batch.column(name).to_pylist()
                                                     for name in compiled_capture.ITEM_COLUMNS))]
    expected = [(item.flow.number, item.timestamp_ns) for item in iter_capture_frames(data, "dataproxy", "PERMISSIVE")]
    assert got == expected and {number for number, _ in got} == {2, 3, 4, 5, 6}


def protocols_capture(streams: dict[int, list[tuple[str, bytes]]]) -> bytes:
    """Two connections per server port, each taking every other of that port's (side, frame)s, all of them
    interleaved frame by frame: a capture that -p auto classifies per flow into several protocols."""
    from inlong_proto.capture.writer import Conversation, pcap_file

    ts = 1_700_000_000 * 10**9 + 123_456_789
    packets, talks = [], []
    for port, frames in streams.items():
        pair = [Conversation((f"10.1.{port & 255}.{c}", 41000 + c), ("10.255.0.2", port)) for c in range(2)]
        for conversation in pair:
            packets += conversation.open(ts)
        talks.append([(pair[index % 2], side, frame) for index, (side, frame) in enumerate(frames)])
    for step in range(max(map(len, talks))):
        for talk in talks:
            if step < len(talk):
                conversation, side, frame = talk[step]
                ts += 1_000_001
                packets += conversation.send(side, frame, ts)
    return pcap_file(packets, nano=True)


def auto_files(where: Path) -> list[Path]:
    """The capture vectors, the sample dumps, and generated captures of several protocols: DataProxy and
    broadcast (the batches hold both's JSON), and those with an EventMesh flow too (streamed)."""
    from tools.bench.native_capture import broadcast_frames, dataproxy_frames

    eventmesh = (ROOT / "tests" / "vectors" / "capture" / "eventmesh_lo.client.bin").read_bytes()
    made = {"dp_broadcast": {46801: dataproxy_frames(400), 8090: broadcast_frames(120)},
            "with_eventmesh": {46801: dataproxy_frames(60), 8090: broadcast_frames(30), 10000: [("client", eventmesh)]}}
    for name, streams in made.items():
        (where / f"{name}.pcap").write_bytes(protocols_capture(streams))
    return sorted([*(ROOT / "tests" / "vectors" / "capture").glob("*"), *ROOT.glob("examples/data/*"),
                   *where.glob("*.pcap")])


def test_auto_jsonl_is_the_streaming_jsonl(tmp_path, monkeypatch):
    """-p auto (decode's default): a capture's flows each in their own protocol's JSON, a dump in the
    protocol its head settles on, byte for byte the streaming path's in every mode and with -d; the
    generated captures of DataProxy and broadcast flows go through the batches, one with an EventMesh row
    is streamed."""
    taken = {}
    write = whole_files.write_jsonl
    monkeypatch.setattr(whole_files, "write_jsonl",
                        lambda *args: taken.setdefault(Path(args[0]).name, []).append(write(*args)) or taken[
                            Path(args[0]).name][-1])
    for path in auto_files(tmp_path):
        for extra in ([], ["-d", "response"], ["--mode", "DROPMALFORMED"], ["--mode", "FAILFAST"]):
            args = ["-p", "auto", *extra, "-T", "jsonl", str(path)]
            assert run(args, True, monkeypatch) == run(args, False, monkeypatch), args
    assert all(taken["dp_broadcast.pcap"]) and all(taken["dataproxy_lo.pcap"]) and all(taken["broadcast.bin"])
    assert taken["with_eventmesh.pcap"] == [False, True, False, False]  # (-d response: no EventMesh row left)
    args = ["-T", "jsonl", *map(str, auto_files(tmp_path))]  # several files named, -p auto by default
    assert run(args, True, monkeypatch) == run(args, False, monkeypatch)
