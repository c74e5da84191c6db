"""`make bench`: a dump into Arrow, compiled backend against pure Python and the `struct` baseline.

Per protocol (--protocol, both by default): broadcast (tools/bench/codecs.py's frames, one in eight a request) and
dataproxy (SDK-like requests: seven in eight MsgType 7 binary messages with a 64-320 byte body and the
usual attributes, one in eight a MsgType 3 text message) and eventmesh (six in eight ASYNC_MESSAGE_TO_SERVER
with an EventMeshMessage body, a heartbeat, a server reply) and tubemq (a producer's sendMessageP2B calls with
100-400 byte payloads and attributes, every fourth frame the broker's answer), read with direction None.
All on the same dump, in one process: each path run --repeat times in a row, in two passes over the paths,
the best run kept:

* raw read: the dump file read into memory (the floor any parser sits on);
* struct baseline: a hand-written `struct` decoder walking the dump (broadcast: tools/bench/codecs.py's; dataproxy:
  dataproxy_walk below, the same checks as the spec; eventmesh: eventmesh_walk below, the frame's checks
  and json.loads of the header, not the payload layer's typing; tubemq: tubemq_walk below, the blocks
  walked and joined, not the protobuf), a Python tuple per frame, no Arrow;
* pure iter_frames: the generated Python codec through iter_frames (PERMISSIVE), Frame objects, no Arrow;
* pure -> Arrow: arrow.frames_to_batch over that iter_frames, the table the Spark readers build today;
* native -> Arrow: inlong_proto.backends.compiled.scan_batch, the C scanner generated from the same spec (same table,
  checked equal before timing); for eventmesh and tubemq the compiled payload layer (generated from the JSON
  Schemas and the .proto files) answers each frame's message type and direction, Python only where it is
  unsure (none of these frames); one scan of the whole dump (up to native.WHOLE_BYTES);
* native -> Arrow batches: native.iter_batches, the same rows as the record batches the Spark readers
  stream (at most 65,536 rows or about 16 MiB of frames each), each dropped once counted, as a reader
  streaming them drops it (so its column buffers are reused: scan_batch's table of a whole dump bigger than
  the compiled scanners' pool of freed buffers, 64 MiB, is built in fresh pages the kernel zeroes first).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import struct
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import inlong_proto  # noqa: E402
from inlong_proto.core import arrow
from inlong_proto import iter_frames
from inlong_proto.backends import compiled as native  # noqa: E402
from inlong_proto.generated.codec.broadcast import broadcast_frame as bf  # noqa: E402
from inlong_proto.generated.codec.dataproxy import dataproxy_common as dc  # noqa: E402
from inlong_proto.generated.codec.dataproxy import dataproxy_request as dreq  # noqa: E402
from inlong_proto.eventmesh import tcp  # noqa: E402
from inlong_proto.tubemq import rpc  # noqa: E402
from tools.bench.codecs import handwritten_decode, make_frames  # noqa: E402


def struct_walk(data: bytes) -> int:
    """The hand-written baseline over a dump: frame sizes from the header, each frame decoded."""
    pos, count, end = 0, 0, len(data)
    header = bf._S0  # only to read the length; the baseline itself is tools/bench.handwritten_decode
    while pos < end:
        total = header.unpack_from(data, pos)[0]
        handwritten_decode(data[pos:pos + total])
        pos += total
        count += 1
    return count


def make_dataproxy_frames(count: int, seed: int = 7) -> list[bytes]:
    """What an SDK sends: mostly MsgType 7 binary messages, every eighth a MsgType 3 text message."""
    rng = random.Random(seed)
    frames = []
    for index in range(count):
        records = b"\n".join(b"record-%d,%d,%s" % (index, n, b"x" * rng.randrange(16, 64))
                              for n in range(rng.randint(1, 5)))
        attr = f"groupId=g{rng.randrange(10)}&streamId=s{rng.randrange(10)}&dt={1700000000000 + index}" \
               f"&cnt=1&sdkVersion=1.9.0&messageId={index}"
        if index % 8 == 7:
            body = dc.TextMessage(body=records, attr=attr)
            base_type = dc.MsgType.ack_service
        else:
            ext = dc.ExtField(reserved=0, separated_by_lf=True, index_message=False, file_check=False,
                              ids_as_strings=True, trace=False, per_record_attributes=False)
            body = dreq.BinMessage(group_num=0, stream_num=0, ext_field=ext, data_time=1700000000 + index, msg_cnt=1,
                                   unique_id=index, body=len(records).to_bytes(4, "big") + records, attr=attr)
            base_type = dc.MsgType.bin_multi_body
        frames.append(inlong_proto.encode(dreq.DataproxyRequest(auth=False, encrypted=False, compressed=False,
                                                                base_type=base_type, body=body)))
    return frames


_DP_HEADER = struct.Struct(">IB")
_DP_BIN = struct.Struct(">HHHIHIi")
_DP_LEN4, _DP_LEN2 = struct.Struct(">i"), struct.Struct(">h")


def dataproxy_walk(data: bytes) -> int:
    """The hand-written baseline over a DataProxy request dump: the spec's checks for MsgType 3 and 7
    (lengths in range, UTF-8 attributes, the magic), a tuple per frame."""
    pos, count, end = 0, 0, len(data)
    while pos < end:
        total, msg_type = _DP_HEADER.unpack_from(data, pos)
        stop = pos + 4 + total
        if not 1 <= total or stop > end:
            raise ValueError("total_len")
        base = msg_type & 0x1F
        at = pos + 5
        if base == 7:
            group, stream, ext, data_time, cnt, unique, body_len = _DP_BIN.unpack_from(data, at)
            at += 20
            if body_len < 0 or at + body_len + 2 > stop:
                raise ValueError("body_len")
            body = data[at:at + body_len]
            at += body_len
            attr_len, = _DP_LEN2.unpack_from(data, at)
            at += 2
            if attr_len < 0 or at + attr_len + 2 > stop:
                raise ValueError("attr_len")
            attr = data[at:at + attr_len].decode("utf-8")
            if data[at + attr_len:at + attr_len + 2] != b"\xee\x01":
                raise ValueError("magic")
            item = (total, msg_type, group, stream, ext, data_time, cnt, unique, body, attr)
        elif 1 <= base <= 6:
            body_len, = _DP_LEN4.unpack_from(data, at)
            at += 4
            if body_len < 0 or at + body_len + 4 > stop:
                raise ValueError("body_len")
            body = data[at:at + body_len]
            attr_len, = _DP_LEN4.unpack_from(data, at + body_len)
            at += body_len + 4
            if attr_len < 0 or at + attr_len != stop:
                raise ValueError("attr_len")
            item = (total, msg_type, body, data[at:stop].decode("utf-8"))
        else:
            raise ValueError("msg_type")
        del item
        pos = stop
        count += 1
    return count


def make_eventmesh_frames(count: int, seed: int = 7) -> list[bytes]:
    """A client's traffic: mostly async messages (EventMeshMessage bodies), some heartbeats and replies."""
    rng = random.Random(seed)
    frames = []
    for index in range(count):
        kind = index % 8
        if kind == 6:
            message = tcp.heartbeat(seq=str(index))
        elif kind == 7:
            message = tcp.reply(tcp.Command.ASYNC_MESSAGE_TO_SERVER_ACK, seq=str(index - 1))
        else:
            event = tcp.EventMeshMessage(topic=f"topic-{rng.randrange(10)}", properties={"ttl": "4000", "keys": str(index)},
                                         headers={}, body="x" * rng.randrange(64, 256))
            message = tcp.message(tcp.Command.ASYNC_MESSAGE_TO_SERVER, event, seq=str(index))
        frames.append(inlong_proto.encode(message))
    return frames


