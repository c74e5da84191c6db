"""Emits the compiled TubeMQ payload layer: protobuf validation tables from the .proto specs and the method table.

generated/native/tubemq_tables.h is included by the layer's hand-written translation unit
(tubemq_layer_runtime.c), built by setup.py (when a C compiler is present) into the ``tubemq_layer`` part of
``inlong_proto._compiled``. Its ``verdicts`` reads the RPC streams of a scanned batch straight from the
Arrow buffers of the ``blocks`` column and answers, per frame, the message type and direction that
inlong_proto.tubemq.rpc.describe gives, or -1 ("ask Python") wherever it is not certain describe accepts
the frame; the runtime (tools/ksygen/tubemq_layer_runtime.c, hand-written) says which inputs those are.

Everything protocol-specific comes from here: per message (every envelope message, every business message
of the method table, and the messages they nest) a table indexed by field number with the wire type its
kind expects, whether it is required (a bit in the message's required mask), the nested message's index,
the enum's known values (for a closed enum), whether a string is checked for UTF-8 (as upb checks it:
where the resolved feature utf8_validation is VERIFY, i.e. proto3; a proto2 string is kept as sent, and
describe accepts it); the envelope's message and field numbers, looked up by name in the descriptors;
and the method ids with their request and response messages and message-type names, in the order of
MESSAGE_TYPES. A field kind the runtime does not validate (groups, sint, ...) is a generation error.
"""
from __future__ import annotations

from pathlib import Path

from google.protobuf import descriptor as descriptor_module, descriptor_pb2

from .expr import GenerationError

# The envelope: (C name, message, field) the runtime reads; the payload fields come from methods.yaml.
ENVELOPE_MESSAGES = ("RpcConnHeader", "RequestHeader", "RequestBody", "ResponseHeader", "RspResponseBody",
                     "RspExceptionBody")
ENVELOPE_FIELDS = (("TQ_CONN_FLAG", "RpcConnHeader", "flag"), ("TQ_REQUEST_METHOD", "RequestBody", "method"),
                   ("TQ_RESPONSE_STATUS", "ResponseHeader", "status"),
                   ("TQ_RESPONSE_METHOD", "RspResponseBody", "method"))
EXCEPTION_TYPE = "exception"  # rpc.RpcMessage.message_type of an RspExceptionBody answer
FD = descriptor_module.FieldDescriptor
# descriptor field type -> the runtime's kind (TQ_K_*), which fixes the wire type and the value check
_KINDS = {FD.TYPE_INT32: "TQ_K_INT32", FD.TYPE_INT64: "TQ_K_VARINT", FD.TYPE_UINT64: "TQ_K_VARINT",
          FD.TYPE_UINT32: "TQ_K_UINT32", FD.TYPE_BOOL: "TQ_K_BOOL", FD.TYPE_ENUM: "TQ_K_ENUM",
          FD.TYPE_STRING: "TQ_K_STRING", FD.TYPE_BYTES: "TQ_K_BYTES", FD.TYPE_MESSAGE: "TQ_K_MESSAGE",
          FD.TYPE_FIXED32: "TQ_K_FIXED32", FD.TYPE_SFIXED32: "TQ_K_FIXED32", FD.TYPE_FLOAT: "TQ_K_FIXED32",
          FD.TYPE_FIXED64: "TQ_K_FIXED64", FD.TYPE_SFIXED64: "TQ_K_FIXED64", FD.TYPE_DOUBLE: "TQ_K_FIXED64"}
_MAX_FIELD_NUMBER = 4096  # tables are dense by field number; a larger one would need a sparse table
_MAX_REQUIRED = 64  # required fields per message: one bit each in a uint64_t mask


