"""A realistic dump set for analyse_dumps.py: 20 minutes of DataProxy, TubeMQ and EventMesh TCP traffic,
built with inlong_proto's own builders on a simulated clock (seeded, so every run writes the same bytes).

What happens in those 20 minutes (the analysis should find it):

* DataProxy: two SDK connections send MsgType 7 batches for three groups (two streams each) and a
  heartbeat every 30 s. clicks ramps up, logs bursts in minutes 12-14; the sink is down for orders in
  minutes 8-10 (errCode 1) and the channel overflows during the logs burst (errCode 114).
* TubeMQ: a producer heartbeats the master and sends to a broker; a consumer pulls, commits and
  heartbeats. The master fails over in minute 6 (StandbyException answers); the broker is slow in
  minutes 12-14.
* EventMesh: two publishers; one sends an upper-case property key in minutes 5-9, which the runtime
  refuses (ACK code 1, "Abnormal propKey").

Layout (what analyse_dumps.py reads, also from a folder given with --dumps):

    dataproxy/requests/<sdk>.bin    what each SDK connection sent
    dataproxy/responses/<sdk>.bin   what the server answered (errCode and the echoed send time in attrs)
    tubemq/<connection>.bin         both directions of one connection, in capture order
    eventmesh/<connection>.bin      both directions of one connection, in capture order
    capture_times.csv               file,offset,time: when each frame was captured (epoch seconds)

TubeMQ and EventMesh frames carry no clock of their own, so latencies and "per minute" need the capture
tool's timestamps (tcpdump keeps one per packet); capture_times.csv stands in for them.
"""
from __future__ import annotations

import csv
import random
from datetime import datetime, timezone
from pathlib import Path

import inlong_proto
from inlong_proto.dataproxy import builders
from inlong_proto.dataproxy.payload import ErrCode
from inlong_proto.eventmesh import tcp
from inlong_proto.eventmesh.client import make_user_agent, text_message
from inlong_proto.generated.protobuf.tubemq import BrokerService_pb2 as broker
from inlong_proto.generated.protobuf.tubemq import MasterService_pb2 as master
from inlong_proto.tubemq import rpc

START = datetime(2026, 11, 22, 9, 0, tzinfo=timezone.utc).timestamp()
MINUTES = 20
SECONDS = MINUTES * 60
DP_IP = "10.1.0.5"
# (group, stream) -> (SDK connection, batches per minute, records per batch)
STREAMS = {("orders", "created"): ("sdk-1", 6, 8), ("orders", "paid"): ("sdk-1", 4, 5),
           ("clicks", "web"): ("sdk-1", 10, 15), ("clicks", "app"): ("sdk-1", 8, 10),
           ("logs", "nginx"): ("sdk-2", 12, 12), ("logs", "app"): ("sdk-2", 6, 6)}
# method -> (median latency in seconds, spread of its logarithm)
LATENCY = {"producerHeartbeatP2M": (0.003, 0.3), "sendMessageP2B": (0.004, 0.5), "getMessagesC2B": (0.025, 0.6),
           "consumerCommitC2B": (0.002, 0.3), "consumerHeartbeatC2B": (0.0015, 0.3)}
STANDBY = "org.apache.inlong.tubemq.corerpc.exception.StandbyException"


