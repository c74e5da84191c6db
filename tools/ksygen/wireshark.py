"""Wireshark Lua dissectors from the specs (issue 15): `make generate` -> generated/wireshark/.

One plugin file, inlong_proto.lua, with one Wireshark protocol per wire protocol (filter names
broadcast, dataproxy, tubemq, eventmesh; EventMesh's legacy length form is a second layout of the
`eventmesh` protocol, field `eventmesh.length_form` says which one a frame was read with). Everything
in it comes from the ksygen model of the frame specs (Loader/TypeSpec/Attr/EnumSpec):

* every spec field is a ProtoField named by its path: `<proto>.<field>` for the frame's own fields,
  `<parent path>.<field>` inside a user type (`tubemq.blocks.block_len`, `eventmesh.package.header`),
  and `<parent path>.<case type>.<field>` inside a switch's case (`broadcast.data_response.data`,
  `dataproxy.bin_message.unique_id`); the type follows the spec type, enums are value strings, the
  field's doc is the blurb;
* each (type, path) pair becomes one Lua function that dissects it with the spec's sizes, switches,
  repeats and `valid` rules; a broken rule, a length that cannot be, a bad magic or a frame shorter than
  its fields is an expert-info error naming the field;
* frames are reassembled with dissect_tcp_pdus: the frame length comes from the spec's header (the one
  sized field after the fixed header, as the Python codec's frame_length) or, for a frame without a
  length (TubeMQ), from walking its fields on the bytes there are;
* the default ports are SERVER_PORTS of inlong_proto/capture (read from its source), and every protocol
  also has a TCP heuristic: the frame's leading magic (contents of its first field) and a header that
  passes the spec's checks, or, for a protocol without a magic (DataProxy, Broadcast), a segment of whole
  frames that each pass every check of the spec (lengths, enums, ranges, the closing magic), so that HTTP,
  HTTP/2 and EventMesh streams are never claimed;
* a Lua error while dissecting a frame (a payload layer, a sub-dissector) is expert info on the frame.

The payload layers (what a spec says in prose, not in fields) are small hand-written Lua hooks kept in
this module (PAYLOAD_LUA): DataProxy attributes as key=value items and Snappy bodies flagged, EventMesh
header/body to the json dissector, TubeMQ blocks joined into one Tvb and its varint-delimited messages
handed to the protobuf dissector with the message names of specs/tubemq/methods.yaml. The TubeMQ .proto
files are shipped next to the plugin (generated/wireshark/tubemq/); Wireshark finds them through the
protobuf search paths preference (see the header of the generated file).
"""
from __future__ import annotations

import hashlib
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .emit import Module, TypeEmitter
from .expr import GenerationError, Node, _name_chain
from .model import Attr, EnumSpec, Loader, TypeSpec

# ksy protocol name -> (Wireshark protocol, layout name); the legacy EventMesh form is a layout of eventmesh.
FOLD = {"eventmesh-legacy": ("eventmesh", "legacy")}
TITLES = {"broadcast": ("Broadcast", "Simple Broadcasting Protocol"),
          "dataproxy": ("DataProxy", "Apache InLong DataProxy TCP (v0)"),
          "tubemq": ("TubeMQ", "Apache InLong TubeMQ RPC"),
          "eventmesh": ("EventMesh", "Apache EventMesh TCP")}
HUGE = 2 ** 53


def server_ports(root: Path) -> dict[int, str]:
    """The real servers' default ports, from the specs' registry blocks (as inlong_proto.core.protocols has them)."""
    from .registry import entries

    return {port: name for name, entry in entries(root / "specs").items() for port in entry["ports"]}


def lua_str(text: str | bytes) -> str:
    data = text.encode("utf-8") if isinstance(text, str) else text
    out = []
    for byte in data:
        char = chr(byte)
        if char in '"\\':
            out.append("\\" + char)
        elif 0x20 <= byte < 0x7F:
            out.append(char)
        elif byte == 0x0A:
            out.append("\\n")
        else:
            out.append(f"\\{byte:03d}")
    return '"' + "".join(out) + '"'


def blurb(doc: str) -> str:
    return " ".join(doc.split())


