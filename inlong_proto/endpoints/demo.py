"""`inlong-proto demo`: the whole project on one machine, as a new user's first run (about a minute).

Every reference endpoint pair talks over loopback: broadcast, DataProxy, TubeMQ (master, broker, producer,
consumer), EventMesh TCP, EventMesh HTTP (publisher, runtime, webhook subscriber) and EventMesh gRPC
(publisher, runtime, subscribeStream; when grpcio, the `grpc` extra, is installed). The traffic is
captured as a pcap: with tcpdump where it can capture on the loopback interface, otherwise through the
project's own recording relay (capture.tap) and pcap writer. The embedded local Spark then reads the
capture with format("inlong") and protocol=auto, and a summary table per protocol is printed.
"""
from __future__ import annotations

import asyncio
import contextlib
import io
import random
import shutil
import signal
import subprocess
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

COUNT = 20  # messages per pair


class _Capture:
    """tcpdump on loopback when it runs here; else None (the caller relays through capture.tap)."""

    def __init__(self, path: Path, ports: list[int]):
        self.path, self.ports, self.process = path, ports, None

    def start(self) -> bool:
        tcpdump = shutil.which("tcpdump")
        if tcpdump is None or not self.ports:
            return False
        expression = "tcp and (" + " or ".join(f"port {port}" for port in self.ports) + ")"
        try:
            # --immediate-mode: no batching in kernel blocks, which a stop can cut off (half the last pair's
            # packets were missing without it); -B: a 32 MiB buffer, where the default dropped packets on a
            # loaded machine (68 of 1,220 in one test run)
            self.process = subprocess.Popen([tcpdump, "-i", "lo", "--immediate-mode", "-B", "32768", "-U", "-s", "0",
                                             "-w", str(self.path), expression],
                                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        except OSError:
            return False
        deadline = time.monotonic() + 5
        line = b""
        while time.monotonic() < deadline and self.process.poll() is None:
            line = self.process.stderr.readline()
            if b"listening on" in line:
                return True
        self._kill()
        return False

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self._caught_up()
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self._kill()

    def _caught_up(self, quiet: float = 0.5, limit: float = 15.0) -> None:
        """Wait until tcpdump has written what it captured: -U writes every packet as it is read, so the file
        stops growing once tcpdump has caught up (a loaded machine leaves it behind; a SIGINT then loses
        the packets still in the kernel's buffer)."""
        deadline, size, still_since = time.monotonic() + limit, -1, time.monotonic()
        while time.monotonic() < deadline:
            now = self.path.stat().st_size if self.path.exists() else 0
            if now != size:
                size, still_since = now, time.monotonic()
            elif time.monotonic() - still_since >= quiet:
                return
            time.sleep(0.05)

    def _kill(self) -> None:
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
            self.process.wait()


async def _servers(stack: contextlib.AsyncExitStack) -> dict:
    """Every reference server but the TubeMQ master (it needs the broker's address) on a free port, and the
    EventMesh HTTP subscriber's webhook."""
    from inlong_proto.endpoints.broadcast_server import BroadcastServer
    from inlong_proto.endpoints.dataproxy_server import DataProxyServer
    from inlong_proto.endpoints.eventmesh_http_client import WebhookReceiver
    from inlong_proto.endpoints.eventmesh_http_server import EventMeshHttpServer
    from inlong_proto.endpoints.eventmesh_server import EventMeshServer
    from inlong_proto.endpoints.tubemq_broker import TubeMQBroker

    servers = {"broadcast": BroadcastServer(port=0, interval=0.01, rng=random.Random(7)),
               "dataproxy": DataProxyServer(port=0), "tubemq-broker": TubeMQBroker(port=0, topics=["demo"]),
               "eventmesh": EventMeshServer(port=0), "eventmesh-http": EventMeshHttpServer(port=0),
               "webhook": WebhookReceiver(port=0)}  # the EventMesh HTTP subscriber's, which the runtime calls
    try:
        from inlong_proto.endpoints.eventmesh_grpc_server import EventMeshGrpcServer

        servers["eventmesh-grpc"] = EventMeshGrpcServer(port=0)
    except ImportError:  # grpcio is the optional `grpc` extra
        pass
    for server in servers.values():
        await server.start()
        stack.push_async_callback(server.stop)
    return servers


async def _master(stack: contextlib.AsyncExitStack, broker_port: int):
    from inlong_proto.tubemq import strings
    from inlong_proto.endpoints.tubemq_master import TubeMQMaster

    master = TubeMQMaster(port=0, broker=strings.BrokerInfo(1, "127.0.0.1", broker_port), topics=["demo"])
    await master.start()
    stack.push_async_callback(master.stop)
    return master


async def _traffic(ports: dict, report: dict, webhook) -> None:
    """Each client side, one after the other (each pair's own flows stay readable in the capture)."""
    from inlong_proto.endpoints.broadcast_client import BroadcastClient
    from inlong_proto.endpoints.dataproxy_sender import DataProxySender
    from inlong_proto.endpoints.eventmesh_client import EventMeshClient, make_user_agent, text_message
    from inlong_proto.endpoints.tubemq_client import TubeMQConsumer, TubeMQProducer

    client = BroadcastClient("127.0.0.1", ports["broadcast"], out=io.StringIO())
    report["broadcast"] = f"{await client.run(COUNT)} items received"

    sender = DataProxySender("127.0.0.1", ports["dataproxy"], mix="3,5,7,8")
    sent = await sender.run((f"record-{i}".encode() for i in range(COUNT * 5)), batch_size=5)
    report["dataproxy"] = f"{sent.sent} messages sent, {sent.acknowledged} acknowledged"

    producer = await TubeMQProducer("127.0.0.1", ports["tubemq-master"], "demo").run(
        f"message-{i}".encode() for i in range(COUNT))
    consumer = await TubeMQConsumer("127.0.0.1", ports["tubemq-master"], "demo", "demo-group", count=COUNT,
                                    timeout=20).run()
    report["tubemq"] = f"{producer.sent} produced, {consumer.received} consumed"

    subscriber = EventMeshClient("127.0.0.1", ports["eventmesh"], user_agent=make_user_agent(purpose="sub"))
    publisher = EventMeshClient("127.0.0.1", ports["eventmesh"], user_agent=make_user_agent(purpose="pub"))
    received = 0
    async with subscriber, publisher:
        await subscriber.subscribe("demo-topic")
        await subscriber.listen()
        for i in range(COUNT):
            await publisher.publish_async(text_message("demo-topic", f"event-{i}"))
        for _ in range(COUNT):
            await subscriber.receive(timeout=10)
            received += 1
    report["eventmesh"] = f"{COUNT} published, {received} pushed to the subscriber"

    report["eventmesh-http"] = await _http_traffic(ports, webhook)
    if "eventmesh-grpc" in ports:
        report["eventmesh-grpc"] = await _grpc_traffic(ports["eventmesh-grpc"])
    else:
        report["eventmesh-grpc"] = "skipped: grpcio is not installed (pip install 'inlong-proto[grpc]')"


async def _grpc_traffic(port: int) -> str:
    """A subscribeStream, then publishes; every event is waited for on the stream."""
    from inlong_proto.endpoints.eventmesh_grpc_client import EventMeshGrpcClient

    received = 0
    async with EventMeshGrpcClient("127.0.0.1", port) as subscriber, \
            EventMeshGrpcClient("127.0.0.1", port) as publisher:
        stream = await subscriber.stream(["demo-grpc"])
        for i in range(COUNT):
            await publisher.publish(publisher.message("demo-grpc", f"grpc-event-{i}"))
        async with asyncio.timeout(10):
            while received < COUNT:
                await stream.receive()
                received += 1
    return f"{COUNT} published, {received} delivered on the subscribeStream"


async def _http_traffic(ports: dict, webhook) -> str:
    """Subscribe the webhook (at its public port), heartbeat, publish, wait for every push."""
    from inlong_proto.eventmesh.http import SubscriptionItem, SubscriptionMode, SubscriptionType
    from inlong_proto.endpoints.eventmesh_http_client import EventMeshHttpClient

    url = f"http://127.0.0.1:{ports['webhook']}/"
    subscriber = EventMeshHttpClient("127.0.0.1", ports["eventmesh-http"])
    publisher = EventMeshHttpClient("127.0.0.1", ports["eventmesh-http"])
    pushed = 0
    try:
        await subscriber.subscribe([SubscriptionItem(topic="demo-http", mode=SubscriptionMode.CLUSTERING,
                                                     type=SubscriptionType.ASYNC)], url)
        await subscriber.heartbeat(["demo-http"], url)
        for i in range(COUNT):
            await publisher.publish("demo-http", f"http-event-{i}")
        async with asyncio.timeout(10):
            while pushed < COUNT:
                await webhook.receive()
                pushed += 1
        await subscriber.unsubscribe(["demo-http"], url)
    finally:
        await publisher.close()
        await subscriber.close()
    return f"{COUNT} published, {pushed} pushed to the subscriber's webhook"


CAPTURES = ("auto", "tcpdump", "relay")


async def record_capture(folder: Path, capture_with: str = "auto") -> tuple[Path, str, dict]:
    """Run every pair and capture them; (the pcap, how it was captured, what each pair did). capture_with:
    tcpdump, the recording relay, or auto (tcpdump when it can capture here)."""
    from inlong_proto.endpoints.tap import Tap

    path = folder / "demo.pcap"
    path.unlink(missing_ok=True)
    report: dict = {}
    async with contextlib.AsyncExitStack() as stack:
        servers = await _servers(stack)
        direct = {name: server.port for name, server in servers.items()}
        master = await _master(stack, direct["tubemq-broker"])
        direct["tubemq-master"] = master.port
        capture, tap = _Capture(path, list(direct.values())), None
        if capture_with != "relay" and capture.start():
            how, ports = "tcpdump -i lo", direct
        elif capture_with == "tcpdump":
            raise RuntimeError("tcpdump cannot capture on the loopback interface here (is it installed, and "
                               "may this user capture?); --capture relay needs neither")
        else:  # no capture rights here: clients go through recording relays instead
            tap = Tap()
            stack.push_async_callback(tap.close)
            ports = {name: await tap.relay(port) for name, port in direct.items()}
            # the master must announce the broker's relay, so that the producer's calls are captured too
            await master.stop()
            master = await _master(stack, ports["tubemq-broker"])
            ports["tubemq-master"] = await tap.relay(master.port)
            how = "the recording relay (capture.tap)" + (" since tcpdump cannot capture here"
                                                          if capture_with == "auto" else "")
        try:
            await _traffic(ports, report, servers["webhook"])
        finally:
            capture.stop()
    if tap is not None:
        path.write_bytes(tap.pcap())
    return path, how, report


def summarise(path: Path, console: Console) -> None:
    """Spark reads the capture with protocol=auto; one table per protocol: message types by direction."""
    from pyspark.sql import functions as F

    from inlong_proto.spark.dumps import local_session
    from inlong_proto.spark.source import register

    spark = local_session("inlong-proto-demo", cores=2)
    spark.sparkContext.setLogLevel("ERROR")
    register(spark)
    try:
        frames = spark.read.format("inlong").option("protocol", "auto").load(str(path))
        rows = frames.groupBy("protocol", "direction", "message_type").agg(
            F.count("*").alias("frames"), F.sum(F.when(F.col("error").isNotNull(), 1).otherwise(0)).alias("errors"),
            F.countDistinct("capture.flow").alias("flows"), F.sum("length").alias("bytes"),
            F.min("capture.time").alias("first"), F.max("capture.time").alias("last"),
        ).orderBy("protocol", "direction", "first").collect()
        flows = {row.protocol: row.flows for row in frames.groupBy("protocol").agg(
            F.countDistinct("capture.flow").alias("flows")).collect()}
    finally:
        spark.stop()
    by_protocol: dict = {}
    for row in rows:
        by_protocol.setdefault(row.protocol or "unrecognised", []).append(row)
    for protocol, group in by_protocol.items():
        table = Table(title=f"{protocol}: {sum(r.frames for r in group)} frames in "
                            f"{flows.get(group[0].protocol, 0)} TCP connection(s)", title_justify="left")
        for column in ("direction", "message type", "frames", "errors", "flows", "bytes", "first", "last"):
            table.add_column(column, justify="right" if column in ("frames", "errors", "flows", "bytes") else "left",
                             no_wrap=True)
        for row in group:
            table.add_row(str(row.direction), str(row.message_type), str(row.frames), str(row.errors),
                          str(row.flows), str(row.bytes), _time(row.first), _time(row.last))
        console.print(table)


def _time(value) -> str:
    return value.strftime("%H:%M:%S.%f")[:-3] if value is not None else ""


def run(folder: Path, capture_with: str = "auto") -> None:
    console = Console(width=max(shutil.get_terminal_size().columns, 110))
    folder.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    console.print("[bold]1.[/] every reference endpoint pair on loopback, captured")
    path, how, report = asyncio.run(record_capture(folder, capture_with))
    for name, text in report.items():
        console.print(f"   {name}: {text}", markup=False, highlight=False)  # text holds [grpc]: not markup
    console.print(f"   captured with {how}: {path} ({path.stat().st_size} bytes)")
    console.print("[bold]2.[/] Spark reads the capture: format(\"inlong\"), protocol=auto")
    summarise(path, console)
    console.print(f"done in {time.monotonic() - started:.0f} s; decode it yourself: "
                  f"inlong-proto decode -p auto -T table {path}")