def minute(t: float) -> int:
    return int((t - START) // 60)


class Capture:
    """Frames with their capture times, per dump file; written in time order at the end."""

    def __init__(self):
        self.frames: dict[str, list[tuple[float, int, bytes]]] = {}
        self.order = 0  # ties keep the order frames were added in

    def add(self, file: str, t: float, message) -> None:
        self.order += 1
        self.frames.setdefault(file, []).append((t, self.order, inlong_proto.encode(message)))

    def write(self, root: Path) -> None:
        rows = []
        for file, frames in sorted(self.frames.items()):
            data = bytearray()
            for t, _, raw in sorted(frames):
                rows.append((file, len(data), f"{t:.6f}"))
                data += raw
            (root / file).parent.mkdir(parents=True, exist_ok=True)
            (root / file).write_bytes(bytes(data))
        with open(root / "capture_times.csv", "w", newline="") as out:
            writer = csv.writer(out)
            writer.writerow(("file", "offset", "time"))
            writer.writerows(rows)


def dataproxy(capture: Capture, rng: random.Random) -> None:
    unique_ids = {"sdk-1": 0, "sdk-2": 0}
    for (group, stream), (sdk, per_minute, size) in STREAMS.items():
        for m in range(MINUTES):
            factor = 1 + m / 8 if group == "clicks" else 4 if group == "logs" and 12 <= m <= 14 else 1
            for _ in range(round(rng.uniform(0.7, 1.3) * per_minute * factor)):
                sent = START + 60 * m + rng.uniform(0, 60)
                count = max(1, round(rng.gauss(size, size / 4)))
                records = [f'{{"{group}":"{stream}","seq":{i},"value":{rng.randint(0, 9999)}}}'.encode()
                           for i in range(count)]
                unique_ids[sdk] += 1
                request = builders.bin_request(records, group_id=group, stream_id=stream,
                                               data_time_ms=int(max(START, sent - rng.uniform(0, 2)) * 1000),
                                               unique_id=unique_ids[sdk], compress=rng.random() < 0.5,
                                               report_time_ms=int(sent * 1000))
                code, text = ErrCode.success, None
                if group == "orders" and 8 <= m <= 10 and rng.random() < 0.7:
                    code, text = ErrCode.sink_service_unready, "sink not ready"
                elif group == "logs" and 12 <= m <= 14 and rng.random() < 0.25:
                    code, text = ErrCode.put_event_to_channel_failure, "channel is full"
                response = builders.bin_response(request, dp_ip=DP_IP, err_code=code, err_msg=text)
                capture.add(f"dataproxy/requests/{sdk}.bin", sent, request)
                capture.add(f"dataproxy/responses/{sdk}.bin", sent + rng.uniform(0.001, 0.004), response)
    for sdk in unique_ids:
        for t in range(int(START) + 15, int(START) + SECONDS, 30):
            request = builders.heartbeat_request(data_time_ms=t * 1000)
            capture.add(f"dataproxy/requests/{sdk}.bin", t, request)
            capture.add(f"dataproxy/responses/{sdk}.bin", t + 0.001,
                        builders.heartbeat_response(request, server_time_s=t))


class TubeConnection:
    """One TubeMQ connection: serial numbers, and each call's response after its method's latency."""

    def __init__(self, capture: Capture, rng: random.Random, file: str):
        self.capture, self.rng, self.file, self.serial = capture, rng, file, 0

    def call(self, t: float, method: str, request, response=None) -> None:
        self.serial += 1
        median, spread = LATENCY[method]
        if method == "sendMessageP2B" and 12 <= minute(t) <= 14:
            median *= 6  # the broker is busy
        latency = self.rng.lognormvariate(0, spread) * median
        self.capture.add(self.file, t, rpc.request_frame(self.serial, method, request))
        answer = (rpc.response_frame(self.serial, method, response) if response is not None
                  else rpc.exception_frame(self.serial, STANDBY, "master is not the active one"))
        self.capture.add(self.file, t + latency, answer)


def tubemq(capture: Capture, rng: random.Random) -> None:
    producer = "10.2.0.7-3145-1795500000000-1-Producer"
    consumer = "group_a_10.2.0.8-2718-1795500000000-1-Pull-3.9"
    to_master = TubeConnection(capture, rng, "tubemq/producer-master.bin")
    for t in range(int(START) + 2, int(START) + SECONDS, 10):
        ok = master.HeartResponseM2P(success=True, errCode=200, errMsg="OK!", brokerCheckSum=17)
        to_master.call(t, "producerHeartbeatP2M",
                       master.HeartRequestP2M(clientId=producer, brokerCheckSum=17, hostName="10.2.0.7"),
                       None if minute(t) == 6 and rng.random() < 0.5 else ok)
    to_broker = TubeConnection(capture, rng, "tubemq/producer-broker.bin")
    t = START
    while (t := t + rng.expovariate(0.5)) < START + SECONDS:
        data = rng.randbytes(rng.randint(60, 400))
        to_broker.call(t, "sendMessageP2B",
                       broker.SendMessageRequestP2B(clientId=producer, topicName="orders", partitionId=rng.randint(0, 3),
                                                    data=data, flag=0, checkSum=-1, sentAddr=167903239),
                       broker.SendMessageResponseB2P(success=True, errCode=200, errMsg="OK!"))
    pulls = TubeConnection(capture, rng, "tubemq/consumer-broker.bin")
    t = START
    while (t := t + rng.uniform(1.5, 2.5)) < START + SECONDS:
        partition = rng.randint(0, 3)
        pulls.call(t, "getMessagesC2B",
                   broker.GetMessageRequestC2B(clientId=consumer, partitionId=partition, groupName="group_a",
                                               topicName="orders"),
                   broker.GetMessageResponseB2C(success=True, errCode=200, errMsg="OK!"))
        pulls.call(t + 0.2, "consumerCommitC2B",
                   broker.CommitOffsetRequestC2B(clientId=consumer, topicName="orders", partitionId=partition,
                                                 groupName="group_a"),
                   broker.CommitOffsetResponseB2C(success=True, errCode=200, errMsg="OK!"))
        if int(t) % 10 < 2:
            pulls.call(t + 0.5, "consumerHeartbeatC2B",
                       broker.HeartBeatRequestC2B(clientId=consumer, groupName="group_a", readStatus=0),
                       broker.HeartBeatResponseB2C(success=True, errCode=200, errMsg="OK!"))


def eventmesh(capture: Capture, rng: random.Random) -> None:
    def seq() -> str:
        return "".join(rng.choice("012345678") for _ in range(10))  # as the Java SDK makes them

    for number in (1, 2):
        file = f"eventmesh/publisher-{number}.bin"

        def exchange(t: float, build, reply_command, code: int = 0, desc: str = "success") -> None:
            number_ = seq()
            capture.add(file, t, build(number_))
            capture.add(file, t + rng.uniform(0.0005, 0.003), tcp.reply(reply_command, number_, code=code, desc=desc))

        agent = make_user_agent(group=f"publisher-{number}", pid=4000 + number, port=50000 + number)
        exchange(START + 0.5, lambda s: tcp.hello(agent, s), tcp.Command.HELLO_RESPONSE)
        for t in range(int(START) + 30, int(START) + SECONDS, 30):
            exchange(t, tcp.heartbeat, tcp.Command.HEARTBEAT_RESPONSE)
        t = START + 1
        while (t := t + rng.expovariate(0.5)) < START + SECONDS:
            bad_key = number == 2 and 5 <= minute(t) <= 9
            properties = {"traceId" if bad_key else "traceid": f"{rng.getrandbits(64):016x}"}
            body = text_message(f"topic-{rng.choice('abc')}", f"event at {t:.3f}", properties=properties)
            refusal = (1, "java.lang.IllegalArgumentException: Abnormal propKey: traceId") if bad_key else (0, "success")
            exchange(t, lambda s: tcp.message(tcp.Command.ASYNC_MESSAGE_TO_SERVER, body, s),
                     tcp.Command.ASYNC_MESSAGE_TO_SERVER_ACK, *refusal)


def make(root: Path, seed: int = 2026) -> Path:
    """Write the dump set under root; returns root."""
    rng = random.Random(seed)
    capture = Capture()
    dataproxy(capture, rng)
    tubemq(capture, rng)
    eventmesh(capture, rng)
    capture.write(root)
    return root


if __name__ == "__main__":
    import sys

    print(make(Path(sys.argv[1] if len(sys.argv) > 1 else "out/dumps")))
