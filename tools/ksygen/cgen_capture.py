"""Emits the compiled capture walker: C readers of the capture headers, from specs/capture, and its runtime.

generated/native/capture_readers.h is included by the walker's hand-written translation unit
(capture_runtime.c), built by setup.py (when a C compiler is present) into the ``capture`` part of
``inlong_proto._compiled``; inlong_proto/backends/compiled_capture.py drives it.

Every header reader here comes from the parsed .ksy model (model.py), as the Python codecs do: one C
function per type (and per byte order, for the types whose order a magic decides) that reads the type's
fields at the offsets and sizes the spec gives, applies its `valid` checks, and records where each byte
field, switch body or repeated list lies. A reader returns the position after the type, or -1 when
anything fails: a check, a field that overruns its range, a construct it does not model. It never reads
outside [pos, end). A switch records which case type its body holds (CAP_T_<spec>_<type>), and the
runtime (tools/ksygen/capture_runtime.c, hand-written) calls that case's reader on the body's range; a
repeat-eos list of a user type is walked to its end (so a damaged list fails the reader, as it fails the
Python codec) and its range recorded. Enum members become CAP_<SPEC>_<ENUM>_<MEMBER> constants, value
instances inline functions, and a type's meta/endian switch a function from the switch value to the byte
order (0 little, 1 big, -1 neither).

The runtime only decides what comes next (link type, EtherType, IP version, protocol number) and does the
connection and sequence bookkeeping; it holds no byte offset of any header.
"""
from __future__ import annotations

from pathlib import Path

from .cgen import enum_value
from .expr import GenerationError, Node, parse
from .model import Attr, SpecFile, TypeSpec, specialize

# (spec id, type name): the headers the capture walker reads. Types whose byte order is switched get a
# reader per order (__le, __be).
TARGETS = (
    ("pcap", "header"), ("pcap", "packet"),
    ("pcapng", "section_header_block"), ("pcapng", "section_header_body"), ("pcapng", "block"),
    ("pcapng", "interface_description_block"), ("pcapng", "enhanced_packet_block"),
    ("pcapng", "simple_packet_block"), ("pcapng", "option"),
    ("ethernet_frame", "ethernet_frame"), ("ethernet_frame", "vlan_tagged"),
    ("linux_sll", "linux_sll"), ("linux_sll2", "linux_sll2"), ("bsd_loopback", "bsd_loopback"),
    ("raw_ip", "raw_ip"), ("ipv4_packet", "ipv4_packet"), ("ipv6_packet", "ipv6_packet"),
    ("tcp_segment", "tcp_segment"),
)
_C_OPS = {"and": "&&", "or": "||"}
_READ = {1: "b[{at}]", 2: "ip_rd2{e}(b + {at})", 4: "ip_rd4{e}(b + {at})", 8: "ip_rd8{e}(b + {at})"}


class Unsupported(GenerationError):
    """A construct the capture readers do not model (a generation error: the walker needs every target)."""


def _find(spec: SpecFile, name: str) -> TypeSpec:
    for type_spec in spec.root.all_types():
        if type_spec.name == name:
            return type_spec
    raise GenerationError(f"specs/capture/{spec.meta['id']}.ksy has no type {name!r}")


def _cname(spec_id: str, type_spec: TypeSpec) -> str:
    return f"cap_{spec_id}_{type_spec.fn_name}" if type_spec.name != spec_id else f"cap_{spec_id}" + (
        f"__{type_spec.variant}" if type_spec.variant else "")


def _tname(spec_id: str, type_spec: TypeSpec) -> str:
    base = f"cap_{spec_id}_{type_spec.name}" if type_spec.name != spec_id else f"cap_{spec_id}"
    return base + "_t"


def _case_id(spec_id: str, type_spec: TypeSpec) -> str:
    return f"CAP_T_{spec_id}_{type_spec.name}"