def _kind(field) -> str:
    """The runtime's kind of a field, from its type and the resolved features upb parses it by (editions'
    _GetFeatures: the one place the descriptor API gives utf8_validation and message_encoding)."""
    features = field._GetFeatures()
    kind = _KINDS.get(field.type)
    if kind is None or features.message_encoding == descriptor_pb2.FeatureSet.DELIMITED:
        raise GenerationError(f"{field.full_name}: field type {field.type} (a group, sint32 or sint64) is not "
                              "validated by the compiled TubeMQ layer")
    if kind == "TQ_K_STRING" and features.utf8_validation != descriptor_pb2.FeatureSet.VERIFY:
        return "TQ_K_BYTES"
    if kind == "TQ_K_ENUM" and features.enum_type != descriptor_pb2.FeatureSet.CLOSED:
        return "TQ_K_INT32"
    return kind


def _messages(names: list[str], find) -> list:
    """The descriptors of the named messages and, depth first, every message they nest, each once."""
    order, seen = [], set()

    def visit(descriptor):
        if descriptor.full_name in seen:
            return
        seen.add(descriptor.full_name)
        order.append(descriptor)
        for field in descriptor.fields:
            if field.message_type is not None:
                visit(field.message_type)

    for name in names:
        visit(find(name))
    return order


def _c_string(text: str) -> str:
    if any(ch in text for ch in '"\\') or not text.isascii() or not text.isprintable():
        raise GenerationError(f"message type name {text!r} needs escaping in C")
    return f'"{text}"'


def message_types(table: dict) -> list[str]:
    """Every message type the layer can answer, as rpc.RpcMessage.message_type names them: a mapped method's
    name, an unsupported method's constant (or method_<id> without one), "exception"."""
    names = [entry["name"] for entry in table["methods"]]
    names += [entry.get("constant") or f"method_{entry['id']}" for entry in table["unsupported_methods"]["entries"]]
    names.append(EXCEPTION_TYPE)
    if len(set(names)) != len(names):
        raise GenerationError(f"message type names repeat: {names}")
    return names


