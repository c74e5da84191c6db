"""A realistic set of captures for analyse_dumps.py: 20 minutes of DataProxy, TubeMQ and EventMesh TCP
traffic, built with inlong_proto's own builders on a simulated clock and written as the pcap files tcpdump
would have recorded on each server (seeded, so every run writes the same bytes).

What happens in those 20 minutes (the analysis should find it):

* DataProxy: three SDK hosts send MsgType 7 batches for three groups (two streams each) and a heartbeat
  every 30 s. clicks ramps up, logs bursts in minutes 12-14; the sink is down for orders in minutes 8-10
  (errCode 1) and the channel overflows during the logs burst (errCode 114).
* TubeMQ: a producer heartbeats the master and sends to a broker; a consumer pulls, commits and
  heartbeats. The master fails over in minute 6 (StandbyException answers); the broker is slow in
  minutes 12-14.
* EventMesh: two publishers; one sends an upper-case property key in minutes 5-9, which the runtime
  refuses (ACK code 1, "Abnormal propKey").

Layout (what analyse_dumps.py reads, also from a folder given with --captures): one capture per server,
as `tcpdump -i eth0 -w NAME.pcap tcp port PORT` there would write it (Ethernet, microsecond stamps).
Each client connection is one TCP conversation (handshake, data segments, FINs) on the projects'
default server ports; a frame's packets carry the simulated time it was sent.

    dataproxy.pcap       port 46801: the SDK hosts 10.3.0.11-13 -> DataProxy 10.1.0.5
    tubemq-master.pcap   port 8715: the producer 10.2.0.7 -> master 10.2.0.2
    tubemq-broker.pcap   port 8123: the producer 10.2.0.7 and the consumer 10.2.0.8 -> broker 10.2.0.3
    eventmesh.pcap       port 10000: the publishers 10.4.0.21 and 10.4.0.22 -> runtime 10.4.0.2
"""
from __future__ import annotations

import random
from datetime import datetime, timezone
from pathlib import Path

import inlong_proto
from inlong_proto.capture.writer import LINK_ETHERNET, Conversation, pcap_file
from inlong_proto.dataproxy import builders
from inlong_proto.dataproxy.payload import ErrCode
from inlong_proto.eventmesh import tcp
from inlong_proto.endpoints.eventmesh_client import make_user_agent, text_message
from inlong_proto.generated.protobuf.tubemq import BrokerService_pb2 as broker
from inlong_proto.generated.protobuf.tubemq import MasterService_pb2 as master
from inlong_proto.tubemq import rpc

START = datetime(2026, 11, 22, 9, 0, tzinfo=timezone.utc).timestamp()
MINUTES = 20
SECONDS = MINUTES * 60
DATAPROXY = ("10.1.0.5", 46801)
MASTER, BROKER = ("10.2.0.2", 8715), ("10.2.0.3", 8123)
EVENTMESH = ("10.4.0.2", 10000)
# SDK connections to DataProxy: (host, port) each
APP, WEB, EDGE = ("10.3.0.11", 41872), ("10.3.0.12", 52114), ("10.3.0.13", 37950)
# (group, stream) -> (SDK connection, batches per minute, records per batch)
STREAMS = {("orders", "created"): (APP, 6, 8), ("orders", "paid"): (APP, 4, 5), ("logs", "app"): (APP, 6, 6),
           ("clicks", "web"): (WEB, 10, 15), ("clicks", "app"): (WEB, 8, 10), ("logs", "nginx"): (EDGE, 12, 12)}
# method -> (median latency in seconds, spread of its logarithm)
LATENCY = {"producerHeartbeatP2M": (0.003, 0.3), "sendMessageP2B": (0.004, 0.5), "getMessagesC2B": (0.025, 0.6),
           "consumerCommitC2B": (0.002, 0.3), "consumerHeartbeatC2B": (0.0015, 0.3)}
