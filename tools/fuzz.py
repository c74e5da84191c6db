"""Coverage-guided fuzzing of every decoder (issue 11, "fuzzing as a habit"): `make fuzz`.

One target per protocol, plus EventMesh HTTP, EventMesh gRPC (HTTP/2 under small Limits, its budget asserted after
every feed), the capture reader and its compiled fast path (capture-native:
capture.native_path against the pure path, row for row). Every input goes through all the ways
a user meets the bytes: decode + to_dict + json.dumps, iter_frames in FAILFAST and PERMISSIVE, the stream
decoder fed in uneven pieces, and the payload layer (TubeMQ RPC, EventMesh TCP, DataProxy records). The
invariants checked per input (the h11 / wsproto habit: state one, fuzz it):

* only DecodeError escapes (a ValueError for a bad *argument* would be ours, never the input's);
* PERMISSIVE frames and error spans tile the input, and the stream decoder fed in pieces finds the same
  frames and spans as iter_frames over the whole input;
* no input takes over 1 s (TIME_LIMIT), re-timed once without tracemalloc before it counts;
* memory never grows with a claimed length: the tracemalloc peak of one input stays under
  MEMORY_FACTOR * len(input) + MEMORY_CONSTANT (decompression and JSON rendering scale with the input,
  never with what a length field says). tracemalloc slows decoding ~10x, so the fuzzer traces one input
  in MEMORY_EVERY and checks the others by the process's peak RSS (which also sees native allocations);
  a replayed crasher is always traced.

The engine is atheris (libFuzzer for Python, from PyPI; `pip install -e '.[dev]'` brings it): each target
runs in its own process (libFuzzer exits the process when done), seeded from tests/vectors/** and the
stored crashers, with inlong_proto instrumented for coverage. Without atheris (no wheel for the platform)
a plain random mutator over the same seeds runs instead, with no coverage figure. A failing input is
written to tests/vectors/fuzz/<target>/<sha1>.bin (the first and smallest per distinct failure), where
tests/test_fuzz_regressions.py replays it through the same target and invariants.

    python tools/fuzz.py                         # every target, 30 s each, 2 at a time
    python tools/fuzz.py --runs 1000000          # at least a million inputs per target
    python tools/fuzz.py --target tubemq --seconds 60
    python tools/fuzz.py --seconds 4             # the short CI pass (make fuzz-short, ~30 s)
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VECTORS = ROOT / "tests" / "vectors"
CRASHERS = VECTORS / "fuzz"
FRAME_TARGETS = ("broadcast", "dataproxy", "eventmesh", "eventmesh-legacy", "tubemq")
TARGETS = (*FRAME_TARGETS, "eventmesh-http", "eventmesh-grpc", "capture", "capture-native")
TIME_LIMIT = 1.0  # seconds per input
MEMORY_FACTOR = 64  # bytes of peak Python memory per input byte (snappy expands ~20x, hex and JSON ~3x more)
MEMORY_CONSTANT = 1024 * 1024  # what the first calls cache, and atheris's own tracing, cost
MEMORY_EVERY = 32  # the fuzzer traces one input in this many (tracemalloc slows decoding ~10x)
RSS_JUMP = 32 * 1024 * 1024  # what peak RSS may grow by during one untraced input, plus the limit above
MAX_LEN = {"eventmesh-http": 2048, "eventmesh-grpc": 4096, "capture": 8192, "capture-native": 8192}  # libFuzzer -max_len; the others 1024 (resync work grows with it)
PIECES = (1, 7, 2, 64, 3, 500, 13, 4096)  # stream decoders are fed in pieces of these sizes, in turn


class InvariantError(AssertionError):
    """An input broke one of the invariants above (other than raising something other than DecodeError);
    name says which, and is the failure's signature."""

    def __init__(self, name: str, text: str):
        self.name = name
        super().__init__(f"{name}: {text}")


# Failures found and reported but not fixed yet, by target and signature: reported as known, not counted in
# the exit status; tests/test_fuzz_regressions.py expects their stored inputs to fail (strict xfail), so
# the entry has to go when the fix lands.
KNOWN: dict[str, dict[str, str]] = {}  # target -> {signature: why it is not fixed yet}; none open


