"""Write the sample files that ship in examples/data/ (small, deterministic, committed):

    .venv/bin/python tools/make_examples.py [--out examples/data] [--check]

* broadcast.bin       a broadcast server's replies to a client: a lost last value, history, real time
* dataproxy.bin       a DataProxy client's requests as the Java SDK sends them (text and binary layouts, Snappy,
                      per-record attributes, heartbeats), built with inlong_proto.dataproxy.builders
* tubemq.bin          a TubeMQ producer's calls to a broker and the answers, built with inlong_proto.tubemq.rpc
* eventmesh.bin       an EventMesh TCP session: hello, subscribe, listen, heartbeat, a publish, a push, goodbye
                      (the test vectors, both directions)
* eventmesh-http.bin  the requests of an EventMesh HTTP client, built with inlong_proto.eventmesh.http
* eventmesh-grpc.bin  the client side of an EventMesh gRPC connection (HTTP/2), taken from the tests' tcpdump
                      capture of the reference endpoints
* mixed.pcap          all six protocols in one capture, each a TCP conversation on its default port (broadcast
                      on 9000), interleaved in time, written with inlong_proto.capture.writer

Every byte is derived from the builders, the codecs and tests/vectors with fixed times and ids, so a second
run writes the same files; --check compares instead of writing (tests/test_examples_data.py runs it).
"""
from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import inlong_proto  # noqa: E402
from inlong_proto.capture import iter_capture_frames, iter_packets  # noqa: E402
from inlong_proto.capture.tcp import segment_of  # noqa: E402
from inlong_proto.capture.writer import Conversation, pcap_file  # noqa: E402
from inlong_proto.dataproxy import builders  # noqa: E402
from inlong_proto.dataproxy.payload import MsgType  # noqa: E402
from inlong_proto.eventmesh import http  # noqa: E402
from inlong_proto.generated.codec.broadcast import broadcast_frame as bf  # noqa: E402
from inlong_proto.generated.protobuf.tubemq import BrokerService_pb2 as broker_pb2  # noqa: E402
from inlong_proto.tubemq import rpc  # noqa: E402

VECTORS = ROOT / "tests" / "vectors"
OUT = ROOT / "examples" / "data"
T0_MS = 1_795_363_200_000  # 2026-11-22 16:00:00 UTC: every time in the samples counts from here
# Ordered (client stream, server stream) pairs need these default server ports; broadcast has none.
PORTS = {"broadcast": 9000, "dataproxy": 46801, "tubemq": 8123, "eventmesh": 10000, "eventmesh-http": 10105,
         "eventmesh-grpc": 10205}


def _vector(path: Path) -> bytes:
    return bytes.fromhex(json.loads(path.read_text())["hex"])


# ------------------------------------------------------------------------------------------- each protocol
# Each builder gives one connection as [(side, bytes)], in the order the sides sent them: side "client" or
# "server", one message (frame, HTTP message) each.
Turns = list[tuple[str, bytes]]


def broadcast() -> Turns:
    """A client that held value 17 from before the server restarted: the server does not find it, replays its
    history (the first item flagged last_data_not_found) and then sends real-time values, one a second."""
    start = datetime(2026, 11, 22, 16, 0, 0)
    request = bf.BroadcastFrame(body=bf.DataRequest(last_timestamp=start - timedelta(hours=1), last_data=17))
    turns = [("client", inlong_proto.encode(request))]
    for second in range(24):
        status = (bf.Status.last_data_not_found if second == 0 else bf.Status.history if second < 12
                  else bf.Status.real_time)
        at = start + timedelta(seconds=second, milliseconds=125)
        reply = bf.BroadcastFrame(body=bf.DataResponse(status=status, timestamp=at, data=(second * 37 + 11) % 100))
        turns.append(("server", inlong_proto.encode(reply)))
    return turns