def ident(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", text)


@dataclass
class Layout:
    name: str  # "request", "response", "current", "legacy" or the protocol's name
    direction: str | None
    spec_path: str
    root: TypeSpec
    fn: str = ""
    header_size: int = 0
    sized: bool = False  # the frame's size follows from its header
    signature: bytes | None = None
    evidence: float = 0.0  # header_evidence of its fixed header


# A heuristic claims a segment from its header alone when the header's checks keep at least this many bits
# (a 4-byte magic); a weaker header must come with whole frames that pass every check of the spec.
CLAIM_BITS = 32


def header_evidence(header: list[Attr]) -> float:
    """How many bits of the fixed header the spec's checks pin down: a magic (`contents`) all of its bits,
    an integer with `valid` (min/max, eq, any-of, in-enum) log2(values of its width / values it accepts).
    Random bytes pass the header's checks with probability 2 ** -evidence: Broadcast's two s4 fields (37 or
    38, one of two commands) keep 62 bits, DataProxy's TotalLen and MsgType under 10."""
    import math

    bits = 0.0
    for attr in header:
        if attr.kind == "contents":
            bits += 8 * len(attr.contents)
            continue
        width = attr.bits if attr.kind == "bits" else 8 * (attr.size or 0)
        valid = attr.valid or {}
        if not width or not valid:
            continue
        signed = attr.kind == "int" and (attr.fmt or "")[-1:].islower()
        low, high = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if signed else (0, (1 << width) - 1)
        accepted = (1 << width)
        if "eq" in valid:
            accepted = 1
        elif "any-of" in valid:
            accepted = len(valid["any-of"])
        elif valid.get("in-enum") and attr.enum is not None:
            accepted = len(attr.enum.members)
        elif "min" in valid or "max" in valid:
            lo = max(low, valid.get("min", low)) if isinstance(valid.get("min", low), int) else low
            hi = min(high, valid.get("max", high)) if isinstance(valid.get("max", high), int) else high
            accepted = max(1, hi - lo + 1)
        bits += width - math.log2(accepted)
    return bits


@dataclass
class Proto:
    name: str
    label: str
    title: str
    layouts: list[Layout] = field(default_factory=list)
    fields: dict[str, str] = field(default_factory=dict)  # abbrev -> ProtoField constructor
    kinds: dict[str, str] = field(default_factory=dict)  # abbrev -> its type and display arguments
    order: list[str] = field(default_factory=list)
    functions: dict[tuple, str] = field(default_factory=dict)
    code: list[str] = field(default_factory=list)
    enums: dict[int, tuple[str, str]] = field(default_factory=dict)  # id(enum) -> (lua name, table)
    ports: list[int] = field(default_factory=list)
    max_frame: int = 65536


class Code:
    def __init__(self):
        self.lines: list[str] = []
        self.depth = 1

    def add(self, line: str) -> None:
        self.lines.append("  " * self.depth + line)

    def block(self, line: str):
        self.add(line)
        self.depth += 1

    def end(self, line: str = "end") -> None:
        self.depth -= 1
        self.add(line)


_BIN = {"+": "+", "-": "-", "*": "*", "%": "%", "==": "==", "!=": "~=", "<": "<", "<=": "<=", ">": ">",
        ">=": ">=", "and": "and", "or": "or"}
_BIT = {"&": "bit32.band", "|": "bit32.bor", "^": "bit32.bxor", "<<": "bit32.lshift", ">>": "bit32.rshift"}


class TypeGen:
    """Lua for one (type, path): `function(tvb, ctx, tree, off, lim, parent) -> v, off, ok`."""

    def __init__(self, gen: "Generator", proto: Proto, t: TypeSpec, path: str, frame: Layout | None):
        self.gen, self.proto, self.t, self.path, self.frame = gen, proto, t, path, frame
        self.code = Code()
        self.current: str | None = None  # the Lua expression `_` stands for

    # --- expressions -------------------------------------------------------------------------------
    def expr(self, node: Node, inlining: tuple = ()) -> str:
        kind = node.kind
        if kind == "num":
            return repr(node.value)
        if kind == "bool":
            return "true" if node.value else "false"
        if kind == "str":
            return lua_str(node.value)
        if kind == "enum":
            path, member = node.value
            enum = self.t.find_enum(path)
            for value, (name, _) in enum.members.items():
                if name == member:
                    return repr(value)
            raise GenerationError(f"{self.t.where}: enum {path} has no member {member}")
        if kind == "sizeof":
            size = self.t.find_type(node.value).fixed_size
            if size is None:
                raise GenerationError(f"{self.t.where}: sizeof<{node.value}> is not fixed")
            return repr(size)
        if kind in ("name", "attr"):
            chain = _name_chain(node)
            if chain is not None and (chain[-1] not in ("length", "size", "to_i") or len(chain) == 1
                                      or chain[0] == "_io"):
                return self.resolve(chain, inlining)
            base = self.expr(node.args[0], inlining)
            if node.value == "to_i":
                return f"tonum({base})"
            return f"lenof({base})"
        if kind == "unary":
            inner = self.expr(node.args[0], inlining)
            return {"-": f"(-{inner})", "not": f"(not {inner})", "~": f"bit32.bnot({inner})"}[node.value]
        if kind == "binary":
            left, right = (self.expr(a, inlining) for a in node.args)
            if node.value == "/":
                return f"math.floor({left} / {right})"
            if node.value in _BIT:
                return f"{_BIT[node.value]}({left}, {right})"
            return f"({left} {_BIN[node.value]} {right})"
        if kind == "ternary":
            cond, then, other = (self.expr(a, inlining) for a in node.args)
            return f"(function() if {cond} then return {then} else return {other} end end)()"
        if kind == "index":
            return f"({self.expr(node.args[0], inlining)})[({self.expr(node.args[1], inlining)}) + 1]"
        raise GenerationError(f"{self.t.where}: expression node {kind} is not supported in Lua")

    def resolve(self, chain: tuple[str, ...], inlining: tuple) -> str:
        first, rest = chain[0], "".join(f".{part}" for part in chain[1:])
        if first == "_":
            if self.current is None:
                raise GenerationError(f"{self.t.where}: `_` outside a field's check")
            return self.current + rest
        if first == "_io":
            what = chain[1] if len(chain) > 1 else None
            return {"eof": "(off >= lim)", "size": "(lim - start)", "pos": "(off - start)"}[what]
        if first == "_parent":
            return "v._parent" + rest
        if first == "_root":
            return "ctx.root" + rest
        if any(a.id == first for a in self.t.seq):
            return "v." + first + rest
        if first in self.t.instances:
            if first in inlining:
                raise GenerationError(f"{self.t.where}: instance {first} refers to itself")
            inst = self.t.instances[first]
            text = "(" + self.expr(inst.value, inlining + (first,)) + ")"
            return text if not rest else f"({text}){rest}"
        raise GenerationError(f"{self.t.where}: unknown name {'.'.join(chain)!r} in an expression")

    # --- fields --------------------------------------------------------------------------------------
    def declare(self, abbr: str, ctor: str, args: str, doc: str) -> None:
        decl = f"ProtoField.{ctor}({lua_str(abbr)}, {lua_str(abbr.rsplit('.', 1)[-1])}{args}, {lua_str(blurb(doc))})"
        known = self.proto.fields.get(abbr)
        if known is None:
            self.proto.fields[abbr] = decl
            self.proto.kinds[abbr] = ctor + args
            self.proto.order.append(abbr)
        elif self.proto.kinds[abbr] != ctor + args:
            raise GenerationError(f"{self.t.where}: field {abbr} is declared twice with different types "
                                  f"({known} / {decl})")

    def enum_table(self, enum: EnumSpec) -> str:
        key = id(enum)
        if key not in self.proto.enums:
            name = f"E_{ident(self.proto.name)}_{len(self.proto.enums)}_{enum.name}"
            members = ", ".join(f"[{value}] = {lua_str(member)}" for value, (member, _) in enum.members.items())
            self.proto.enums[key] = (name, f"local {name} = {{{members}}}")
        return self.proto.enums[key][0]

    def checks(self, attr: Attr, abbr: str, value: str, item: str, numeric: bool = True) -> None:
        c = self.code
        valid = attr.valid or {}
        show = f"tostring({value})"
        if "min" in valid:
            c.add(f"if {value} < {self.const(valid['min'])} then fail(ctx, {item}, {lua_str(abbr)}, "
                  f"\"value \" .. {show} .. \" is below the minimum {valid['min']}\") end")
        if "max" in valid:
            c.add(f"if {value} > {self.const(valid['max'])} then fail(ctx, {item}, {lua_str(abbr)}, "
                  f"\"value \" .. {show} .. \" is above the maximum {valid['max']}\") end")
        if "eq" in valid:
            c.add(f"if {value} ~= {self.const(valid['eq'])} then fail(ctx, {item}, {lua_str(abbr)}, "
                  f"\"value \" .. {show} .. \" is not {valid['eq']}\") end")
        if "any-of" in valid:
            options = " and ".join(f"{value} ~= {self.const(o)}" for o in valid["any-of"])
            c.add(f"if {options} then fail(ctx, {item}, {lua_str(abbr)}, \"value \" .. {show} .. "
                  f"\" is none of the values the spec allows\") end")
        if attr.enum is not None:
            table = self.enum_table(attr.enum)
            fn = "fail" if valid.get("in-enum") else "warn"
            c.add(f"if {table}[{value}] == nil then {fn}(ctx, {item}, {lua_str(abbr)}, \"value \" .. {show} .. "
                  f"\" is not a known {attr.enum.name} value\") end")
        if "expr" in valid:
            from .expr import parse
            self.current = value
            test = self.expr(parse(valid["expr"]) if not isinstance(valid["expr"], Node) else valid["expr"])
            self.current = None
            text = " ".join(str(valid["expr"]).split())
            c.add(f"if not ({test}) then fail(ctx, {item}, {lua_str(abbr)}, "
                  f"{lua_str('fails the check ' + text)}) end")

    def const(self, value) -> str:
        from .expr import parse
        if isinstance(value, (int, bool)):
            return self.expr(parse(value))
        return self.expr(parse(str(value)))

    def size_of(self, attr: Attr) -> str:
        if attr.size is not None and attr.size_expr is None:
            return repr(attr.size)
        if attr.size_expr is not None:
            return self.expr(attr.size_expr)
        if attr.size_eos:
            return "(lim - off)"
        raise GenerationError(f"{attr.where}: no size")

    def emit(self) -> list[str]:
        c = self.code
        c.add("local v = {_parent = parent}")
        c.add("local start = off")
        c.add("local r, x, n, item, cv, ok")
        c.add("if ctx.root == nil then ctx.root = v end")
        bits: list[Attr] = []
        for index, attr in enumerate(self.t.seq):
            if attr.kind == "bits":
                bits.append(attr)
                if sum(a.bits for a in bits) % 8 == 0:
                    self.bits(bits)
                    bits = []
                continue
            if bits:
                raise GenerationError(f"{attr.where}: bit fields must end on a byte boundary")
            self.attr(attr, index)
        if bits:
            raise GenerationError(f"{self.t.where}: bit fields must end on a byte boundary")
        for name, inst in self.t.instances.items():
            c.add(f"v.{name} = {self.expr(inst.value, (name,))}")
        c.add("return v, off, true")
        return c.lines

    def bits(self, group: list[Attr]) -> None:
        c = self.code
        total = sum(a.bits for a in group)
        size = total // 8
        if size > 4:
            raise GenerationError(f"{group[0].where}: bit groups over 32 bits are not supported in Lua")
        first = f"{self.path}.{group[0].id}"
        c.add(f"if not need(ctx, tree, off, {size}, lim, {lua_str(first)}) then return v, lim, false end")
        c.add(f"r = tvb:range(off, {size})")
        pos = 0
        for attr in group:
            abbr = f"{self.path}.{attr.id}"
            mask = ((1 << attr.bits) - 1) << (total - pos - attr.bits)
            if attr.bits == 1:
                self.declare(abbr, "bool", f", {total}, nil, {hex(mask)}", attr.doc)
                c.add(f"x = r:bitfield({pos}, 1) == 1")
            else:
                vs = self.enum_table(attr.enum) if attr.enum else "nil"
                self.declare(abbr, f"uint{size * 8}", f", base.DEC, {vs}, {hex(mask)}", attr.doc)
                c.add(f"x = r:bitfield({pos}, {attr.bits})")
            c.add(f"v.{attr.id} = x")
            c.add(f"item = add(tree, F[{lua_str(abbr)}], r)")
            self.checks(attr, abbr, "x", "item")
            self.hook(abbr)
            pos += attr.bits
        c.add(f"off = off + {size}")

    def hook(self, abbr: str) -> None:
        name = self.gen.hook_for(self.proto.name, abbr)
        if name is not None:
            self.code.add(f"if item ~= nil then HOOKS.{name}(tvb, ctx, item, r, x, v) end")

    def attr(self, attr: Attr, index: int) -> None:
        c = self.code
        abbr = f"{self.path}.{attr.id}"
        frame_body = self.frame is not None and self.frame.sized and self.t is self.frame.root and \
            attr is self.gen.layout_body.get(id(self.frame))
        if attr.repeat == "expr":
            c.add(f"local count_{attr.id} = {self.expr(attr.repeat_expr)}")
            c.add(f"if count_{attr.id} < 0 then fail(ctx, tree, {lua_str(abbr)}, \"impossible count \" .. "
                  f"count_{attr.id}); return v, lim, false end")
            c.add(f"v.{attr.id} = {{}}")
            c.block(f"for i_{attr.id} = 1, count_{attr.id} do")
            self.element(attr, abbr, f"v.{attr.id}[i_{attr.id}] = x", f"\"[\" .. (i_{attr.id} - 1) .. \"]\"",
                         frame_body)
            c.end()
        elif attr.repeat == "eos":
            c.add(f"v.{attr.id} = {{}}")
            c.block("while off < lim do")
            self.element(attr, abbr, f"v.{attr.id}[#v.{attr.id} + 1] = x", f"\"[\" .. #v.{attr.id} .. \"]\"",
                         frame_body)
            c.end()
        else:
            self.element(attr, abbr, f"v.{attr.id} = x", None, frame_body)

    def element(self, attr: Attr, abbr: str, store: str, label: str | None, frame_body: bool) -> None:
        c = self.code
        fail_return = "return v, lim, false"
        append = (lambda: c.add(f"if item ~= nil then item:append_text({label}) end")) if label else (lambda: None)
        if attr.kind in ("int", "float"):
            size = attr.size
            le = attr.fmt[0] == "<"
            if attr.fmt[0] == "?":
                raise GenerationError(f"{attr.where}: switched byte order is not supported in Lua")
            if attr.kind == "float":
                ctor, read = ("float" if size == 4 else "double"), "float"
            else:
                signed = attr.fmt[1].islower()
                ctor = f"{'int' if signed else 'uint'}{size * 8}"
                read = {1: "int" if signed else "uint", 2: "int" if signed else "uint",
                        4: "int" if signed else "uint", 8: "int64" if signed else "uint64"}[size]
            vs = self.enum_table(attr.enum) if attr.enum else "nil"
            args = f", base.DEC, {vs}, nil" if attr.kind == "int" else ", nil"
            self.declare(abbr, ctor, args, attr.doc)
            c.add(f"if not need(ctx, tree, off, {size}, lim, {lua_str(abbr)}) then {fail_return} end")
            c.add(f"r = tvb:range(off, {size})")
            getter = f"r:{'le_' if le else ''}{read}()"
            c.add(f"x = {'tonum(' + getter + ')' if size == 8 else getter}")
            c.add(f"item = {'add_le' if le else 'add'}(tree, F[{lua_str(abbr)}], r)")
            c.add(store)
            append()
            c.add(f"off = off + {size}")
            self.checks(attr, abbr, "x", "item")
            self.hook(abbr)
            return
        if attr.kind == "contents":
            data = attr.contents
            printable = all(0x20 <= b < 0x7F for b in data)
            self.declare(abbr, "string" if printable else "bytes", "" if printable else ", base.NONE",
                         attr.doc)
            c.add(f"if not need(ctx, tree, off, {len(data)}, lim, {lua_str(abbr)}) then {fail_return} end")
            c.add(f"r = tvb:range(off, {len(data)})")
            c.add("x = r:raw()")
            c.add(f"item = add(tree, F[{lua_str(abbr)}], r)")
            c.add(store)
            c.add(f"if x ~= {lua_str(data)} then fail(ctx, item, {lua_str(abbr)}, \"bad magic \" .. hex(x) .. "
                  f"\", the spec says {data.hex().upper()}\") end")
            c.add(f"off = off + {len(data)}")
            return
        if attr.kind in ("bytes", "str", "switch") or (attr.kind == "user" and attr.user_type.python_type != "struct"
                                                       or attr.kind == "user" and (attr.size_expr is not None
                                                                                   or attr.size_eos)):
            c.add(f"n = {self.size_of(attr)}")
            if frame_body:
                c.add(f"if ctx.probe then return v, off + n + {self.gen.layout_trailer[id(self.frame)]}, true end")
            c.add(f"if not need(ctx, tree, off, n, lim, {lua_str(abbr)}) then {fail_return} end")
            c.add("r = tvb:range(off, n)")
        if attr.kind == "bytes":
            self.declare(abbr, "bytes", ", base.NONE", attr.doc)
            c.add("x = r")
            c.add(f"item = add(tree, F[{lua_str(abbr)}], r)")
            c.add(store)
            append()
            c.add("off = off + n")
            self.checks(attr, abbr, "x", "item")
            self.hook(abbr)
            return
        if attr.kind == "str":
            self.declare(abbr, "string", "", attr.doc)
            enc = "ENC_UTF_8" if (attr.encoding or "").upper().replace("-", "") == "UTF8" else "ENC_ASCII"
            c.add(f"x = r:string({enc})")
            c.add(f"item = add(tree, F[{lua_str(abbr)}], r, x)")
            c.add(store)
            append()
            c.add("off = off + n")
            self.checks(attr, abbr, "x", "item")
            self.hook(abbr)
            return
        if attr.kind == "switch":
            self.declare(abbr, "bytes", ", base.NONE", attr.doc)
            c.add(f"item = add(tree, F[{lua_str(abbr)}], r)")
            c.add(f"x = {self.expr(attr.switch_on)}")
            first = True
            for key, case_type in attr.case_types:
                fn = self.gen.type_fn(self.proto, case_type, f"{self.path}.{case_type.name}", None)
                c.add(f"{'if' if first else 'elseif'} x == {self.expr(key)} then")
                first = False
                c.depth += 1
                c.add(f"cv, _, ok = {fn}(tvb, ctx, item, off, off + n, v)")
                c.add(f"v.{attr.id} = cv; v.{attr.id}__case = {lua_str(case_type.name)}")
                c.add(f"if item ~= nil then item:append_text(\" ({case_type.name})\") end")
                c.add(f"if not ok then {fail_return} end")
                c.depth -= 1
            c.add("else")
            c.add(f"  v.{attr.id} = r")
            c.add("end")
            c.add("off = off + n")
            self.current = f"v.{attr.id}"
            self.checks(attr, abbr, f"v.{attr.id}", "item")
            self.current = None
            self.hook(abbr)
            return
        if attr.kind == "user":
            t = attr.user_type
            sub = f"{self.path}.{attr.id}"
            fn = self.gen.type_fn(self.proto, t, sub, None)
            if t.python_type == "value":
                self.declare(abbr, "uint32", ", base.DEC, nil, nil", attr.doc)
                c.add(f"cv = {fn}(tvb, ctx.q, nil, off, off + n, v)")
                c.add(f"item = add(tree, F[{lua_str(abbr)}], r, cv.value or 0)")
            elif t.python_type == "datetime":
                self.declare(abbr, "string", "", attr.doc)
                c.add(f"item = add(tree, F[{lua_str(abbr)}], r, r:string(ENC_ASCII))")
            else:
                self.declare(abbr, "none", "", attr.doc)
                if attr.size is None and attr.size_expr is None and not attr.size_eos:
                    c.add(f"item = add(tree, F[{lua_str(abbr)}], tvb:range(off, math.min(lim, ctx.avail) - off))")
                    c.add(f"cv, n, ok = {fn}(tvb, ctx, item, off, lim, v)")
                    c.add("if item ~= nil then item:set_len(n - off) end")
                    c.add("x = cv")
                    c.add(store)
                    append()
                    c.add(f"if not ok then {fail_return} end")
                    c.add("off = n")
                    self.checks(attr, abbr, "x", "item")
                    self.hook(abbr)
                    return
                c.add(f"item = add(tree, F[{lua_str(abbr)}], r)")
            c.add(f"cv, _, ok = {fn}(tvb, ctx, item, off, off + n, v)")
            c.add("x = cv")
            c.add(store)
            append()
            c.add(f"if not ok then {fail_return} end")
            c.add("off = off + n")
            self.checks(attr, abbr, "x", "item")
            self.hook(abbr)
            return
        raise GenerationError(f"{attr.where}: field kind {attr.kind} is not supported in Lua")


class Generator:
    def __init__(self, specs: Path, root: Path):
        self.specs, self.root = specs, root
        self.loader = Loader(specs)
        self.protos: dict[str, Proto] = {}
        self.layout_body: dict[int, Attr] = {}
        self.layout_trailer: dict[int, int] = {}

    @staticmethod
    def hook_for(proto: str, abbr: str) -> str | None:
        """The payload hook (PAYLOAD_LUA's HOOKS) a field's item is handed to, if any."""
        last = abbr.rsplit(".", 1)[-1]
        if proto == "eventmesh" and abbr in ("eventmesh.package.header", "eventmesh.package.body"):
            return "json"
        if proto == "dataproxy" and last == "attr":
            return "dataproxy_attr"
        if proto == "dataproxy" and abbr in ("dataproxy.text_message.body", "dataproxy.bin_message.body"):
            return "dataproxy_body"
        return None

    def type_fn(self, proto: Proto, t: TypeSpec, path: str, frame: Layout | None) -> str:
        key = (path, id(t))
        if key in proto.functions:
            return proto.functions[key]
        if path.count(".") > 12:
            raise GenerationError(f"{t.where}: types nest too deep for the Lua dissector")
        name = "d_" + ident(path)
        while name in proto.functions.values():
            name += "_"
        proto.functions[key] = name
        lines = TypeGen(self, proto, t, path, frame).emit()
        proto.code += [f"-- {t.where} as {path}", f"{name} = function(tvb, ctx, tree, off, lim, parent)"] + \
            lines + ["end", ""]
        return name

    def load(self) -> None:
        ports = server_ports(self.root)
        frames = []
        for path in sorted(self.specs.rglob("*.ksy")):
            spec = self.loader.load(path)
            if spec.root.options.get("frame"):
                frames.append(spec)
        for spec in frames:
            options = spec.root.options
            protocol = options["protocol"]
            wname, layout_name = FOLD.get(protocol, (protocol, None))
            wname = ident(wname)
            label, title = TITLES.get(wname, (wname, spec.meta.get("title", wname)))
            proto = self.protos.setdefault(wname, Proto(wname, label, title))
            direction = options.get("direction")
            layout = Layout(layout_name or direction or "frame", direction,
                            str(spec.path.relative_to(self.specs.resolve())), spec.root)
            header, header_size, body, trailer = TypeEmitter(Module(spec), spec.root).layout()
            layout.header_size = header_size
            layout.sized = body is not None
            if body is not None:
                self.layout_body[id(layout)] = body
                self.layout_trailer[id(layout)] = trailer
            if header and header[0].kind == "contents":
                layout.signature = header[0].contents
            layout.evidence = header_evidence(header)
            proto.max_frame = max(proto.max_frame, int(options.get("max-frame-size", 65536)))
            proto.layouts.append(layout)
        for proto in self.protos.values():
            # the current layout first (eventmesh), requests before responses (dataproxy)
            proto.layouts.sort(key=lambda l: ({"legacy": 1}.get(l.name, 0), l.direction or ""))
            for layout in proto.layouts:
                if layout.name == "frame" and len(proto.layouts) > 1:
                    layout.name = "current"
            proto.ports = sorted(p for p, n in ports.items() if n == proto.name)
            for layout in proto.layouts:
                layout.fn = self.type_fn(proto, layout.root, proto.name, layout)

    # --- output --------------------------------------------------------------------------------------
    def lua(self) -> str:
        out = [RUNTIME]
        methods = self.tubemq_methods()
        for proto in self.protos.values():
            out += self.proto_lua(proto)
        out.append(PAYLOAD_LUA.replace("@TUBEMQ_METHODS@", methods))
        out += self.uni_lua()
        for proto in self.protos.values():
            out += self.register_lua(proto)
        body = "\n".join(out).rstrip() + "\n"
        digest = hashlib.sha256(body.encode()).hexdigest()[:16]
        one_copy = ONE_COPY.replace("@DIGEST@", digest).replace("@FIRST_PROTO@", next(iter(self.protos)))
        return HEADER.format(protos=", ".join(self.protos)) + one_copy + body

    def uni_lua(self) -> list[str]:
        """The uni HTTP API's routes (specs/eventmesh/uni_http.yaml) as the eventmesh_uni postdissector's table."""
        path = self.specs / "eventmesh" / "uni_http.yaml"
        if not path.is_file():
            return []
        table = yaml.safe_load(path.read_text())
        # the legacy /eventmesh/* bridge is left to the legacy API's reading, as the decoder does
        routes = sorted((r for r in table["routes"] if not r.get("legacy")),
                        key=lambda r: -len(r["path"].split("{", 1)[0]))
        params = sorted({q["name"] for r in routes for q in r.get("query", ())})
        rows = []
        for r in routes:
            prefix = r["path"].split("{", 1)[0]
            query = ", ".join(f"{{{lua_str(q['name'])}, {'true' if q.get('required') else 'false'}}}"
                              for q in r.get("query", ()))
            shapes = {status: " or ".join(shape if isinstance(shape, str) else "{" + ", ".join(shape["keys"]) + "}"
                                          for shape in (kind if isinstance(kind, list) else [kind]))
                      for status, kind in r["answers"].items()}
            answers = ", ".join(f"[{status}] = {lua_str(shape)}" for status, shape in sorted(shapes.items()))
            sse = next((table["body-kinds"][k]["data-kind"] for k in ([r["answers"].get(200)] if r["answers"].get(200)
                        else []) if isinstance(k, str) and "data-kind" in table["body-kinds"].get(k, {})), None)
            rows.append(f"  {{prefix = {lua_str(prefix.rstrip('/') if '{' in r['path'] else prefix)}, "
                        f"id = {'true' if '{' in r['path'] else 'false'}, name = {lua_str(r['name'])}, "
                        f"path = {lua_str(r['path'])}, method = {lua_str(r['method'])}, body = {lua_str(r['body'])}, "
                        f"query = {{{query}}}, answers = {{{answers}}}, sse = {lua_str(sse) if sse else 'nil'}}},")
        fields = [f'  ["query.{name}"] = ProtoField.string("eventmesh_uni.query.{name}", "{name}", '
                  f'"Query parameter {name}, URL-decoded"),' for name in params]
        rejects = [f"  [{lua_str(str(r['status']) + ' ' + r['message'])}] = true,"
                   for r in table["jdk-server"]["rejects"]]
        return [UNI_LUA.replace("@ROUTES@", "\n".join(rows)).replace("@QUERY_FIELDS@", "\n".join(fields))
                .replace("@JDK_REJECTS@", "\n".join(rejects))]

    def tubemq_methods(self) -> str:
        path = self.specs / "tubemq" / "methods.yaml"
        if not path.is_file():
            return "{}"
        data = yaml.safe_load(path.read_text())
        rows = [f"  [{m['id']}] = {{{lua_str(m['name'])}, {lua_str(m.get('request') or '')}, "
                f"{lua_str(m.get('response') or '')}}}," for m in data.get("methods", [])]
        return "{\n" + "\n".join(rows) + "\n}"

    def proto_lua(self, proto: Proto) -> list[str]:
        p = proto.name
        out = [f"-- ===== {proto.title} ({', '.join(l.spec_path for l in proto.layouts)}) =====",
               f"local P_{p} = Proto({lua_str(p)}, {lua_str(proto.title)})",
               "do", f"local proto = P_{p}", "local F = {}"]
        out += [table for _, table in proto.enums.values()]
        for abbr in proto.order:
            out.append(f"F[{lua_str(abbr)}] = {proto.fields[abbr]}")
        for abbr, ctor in EXTRA_FIELDS.get(p, []):
            out.append(f"F[{lua_str(abbr)}] = {ctor}")
        out.append("local list = {}")
        out.append("for _, f in pairs(F) do list[#list + 1] = f end")
        out.append("table.sort(list, function(a, b) return tostring(a) < tostring(b) end)")
        out.append("proto.fields = list")
        out.append(f"local ef_error = ProtoExpert.new({lua_str(p + '.malformed')}, "
                   f"\"Malformed {proto.label} frame\", expert.group.MALFORMED, expert.severity.ERROR)")
        out.append(f"local ef_warn = ProtoExpert.new({lua_str(p + '.unexpected')}, "
                   f"\"Unexpected {proto.label} value\", expert.group.PROTOCOL, expert.severity.WARN)")
        out.append(f"local ef_note = ProtoExpert.new({lua_str(p + '.note')}, "
                   f"\"{proto.label} note\", expert.group.COMMENTS_GROUP, expert.severity.NOTE)")
        out.append("proto.experts = {ef_error, ef_warn, ef_note}")
        out.append("local " + ", ".join(sorted(proto.functions.values())))
        out += proto.code
        layouts = []
        for layout in proto.layouts:
            sig = lua_str(layout.signature) if layout.signature else "nil"
            layouts.append(f"  {{name = {lua_str(layout.name)}, direction = "
                           f"{lua_str(layout.direction) if layout.direction else 'nil'}, fn = {layout.fn}, "
                           f"header = {layout.header_size}, sized = {'true' if layout.sized else 'false'}, "
                           f"sig = {sig}}},")
        # the heuristic's rule (see header_evidence): a header whose checks alone rule out other traffic
        # claims a segment; a weaker one only with whole frames that pass every check of the spec
        bits = min(layout.evidence for layout in proto.layouts)
        claim = "header" if bits >= CLAIM_BITS else "frames"
        out.append(f"-- heuristic: the header's checks keep {bits:.1f} bits of {proto.layouts[0].header_size * 8} "
                   f"(tools/ksygen/wireshark.py header_evidence): claim = {claim}")
        out.append(f"PROTOS[{lua_str(p)}] = new_proto({{name = {lua_str(p)}, label = {lua_str(proto.label)}, "
                   f"proto = proto, F = F, ef_error = ef_error, ef_warn = ef_warn, ef_note = ef_note, "
                   f"max_frame = {proto.max_frame}, claim = {lua_str(claim)}, "
                   f"ports = {{{', '.join(f'[{x}] = true' for x in proto.ports)}}}, layouts = {{")
        out += layouts
        out.append("}})")
        out.append("end")
        out.append("")
        return out

    def register_lua(self, proto: Proto) -> list[str]:
        return [f"register(PROTOS[{lua_str(proto.name)}])"]


def generate(specs: Path, out: Path, root: Path) -> list[Path]:
    """Write out/wireshark/inlong_proto.lua (and the .proto files it reads); returns what it wrote."""
    gen = Generator(specs, root)
    gen.load()
    target = out / "wireshark"
    target.mkdir(parents=True, exist_ok=True)
    plugin = target / "inlong_proto.lua"
    plugin.write_text(gen.lua())
    written = [plugin]
    for proto_file in sorted((specs / "tubemq").glob("*.proto")):
        dest = target / "tubemq" / proto_file.name
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(proto_file, dest)
        written.append(dest)
    return written


def field_names(specs: Path, root: Path) -> set[str]:
    """Every ProtoField abbreviation the plugin declares for spec fields (tests)."""
    gen = Generator(specs, root)
    gen.load()
    return {abbr for proto in gen.protos.values() for abbr in proto.order}


# Fields the payload hooks add (not spec fields): protocol -> [(abbrev, ProtoField constructor)].
EXTRA_FIELDS = {
    "dataproxy": [
        ("dataproxy.attribute", 'ProtoField.string("dataproxy.attribute", "attribute", '
                                '"One key=value pair of an attr string")'),
        ("dataproxy.attribute.key", 'ProtoField.string("dataproxy.attribute.key", "key", '
                                    '"Attribute key")'),
        ("dataproxy.attribute.value", 'ProtoField.string("dataproxy.attribute.value", "value", '
                                      '"Attribute value")'),
        ("dataproxy.body_compressed", 'ProtoField.bool("dataproxy.body_compressed", "body_compressed", '
                                      'base.NONE, nil, nil, "The body is a Snappy raw block (MsgType flag 0x20 '
                                      'or a non-blank cp attribute); not decompressed here")'),
    ],
    "tubemq": [
        ("tubemq.rpc_stream", 'ProtoField.bytes("tubemq.rpc_stream", "rpc_stream", base.NONE, '
                              '"The blocks\' data joined: varint-delimited protobuf messages")'),
        ("tubemq.rpc.message", 'ProtoField.bytes("tubemq.rpc.message", "message", base.NONE, '
                               '"One varint-delimited protobuf message of the RPC stream")'),
        ("tubemq.rpc.message_type", 'ProtoField.string("tubemq.rpc.message_type", "message_type", '
                                    '"Protobuf message name (RPC.proto, MasterService.proto, BrokerService.proto)")'),
        ("tubemq.rpc.method", 'ProtoField.uint32("tubemq.rpc.method", "method", base.DEC, nil, nil, '
                              '"RequestBody.method / RspResponseBody.method (methods.yaml)")'),
        ("tubemq.rpc.method_name", 'ProtoField.string("tubemq.rpc.method_name", "method_name", '
                                   '"The method\'s name in methods.yaml")'),
    ],
    "eventmesh": [
        ("eventmesh.length_form", 'ProtoField.string("eventmesh.length_form", "length_form", '
                                  '"current (package_length = 13 + header + body, EventMesh 1.9.0+) or legacy '
                                  '(8 + header + body)")'),
    ],
}

HEADER = """\
-- inlong_proto.lua: Wireshark dissectors for {protos}.
-- Generated by tools/ksygen/wireshark.py from the specs under specs/ (make generate). Do not edit.
--
-- Load:    tshark -X lua_script:generated/wireshark/inlong_proto.lua -r capture.pcap
--          or copy this file into the personal Lua plugins folder (inlong-proto wireshark install).
-- Filters: broadcast, dataproxy, tubemq, eventmesh; every field is <protocol>.<path of the field in the
--          spec>, e.g. dataproxy.total_len, tubemq.blocks.block_len, broadcast.data_response.data.
-- uni HTTP: eventmesh_uni (a postdissector over HTTP: each message on a route of EventMesh's uni API gets
--          eventmesh_uni.route, .method, .body_kind, .query.<name>, .status, .answer); EventMeshFrame
--          (eventmesh_frame) has no port: Decode As a TCP or UDP port.
-- Ports:   DataProxy 46801, TubeMQ 8715 and 8123, EventMesh TCP 10000; every protocol is also found by a
--          TCP heuristic (magic bytes, plausible lengths), so other ports work too.
-- TubeMQ:  the blocks' data is joined and its varint-delimited messages are handed to Wireshark's
--          protobuf dissector. For it to know the messages, add the folder holding the .proto files
--          shipped next to this file (tubemq/) to the protobuf search paths, e.g.
--            tshark -o 'uat:protobuf_search_paths:"/path/to/generated/wireshark/tubemq","TRUE"' ...
--          or in Wireshark: Preferences > Protocols > ProtoBuf > Protobuf search paths.
"""

# Wireshark loads the personal plugin folder's copy and then a -X lua_script one into one Lua state, and the
# second would stop at its first Proto() ("there cannot be two protocols with the same description"): the
# first copy loaded stays, a second is skipped, and named on stderr (a dialog in Wireshark) where it differs.
# A copy from before this check leaves no mark in _G, only its protocols.
ONE_COPY = """
local first_copy = _G.inlong_proto_plugin
if first_copy == nil and select(2, pcall(Dissector.get, "@FIRST_PROTO@")) ~= nil then  -- (nil, or an error: none)
  first_copy = {digest = "", source = "an older copy (tshark -G plugins lists it)"}
end
if first_copy ~= nil then
  if first_copy.digest ~= "@DIGEST@" then
    report_failure("inlong_proto.lua: " .. debug.getinfo(1, "S").source:sub(2) .. " is not loaded: another "
      .. "version of the plugin was loaded first, from " .. first_copy.source
      .. " (update that copy with inlong-proto wireshark install, or remove it)")
  end
  return
end
_G.inlong_proto_plugin = {digest = "@DIGEST@", source = debug.getinfo(1, "S").source:sub(2)}
"""

RUNTIME = r"""
local PROTOS = {}
local HOOKS = {}
local NEED_MORE = {}

local function tonum(x)
  if type(x) == "userdata" and x.tonumber then return x:tonumber() end
  if type(x) == "boolean" then return x and 1 or 0 end
  return tonumber(x)
end

local function lenof(x)
  if type(x) == "string" or type(x) == "table" then return #x end
  return x:len()
end

local function hex(s)
  return (s:gsub(".", function(c) return string.format("%02X", string.byte(c)) end))
end

local function add(tree, f, r, value)
  if tree == nil then return nil end
  if value == nil then return tree:add(f, r) end
  return tree:add(f, r, value)
end

local function add_le(tree, f, r)
  if tree == nil then return nil end
  return tree:add_le(f, r)
end

local function fail(ctx, target, abbr, reason)
  ctx.errors = ctx.errors + 1
  if ctx.first == nil then ctx.first = abbr .. ": " .. reason end
  if not ctx.quiet and target ~= nil then target:add_proto_expert_info(ctx.P.ef_error, abbr .. ": " .. reason) end
end

local function warn(ctx, target, abbr, reason)
  if not ctx.quiet and target ~= nil then target:add_proto_expert_info(ctx.P.ef_warn, abbr .. ": " .. reason) end
end

-- Room for n bytes at off before lim (the end of the enclosing field) and in the captured data.
local function need(ctx, target, off, n, lim, abbr)
  if n < 0 then
    fail(ctx, target, abbr, "impossible length " .. n)
    return false
  end
  if off + n > lim then
    fail(ctx, target, abbr, "needs " .. n .. " bytes at offset " .. off .. " but only " .. (lim - off) ..
         " are left in the enclosing field (a length that is impossible, or a frame shorter than its header)")
    return false
  end
  if off + n > ctx.avail then
    if ctx.measure then error(NEED_MORE, 0) end
    fail(ctx, target, abbr, "needs " .. n .. " bytes at offset " .. off .. " but the frame has only " ..
         (ctx.avail - off) .. " (frame shorter than its fields)")
    return false
  end
  return true
end

local function new_ctx(P, pinfo, mode, avail)
  local ctx = {P = P, pinfo = pinfo, quiet = (mode ~= "tree"), probe = (mode == "probe"),
               measure = (mode == "measure"), avail = avail, errors = 0, first = nil, root = nil}
  ctx.q = {P = P, pinfo = pinfo, quiet = true, avail = avail, errors = 0}
  return ctx
end

local function endpoint(addr, port) return tostring(addr) .. "|" .. tostring(port) end

local function conv_key(pinfo)
  local a, b = endpoint(pinfo.src, pinfo.src_port), endpoint(pinfo.dst, pinfo.dst_port)
  if a < b then return a .. "<>" .. b end
  return b .. "<>" .. a
end

-- "request" when the sender is the client: the other side is on a server port, or (heuristic flows)
-- the sender is the side that sent this protocol's first frame of the connection.
local function direction(P, pinfo)
  if P.ports[pinfo.dst_port] and not P.ports[pinfo.src_port] then return "request" end
  if P.ports[pinfo.src_port] and not P.ports[pinfo.dst_port] then return "response" end
  local key = conv_key(pinfo)
  local me = endpoint(pinfo.src, pinfo.src_port)
  if P.clients[key] == nil then P.clients[key] = me end
  if P.clients[key] == me then return "request" end
  return "response"
end

-- The frame's size from its header (sized layouts) or by walking its fields (nil: the header breaks a
-- rule of the spec; 0: more bytes are needed to know).
local function frame_len(P, L, tvb, pinfo, off)
  if L.sized then
    local ctx = new_ctx(P, pinfo, "probe", tvb:len())
    local ok, _, e = pcall(L.fn, tvb, ctx, nil, off, tvb:len(), nil)
    if not ok or ctx.errors > 0 or e == nil then return nil end
    return e - off
  end
  local ctx = new_ctx(P, pinfo, "measure", tvb:len())
  local ok, _, e = pcall(L.fn, tvb, ctx, nil, off, 9007199254740992, nil)
  if not ok then
    if _ == NEED_MORE then return 0 end
    return nil
  end
  if ctx.errors > 0 then return nil end
  return e - off
end

local function starts_with(tvb, off, sig)
  return sig ~= nil and off + #sig <= tvb:len() and tvb:range(off, #sig):raw() == sig
end

-- Which layout a frame at off is read with, and its size (nil when no layout accepts its header).
local function choose(P, tvb, pinfo, off)
  local key = endpoint(pinfo.src, pinfo.src_port) .. ">" .. endpoint(pinfo.dst, pinfo.dst_port)
  local stored = P.chosen[key]
  if stored ~= nil then
    local n = frame_len(P, P.layouts[stored], tvb, pinfo, off)
    if n ~= nil then return stored, n end
  end
  if P.directed then
    -- layouts per direction: the sender's direction first, the other one if only it accepts the header
    local dir = direction(P, pinfo)
    local other_i, other_n
    for i, L in ipairs(P.layouts) do
      local n = frame_len(P, L, tvb, pinfo, off)
      if n ~= nil then
        if L.direction == nil or L.direction == dir then return i, n end
        if other_i == nil then other_i, other_n = i, n end
      end
    end
    return other_i, other_n
  end
  -- layouts that differ only in their length rule (EventMesh current and legacy): the one whose frame
  -- is followed by the next frame's magic, else the one that ends where the data ends; undecided while
  -- a candidate's end is not in the data yet (0: more bytes). The choice holds for the rest of the flow.
  local cands = {}
  for i, L in ipairs(P.layouts) do
    local n = frame_len(P, L, tvb, pinfo, off)
    if n ~= nil then cands[#cands + 1] = {i, n} end
  end
  if #cands == 0 then return nil, nil end
  if #P.layouts == 1 then return cands[1][1], cands[1][2] end
  local pending = false
  for _, c in ipairs(cands) do
    local e = off + c[2]
    if c[2] > 0 and starts_with(tvb, e, P.layouts[c[1]].sig) then
      P.chosen[key] = c[1]
      return c[1], c[2]
    end
    if c[2] == 0 or e + #(P.sig or "") > tvb:len() then pending = true end
  end
  for _, c in ipairs(cands) do
    if c[2] > 0 and off + c[2] == tvb:len() then
      local later = false
      for _, d in ipairs(cands) do if off + d[2] > tvb:len() then later = true end end
      if not later then P.chosen[key] = c[1] end
      return c[1], c[2]
    end
  end
  if pending then return cands[1][1], 0 end
  return cands[1][1], cands[1][2]
end

local function new_proto(P)
  P.chosen, P.clients = {}, {}
  P.directed = false
  P.min_header = nil
  for _, L in ipairs(P.layouts) do
    if L.direction ~= nil then P.directed = true end
    if P.min_header == nil or L.header < P.min_header then P.min_header = L.header end
    P.sig = P.sig or L.sig
  end
  return P
end
"""

PAYLOAD_LUA = r"""
-- ===== payload layers (tools/ksygen/wireshark.py PAYLOAD_LUA) =====
local json_ok, json = pcall(Dissector.get, "json")
if not json_ok then json = nil end
local protobuf_ok, protobuf = pcall(Dissector.get, "protobuf")
if not protobuf_ok then protobuf = nil end

-- EventMesh header and body: JSON text to Wireshark's json dissector.
function HOOKS.json(tvb, ctx, item, r, x, v)
  if r:len() == 0 then return end
  local first = r:range(0, 1):uint()
  if first ~= 0x7B and first ~= 0x5B and first ~= 0x22 then return end
  if json ~= nil then
    local ok, err = pcall(json.call, json, r:tvb(), ctx.pinfo, item)
    if not ok then
      item:add_proto_expert_info(ctx.P.ef_warn, ctx.P.name .. ": the json dissector refused this text (" ..
        tostring(err):gsub("^.-Dissector_call: ", "") .. ")")
    end
  end
  if v.header == x and ctx.summary == nil then ctx.summary = x:match('"cmd"%s*:%s*"([%w_]+)"') end
end

-- DataProxy attributes k=v&k=v: one item per pair with key and value children.
local function attributes(tvb, ctx, item, r)
  local F = ctx.P.F
  local raw = r:raw()
  local base = r:offset()
  local pos = 1
  local pairs_seen = {}
  while pos <= #raw + 1 and #raw > 0 do
    local amp = raw:find("&", pos, true) or (#raw + 1)
    local pair = raw:sub(pos, amp - 1)
    if #pair > 0 then
      local sub = item:add(F["dataproxy.attribute"], tvb:range(base + pos - 1, #pair), pair)
      local eq = pair:find("=", 1, true)
      if eq then
        local key, value = pair:sub(1, eq - 1), pair:sub(eq + 1)
        sub:add(F["dataproxy.attribute.key"], tvb:range(base + pos - 1, eq - 1), key)
        sub:add(F["dataproxy.attribute.value"], tvb:range(base + pos - 1 + eq, #value), value)
        pairs_seen[key] = value
      else
        sub:add_proto_expert_info(ctx.P.ef_warn, "dataproxy.attribute: no '=' in " .. pair)
      end
    end
    pos = amp + 1
  end
  return pairs_seen
end

function HOOKS.dataproxy_attr(tvb, ctx, item, r, x, v)
  local found = attributes(tvb, ctx, item, r)
  if v._parent ~= nil and v._parent._parent == nil then ctx.attrs = found end  -- the frame's own attr
end

function HOOKS.dataproxy_body(tvb, ctx, item, r, x, v)
  ctx.body_item = item
end

local function dataproxy_after(tvb, pinfo, top, v, ctx)
  local body = v.body
  if type(body) ~= "table" then return end
  local F = ctx.P.F
  local attrs = ctx.attrs or {}
  local cp = attrs["cp"]
  local compressed = (v.compressed == true) or (cp ~= nil and cp:match("%S") ~= nil)
  if v.body__case == "text_message" or v.body__case == "bin_message" then
    local it = top:add(F["dataproxy.body_compressed"], compressed)
    it:set_generated()
    if compressed and ctx.body_item ~= nil then
      ctx.body_item:add_proto_expert_info(ctx.P.ef_note,
        "body is a Snappy raw block" .. (cp and (" (cp=" .. cp .. ")") or " (MsgType flag 0x20)") ..
        "; the Lua dissector does not decompress it")
    end
  end
end

-- TubeMQ: join the blocks' data and read the varint-delimited protobuf messages in it.
local TUBEMQ_METHODS = @TUBEMQ_METHODS@

local function varint(tvb, off)
  local value, shift, n = 0, 0, 0
  while off + n < tvb:len() and n < 10 do
    local b = tvb:range(off + n, 1):uint()
    value = value + bit32.band(b, 0x7F) * (2 ^ shift)
    shift = shift + 7
    n = n + 1
    if b < 0x80 then return value, n end
  end
  return nil, n
end

-- Top-level fields of one protobuf message: number -> {wire type, value or {offset, length}}.
local function pb_fields(tvb, off, len)
  local fields, pos, stop = {}, off, off + len
  while pos < stop do
    local tag, n = varint(tvb, pos)
    if tag == nil then return fields end
    pos = pos + n
    local number, wire = math.floor(tag / 8), tag % 8
    if wire == 0 then
      local value, m = varint(tvb, pos)
      if value == nil then return fields end
      fields[number] = value
      pos = pos + m
    elseif wire == 2 then
      local size, m = varint(tvb, pos)
      if size == nil then return fields end
      fields[number] = {pos + m, size}
      pos = pos + m + size
    elseif wire == 1 then pos = pos + 8
    elseif wire == 5 then pos = pos + 4
    else return fields end
  end
  return fields
end

-- The protobuf dissector under pcall; its failure is expert info on the message's item. Dissector.call
-- catches the dissector's exception but leaves what call_dissector changed for the call: pinfo.can_desegment
-- stayed lowered, and TCP's PDU loop then failed after the frame with "Lua Error: (null)", so it is put back.
local function protobuf_call(stream, off, len, name, pinfo, tree, ctx)
  if protobuf == nil or len <= 0 then return end
  local can_desegment = pinfo.can_desegment
  pinfo.private["pb_msg_type"] = "message," .. name
  local ok, err = pcall(protobuf.call, protobuf, stream:range(off, len):tvb(), pinfo, tree)
  pinfo.private["pb_msg_type"] = nil
  pinfo.can_desegment = can_desegment
  if not ok then
    tree:add_proto_expert_info(ctx.P.ef_error, "tubemq.rpc.message: the protobuf dissector refused this " .. name ..
      " (" .. tostring(err):gsub("^.-Dissector_call: ", "") .. ")")
  end
end

local function tubemq_after(tvb, pinfo, top, v, ctx)
  local F = ctx.P.F
  local blocks = v.blocks
  if type(blocks) ~= "table" or #blocks == 0 then return end
  local joined = ByteArray.new()
  for _, b in ipairs(blocks) do
    if b.data ~= nil and b.data:len() > 0 then joined:append(b.data:bytes()) end
  end
  if joined:len() == 0 then return end
  local stream = joined:tvb("TubeMQ RPC stream")
  local sitem = top:add(F["tubemq.rpc_stream"], stream:range())
  local pos, index, names = 0, 0, nil
  while pos < stream:len() do
    local size, n = varint(stream, pos)
    if size == nil or pos + n + size > stream:len() then
      sitem:add_proto_expert_info(ctx.P.ef_error, "tubemq.rpc_stream: message " .. index ..
        " has a length that runs past the joined data")
      return
    end
    local off = pos + n
    local name
    local fields = pb_fields(stream, off, size)
    if index == 0 then
      name = "RpcConnHeader"
      if fields[1] == 1 then names = "response" else names = "request" end
      ctx.summary = names
    elseif names == "request" then
      name = ({"RequestHeader", "RequestBody"})[index] or "?"
    else
      if index == 1 then
        name = "ResponseHeader"
        ctx.tubemq_status = fields[1] or 0
      elseif index == 2 then
        if (ctx.tubemq_status or 0) == 0 then name = "RspResponseBody" else name = "RspExceptionBody" end
      else name = "?" end
    end
    local m = sitem:add(F["tubemq.rpc.message"], stream:range(off, size))
    m:append_text(" (" .. name .. ")")
    m:add(F["tubemq.rpc.message_type"], stream:range(off, size), name):set_generated()
    if name ~= "?" then protobuf_call(stream, off, size, name, pinfo, m, ctx) end
    if name == "RequestBody" or name == "RspResponseBody" then
      local method = fields[1]
      local payload = fields[name == "RequestBody" and 3 or 2]
      if method ~= nil then
        m:add(F["tubemq.rpc.method"], stream:range(off, size), method):set_generated()
        local row = TUBEMQ_METHODS[method]
        if row ~= nil then
          m:add(F["tubemq.rpc.method_name"], stream:range(off, size), row[1]):set_generated()
          ctx.summary = (ctx.summary or "") .. " " .. row[1]
          local inner = row[name == "RequestBody" and 2 or 3]
          if payload ~= nil and type(payload) == "table" and inner ~= "" then
            local p = m:add(F["tubemq.rpc.message"], stream:range(payload[1], payload[2]))
            p:append_text(" (" .. inner .. ")")
            p:add(F["tubemq.rpc.message_type"], stream:range(payload[1], payload[2]), inner):set_generated()
            protobuf_call(stream, payload[1], payload[2], inner, pinfo, p, ctx)
          end
        end
      end
    end
    pos = off + size
    index = index + 1
  end
end

local AFTER = {dataproxy = dataproxy_after, tubemq = tubemq_after}

-- One frame (tvb holds exactly it), then the payload layer.
local function dissect_frame(P, tvb, pinfo, tree)
  local i = choose(P, tvb, pinfo, 0) or 1
  local L = P.layouts[i]
  local top = tree:add(P.proto, tvb:range())
  local ctx = new_ctx(P, pinfo, "tree", tvb:len())
  P.current = ctx
  local ok, v, e, good = pcall(L.fn, tvb, ctx, top, 0, tvb:len(), nil)
  P.current = nil
  if not ok then
    top:add_proto_expert_info(P.ef_error, P.name .. ": dissector error: " .. tostring(v))
    v = nil
  elseif good and e < tvb:len() then
    fail(ctx, top, P.name, (tvb:len() - e) .. " bytes after the frame's last field")
  end
  if P.name == "eventmesh" then
    top:add(P.F["eventmesh.length_form"], tvb:range(), L.name == "legacy" and "legacy" or "current"):set_generated()
  end
  if v ~= nil and AFTER[P.name] ~= nil then
    local ok2, err = pcall(AFTER[P.name], tvb, pinfo, top, v, ctx)
    if not ok2 then top:add_proto_expert_info(P.ef_warn, P.name .. ": payload error: " .. tostring(err)) end
  end
  pinfo.cols.protocol = P.label
  local what = L.name
  if what == "frame" then what = "" end
  if v ~= nil and v.body__case ~= nil then what = what .. " " .. v.body__case end
  if ctx.summary ~= nil then what = what .. " " .. ctx.summary end
  top:append_text(" (" .. what:gsub("^ ", "") .. ")")
  what = what:gsub("^ ", "")
  local text = P.label .. " " .. what
  if ctx.errors > 0 then text = text .. " [Malformed: " .. ctx.first .. "]" end
  -- the info column lists every frame of the packet (set, not appended: what the json and protobuf
  -- dissectors wrote there is replaced)
  if P.info_frame == pinfo.number then
    P.info_text = P.info_text .. ", " .. text
  else
    P.info_text = text
    P.info_frame = pinfo.number
  end
  pinfo.cols.info = P.info_text
  return tvb:len()
end

-- Whether the frames of a segment agree with the spec, from its start: every whole frame dissects without
-- error (every length field, enum, range, magic and end check of the spec), and a frame the segment ends
-- inside has a header the spec accepts. The number of whole frames, or nil when one breaks a rule.
local function segment_frames(P, tvb, pinfo)
  local off, whole = 0, 0
  while off < tvb:len() do
    if tvb:len() - off < P.min_header then return whole end
    local i, n = choose(P, tvb, pinfo, off)
    if i == nil then return nil end
    if n == 0 or off + n > tvb:len() then return whole end
    local ctx = new_ctx(P, pinfo, "dry", off + n)
    local ok, _, e = pcall(P.layouts[i].fn, tvb, ctx, nil, off, off + n, nil)
    if not ok or ctx.errors > 0 or e ~= off + n then return nil end
    whole = whole + 1
    off = off + n
  end
  return whole
end

local function register(P)
  local function get_len(tvb, pinfo, offset)
    local ok, _, n = pcall(choose, P, tvb, pinfo, offset)
    if not ok or n == nil then return tvb:len() - offset end  -- a header the spec refuses: the rest is one bad frame
    return n
  end
  -- a Lua error in a frame (a payload layer, a sub-dissector) is expert info on it, never a Lua error box
  local function dissect_one(tvb, pinfo, tree)
    local ok, err = pcall(dissect_frame, P, tvb, pinfo, tree)
    if ok then return err end
    local item = tree:add(P.proto, tvb:range())
    item:add_proto_expert_info(P.ef_error, P.name .. ": dissector error: " .. tostring(err))
    return tvb:len()
  end
  -- a buffer of whole frames (a UDP payload, an HTTP body): each frame in turn, the last one whatever is left
  local function frames(tvb, pinfo, tree)
    local off = 0
    while off < tvb:len() do
      local n = get_len(tvb, pinfo, off)
      if n == nil or n <= 0 or off + n > tvb:len() then n = tvb:len() - off end
      dissect_one(tvb:range(off, n):tvb(), pinfo, tree)
      off = off + n
    end
    return tvb:len()
  end
  P.frames = frames
  local function dissector(tvb, pinfo, tree)
    if pinfo.port_type ~= 2 then return frames(tvb, pinfo, tree) end  -- 2: PT_TCP; else a datagram
    return dissect_tcp_pdus(tvb, tree, P.min_header, get_len, dissect_one, true)
  end
  P.proto.dissector = dissector
  local tcp = DissectorTable.get("tcp.port")
  for port, _ in pairs(P.ports) do tcp:add(port, P.proto) end
  -- Decode As: every protocol on any TCP port; one without a port of its own (EventMeshFrame, which travels
  -- inside other protocols' payloads) on UDP too, each datagram read as whole frames
  tcp:add_for_decode_as(P.proto)
  if next(P.ports) == nil then DissectorTable.get("udp.port"):add_for_decode_as(P.proto) end
  -- Heuristic (P.claim, from the spec's header checks, see header_evidence in tools/ksygen/wireshark.py):
  -- "header" (a magic, or fields the spec pins down: TubeMQ, EventMesh, Broadcast) claims a segment that
  -- starts with a header the spec accepts (and the magic, where there is one) and whose first frame, when
  -- it is all there, dissects without error; "frames" (DataProxy, whose TotalLen and MsgType alone match
  -- too much) claims only a segment holding at least one whole frame, where every whole frame passes every
  -- check of the spec (lengths that agree, a known MsgType, the closing 0xEE01) and a frame cut at the end
  -- has a header the spec accepts. HTTP, HTTP/2 and EventMesh streams never get that far; a first frame
  -- cut across segments is found from the next segment that starts a frame.
  local function claims(tvb, pinfo)
    if tvb:len() < P.min_header then
      -- a first segment shorter than the header: claim it (and ask TCP for more) only when it is the
      -- start of this protocol's magic
      if P.claim ~= "header" or P.sig == nil or tvb:len() < math.min(4, #P.sig) then return false end
      local k = math.min(tvb:len(), #P.sig)
      return tvb:range(0, k):raw() == P.sig:sub(1, k)
    end
    if P.sig ~= nil and not starts_with(tvb, 0, P.sig) then return false end
    if P.claim == "header" then
      local i, n = choose(P, tvb, pinfo, 0)
      if i == nil then return false end
      if n > 0 and n <= tvb:len() then
        local ctx = new_ctx(P, pinfo, "dry", n)
        local ok = pcall(P.layouts[i].fn, tvb, ctx, nil, 0, n, nil)
        if not ok or ctx.errors > 0 then return false end
      end
      return true
    end
    local whole = segment_frames(P, tvb, pinfo)
    return whole ~= nil and whole > 0
  end
  local function heuristic(tvb, pinfo, tree)
    local clients, chosen = P.clients, P.chosen
    P.clients, P.chosen = {}, {}  -- probing a segment of another protocol leaves nothing behind
    local ok, yes = pcall(claims, tvb, pinfo)
    P.clients, P.chosen = clients, chosen
    if not ok or not yes then return false end
    pinfo.conversation = P.proto
    -- the Lua function itself: P.proto.dissector reads back as a Dissector handle, and calling that
    -- would lower can_desegment once more and lose TCP reassembly
    dissector(tvb, pinfo, tree)
    return true
  end
  P.proto:register_heuristic("tcp", heuristic)
end
"""

UNI_LUA = r"""
-- ===== Apache EventMesh uni HTTP API (specs/eventmesh/uni_http.yaml; tools/ksygen/wireshark.py UNI_LUA) =====
-- A postdissector over Wireshark's HTTP: a request whose path is on a route (the longest prefix, as the JDK
-- HttpServer's contexts match; the query takes no part) gets an item naming the route, the method it takes,
-- its body kind and its query parameters (URL-decoded, the first pair of a name wins), with expert info where
-- the runtime refuses it (405 another method, 400 a required parameter missing); an answer gets the route of
-- the request it answers and what the route table says that status carries. A /events/lite/publish-bytes
-- body is read as EventMeshFrames; CloudEvents JSON bodies go to the json dissector. The legacy /eventmesh/*
-- bridge is left to the legacy API's reading, as the decoder does.
local P_eventmesh_uni = Proto("eventmesh_uni", "Apache EventMesh uni HTTP API")
do
local proto = P_eventmesh_uni
local ROUTES = {  -- longest prefix first
@ROUTES@
}
local JDK_REJECTS = {  -- the JDK HttpServer's own text/html answers (jdk-server), on any route: "STATUS MESSAGE"
@JDK_REJECTS@
}
local F = {
  route = ProtoField.string("eventmesh_uni.route", "route", "The route's name (specs/eventmesh/uni_http.yaml)"),
  path = ProtoField.string("eventmesh_uni.path", "path", "The route's path: a prefix, {id} a path parameter"),
  method = ProtoField.string("eventmesh_uni.method", "method", "The method the route takes (another: 405)"),
  body = ProtoField.string("eventmesh_uni.body_kind", "body_kind", "What the route's request body is"),
  path_id = ProtoField.string("eventmesh_uni.path_id", "path_id", "The {id} path parameter"),
  status = ProtoField.uint16("eventmesh_uni.status", "status", base.DEC, nil, nil, "The answer's HTTP status"),
  answer = ProtoField.string("eventmesh_uni.answer", "answer", "What the route answers with this status"),
@QUERY_FIELDS@
}
local list = {}
for _, f in pairs(F) do list[#list + 1] = f end
table.sort(list, function(a, b) return tostring(a) < tostring(b) end)
proto.fields = list
local ef_refused = ProtoExpert.new("eventmesh_uni.refused", "The uni runtime refuses this request",
  expert.group.PROTOCOL, expert.severity.WARN)
local ef_unlisted = ProtoExpert.new("eventmesh_uni.unlisted", "A status the route table does not list",
  expert.group.PROTOCOL, expert.severity.WARN)
proto.experts = {ef_refused, ef_unlisted}

local f_method = Field.new("http.request.method")
local f_uri = Field.new("http.request.uri")
local f_code = Field.new("http.response.code")
local f_for = Field.new("http.response_for.uri")
local f_body = Field.new("http.file_data")

for _, media in ipairs({"application/cloudevents+json", "application/cloudevents-batch+json"}) do
  if json ~= nil then DissectorTable.get("media_type"):add(media, json) end
end

local function route_of(path)
  for _, r in ipairs(ROUTES) do
    if path:sub(1, #r.prefix) == r.prefix then return r end
  end
  return nil
end

local function query_params(target)
  local out = {}
  local query = target:match("%?(.*)$")
  if query == nil then return out end
  for pair in (query .. "&"):gmatch("([^&]*)&") do
    local name, value = pair:match("^([^=]+)=(.*)$")
    if name ~= nil and out[name] == nil then
      value = value:gsub("%+", " ")
      out[name] = value:gsub("%%(%x%x)", function(h) return string.char(tonumber(h, 16)) end)
    end
  end
  return out
end

-- the route's item on an HTTP message: its target (path and query) names the route; a request's refusals
local function route_item(tree, range, target, request)
  local path = target:match("^[^?]*")
  local r = route_of(path)
  if r == nil then return nil, nil end
  local item = tree:add(proto, range)
  item:append_text(", " .. r.name .. " (" .. r.method .. " " .. r.path .. ")")
  item:add(F.route, range, r.name)
  item:add(F.path, range, r.path)
  item:add(F.method, range, r.method)
  item:add(F.body, range, r.body)
  if r.id then
    local id = path:sub(#r.prefix + 1, #r.prefix + 1) == "/" and path:sub(#r.prefix + 2) or ""
    item:add(F.path_id, range, id)
    if id == "" and request then
      item:add_proto_expert_info(ef_refused, "no id after the route's path: the runtime answers 400")
    end
  end
  local params = query_params(target)
  for _, q in ipairs(r.query) do
    local value = params[q[1]]
    if value ~= nil then
      item:add(F["query." .. q[1]], range, value)
    elseif q[2] and request then
      item:add_proto_expert_info(ef_refused, "query parameter " .. q[1] .. " is missing: the runtime answers 400")
    end
  end
  return r, item
end

function proto.dissector(tvb, pinfo, tree)
  local methods, uris, bodies = {f_method()}, {f_uri()}, {f_body()}
  for i, uri in ipairs(uris) do
    local r, item = route_item(tree, uri.range, tostring(uri.value), true)
    if r ~= nil then
      local method = methods[i] ~= nil and tostring(methods[i].value) or "?"
      if method ~= r.method then
        item:add_proto_expert_info(ef_refused, r.path .. " takes " .. r.method .. ", not " .. method ..
          ": the runtime answers 405")
      end
      if r.body == "eventmesh-frame" and #uris == 1 and bodies[1] ~= nil and PROTOS.eventmesh_frame ~= nil then
        PROTOS.eventmesh_frame.frames(bodies[1].range:tvb(), pinfo, item)
      end
      pinfo.cols.info:append(" [" .. r.name .. "]")
    end
  end
  local codes, answered = {f_code()}, {f_for()}
  for i, code in ipairs(codes) do
    if answered[i] ~= nil then
      local target = tostring(answered[i].value):gsub("^%a[%w+.-]*://[^/]*", "")
      local r, item = route_item(tree, code.range, target, false)
      if r ~= nil then
        item:add(F.status, code.range, code.value)
        local shape = r.answers[code.value]
        local body = #codes == 1 and bodies[1] ~= nil and bodies[1].range:string() or ""
        local status, message = body:match("^<h1>(%d%d%d) [^<]*</h1>(.*)$")
        if status == tostring(code.value) and JDK_REJECTS[status .. " " .. message] then
          shape = "jdk-reject: " .. message  -- the server's own answer, whatever the route lists
        end
        if shape ~= nil then
          item:add(F.answer, code.range, shape)
        else
          item:add_proto_expert_info(ef_unlisted, r.name .. " does not answer " .. code.value .. " (route table)")
        end
        pinfo.cols.info:append(" [" .. r.name .. " " .. code.value .. "]")
      end
    end
  end
end
register_postdissector(proto)

-- Server-Sent Events: HTTP hands a text/event-stream body to the media_type table. Wireshark 4.0 has no streaming
-- mode for HTTP/1.1 (streaming_content_type is HTTP/2's), so with http.desegment_body (the default) the body comes
-- once, dechunked, in the packet with the stream's last chunk (or at FIN for a body read until close); a stream
-- cut before its end is never handed over. Each event (ended by a blank line; CRLF, LF or CR) is a subtree with
-- event, id, data (data lines joined by LF) and retry; where the answered route's stream carries a data kind
-- (the route table's sse-deliveries / sse-stream-chunks), the data goes to the json dissector.
local P_sse = Proto("eventmesh_sse", "Server-Sent Events (EventMesh uni)")
local S = {
  event = ProtoField.string("eventmesh_sse.event", "event", "The event's type (its event field)"),
  id = ProtoField.string("eventmesh_sse.id", "id", "The event's id field"),
  data = ProtoField.string("eventmesh_sse.data", "data", "The event's data lines, joined by LF"),
  retry = ProtoField.uint32("eventmesh_sse.retry", "retry", base.DEC, nil, nil, "Reconnection time (ms)"),
  data_kind = ProtoField.string("eventmesh_sse.data_kind", "data_kind",
    "What the route's stream carries in data (sse.data-kinds)"),
}
P_sse.fields = {S.event, S.id, S.data, S.retry, S.data_kind}

function P_sse.dissector(tvb, pinfo, tree)
  local answered = f_for()
  local r = answered ~= nil and route_of(tostring(answered.value):gsub("^%a[%w+.-]*://[^/]*", ""):match("^[^?]*"))
  local kind = r and r.sse or nil
  local root = tree:add(P_sse, tvb())
  local n, len, pos, start = 0, tvb:len(), 0, 0
  local fields, data, data_ranges = {}, {}, {}
  while pos < len do
    local eol, skip = nil, 1
    for i = pos, len - 1 do
      local b = tvb(i, 1):uint()
      if b == 10 or b == 13 then
        eol = i
        if b == 13 and i + 1 < len and tvb(i + 1, 1):uint() == 10 then skip = 2 end
        break
      end
    end
    if eol == nil then break end  -- an unfinished line: never dispatched
    if eol == pos then  -- a blank line dispatches the event
      if #data > 0 or next(fields) ~= nil then
        n = n + 1
        local item = root:add(P_sse, tvb(start, eol + skip - start))
        item:set_text("Event " .. n .. (kind and (": " .. kind) or ""))
        for _, name in ipairs({"event", "id"}) do
          if fields[name] then item:add(S[name], fields[name][1], fields[name][2]) end
        end
        if fields.retry then item:add(S.retry, fields.retry[1], fields.retry[2]) end
        if #data > 0 then
          local text = table.concat(data, "\n")
          local data_item = item:add(S.data, data_ranges[1], text)
          if kind ~= nil then
            item:add(S.data_kind, data_ranges[1], kind)
            if json ~= nil then json:call(ByteArray.new(text, true):tvb("SSE data"), pinfo, data_item) end
          end
        end
      end
      fields, data, data_ranges, start = {}, {}, {}, eol + skip
    else
      local line = tvb(pos, eol - pos):string(ENC_UTF_8)
      if line:sub(1, 1) ~= ":" then
        local name, value = line:match("^([^:]*):? ?(.*)$")
        local colon = line:find(":", 1, true)
        local at = colon and pos + colon + ((line:sub(colon + 1, colon + 1) == " ") and 1 or 0) or eol
        local range = at < eol and tvb(at, eol - at) or tvb(pos, eol - pos)
        if not colon then name, value = line, "" end
        if name == "data" then
          data[#data + 1] = value
          data_ranges[#data_ranges + 1] = range
        elseif name == "event" or name == "id" then
          fields[name] = {range, value}
        elseif name == "retry" and value:match("^%d+$") then
          fields.retry = {range, tonumber(value)}
        end
      end
    end
    pos = eol + skip
  end
  root:append_text(", " .. n .. " events")
  pinfo.cols.info:append(" [SSE: " .. n .. " events]")
  return len
end
DissectorTable.get("media_type"):add("text/event-stream", P_sse)
end
"""