def emit_tables(table: dict, find) -> str:
    """The C tables of the layer; find(name) is the descriptor of a message named in the method table."""
    methods = table["methods"]
    business = [name for entry in methods for name in (entry["request"], entry["response"])]
    descriptors = _messages(list(ENVELOPE_MESSAGES) + business, find)
    index = {descriptor.full_name: position for position, descriptor in enumerate(descriptors)}
    enums: dict[str, int] = {}
    lines = ["/* ---- tables generated from the .proto files and methods.yaml of specs/tubemq "
             "(tools/ksygen/cgen_protobuf.py) ---- */"]
    enum_lines, field_lines, message_lines = [], [], []
    for position, descriptor in enumerate(descriptors):
        fields = sorted(descriptor.fields, key=lambda f: f.number)
        if fields and fields[-1].number > _MAX_FIELD_NUMBER:
            raise GenerationError(f"{descriptor.full_name}: field number {fields[-1].number} is over "
                                  f"{_MAX_FIELD_NUMBER}, which the dense tables do not hold")
        required = [f for f in fields if f.is_required]
        if len(required) > _MAX_REQUIRED:
            raise GenerationError(f"{descriptor.full_name}: more than {_MAX_REQUIRED} required fields")
        rows = []
        for field in fields:
            kind = _kind(field)
            enum_set = -1
            if kind == "TQ_K_ENUM":
                enum = field.enum_type
                if enum.full_name not in enums:
                    enums[enum.full_name] = len(enums)
                    values = sorted({value.number for value in enum.values})
                    enum_lines.append(f"static const int32_t tq_enum_{enums[enum.full_name]}[] = "
                                      f"{{{', '.join(map(str, values))}}};  /* {enum.full_name} */")
                enum_set = enums[enum.full_name]
            sub = index[field.message_type.full_name] if field.message_type is not None else -1
            bit = required.index(field) if field.is_required else -1
            rows.append(f"    [{field.number}] = {{{kind}, {bit}, {sub}, {enum_set}}},"
                        f"  /* {field.name} */")
        size = fields[-1].number + 1 if fields else 1
        field_lines += [f"static const tq_field tq_fields_{position}[{size}] = {{  /* {descriptor.full_name} */"]
        field_lines += rows or ["    {0},"]
        field_lines += ["};"]
        mask = (1 << len(required)) - 1
        message_lines.append(f"    {{tq_fields_{position}, {size}, UINT64_C({mask:#x})}},"
                             f"  /* {descriptor.full_name} */")
    lines += enum_lines
    lines.append("static const tq_enum tq_enums[] = {" + ", ".join(
        f"{{tq_enum_{n}, sizeof tq_enum_{n} / sizeof tq_enum_{n}[0]}}" for n in range(len(enums))) + "};")
    lines += field_lines
    lines += ["static const tq_message tq_messages[] = {"] + message_lines + ["};"]
    lines += [f"#define TQ_MSG_{name} {index[find(name).full_name]}" for name in ENVELOPE_MESSAGES]
    for c_name, message, field_name in ENVELOPE_FIELDS:
        lines.append(f"#define {c_name} {_field(find(message), field_name).number}")
    for c_name, key in (("TQ_REQUEST_PAYLOAD", "request_payload_field"),
                        ("TQ_RESPONSE_PAYLOAD", "response_payload_field")):
        message, field_name = table["envelope"][key].split(".")
        lines.append(f"#define {c_name} {_field(find(message), field_name).number}")
    lines.append(f"#define TQ_FLAG_RESPONSE {table['enums']['rpc_flag']['values']['MSG_TYPE_RESPONSE']}")
    status = find("ResponseHeader").enum_types_by_name["Status"].values_by_name["SUCCESS"].number
    lines.append(f"#define TQ_STATUS_SUCCESS {status}")
    names = message_types(table)
    lines.append(f"#define TQ_EXCEPTION_TYPE {names.index(EXCEPTION_TYPE)}")
    lines.append("static const char *const TQ_MESSAGE_TYPES[] = {" + ", ".join(map(_c_string, names)) + "};")
    lines += ["", "/* The message type of a method id (-1: none the layer knows), and its business messages. */",
              "static int tq_method(int64_t id, int *request_message, int *response_message)", "{",
              "    switch (id) {"]
    for entry in methods:
        lines.append(f"    case {entry['id']}: *request_message = {index[find(entry['request']).full_name]}; "
                     f"*response_message = {index[find(entry['response']).full_name]}; "
                     f"return {names.index(entry['name'])};  /* {entry['name']} */")
    for entry in table["unsupported_methods"]["entries"]:
        name = entry.get("constant") or f"method_{entry['id']}"
        lines.append(f"    case {entry['id']}: *request_message = *response_message = -1; return {names.index(name)};")
    lines += ["    default: return -1;", "    }", "}"]
    return "\n".join(lines) + "\n"


def _field(descriptor, name: str):
    field = descriptor.fields_by_name.get(name)
    if field is None:
        raise GenerationError(f"{descriptor.full_name} has no field {name!r}, which the envelope needs")
    return field


HEADER = "tubemq_tables.h"


def emit_header() -> str:
    """tubemq_tables.h: the generated tables, which the TubeMQ layer's translation unit
    (tubemq_layer_runtime.c, part of inlong_proto._compiled) includes once."""
    from inlong_proto.generated.tables.tubemq.methods import DATA
    from inlong_proto.tubemq.rpc import message_class

    return ("/* Generated by tools/ksygen/cgen_protobuf.py from specs/tubemq (the protobuf descriptors and "
            "methods.yaml), for tools/ksygen/tubemq_layer_runtime.c. Do not edit. */\n"
            "#ifndef INLONG_PROTO_TUBEMQ_TABLES_H\n#define INLONG_PROTO_TUBEMQ_TABLES_H\n"
            + emit_tables(DATA, lambda name: message_class(name).DESCRIPTOR) + "\n#endif\n")


def write(out: Path) -> Path:
    target = out / "native" / HEADER
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(emit_header())
    return target
