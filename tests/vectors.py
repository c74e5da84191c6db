"""Test vectors are data (tests/vectors/<protocol>/{valid,malformed}/*.json); this reads them."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from inlong_proto.capture.writer import Conversation, pcap_file

ROOT = Path(__file__).parent / "vectors"


def load(protocol: str, kind: str) -> list:
    """pytest params, one per vector file, with the file name as id."""
    files = sorted((ROOT / protocol / kind).glob("*.json"))
    assert files, f"no {kind} vectors for {protocol}"
    return [pytest.param(json.loads(f.read_text()), id=f.stem) for f in files]


# Where each protocol's vectors live (EventMesh also has HTTP vectors, which are not frames).
FRAME_FOLDERS = {"broadcast": "broadcast", "dataproxy": "dataproxy", "tubemq": "tubemq", "eventmesh": "eventmesh/tcp",
                 "eventmesh-frame": "eventmesh/frame"}


def valid_frames(directions=None) -> dict[str, list[bytes]]:
    """protocol -> the bytes of its valid frame vectors, in file order. A vector may name its own protocol
    (EventMesh's legacy length form); `directions`, if given, keeps only vectors sent that way."""
    out: dict[str, list[bytes]] = {}
    for default, folder in FRAME_FOLDERS.items():
        for path in sorted((ROOT / folder / "valid").glob("*.json")):
            vector = json.loads(path.read_text())
            if directions is None or vector.get("direction") in directions:
                out.setdefault(vector.get("protocol") or default, []).append(bytes.fromhex(vector["hex"]))
    return out


# ------------------------------------------------------------------ captures of the vectors (capture writer)
T0 = 1_700_000_000 * 10**9
SERVER = "10.0.0.2"  # of every flow the captures below hold


def http_streams() -> dict[str, bytes]:
    """The valid EventMesh HTTP vectors pipelined: requests (and pushes) as one client stream, responses as
    one server stream; the read-to-close HTTP/1.0 reply goes last, as it ends its stream."""
    out = {"request": [], "response": []}
    for path in sorted((ROOT / "eventmesh" / "http").glob("*.json")):
        vector = json.loads(path.read_text())
        if vector["kind"] != "valid":
            continue
        text = vector["text"].encode("utf-8")
        out["response" if text.startswith(b"HTTP/") else "request"].append((path.stem == "http10_read_to_close", text))
    return {d: b"".join(t for _, t in sorted(items, key=lambda item: item[0])) for d, items in out.items()}


HTTP_STREAMS = http_streams()
_SENT = {"request": valid_frames(["request"]), "response": valid_frames(["response"])}
_TCP = valid_frames([None])["eventmesh"]
# protocol -> (client stream, server stream): every valid vector, pipelined
STREAMS = {
    "eventmesh-http": (HTTP_STREAMS["request"], HTTP_STREAMS["response"]),
    "tubemq": (b"".join(_SENT["request"]["tubemq"]), b"".join(_SENT["response"]["tubemq"])),
    "dataproxy": (b"".join(_SENT["request"]["dataproxy"]), b"".join(_SENT["response"]["dataproxy"])),
    "broadcast": (next(f for f in _SENT["request"]["broadcast"] if len(f) == 37),
                  b"".join(f for f in _SENT["response"]["broadcast"] if len(f) == 38)),
    "eventmesh": (b"".join(_TCP[::2]), b"".join(_TCP[1::2])),
    "eventmesh-grpc": (b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes(range(40)), bytes(9) + b"\x04"),
}


def talk(client: bytes, server: bytes, port: int, *, host: str = "10.0.0.1", client_port: int = 40000,
         mss: int = 97, t0: int = T0, turns: int = 4) -> list:
    """One connection: the client's and the server's streams in `turns` alternating pieces, 1 ms apart."""
    conv = Conversation((host, client_port), (SERVER, port), mss=mss)
    packets = conv.open(t0)
    for turn in range(turns):
        for index, (side, data) in enumerate((("client", client), ("server", server))):
            piece = data[len(data) * turn // turns:len(data) * (turn + 1) // turns]
            packets += conv.send(side, piece, t0 + (2 * turn + index + 1) * 10**6)
    return packets + conv.close(t0 + (2 * turns + 1) * 10**6)


def mixed_capture() -> tuple[bytes, dict[int, tuple[str, bytes, bytes]]]:
    """A pcap of one flow per protocol of STREAMS on its default port (broadcast, which has none, on 9000),
    started 0.5 ms apart so that their packets interleave; also {flow number: (protocol, client, server)}."""
    ports = {"eventmesh-http": 10105, "tubemq": 8715, "dataproxy": 46801, "broadcast": 9000, "eventmesh": 10000,
             "eventmesh-grpc": 10205}
    packets, flows = [], {}
    for number, (protocol, (client, server)) in enumerate(STREAMS.items()):
        packets += talk(client, server, ports[protocol], client_port=41000 + number, t0=T0 + number * 10**6 // 2)
        flows[number] = (protocol, client, server)
    return pcap_file(sorted(packets), nano=True), flows


# The frames of each framed protocol, as (client frames, server frames), for captures built frame by frame.
FRAMES = {"dataproxy": (_SENT["request"]["dataproxy"], _SENT["response"]["dataproxy"]),
          "tubemq": (_SENT["request"]["tubemq"], _SENT["response"]["tubemq"]),
          "eventmesh": (_TCP[::2], _TCP[1::2])}


def reordered_talk(protocol: str, port: int, *, seed: int = 1, count: int = 30, host: str = "10.0.0.1",
                   client_port: int = 40000) -> list:
    """One connection of `count` request / response turns of a protocol of FRAMES (its vectors in turn), each
    frame sent in segments of a random size (5-200 bytes), some neighbouring data segments swapped and one
    sent twice (an identical retransmission) a little later: the capture a busy or lossy network gives, in
    which Wireshark finds every frame only with out-of-order reassembly. [(timestamp ns, IP packet)]."""
    import random

    rng = random.Random(seed)
    requests, responses = FRAMES[protocol]
    conv = Conversation((host, client_port), (SERVER, port))
    head = [p for _, p in conv.open(0)]
    data = []
    for turn in range(count):
        for side, pool in (("client", requests), ("server", responses)):
            conv.mss = rng.randint(5, 200)
            data += [p for _, p in conv.send(side, pool[turn % len(pool)], 0)]
    for index in range(len(data) - 1):
        if rng.random() < 0.15:
            data[index], data[index + 1] = data[index + 1], data[index]
    again = rng.randrange(len(data) - 3)
    data.insert(again + 3, data[again])
    packets = head + data + [p for _, p in conv.close(0)]
    return [(T0 + index * 10**5, packet) for index, packet in enumerate(packets)]
