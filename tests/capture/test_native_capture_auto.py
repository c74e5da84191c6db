"""protocol=auto on the compiled capture path equals the pure CaptureDecoder("auto"), row for row and in order.

The reference is arrow.auto_batch over iter_capture_frames(data, "auto", mode) with arrow.capture_value. The
compiled path classifies each connection by detect.classify on the heads CaptureDecoder classifies on, frames
each protocol's connections with its compiled scanner and puts the rows into the protocol's struct; a capture
with a flow it does not frame (a stream protocol, "unknown") or a 4-tuple the walker hands over goes to the
pure path whole (the report says which path ran).
"""
from __future__ import annotations

import random

import pyarrow as pa
import pytest

from inlong_proto import DecodeError
from inlong_proto.core import arrow
from inlong_proto.capture import DETECT_BYTES, iter_capture_frames
from inlong_proto.backends import compiled_capture as native_path
from inlong_proto.capture.writer import pcap_file
from tests.capture.test_native_capture import FRAMED, MODES, PORTS, VECTORS, many_flows, mutate
from tests.vectors import STREAMS, T0, mixed_capture, talk

pytestmark = pytest.mark.skipif(native_path._extension() is None,
                                reason="the compiled capture walker (inlong_proto._compiled.capture) is not built")


@pytest.fixture(autouse=True)
def compiled_backend(monkeypatch):
    monkeypatch.delenv("INLONG_PROTO_BACKEND", raising=False)


def reference(data: bytes, mode: str, path: str = "t.pcap"):
    try:
        items = list(iter_capture_frames(data, "auto", mode))
    except DecodeError as exc:
        return exc
    return pa.Table.from_batches([arrow.auto_batch(path, [i.frame for i in items],
                                                   [arrow.capture_value(i) for i in items])])


def check(data: bytes, mode: str = "PERMISSIVE", path: str | None = None, batch_rows: int = native_path.BATCH_ROWS):
    report: dict = {}
    try:
        got = pa.Table.from_batches(list(native_path.capture_batches(data, "auto", mode, "t.pcap",
                                                                     batch_rows=batch_rows, report=report)),
                                    arrow.auto_schema())
    except DecodeError as exc:
        got = exc
    want = reference(data, mode)
    if isinstance(want, DecodeError) or isinstance(got, DecodeError):
        assert type(got) is type(want) and str(got) == str(want), report
    elif not got.equals(want):
        rows = list(zip(got.to_pylist(), want.to_pylist()))
        diff = next(((i, a, b) for i, (a, b) in enumerate(rows) if a != b), (got.num_rows, want.num_rows))
        pytest.fail(f"{report}: first difference {diff}")
    if path is not None:
        assert report["path"] == path, report
    return report


@pytest.mark.parametrize("name", sorted(p.name for p in VECTORS.glob("*.pcap*")))
@pytest.mark.parametrize("mode", MODES)
def test_recorded_vectors(name, mode):
    report = check((VECTORS / name).read_bytes(), mode)
    if not name.startswith("eventmesh_grpc"):  # HTTP/2: a stream protocol, framed by the pure path
        assert report["path"] == "compiled", report


def mixed(count: int, seed: int, protocols=FRAMED, ports=True) -> bytes:
    """count connections of the framed protocols, interleaved, each on its port (or on port 7000 + n: then
    content alone classifies), segment sizes from 1 byte up."""
    rng = random.Random(seed)
    packets = []
    for number in range(count):
        protocol = protocols[number % len(protocols)]
        client, server = STREAMS[protocol]
        port = PORTS[protocol] if ports else 7000 + number
        packets += talk(client * rng.randrange(1, 3), server, port, client_port=45000 + number,
                        mss=rng.choice([1, 3, 50, 97, 1460, 9000]), t0=T0 + number * 10**5, turns=rng.randrange(1, 5))
    return pcap_file(sorted(packets, key=lambda p: p[0]))


@pytest.mark.parametrize("ports", [True, False])
def test_mixed_framed_protocols(ports):
    data = mixed(12, seed=3, ports=ports)
    for mode in MODES:
        check(data, mode)
    assert check(data, "PERMISSIVE", batch_rows=5)["path"] == "compiled"


@pytest.mark.parametrize("protocol", FRAMED)
def test_many_interleaved_flows_of_one_protocol(protocol):
    data = pcap_file(many_flows(protocol, 16, seed=len(protocol)))
    for mode in MODES:
        check(data, mode)


def test_mixed_with_stream_protocols_takes_the_pure_path():
    data, _ = mixed_capture()
    for mode in MODES:
        assert check(data, mode)["path"] == "python"


def test_server_speaks_first_and_heads_cut_at_classification():
    """The server sends 4x DETECT_BYTES before the client's first byte, or the client's first bytes cut a frame
    when the server's bytes decide: the heads are what had come by then, as in CaptureDecoder."""
    packets = []
    for number, protocol in enumerate(FRAMED):
        client, server = STREAMS[protocol]
        big = server * (4 * DETECT_BYTES // max(1, len(server)) + 2)
        packets += talk(b"", big, 7100 + number, client_port=45500 + number, mss=700, t0=T0 + number * 10**5)
        packets += talk(client[:5] + client * 3, big, PORTS[protocol], client_port=45600 + number, mss=5,
                        t0=T0 + number * 10**5 + 7, turns=1)
    data = pcap_file(sorted(packets, key=lambda p: p[0]))
    for mode in MODES:
        check(data, mode)


def test_mutated_mixed_captures():
    """300 mutated small mixed captures: equal whichever path runs."""
    rng = random.Random(2027)
    bases = []
    for seed in range(6):
        packets = []
        for number, protocol in enumerate(FRAMED):
            client, server = STREAMS[protocol]
            packets += talk(client[:150], server[:100], PORTS[protocol] if seed % 2 else 7000 + number,
                            client_port=46000 + number, mss=60, t0=T0 + number * 10**5, turns=2)
        bases.append(pcap_file(sorted(packets, key=lambda p: p[0])))
    paths = {"compiled": 0, "python": 0}
    for index in range(300):
        report = check(mutate(bases[index % len(bases)], rng), MODES[index % 3])
        paths[report["path"]] += 1
    assert paths["compiled"] > 30 and paths["python"] > 30, paths


@pytest.mark.parametrize("mode", MODES)
def test_spark_reader_takes_the_compiled_path_with_the_same_rows(tmp_path, monkeypatch, mode):
    """format("inlong")'s capture_batches (and so the CLI's piece_batches) with protocol auto: the compiled path's
    batches equal those of its chunked CaptureDecoder (INLONG_PROTO_BACKEND=python), errors included."""
    from inlong_proto.core.sources import FileSource
    from inlong_proto.spark.pieces import capture_batches

    files = [mixed(8, seed=4), mixed(6, seed=5, ports=False), mixed_capture()[0],
             (VECTORS / "broadcast_lo.pcapng").read_bytes()]
    for number, data in enumerate(files):
        path = tmp_path / f"c{number}.pcap"
        path.write_bytes(data)
        got = {}
        for backend in ("native", "python"):
            monkeypatch.setenv("INLONG_PROTO_BACKEND", backend)
            with FileSource(str(path)) as src:
                try:
                    got[backend] = pa.Table.from_batches(list(capture_batches(src, "file:t.pcap", "auto", mode)),
                                                         arrow.auto_schema())
                except Exception as exc:  # FAILFAST: the same error on both paths
                    got[backend] = f"{type(exc).__name__}: {exc}"
        if isinstance(got["native"], str) or isinstance(got["python"], str):
            assert got["native"] == got["python"]
        else:
            assert got["native"].equals(got["python"]), number