# ------------------------------------------------------------------------------------------ targets
def _render(item) -> None:
    """to_dict() must work and be JSON."""
    json.dumps(item.to_dict())


def _pieces(data: bytes):
    at, turn = 0, 0
    while at < len(data):
        size = PIECES[turn % len(PIECES)]
        yield data[at:at + size]
        at, turn = at + size, turn + 1


def _span(item) -> tuple:
    error = getattr(item, "error", None)
    return (type(item).__name__, getattr(item, "protocol", None), item.offset, item.length,
            getattr(item, "message_type", None), getattr(item, "direction", None),
            None if error is None else (error.kind, error.offset, error.field))


def _first_difference(got: list, expected: list) -> str:
    for index, (a, b) in enumerate(zip(got, expected)):
        if a != b:
            return f"item {index}: {a} in pieces, {b} whole"
    return f"{len(got)} items in pieces, {len(expected)} whole"


def frame_target(protocol: str):
    """decode, iter_frames FAILFAST / PERMISSIVE, StreamDecoder in pieces and the payload layers; with the
    compiled backend, its batches (C scanners and compiled payload layers) against the pure rows."""
    import inlong_proto
    from inlong_proto import DecodeError
    from inlong_proto.core import arrow, protocols
    from inlong_proto.backends import compiled as native

    proto = protocols.get(protocol)
    reader = None
    if protocol in protocols.PAYLOAD_READERS:
        import importlib

        reader = importlib.import_module(protocols.PAYLOAD_READERS[protocol]).payload
    directions = (None, "request", "response") if proto.directional else (None,)

    def run(data: bytes) -> None:
        direction = directions[len(data) % len(directions)]  # the fuzzer steers it by the length
        try:
            _render(inlong_proto.decode(data, protocol, direction))
        except DecodeError:
            pass
        try:
            for frame in inlong_proto.iter_frames(data, protocol, direction):
                _render(frame)
        except DecodeError:
            pass
        spans, end, frames = [], 0, []
        for frame in inlong_proto.iter_frames(data, protocol, direction, mode="PERMISSIVE"):
            frames.append(frame)
            if frame.offset != end or frame.length <= 0:
                raise InvariantError("tiling", f"PERMISSIVE spans do not tile the input: "
                                               f"{frame.offset}+{frame.length} after {end}")
            end = frame.offset + frame.length
            _render(frame)
            if reader is not None and frame.error is None:
                try:
                    _render(reader(frame))
                except DecodeError:
                    pass
            spans.append(_span(frame))
        if end != len(data):
            raise InvariantError("tiling", f"PERMISSIVE spans cover {end} of {len(data)} bytes")
        if native.backend() == "native" and not native.scan_batch(data, protocol, "f", direction).equals(
                arrow.frames_to_batch("f", frames, protocol)):
            raise InvariantError("native-differs", f"{protocol}: the compiled batch differs from the pure rows")
        decoder = inlong_proto.StreamDecoder(protocol, direction, mode="PERMISSIVE")
        got = [_span(frame) for piece in _pieces(data) for frame in decoder.feed(piece)]
        got += [_span(frame) for frame in decoder.close()]
        if got != spans:
            raise InvariantError("pieces", f"StreamDecoder fed in pieces differs from iter_frames: "
                                           f"{_first_difference(got, spans)}")
    return run


def http_target():
    """EventMesh HTTP: iter_messages FAILFAST / PERMISSIVE, HttpStreamDecoder in pieces."""
    from inlong_proto import DecodeError
    from inlong_proto.eventmesh import http

    def run(data: bytes) -> None:
        direction = (None, "request", "response")[len(data) % 3]
        try:
            for message in http.iter_messages(data, direction, "FAILFAST"):
                _render(message)
        except DecodeError:
            pass
        whole = []
        for message in http.iter_messages(data, direction, "PERMISSIVE"):
            _render(message)
            whole.append(_span(message))
        decoder = http.HttpStreamDecoder(direction, mode="PERMISSIVE")
        got = [_span(m) for piece in _pieces(data) for m in decoder.feed(piece)] + [_span(m) for m in decoder.close()]
        if got != whole:
            raise InvariantError("pieces", f"HttpStreamDecoder fed in pieces differs from iter_messages: "
                                           f"{_first_difference(got, whole)}")
    return run