class _Ctx:
    """Expression names of one type as C: fields are r->name, `_` the value being checked."""

    def __init__(self, type_spec: TypeSpec):
        self.type_spec = type_spec
        self.current: str | None = None

    def attr(self, name: str) -> Attr | None:
        return next((a for a in self.type_spec.seq if a.id == name), None)

    def resolve(self, chain: tuple[str, ...]) -> str:
        head, rest = chain[0], chain[1:]
        if head == "_" and not rest and self.current is not None:
            return self.current
        attr = self.attr(head)
        if attr is not None and not rest and attr.kind in ("int", "bits"):
            return f"r->{head}"
        if head in self.type_spec.instances and not rest:
            return f"({self.c(self.type_spec.instances[head].value)})"
        raise Unsupported(f"{self.type_spec.where}: name {'.'.join(chain)!r} in an expression")

    def enum_value(self, path: str, member: str) -> int:
        return enum_value(self.type_spec, path, member)

    def c(self, node: Node) -> str:
        """A Kaitai expression as C over int64_t (Python's floor division and modulo, overflow-free for the
        16- and 32-bit fields these headers hold)."""
        kind = node.kind
        if kind == "num":
            if not -2**63 <= node.value < 2**63:
                raise Unsupported(f"constant {node.value} does not fit in 64 bits")
            return f"INT64_C({node.value})"
        if kind == "bool":
            return "1" if node.value else "0"
        if kind == "enum":
            return f"INT64_C({self.enum_value(*node.value)})"
        if kind in ("name", "attr"):
            chain = []
            while node.kind == "attr":
                chain.insert(0, node.value)
                node = node.args[0]
            if node.kind != "name":
                raise Unsupported(f"{self.type_spec.where}: expression {node}")
            return self.resolve((node.value, *chain))
        if kind == "index":
            target, index = node.args
            attr = self.attr(target.value) if target.kind == "name" else None
            if attr is None or attr.kind != "bytes" or attr.size is None or index.kind != "num" \
                    or not 0 <= index.value < attr.size:
                raise Unsupported(f"{self.type_spec.where}: index expression on {target}")
            return f"((int64_t)b[r->{attr.id}_at + {index.value}])"
        if kind == "unary":
            op = {"-": "-", "not": "!", "~": "~"}[node.value]
            return f"({op}{self.c(node.args[0])})"
        if kind == "binary":
            left, right = (self.c(a) for a in node.args)
            if node.value == "/":
                return f"ip_fdiv({left}, {right}, &bad)"
            if node.value == "%":
                return f"ip_fmod({left}, {right}, &bad)"
            if node.value in ("<<", ">>"):
                amount = node.args[1]
                if amount.kind != "num" or not 0 <= amount.value < 63:
                    raise Unsupported(f"{self.type_spec.where}: a shift by a non-constant amount")
                if node.value == ">>":
                    return f"(({left}) >> {amount.value})"
                return f"((int64_t)((uint64_t)({left}) << {amount.value}))"
            return f"({left} {_C_OPS.get(node.value, node.value)} {right})"
        if kind == "ternary":
            cond, then, other = (self.c(a) for a in node.args)
            return f"({cond} ? {then} : {other})"
        raise Unsupported(f"{self.type_spec.where}: expression node {kind}")


