"""decode reads a pipe as it comes and writes each frame as soon as it is whole (issue 13, item 1):
`tcpdump -U -w - | inlong-proto decode ...` printed nothing until tcpdump was killed."""
import json
import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path

from vectors import valid_frames

from inlong_proto.capture import iter_capture_frames, iter_packets

CLI = [sys.executable, "-m", "inlong_proto"]
CAPTURE = Path(__file__).resolve().parent / "vectors" / "capture" / "dataproxy_lo.pcap"


def _lines_within(process: subprocess.Popen, count: int, timeout: float = 15.0) -> list[dict]:
    """The next `count` lines the process writes (unbuffered, so select sees every byte), failing if they
    do not come within timeout."""
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ)
    lines, deadline = [], time.monotonic() + timeout
    while len(lines) < count:
        assert selector.select(max(0.0, deadline - time.monotonic())), f"only {len(lines)} of {count} lines came"
        line = process.stdout.readline()
        assert line, "the output ended"
        lines.append(json.loads(line))
    return lines


def test_each_frame_comes_out_before_the_next_piece_goes_in():
    frames = valid_frames(["response"])["broadcast"][:6]
    process = subprocess.Popen([*CLI, "decode", "-p", "broadcast", "-"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, bufsize=0)
    try:
        offset = 0
        for frame in frames:
            half = len(frame) // 2
            process.stdin.write(frame[:half])
            process.stdin.flush()
            time.sleep(0.2)  # a pause inside the frame: nothing can be printed yet
            process.stdin.write(frame[half:])
            process.stdin.flush()
            (line,) = _lines_within(process, 1)
            assert (line["offset"], line["length"]) == (offset, len(frame))
            offset += len(frame)
        process.stdin.close()
        assert process.wait(timeout=15) == 0 and process.stdout.read() == b""
    finally:
        process.kill()


def test_auto_decides_a_live_stream_after_four_frames():
    frames = valid_frames(["request"])["dataproxy"][:5]
    process = subprocess.Popen([*CLI, "decode", "-p", "auto", "-"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               bufsize=0)
    try:
        process.stdin.write(b"".join(frames[:4]))
        process.stdin.flush()
        assert [line["protocol"] for line in _lines_within(process, 4)] == ["dataproxy"] * 4
        process.stdin.write(frames[4])
        process.stdin.close()
        assert len(_lines_within(process, 1)) == 1 and process.wait(timeout=15) == 0
    finally:
        process.kill()


def test_a_capture_on_a_pipe_is_decoded_packet_by_packet():
    data = CAPTURE.read_bytes()
    want = [item.to_dict() for item in iter_capture_frames(data, "dataproxy", "PERMISSIVE")]
    starts = [packet.file_offset for packet in iter_packets(data)] + [len(data)]
    process = subprocess.Popen([*CLI, "decode", "-p", "dataproxy", "--mode", "permissive", "-"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    try:
        process.stdin.write(data[:starts[0]])
        got = []
        for start, stop in zip(starts, starts[1:]):
            process.stdin.write(data[start:stop])
            process.stdin.flush()
            if len(got) < len(want) - 2 and start > len(data) // 2:
                got += _lines_within(process, 1)  # past the middle, frames are out before the end of input
        process.stdin.close()
        got += [json.loads(line) for line in process.stdout.read().splitlines()]
        assert process.wait(timeout=15) == 0
        key = lambda record: (record["flow"]["number"], record["stream"], record["offset"])  # noqa: E731
        assert sorted(got, key=key) == sorted(json.loads(json.dumps(want)), key=key)
    finally:
        process.kill()


def test_follow_reads_a_growing_file_until_interrupted(tmp_path):
    frames = valid_frames(["response"])["broadcast"][:4]
    path = tmp_path / "growing.bin"
    path.write_bytes(frames[0])
    process = subprocess.Popen([*CLI, "decode", "-p", "broadcast", "--follow", str(path)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, bufsize=0, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert len(_lines_within(process, 1)) == 1
        for frame in frames[1:]:
            with open(path, "ab") as growing:
                growing.write(frame)
            assert len(_lines_within(process, 1)) == 1
        process.send_signal(signal.SIGINT)
        process.wait(timeout=15)
        assert b"Traceback" not in process.stderr.read()
    finally:
        process.kill()