def grpc_target():
    """EventMesh gRPC (HTTP/2): iter_messages FAILFAST / PERMISSIVE, GrpcStreamDecoder in pieces, under small
    Limits so that every limit is crossed often: PERMISSIVE items tile the input, and after every feed the
    decoder holds no more than its budget (buffered bytes and retained state)."""
    from inlong_proto import DecodeError
    from inlong_proto.eventmesh import h2
    from inlong_proto.core.stream import CALL_COST, Limits

    limits = Limits(max_header_list=512, max_hpack_table=1024, max_message=1024, max_body=1024, max_open_calls=4,
                    max_call_messages=3, max_retained=4096)
    held = limits.max_retained + limits.max_open_calls * CALL_COST  # calls are charged even over the budget

    def items(data: bytes, direction, mode: str, pieces) -> list:
        decoder = h2.GrpcStreamDecoder(direction, mode=mode, limits=limits)
        out = []
        for piece in pieces:
            out += decoder.feed(piece)
            if decoder.retained > held or decoder.buffered > h2.MAX_GARBAGE + 2 * h2.HEADER_SIZE + len(piece):
                raise InvariantError("budget", f"the decoder holds {decoder.buffered} bytes and retains "
                                               f"{decoder.retained} (budget {held})")
        return out + decoder.close()

    def run(data: bytes) -> None:
        direction = (None, "request", "response")[len(data) % 3]
        try:
            for item in items(data, direction, "FAILFAST", [data]):
                _render(item)
        except DecodeError:
            pass
        whole = items(data, direction, "PERMISSIVE", [data])
        at = 0
        for item in whole:
            _render(item)
            if item.length:
                if item.offset != at:
                    raise InvariantError("tiling", f"an item at {item.offset}, the previous one ended at {at}")
                at += item.length
        if at != len(data):
            raise InvariantError("tiling", f"items cover {at} of {len(data)} bytes")
        got = [_span(i) for i in items(data, direction, "PERMISSIVE", _pieces(data))]
        if got != [_span(i) for i in whole]:
            raise InvariantError("pieces", f"GrpcStreamDecoder fed in pieces differs from one feed: "
                                           f"{_first_difference(got, [_span(i) for i in whole])}")
    return run


def capture_target():
    """pcap / pcapng: iter_capture_frames FAILFAST / PERMISSIVE, CaptureDecoder fed in pieces."""
    from inlong_proto import DecodeError
    from inlong_proto.capture import CaptureDecoder, iter_capture_frames

    def key(item) -> tuple:
        return (item.flow.number if item.flow else None, item.direction, item.file_offset, _span(item.frame))

    def run(data: bytes) -> None:
        try:
            for item in iter_capture_frames(data, "auto", "FAILFAST"):
                _render(item)
        except DecodeError:
            pass
        whole = []
        for item in iter_capture_frames(data, "auto", "PERMISSIVE"):
            _render(item)
            whole.append(key(item))
        decoder = CaptureDecoder("auto", "PERMISSIVE")
        got = [key(i) for piece in _pieces(data) for i in decoder.feed(piece)] + [key(i) for i in decoder.close()]
        if got != whole:
            container = [k for k in got + whole if k[3][1] == "capture"]
            name = "container-span" if [k for k in got if k[3][1] != "capture"] == [
                k for k in whole if k[3][1] != "capture"] and container else "pieces"
            raise InvariantError(name, f"CaptureDecoder fed in pieces differs from iter_capture_frames: "
                                       f"{_first_difference(got, whole)}")
    return run


