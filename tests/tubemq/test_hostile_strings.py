"""TubeMQ's proto2 strings are not checked for UTF-8 on the wire (issue 11): such a field decodes, keeps its
exact bytes, renders as {"hex": ...}, and never breaks is_standby, the structured-string parsers,
to_dict or the CLI."""
import json

import pytest
from click.testing import CliRunner

import inlong_proto
from inlong_proto import ValidationError
from inlong_proto.cli.commands import main
from inlong_proto.generated.protobuf.tubemq import RPC_pb2
from inlong_proto.tubemq import rpc, strings

import vectors

HOSTILE = ["response_exception_name_not_utf8", "response_stack_trace_not_utf8"]


def vector(name):
    return next(p.values[0] for p in vectors.load("tubemq", "valid") if p.id == name)


def request_with(method: str, data: bytes):
    """A request whose business message is `data`, written past the protobuf classes (which refuse bytes)."""
    entry = rpc._method_entry(method)
    envelope = (RPC_pb2.RpcConnHeader(flag=0), RPC_pb2.RequestHeader(serviceType=1, protocolVer=3),
                RPC_pb2.RequestBody(method=entry["id"], timeout=1, request=data))
    return inlong_proto.decode(inlong_proto.encode(rpc.frame_of(1, rpc.delimited(*envelope))), "tubemq")


@pytest.mark.parametrize("name", HOSTILE)
def test_cli_prints_json_for_the_reproducers(name, tmp_path):
    path = tmp_path / f"{name}.bin"
    path.write_bytes(bytes.fromhex(vector(name)["hex"]))
    result = CliRunner().invoke(main, ["decode", "-p", "tubemq", str(path)])
    assert result.exit_code == 0 and result.exception is None, result.output
    assert json.loads(result.output)["payload"] == vector(name)["expected"]


def test_is_standby_reads_the_name_as_java_does():
    """Java turns bad bytes into U+FFFD: a damaged package still ends in StandbyException."""
    assert rpc.RpcException(b"org.\xff\xfe.StandbyException", "m").is_standby
    assert not rpc.RpcException(b"org.x.\xb5tandbyException", "m").is_standby
    assert rpc.RpcException(b"\xff", b"\xfe").to_dict() == {"class_name": {"hex": "ff"}, "message": {"hex": "fe"},
                                                            "is_standby": False}


def test_nested_and_repeated_strings_keep_their_bytes():
    """clientId (optional), topicList (repeated) and hostName: json_format would print "b'...'" for them."""
    # RegisterRequestP2M: 1 clientId, 2 topicList (repeated), 3 brokerCheckSum, 4 hostName
    data = (b"\x0a\x02\xc3\x28" + b"\x12\x01t" + b"\x12\x01\xff" + b"\x18\x01" + b"\x22\x01h")
    frame = request_with("producerRegisterP2M", data)
    rendered = json.loads(json.dumps(frame.to_dict()))["payload"]
    assert rendered["message"]["RegisterRequestP2M"] == {
        "clientId": {"hex": "c328"}, "topicList": ["t", {"hex": "ff"}], "brokerCheckSum": "1", "hostName": "h"}
    assert rendered["parsed"]["clientId"] == {"text": {"hex": "c328"}, "error": "not valid UTF-8: invalid continuation byte"}


def test_structured_strings_that_are_not_utf8_say_so():
    for parse in (strings.broker_info, strings.topic_info, strings.partition, strings.partition_key,
                  strings.failure_info, strings.subscribe_info):
        with pytest.raises(ValidationError, match="not valid UTF-8") as caught:
            parse(b"1:\xff:8123")
        assert caught.value.offset == 2
    with pytest.raises(ValidationError, match="not valid UTF-8"):
        strings.client_id(b"\x80")
    assert strings.broker_info(b"1:h:9") == strings.BrokerInfo(1, "h", 9)  # bytes that are UTF-8 are text