class _Reader:
    """The struct, reader function and helpers of one type (one byte order)."""

    def __init__(self, spec_id: str, type_spec: TypeSpec):
        self.spec_id, self.type_spec = spec_id, type_spec
        self.ctx = _Ctx(type_spec)
        self.lines: list[str] = []

    def add(self, line: str, depth: int = 1) -> None:
        self.lines.append("    " * depth + line)

    def fields(self) -> list[str]:
        out = []
        for attr in self.type_spec.seq:
            if attr.kind in ("int", "bits"):
                out.append(f"int64_t {attr.id};")
            elif attr.kind in ("bytes", "str", "user", "switch"):
                out.append(f"Py_ssize_t {attr.id}_at, {attr.id}_len;")
                if attr.kind == "switch":
                    out.append(f"int {attr.id}_case;")
            elif attr.kind != "contents":
                raise Unsupported(f"{attr.where}: {attr.kind} field")
        return out

    def checks(self, attr: Attr, value: str) -> None:
        valid = attr.valid or {}
        self.ctx.current = value
        if valid.get("in-enum"):
            known = " || ".join(f"{value} == INT64_C({v})" for v in attr.enum.members)
            self.add(f"if (!({known})) return -1;")
        if "eq" in valid:
            self.add(f"if ({value} != {self.ctx.c(parse(valid['eq']))}) return -1;")
        if "any-of" in valid:
            self.add(f"if (!({' || '.join(f'{value} == {self.ctx.c(parse(v))}' for v in valid['any-of'])})) return -1;")
        if "min" in valid:
            self.add(f"if ({value} < {self.ctx.c(parse(valid['min']))}) return -1;")
        if "max" in valid:
            self.add(f"if ({value} > {self.ctx.c(parse(valid['max']))}) return -1;")
        if "expr" in valid:
            self.add(f"if (!({self.ctx.c(parse(valid['expr']))})) return -1;")
        self.ctx.current = None

    def bytes_checks(self, attr: Attr) -> None:
        """`valid` on a byte field: only eq another byte field of the same type (a repeated length)."""
        valid = attr.valid or {}
        if not valid:
            return
        other = self.ctx.attr(str(valid.get("eq")))
        if set(valid) != {"eq"} or other is None or other.kind != "bytes":
            raise Unsupported(f"{attr.where}: valid on a byte field other than eq another byte field")
        self.add(f"if (r->{attr.id}_len != r->{other.id}_len || "
                 f"memcmp(b + r->{attr.id}_at, b + r->{other.id}_at, (size_t)r->{attr.id}_len) != 0) return -1;")

    def read_int(self, attr: Attr) -> str:
        order = attr.fmt[0]
        if order not in "<>":
            raise Unsupported(f"{attr.where}: byte order not resolved")
        code, size = attr.fmt[1], attr.size
        raw = _READ[size].format(at="pos", e="le" if order == "<" else "be")
        signed = code.islower()
        if code in "Qq" and not signed:
            raise Unsupported(f"{attr.where}: u8 does not fit int64_t")
        ctype = {1: "int8_t", 2: "int16_t", 4: "int32_t", 8: "int64_t"}[size] if signed else None
        return f"(int64_t)({ctype}){raw}" if signed else f"(int64_t){raw}"

    def sized(self, attr: Attr) -> None:
        """A byte field, user type or switch with a size (or size-eos): check it fits, record its range."""
        if attr.size_eos:
            self.add(f"r->{attr.id}_at = pos; r->{attr.id}_len = end - pos;")
            return
        size = self.ctx.c(attr.size_expr)
        self.add("{")
        self.add(f"int64_t size = {size};", 2)
        self.add("if (bad || size < 0 || size > end - pos) return -1;", 2)
        self.add(f"r->{attr.id}_at = pos; r->{attr.id}_len = (Py_ssize_t)size;", 2)
        self.add("}")

    def emit(self) -> list[str]:
        spec_id, type_spec = self.spec_id, self.type_spec
        seq = type_spec.seq
        index = 0
        while index < len(seq):
            attr = seq[index]
            if attr.repeat and not (attr.repeat == "eos" and attr.kind == "user"):
                raise Unsupported(f"{attr.where}: repeat other than eos of a user type")
            if attr.kind == "bits":
                run = []
                while index < len(seq) and seq[index].kind == "bits":
                    run.append(seq[index])
                    index += 1
                total = sum(a.bits for a in run)
                if total % 8 or total > 64:
                    raise Unsupported(f"{attr.where}: bit fields that do not end on a byte (or over 64 bits)")
                count = total // 8
                self.add(f"if (end - pos < {count}) return -1;")
                self.add("{")
                self.add("uint64_t bits = 0;", 2)
                self.add(f"for (int i = 0; i < {count}; i++) bits = bits << 8 | b[pos + i];", 2)
                shift = total
                for bit_attr in run:
                    shift -= bit_attr.bits
                    mask = (1 << bit_attr.bits) - 1
                    self.add(f"r->{bit_attr.id} = (int64_t)((bits >> {shift}) & UINT64_C({mask}));", 2)
                self.add("}")
                self.add(f"pos += {count};")
                for bit_attr in run:
                    self.checks(bit_attr, f"r->{bit_attr.id}")
                continue
            index += 1
            if attr.kind == "contents":
                data = ", ".join(str(x) for x in attr.contents)
                self.add(f"if (end - pos < {attr.size}) return -1;")
                self.add("{")
                self.add(f"static const uint8_t want[] = {{{data}}};", 2)
                self.add(f"if (memcmp(b + pos, want, {attr.size}) != 0) return -1;", 2)
                self.add("}")
                self.add(f"pos += {attr.size};")
            elif attr.kind == "int":
                self.add(f"if (end - pos < {attr.size}) return -1;")
                self.add(f"r->{attr.id} = {self.read_int(attr)};")
                self.add(f"pos += {attr.size};")
                self.checks(attr, f"r->{attr.id}")
            elif attr.kind in ("bytes", "str"):
                if attr.repeat:
                    raise Unsupported(f"{attr.where}: repeated bytes")
                self.sized(attr)
                self.add(f"pos = r->{attr.id}_at + r->{attr.id}_len;")
                self.bytes_checks(attr)
            elif attr.kind == "user" and attr.repeat == "eos":
                user = attr.user_type
                self.add(f"r->{attr.id}_at = pos; r->{attr.id}_len = end - pos;")
                self.add("while (pos < end) {")
                self.add(f"{_tname(spec_id, user)} item;", 2)
                self.add(f"pos = {_cname(spec_id, user)}(b, pos, end, &item);", 2)
                self.add("if (pos < 0) return -1;", 2)
                self.add("}")
            elif attr.kind == "user":
                if attr.size_expr is None and not attr.size_eos:
                    raise Unsupported(f"{attr.where}: a user type without a size")
                self.sized(attr)
                if attr.valid:
                    if set(attr.valid) != {"expr"}:
                        raise Unsupported(f"{attr.where}: valid on a user type other than expr")
                    self.add(f"if (!({self.ctx.c(parse(attr.valid['expr']))})) return -1;")
                self.user_call(attr)
                self.add(f"pos = r->{attr.id}_at + r->{attr.id}_len;")
            elif attr.kind == "switch":
                if attr.valid:
                    raise Unsupported(f"{attr.where}: valid on a switch")
                self.sized(attr)
                on = self.ctx.c(attr.switch_on)
                self.add(f"r->{attr.id}_case = -1;")
                for key, case in attr.case_types:
                    self.add(f"if ({on} == {self.ctx.c(key)}) r->{attr.id}_case = {_case_id(spec_id, case)};")
                self.add(f"pos = r->{attr.id}_at + r->{attr.id}_len;")
            else:
                raise Unsupported(f"{attr.where}: {attr.kind} field")
        name = _cname(spec_id, type_spec)
        self.prototype = (f"static inline Py_ssize_t {name}(const uint8_t *b, Py_ssize_t pos, Py_ssize_t end, "
                          f"{_tname(spec_id, type_spec)} *r);")
        head = [f"/* {type_spec.where}{' (' + type_spec.variant + ')' if type_spec.variant else ''} */",
                f"static inline Py_ssize_t {name}(const uint8_t *b, Py_ssize_t pos, Py_ssize_t end, "
                f"{_tname(spec_id, type_spec)} *r)", "{", "    int bad = 0;"]
        return head + self.lines + ["    if (bad) return -1;", "    return pos;", "}", ""]

    def user_call(self, attr: Attr) -> None:
        """Decode a sized user field in its range (as the Python codec does); a type whose own byte order
        switches on a parent field reads in the order that field names."""
        user = attr.user_type
        item = f"{_tname(self.spec_id, user)} item"
        rng = f"b, r->{attr.id}_at, r->{attr.id}_at + r->{attr.id}_len, &item"
        self.add("{")
        self.add(f"{item};", 2)
        if user.endian_switch is not None:
            on, cases = user.endian_switch
            chain = []
            node = on
            while node.kind == "attr":
                chain.insert(0, node.value)
                node = node.args[0]
            if node.kind != "name" or node.value != "_parent" or len(chain) != 1:
                raise Unsupported(f"{user.where}: a byte order switched on something other than _parent.<field>")
            value = self.ctx.resolve(tuple(chain))
            keyword = "if"
            for key, order in cases:
                self.add(f"{keyword} ({value} == {self.ctx.c(key)}) {{ if ({_cname(self.spec_id, user)}__{order}"
                         f"({rng}) < 0) return -1; }}", 2)
                keyword = "else if"
            self.add("else return -1;", 2)
        else:
            self.add(f"if ({_cname(self.spec_id, user)}({rng}) < 0) return -1;", 2)
        self.add("}")


