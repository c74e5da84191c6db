"""TubeMQ RPC protobuf specs: they compile, match the facts, and agree with methods.yaml."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from google.protobuf import descriptor_pb2
from google.protobuf.message import EncodeError
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.internal import api_implementation

import protos

ROOT = Path(__file__).resolve().parent.parent.parent
SPECS = ROOT / "specs" / "tubemq"
PROTOS = ("RPC", "MasterService", "BrokerService")
METHODS = yaml.safe_load((SPECS / "methods.yaml").read_text())

TYPE = {FieldDescriptor.TYPE_INT32: "int32", FieldDescriptor.TYPE_INT64: "int64",
        FieldDescriptor.TYPE_BOOL: "bool", FieldDescriptor.TYPE_STRING: "string",
        FieldDescriptor.TYPE_BYTES: "bytes", FieldDescriptor.TYPE_ENUM: "enum",
        FieldDescriptor.TYPE_MESSAGE: "message"}


@pytest.fixture(scope="module")
def pb(tmp_path_factory):
    """Compiles a copy of only specs/tubemq/*.proto and imports the three generated modules."""
    with protos.compiled(tmp_path_factory.mktemp("tubemq_protos"), "tubemq",
                         [f"{name}_pb2" for name in PROTOS]) as (compiled, modules):
        assert sorted(p.name for p in compiled) == sorted(f"{name}.proto" for name in PROTOS)
        yield {name: modules[f"{name}_pb2"] for name in PROTOS}


def message_class(pb, full_name):
    for module in pb.values():
        if full_name in module.DESCRIPTOR.message_types_by_name:
            return getattr(module, full_name)
    raise KeyError(full_name)


def all_messages(pb):
    return {name: descriptor for module in pb.values()
            for name, descriptor in module.DESCRIPTOR.message_types_by_name.items()}


def label(field):
    # protobuf 7 dropped FieldDescriptor.label; is_required / is_repeated replace it.
    return "required" if field.is_required else "repeated" if field.is_repeated else "optional"


def shape(descriptor):
    """name -> (number, label, type) of every field, through the descriptor API."""
    return {f.name: (f.number, label(f), TYPE[f.type]) for f in descriptor.fields}


# ---------------------------------------------------------------------------------------- runtime

def test_protobuf_runtime_is_upb():
    assert api_implementation.Type() == "upb"


# ----------------------------------------------------------------------------- compiled descriptors

def test_files_have_no_package_and_proto2_syntax(pb):
    for name, module in pb.items():
        proto = descriptor_pb2.FileDescriptorProto()
        module.DESCRIPTOR.CopyToProto(proto)
        assert proto.package == "", name
        assert proto.syntax in ("", "proto2"), name
        assert list(proto.dependency) == [], name
        for message in module.DESCRIPTOR.message_types_by_name.values():
            assert message.full_name == message.name


def test_message_and_field_counts(pb):
    counts = {name: (len(m.DESCRIPTOR.message_types_by_name),
                     sum(len(d.fields) for d in m.DESCRIPTOR.message_types_by_name.values()))
              for name, m in pb.items()}
    assert counts == {"RPC": (6, 16), "MasterService": (48, 325), "BrokerService": (12, 81)}


def test_no_message_name_is_defined_twice(pb):
    names = [n for m in pb.values() for n in m.DESCRIPTOR.message_types_by_name]
    assert len(names) == len(set(names))


# Facts document, section 2.3 (RPC.proto), exactly.
RPC_FACTS = {
    "RpcConnHeader": {"flag": (1, "required", "int32"), "traceId": (2, "optional", "int64"),
                      "spanId": (3, "optional", "int64"), "parentId": (4, "optional", "int64")},
    "RequestHeader": {"serviceType": (1, "optional", "int32"), "protocolVer": (2, "optional", "int32")},
    "RequestBody": {"method": (1, "required", "int32"), "timeout": (2, "optional", "int64"),
                    "request": (3, "optional", "bytes")},
    "ResponseHeader": {"status": (1, "required", "enum"), "serviceType": (2, "optional", "int32"),
                       "protocolVer": (3, "optional", "int32")},
    "RspExceptionBody": {"exceptionName": (1, "required", "string"), "stackTrace": (2, "optional", "string")},
    "RspResponseBody": {"method": (1, "required", "int32"), "data": (2, "required", "bytes")},
}


@pytest.mark.parametrize("name", sorted(RPC_FACTS))
def test_rpc_envelope_fields_match_the_facts(pb, name):
    descriptor = pb["RPC"].DESCRIPTOR.message_types_by_name[name]
    assert shape(descriptor) == RPC_FACTS[name]
    assert [f.name for f in descriptor.fields] == list(RPC_FACTS[name])
    for field in descriptor.fields:
        assert not field.has_default_value, (name, field.name)


def test_response_status_enum_matches_facts_and_yaml(pb):
    status = pb["RPC"].DESCRIPTOR.message_types_by_name["ResponseHeader"].enum_types_by_name["Status"]
    assert status.full_name == "ResponseHeader.Status"
    values = {v.name: v.number for v in status.values}
    assert values == {"SUCCESS": 0, "ERROR": 1, "FATAL": 2}
    assert values == METHODS["enums"]["response_status"]["values"]
    field = pb["RPC"].DESCRIPTOR.message_types_by_name["ResponseHeader"].fields_by_name["status"]
    assert field.enum_type is status


# A few business messages against the facts document, sections 2.5 and 2.6.
BUSINESS_FACTS = {
    "TransferedMessage": {"messageId": (1, "required", "int64"), "checkSum": (2, "required", "int32"),
                          "payLoadData": (3, "required", "bytes"), "flag": (4, "required", "int32")},
    "SendMessageRequestP2B": {
        "clientId": (1, "required", "string"), "topicName": (2, "required", "string"),
        "partitionId": (3, "required", "int32"), "data": (4, "required", "bytes"),
        "flag": (5, "required", "int32"), "checkSum": (6, "required", "int32"),
        "sentAddr": (7, "required", "int32"), "msgType": (8, "optional", "string"),
        "msgTime": (9, "optional", "string"), "authInfo": (10, "optional", "message")},
    "GetMessageResponseB2C": {
        "success": (1, "required", "bool"), "errCode": (2, "required", "int32"),
        "errMsg": (3, "optional", "string"), "messages": (4, "repeated", "message"),
        "currOffset": (5, "optional", "int64"), "minLimitTime": (6, "optional", "int32"),
        "escFlowCtrl": (7, "optional", "bool"), "currDataDlt": (8, "optional", "int64"),
        "requireSlow": (9, "optional", "bool"), "maxOffset": (10, "optional", "int64")},
    "EventProto": {"rebalanceId": (1, "optional", "int64"), "opType": (2, "optional", "int32"),
                   "status": (3, "optional", "int32"), "subscribeInfo": (4, "repeated", "string")},
    "HeartRequestC2M": {
        "clientId": (1, "required", "string"), "groupName": (2, "required", "string"),
        "subscribeInfo": (3, "repeated", "string"), "reportSubscribeInfo": (4, "required", "bool"),
        "event": (5, "optional", "message"), "defFlowCheckId": (6, "optional", "int64"),
        "groupFlowCheckId": (7, "optional", "int64"), "ssdStoreId": (8, "optional", "int64"),
        "qryPriorityId": (9, "optional", "int32"), "authInfo": (10, "optional", "message")},
    "MasterBrokerAuthorizedInfo": {"visitAuthorizedToken": (1, "required", "string"),
                                   "authAuthorizedToken": (2, "optional", "string")},
    "GetPartMetaResponseM2C": {
        "errCode": (1, "required", "int32"), "errMsg": (2, "required", "string"),
        "brokerConfigId": (3, "optional", "int64"), "topicMetaInfoId": (4, "optional", "int64"),
        "topicMetaInfoList": (5, "repeated", "string"), "brokerConfigList": (6, "repeated", "string")},
}


@pytest.mark.parametrize("name", sorted(BUSINESS_FACTS))
def test_business_message_fields_match_the_facts(pb, name):
    assert shape(all_messages(pb)[name]) == BUSINESS_FACTS[name]


def test_message_typed_fields_point_at_the_right_messages(pb):
    messages = all_messages(pb)
    assert messages["SendMessageRequestP2B"].fields_by_name["authInfo"].message_type.name == "AuthorizedInfo"
    assert messages["GetMessageResponseB2C"].fields_by_name["messages"].message_type.name == "TransferedMessage"
    assert messages["HeartResponseM2C"].fields_by_name["event"].message_type.name == "EventProto"
    assert messages["RegisterResponseM2B"].fields_by_name["brokerAuthorizedInfo"].message_type.name == \
        "MasterBrokerAuthorizedInfo"
    assert messages["RegisterRequestC2MV2"].fields_by_name["subRepInfo"].message_type.name == "ClientSubRepInfo"


# ----------------------------------------------------------------------------------- round trips

def test_request_stream_round_trip_matches_the_worked_example(pb):
    """Facts 2.12: CloseRequestP2M{clientId="c1"} in a method-3 request, byte for byte."""
    rpc = pb["RPC"]
    close = message_class(pb, "CloseRequestP2M")(clientId="c1")
    parts = [rpc.RpcConnHeader(flag=0), rpc.RequestHeader(serviceType=1, protocolVer=3),
             rpc.RequestBody(method=3, timeout=10000, request=close.SerializeToString())]
    wire = [p.SerializeToString() for p in parts]
    assert [w.hex() for w in wire] == ["0800", "08011003", "080310904e1a040a026331"]
    for part, data in zip(parts, wire):
        again = type(part).FromString(data)
        assert again == part and again.IsInitialized()
    assert message_class(pb, "CloseRequestP2M").FromString(
        rpc.RequestBody.FromString(wire[2]).request).clientId == "c1"


def test_response_stream_round_trip_matches_the_worked_example(pb):
    rpc = pb["RPC"]
    close = message_class(pb, "CloseResponseM2P")(success=True, errCode=200, errMsg="OK!")
    header = rpc.ResponseHeader(status=rpc.ResponseHeader.SUCCESS, protocolVer=3)
    body = rpc.RspResponseBody(method=3, data=close.SerializeToString())
    assert header.SerializeToString().hex() == "08001803"
    assert body.SerializeToString().hex() == "0803120a080110c8011a034f4b21"
    assert rpc.RspResponseBody.FromString(body.SerializeToString()) == body
    exc = rpc.RspExceptionBody(exceptionName="org.apache.inlong.tubemq.corerpc.exception.StandbyException",
                               stackTrace="m")
    assert rpc.RspExceptionBody.FromString(exc.SerializeToString()) == exc
    assert len(exc.SerializeToString()) == 0x40


def test_send_message_round_trip_with_negative_int32s(pb):
    cls = message_class(pb, "SendMessageRequestP2B")
    msg = cls(clientId="p1", topicName="t", partitionId=0, data=b"hi", flag=0, checkSum=-1,
              sentAddr=-1062731510, msgType="x", msgTime="202401010000")
    msg.authInfo.visitAuthorizedToken = 7
    data = msg.SerializeToString()
    # Facts 2.10: -1 and 192.168.1.10 as proto2 int32 varints (10 bytes each).
    assert bytes.fromhex("30ffffffffffffffffff01") in data
    assert bytes.fromhex("388a82a085fcffffffff01") in data
    assert cls.FromString(data) == msg


def test_transfered_message_checksum_example(pb):
    cls = message_class(pb, "TransferedMessage")
    msg = cls(messageId=1, checkSum=1486039724, payLoadData=b"hi", flag=0)
    assert bytes.fromhex("10acd5ccc405") in msg.SerializeToString()
    assert cls.FromString(msg.SerializeToString()) == msg


def test_nested_and_repeated_round_trip(pb):
    cls = message_class(pb, "HeartResponseM2C")
    msg = cls(success=True, errCode=200, errMsg="OK")
    msg.event.rebalanceId = 5
    msg.event.opType = 2
    msg.event.status = 1
    msg.event.subscribeInfo.extend(["c1@g#1:h:8123#t:0", "c1@g#1:h:8123#t:1"])
    msg.authorizedInfo.visitAuthorizedToken = 9
    again = cls.FromString(msg.SerializeToString())
    assert again == msg and list(again.event.subscribeInfo) == list(msg.event.subscribeInfo)


# ------------------------------------------------------------------------------ required fields

@pytest.mark.parametrize("full_name, fields", [
    ("RpcConnHeader", {}),
    ("RequestBody", {"timeout": 1}),
    ("ResponseHeader", {"protocolVer": 3}),
    ("RspResponseBody", {"method": 3}),
    ("RspExceptionBody", {"stackTrace": "x"}),
    ("CloseRequestP2M", {}),
    ("SendMessageRequestP2B", {"clientId": "p", "topicName": "t", "partitionId": 0, "data": b"",
                               "flag": 0, "checkSum": -1}),
    ("GetMessageResponseB2C", {"success": True}),
])
def test_missing_required_fields_are_detected(pb, full_name, fields):
    cls = message_class(pb, full_name)
    msg = cls(**fields)
    assert not msg.IsInitialized()
    assert msg.FindInitializationErrors()
    with pytest.raises(EncodeError):
        msg.SerializeToString()
    assert cls.FromString(msg.SerializePartialToString()) == msg


def test_required_field_inside_a_nested_message_is_enforced(pb):
    msg = message_class(pb, "CloseRequestP2M")(clientId="c")
    msg.authInfo.authInfo.userName = "u"  # AuthenticateInfo misses four required fields
    assert not msg.IsInitialized()
    assert any(e.startswith("authInfo.authInfo.") for e in msg.FindInitializationErrors())


# ---------------------------------------------------------------------------- methods.yaml x protos

def test_every_method_names_existing_messages(pb):
    messages = all_messages(pb)
    for method in METHODS["methods"]:
        for key in ("request", "response"):
            assert method[key] in messages, (method["id"], key, method[key])
            assert messages[method[key]].full_name == method[key]
        cls = message_class(pb, method["request"])
        assert cls.DESCRIPTOR.name.endswith(("P2M", "C2M", "B2M", "P2B", "C2B", "C2MV2"))


def test_envelope_and_unmapped_messages_exist(pb):
    messages = all_messages(pb)
    envelope = METHODS["envelope"]
    for key in ("request", "response_success", "response_failure"):
        assert all(name in pb["RPC"].DESCRIPTOR.message_types_by_name for name in envelope[key])
    for key in ("request_payload_field", "response_payload_field"):
        message, field = envelope[key].split(".")
        assert messages[message].fields_by_name[field].type == FieldDescriptor.TYPE_BYTES
    used = {m[k] for m in METHODS["methods"] for k in ("request", "response")}
    for name in METHODS["unmapped_messages"]["messages"]:
        assert name in messages and name not in used


def test_proto_files_listed_in_yaml_exist():
    assert METHODS["proto_files"] == [f"tubemq/{name}.proto" for name in PROTOS]
    for path in METHODS["proto_files"]:
        assert (ROOT / "specs" / path).is_file()


# --------------------------------------------------------------------------- methods.yaml alone

def test_method_ids_are_unique_and_match_the_facts():
    ids = [m["id"] for m in METHODS["methods"]]
    unsupported = [m["id"] for m in METHODS["unsupported_methods"]["entries"]]
    assert len(ids) == len(set(ids)) and not set(ids) & set(unsupported)
    assert sorted(ids) == [1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 15, 16, 17, 18, 20, 21, 22]
    assert sorted(unsupported) == [11, 12, 14, 19]
    names = [m["name"] for m in METHODS["methods"]]
    constants = [m["constant"] for m in METHODS["methods"] + METHODS["unsupported_methods"]["entries"]]
    assert len(names) == len(set(names)) and len(constants) == len(set(constants))


def test_methods_have_every_key_and_known_service_types():
    known = METHODS["enums"]["service_type"]["values"]
    for method in METHODS["methods"]:
        assert set(method) == {"id", "name", "constant", "service_type", "accepted_service_types",
                               "request", "response", "doc"}, method["id"]
        assert isinstance(method["id"], int) and method["doc"]
        assert method["service_type"] in known
        assert method["service_type"] in method["accepted_service_types"]
        assert set(method["accepted_service_types"]) <= set(known)
    for entry in METHODS["unsupported_methods"]["entries"]:
        assert set(entry["accepted_service_types"]) <= set(known)


def test_accepted_service_types_match_the_server_check():
    """Facts 2.4 / PbEnDecoder.isValidServiceTypeAndMethod, per service type."""
    accepted = {}
    for entry in METHODS["methods"] + METHODS["unsupported_methods"]["entries"]:
        for service in entry["accepted_service_types"]:
            accepted.setdefault(service, set()).add(entry["id"])
    assert accepted == {
        "MASTER_SERVICE": {1, 2, 3, 4, 5, 6, 7, 8, 9, 20, 21, 22},
        "BROKER_READ_SERVICE": {11, 12, 13, 15, 16, 17, 18, 19},
        "BROKER_WRITE_SERVICE": {11, 12, 13, 14},
    }


def test_enums_are_well_formed():
    enums = METHODS["enums"]
    assert set(enums) == {"service_type", "protocol_version", "rpc_flag", "response_status",
                          "register_op_type", "event_type", "event_status", "consume_model",
                          "error_code"}
    prefixes = METHODS["path_prefixes"]
    for name, enum in enums.items():
        assert enum["doc"] and enum["source"], name
        assert all(part.split("/")[0] in prefixes for part in enum["source"].split("; ")), name
        values = enum["values"]
        assert values and all(isinstance(v, int) for v in values.values()), name
        assert len(set(values.values())) == len(values), f"{name}: duplicate numbers"
        assert set(enum.get("value_docs", {})) <= set(values), name
        for members in enum.get("sets", {}).values():
            assert set(members) <= set(values.values()), name


def test_enum_values_match_the_facts():
    enums = METHODS["enums"]
    assert enums["service_type"]["values"] == {
        "MASTER_SERVICE": 1, "BROKER_READ_SERVICE": 2, "BROKER_WRITE_SERVICE": 3,
        "BROKER_ADMIN_SERVICE": 4, "MASTER_ADMIN_SERVICE": 5}
    assert enums["protocol_version"]["values"] == {
        "RPC_PROTOCOL_VERSION_OLD_1": 1, "RPC_PROTOCOL_VERSION_TUBEMQ": 2, "RPC_PROTOCOL_VERSION": 3}
    assert enums["rpc_flag"]["values"] == {"MSG_TYPE_REQUEST": 0, "MSG_TYPE_RESPONSE": 1}
    assert enums["register_op_type"]["values"] == {"MSG_OPTYPE_REGISTER": 31, "MSG_OPTYPE_UNREGISTER": 32}
    assert enums["event_type"]["values"] == {
        "CONNECT": 1, "DISCONNECT": 2, "REPORT": 3, "REFRESH": 4, "STOPREBALANCE": 5,
        "ONLY_CONNECT": 10, "ONLY_DISCONNECT": 20, "UNKNOWN": -1}
    assert enums["event_status"]["values"] == {"TODO": 0, "PROCESSING": 1, "DONE": 2, "UNKNOWN": -1,
                                               "FAILED": -2}
    errors = enums["error_code"]["values"]
    assert len(errors) == 42 and errors["SUCCESS"] == 200 and errors["UNSPECIFIED_ABNORMAL"] == 599
    assert errors["PARTITION_OCCUPIED"] == 410 and errors["CONSUME_CONTENT_FORBIDDEN"] == 455
    assert enums["error_code"]["sets"]["IGNORE_ERROR_SET"] == [400, 404, 405, 406, 407, 408]


def test_frame_constants():
    frame = METHODS["frame"]
    assert frame["RPC_PROTOCOL_BEGIN_TOKEN"]["value"] == 0xFF7FF4FE
    assert frame["RPC_MAX_BUFFER_SIZE"]["value"] == 8192
    assert frame["MAX_FRAME_MAX_LIST_SIZE"]["value"] == (20 + 8) * 1024 * 1024 // 8192
    assert frame["CPP_MAX_FRAME_LIST_COUNT"]["value"] == 8 * 1024 * 1024 // 8192


def test_answers_match_the_server():
    """methods.yaml `answers`, read from NettyRpcServer.java / NettyRequestContext.java / PbEnDecoder.java."""
    answers = METHODS["answers"]
    assert answers["response_header_fields"] == {"SUCCESS": ["status", "protocolVer"],
                                                 "ERROR": ["status", "protocolVer"], "FATAL": ["status"]}
    assert set(answers["response_header_fields"]) == set(METHODS["enums"]["response_status"]["values"])
    prefixes = answers["fatal_stack_trace_prefixes"]
    assert {stage: prefix["text"] for stage, prefix in prefixes.items()} == {
        "read": "IPC server unable to read call parameters:", "handle": "IPC server handle request error :"}
    assert all(prefix["doc"] for prefix in prefixes.values())
    unsupported = answers["unsupported_method"]
    assert unsupported["exception_name"] == "java.lang.Exception" and unsupported["stage"] in prefixes
    assert unsupported["message_format"].format(id=11) == "Unsupported method ID :11"
    assert all(part.split("/")[0] in METHODS["path_prefixes"]
               for source in (answers["source"], unsupported["source"]) for part in source.split("; "))