def dataproxy() -> Turns:
    """An SDK's requests (one per layout it uses), each followed by the server's answer."""
    def ms(seconds: float) -> int:
        return T0_MS + int(seconds * 1000)

    common = {"report_time_ms": None}
    requests = [
        builders.heartbeat_request(data_time_ms=ms(0)),
        builders.text_request([b"order-1001,created,42.50", b"order-1002,created,7.99"], group_id="orders",
                              stream_id="created", data_time_ms=ms(1), message_id=1, **common),
        builders.text_request([f"GET /item/{n} 200".encode() for n in range(6)], group_id="logs",
                              stream_id="nginx", data_time_ms=ms(2), message_id=2, compress=True, **common),
        builders.text_request([b'{"user":7,"page":"/"}', b'{"user":9,"page":"/cart"}'], group_id="clicks",
                              stream_id="web", data_time_ms=ms(3), message_id=3, msg_type=MsgType.multi_body,
                              **common),
        builders.text_request([b"order-1001,paid", b"order-1003,paid"], group_id="orders", stream_id="paid",
                              data_time_ms=ms(4), message_id=4, msg_type=MsgType.multi_body_attr,
                              record_attrs=[{"region": "eu"}, {"region": "us"}], **common),
        builders.bin_request([f"click {n}".encode() for n in range(8)], group_id="clicks", stream_id="app",
                             data_time_ms=ms(5), unique_id=5, compress=True, **common),
        builders.bin_request([b"boot ok", b"disk 71%"], group_id="logs", stream_id="app", data_time_ms=ms(6),
                             unique_id=6, record_attrs=[{"host": "app-1"}, {"host": "app-2"}], **common),
        builders.bin_request([b"line one", b"line two", b"line three"], group_id="logs", stream_id="app",
                             data_time_ms=ms(7), unique_id=7, separated_by_lf=True, **common),
        builders.heartbeat_request(data_time_ms=ms(30)),
    ]
    turns = []
    for index, request in enumerate(requests):
        received = ms(index + 0.002)
        if request.base_type == MsgType.bin_heartbeat:
            answer = builders.heartbeat_response(request, server_time_s=received // 1000)
        elif request.base_type == MsgType.bin_multi_body:
            answer = builders.bin_response(request, dp_ip="10.1.0.5", receive_time_ms=received)
        else:
            answer = builders.text_response(request, dp_ip="10.1.0.5", receive_time_ms=received)
        turns += [("client", inlong_proto.encode(request)), ("server", inlong_proto.encode(answer))]
    return turns


def tubemq() -> Turns:
    """A producer's connection to a broker (rpc's builders): five messages sent, each acknowledged, the last
    one after the broker ran out of room (an exception answer)."""
    producer = "10.2.0.7-3145-1795363200000-1-Producer"
    turns = []
    for serial in range(1, 6):
        data, flag = rpc.encode_message_data(f"order-{1000 + serial},created".encode(),
                                             "region=eu" if serial % 2 else "")
        request = broker_pb2.SendMessageRequestP2B(clientId=producer, topicName="orders", partitionId=serial % 3,
                                                   data=data, flag=flag, checkSum=-1, sentAddr=167903239)
        answer = (rpc.response_frame(serial, "sendMessageP2B", broker_pb2.SendMessageResponseB2P(
                  success=True, errCode=200, errMsg="OK!")) if serial < 5 else
                  rpc.exception_frame(serial, "org.apache.inlong.tubemq.corebase.exception.ServerRejectedException",
                                      "the broker's store is full"))
        turns += [("client", inlong_proto.encode(rpc.request_frame(serial, "sendMessageP2B", request))),
                  ("server", inlong_proto.encode(answer))]
    return turns


# An EventMesh TCP session as (vector, side): the tests' vectors in the order a session has them.
EVENTMESH_SESSION = [
    ("worked_b_hello_request", "client"), ("worked_c_hello_response", "server"), ("subscribe_request", "client"),
    ("subscribe_response", "server"), ("listen_request", "client"), ("listen_response_succeed", "server"),
    ("worked_a_heartbeat_request", "client"), ("heartbeat_response", "server"),
    ("async_message_to_server_eventmeshmessage", "client"), ("async_message_to_server_ack", "server"),
    ("async_message_to_client_push", "server"), ("async_message_to_client_ack", "client"),
    ("broadcast_message_to_server_cloudevents", "client"), ("broadcast_message_to_server_ack", "server"),
    ("client_goodbye_request", "client"), ("client_goodbye_response", "server"),
]


def eventmesh() -> Turns:
    folder = VECTORS / "eventmesh" / "tcp" / "valid"
    return [(side, _vector(folder / f"{name}.json")) for name, side in EVENTMESH_SESSION]


def eventmesh_http() -> Turns:
    """A subscriber's heartbeat and subscription, three publishes (one a CloudEvent), its unsubscription, each
    answered by the runtime."""
    config = http.ClientConfig()
    url = "http://10.4.0.31:8088/hook"
    item = http.SubscriptionItem(topic="orders", mode=http.SubscriptionMode.CLUSTERING,
                                 type=http.SubscriptionType.ASYNC)
    event = http.CloudEvent.from_json({"specversion": "1.0", "id": "evt-3", "source": "/shop", "type": "order.paid",
                                       "subject": "orders", "datacontenttype": "text/plain", "data": "order-1003"})
    code = http.RequestCode
    requests = [
        (http.heartbeat(config, ["orders"], url), code.HEARTBEAT),
        (http.subscribe(config, [item], url), code.SUBSCRIBE),
        (http.send_message(config, "orders", "order-1001", ttl="4000", bizseqno="b-1", uniqueid="u-1"),
         code.MSG_SEND_ASYNC),
        (http.send_message(config, "orders", "order-1002", ttl="4000", bizseqno="b-2", uniqueid="u-2"),
         code.MSG_SEND_ASYNC),
        (http.send_cloudevent(config, event), code.MSG_SEND_ASYNC),
        (http.unsubscribe(config, ["orders"], url), code.UNSUBSCRIBE),
    ]
    turns = []
    for index, (request, request_code) in enumerate(requests):
        turns += [("client", request), ("server", http.response(request_code, 0, "success", T0_MS + 100 * index))]
    return turns


def eventmesh_grpc() -> Turns:
    """The reference endpoints' gRPC connection as the tests' tcpdump capture holds it: each side's stream
    (the capture's TCP payloads; loopback, nothing lost or resent) cut into its HTTP/2 frames, in the order
    the capture reader gives them."""
    capture = (VECTORS / "capture" / "eventmesh_grpc_lo.pcap").read_bytes()
    streams = {"request": b"", "response": b""}
    for packet in iter_packets(capture):
        segment = segment_of(packet.linktype, packet.data)
        if segment is not None and segment.data:
            streams["response" if segment.src_port == PORTS["eventmesh-grpc"] else "request"] += segment.data
    turns = []
    for item in iter_capture_frames(capture, "eventmesh-grpc", "FAILFAST"):
        if item.frame.kind == "frame":
            data = streams[item.direction][item.frame.offset:item.frame.offset + item.frame.length]
            turns.append(("client" if item.direction == "request" else "server", data))
    return turns


BUILDERS = {"broadcast": broadcast, "dataproxy": dataproxy, "tubemq": tubemq, "eventmesh": eventmesh,
            "eventmesh-http": eventmesh_http, "eventmesh-grpc": eventmesh_grpc}
# What a raw dump of each protocol holds: both sides where every frame says its direction (TubeMQ, EventMesh
# TCP); one side where it does not, as the endpoints' --record writes it: the replies a broadcast client
# received, the requests a DataProxy server received (its text layout reads both ways), and the client's side
# of HTTP and gRPC (a raw dump of those is one direction of a connection).
DUMP_SIDES = {"broadcast": ("server",), "dataproxy": ("client",), "eventmesh-http": ("client",),
              "eventmesh-grpc": ("client",)}


# ------------------------------------------------------------------------------------------------- files
def dumps() -> dict[str, bytes]:
    """file name -> bytes of each protocol's raw dump."""
    out = {}
    for name, build in BUILDERS.items():
        sides = DUMP_SIDES.get(name, ("client", "server"))
        out[f"{name}.bin"] = b"".join(data for side, data in build() if side in sides)
    return out


def mixed() -> bytes:
    """Each protocol's connection from its own client host to its server, one message every 20 ms, the
    connections started 7 ms apart so that their packets interleave."""
    packets = []
    for number, (name, build) in enumerate(BUILDERS.items()):
        conversation = Conversation((f"10.9.0.{11 + number}", 41000 + number),
                                    (f"10.9.1.{number + 1}", PORTS[name]),
                                    isn=(1000 * (number + 1), 500000 * (number + 1)))
        ts = (T0_MS + 7 * number) * 10**6
        packets += conversation.open(ts)
        for side, data in build():
            ts += 20 * 10**6
            packets += conversation.send(side, data, ts)
        packets += conversation.close(ts + 20 * 10**6)
    packets.sort(key=lambda packet: packet[0])  # stable: a connection's packets keep their order
    return pcap_file(packets)


def files() -> dict[str, bytes]:
    return {**dumps(), "mixed.pcap": mixed()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--check", action="store_true", help="compare with the files there instead of writing")
    args = parser.parse_args()
    stale = []
    for name, data in files().items():
        target = args.out / name
        if args.check:
            if not target.is_file() or target.read_bytes() != data:
                stale.append(name)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            print(f"{target.relative_to(ROOT) if target.is_relative_to(ROOT) else target}: {len(data):,} bytes")
    if stale:
        print(f"make_examples: differs from what it writes: {', '.join(stale)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
