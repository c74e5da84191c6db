"""Reads .ksy files into a checked model. Unsupported keys stop generation with the spec path."""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .expr import GenerationError, Node, parse

# struct format characters and sizes of Kaitai's primitive integer and float types.
_PRIMITIVES = {
    "u1": ("B", 1), "s1": ("b", 1), "u2": ("H", 2), "s2": ("h", 2), "u4": ("I", 4), "s4": ("i", 4),
    "u8": ("Q", 8), "s8": ("q", 8), "f4": ("f", 4), "f8": ("d", 8),
}
# Spark has no unsigned types, so unsigned values widen to the next signed Arrow type.
ARROW_INT = {"B": "int16", "b": "int8", "H": "int32", "h": "int16", "I": "int64", "i": "int32",
             "Q": "decimal128(20, 0)", "q": "int64", "f": "float32", "d": "float64"}
INT_RANGE = {"B": (0, 0xFF), "b": (-0x80, 0x7F), "H": (0, 0xFFFF), "h": (-0x8000, 0x7FFF),
             "I": (0, 0xFFFFFFFF), "i": (-0x80000000, 0x7FFFFFFF), "Q": (0, 2**64 - 1), "q": (-2**63, 2**63 - 1)}

_TOP_KEYS = {"meta", "doc", "doc-ref", "seq", "types", "instances", "enums", "-inlong"}
_TYPE_KEYS = {"meta", "doc", "doc-ref", "seq", "types", "instances", "enums", "-inlong"}
_META_KEYS = {"id", "title", "license", "ks-version", "endian", "bit-endian", "encoding", "imports",
              "file-extension", "xref"}
_ATTR_KEYS = {"id", "type", "size", "size-eos", "contents", "enum", "valid", "doc", "doc-ref", "encoding",
              "repeat", "repeat-expr", "-inlong-encode", "-inlong-default"}
_VALID_KEYS = {"min", "max", "eq", "any-of", "expr", "in-enum"}
_INSTANCE_KEYS = {"value", "doc", "doc-ref", "enum"}
_TYPE_OPTIONS = {"python-type", "protocol", "frame", "direction", "max-frame-size", "registry"}
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
SWITCHED = "?"  # struct prefix of an integer whose byte order a meta/endian switch decides (see specialize)


def attr_size_matters(base: str) -> bool:
    """Single bytes read the same in both orders."""
    return base not in ("u1", "s1")


@dataclass
class EnumSpec:
    name: str
    owner: "TypeSpec"
    members: dict[int, tuple[str, str]]  # value -> (id, doc)

    @property
    def class_name(self) -> str:
        return self.owner.class_name + camel(self.name) if self.owner.parent else camel(self.name)


@dataclass
class Attr:
    id: str
    where: str
    doc: str
    kind: str  # int, float, bits, contents, bytes, str, user, switch
    fmt: str | None = None
    bits: int | None = None  # width of a bN field (b1 decodes to bool)
    repeat: str | None = None  # None, "eos" (until the end of the stream) or "expr"
    repeat_expr: Node | None = None
    default: object = None  # -inlong-default: the value a message takes when the field is not given
    has_default: bool = False
    size: int | None = None
    size_expr: Node | None = None
    size_eos: bool = False
    contents: bytes | None = None
    type_name: str | None = None
    switch_on: Node | None = None
    cases: list[tuple[Node, str]] = field(default_factory=list)
    enum_name: str | None = None
    valid: dict | None = None
    encoding: str | None = None
    encode_expr: Node | None = None
    # Filled by resolve():
    user_type: "TypeSpec | None" = None
    case_types: list[tuple[Node, "TypeSpec"]] = field(default_factory=list)
    enum: EnumSpec | None = None


@dataclass
class Instance:
    id: str
    where: str
    doc: str
    value: Node
    text: str
    enum_name: str | None = None


