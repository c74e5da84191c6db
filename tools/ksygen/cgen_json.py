"""Emits the compiled EventMesh TCP payload layer: binding rules from the JSON Schemas and the command table.

generated/native/eventmesh_tables.h is included by the layer's hand-written translation unit
(eventmesh_layer_runtime.c), built by setup.py (when a C compiler is present) into the ``eventmesh_layer`` part
of ``inlong_proto._compiled``. Its ``verdicts`` answers, per frame of a scanned batch, the message type
and direction inlong_proto.eventmesh.tcp.describe gives it, or -1 where Python must decide.

The rules come from the schemas as tools/ksygen/jsonschema_codegen.py loads them (the same Shapes its generated
from_json are written from): per object its keys with what each accepts (kinds, Jackson coercion, null,
required, integer ranges, enum names, the string formats), what unknown keys may hold, array items and map
values; string checks the scanner does not model (patterns, maxLength, minLength past 1) become a rule that
answers -1. The command table (commands.yaml) gives each command's ordinal, direction and body kind,
and the protocol types the message bodies. The scanner and the verdict are hand-written C
(tools/ksygen/eventmesh_layer_runtime.c), which includes the tables (eventmesh_tables.h).
"""
from __future__ import annotations

from pathlib import Path

from tools.ksygen import jsonschema_codegen as schemas

from .expr import GenerationError

HEADER_SCHEMA = "tcp_header.schema.json"
# The header keys tcp.decode_package reads beside cmd: the status of an echoed refusal, and the properties
# that hold the message body's protocol type.
CODE_KEY, PROPERTIES_KEY = "code", "properties"
# Body kinds tcp._body handles by rule rather than by schema (every other schema-less kind is text).
RULE_BODIES = {"none": "BODY_NONE", "message": "BODY_MESSAGE"}
_UNION_KINDS = {"string": "KIND_STRING", "integer": "KIND_INTEGER", "number": "KIND_INTEGER | KIND_FRACTION",
                "boolean": "KIND_BOOLEAN"}
_SCALARS = {"number": "CHECK_NUMBER", "boolean": "CHECK_BOOLEAN"}
_UNBOUNDED = 10**18 - 1  # an integer without bounds: the scanner reads up to 18 digits exactly (MAX_EXACT_DIGITS)


def _c_string(text: str) -> str:
    """A name from the specs as a C literal (names needing escapes are not expected, so they are refused)."""
    if not text.isascii() or any(c in text for c in '"\\') or not text.isprintable():
        raise GenerationError(f"{text!r} cannot be a plain C string literal here")
    return f'"{text}"'


