"""The structured strings inside TubeMQ messages, parsed with the separators the code uses."""
import pytest

from inlong_proto import ValidationError
from inlong_proto.generated.protobuf.tubemq import MasterService_pb2 as master
from inlong_proto.tubemq import strings


def test_broker_info_with_and_without_the_default_port():
    assert strings.broker_info("12:10.0.0.1:8200") == strings.BrokerInfo(12, "10.0.0.1", 8200)
    assert strings.broker_info("12:10.0.0.1: ") == strings.BrokerInfo(12, "10.0.0.1", 8123)


def test_topic_info():
    info = strings.topic_info("demo#1:3:2,7:1:1#1048576")
    assert info.topic == "demo" and info.max_message_size == 1048576
    assert info.slots == (strings.PartitionSlot(1, 3, 2), strings.PartitionSlot(7, 1, 1))
    assert strings.topic_info("demo#1:3:2#").max_message_size is None


def test_subscription_partition_failure_and_key():
    sub = strings.subscribe_info("c1_host-1@group#5:10.0.0.2:8123#demo:3")
    assert (sub.consumer_id, sub.group, sub.partition.key, sub.partition.port) == ("c1_host-1", "group", "5:demo:3", 8123)
    failure = strings.failure_info("411:5:10.0.0.2:8123#demo:3")
    assert failure.error_code == 411 and failure.partition.topic == "demo"
    assert strings.partition_key("5:demo:3").partition_id == 3


def test_event_names_op_type_and_status():
    proto = master.EventProto(rebalanceId=9, opType=10, status=0, subscribeInfo=["c@g#1:h:1#t:0"])
    event = strings.event(proto)
    assert (event.rebalance_id, event.op_type, event.status) == (9, "ONLY_CONNECT", "TODO")
    assert event.subscriptions[0].partition.host == "h"
    assert strings.event(master.EventProto(opType=99, status=-2)).op_type == 99


def test_sent_address_round_trip():
    assert strings.sent_address(-1062731510) == "192.168.1.10"  # facts 2.10
    assert strings.pack_address("192.168.1.10") == -1062731510 and strings.pack_address("10.0.0.1") == 0x0A000001


@pytest.mark.parametrize("parse, text", [
    (strings.broker_info, "12-10.0.0.1-8123"),  # the outdated '-' form of the proto comments
    (strings.topic_info, "demo"),
    (strings.subscribe_info, "c1@group-5:h:1-demo:3"),
    (strings.partition, "5:h:x#demo:3"),
])
def test_malformed_strings_are_validation_errors(parse, text):
    with pytest.raises(ValidationError):
        parse(text)


def test_client_ids_of_the_java_client():
    consumer = strings.client_id("test_group_10.0.0.5-4242-123456789-77-Pull-2.1.0")
    assert (consumer.role, consumer.group, consumer.address, consumer.pid, consumer.consume_mode,
            consumer.version) == ("consumer", "test_group", "10.0.0.5", "4242", "Pull", "2.1.0")
    balance = strings.client_id("g_10.0.0.5-1-2-3-Balance-2.1.0")
    assert balance.consume_mode == "Balance" and balance.nano_time == 2
    producer = strings.client_id("10.0.0.5-4242-123456789-77-2.1.0")
    assert (producer.role, producer.address, producer.random) == ("producer", "10.0.0.5", 77)
    assert strings.client_id("c1").role == "unknown"