def capture_native_target():
    """The compiled capture path (capture.native_path, C walker and ordering) against the pure one: the same
    rows in the same order, or the same error, for a named protocol in each mode."""
    import pyarrow as pa

    from inlong_proto import DecodeError
    from inlong_proto.core import arrow
    from inlong_proto.capture import iter_capture_frames
    from inlong_proto.backends import compiled_capture as native_path

    def rows(batches, protocol: str):
        try:
            return pa.Table.from_batches(list(batches), arrow.frame_schema(protocol)).to_pylist()
        except DecodeError as exc:
            return f"{type(exc).__name__}: {exc}"

    def run(data: bytes) -> None:
        for protocol, mode in (("dataproxy", "PERMISSIVE"), ("broadcast", "DROPMALFORMED"), ("eventmesh", "FAILFAST")):
            got = rows(native_path.capture_batches(data, protocol, mode, "f"), protocol)
            try:
                items = list(iter_capture_frames(data, protocol, mode))
                want = arrow.frames_to_batch("f", [i.frame for i in items], protocol,
                                             [arrow.capture_value(i) for i in items]).to_pylist()
            except DecodeError as exc:
                want = f"{type(exc).__name__}: {exc}"
            if got != want:
                if isinstance(got, list) and isinstance(want, list):
                    where = next((f"row {i}: {a} compiled, {b} pure" for i, (a, b) in enumerate(zip(got, want))
                                  if a != b), f"{len(got)} rows compiled, {len(want)} pure")
                else:
                    where = f"{str(got)[:300]} compiled, {str(want)[:300]} pure"
                raise InvariantError("native-differs", f"{protocol} {mode}: the compiled capture path differs from "
                                                       f"the pure one: {where}")
    run((VECTORS / "capture" / "broadcast_lo.pcap").read_bytes())  # warm: pyarrow, numpy and the schemas load once
    return run


def target(name: str):
    """The check function of a target: takes one input, raises on a broken invariant."""
    if name in FRAME_TARGETS:
        return frame_target(name)
    if name == "eventmesh-http":
        return http_target()
    if name == "eventmesh-grpc":
        return grpc_target()
    if name == "capture":
        return capture_target()
    if name == "capture-native":
        return capture_native_target()
    raise SystemExit(f"unknown target {name!r}; known: {', '.join(TARGETS)}")


# ------------------------------------------------------------------------------------------ invariants
def failure(run, data: bytes, *, trace: bool = True) -> tuple[str, str] | None:
    """(signature, description) of the invariant data breaks, or None. The signature names the failure
    (exception type and where it was raised, or slow / memory) so that one bug is stored once.

    trace: measure the input's Python memory peak with tracemalloc (it slows decoding ~10x, so the fuzzer
    traces one input in MEMORY_EVERY; the others get the cheap check: the process's peak RSS must not jump
    by more than RSS_JUMP during one input, which also sees native allocations such as Snappy's)."""
    from inlong_proto import DecodeError

    limit = MEMORY_FACTOR * len(data) + MEMORY_CONSTANT
    rss = _peak_rss()
    if trace:
        tracemalloc.start()
    start = time.perf_counter()
    try:
        run(data)
    except DecodeError as exc:  # every target catches what it may; one escaping is a runtime bug
        return _signature(exc), f"DecodeError escaped a mode that must report it: {exc}"
    except Exception as exc:  # noqa: BLE001 (the point of fuzzing)
        return _signature(exc), "".join(traceback.format_exception(exc))
    finally:
        elapsed = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1] if trace else 0
        if trace:
            tracemalloc.stop()
    if elapsed > TIME_LIMIT:
        if trace:  # tracemalloc slows allocation-heavy inputs down; time it bare before blaming it
            return failure(run, data, trace=False)
        return "slow", f"{elapsed:.2f} s for {len(data)} bytes (limit {TIME_LIMIT} s)"
    jump = _peak_rss() - rss
    if peak > limit or jump > RSS_JUMP + limit:
        tracemalloc.start()  # again, warm: caches filled on a first call are not the input's doing
        run(data)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        if peak > limit:
            return "memory", f"Python peak {peak} bytes for {len(data)} input bytes (limit {MEMORY_FACTOR} x + {MEMORY_CONSTANT})"
        if jump > RSS_JUMP + limit:
            return "memory-native", f"peak RSS grew {jump} bytes during {len(data)} input bytes (limit {RSS_JUMP} + {limit})"
    return None


def _peak_rss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux


def _signature(exc: BaseException) -> str:
    if isinstance(exc, InvariantError):
        return f"InvariantError:{exc.name}"
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if "inlong_proto" in f.filename or "tools/fuzz" in f.filename] or frames
    where = f"{Path(ours[-1].filename).name}:{ours[-1].lineno}" if ours else "?"
    return f"{type(exc).__name__}@{where}"


# ------------------------------------------------------------------------------------------ seeds
def seeds(name: str) -> list[bytes]:
    """The target's test vectors (valid and malformed), the raw streams beside the captures, all valid
    frames of the protocol as one stream, and the stored crashers."""
    out: list[bytes] = []
    if name in FRAME_TARGETS:
        folder = {"eventmesh": "eventmesh/tcp", "eventmesh-legacy": "eventmesh/tcp"}.get(name, name)
        valid = []
        for path in sorted((VECTORS / folder).glob("*/*.json")):
            vector = json.loads(path.read_text())
            if vector.get("protocol", folder.split("/")[0]) == name and "hex" in vector:
                out.append(bytes.fromhex(vector["hex"]))
                if path.parent.name == "valid":
                    valid.append(out[-1])
        out.append(b"".join(valid))
        out += [p.read_bytes() for p in sorted((VECTORS / "capture").glob(f"{name}_*.bin"))]
    elif name == "eventmesh-http":
        for path in sorted((VECTORS / "eventmesh" / "http").glob("*.json")):
            vector = json.loads(path.read_text())
            out.append(bytes.fromhex(vector["hex"]) if "hex" in vector else vector["text"].encode("utf-8"))
    elif name == "eventmesh-grpc":  # small forms of the hostile recipes (tests/hostile_streams.py): valid frames too
        sys.path.insert(0, str(ROOT / "tests"))
        import hostile_streams as hostile

        out += [hostile.hpack_bomb(3, refs=20), hostile.open_streams(6), hostile.one_stream_messages(8),
                hostile.table_size_update(2, 20), b"".join(hostile.continuation_flood(40000, 20000)),
                hostile.gzip_bomb(1, 4096), hostile.random_bytes(2048)]
    elif name in ("capture", "capture-native"):
        out += [p.read_bytes() for p in sorted((VECTORS / "capture").iterdir()) if p.suffix in (".pcap", ".pcapng")]
    return out + crashers(name)


def crashers(name: str) -> list[bytes]:
    return [p.read_bytes() for p in sorted((CRASHERS / name).glob("*.bin"))]


def save_crasher(name: str, data: bytes) -> Path:
    path = CRASHERS / name / f"{hashlib.sha1(data).hexdigest()}.bin"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


# ------------------------------------------------------------------------------------------ worker
class _Worker:
    """The per-process loop: check each input, keep the smallest input per failure signature."""

    def __init__(self, name: str, memory: bool):
        self.name, self.memory = name, memory
        self.run = target(name)
        self.found: dict[str, tuple[int, Path]] = {}
        self.stored = set((CRASHERS / name).glob("*.bin"))  # regression inputs already kept: never removed
        self.count, self.started, self.reported = 0, None, 0.0

    def __call__(self, data: bytes) -> None:
        if self.started is None:
            self.started = time.perf_counter()
        self.count += 1
        found = failure(self.run, data, trace=self.memory and self.count % MEMORY_EVERY == 1)
        if found is not None:
            signature, text = found
            known = self.found.get(signature)
            if known is None or len(data) < known[0]:
                if known is not None and known[1] not in self.stored:
                    known[1].unlink(missing_ok=True)  # a smaller input shows the same failure
                path = save_crasher(self.name, data)
                self.found[signature] = (len(data), path)
                if known is None:
                    tag = "FUZZ-KNOWN" if signature in KNOWN.get(self.name, {}) else "FUZZ-CRASH"
                    print(f"{tag} {signature} {path.relative_to(ROOT)}\n{text}", file=sys.stderr, flush=True)
        now = time.perf_counter()
        if now - self.reported > 1.0:
            self.report()
            self.reported = now

    def report(self) -> None:
        elapsed = time.perf_counter() - self.started if self.started else 0.0
        print(f"FUZZ-STATS {json.dumps({'inputs': self.count, 'seconds': round(elapsed, 2), 'crashes': len(self.found)})}",
              file=sys.stderr, flush=True)