_EM_HEAD = struct.Struct(">13sii")


def eventmesh_walk(data: bytes) -> int:
    """The hand-written baseline over an EventMesh dump: magic and version, the lengths in range, the
    header JSON parsed with json.loads (not typed), the body sliced, a tuple per frame."""
    pos, count, end = 0, 0, len(data)
    while pos < end:
        magic, package_length, header_length = _EM_HEAD.unpack_from(data, pos)
        if magic != b"EventMesh0000" or not 13 <= package_length <= 4194296 or header_length < 1:
            raise ValueError("header")
        stop = pos + package_length + 8
        at = pos + 21
        if at + header_length > stop or stop > end:
            raise ValueError("length")
        item = (package_length, json.loads(data[at:at + header_length].decode("utf-8")), data[at + header_length:stop])
        del item
        pos = stop
        count += 1
    return count


def make_tubemq_frames(count: int, seed: int = 7) -> list[bytes]:
    """A producer's traffic: sendMessageP2B calls, every fourth frame the broker's answer to one."""
    rng = random.Random(seed)
    service = rpc.BrokerService_pb2
    frames = []
    for index in range(count):
        if index % 4 == 3:
            answer = service.SendMessageResponseB2P(success=True, errCode=200, errMsg="OK")
            frame = rpc.response_frame(index - 1, "sendMessageP2B", answer)
        else:
            data, flag = rpc.encode_message_data(b"p" * rng.randrange(100, 400), f"msgType=s{rng.randrange(5)}")
            call = service.SendMessageRequestP2B(clientId="bench-producer", topicName=f"topic-{rng.randrange(10)}",
                                                 partitionId=rng.randrange(8), data=data, flag=flag, checkSum=-1,
                                                 sentAddr=167772161)
            frame = rpc.request_frame(index, "sendMessageP2B", call)
        frames.append(inlong_proto.encode(frame))
    return frames


