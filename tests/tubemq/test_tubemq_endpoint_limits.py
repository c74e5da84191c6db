"""The TubeMQ reference broker and master against one hostile connection (issue 24, items 12 and 13).

* 12: one anonymous producer took the broker from 31 to 822 MiB in 6.8 s (the store had no total bound:
  3 partitions x 10,000 messages x 1 MiB). The store now holds at most max_bytes of message data (default
  256 MiB at most); a produce over it gets 419 SERVER_RECEIVE_OVERFLOW, and memory stays within the bound.
* 12: one connection may hold only max_registrations partition registrations at the broker, released when
  it closes.
* 13: one connection registered 1,000 fake producers at the master, and a real producer then got
  `errCode 503: over 1000 clients registered` for the 30 s session timeout. Now one connection holds at most
  max_clients_per_connection registrations, a real producer gets through, and a closed connection's clients
  are forgotten at once.

Every body runs under a deadline; only 127.0.0.1 and port 0 are used.
"""
from __future__ import annotations

import tracemalloc

from inlong_proto.generated.protobuf.tubemq import BrokerService_pb2 as broker_pb
from inlong_proto.generated.protobuf.tubemq import MasterService_pb2 as master_pb
from inlong_proto.tubemq import strings
from inlong_proto.endpoints.tubemq_broker import DEFAULT_MAX_BYTES, DEFAULT_MAX_REGISTRATIONS, TubeMQBroker
from inlong_proto.endpoints.tubemq_client import RpcChannel, TubeMQProducer
from inlong_proto.endpoints.tubemq_master import DEFAULT_MAX_CLIENTS_PER_CONNECTION, TubeMQMaster
from peers import HOST, run, until

TOPIC = "demo"
MIB = 1 << 20
SERVER_RECEIVE_OVERFLOW, SERVICE_UNAVAILABLE, PARTITION_OCCUPIED = 419, 503, 410


def send(partition: int, data: bytes):
    return broker_pb.SendMessageRequestP2B(clientId="anonymous", topicName=TOPIC, partitionId=partition, data=data,
                                           flag=0, checkSum=-1, sentAddr=0)


def register(client_id: str, partition: int, group: str = "g"):
    return broker_pb.RegisterRequestC2B(opType=31, clientId=client_id, groupName=group, topicName=TOPIC,
                                        partitionId=partition, readStatus=0)


def test_the_default_store_bound_is_at_most_256_mib():
    assert DEFAULT_MAX_BYTES <= 256 * MIB
    assert DEFAULT_MAX_REGISTRATIONS <= 64 and DEFAULT_MAX_CLIENTS_PER_CONNECTION <= 32


def test_one_anonymous_producer_cannot_grow_the_broker_past_its_store_bound():
    """The recipe, scaled: 1 MiB messages into every partition until refused. With an 8 MiB bound the broker
    takes 8 of them, answers 419 to the rest, and grows by the bound plus under 4 MiB: the read and decode
    buffers of both ends (client and server share this process) keep their last frames' room. Without the
    bound the same 24 MiB sent grew it by over 24 MiB."""
    bound = 8 * MIB
    payload = b"x" * (MIB - 64)

    async def body():
        async with TubeMQBroker(HOST, 0, max_bytes=bound, max_frame_size=2 * MIB + 4096) as broker:
            channel = await RpcChannel(HOST, broker.port).open()
            try:
                tracemalloc.start()
                before = tracemalloc.get_traced_memory()[0]
                answers = [await channel.call("sendMessageP2B", send(i % 3, payload)) for i in range(24)]
                growth = tracemalloc.get_traced_memory()[0] - before
            finally:
                tracemalloc.stop()
                await channel.close()
            return answers, growth, broker.state.stored_bytes

    answers, growth, stored = run(body())  # under run's hard deadline
    codes = [a.errCode for a in answers]
    assert codes == [200] * 8 + [SERVER_RECEIVE_OVERFLOW] * 16, codes
    assert "server receive message overflow" in answers[-1].errMsg and not answers[-1].success
    assert stored == 8 * len(payload) <= bound
    assert growth < bound + 4 * MIB, growth  # the store, and nothing kept of the refused 16 MiB