def worker(name: str, runs: int | None, seconds: float | None, memory: bool, corpus: Path, artifacts: Path,
           engine: str = "atheris") -> None:
    """Fuzz one target in this process (libFuzzer ends the process when done)."""
    try:
        import atheris
    except ImportError:
        atheris = None
    if engine == "random":
        atheris = None
    if atheris is not None:
        with atheris.instrument_imports(include=["inlong_proto"]):
            import inlong_proto  # noqa: F401
            target(name)  # imports the target's modules under instrumentation
    check = _Worker(name, memory)
    corpus.mkdir(parents=True, exist_ok=True)
    for data in seeds(name):
        (corpus / hashlib.sha1(data).hexdigest()).write_bytes(data)
    if atheris is None:
        _random_engine(check, [p.read_bytes()[:MAX_LEN.get(name, 1024)] for p in corpus.iterdir()], runs, seconds,
                       MAX_LEN.get(name, 1024))
        return
    args = [sys.argv[0], f"-max_len={MAX_LEN.get(name, 1024)}", "-timeout=20", "-rss_limit_mb=4096",
            "-print_final_stats=1", f"-artifact_prefix={artifacts}/", str(corpus)]
    if runs:
        args.insert(1, f"-runs={runs}")
    if seconds:
        args.insert(1, f"-max_total_time={max(1, int(seconds))}")
    atheris.Setup(args, check)
    atheris.Fuzz()


def _random_engine(check: _Worker, corpus: list[bytes], runs: int | None, seconds: float | None,
                   max_len: int) -> None:
    """The fallback without atheris: seeds, then random mutations of them (no coverage guidance)."""
    rng = random.Random(0)
    deadline = time.monotonic() + seconds if seconds else None
    for data in corpus:
        check(data)
    while (runs is None or check.count < runs) and (deadline is None or time.monotonic() < deadline):
        data = bytearray(rng.choice(corpus) or b"\0")
        for _ in range(rng.randint(1, 4)):
            op, at = rng.randrange(5), rng.randrange(len(data) + 1)
            if op == 0 and data:
                data[min(at, len(data) - 1)] ^= 1 << rng.randrange(8)
            elif op == 1:
                data[at:at] = bytes([rng.randrange(256)]) * rng.choice((1, 2, 4))
            elif op == 2:
                del data[at:at + rng.randint(1, 16)]
            elif op == 3 and len(data) >= at + 4:
                data[at:at + 4] = rng.choice((0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF)).to_bytes(4, "big")
            else:
                other = rng.choice(corpus)
                data[at:] = other[rng.randrange(len(other) + 1):]
        check(bytes(data[:max_len]))
    check.report()
    print(f"Done {check.count} runs", file=sys.stderr, flush=True)


# ------------------------------------------------------------------------------------------ driver
def _drive(name: str, args, log_dir: Path) -> dict:
    """Run one target's worker; its figures from the worker's and libFuzzer's own lines."""
    corpus = Path(args.corpus) / name
    artifacts = log_dir / f"{name}.artifacts"
    artifacts.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, str(Path(__file__).resolve()), "--worker", name, "--corpus", str(corpus),
               "--artifacts", str(artifacts)]
    if args.runs:
        command += ["--runs", str(args.runs)]
    if args.seconds:
        command += ["--seconds", str(args.seconds)]
    if args.no_memory:
        command.append("--no-memory")
    command += ["--engine", args.engine]
    log = log_dir / f"{name}.log"
    handle = open(log, "wb")
    return {"name": name, "process": subprocess.Popen(command, stdout=handle, stderr=subprocess.STDOUT, cwd=ROOT),
            "log": log, "handle": handle, "artifacts": artifacts, "started": time.monotonic()}


