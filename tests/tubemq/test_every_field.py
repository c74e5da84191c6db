"""No protobuf field is left out of the TubeMQ output (issue 12, item 1: RequestBody.timeout was dropped).

The messages are built from the descriptors with every field set, recursively (two items per repeated
field), so a field added to a spec, or one the RPC view forgets, fails here by name. Each rendering is
parsed back with json_format, so the values must be there too, not only the names."""
import json

import pytest
from click.testing import CliRunner
from google.protobuf import descriptor, json_format

import inlong_proto
from inlong_proto.cli import commands as cli
from inlong_proto.generated.protobuf.tubemq import BrokerService_pb2, MasterService_pb2, RPC_pb2
from inlong_proto.tubemq import rpc

MODULES = (RPC_pb2, MasterService_pb2, BrokerService_pb2)
FD = descriptor.FieldDescriptor


def all_descriptors():
    """Every message of the three .proto files, nested ones included."""
    out, todo = [], [d for module in MODULES for d in module.DESCRIPTOR.message_types_by_name.values()]
    while todo:
        message = todo.pop(0)
        out.append(message)
        todo += message.nested_types
    return out


class Filler:
    """Distinct, non-default values for every field: a lost or swapped field cannot go unnoticed."""

    def __init__(self):
        self.n = 0

    def value(self, field, stack):
        self.n += 1
        if field.type == FD.TYPE_MESSAGE:
            return self.message(field.message_type, stack)
        if field.type == FD.TYPE_ENUM:
            return field.enum_type.values[-1].number
        if field.type == FD.TYPE_BOOL:
            return True
        if field.type in (FD.TYPE_INT32, FD.TYPE_SINT32, FD.TYPE_SFIXED32):
            return -self.n if self.n % 2 else self.n
        if field.type in (FD.TYPE_INT64, FD.TYPE_SINT64, FD.TYPE_SFIXED64):
            return -(2**40 + self.n) if self.n % 2 else 2**40 + self.n
        if field.type in (FD.TYPE_UINT32, FD.TYPE_FIXED32, FD.TYPE_UINT64, FD.TYPE_FIXED64):
            return self.n
        if field.type in (FD.TYPE_FLOAT, FD.TYPE_DOUBLE):
            return self.n + 0.5
        if field.type == FD.TYPE_STRING:
            return f"{field.name}-{self.n}"
        if field.type == FD.TYPE_BYTES:
            return f"{field.name}-{self.n}".encode() + b"\x00\xff"
        raise AssertionError(f"{field.full_name}: a field type this test does not fill")

    def message(self, message_descriptor, stack=()):
        assert message_descriptor not in stack, f"recursive message {message_descriptor.full_name}"
        message = rpc.message_class(message_descriptor.name)() if not message_descriptor.containing_type \
            else getattr(rpc.message_class(message_descriptor.containing_type.name), message_descriptor.name)()
        for field in message_descriptor.fields:
            values = [self.value(field, (*stack, message_descriptor)) for _ in range(2 if field.is_repeated else 1)]
            target = getattr(message, field.name) if field.is_repeated else None
            for value in values:
                if field.is_repeated and field.type == FD.TYPE_MESSAGE:
                    target.add().CopyFrom(value)
                elif field.is_repeated:
                    target.append(value)
                elif field.type == FD.TYPE_MESSAGE:
                    getattr(message, field.name).CopyFrom(value)
                else:
                    setattr(message, field.name, value)
        return message


def missing_names(message_descriptor, rendered, path="", leave_out=()):
    """Field paths of the descriptor (recursively) that the rendering lacks."""
    missing = [f"{path}{f.name}" for f in message_descriptor.fields
               if f.name not in rendered and f.name not in leave_out]
    for field in message_descriptor.fields:
        if field.type == FD.TYPE_MESSAGE and field.name in rendered:
            items = rendered[field.name] if field.is_repeated else [rendered[field.name]]
            for i, item in enumerate(items):
                missing += missing_names(field.message_type, item, f"{path}{field.name}[{i}].")
    return missing


def assert_shown(message, rendered, leave_out=()):
    """Every field of `message` (all set) is in `rendered` by name, and parsing it back gives the message."""
    assert missing_names(message.DESCRIPTOR, rendered, leave_out=leave_out) == [], type(message).__name__
    back = json_format.ParseDict(rendered, type(message)())
    for name in leave_out:
        setattr(back, name, getattr(message, name))
    assert back == message, type(message).__name__