def test_a_full_partition_makes_room_by_dropping_its_oldest_so_the_bound_counts_what_is_dropped():
    """max_messages still evicts per partition; what it drops is no longer counted against max_bytes."""
    async def body():
        async with TubeMQBroker(HOST, 0, partitions=1, max_messages=2, max_bytes=3000) as broker:
            channel = await RpcChannel(HOST, broker.port).open()
            try:
                codes = [(await channel.call("sendMessageP2B", send(0, b"y" * 1000))).errCode for _ in range(10)]
            finally:
                await channel.close()
            return codes, broker.state.stored_bytes

    codes, stored = run(body())
    assert codes == [200] * 10 and stored == 2000


def test_partition_registrations_are_capped_per_connection_and_released_when_it_closes():
    limit = 4

    async def body():
        async with TubeMQBroker(HOST, 0, partitions=8, max_registrations=limit) as broker:
            hog = await RpcChannel(HOST, broker.port).open()
            other = await RpcChannel(HOST, broker.port).open()
            try:
                mine = [(await hog.call("consumerRegisterC2B", register("hog", p))).errCode for p in range(8)]
                again = (await hog.call("consumerRegisterC2B", register("hog", 0))).errCode  # held: no new slot
                taken = (await other.call("consumerRegisterC2B", register("real", 0))).errCode
                free = (await other.call("consumerRegisterC2B", register("real", 7))).errCode
                await hog.close()
                await until(lambda: not any(h.client_id == "hog" for h in broker.state.holders.values()), 2.0)
                after = (await other.call("consumerRegisterC2B", register("real", 0))).errCode
            finally:
                await other.close()
            return mine, again, taken, free, after

    mine, again, taken, free, after = run(body())
    assert mine == [200] * limit + [SERVICE_UNAVAILABLE] * (8 - limit)
    assert again == 200 and taken == PARTITION_OCCUPIED and free == 200
    assert after == 200  # at once, not after the 30 s session timeout


def _register_producer(client_id: str):
    return master_pb.RegisterRequestP2M(clientId=client_id, topicList=[TOPIC], brokerCheckSum=-1, hostName=HOST)


def test_one_connection_cannot_lock_real_producers_out_of_the_master():
    """The recipe: one connection registers 1,000 fake producers (the table holds 1,000). It gets its
    per-connection share only; a real `tubemq produce` works meanwhile, and the fakes vanish when the
    connection closes."""
    async def body():
        async with TubeMQBroker(HOST, 0) as broker:
            async with TubeMQMaster(HOST, 0, broker=strings.BrokerInfo(1, HOST, broker.port)) as master:
                attacker = await RpcChannel(HOST, master.port).open()
                try:
                    answers = [await attacker.call("producerRegisterP2M", _register_producer(f"fake-{i}"))
                               for i in range(1000)]
                    held = len(master.state.clients)
                    report = await TubeMQProducer(HOST, master.port, TOPIC, timeout=5).run([b"real", b"message"])
                finally:
                    await attacker.close()
                await until(lambda: not master.state.clients, 2.0)
                return answers, held, report

    answers, held, report = run(body())  # under run's hard deadline
    ok = [a for a in answers if a.success]
    refused = [a for a in answers if not a.success]
    assert len(ok) == DEFAULT_MAX_CLIENTS_PER_CONNECTION == held
    assert {(a.errCode, a.errMsg) for a in refused} == {
        (SERVICE_UNAVAILABLE, f"over {DEFAULT_MAX_CLIENTS_PER_CONNECTION} clients registered on this connection")}
    assert report.ok and report.error is None, report.to_dict()


def test_a_client_heard_on_a_new_connection_moves_there_and_survives_the_old_one():
    """A real client that reconnects heartbeats on its new connection: closing the old one must not forget it."""
    async def body():
        async with TubeMQMaster(HOST, 0, broker=strings.BrokerInfo(1, HOST, 8123)) as master:
            first = await RpcChannel(HOST, master.port).open()
            second = await RpcChannel(HOST, master.port).open()
            try:
                registered = await first.call("producerRegisterP2M", _register_producer("p"))
                beat = await second.call("producerHeartbeatP2M", master_pb.HeartRequestP2M(
                    clientId="p", brokerCheckSum=-1, hostName=HOST, topicList=[TOPIC]))
                await first.close()
                await until(lambda: not master._links or len(master._links) == 1, 2.0)
                kept = "p" in master.state.clients
                await second.close()
                await until(lambda: not master.state.clients, 2.0)
            finally:
                await first.close()
                await second.close()
            return registered.success, beat.success, kept

    assert run(body()) == (True, True, True)