def _summary(job: dict) -> dict:
    text = job["log"].read_text(errors="replace")
    stats = [json.loads(m) for m in re.findall(r"^FUZZ-STATS (.*)$", text, re.M)]
    last = stats[-1] if stats else {"inputs": 0, "seconds": 0.0, "crashes": 0}
    done = re.findall(r"^Done (\d+) runs in (\d+) second", text, re.M)  # libFuzzer's own final count
    if done and int(done[-1][0]) > last["inputs"]:  # the worker reports once a second, so it lags at the end
        last = {**last, "inputs": int(done[-1][0]), "seconds": max(last["seconds"], float(done[-1][1]))}
    coverage = re.findall(r"\bcov: (\d+) ft: (\d+)", text)
    crashes = re.findall(r"^FUZZ-CRASH (\S+) (\S+)", text, re.M)
    known = re.findall(r"^FUZZ-KNOWN (\S+) (\S+)", text, re.M)
    aborted = []
    for artifact in sorted(job["artifacts"].iterdir()):  # libFuzzer's own: a hang past -timeout, an OOM
        path = save_crasher(job["name"], artifact.read_bytes())
        aborted.append((artifact.name.split("-")[0], str(path.relative_to(ROOT))))
    return {"target": job["name"], "inputs": last["inputs"], "seconds": last["seconds"],
            "inputs_per_s": round(last["inputs"] / last["seconds"]) if last["seconds"] else 0,
            "coverage": {"edges": int(coverage[-1][0]), "features": int(coverage[-1][1])} if coverage else None,
            "crashes": [{"signature": s, "input": p} for s, p in crashes] + [{"signature": s, "input": p}
                                                                              for s, p in aborted],
            "known": [{"signature": s, "input": p} for s, p in known],
            "exit": job["process"].returncode, "log": str(job["log"])}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--target", action="append", choices=TARGETS, help="a target (repeat; default: all)")
    parser.add_argument("--runs", type=int, help="inputs per target (libFuzzer -runs, seeds included)")
    parser.add_argument("--seconds", type=float, help="seconds per target (default 30 when --runs is not given)")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), help="targets run at once")
    parser.add_argument("--no-memory", action="store_true", help="no tracemalloc samples (the RSS check stays)")
    parser.add_argument("--engine", choices=("atheris", "random"), default="atheris",
                        help="random: the plain mutator that also runs when atheris is not installed")
    parser.add_argument("--corpus", default=str(ROOT / "build" / "fuzz" / "corpus"),
                        help="where each target's working corpus grows (default build/fuzz/corpus)")
    parser.add_argument("--json", help="also write the per-target figures to this file")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--artifacts", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.worker, args.runs, args.seconds, not args.no_memory, Path(args.corpus), Path(args.artifacts),
               args.engine)
        return 0
    if not args.runs and not args.seconds:
        args.seconds = 30.0
    names = args.target or list(TARGETS)
    log_dir = Path(tempfile.mkdtemp(prefix="inlong-fuzz-"))
    pending, running, results = list(names), [], []
    while pending or running:
        while pending and len(running) < max(1, args.jobs):
            running.append(_drive(pending.pop(0), args, log_dir))
        time.sleep(0.2)
        for job in [j for j in running if j["process"].poll() is not None]:
            running.remove(job)
            job["handle"].close()
            results.append(_summary(job))
            _print(results[-1])
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
    total = sum(len(r["crashes"]) for r in results)
    broken = [r["target"] for r in results if r["exit"] not in (0, None) and not r["crashes"]]
    print(f"fuzz: {len(results)} targets, {sum(r['inputs'] for r in results)} inputs, {total} crash(es)"
          + (f"; worker failed: {', '.join(broken)} (see the logs in {log_dir})" if broken else ""))
    return 1 if total or broken else 0


def _print(result: dict) -> None:
    coverage = (f"cov {result['coverage']['edges']} edges / {result['coverage']['features']} features"
                if result["coverage"] else "cov n/a")
    print(f"{result['target']:16} {result['inputs']:>10} inputs {result['seconds']:>8.1f} s "
          f"{result['inputs_per_s']:>7}/s  {coverage}  crashes: {len(result['crashes'])}", flush=True)
    for crash in result["crashes"]:
        print(f"    {crash['signature']}: {crash['input']}", flush=True)
    for crash in result["known"]:
        print(f"    known, not counted: {crash['signature']}: {crash['input']}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