STANDBY = "org.apache.inlong.tubemq.corerpc.exception.StandbyException"


def minute(t: float) -> int:
    return int((t - START) // 60)


def nanoseconds(t: float) -> int:
    """A pcap time: whole microseconds, as tcpdump's default precision stores them."""
    return round(t * 1e6) * 1000


class Connection:
    """One simulated TCP connection: the frames each end sends, by time (added in any order)."""

    def __init__(self, client: tuple[str, int], server: tuple[str, int]):
        self.client, self.server = client, server
        self.frames: list[tuple[float, int, str, bytes]] = []

    def add(self, t: float, sender: str, message) -> None:
        # the running count keeps frames sent at the same instant in the order they were added
        self.frames.append((t, len(self.frames), sender, inlong_proto.encode(message)))

    def packets(self, rng: random.Random) -> list[tuple[int, bytes]]:
        """The conversation: opened just before the capture's first frame, closed after its last."""
        frames = sorted(self.frames)
        conversation = Conversation(self.client, self.server, isn=(rng.getrandbits(32), rng.getrandbits(32)),
                                    mss=1460)
        out = conversation.open(nanoseconds(START - 1))
        for t, _, sender, data in frames:
            out += conversation.send(sender, data, nanoseconds(t))
        return out + conversation.close(nanoseconds(frames[-1][0] + 0.5))


class Captures:
    """The connections each server's capture holds; written as pcap files at the end."""

    def __init__(self):
        self.files: dict[str, list[Connection]] = {}

    def connect(self, file: str, client: tuple[str, int], server: tuple[str, int]) -> Connection:
        connection = Connection(client, server)
        self.files.setdefault(file, []).append(connection)
        return connection

    def write(self, root: Path, rng: random.Random) -> None:
        root.mkdir(parents=True, exist_ok=True)
        for file, connections in self.files.items():
            packets = [packet for connection in connections for packet in connection.packets(rng)]
            packets.sort(key=lambda packet: packet[0])  # by time only: ties keep each connection's order
            (root / file).write_bytes(pcap_file(packets, linktype=LINK_ETHERNET, nano=False, le=True))


def dataproxy(captures: Captures, rng: random.Random) -> None:
    sdks = {client: captures.connect("dataproxy.pcap", client, DATAPROXY) for client in (APP, WEB, EDGE)}
    unique_ids = dict.fromkeys(sdks, 0)
    for (group, stream), (client, per_minute, size) in STREAMS.items():
        sdk = sdks[client]
        for m in range(MINUTES):
            factor = 1 + m / 8 if group == "clicks" else 4 if group == "logs" and 12 <= m <= 14 else 1
            for _ in range(round(rng.uniform(0.7, 1.3) * per_minute * factor)):
                sent = START + 60 * m + rng.uniform(0, 60)
                count = max(1, round(rng.gauss(size, size / 4)))
                records = [f'{{"{group}":"{stream}","seq":{i},"value":{rng.randint(0, 9999)}}}'.encode()
                           for i in range(count)]
                unique_ids[client] += 1
                request = builders.bin_request(records, group_id=group, stream_id=stream,
                                               data_time_ms=int(max(START, sent - rng.uniform(0, 2)) * 1000),
                                               unique_id=unique_ids[client], compress=rng.random() < 0.5,
                                               report_time_ms=int(sent * 1000))
                code, text = ErrCode.success, None
                if group == "orders" and 8 <= m <= 10 and rng.random() < 0.7:
                    code, text = ErrCode.sink_service_unready, "sink not ready"
                elif group == "logs" and 12 <= m <= 14 and rng.random() < 0.25:
                    code, text = ErrCode.put_event_to_channel_failure, "channel is full"
                sdk.add(sent, "client", request)
                sdk.add(sent + rng.uniform(0.001, 0.004), "server",
                        builders.bin_response(request, dp_ip=DATAPROXY[0], err_code=code, err_msg=text))
    for sdk in sdks.values():
        for t in range(int(START) + 15, int(START) + SECONDS, 30):
            request = builders.heartbeat_request(data_time_ms=t * 1000)
            sdk.add(t, "client", request)
            sdk.add(t + 0.001, "server", builders.heartbeat_response(request, server_time_s=t))


class TubeConnection:
    """One TubeMQ connection: serial numbers, and each call's response after its method's latency."""

    def __init__(self, connection: Connection, rng: random.Random):
        self.connection, self.rng, self.serial = connection, rng, 0

    def call(self, t: float, method: str, request, response=None) -> None:
        self.serial += 1
        median, spread = LATENCY[method]
        if method == "sendMessageP2B" and 12 <= minute(t) <= 14:
            median *= 6  # the broker is busy
        latency = self.rng.lognormvariate(0, spread) * median
        self.connection.add(t, "client", rpc.request_frame(self.serial, method, request))
        answer = (rpc.response_frame(self.serial, method, response) if response is not None
                  else rpc.exception_frame(self.serial, STANDBY, "master is not the active one"))
        self.connection.add(t + latency, "server", answer)


def tubemq(captures: Captures, rng: random.Random) -> None:
    producer = "10.2.0.7-3145-1795500000000-1-Producer"
    consumer = "group_a_10.2.0.8-2718-1795500000000-1-Pull-3.9"
    to_master = TubeConnection(captures.connect("tubemq-master.pcap", ("10.2.0.7", 38412), MASTER), rng)
    for t in range(int(START) + 2, int(START) + SECONDS, 10):
        ok = master.HeartResponseM2P(success=True, errCode=200, errMsg="OK!", brokerCheckSum=17)
        to_master.call(t, "producerHeartbeatP2M",
                       master.HeartRequestP2M(clientId=producer, brokerCheckSum=17, hostName="10.2.0.7"),
                       None if minute(t) == 6 and rng.random() < 0.5 else ok)
    to_broker = TubeConnection(captures.connect("tubemq-broker.pcap", ("10.2.0.7", 38414), BROKER), rng)
    t = START
    while (t := t + rng.expovariate(0.5)) < START + SECONDS:
        data = rng.randbytes(rng.randint(60, 400))
        to_broker.call(t, "sendMessageP2B",
                       broker.SendMessageRequestP2B(clientId=producer, topicName="orders", partitionId=rng.randint(0, 3),
                                                    data=data, flag=0, checkSum=-1, sentAddr=167903239),
                       broker.SendMessageResponseB2P(success=True, errCode=200, errMsg="OK!"))
    pulls = TubeConnection(captures.connect("tubemq-broker.pcap", ("10.2.0.8", 45122), BROKER), rng)
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


def eventmesh(captures: Captures, rng: random.Random) -> None:
    def seq() -> str:
        return "".join(rng.choice("012345678") for _ in range(10))  # as the Java SDK makes them

    for number in (1, 2):
        host, port = f"10.4.0.2{number}", 50000 + number
        connection = captures.connect("eventmesh.pcap", (host, port), EVENTMESH)

        def exchange(t: float, build, reply_command, code: int = 0, desc: str = "success") -> None:
            number_ = seq()
            connection.add(t, "client", build(number_))
            connection.add(t + rng.uniform(0.0005, 0.003), "server",
                           tcp.reply(reply_command, number_, code=code, desc=desc))

        agent = make_user_agent(group=f"publisher-{number}", pid=4000 + number, host=host, port=port)
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
    """Write the captures under root; returns root."""
    rng = random.Random(seed)
    captures = Captures()
    dataproxy(captures, rng)
    tubemq(captures, rng)
    eventmesh(captures, rng)
    captures.write(root, rng)
    return root


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", default="out/captures", type=Path,
                        help="where to write the captures (default: out/captures)")
    print(make(parser.parse_args().folder))