def _instances(spec_id: str, type_spec: TypeSpec) -> list[str]:
    out = []
    ctx = _Ctx(type_spec)
    for name, instance in type_spec.instances.items():
        body = ctx.c(instance.value)
        uses_bad = "&bad" in body
        out += [f"/* {instance.where} */",
                f"static inline int64_t {_cname(spec_id, type_spec)}_{name}(const uint8_t *b, "
                f"const {_tname(spec_id, type_spec)} *r, int *failed)", "{", "    (void)b; (void)r;",
                "    int bad = 0;" if uses_bad else "    const int bad = 0;",
                f"    int64_t v = {body};", "    *failed = bad;", "    return v;", "}", ""]
    return out


def _order_switch(spec_id: str, type_spec: TypeSpec) -> list[str]:
    _, cases = type_spec.endian_switch
    ctx = _Ctx(type_spec)
    name = _cname(spec_id, type_spec)
    out = [f"/* {type_spec.where}: meta/endian switch -> 0 little-endian, 1 big-endian, -1 neither */",
           f"static inline int {name}_order(int64_t on)", "{"]
    out += [f"    if (on == {ctx.c(key)}) return {0 if order == 'le' else 1};" for key, order in cases]
    return out + ["    return -1;", "}", ""]


def _enums(spec_id: str, type_spec: TypeSpec) -> list[str]:
    out = []
    for enum in type_spec.enums.values():
        for value, (member, _) in enum.members.items():
            out.append(f"#define CAP_{spec_id.upper()}_{enum.name.upper()}_{member.upper()} INT64_C({value})")
    return out


