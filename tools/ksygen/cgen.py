"""Emits a CPython extension (plain C API) that scans dumps of framed protocols straight into Arrow columns.

From the same parsed .ksy model as the Python codecs (model.py), one C function per frame spec decodes a
whole frame into a row of C values, and a scan loop per protocol appends rows to column buffers (values,
validity and boolean bitmaps, string and binary offsets) laid out as Arrow expects them;
inlong_proto/backends/compiled.py wraps them with pyarrow.Array.from_buffers. No Python object is made per frame.

Every decode function gives one of three verdicts on the bytes at a position, seen through the same
window the pure decoder sees ([pos, min(end, pos + limit + 1)), frames.decode_with):

* a size >= 0: the frame layout decodes there, exactly as the generated Python codec does, into that size;
* IP_INVALID (-1): the Python codec certainly fails there too (a failed check, too few bytes, a size over
  the limit): the C function models every construct it reaches, and any construct it does not model makes
  the whole spec skipped at generation time (listed, with the reason, in the generated file's header);
* IP_UNKNOWN (-2): not modelled here, ask Python: a switch value no case names (the Python codec keeps
  the bytes), a date that Python's datetime() would refuse, a division whose divisor may be zero.

A spec is "exact" (DESCRIBE) when its function never answers IP_UNKNOWN and its protocol has no payload
layer (a registry entry's extension, passed in as payload_layers) that could still reject a frame the spec accepts:
then every answer is final. Without a payload layer IP_INVALID is final for every spec. The scan only ever accepts:
at the first position without a size it stops, and the runtime hands that stretch to the pure-Python
scanner, so error rows come from one implementation by construction.

Supported: integer fields (u1..s8 except u8), bit fields (byte-aligned groups of 8, 16 or 32 bits, as the
Python codec reads them), fixed `contents`, byte and string fields sized by an expression or by the end of
their stream (UTF-8 and ASCII checked exactly as Python's strict decode), inlined value and datetime
types, struct types (sized or not), one sized switch per type over struct cases, counted lists of structs (`repeat:
expr`; an Arrow list whose items the append walks again, since the row holds only where they start and
how many there are), `valid` (min, max, eq, any-of, in-enum, expr with `_io.eof`) and value instances in
expressions. A protocol with several frame
layouts (DataProxy's request and response) gets one scan that tries them in the registry's order, as
frames.decode_at does. Every offset and size comes from the model.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from dataclasses import dataclass, field

from .expr import GenerationError, Node, names_used, parse
from .model import ARROW_INT, Attr, SpecFile, TypeSpec

# A line "/* @@SHARED name@@ */" in a hand-written runtime stands for tools/ksygen/<name>: C that several
# runtimes need (checked int64 arithmetic, strict UTF-8), kept in one copy.
_SHARED = re.compile(r"/\* @@SHARED ([\w.]+)@@ \*/")


def splice(runtime: str, marker: str, generated: str, header: str, runtime_name: str) -> str:
    """A hand-written C runtime with the generated C put in at its one marker line, under the generator's
    do-not-edit header (the capture walker and the payload layers are written so)."""
    if runtime.count(marker) != 1:
        raise GenerationError(f"{runtime_name} must hold the marker {marker} once")
    before, after = runtime.split(marker)
    return header + before + generated + after


def runtime_source(path: Path) -> str:
    """A hand-written C runtime with the shared C it names (its @@SHARED lines) put in."""
    def shared(match) -> str:
        piece = path.parent / match.group(1)
        if not piece.is_file():
            raise GenerationError(f"{path.name} names {piece.name}, which tools/ksygen does not hold")
        return piece.read_text().rstrip("\n")

    return _SHARED.sub(shared, path.read_text())

_DATETIME_PARTS = ("year", "month", "day", "hour", "minute", "second", "millisecond")
_WIDTH = {"int8": 1, "int16": 2, "int32": 4, "int64": 8}
# C type and reader of each struct format character (sign applied by the cast).
_READ = {"B": ("uint8_t", 1), "b": ("int8_t", 1), "H": ("uint16_t", 2), "h": ("int16_t", 2),
         "I": ("uint32_t", 4), "i": ("int32_t", 4), "q": ("int64_t", 8)}
_DIRECTION_CODE = {None: 0, "request": 1, "response": 2}
META = ("path", "offset", "length", "protocol", "direction", "message_type")
INVALID, UNKNOWN = "IP_INVALID", "IP_UNKNOWN"


class Unsupported(GenerationError):
    """A construct the C scanner does not model: that spec gets no native scanner (pure Python runs)."""


@dataclass
class Column:
    name: str
    arrow: str  # int8..int64, bool, string, binary, timestamp[ms], struct, list (of one struct), meta
    index: int = -1  # position among every column of the protocol's scanner (meta columns first)
    enum: object = None
    children: list["Column"] = field(default_factory=list)

    @property
    def sliced(self) -> bool:
        """Bytes of the frame itself (a str or bytes field): the row holds their offset and length."""
        return self.arrow in ("string", "binary") and self.enum is None

    def describe(self) -> list:
        return [self.name, self.arrow, [child.describe() for child in self.children]]


def _c_string(data: bytes) -> str:
    return '"' + "".join(chr(b) if 32 <= b < 127 and chr(b) not in '"\\?' else f"\\{b:03o}" for b in data) + '"'


class CScope:
    """Fields of one (possibly inlined) type as C locals; resolves expression names to C source."""

    def __init__(self, gen: "FrameEmitter", type_spec: TypeSpec, prefix: str):
        self.gen, self.type_spec, self.prefix = gen, type_spec, prefix
        self.children: dict[str, CScope] = {}
        self.current: str | CScope | None = None
        self.eof: str | None = None  # C condition of _io.eof where a field check runs

    def var(self, name: str) -> str:
        return f"{self.prefix}{name}"

    def attr(self, name: str) -> Attr | None:
        return next((a for a in self.type_spec.seq if a.id == name), None)

    def child(self, attr: Attr) -> "CScope":
        if attr.id not in self.children:
            self.children[attr.id] = CScope(self.gen, attr.user_type, f"{self.var(attr.id)}__")
        return self.children[attr.id]

    def into(self, rest: tuple[str, ...]) -> str:
        if not rest:
            if self.type_spec.python_type == "value":
                return self.resolve(("value",))
            raise Unsupported(f"{self.type_spec.where}: a {self.type_spec.python_type} value inside an expression")
        return self.resolve(rest)

    def resolve(self, chain: tuple[str, ...]) -> str:
        head, rest = chain[0], chain[1:]
        if head == "_":
            if isinstance(self.current, CScope):
                return self.current.into(rest)
            if self.current is None or rest:
                raise Unsupported(f"{self.type_spec.where}: '_' here")
            return self.current
        if head == "_io":
            if rest == ("eof",) and self.eof is not None:
                return self.eof
            raise Unsupported(f"{self.type_spec.where}: {'.'.join(chain)} here")
        attr = self.attr(head)
        if attr is not None:
            if attr.kind == "user" and attr.user_type.python_type != "struct":
                return self.child(attr).into(rest)
            if attr.kind in ("int", "bits") and not rest:
                return self.var(head)
            raise Unsupported(f"{self.type_spec.where}: {'.'.join(chain)} in an expression")
        if head in self.type_spec.instances and not rest:
            return f"({to_c(self.type_spec.instances[head].value, self)})"
        raise Unsupported(f"{self.type_spec.where}: name {'.'.join(chain)!r} in an expression")

    def enum_member(self, enum_path: str, member: str) -> str:
        return f"INT64_C({enum_value(self.type_spec, enum_path, member)})"

    def sizeof(self, name: str) -> int:
        return fixed_sizeof(self.type_spec, name)


# Shared by the three C emitters (scanners here, cgen_encode, cgen_capture): names and constants of the
# Kaitai expression language, looked up in the model.


def name_chain(node: Node) -> tuple[str, ...] | None:
    """a.b.c as ("a", "b", "c"); None for any other expression."""
    if node.kind == "name":
        return (node.value,)
    if node.kind == "attr":
        base = name_chain(node.args[0])
        return None if base is None else base + (node.value,)
    return None


def failed_checks(valid: dict, attr: Attr, plain, expr, const) -> list[str]:
    """C conditions, each true when the value fails one of its `valid` checks in-enum, eq, any-of, min and
    max (in that order; expr is the caller's, as its scope must see the value). plain() is the value's C
    expression, expr(source) a Kaitai expression in C, const(n) an integer constant in C."""
    failed = []
    if attr.enum is not None and valid.get("in-enum"):
        failed.append(f"!({' || '.join(f'{plain()} == {const(v)}' for v in attr.enum.members) or '0'})")
    if "eq" in valid:
        failed.append(f"{plain()} != {expr(valid['eq'])}")
    if "any-of" in valid:
        failed.append(f"!({' || '.join(f'{plain()} == {expr(v)}' for v in valid['any-of'])})")
    if "min" in valid:
        failed.append(f"{plain()} < {expr(valid['min'])}")
    if "max" in valid:
        failed.append(f"{plain()} > {expr(valid['max'])}")
    return failed


def enum_value(type_spec: TypeSpec, enum_path: str, member: str) -> int:
    """The value of enum_path::member as seen from type_spec."""
    enum = type_spec.find_enum(enum_path)
    for value, (member_id, _) in enum.members.items():
        if member_id == member:
            return value
    raise GenerationError(f"{type_spec.where}: enum {enum_path} has no member {member!r}")


def fixed_sizeof(type_spec: TypeSpec, name: str) -> int:
    """sizeof<name>, which only a fixed-size type has."""
    size = type_spec.find_type(name).fixed_size
    if size is None:
        raise GenerationError(f"{type_spec.where}: sizeof<{name}> is not a fixed size")
    return size


_C_OPS = {"and": "&&", "or": "||"}


def to_c(node: Node, scope: CScope) -> str:
    """A Kaitai expression as C over int64_t; Python's floor division and modulo kept (ip_fdiv, ip_fmod).
    A divisor that may be zero makes the function able to answer IP_UNKNOWN (Python would not decode)."""
    kind = node.kind
    if kind == "num":
        if not -2**63 <= node.value < 2**63:
            raise Unsupported(f"constant {node.value} does not fit in 64 bits")
        return f"INT64_C({node.value})"
    if kind == "bool":
        return "1" if node.value else "0"
    if kind == "enum":
        return scope.enum_member(*node.value)
    if kind == "sizeof":
        return f"INT64_C({scope.sizeof(node.value)})"
    if kind in ("name", "attr"):
        chain = name_chain(node)
        if chain is None or chain[-1] in ("to_i", "length", "size") and len(chain) > 1 and chain[0] != "_io":
            raise Unsupported(f"method .{node.value} in an expression")
        return scope.resolve(chain)
    if kind == "unary":
        op = {"-": "-", "not": "!", "~": "~"}[node.value]
        return f"({op}{to_c(node.args[0], scope)})"
    if kind == "binary":
        left, right = (to_c(a, scope) for a in node.args)
        if node.value in ("/", "%"):
            divisor = node.args[1]
            if not (divisor.kind == "num" and divisor.value not in (0, -1)):
                scope.gen.may_be_bad = True
            return f"ip_f{'div' if node.value == '/' else 'mod'}({left}, {right}, &bad)"
        return f"({left} {_C_OPS.get(node.value, node.value)} {right})"
    if kind == "ternary":
        cond, then, other = (to_c(a, scope) for a in node.args)
        return f"({cond} ? {then} : {other})"
    raise Unsupported(f"expression node {kind}")


def _distinct_cases(attr: Attr) -> list[TypeSpec]:
    return list({id(t): t for _, t in attr.case_types}.values())


def _bits_arrow(attr: Attr) -> str:
    """The Arrow type the Python codec's FIELDS give a bN field (emit._arrow)."""
    if attr.enum:
        return "string"
    return "bool" if attr.bits == 1 else next(f"int{w}" for w in (8, 16, 32, 64) if attr.bits < w or w == 64)


def column_tree(type_spec: TypeSpec) -> list[Column]:
    """The Arrow columns of a type's fields, as arrow._message_fields lays them out."""
    out = []
    for attr in type_spec.seq:
        if attr.kind == "contents":
            continue
        if attr.repeat:
            if attr.repeat != "expr" or attr.kind != "user" or attr.user_type.python_type != "struct":
                raise Unsupported(f"{attr.where}: a repeated field other than a counted list of structs")
            item = Column("item", "struct", children=column_tree(_plain_struct(attr.user_type)))
            out.append(Column(attr.id, "list", children=[item]))
            continue
        if attr.kind == "switch":
            for case in _distinct_cases(attr):
                out.append(Column(case.name, "struct", children=column_tree(_plain_struct(case))))
        elif attr.kind == "int":
            if attr.fmt[1] not in _READ:
                raise Unsupported(f"{attr.where}: integer type {attr.fmt!r}")
            out.append(Column(attr.id, "string", enum=attr.enum) if attr.enum else
                       Column(attr.id, ARROW_INT[attr.fmt[1]]))
        elif attr.kind == "bits":
            out.append(Column(attr.id, _bits_arrow(attr), enum=attr.enum))
        elif attr.kind == "str":
            out.append(Column(attr.id, "string"))
        elif attr.kind == "bytes":
            out.append(Column(attr.id, "binary"))
        elif attr.kind == "user":
            python_type = attr.user_type.python_type
            if python_type == "datetime":
                out.append(Column(attr.id, "timestamp[ms]"))
            elif python_type == "value":
                out.append(Column(attr.id, "int32"))
            else:
                out.append(Column(attr.id, "struct", children=column_tree(_plain_struct(attr.user_type))))
        else:
            raise Unsupported(f"{attr.where}: {attr.kind} field")
    return out


def _plain_struct(type_spec: TypeSpec) -> TypeSpec:
    if type_spec.endian_switch is not None or type_spec.switched_endian:
        raise Unsupported(f"{type_spec.where}: a struct whose byte order is switched")
    return type_spec


class FrameEmitter:
    """The decode function of one frame spec, writing into its protocol's row (columns numbered there)."""

    def __init__(self, spec: SpecFile, row: str, columns: dict[str, Column], message_types: list[str]):
        self.spec, self.root = spec, spec.root
        self.name = spec.root.name
        self.row = row
        self.columns = columns  # the protocol's top-level columns by name
        self.message_types = message_types  # the protocol's, shared by its layouts (row kind indexes it)
        self.direction = spec.root.options.get("direction")
        self.lines: list[str] = []
        self.depth = 1
        self.temp = 0
        self.may_be_bad = False  # a division by a value that may be zero
        self.unknown: list[str] = []  # why some input makes it answer IP_UNKNOWN
        self.functions: list[str] = []  # item decoders of counted lists, emitted before the decode function
        self.items: dict[int, str] = {}  # list column index -> its item decoder

    # ------------------------------------------------------------------ decode
    def add(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)

    def new(self, stem: str) -> str:
        self.temp += 1
        return f"{stem}{self.temp}"

    def need(self, base: str, k: int, size: int, lim: str) -> None:
        self.add(f"if ({base} + {k + size} > {lim}) return {INVALID};")

    def read(self, fmt: str, at: str) -> str:
        ctype, size = _READ[fmt[1]]
        if size == 1:
            return f"(int64_t)({ctype})b[{at}]"
        return f"(int64_t)({ctype})ip_rd{size}{'le' if fmt[0] == '<' else 'be'}(b + {at})"

    def checks(self, scope: CScope, attr: Attr, value: str | CScope, phase: str = "all") -> None:
        """The spec's `valid` of one field; phase "pre" is an expr that reads neither the field nor _io
        (the Python codec runs it before reading), "post" the rest. Either way a failure is IP_INVALID."""
        valid = dict(attr.valid or {})
        expr_first = "expr" in valid and not any(chain[0] in ("_", "_io") for chain in names_used(parse(valid["expr"])))
        if phase == "pre":
            valid = {"expr": valid["expr"]} if expr_first else {}
        elif phase == "post" and expr_first:
            valid.pop("expr")
        plain = value if isinstance(value, str) else None
        for failed in failed_checks(valid, attr, lambda: self.need_plain(plain, attr),
                                    lambda expr: to_c(parse(expr), scope), lambda v: f"INT64_C({v})"):
            self.add(f"if ({failed}) return {INVALID};")
        if "expr" in valid:
            scope.current = value
            self.add(f"if (!({to_c(parse(valid['expr']), scope)})) return {INVALID};")
            scope.current = None

    @staticmethod
    def need_plain(plain: str | None, attr: Attr) -> str:
        if plain is None:
            raise Unsupported(f"{attr.where}: min/max/eq/in-enum on a field that is not an integer")
        return plain

    def seq(self, scope: CScope, base: str, k: int, lim: str, columns: dict[str, Column]) -> tuple[str, int]:
        """Emit the fields of scope's type from b[base + k], reading no byte at or past lim; returns where
        they end (base, k)."""
        type_spec = scope.type_spec
        fixed = type_spec.fixed_size
        if fixed is not None:
            self.need(base, k, fixed, lim)  # one bound check for a fixed-size type
        bit_group: list[Attr] = []
        for attr in type_spec.seq:
            column = columns.get(attr.id)
            if attr.kind == "bits":
                bit_group.append(attr)
                width = sum(a.bits for a in bit_group)
                if width in (8, 16, 32):  # the Python codec closes a group at these widths (emit.close_bits)
                    self.bits(scope, bit_group, base, k, lim, columns, checked=fixed is not None)
                    k += width // 8
                    bit_group = []
                elif width > 32:
                    raise Unsupported(f"{attr.where}: a bit-field group of {width} bits")
                continue
            if bit_group:
                raise Unsupported(f"{attr.where}: bit fields before it do not fill 8, 16 or 32 bits")
            if attr.repeat:
                base, k = self.counted(scope, attr, base, k, lim, column)
            elif attr.kind == "contents":
                if fixed is None:
                    self.need(base, k, attr.size, lim)
                self.add(f"if (memcmp(b + {base} + {k}, {_c_string(attr.contents)}, {attr.size}) != 0) "
                         f"return {INVALID};")
                k += attr.size
            elif attr.kind == "int":
                if fixed is None:
                    self.need(base, k, attr.size, lim)
                var = scope.var(attr.id)
                self.add(f"int64_t {var} = {self.read(attr.fmt, f'{base} + {k}')};")
                self.checks(scope, attr, var)
                if column is not None:
                    self.store(column, var)
                k += attr.size
            elif attr.kind in ("bytes", "str"):
                base, k = self.sized_bytes(scope, attr, base, k, lim, column)
            elif attr.kind == "user":
                base, k = self.user(scope, attr, base, k, lim, column, checked=fixed is not None)
            elif attr.kind == "switch":
                base, k = self.switch(scope, attr, base, k, lim)
            else:
                raise Unsupported(f"{attr.where}: {attr.kind} field")
        if bit_group:
            raise Unsupported(f"{type_spec.where}: bit fields that do not fill 8, 16 or 32 bits")
        return base, k

    def bits(self, scope: CScope, group: list[Attr], base: str, k: int, lim: str, columns: dict[str, Column],
             checked: bool) -> None:
        """A byte-aligned group of bN fields: one big-endian integer split with shifts, as emit.close_bits."""
        width = sum(a.bits for a in group)
        if not checked:
            self.need(base, k, width // 8, lim)
        packed = self.new("bits")
        reader = "b[{at}]" if width == 8 else f"ip_rd{width // 8}be(b + {{at}})"
        self.add(f"uint64_t {packed} = (uint64_t){reader.format(at=f'{base} + {k}')};")
        shift = width
        for attr in group:
            shift -= attr.bits
            var = scope.var(attr.id)
            self.add(f"int64_t {var} = (int64_t)(({packed} >> {shift}) & UINT64_C({(1 << attr.bits) - 1}));")
            self.checks(scope, attr, var)
            column = columns.get(attr.id)
            if column is not None:
                self.store(column, var)

    def counted(self, scope: CScope, attr: Attr, base: str, k: int, lim: str, column: Column | None) -> tuple[str, int]:
        """repeat: expr over a struct: each item checked by its own decoder (emitted once); the row keeps where
        the items start and how many there are, and the append walks them again for their columns."""
        if column is None or attr.valid:
            raise Unsupported(f"{attr.where}: a counted list without its column, or with a check")
        item = self.item_function(attr, column.children[0])
        count, at, i = self.new("count"), self.new("at"), self.new("i")
        self.add(f"int64_t {count} = {to_c(attr.repeat_expr, scope)};")
        self.add(f"if ({count} < 0) return {INVALID};")
        self.add(f"Py_ssize_t {at} = {base} + {k};")
        self.add(f"r->v[{column.index}] = {at}; r->w[{column.index}] = {count}; r->ok[{column.index}] = 1;")
        self.add(f"for (int64_t {i} = 0; {i} < {count}; {i}++) {{")
        self.add(f"    {at} = {item}(b, {at}, {lim}, r);")
        self.add(f"    if ({at} < 0) return {at};")
        self.add("}")
        return at, 0

    def item_function(self, attr: Attr, column: Column) -> str:
        """The decoder of one item of a counted list at b[at:end): where it ends, or a verdict."""
        name = f"item_{self.name}_{attr.id}"
        if column.index in self.items:
            return self.items[column.index]
        item_type = _plain_struct(attr.user_type)
        if any(a.kind == "switch" or a.repeat or a.size_eos for a in item_type.seq):
            raise Unsupported(f"{item_type.where}: an item with a switch, a list or a size-eos field")
        if not any(a.kind in ("int", "bits", "contents") for a in item_type.seq):
            # each item then takes at least one byte, so a huge count ends at the frame's end, not in a loop
            raise Unsupported(f"{item_type.where}: an item that may take no bytes")
        lines, depth = self.lines, self.depth
        self.lines, self.depth = [f"    r->ok[{column.index}] = 1;"], 1
        end_base, end_k = self.seq(CScope(self, item_type, f"i_{attr.id}__"), "at", 0, "end",
                                   {c.name: c for c in column.children})
        body, self.lines, self.depth = self.lines, lines, depth
        self.functions += [f"static Py_ssize_t {name}(const uint8_t *b, Py_ssize_t at, Py_ssize_t end, {self.row} *r)",
                           "{", "    int bad = 0;"] + body + [
                           f"    if (bad) return {UNKNOWN};" if self.may_be_bad else "    (void)bad;",
                           f"    return {end_base} + {end_k};", "}", ""]
        self.items[column.index] = name
        return name

    def sized_bytes(self, scope: CScope, attr: Attr, base: str, k: int, lim: str,
                    column: Column | None) -> tuple[str, int]:
        """A str or bytes field: sized by an expression or by the end of its stream (size-eos)."""
        self.checks(scope, attr, "", phase="pre")
        start, stop = self.new("start"), self.new("stop")
        self.add(f"Py_ssize_t {start} = {base} + {k};")
        if attr.size_eos:
            self.add(f"Py_ssize_t {stop} = {lim};")
        else:
            size = self.new("size")
            self.add(f"int64_t {size} = {to_c(attr.size_expr, scope)};")
            self.add(f"if ({size} < 0 || {size} > {lim} - {start}) return {INVALID};")
            self.add(f"Py_ssize_t {stop} = {start} + (Py_ssize_t){size};")
        if attr.kind == "str":
            encoding = (attr.encoding or "").upper().replace("_", "-")
            check = {"UTF-8": "ip_utf8_ok", "UTF8": "ip_utf8_ok", "ASCII": "ip_ascii_ok"}.get(encoding)
            if check is None:
                raise Unsupported(f"{attr.where}: encoding {attr.encoding}")
            self.add(f"if (!{check}(b + {start}, {stop} - {start})) return {INVALID};")
        if attr.valid:
            if set(attr.valid) - {"expr"} or any(chain[0] == "_" for chain in names_used(parse(attr.valid["expr"]))):
                raise Unsupported(f"{attr.where}: a check on the value of a byte or string field")
            scope.eof = f"({stop} >= {lim})"
            self.checks(scope, attr, "", phase="post")
            scope.eof = None
        if column is not None:
            self.add(f"r->v[{column.index}] = {start}; r->w[{column.index}] = {stop} - {start}; "
                     f"r->ok[{column.index}] = 1;")
        return stop, 0

    def user(self, scope: CScope, attr: Attr, base: str, k: int, lim: str, column: Column | None,
             checked: bool) -> tuple[str, int]:
        child = scope.child(attr)
        user = _plain_struct(attr.user_type)
        if user.python_type != "struct":  # an inlined value or datetime: fixed size, read in place
            size = user.fixed_size
            if not checked:
                self.need(base, k, size, lim)
            self.seq(child, base, k, lim, {})
            if user.python_type == "value":
                self.checks(scope, attr, child)
                if column is not None:
                    self.store(column, child.resolve(("value",)))
            else:
                self.checks(scope, attr, child)
                parts = ", ".join(child.resolve((part,)) for part in _DATETIME_PARTS)
                ms = f"{scope.var(attr.id)}__ms"
                self.add(f"int64_t {ms};")
                self.unknown.append(f"{attr.where}: a date Python's datetime() would refuse")
                self.add(f"if (!ip_datetime_ms({parts}, &{ms})) return {UNKNOWN};  /* Python's datetime() raises */")
                if column is not None:
                    self.store(column, ms)
            return base, k + size
        if attr.valid:
            raise Unsupported(f"{attr.where}: valid on a struct field")
        sub = {c.name: c for c in column.children} if column is not None else {}
        if column is not None:
            self.add(f"r->ok[{column.index}] = 1;")
        if attr.size_eos or attr.size_expr is not None:  # its own stream: what it leaves unread is skipped
            start, stop = self.sized_stream(scope, attr, base, k, lim)
            self.seq(child, start, 0, stop, sub)
            return stop, 0
        return self.seq(child, base, k, lim, sub)

    def sized_stream(self, scope: CScope, attr: Attr, base: str, k: int, lim: str) -> tuple[str, str]:
        start, stop = self.new("start"), self.new("stop")
        self.add(f"Py_ssize_t {start} = {base} + {k};")
        if attr.size_eos:
            self.add(f"Py_ssize_t {stop} = {lim};")
        else:
            size = self.new("size")
            self.add(f"int64_t {size} = {to_c(attr.size_expr, scope)};")
            self.add(f"if ({size} < 0 || {size} > {lim} - {start}) return {INVALID};")
            self.add(f"Py_ssize_t {stop} = {start} + (Py_ssize_t){size};")
        return start, stop

    def exhaustive(self, scope: CScope, attr: Attr) -> bool:
        """Whether the switch's value is always one its cases name: it is a field the spec already checks
        with in-enum (every member a case) or any-of (every option a case)."""
        if attr.switch_on.kind != "name":
            return False
        target = scope.attr(attr.switch_on.value)
        if target is None or target.kind not in ("int", "bits") or not target.valid:
            return False
        keys = set()
        for key, _ in attr.case_types:
            if key.kind == "num":
                keys.add(key.value)
            elif key.kind == "enum":
                keys.add(enum_value(scope.type_spec, *key.value))
            else:
                return False
        if target.valid.get("in-enum") and target.enum is not None and set(target.enum.members) <= keys:
            return True
        options = target.valid.get("any-of")
        return options is not None and all(parse(o).kind == "num" and parse(o).value in keys for o in options)

    def switch(self, scope: CScope, attr: Attr, base: str, k: int, lim: str) -> tuple[str, int]:
        if attr.size_eos or attr.size_expr is None:
            raise Unsupported(f"{attr.where}: a switch without a size")
        valid = attr.valid or {}
        if set(valid) - {"expr"} or any(chain[0] in ("_", "_io") for chain in
                                         (names_used(parse(valid["expr"])) if "expr" in valid else ())):
            raise Unsupported(f"{attr.where}: a check on the switch's value")
        if "expr" in valid:
            self.add(f"if (!({to_c(parse(valid['expr']), scope)})) return {INVALID};")
        start, stop = self.sized_stream(scope, attr, base, k, lim)
        on = self.new("on")
        self.add(f"int64_t {on} = {to_c(attr.switch_on, scope)};")
        keyword = "if"
        for case in _distinct_cases(attr):
            keys = " || ".join(f"{on} == {to_c(key, scope)}" for key, t in attr.case_types if t is case)
            self.add(f"{keyword} ({keys}) {{")
            self.depth += 1
            column = self.columns[case.name]
            direction = self.direction or case.options.get("direction")
            if self.direction is None and direction is not None:  # frames.build_frame: a case of the other way
                self.add(f"if (want && want != {_DIRECTION_CODE[direction]}) return {INVALID};")
            self.add(f"r->kind = {self.message_types.index(case.name)}; r->dir = {_DIRECTION_CODE[direction]};")
            self.add(f"r->ok[{column.index}] = 1;")
            self.seq(CScope(self, case, f"{scope.var(attr.id)}__{case.name}__"), start, 0, stop,
                     {c.name: c for c in column.children})
            self.depth -= 1
            keyword = "} else if"
        if self.exhaustive(scope, attr):
            self.add(f"}} else return {INVALID};  /* unreachable: the value was checked above */")
        else:
            self.unknown.append(f"{attr.where}: a switch value no case names")
            self.add(f"}} else return {UNKNOWN};  /* a case the spec does not name: the Python codec keeps the bytes */")
        return stop, 0

    def store(self, column: Column, value: str) -> None:
        self.add(f"r->v[{column.index}] = {value}; r->ok[{column.index}] = 1;")

    def emit(self) -> list[str]:
        root = self.root
        if root.switched_endian:
            raise Unsupported(f"{root.where}: switched byte order")
        scope = CScope(self, root, "f_")
        if self.direction is not None:  # a layout of one direction only (frames: candidates(direction))
            self.add(f"if (want && want != {_DIRECTION_CODE[self.direction]}) return {INVALID};")
        if not any(a.kind == "switch" for a in root.seq):  # the frame type itself is the message
            self.add(f"r->kind = {self.message_types.index(root.class_name)}; "
                     f"r->dir = {_DIRECTION_CODE[self.direction]};")
        base, k = self.seq(scope, "0", 0, "end", self.columns)
        if self.may_be_bad:
            self.unknown.append(f"{root.where}: a divisor that may be zero")
        return self.functions + [
                f"/* {self.name} (specs/{self.spec.path.parent.name}/{self.spec.path.name}) at b[0:end), end the",
                " * window the Python decoder sees: its size, IP_INVALID or IP_UNKNOWN (see cgen.py). */",
                f"static IP_INLINE Py_ssize_t decode_{self.name}(const uint8_t *b, Py_ssize_t end, int want, {self.row} *r)",
                "{", "    int bad = 0;", "    (void)want;"] + self.lines + [
                f"    if (bad) return {UNKNOWN};" if self.may_be_bad else "    (void)bad;",
                f"    return {base} + {k};", "}", ""]

    def message_type_names(self) -> list[str]:
        switch = next((a for a in self.root.seq if a.kind == "switch"), None)
        return [self.root.class_name] if switch is None else [case.name for case in _distinct_cases(switch)]


class ProtocolEmitter:
    """The scanner of one protocol: its layouts' decode functions over one row, tried in registry order."""

    def __init__(self, protocol: str, specs: list[SpecFile], payload_layer: bool = False):
        self.protocol, self.specs, self.payload_layer = protocol, specs, payload_layer
        self.name = protocol.replace("-", "_")
        self.row = f"row_{self.name}"

    def emit(self) -> tuple[list[str], list[str], dict]:
        merged: dict[str, Column] = {}
        for spec in self.specs:
            if spec.root.switched_endian:
                raise Unsupported(f"{spec.root.where}: switched byte order")
            for column in column_tree(spec.root):  # arrow.frame_schema merges layouts the same way
                if column.name in merged and merged[column.name].describe() != column.describe():
                    raise Unsupported(f"{spec.root.where}: column {column.name} differs between layouts")
                merged.setdefault(column.name, column)
        columns = list(merged.values())
        leaves: list[Column] = []

        def number(items: list[Column]) -> None:
            for column in items:
                column.index = len(leaves)
                leaves.append(column)
                number(column.children)

        number([Column(name, "meta") for name in META] + columns)
        message_types: list[str] = []
        emitters = []
        for spec in self.specs:
            emitter = FrameEmitter(spec, self.row, merged, message_types)
            for name in emitter.message_type_names():
                if name not in message_types:
                    message_types.append(name)
            emitters.append(emitter)
        n = len(leaves)
        out = [f"/* ==== protocol {self.protocol}: {', '.join(s.module for s in self.specs)} ==== */",
               f"#define NCOL_{self.name} {n}",
               f"typedef struct {{ int kind, dir; int64_t v[{n}], w[{n}]; unsigned char ok[{n}]; }} {self.row};", ""]
        for emitter in emitters:
            out += emitter.emit()
        out += self.combined(emitters)
        items = {index: name for e in emitters for index, name in e.items.items()}
        out += self.append(leaves, message_types, items)
        kinds = ", ".join("IP_STR" if c.arrow in ("string", "binary") or c.name in ("path", "protocol", "direction",
                                                                                  "message_type") and c.arrow == "meta"
                          else "IP_STRUCT" if c.arrow == "struct" else "IP_BOOL" if c.arrow == "bool" else
                          "IP_LIST" if c.arrow == "list" else f"IP_FIXED | {_WIDTH.get(c.arrow, 8)} << 4" for c in leaves)
        owners, owner = [], {}
        for column in leaves:  # the list whose items a column's rows are (-1: the frames)
            owners.append(owner.get(column.index, -1))
            if column.arrow == "list":
                owner.update({d.index: column.index for d in _descendants(column)})
        out += [f"static const int KIND_{self.name}[] = {{{kinds}}};",
                f"static const int OWNER_{self.name}[] = {{{', '.join(map(str, owners))}}};",
                f"static PyObject *scan_{self.name}(PyObject *self, PyObject *args)", "{",
                f"    IP_SCAN_BODY({self.row}, decode_{self.name}, append_{self.name}, NCOL_{self.name}, KIND_{self.name}, "
                f"OWNER_{self.name}, {json.dumps(self.protocol)})",
                "}", "",
                f"static PyObject *frame_{self.name}(PyObject *self, PyObject *args)", "{",
                f"    IP_FRAME_BODY({self.row}, decode_{self.name})", "}", ""]
        methods = [f'    {{"scan_{self.name}", scan_{self.name}, METH_VARARGS, "scan_{self.name}(buffer, pos, '
                   f'limit, want, max_rows, path) -> (stop, rows, columns)"}},',
                   f'    {{"frame_{self.name}", frame_{self.name}, METH_VARARGS, "frame_{self.name}(buffer, pos, '
                   f'end, limit, want) -> size, -1 (no frame) or -2 (ask Python)"}},']
        for emitter in emitters:
            out += [f"static Py_ssize_t decode1_{emitter.name}(const uint8_t *b, Py_ssize_t end, Py_ssize_t limit, "
                    f"int want, {self.row} *r)",
                    "{", "    Py_ssize_t size = decode_" + emitter.name + "(b, end, want, r);",
                    "    return size > limit ? IP_INVALID : size;", "}",
                    f"static PyObject *frame_{emitter.name}(PyObject *self, PyObject *args)", "{",
                    f"    IP_FRAME_BODY({self.row}, decode1_{emitter.name})", "}", ""]
            methods.append(f'    {{"frame_{emitter.name}", frame_{emitter.name}, METH_VARARGS, "frame_{emitter.name}('
                           f'buffer, pos, end, limit, want) -> size, -1 (no frame) or -2 (ask Python)"}},')
        described = {"protocol": self.protocol, "layouts": [e.name for e in emitters],
                     "directions": [e.direction for e in emitters], "columns": [c.describe() for c in columns],
                     "exact": {e.name: not e.unknown and not self.payload_layer for e in emitters},
                     "payload_layer": self.payload_layer}
        self.not_final = [f"{self.protocol}: a payload layer may refuse a frame"] if self.payload_layer else []
        self.not_final += [f"{self.protocol}: {reason}" for e in emitters for reason in dict.fromkeys(e.unknown)]
        return out, methods, described

    def combined(self, emitters: list[FrameEmitter]) -> list[str]:
        """frames.decode_at over the layouts: the first that decodes gives the size and the row; when
        another decodes too, the direction is left null (ambiguous). Any IP_UNKNOWN leaves it to Python."""
        out = ["/* The protocol's frame at b[0:end) as frames.decode_at decides it, each layout's size at most limit. */",
               f"static Py_ssize_t decode_{self.name}(const uint8_t *b, Py_ssize_t end, Py_ssize_t limit, int want, "
               f"{self.row} *r)", "{"]
        if len(emitters) == 1:
            out += [f"    Py_ssize_t size = decode_{emitters[0].name}(b, end, want, r);",
                    "    return size > limit ? IP_INVALID : size;", "}", ""]
            return out
        # The caller clears r->ok before the first layout. Once one layout decoded, the others are only asked
        # for their size (ambiguity): into a local row that is never read, so that the compiler, inlining the
        # layout's decoder, drops the stores.
        out += [f"    {self.row} unread;", "    Py_ssize_t found = IP_INVALID, size;"]
        for number, emitter in enumerate(emitters):
            out += ["    if (found < 0) {"]
            if number:
                out += ["        memset(r->ok, 0, sizeof r->ok);  /* what a layout that failed part-way wrote */"]
            out += [f"        size = decode_{emitter.name}(b, end, want, r);",
                    "        if (size > limit) size = IP_INVALID;",
                    "        if (size == IP_UNKNOWN) return IP_UNKNOWN;",
                    "        found = size;",
                    "    } else {",
                    f"        size = decode_{emitter.name}(b, end, want, &unread);",
                    "        if (size > limit) size = IP_INVALID;",
                    "        if (size == IP_UNKNOWN) return IP_UNKNOWN;",
                    "        if (size >= 0) r->dir = 0;",
                    "    }"]
        out += ["    return found;", "}", ""]
        return out

    def append(self, leaves: list[Column], message_types: list[str], items: dict[int, str]) -> list[str]:
        name = self.name
        out = [f"static const char *const MTYPE_{name}[] = {{{', '.join(json.dumps(t) for t in message_types)}}};",
               f"static const Py_ssize_t MTYPE_LEN_{name}[] = {{{', '.join(str(len(t)) for t in message_types)}}};"]
        enums: dict[str, object] = {}
        for column in leaves:
            if column.enum is not None:
                enums.setdefault(column.enum.class_name, column.enum)
        for enum_name, enum in enums.items():
            out += [f"static const char *enum_{name}_{enum_name}(int64_t v, Py_ssize_t *len)", "{", "    switch (v) {"]
            out += [f"    case INT64_C({value}): *len = {len(member)}; return {json.dumps(member)};"
                    for value, (member, _) in enum.members.items()]
            out += ["    default: return NULL;", "    }", "}"]
        inside = set()  # columns filled per list item, not per row
        for column in leaves:
            if column.arrow == "list":
                inside |= {c.index for c in _descendants(column)}
        for column in leaves:  # each list's items: walked again (they were checked) into the child columns
            if column.arrow == "list":
                out += [f"static void append_{name}_{column.name}(ipcol *c, const {self.row} *r, const uint8_t *b, "
                        "Py_ssize_t size)", "{", f"    {self.row} item;",
                        f"    Py_ssize_t at = (Py_ssize_t)r->v[{column.index}];",
                        f"    Py_ssize_t item_index = c[{column.index}].items - (Py_ssize_t)r->w[{column.index}];"
                        "  /* the first item's row in the child columns */",
                        f"    for (int64_t n = 0; n < r->w[{column.index}]; n++, item_index++) {{",
                        "        memset(item.ok, 0, sizeof item.ok);",
                        f"        at = {items[column.children[0].index]}(b, at, size, &item);"]
                out += ["    " + line for child in _descendants(column)
                        for line in self.append_column(child, "item.", "item_index")]
                out += ["    }", "}", ""]
        out += ["", "/* A row's columns; the path's and the protocol's (the same in every row) are filled in at the end. */",
                f"static void append_{name}(ipcol *c, const {self.row} *r, const uint8_t *b, Py_ssize_t pos, "
                "Py_ssize_t size, Py_ssize_t index)", "{",
                "    (void)b;", "    ip_i64(&c[1], pos, 1, index);", "    ip_i64(&c[2], size, 1, index);",
                "    ip_str(&c[4], IP_DIRECTIONS[r->dir], IP_DIRECTION_LEN[r->dir], index);",
                f"    ip_str(&c[5], MTYPE_{name}[r->kind], MTYPE_LEN_{name}[r->kind], index);"]
        for column in leaves[len(META):]:
            if column.index not in inside:
                out += self.append_column(column, "r->", "index")
        out += ["}", ""]
        return out

    def append_column(self, column: Column, row: str, index: str) -> list[str]:
        """The append of one column's value from a row (`r->` or a list item's `item.`) into row `index` of its
        column (a frame's number, or an item's among all the list's items)."""
        i, name = column.index, self.name
        ok, v, w = f"{row}ok[{i}]", f"{row}v[{i}]", f"{row}w[{i}]"
        if column.arrow == "list":
            return [f"    ip_list(&c[{i}], {ok}, {ok} ? {w} : 0, {index});",
                    f"    if ({ok}) append_{name}_{column.name}(c, r, b, size);"]
        if column.arrow == "struct":
            return [f"    ip_bit(&c[{i}], {ok}, {index});"]
        if column.enum is not None:
            return [f"    if ({ok}) {{ Py_ssize_t len = 0; const char *member = enum_{name}_{column.enum.class_name}({v}, &len); "
                    f"ip_enum(&c[{i}], member, len, {v}, {index}); }}"]
        if column.sliced:
            return [f"    ip_str(&c[{i}], {ok} ? (const char *)b + {v} : NULL, {w}, {index});"]
        if column.arrow == "bool":
            return [f"    ip_bool(&c[{i}], {v}, {ok}, {index});"]
        if column.arrow == "timestamp[ms]":
            return [f"    ip_i64(&c[{i}], {v}, {ok}, {index});"]
        return [f"    ip_i{_WIDTH[column.arrow] * 8}(&c[{i}], {v}, {ok}, {index});"]


def _descendants(column: Column) -> list[Column]:
    out = []
    for child in column.children:
        out.append(child)
        out += _descendants(child)
    return out


def emit_extension(specs: list[SpecFile], runtime: str, payload_layers=(),
                   protocols: dict[str, list[str]] | None = None) -> str:
    """The C source of the extension: the shared runtime (buffers, readers) and a scanner per protocol the
    emitter supports, trying its frame layouts in `protocols` order (name -> spec modules; by default the
    registry's: by direction, None first); the others are listed with the reason, so `make generate` stays
    deterministic. payload_layers: the protocols whose frames a runtime layer reads further (and may refuse),
    protocols.EXTENSIONS; their answers are not final (DESCRIBE "exact")."""
    frames = {spec.module: spec for spec in specs if spec.root.options.get("frame")}
    if protocols is None:  # the registry's order (tools/generate.py: by direction, None first)
        protocols = {}
        for module in sorted(frames, key=lambda m: (frames[m].root.options.get("direction") or "", m)):
            protocols.setdefault(frames[module].root.options["protocol"], []).append(module)
    parts, methods, described, skipped, not_final = [], [], {}, [], []
    for protocol in sorted(protocols):
        layouts = [frames[module] for module in protocols[protocol]]
        emitter = ProtocolEmitter(protocol, layouts, protocol in payload_layers)
        try:
            lines, its_methods, description = emitter.emit()
        except Unsupported as exc:
            skipped.append(f" * {protocol} ({', '.join(protocols[protocol])}): {exc}")
            continue
        parts += lines
        methods += its_methods
        described[protocol] = description
        not_final += [f" * {line}" for line in emitter.not_final]
    header = ["/* Generated by tools/ksygen/cgen.py from specs/. Do not edit.",
              " *",
              " * Columnar scanners and frame verdicts of whole valid frames (see cgen.py), one per protocol.",
              " * Protocols without one (pure Python only), and why:"] + (skipped or [" * (none)"]) + \
        [" *", " * Where a verdict is not final (IP_UNKNOWN, or a size the payload layer must still accept):"] + \
        (not_final or [" * (none)"]) + [" */", runtime]
    describe = json.dumps(described, sort_keys=True, separators=(",", ":"))
    methods.append('    {"forget_pool", ip_forget_pool, METH_NOARGS, "forget_pool(): after a fork, in the child: '
                   'a fresh lock and no kept buffers"},')
    methods.append('    {"pool_stats", ip_pool_stats, METH_NOARGS, "pool_stats() -> (buffers kept for the next scans, '
                   'their bytes)"},')
    footer = ["static PyMethodDef ip_methods[] = {"] + methods + ["    {NULL, NULL, 0, NULL}", "};", "",
              "static struct PyModuleDef ip_module = {PyModuleDef_HEAD_INIT, \"_native\", "
              "\"Generated columnar frame scanners (tools/ksygen/cgen.py).\", -1, ip_methods, NULL, NULL, NULL, NULL};", "",
              "PyMODINIT_FUNC PyInit__native(void)", "{",
              "    if (PyType_Ready(&ipowned_type) < 0) return NULL;",
              "    if ((ip_pool_lock = PyThread_allocate_lock()) == NULL) return PyErr_NoMemory();",
              "    PyObject *m = PyModule_Create(&ip_module);",
              "    if (m == NULL) return NULL;",
              f"    if (PyModule_AddStringConstant(m, \"DESCRIBE\", {_c_string(describe.encode())}) < 0) {{",
              "        Py_DECREF(m);", "        return NULL;", "    }",
              "    return m;", "}", ""]
    return "\n".join(header + parts + footer)