_TQ_HEAD = struct.Struct(">4sii")


def tubemq_walk(data: bytes) -> int:
    """The hand-written baseline over a TubeMQ dump: token, list size and block lengths in range, the
    blocks joined into the RPC stream (not parsed), a tuple per frame."""
    pos, count, end = 0, 0, len(data)
    while pos < end:
        token, serial, blocks = _TQ_HEAD.unpack_from(data, pos)
        if token != b"\xff\x7f\xf4\xfe" or not 1 <= blocks <= 3584:
            raise ValueError("header")
        at, pieces = pos + 12, []
        for _ in range(blocks):
            size, = _DP_LEN4.unpack_from(data, at)
            if not 0 <= size <= 8192 or at + 4 + size > end:
                raise ValueError("block")
            pieces.append(data[at + 4:at + 4 + size])
            at += 4 + size
        item = (serial, b"".join(pieces))
        del item
        pos = at
        count += 1
    return count


def timed_rounds(paths: list, repeat: int, passes: int = 2) -> list[tuple[str, float]]:
    """(name, best seconds) of each path: each pass times every path `repeat` times in a row (a path's own
    steady state: the compiled scans reuse their buffers), and the passes go round all paths again, so that
    a slow spell of this shared machine does not fall on one path only (the ratios are the point)."""
    best = {name: float("inf") for name, _ in paths}
    for _ in range(passes):
        for name, fn in paths:
            for _ in range(repeat):
                start = time.perf_counter()
                fn()
                best[name] = min(best[name], time.perf_counter() - start)
    return list(best.items())


DUMPS = {"broadcast": (make_frames, struct_walk), "dataproxy": (make_dataproxy_frames, dataproxy_walk),
         "eventmesh": (make_eventmesh_frames, eventmesh_walk), "tubemq": (make_tubemq_frames, tubemq_walk)}


def bench(protocol: str, count: int, repeat: int) -> None:
    make, walk = DUMPS[protocol]
    data = b"".join(make(count))
    frames, size = count, len(data)
    print(f"{protocol} dump: {frames:,} frames, {size / 1e6:.1f} MB; backend: {inlong_proto.backend()}; "
          f"best of {repeat} runs in a row, in 2 passes")
    if inlong_proto.backend() != "native":
        print("the compiled backend is not built or is turned off: native figures skipped")
    else:
        assert native.scan_batch(data, protocol, "bench").equals(
            arrow.frames_to_batch("bench", iter_frames(data, protocol, mode="PERMISSIVE"), protocol))
    with tempfile.NamedTemporaryFile(delete=False) as handle:
        handle.write(data)
    assert walk(data) == frames
    paths = [("raw read", lambda: Path(handle.name).read_bytes()),
             ("struct baseline (tuples)", lambda: walk(data)),
             ("pure iter_frames (Frames)", lambda: sum(1 for _ in iter_frames(data, protocol, mode="PERMISSIVE"))),
             ("pure -> Arrow", lambda: arrow.frames_to_batch("bench", iter_frames(data, protocol, mode="PERMISSIVE"),
                                                              protocol))]
    if inlong_proto.backend() == "native":
        paths += [("native -> Arrow", lambda: native.scan_batch(data, protocol, "bench")),
                  ("native -> Arrow batches", lambda: sum(b.num_rows for b in native.iter_batches(data, protocol,
                                                                                                "bench")))]
    try:
        rows = timed_rounds(paths, repeat)
    finally:
        os.unlink(handle.name)
    baseline = dict(rows)["struct baseline (tuples)"]
    pure = dict(rows)["pure -> Arrow"]
    print(f"{'path':28} {'frames/s':>12} {'MB/s':>9} {'x struct':>9} {'x pure->Arrow':>14}")
    for name, seconds in rows:
        print(f"{name:28} {frames / seconds:12,.0f} {size / seconds / 1e6:9.1f} {baseline / seconds:9.2f} "
              f"{pure / seconds:14.2f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--protocol", choices=sorted(DUMPS), action="append",
                        help="the dumps to time (repeatable; all by default)")
    args = parser.parse_args()
    for protocol in args.protocol or sorted(DUMPS):
        bench(protocol, args.frames, args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