def emit_readers(specs: list[SpecFile]) -> str:
    by_id = {spec.meta["id"]: spec for spec in specs if spec.module.startswith("capture.")}
    structs, prototypes, readers, extra, case_ids = [], [], [], [], {}
    seen_enums = set()
    memo: dict = {}
    for spec_id, type_name in TARGETS:
        if spec_id not in by_id:
            raise GenerationError(f"specs/capture/{spec_id}.ksy is missing")
        type_spec = _find(by_id[spec_id], type_name)
        for scope in (type_spec, *([type_spec.parent] if type_spec.parent else [])):
            if id(scope) not in seen_enums:
                seen_enums.add(id(scope))
                extra += _enums(spec_id, scope)
        fields = _Reader(spec_id, type_spec).fields()
        structs += [f"typedef struct {{ {' '.join(fields) or 'int unused;'} }} {_tname(spec_id, type_spec)};"]
        variants = [specialize(type_spec, order, memo) for order in ("le", "be")] \
            if type_spec.switched_endian else [type_spec]
        for variant in variants:
            reader = _Reader(spec_id, variant)
            readers += reader.emit()
            prototypes.append(reader.prototype)
        if type_spec.endian_switch is not None:
            extra += _order_switch(spec_id, type_spec)
        extra += _instances(spec_id, type_spec)
        for attr in type_spec.seq:
            for _, case in attr.case_types:
                case_ids.setdefault(_case_id(spec_id, case), len(case_ids) + 1)
    ids = [f"#define {name} {number}" for name, number in case_ids.items()]
    return "\n".join(["/* ---- header readers generated from specs/capture (tools/ksygen/cgen_capture.py) ---- */"]
                     + ids + structs + [""] + prototypes + [""] + readers + extra) + "\n"


HEADER = "capture_readers.h"


def emit_header(specs: list[SpecFile]) -> str:
    """capture_readers.h: the generated readers, which the capture walker's translation unit
    (capture_runtime.c, part of inlong_proto._compiled) includes once, after its byte readers."""
    return ("/* Generated by tools/ksygen/cgen_capture.py from specs/capture, for tools/ksygen/capture_runtime.c."
            " Do not edit. */\n#ifndef INLONG_PROTO_CAPTURE_READERS_H\n#define INLONG_PROTO_CAPTURE_READERS_H\n"
            + emit_readers(specs) + "\n#endif\n")


def write(specs: list[SpecFile], out: Path) -> Path:
    target = out / "native" / HEADER
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(emit_header(specs))
    return target