@dataclass
class TypeSpec:
    name: str
    where: str
    doc: str
    spec: "SpecFile"
    parent: "TypeSpec | None"
    seq: list[Attr]
    instances: dict[str, Instance]
    types: dict[str, "TypeSpec"]
    enums: dict[str, EnumSpec]
    options: dict
    # meta/endian: {switch-on: expr, cases: {key: le|be}}: (expr, [(key, "le" | "be")]), else None.
    endian_switch: tuple[Node, list[tuple[Node, str]]] | None = None
    variant: str | None = None  # "le" or "be" for a copy specialised to one byte order (see specialize)

    @property
    def class_name(self) -> str:
        return camel(self.name)

    @property
    def fn_name(self) -> str:
        """Name of its decode_/encode_ functions: one pair per byte order when the order is switched."""
        return f"{self.name}__{self.variant}" if self.variant else self.name

    @property
    def switched_endian(self) -> bool:
        """Its integers' byte order is decided while decoding: by its own meta/endian switch or an
        enclosing type's (Kaitai's inherited calculated endianness)."""
        scope: TypeSpec | None = self
        while scope is not None:
            if scope.endian_switch is not None:
                return True
            scope = scope.parent
        return False

    @property
    def python_type(self) -> str:
        return self.options.get("python-type", "struct")

    @property
    def fixed_size(self) -> int | None:
        bits = 0
        for attr in self.seq:
            if attr.kind == "bits":
                bits += attr.bits
            elif attr.size is None or attr.repeat is not None:
                return None
            else:
                bits += attr.size * 8
        return bits // 8 if bits % 8 == 0 else None

    def find_type(self, name: str) -> "TypeSpec":
        if "::" in name:  # other_spec::nested::type
            first, *rest = name.split("::")
            found = self.find_type(first)
            for part in rest:
                if part not in found.types:
                    raise GenerationError(f"{self.where}: unknown type {name!r}")
                found = found.types[part]
            return found
        scope: TypeSpec | None = self
        while scope is not None:
            if name in scope.types:
                return scope.types[name]
            if scope.name == name:
                return scope
            scope = scope.parent
        for imported in self.spec.imports:
            if imported.root.name == name:
                return imported.root
        raise GenerationError(f"{self.where}: unknown type {name!r}")

    def find_enum(self, path: str) -> EnumSpec:
        parts = path.split("::")
        scope: TypeSpec | None = self
        if len(parts) > 1:
            scope = self.find_type(parts[0])
            for part in parts[1:-1]:
                scope = scope.find_type(part)
        name = parts[-1]
        while scope is not None:
            if name in scope.enums:
                return scope.enums[name]
            scope = scope.parent
        raise GenerationError(f"{self.where}: unknown enum {path!r}")

    def all_types(self):
        yield self
        for sub in self.types.values():
            yield from sub.all_types()


@dataclass
class SpecFile:
    path: Path
    module: str  # dotted module path under generated/codec, e.g. broadcast.broadcast_frame
    meta: dict
    endian: str
    root: TypeSpec = None  # type: ignore[assignment]
    imports: list["SpecFile"] = field(default_factory=list)


def camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


def _check_keys(where: str, data: dict, allowed: set[str]) -> None:
    if not isinstance(data, dict):
        raise GenerationError(f"{where}: expected a mapping")
    for key in data:
        if key not in allowed:
            raise GenerationError(f"{where}: key {key!r} is not supported by the inlong-proto generator "
                                  f"(supported: {', '.join(sorted(allowed))})")


def _check_name(where: str, name: object) -> str:
    if not isinstance(name, str) or not _NAME.match(name):
        raise GenerationError(f"{where}: {name!r} is not a snake_case identifier")
    return name