class Rules:
    """The C tables of the binding rules, one Rule per distinct use of a Shape."""

    def __init__(self, command_enum: str):
        self.command_enum = command_enum
        self.declared: list[str] = []
        self.arrays: list[str] = []
        self.defined: list[str] = []
        self.objects: dict[tuple, str] = {}

    def _new(self) -> str:
        name = f"rule_{len(self.declared)}"
        self.declared.append(f"static const Rule {name};")
        return name

    def _define(self, name: str, check: str, nullable: bool, *, coerce=False, kinds="0", string_checks="0",
                low=0, high=0, item="NULL", extra="EXTRA_ANY", fields="NULL", field_count=0, required_mask=0,
                values="NULL", value_count=0) -> str:
        self.defined.append(f"static const Rule {name} = {{{check}, {int(nullable)}, {int(coerce)}, {kinds}, "
                            f"{string_checks}, {low}LL, {high}LL, {item}, {extra}, {fields}, {field_count}, "
                            f"{required_mask}u, {values}, {value_count}}};")
        return name

    def rule(self, shape: schemas.Shape, captures: dict | None = None) -> str:
        """The C name of a Rule for shape; captures (key -> CAPTURE_*) only for the header object."""
        nullable = shape.nullable or shape.kind == "any"
        if shape.kind == "any":
            return "ANY_VALUE"
        if shape.kind == "object":
            key = (id(shape.ref), nullable)
            if key not in self.objects:
                self.objects[key] = self._new()
                self._object(self.objects[key], shape.ref, nullable, captures or {})
            return self.objects[key]
        name = self._new()
        if shape.kind in ("string", "enum"):
            checks, values = self._string_checks(shape)
            return self._define(name, "CHECK_STRING", nullable, coerce=shape.coerce, string_checks=checks,
                                values=values[0], value_count=values[1])
        if shape.kind == "integer":
            low, high = shape.schema.get("minimum", -_UNBOUNDED), shape.schema.get("maximum", _UNBOUNDED)
            if shape.schema.get("format") == "int32":
                low, high = max(low, -2**31), min(high, 2**31 - 1)
            return self._define(name, "CHECK_INTEGER", nullable, coerce=shape.coerce, low=low, high=high)
        if shape.kind in _SCALARS:
            return self._define(name, _SCALARS[shape.kind], nullable)
        if shape.kind == "union":
            return self._define(name, "CHECK_UNION", nullable, kinds=" | ".join(_UNION_KINDS[t] for t in shape.types))
        if shape.kind == "ext_enum":
            if shape.ext_enum != self.command_enum:
                raise GenerationError(f"{shape.where}: only {self.command_enum} is a table enum the scanner reads")
            return self._define(name, "CHECK_COMMAND", nullable)
        if shape.kind in ("array", "map"):
            item = self.rule(shape.item)
            return self._define(name, "CHECK_ARRAY" if shape.kind == "array" else "CHECK_MAP", nullable,
                                item="&" + item)
        raise GenerationError(f"{shape.where}: no rule for a {shape.kind}")

    def _string_checks(self, shape: schemas.Shape) -> tuple[str, tuple[str, int]]:
        """The STRING_* checks of a string (or enum) shape, and its values array (name, count)."""
        schema, checks = shape.schema, []
        values = shape.ref.values if shape.kind == "enum" else schema.get("enum")
        if values is not None:
            checks.append("STRING_ENUM")
        if schema.get("minLength", 0) == 1:
            checks.append("STRING_NONEMPTY")
        formats = {"uri-reference": "STRING_NO_SPACE", "uri": "STRING_URI", "date-time": "STRING_DATE_TIME"}
        if schema.get("format") in formats:
            checks.append(formats[schema["format"]])
        if schema.get("contentEncoding") == "base64":
            checks.append("STRING_BASE64")
        if schema.get("minLength", 0) > 1 or {"maxLength", "pattern"} & set(schema):
            checks.append("STRING_UNMODELLED")
        array = ("NULL", 0)
        if values is not None:
            array = (f"values_{len(self.arrays)}", len(values))
            self.arrays.append(f"static const char *const {array[0]}[] = {{"
                               + ", ".join(_c_string(v) for v in values) + "};")
        return " | ".join(checks) or "0", array

    def _object(self, name: str, obj: schemas.ObjectType, nullable: bool, captures: dict) -> None:
        if len(obj.props) > 32:
            raise GenerationError(f"{obj.title}: more than 32 properties (the required mask is 32 bits)")
        fields, required_mask = [], 0
        for index, prop in enumerate(obj.props):
            shape = prop.shape
            # as from_json reads a present null: allowed when nullable or any, or a Jackson primitive's default
            null_ok = shape.nullable or shape.kind == "any" or (shape.coerce and prop.has_default)
            required_mask |= prop.required << index
            fields.append(f"    {{{_c_string(prop.name)}, {len(prop.name)}, {int(prop.required)}, {int(null_ok)}, "
                          f"{captures.get(prop.name, 'CAPTURE_NONE')}, &{self.rule(shape)}}},")
        table = f"fields_{len(self.arrays)}"
        self.arrays.append(f"static const Field {table}[] = {{\n" + "\n".join(fields) + "\n};" if fields else
                           f"static const Field {table}[1] = {{{{NULL, 0, 0, 0, CAPTURE_NONE, NULL}}}};")
        if obj.extra is True:
            extra, item = "EXTRA_ANY", "NULL"
        elif obj.extra is False:
            extra, item = "EXTRA_REFUSED", "NULL"
        else:
            extra, item = "EXTRA_RULE", "&" + self.rule(obj.extra)
        self._define(name, "CHECK_OBJECT", nullable, item=item, extra=extra, fields=table, field_count=len(fields),
                     required_mask=required_mask)