def test_the_filler_sets_every_field():
    for message_descriptor in all_descriptors():
        message = Filler().message(message_descriptor)
        assert len(message.ListFields()) == len(message_descriptor.fields), message_descriptor.full_name
        assert message.IsInitialized()


@pytest.mark.parametrize("message_descriptor", all_descriptors(), ids=lambda d: d.full_name)
def test_every_field_of_every_message_reaches_plain(message_descriptor):
    message = Filler().message(message_descriptor)
    assert_shown(message, rpc.plain(message))


def envelope(header_cls, **overrides):
    header = Filler().message(header_cls.DESCRIPTOR)
    for name, value in overrides.items():
        setattr(header, name, value)
    return header


def decoded(*messages, serial=7):
    data = inlong_proto.encode(rpc.frame_of(serial, rpc.delimited(*messages)))
    frame = inlong_proto.decode(data, "tubemq")
    return frame.payload, frame.to_dict()["payload"]


@pytest.mark.parametrize("entry", sorted(rpc.METHODS.values(), key=lambda e: e["id"]), ids=lambda e: e["name"])
def test_every_envelope_and_business_field_reaches_to_dict(entry):
    """RpcConnHeader, RequestHeader, RequestBody (timeout!), ResponseHeader and RspResponseBody with every
    field set, around a business message with every field set, for every method in both directions."""
    filler = Filler()
    request = filler.message(rpc.message_class(entry["request"]).DESCRIPTOR)
    body = envelope(RPC_pb2.RequestBody, method=entry["id"], request=request.SerializeToString())
    conn, header = envelope(RPC_pb2.RpcConnHeader, flag=10), envelope(RPC_pb2.RequestHeader)
    payload, out = decoded(conn, header, body)
    assert payload.direction == "request" and out["body"]["timeout"] == str(body.timeout)
    assert_shown(conn, out["conn_header"])
    assert_shown(header, out["header"])
    assert_shown(body, out["body"], leave_out=["request"])
    assert_shown(request, out["message"][entry["request"]])

    response = filler.message(rpc.message_class(entry["response"]).DESCRIPTOR)
    body = envelope(RPC_pb2.RspResponseBody, method=entry["id"], data=response.SerializeToString())
    conn = envelope(RPC_pb2.RpcConnHeader, flag=rpc.FLAG_RESPONSE)
    header = envelope(RPC_pb2.ResponseHeader, status=RPC_pb2.ResponseHeader.SUCCESS)
    payload, out = decoded(conn, header, body)
    assert payload.direction == "response" and payload.method == entry["name"]
    assert_shown(conn, out["conn_header"])
    assert_shown(header, out["header"])
    assert_shown(body, out["body"], leave_out=["data"])
    assert_shown(response, out["message"][entry["response"]])


@pytest.mark.parametrize("status", ["ERROR", "FATAL"])
def test_every_exception_field_reaches_to_dict(status):
    conn = envelope(RPC_pb2.RpcConnHeader, flag=rpc.FLAG_RESPONSE)
    header = envelope(RPC_pb2.ResponseHeader, status=RPC_pb2.ResponseHeader.Status.Value(status))
    body = envelope(RPC_pb2.RspExceptionBody)
    payload, out = decoded(conn, header, body)
    assert payload.exception is not None
    assert_shown(conn, out["conn_header"])
    assert_shown(header, out["header"])
    assert_shown(body, out["body"])
    assert out["exception"] == {"class_name": body.exceptionName, "message": body.stackTrace, "is_standby": False}


def test_every_envelope_message_is_covered_by_the_tests_above():
    """If RPC.proto gains a message, the envelope tests above must learn it."""
    assert set(RPC_pb2.DESCRIPTOR.message_types_by_name) == {
        "RpcConnHeader", "RequestHeader", "RequestBody", "ResponseHeader", "RspExceptionBody", "RspResponseBody"}
    assert rpc.PAYLOAD_FIELDS == {"RequestBody": "request", "RspResponseBody": "data"}


def test_the_cli_shows_the_request_timeout(tmp_path):
    """`inlong-proto decode -p tubemq --payload FILE` prints the 10000 ms the Java client sends."""
    frame = rpc.request_frame(1, "producerCloseClientP2M", MasterService_pb2.CloseRequestP2M(clientId="c1"))
    path = tmp_path / "request.bin"
    path.write_bytes(inlong_proto.encode(frame))
    result = CliRunner().invoke(cli.main, ["decode", "-p", "tubemq", "--payload", str(path)])
    assert result.exit_code == 0, result.output
    record = json.loads(result.output)
    assert record["payload"]["body"] == {"method": 3, "timeout": "10000"}