class Loader:
    """Loads a spec and its imports once each; module paths mirror specs/ folders."""

    def __init__(self, specs_root: Path):
        self.specs_root = specs_root
        self.loaded: dict[Path, SpecFile] = {}

    def load(self, path: Path) -> SpecFile:
        path = path.resolve()
        if path in self.loaded:
            return self.loaded[path]
        where = str(path.relative_to(self.specs_root.resolve()))
        data = yaml.safe_load(path.read_text())
        _check_keys(where, data, _TOP_KEYS)
        meta = data.get("meta") or {}
        _check_keys(f"{where}: /meta", meta, _META_KEYS)
        if meta.get("id") != path.stem:
            raise GenerationError(f"{where}: meta.id must equal the file name {path.stem!r}")
        endian = meta.get("endian", "be")
        if endian not in ("be", "le"):
            raise GenerationError(f"{where}: /meta/endian: only 'be' or 'le' is supported")
        module = ".".join(path.relative_to(self.specs_root.resolve()).with_suffix("").parts)
        spec = SpecFile(path, module, meta, endian)
        self.loaded[path] = spec
        for name in meta.get("imports", []):
            target = (self.specs_root / name.lstrip("/")) if name.startswith("/") else (path.parent / name)
            spec.imports.append(self.load(target.with_suffix(".ksy")))
        spec.root = self._type(spec, meta["id"], data, None, where)
        for type_spec in spec.root.all_types():
            self._resolve(type_spec)
        return spec

    def _type(self, spec: SpecFile, name: str, data: dict, parent: TypeSpec | None, where: str) -> TypeSpec:
        _check_keys(where, data, _TOP_KEYS if parent is None else _TYPE_KEYS)
        options = data.get("-inlong") or {}
        _check_keys(f"{where}: /-inlong", options, _TYPE_OPTIONS)
        if options.get("python-type", "struct") not in ("struct", "value", "datetime"):
            raise GenerationError(f"{where}: -inlong/python-type must be struct, value or datetime")
        type_spec = TypeSpec(name, where, data.get("doc", ""), spec, parent, [], {}, {}, {}, options)
        if parent is not None and "meta" in data:
            type_spec.endian_switch = self._endian_switch(f"{where}: /meta", data["meta"])
            if options.get("python-type", "struct") != "struct":
                raise GenerationError(f"{where}: a switched byte order needs a struct type")
        for enum_name, members in (data.get("enums") or {}).items():
            type_spec.enums[enum_name] = self._enum(f"{where}: /enums/{enum_name}", enum_name, members, type_spec)
        for sub_name, sub in (data.get("types") or {}).items():
            _check_name(f"{where}: /types", sub_name)
            type_spec.types[sub_name] = self._type(spec, sub_name, sub, type_spec, f"{where}: /types/{sub_name}")
        for index, attr in enumerate(data.get("seq") or []):
            type_spec.seq.append(self._attr(spec, f"{where}: /seq/{index}", attr, type_spec.switched_endian))
        for inst_name, inst in (data.get("instances") or {}).items():
            inst_where = f"{where}: /instances/{inst_name}"
            _check_keys(inst_where, inst, _INSTANCE_KEYS)
            if "value" not in inst:
                raise GenerationError(f"{inst_where}: only value instances are supported")
            if not inst.get("doc"):
                raise GenerationError(f"{inst_where}: every instance needs a doc")
            type_spec.instances[inst_name] = Instance(inst_name, inst_where, inst["doc"], parse(inst["value"]),
                                                      str(inst["value"]), inst.get("enum"))
        return type_spec

    @staticmethod
    def _endian_switch(where: str, meta: dict) -> tuple[Node, list[tuple[Node, str]]]:
        """A type's meta may only switch its byte order on a value decoded before it (Kaitai's
        calculated endianness); a fixed per-type order is not supported."""
        _check_keys(where, meta, {"endian"})
        endian = meta.get("endian")
        if not isinstance(endian, dict):
            raise GenerationError(f"{where}/endian: only a switch-on (calculated byte order) is supported in a type")
        _check_keys(f"{where}/endian", endian, {"switch-on", "cases"})
        cases = [(parse(key), order) for key, order in (endian.get("cases") or {}).items()]
        if "switch-on" not in endian or not cases or any(order not in ("le", "be") for _, order in cases):
            raise GenerationError(f"{where}/endian: needs switch-on and cases that map to le or be")
        return parse(endian["switch-on"]), cases

    @staticmethod
    def _enum(where: str, name: str, members: dict, owner: TypeSpec) -> EnumSpec:
        _check_name(where, name)
        parsed = {}
        for value, member in members.items():
            if isinstance(member, dict):
                parsed[int(value)] = (_check_name(where, member["id"]), member.get("doc", ""))
            else:
                parsed[int(value)] = (_check_name(where, member), "")
        return EnumSpec(name, owner, parsed)

    def _attr(self, spec: SpecFile, where: str, data: dict, switched: bool = False) -> Attr:
        _check_keys(where, data, _ATTR_KEYS)
        attr_id = _check_name(where, data.get("id"))
        if not data.get("doc"):
            raise GenerationError(f"{where}: every field needs a doc")
        attr = Attr(attr_id, where, data["doc"], kind="bytes", enum_name=data.get("enum"),
                    valid=data.get("valid"), encoding=data.get("encoding") or spec.meta.get("encoding"))
        if attr.valid is not None:
            if not isinstance(attr.valid, dict):
                attr.valid = {"eq": attr.valid}
            _check_keys(f"{where}/valid", attr.valid, _VALID_KEYS)
        if "-inlong-encode" in data:
            attr.encode_expr = parse(data["-inlong-encode"])
        if "-inlong-default" in data:
            attr.has_default, attr.default = True, data["-inlong-default"]
        if "repeat" in data:
            attr.repeat = data["repeat"]
            if attr.repeat not in ("eos", "expr"):
                raise GenerationError(f"{where}: repeat: {attr.repeat} is not supported (only eos and expr)")
            if (attr.repeat == "expr") != ("repeat-expr" in data):
                raise GenerationError(f"{where}: repeat-expr goes with repeat: expr")
            if attr.repeat == "expr":
                attr.repeat_expr = parse(data["repeat-expr"])
        kind = data.get("type")
        if "contents" in data:
            contents = data["contents"]
            attr.kind, attr.contents = "contents", (contents.encode("ascii") if isinstance(contents, str)
                                                     else bytes(contents))
            attr.size = len(attr.contents)
            return attr
        if "size" in data:
            attr.size_expr = parse(data["size"])
            if attr.size_expr.kind == "num":
                attr.size = attr.size_expr.value
        attr.size_eos = bool(data.get("size-eos"))
        if isinstance(kind, dict):
            _check_keys(f"{where}/type", kind, {"switch-on", "cases"})
            attr.kind, attr.switch_on = "switch", parse(kind["switch-on"])
            attr.cases = [(parse(key), value) for key, value in kind["cases"].items()]
            if attr.size_expr is None and not attr.size_eos:
                raise GenerationError(f"{where}: a switch needs a size (or size-eos) so unknown cases stay bytes")
        elif kind is None:
            if attr.size_expr is None and not attr.size_eos:
                raise GenerationError(f"{where}: a byte field needs size or size-eos")
        elif kind == "str":
            attr.kind = "str"
            if attr.size_expr is None and not attr.size_eos:
                raise GenerationError(f"{where}: only sized strings are supported")
            if not attr.encoding:
                raise GenerationError(f"{where}: a string needs an encoding")
        else:
            base = re.sub(r"(be|le)$", "", kind)
            if base in _PRIMITIVES and base not in ("u1", "s1") or kind in _PRIMITIVES:
                endian = kind[-2:] if kind != base else "switched" if switched and attr_size_matters(base) else spec.endian
                attr.fmt, attr.size = _PRIMITIVES[base]
                attr.fmt = {"be": ">", "le": "<", "switched": SWITCHED}[endian] + attr.fmt
                attr.kind = "float" if base.startswith("f") else "int"
                if attr.size_expr is not None:
                    raise GenerationError(f"{where}: size on a primitive type")
            elif re.match(r"^b\d+$", kind):
                attr.kind, attr.bits = "bits", int(kind[1:])
                if not 1 <= attr.bits <= 64:
                    raise GenerationError(f"{where}: bit fields are 1 to 64 bits wide")
                if attr.repeat or attr.size_expr is not None:
                    raise GenerationError(f"{where}: repeat and size are not supported on bit fields")
                if spec.meta.get("bit-endian", "be") != "be":
                    raise GenerationError(f"{where}: only big-endian bit order is supported")
            elif kind in ("strz",) or kind.startswith("bits"):
                raise GenerationError(f"{where}: type {kind!r} is not supported by the inlong-proto generator")
            else:
                attr.kind, attr.type_name = "user", kind
        if attr.enum_name and attr.kind not in ("int", "bits"):
            raise GenerationError(f"{where}: enum is only supported on integer fields")
        if attr.repeat and attr.kind not in ("int", "float", "user", "bytes"):
            raise GenerationError(f"{where}: repeat is supported on integers, user types and sized bytes only")
        if attr.repeat and attr.kind == "bytes" and attr.size_expr is None:
            raise GenerationError(f"{where}: repeated byte fields need a size per element")
        return attr

    @staticmethod
    def _resolve(type_spec: TypeSpec) -> None:
        for attr in type_spec.seq:
            if attr.enum_name:
                attr.enum = type_spec.find_enum(attr.enum_name)
            if attr.kind == "user":
                attr.user_type = type_spec.find_type(attr.type_name)
                if attr.size is None and attr.size_expr is None and not attr.size_eos and not attr.repeat:
                    attr.size = attr.user_type.fixed_size if attr.user_type.python_type != "struct" else None
                    if attr.size is None and attr.user_type.python_type != "struct":
                        raise GenerationError(f"{attr.where}: inlined types must have a fixed size")
            if attr.kind == "switch":
                attr.case_types = [(key, type_spec.find_type(name)) for key, name in attr.cases]


def specialize(type_spec: TypeSpec, order: str, memo: dict) -> TypeSpec:
    """A copy of a switched-order type with every integer in `order` ("le" or "be"); the types it uses
    that inherit the order (nested, without a switch of their own) are specialised the same way, while
    a type with its own switch stays as it is (its caller evaluates that switch)."""
    key = (id(type_spec), order)
    if key in memo:
        return memo[key]
    copy = dataclasses.replace(type_spec, seq=[], variant=order)
    memo[key] = copy
    prefix = "<" if order == "le" else ">"

    def follow(target: TypeSpec) -> TypeSpec:
        return specialize(target, order, memo) if inherits_endian(target) else target

    for attr in type_spec.seq:
        new = dataclasses.replace(attr, case_types=[(k, follow(t)) for k, t in attr.case_types])
        if new.fmt and new.fmt[0] == SWITCHED:
            new.fmt = prefix + new.fmt[1:]
        if new.user_type is not None:
            new.user_type = follow(new.user_type)
        copy.seq.append(new)
    return copy


def inherits_endian(type_spec: TypeSpec) -> bool:
    """Switched byte order taken from an enclosing type (no switch of its own)."""
    return type_spec.endian_switch is None and type_spec.switched_endian