def _header_captures(header: schemas.Shape) -> dict[str, str]:
    """Which header keys the verdict reads, checked against the header schema."""
    props = {prop.name: prop.shape for prop in header.ref.props}
    commands = [name for name, shape in props.items() if shape.kind == "ext_enum"]
    if len(commands) != 1:
        raise GenerationError(f"{HEADER_SCHEMA}: the header needs exactly one x-inlong-enum key (cmd)")
    if props.get(CODE_KEY) is None or props[CODE_KEY].kind != "integer":
        raise GenerationError(f"{HEADER_SCHEMA}: {CODE_KEY!r} must be an integer")
    if props.get(PROPERTIES_KEY) is None or props[PROPERTIES_KEY].kind != "map":
        raise GenerationError(f"{HEADER_SCHEMA}: {PROPERTIES_KEY!r} must be a map")
    return {commands[0]: "CAPTURE_COMMAND", CODE_KEY: "CAPTURE_CODE", PROPERTIES_KEY: "CAPTURE_PROPERTIES"}


def emit_tables(specs: Path) -> str:
    """The C tables: the header's rule, the commands and the protocol types with their body rules."""
    tables, loader = schemas.load(specs)
    if len(tables) != 1:
        raise GenerationError("specs/eventmesh must hold exactly one command table")
    table = next(iter(tables.values()))
    base = specs / schemas.PROTOCOL
    rules = Rules(table.name)
    header = loader.module(base / HEADER_SCHEMA).root
    if header.kind != "object":
        raise GenerationError(f"{HEADER_SCHEMA}: the header must be an object")
    header_rule = rules.rule(header, _header_captures(header))

    body_rules: dict[str, str] = {}  # schema file -> its root's rule, shared by the commands that name it

    def body(entry: dict, kind: str) -> str:
        if "schema" in entry:
            if entry["schema"] not in body_rules:
                body_rules[entry["schema"]] = rules.rule(loader.module(base / entry["schema"]).root)
            return f"BODY_JSON, &{body_rules[entry['schema']]}"
        return f"{RULE_BODIES.get(kind, 'BODY_TEXT')}, NULL"

    kinds = table.data["body-kinds"]
    commands = [f"    {{{_c_string(entry['name'])}, {len(entry['name'])}, {int(entry['sender'] == 'server')}, "
                f"{body(kinds[entry['body']], entry['body'])}}}," for entry in table.data["commands"]]
    types = table.data["protocol-types"]
    protocols = []
    for name, entry in types["types"].items():
        if entry.get("kind", "text") != "text":
            raise GenerationError(f"protocol type {name}: only kind text is modelled besides a schema")
        protocols.append(f"    {{{_c_string(name)}, {len(name)}, {body(entry, 'text')}}},")
    default = list(types["types"]).index(types["default"])
    out = ["/* ---- binding rules generated from specs/eventmesh (tools/ksygen/cgen_json.py) ---- */"]
    out += rules.declared + [""] + rules.arrays + [""] + rules.defined + [""]
    out += [f"#define HEADER_RULE {header_rule}", f"#define COMMAND_COUNT {len(commands)}",
            f"#define PROTOCOL_TYPE_COUNT {len(protocols)}", f"#define DEFAULT_PROTOCOL_TYPE {default}",
            f"#define PROTOCOL_TYPE_PROPERTY {_c_string(types['property'])}", "",
            "/* in ordinal order (Jackson's ordinals, Command's declaration order) */",
            "static const CommandEntry COMMANDS[COMMAND_COUNT] = {"] + commands + ["};", "",
            "static const ProtocolTypeEntry PROTOCOL_TYPES[PROTOCOL_TYPE_COUNT] = {"] + protocols + ["};"]
    return "\n".join(out) + "\n"


HEADER = "eventmesh_tables.h"


def emit_header(specs: Path) -> str:
    """eventmesh_tables.h: the generated tables, which the EventMesh layer's translation unit
    (eventmesh_layer_runtime.c, part of inlong_proto._compiled) includes once."""
    return ("/* Generated by tools/ksygen/cgen_json.py from specs/eventmesh, for "
            "tools/ksygen/eventmesh_layer_runtime.c. Do not edit. */\n"
            "#ifndef INLONG_PROTO_EVENTMESH_TABLES_H\n#define INLONG_PROTO_EVENTMESH_TABLES_H\n"
            + emit_tables(specs) + "\n#endif\n")


def write(specs: Path, out: Path) -> Path:
    target = out / "native" / HEADER
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(emit_header(specs))
    return target
