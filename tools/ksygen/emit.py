"""Emits one Python module per .ksy: dataclasses, IntEnums, decode/encode, frame probe, field metadata.

Fixed-size types represented as a scalar (python-type value or datetime) are inlined into their parent,
and runs of fixed-size fields are read with one precompiled struct.Struct, which is where the speed comes
from. Length and discriminator fields that other fields' sizes or switches depend on are derived on encode.
"""
from __future__ import annotations

import keyword

from . import starts
from .expr import GenerationError, Node, Scope, invert_linear, names_used, to_python
from .model import ARROW_INT, INT_RANGE, Attr, EnumSpec, SpecFile, TypeSpec, inherits_endian, specialize

RUNTIME = "inlong_proto.core.errors"
# Names generated functions use themselves (builtins, parameters, helpers): fields get a suffix instead.
_RESERVED = {"len", "bytes", "type", "isinstance", "str", "int", "tuple", "range", "list", "enumerate", "repr",
             "pos", "buf", "end", "path", "start", "obj", "value", "datetime", "struct", "outer", "exc", "item",
             "index", "body_size", "_tuple_new", "truncated"}
PACKAGE = "inlong_proto.generated.codec"
_DATETIME_PARTS = ("year", "month", "day", "hour", "minute", "second", "millisecond")


class E:
    """A runtime value inside an error reason (repr by default, str with as_str)."""

    def __init__(self, src: str, as_str: bool = False):
        self.src, self.as_str = src, as_str


def reason(*parts) -> str:
    """Python source building an error message from static text and runtime values, safely quoted."""
    pieces = []
    for part in parts:
        if isinstance(part, E):
            pieces.append(f"{'str' if part.as_str else 'repr'}({part.src})")
        elif part:
            pieces.append(repr(part))
    return " + ".join(pieces) or "''"


def _short(doc: str) -> str:
    return " ".join(doc.strip().split("\n")[0].split())


class Module:
    """Collects module-level constants (struct formats, layouts) shared by all functions."""

    def __init__(self, spec: SpecFile):
        self.spec = spec
        self.structs: dict[str, str] = {}
        self.consts: list[str] = []
        self.layouts = 0
        self.enum_maps: dict[str, str] = {}

    def struct(self, fmt: str) -> str:
        if fmt not in self.structs:
            self.structs[fmt] = f"_S{len(self.structs)}"
        return self.structs[fmt]

    def layout(self, fields: list[tuple[int, str, int]]) -> str:
        name = f"_RUN{self.layouts}"
        self.layouts += 1
        self.consts.append(f"{name} = {tuple(fields)!r}")
        return name

    def range_set(self, low: int, high: int) -> str:
        """A small range as a frozenset: one hashed lookup is cheaper than a chained comparison."""
        name = f"_RANGE_{low}_{high}".replace("-", "M")
        if name not in self.enum_maps:
            self.enum_maps[name] = f"{name} = frozenset(range({low}, {high + 1}))"
        return name

    def enum_map(self, enum: EnumSpec) -> str:
        """Module constant value -> member, so decode looks enums up in one dict access."""
        name = f"_{enum.class_name.upper()}_BY_VALUE"
        if name not in self.enum_maps:
            self.enum_maps[name] = f"{name} = {self.enum_ref(enum)}._value2member_map_"
        return name

    def enum_ref(self, enum: EnumSpec) -> str:
        if enum.owner.spec is self.spec:
            return enum.class_name
        return f"{_import_alias(enum.owner.spec)}.{enum.class_name}"

    def type_ref(self, type_spec: TypeSpec, prefix: str) -> str:
        if prefix and inherits_endian(type_spec) and type_spec.variant is None:
            raise GenerationError(f"{type_spec.where}: used where no byte order is known (it has no "
                                  f"meta/endian switch of its own and its user has none)")
        name = f"{prefix}{type_spec.fn_name}" if prefix else type_spec.class_name
        if type_spec.spec is self.spec:
            return name
        return f"{_import_alias(type_spec.spec)}.{name}"


def _import_alias(spec: SpecFile) -> str:
    return "_" + spec.module.replace(".", "_")


class Code:
    def __init__(self):
        self.lines: list[str] = []
        self.depth = 1

    def add(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)


class LocalScope:
    """Fields and instances of a type (possibly inlined under a prefix) as Python locals."""

    def __init__(self, gen: "FunctionEmitter", type_spec: TypeSpec, prefix: str, path: str):
        self.gen, self.type_spec, self.prefix, self.path = gen, type_spec, prefix, path
        self.current: str | LocalScope | None = None
        self.children: dict[str, LocalScope] = {}

    def var(self, name: str) -> str:
        if not self.prefix and (name in _RESERVED or keyword.iskeyword(name)):
            return f"{name}_"  # a field called `len` or `pos` must not shadow what generated code uses
        return f"{self.prefix}{name}"

    def attr(self, name: str) -> Attr | None:
        return next((a for a in self.type_spec.seq if a.id == name), None)

    def child(self, attr: Attr) -> "LocalScope":
        if attr.id not in self.children:
            self.children[attr.id] = LocalScope(self.gen, attr.user_type, f"{self.var(attr.id)}__",
                                                f"{self.path}{attr.id}.")
        return self.children[attr.id]

    def scope(self) -> Scope:
        return Scope(self.resolve, lambda enum, member: self.gen.enum_member(self.type_spec, enum, member),
                     lambda name: self._sizeof(name))

    def _sizeof(self, name: str) -> int:
        size = self.type_spec.find_type(name).fixed_size
        if size is None:
            raise GenerationError(f"{self.type_spec.where}: sizeof<{name}> is not a fixed size")
        return size

    def resolve(self, chain: tuple[str, ...]) -> str:
        head, rest = chain[0], chain[1:]
        if head == "_":
            if isinstance(self.current, LocalScope):
                return self._into(self.current, rest)
            if self.current is None:
                raise GenerationError(f"{self.type_spec.where}: '_' used outside a field check")
            return self._attrs(self.current, rest)
        if head == "_io" and rest == ("size",):
            if self.prefix:
                raise GenerationError(f"{self.type_spec.where}: _io.size inside an inlined type")
            return "(end - start)"
        if head == "_io" and rest == ("eof",):
            return f"(pos >= {getattr(self.gen, 'end', 'end')})"
        attr = self.attr(head)
        if attr is not None:
            if attr.kind == "user" and attr.user_type.python_type != "struct":
                return self._into(self.child(attr), rest)
            return self._attrs(self.var(head), rest)
        if head in self.type_spec.instances:
            return self._attrs(self.gen.instance(self, head), rest)
        raise GenerationError(f"{self.type_spec.where}: unknown name {'.'.join(chain)!r}")

    def _into(self, child: "LocalScope", rest: tuple[str, ...]) -> str:
        if not rest:
            if child.type_spec.python_type == "value" and self.gen.error == "decode":
                return child.resolve(("value",))
            return child.prefix[:-2]
        return child.resolve(rest)

    @staticmethod
    def _attrs(base: str, rest: tuple[str, ...]) -> str:
        return ".".join((base,) + rest)


class FunctionEmitter:
    """Shared machinery of the decode, encode and probe functions of one type."""

    def __init__(self, module: Module, error: str):
        self.module = module
        self.code = Code()
        self.error = error  # "decode" or "encode"
        self.computed: set[str] = set()

    def enum_member(self, type_spec: TypeSpec, enum_path: str, member: str) -> str:
        enum = type_spec.find_enum(enum_path)
        for value, (member_id, _) in enum.members.items():
            if member_id == member:
                return repr(value)
        raise GenerationError(f"{type_spec.where}: enum {enum_path} has no member {member!r}")

    def expr(self, scope: LocalScope, node: Node) -> str:
        return to_python(node, scope.scope())

    def endian_arg(self, scope: LocalScope, target: TypeSpec, attr: Attr, offset: str) -> str:
        """`, le=...` for a call of a type with its own meta/endian switch: the switch is evaluated here,
        in its user's scope (`_parent.x` is the user's x; `_root.x` when the user is the root)."""
        if target.endian_switch is None:
            return ""
        on, cases = target.endian_switch

        def resolve(chain: tuple[str, ...]) -> str:
            if chain[0] == "_parent" or chain[0] == "_root" and scope.type_spec.parent is None and not scope.prefix:
                return scope.resolve(chain[1:])
            raise GenerationError(f"{target.where}: meta/endian switch-on may read only _parent or _root fields")

        src = to_python(on, Scope(resolve, lambda enum, member: self.enum_member(target, enum, member),
                                  scope._sizeof))
        local = f"{scope.var(attr.id)}__le"
        self.code.add(f"{local} = {src}")
        keyword = "if"
        for order in ("le", "be"):
            keys = ", ".join(to_python(k, Scope(resolve, lambda enum, member: self.enum_member(target, enum, member),
                                                scope._sizeof)) for k, o in cases if o == order)
            if keys:
                self.code.add(f"{keyword} {local} in ({keys},):")
                self.code.add(f"    {local} = {order == 'le'}")
                keyword = "elif"
        self.code.add("else:")
        self.fail(offset, scope.path + attr.id, reason(f"byte order of {target.name} undecided: no meta/endian case for ", E(local)))
        return f", le={local}"

    def instance(self, scope: LocalScope, name: str) -> str:
        """A type's `value` instance is kept in a local (its representation); any other instance is
        inlined where used, so short-circuiting checks never compute what they do not need."""
        if name != "value":
            return f"({self.expr(scope, scope.type_spec.instances[name].value)})"
        var = scope.var(name)
        if var not in self.computed:
            inst = scope.type_spec.instances[name]
            src = self.expr(scope, inst.value)
            self.code.add(f"{var} = {src}")
            self.computed.add(var)
        return var

    def fail(self, offset: str, path: str, reason: str) -> None:
        if self.error == "decode":
            self.code.add(f"    raise ValidationError({offset}, path + {path!r}, {reason})")
        else:
            self.code.add(f"    raise EncodeError(path + {path!r}, {reason})")

    def checks(self, scope: LocalScope, attr: Attr, value: str, offset: str, phase: str = "all",
               exclude: set[str] = frozenset()) -> None:
        """The spec's `valid` (and, on encode, the wire type's range) for one field.

        phase "pre" runs only an `expr` that does not read the field itself, so decode can refuse a
        field before reading it (a body whose declared size cannot be right); "post" runs the rest.
        """
        path = scope.path + attr.id
        doc = _short(attr.doc)
        valid = attr.valid or {}
        expr_first = "expr" in valid and not any(chain[0] in ("_", "_io")
                                                 for chain in names_used(_node(valid["expr"])))
        if phase == "pre":
            valid = {"expr": valid["expr"]} if expr_first else {}
        elif phase == "post" and expr_first:
            valid = {k: v for k, v in valid.items() if k != "expr"}
        valid = {k: v for k, v in valid.items() if k not in exclude}
        if attr.enum is not None and valid.get("in-enum"):
            self.code.add(f"if {value} not in {self.module.enum_map(attr.enum)}:")
            self.fail(offset, path, reason("value ", E(value), f" is not a known {attr.enum.name} ({doc})"))
        if "eq" in valid:
            expected = self.expr(scope, _node(valid["eq"]))
            self.code.add(f"if {value} != {expected}:")
            self.fail(offset, path, reason("value ", E(value), " must equal ", E(expected), f" ({doc})"))
        if "any-of" in valid:
            options = ", ".join(self.expr(scope, _node(v)) for v in valid["any-of"])
            self.code.add(f"if {value} not in ({options},):")
            self.fail(offset, path, reason("value ", E(value), f" is not one of {options} ({doc})"))
        low = self.expr(scope, _node(valid["min"])) if "min" in valid else None
        high = self.expr(scope, _node(valid["max"])) if "max" in valid else None
        if self.error == "encode" and attr.kind == "int" and phase == "all":
            type_low, type_high = INT_RANGE[attr.fmt[1]]
            low = low if low is not None else repr(type_low)
            high = high if high is not None else repr(type_high)
        if low is not None and high is not None:
            self.code.add(f"if not {low} <= {value} <= {high}:")
            self.fail(offset, path, reason("value ", E(value), f" is outside [{low}, {high}] ({doc})"))
        elif low is not None:
            self.code.add(f"if {value} < {low}:")
            self.fail(offset, path, reason("value ", E(value), f" is below the minimum {low} ({doc})"))
        elif high is not None:
            self.code.add(f"if {value} > {high}:")
            self.fail(offset, path, reason("value ", E(value), f" is above the maximum {high} ({doc})"))
        if "expr" in valid:
            text = str(valid["expr"]).strip()
            scope.current = scope.child(attr) if attr.kind == "user" and attr.user_type.python_type != "struct" \
                else value
            src = self.expr(scope, _node(text))
            scope.current = None
            self.code.add(f"if not {src}:")
            self.fail(offset, path, reason(f"fails the check {text} ({doc})"))


def _node(value) -> Node:
    from .expr import parse
    return parse(value)


class DecodeEmitter(FunctionEmitter):
    def __init__(self, module: Module, need_more: str | None = None):
        super().__init__(module, "decode")
        self.need_more = need_more  # what a short run does in the frame probe ("return None")
        self.end = "end"  # the local bounding reads (an inlined case reads up to its own end)
        self.bit_group: list = []  # open bN fields waiting to fill whole bytes
        self.bit_width = 0
        self.extracts: list[str] = []  # statements splitting bit groups, run right after the unpack
        self.run: list[tuple[str, str, int, str]] = []  # (fmt, var, size, path)
        self.pending: list = []  # deferred checks of the current run
        self.claims: dict[str, Attr] = {}  # sized field id -> the length field whose value sizes it
        self.chained: dict[str, str] = {}  # counted list id -> its item's size function (chains.walk)

    def claim_lengths(self, type_spec: TypeSpec) -> None:
        """Note which field sizes which: a sized field that overruns then names its length field, that
        field's position and its value (errors.Claim), so the error points at the cause."""
        fields = {attr.id: attr for attr in type_spec.seq}
        for attr in type_spec.seq:
            if attr.size_expr is None or attr.size_expr.kind == "num" or attr.repeat:
                continue
            used = names_used(attr.size_expr)
            if len(used) != 1:
                continue
            chain = next(iter(used))
            length = fields.get(chain[0]) if len(chain) == 1 else None
            if length is not None and length.kind in ("int", "bits") and not length.repeat:
                self.claims[attr.id] = length

    # --- flattening -------------------------------------------------------------------------
    def seq(self, scope: LocalScope) -> None:
        for attr in scope.type_spec.seq:
            self.field(scope, attr)
        if self.bit_group and self.bit_width % 8 == 0:
            self.close_bits()  # raises, as above
        if self.bit_group:
            raise GenerationError(f"{scope.type_spec.where}: bit fields must fill whole bytes "
                                  f"({self.bit_width} bits left open)")

    def field(self, scope: LocalScope, attr: Attr) -> None:
        var = scope.var(attr.id)
        if attr.kind == "bits":
            self.bit_group.append((scope, attr, var))
            self.bit_width += attr.bits
            if self.bit_width in (8, 16, 32, 64):  # a group grows past 24 bits (b24 then b8: HTTP/2)
                self.close_bits()
            return
        if self.bit_group and self.bit_width % 8 == 0:
            self.close_bits()  # raises: a whole number of bytes, but not one struct can read
        if self.bit_group:
            raise GenerationError(f"{attr.where}: bit fields before it must fill whole bytes")
        if attr.repeat:
            self.flush()
            self.dynamic(scope, attr, var)
        elif attr.kind in ("int", "float", "contents"):
            fmt = attr.fmt if attr.fmt else f"{attr.size}s"
            if self.run and fmt[0] in "<>" and self._endian() not in (None, fmt[0]):
                self.flush()  # one struct.Struct per run, so a run never mixes byte orders
            offset = sum(size for _, _, size, _ in self.run)
            self.run.append((fmt, var, attr.size, scope.path + attr.id))
            self.pending.append(("field", scope, attr, var, offset))
        elif attr.kind == "user" and attr.user_type.python_type != "struct":
            child = scope.child(attr)
            start = sum(size for _, _, size, _ in self.run)
            self.seq(child)
            self.pending.append(("build", scope, attr, var, start))
        else:
            self.flush()
            self.dynamic(scope, attr, var)

    def close_bits(self) -> None:
        """A byte-aligned group of bN fields is read as one big-endian integer and split with shifts."""
        width, group = self.bit_width, self.bit_group
        self.bit_group, self.bit_width = [], 0
        formats = {1: "B", 2: ">H", 4: ">I", 8: ">Q"}
        if width // 8 not in formats:
            raise GenerationError(f"{group[0][1].where}: a bit-field group of {width} bits is not supported "
                                  f"(8, 16, 32 or 64)")
        fmt = formats[width // 8]
        if self.run and fmt[0] in "<>" and self._endian() not in (None, fmt[0]):
            self.flush()
        offset = sum(size for _, _, size, _ in self.run)
        packed = f"{group[0][2]}__bits"
        self.run.append((fmt, packed, width // 8, group[0][0].path + group[0][1].id))
        shift = width
        for scope, attr, var in group:
            shift -= attr.bits
            value = f"({packed} >> {shift})" if shift else packed
            if attr.bits == 1:
                self.extracts.append(f"{var} = {value} & 1 == 1")
            else:
                self.extracts.append(f"{var} = {value} & {(1 << attr.bits) - 1}" if shift or attr.bits < width
                                     else f"{var} = {packed}")
            self.pending.append(("field", scope, attr, var, offset))

    def _endian(self) -> str | None:
        return next((f[0] for f, _, _, _ in self.run if f[0] in "<>"), None)

    def flush(self) -> None:
        if not self.run:
            return
        size = sum(s for _, _, s, _ in self.run)
        layout, offset = [], 0
        for _, _, field_size, path in self.run:
            layout.append((offset, path, field_size))
            offset += field_size
        self.code.add(f"if {self.end} - pos < {size}:")
        self.code.add(f"    {self.need_more}" if self.need_more else
                      f"    raise truncated(path, pos, {self.end}, {self.module.layout(layout)})")
        fmt = (self._endian() or ">") + "".join(f.lstrip("<>") for f, _, _, _ in self.run)
        targets = ", ".join(v for _, v, _, _ in self.run)
        if fmt in (">B", "<B"):
            self.code.add(f"{targets} = buf[pos]")
        else:
            self.code.add(f"{targets}{',' if len(self.run) == 1 else ''} = "
                          f"{self.module.struct(fmt)}.unpack_from(buf, pos)")
        for line in self.extracts:
            self.code.add(line)
        self.extracts = []
        claimed = {length.id for length in self.claims.values()}
        for kind, scope, attr, var, offset in self.pending:
            if kind == "field" and not scope.prefix and attr.id in claimed:
                self.code.add(f"{var}__at = {f'pos + {offset}' if offset else 'pos'}")
        covered = self.fast_checks()
        for kind, scope, attr, var, offset in self.pending:
            at = f"pos + {offset}" if offset else "pos"
            if kind == "field":
                if attr.kind != "contents":
                    self.checks(scope, attr, var, at, exclude=covered.get(var, set()))
                if attr.enum is not None and (attr.valid or {}).get("in-enum"):
                    self.code.add(f"{var} = {self.module.enum_map(attr.enum)}[{var}]")
                elif attr.enum is not None:
                    self.code.add(f"{var} = {self.module.enum_map(attr.enum)}.get({var}, {var})")
            else:
                self.build(scope.child(attr), attr, var)
                self.checks(scope, attr, var, at)
        self.code.add(f"pos += {size}")
        self.run, self.pending = [], []

    def fast_checks(self) -> dict[str, set[str]]:
        """One combined test for the run's simple checks (constants, ranges, enum membership); only when it
        fails does the detailed sequence run, to name the first bad field in byte order. Returns, per
        variable, the `valid` keys the combined test covers."""
        covered: dict[str, set[str]] = {}
        ranges: dict[tuple[str, str], list[str]] = {}
        conditions, constants = [], []
        for kind, scope, attr, var, _ in self.pending:
            if kind != "field":
                continue
            if attr.kind == "contents":
                constants.append((var, repr(attr.contents)))
                covered[var] = {"contents"}
                continue
            valid = attr.valid or {}
            keys = set()
            if attr.enum is not None and valid.get("in-enum"):
                conditions.append(f"{var} in {self.module.enum_map(attr.enum)}")
                keys.add("in-enum")
            bounds = [valid.get("min"), valid.get("max")]
            if all(isinstance(b, int) for b in bounds):
                ranges.setdefault((repr(bounds[0]), repr(bounds[1])), []).append(var)
                keys |= {"min", "max"}
            if keys:
                covered[var] = keys
        for (low, high), names in ranges.items():
            conditions += [f"{name} in {self.module.range_set(int(low), int(high))}" if
                           0 <= int(high) - int(low) < 256 else f"{low} <= {name} <= {high}" for name in names]
        if constants:
            conditions.append(f"({', '.join(v for v, _ in constants)},) == ({', '.join(c for _, c in constants)},)")
        if not conditions:
            return {}
        self.code.add(f"if not ({' and '.join(conditions)}):")
        saved = set(self.computed)
        self.code.depth += 1
        for kind, scope, attr, var, offset in self.pending:
            at = f"pos + {offset}" if offset else "pos"
            if kind == "field" and attr.kind == "contents":
                self.code.add(f"if {var} != {attr.contents!r}:")
                self.fail(at, scope.path + attr.id,
                          reason(f"expected {attr.contents!r}, found ", E(var), f" ({_short(attr.doc)})"))
            elif kind == "field":
                self.checks(scope, attr, var, at)
            else:
                self.build(scope.child(attr), attr, var)
                self.checks(scope, attr, var, at)
        self.code.depth -= 1
        self.computed = saved  # locals assigned inside the failing branch do not exist after it
        return covered

    def build(self, child: LocalScope, attr: Attr, var: str) -> None:
        """Turn an inlined type's locals into its Python value."""
        python_type = child.type_spec.python_type
        if python_type == "value":
            child.resolve(("value",))  # computed once; the field's name resolves to it (see _into)
        elif python_type == "datetime":
            parts = [child.resolve((part,)) for part in _DATETIME_PARTS]
            parts[-1] = f"{parts[-1]} * 1000"
            self.code.add(f"{var} = datetime({', '.join(parts)})")

    def inline_case(self, scope: LocalScope, attr: Attr, var: str, case_type: TypeSpec, end_var: str) -> None:
        """A fixed-size case decoded in place (no call, no tuple return), bounded by the switch's size."""
        child = LocalScope(self, case_type, f"{var}__{case_type.name}__", f"{scope.path}{attr.id}.")
        saved = set(self.computed)
        self.code.depth += 1
        outer, self.end = self.end, end_var
        self.seq(child)
        self.flush()
        self.end = outer
        names = [child.resolve((a.id,)) for a in case_type.seq if a.kind != "contents"]
        self.code.add(f"{var} = _tuple_new({self.module.type_ref(case_type, '')}, "
                      f"({', '.join(names)}{',' if len(names) == 1 else ''}))")
        self.code.depth -= 1
        self.computed = saved

    def sized(self, scope: LocalScope, attr: Attr, var: str) -> str:
        """Emit the bounds of a sized field; returns the local holding its end."""
        end_var = f"{var}__end"
        if attr.size_eos:
            self.code.add(f"{end_var} = {self.end}")
            return end_var
        size = self.expr(scope, attr.size_expr)
        self.code.add(f"{var}__size = {size}")
        self.code.add(f"if {var}__size < 0:")
        self.fail("pos", scope.path + attr.id, reason("negative size ", E(f"{var}__size")))
        length = self.claims.get(attr.id) if not scope.prefix else None
        claim = "" if length is None else \
            f", Claim(path + {scope.path + length.id!r}, {scope.var(length.id)}__at, {scope.var(length.id)})"
        self.code.add(f"if {self.end} - pos < {var}__size:")
        self.code.add(f"    raise TruncatedError(end, path + {scope.path + attr.id!r}, " + reason(
            "needs ", E(f"{var}__size"), " bytes, only ", E(f"{self.end} - pos"), " available") + f"{claim})")
        self.code.add(f"{end_var} = pos + {var}__size")
        return end_var

    def repeated(self, scope: LocalScope, attr: Attr, var: str) -> None:
        """repeat: eos reads elements until the stream's end, refusing an element that consumes nothing
        (so no input can make it loop); repeat: expr reads a counted list, the count checked first."""
        path = scope.path + attr.id
        if attr.valid:
            raise GenerationError(f"{attr.where}: valid on repeated fields is not supported")
        le = self.endian_arg(scope, attr.user_type, attr, "pos") if attr.kind == "user" else ""
        self.code.add(f"{var} = []")
        element_path = f"path + {path + '['!r} + str(len({var})) + ']'"
        chained = self.chained.get(attr.id) if not scope.prefix else None
        if attr.repeat == "expr":
            self.code.add(f"{var}__count = {self.expr(scope, attr.repeat_expr)}")
            self.code.add(f"if {var}__count < 0:")
            self.fail("pos", path, reason("negative count ", E(f"{var}__count")))
            if chained:  # a scan's memo of item walks (inlong_proto/core/block_walks.py), the same items or error
                call = self.module.type_ref(attr.user_type, "decode_")
                self.code.add("if chains is not None:")
                self.code.add(f"    {var}, pos = chains.walk(buf, pos, {self.end}, {var}__count, {call}, "
                              f"{chained}, path + {path!r})")
                self.code.add("else:")
                self.code.depth += 1
            self.code.add(f"for _ in range({var}__count):")
        else:
            self.code.add(f"while pos < {self.end}:")
        self.code.depth += 1
        self.code.add(f"{var}__item_at = pos")
        if attr.kind == "user":
            call = self.module.type_ref(attr.user_type, "decode_")
            self.code.add(f"{var}__item, pos = {call}(buf, pos, {self.end}, {element_path} + '.'{le})")
        elif attr.kind == "bytes":
            size = self.expr(scope, attr.size_expr)
            self.code.add(f"if {size} < 0 or {self.end} - pos < {size}:")
            self.code.add(f"    raise TruncatedError({self.end}, {element_path}, " + reason(
                "needs ", E(size), " bytes, only ", E(f"{self.end} - pos"), " available") + ")")
            self.code.add(f"{var}__item = bytes(buf[pos:pos + {size}])")
            self.code.add(f"pos += {size}")
        else:
            self.code.add(f"if {self.end} - pos < {attr.size}:")
            self.code.add(f"    raise TruncatedError({self.end}, {element_path}, " + reason(
                f"needs {attr.size} bytes, only ", E(f"{self.end} - pos"), " available") + ")")
            self.code.add(f"{var}__item, = {self.module.struct(attr.fmt)}.unpack_from(buf, pos)")
            self.code.add(f"pos += {attr.size}")
            if attr.enum is not None:
                self.code.add(f"{var}__item = {self.module.enum_map(attr.enum)}.get({var}__item, {var}__item)")
        if attr.repeat == "eos":
            self.code.add(f"if pos == {var}__item_at:")
            self.fail("pos", path, reason("an element consumed no bytes; refusing to loop"))
        self.code.add(f"{var}.append({var}__item)")
        self.code.depth -= 1
        self.code.add(f"{var} = tuple({var})")
        if chained:
            self.code.depth -= 1

    def dynamic(self, scope: LocalScope, attr: Attr, var: str) -> None:
        path = scope.path + attr.id
        at_start = f"{var}__at"
        self.code.add(f"{at_start} = pos")
        self.checks(scope, attr, var, at_start, phase="pre")
        if attr.repeat:
            self.repeated(scope, attr, var)
            return
        if attr.kind in ("bytes", "str"):
            end_var = self.sized(scope, attr, var)
            self.code.add(f"{var} = bytes(buf[pos:{end_var}])")
            if attr.kind == "str":
                self.code.add("try:")
                self.code.add(f"    {var} = {var}.decode({attr.encoding!r})")
                self.code.add("except UnicodeDecodeError as exc:")
                self.fail("pos + exc.start", path, reason(f"not valid {attr.encoding}: ", E("exc.reason", True)))
            self.code.add(f"pos = {end_var}")
        elif attr.kind == "user":
            call = self.module.type_ref(attr.user_type, "decode_")
            le = self.endian_arg(scope, attr.user_type, attr, "pos")
            if attr.size_expr is None and not attr.size_eos:
                self.code.add(f"{var}, pos = {call}(buf, pos, {self.end}, path + {path + '.'!r}{le})")
            else:
                end_var = self.sized(scope, attr, var)
                self.code.add(f"{var}, _ = {call}(buf, pos, {end_var}, path + {path + '.'!r}{le})")
                self.code.add(f"pos = {end_var}")
        elif attr.kind == "switch":
            end_var = self.sized(scope, attr, var)
            on = self.expr(scope, attr.switch_on)
            keyword = "if"
            for key, case_type in attr.case_types:
                self.code.add(f"{keyword} {on} == {self.expr(scope, key)}:")
                if _inlinable(case_type):
                    self.inline_case(scope, attr, var, case_type, end_var)
                else:
                    call = self.module.type_ref(case_type, "decode_")
                    self.code.depth += 1
                    le = self.endian_arg(scope, case_type, attr, "pos")
                    self.code.add(f"{var}, _ = {call}(buf, pos, {end_var}, path + {path + '.'!r}{le})")
                    self.code.depth -= 1
                keyword = "elif"
            self.code.add("else:")
            self.code.add(f"    {var} = bytes(buf[pos:{end_var}])")
            self.code.add(f"pos = {end_var}")
        self.checks(scope, attr, var, at_start, phase="post")


class EncodeEmitter(FunctionEmitter):
    def __init__(self, module: Module, derived: dict[str, tuple[Attr, str]]):
        super().__init__(module, "encode")
        self.derived = derived  # field id -> (attr that derives it, 'size' | 'switch')
        self.parts: list[tuple[str, str]] = []  # ("fixed", fmt) or ("bytes", var), with values

    def values(self, scope: LocalScope, source: str | None) -> None:
        """Bind every field of `scope` to a local, from the object (`source`) or from encode expressions."""
        for attr in scope.type_spec.seq:
            var = scope.var(attr.id)
            if attr.kind == "contents":
                continue
            if source is not None and attr.id in self.derived and not scope.prefix:
                self.code.add(f"{var}__given = {source}.{attr.id}")
                continue
            if attr.kind == "user" and attr.user_type.python_type != "struct":
                child = scope.child(attr)
                self.code.add(f"{var} = {self._read(scope, attr, source)}")
                self.inline_values(child, var)
                continue
            self.code.add(f"{var} = {self._read(scope, attr, source)}")

    def _read(self, scope: LocalScope, attr: Attr, source: str | None) -> str:
        if source is not None:
            return f"{source}.{attr.id}"
        if attr.encode_expr is None:
            raise GenerationError(f"{attr.where}: a field of an inlined type needs -inlong-encode")
        scope.current = scope.prefix[:-2]
        src = self.expr(scope, attr.encode_expr)
        scope.current = None
        return src

    def inline_values(self, child: LocalScope, var: str) -> None:
        python_type = child.type_spec.python_type
        if python_type == "datetime":
            self.code.add(f"if not isinstance({var}, datetime) or {var}.tzinfo is not None "
                          f"or {var}.microsecond % 1000:")
            self.fail("", child.path[:-1], reason("expected a naive datetime with millisecond precision, got ",
                                                  E(var)))
            for part in _DATETIME_PARTS:
                src = f"{var}.microsecond // 1000" if part == "millisecond" else f"{var}.{part}"
                self.code.add(f"{child.var(part)} = {src}")
                attr = child.attr(part)
                if attr is not None and attr.kind == "user" and attr.user_type.python_type != "struct":
                    self.inline_values(child.child(attr), child.var(part))
        elif python_type == "value":
            self.code.add(f"if type({var}) is not int:")
            self.fail("", child.path[:-1], reason("expected an int, got ", E(var)))
            self.values(child, None)
            # The digits must spell the value back; otherwise it did not fit the field.
            self.code.add(f"if {self.expr(child, child.type_spec.instances['value'].value)} != {var}:")
            self.fail("", child.path[:-1], reason("value ", E(var), f" does not fit {child.type_spec.name}"))

    def checks_all(self, scope: LocalScope) -> None:
        for attr in scope.type_spec.seq:
            var = scope.var(attr.id)
            if attr.kind == "contents":
                continue
            if attr.repeat:
                self.code.add(f"if not isinstance({var}, (list, tuple)):")
                self.fail("", scope.path + attr.id, reason("expected a list, got ", E(f"type({var}).__name__", True)))
                continue
            if attr.kind == "user" and attr.user_type.python_type != "struct":
                self.checks_all(scope.child(attr))
            elif attr.kind == "bits":
                self.code.add(f"if not isinstance({var}, int) or not 0 <= {var} < {1 << attr.bits}:")
                self.fail("", scope.path + attr.id, reason(f"expected a {attr.bits}-bit unsigned value, got ", E(var)))
            elif attr.kind == "int" and attr.enum is None:
                self.code.add(f"if type({var}) is not int:")
                self.fail("", scope.path + attr.id, reason("expected an int, got ", E(var)))
            elif attr.kind == "int":
                self.code.add(f"if not isinstance({var}, int):")
                self.fail("", scope.path + attr.id, reason(f"expected an int or {attr.enum.name} member, got ",
                                                           E(var)))
            elif attr.kind == "bytes" and not (attr.size is not None and attr.size_expr is None):
                self.code.add(f"if not isinstance({var}, (bytes, bytearray)):")
                self.fail("", scope.path + attr.id, reason("expected bytes, got ", E(f"type({var}).__name__", True)))
            if attr.kind in ("int", "float", "user", "bits"):
                self.checks(scope, attr, var, "")

    def pack_list(self, scope: LocalScope) -> None:
        group, width = [], 0
        for attr in scope.type_spec.seq:
            var = scope.var(attr.id)
            if attr.kind == "bits":
                group.append((var, attr.bits))
                width += attr.bits
                if width in (8, 16, 32, 64):  # the groups of Flattener.field
                    shift, terms = width, []
                    for name, bits in group:
                        shift -= bits
                        terms.append(f"{name} << {shift}" if shift else name)
                    fmt = {1: "B", 2: ">H", 4: ">I", 8: ">Q"}[width // 8]
                    self.parts.append(("fixed", fmt, f"({' | '.join(terms)})"))
                    group, width = [], 0
            elif attr.repeat:
                self.parts.append(("bytes", "", f"{var}__bytes"))
            elif attr.kind == "contents":
                self.parts.append(("fixed", f"{attr.size}s", repr(attr.contents)))
            elif attr.kind in ("int", "float"):
                self.parts.append(("fixed", attr.fmt, var))
            elif attr.kind == "user" and attr.user_type.python_type != "struct":
                self.pack_list(scope.child(attr))
            else:
                self.parts.append(("bytes", "", f"{var}__bytes"))


def _default_src(attr: Attr) -> str:
    """Python source of a field's -inlong-default (a YAML string means bytes for a byte field)."""
    if attr.kind == "bytes" and isinstance(attr.default, str):
        return repr(attr.default.encode("utf-8"))
    return repr(attr.default)


def _distinct_cases(attr: Attr) -> list[TypeSpec]:
    """The case types of a switch, each once (several keys may share a type), in spec order."""
    return list({id(t): t for _, t in attr.case_types}.values())


def _first_key_per_case(attr: Attr) -> list[tuple[Node, TypeSpec]]:
    seen: dict[int, tuple[Node, TypeSpec]] = {}
    for key, case_type in attr.case_types:
        seen.setdefault(id(case_type), (key, case_type))
    return list(seen.values())


def _inlinable(type_spec: TypeSpec) -> bool:
    """Fixed-size struct cases without length-derived fields of their own can be decoded in place."""
    return (type_spec.python_type == "struct" and type_spec.fixed_size is not None
            and type_spec.endian_switch is None
            and not _derived_fields(type_spec) and all(a.kind != "switch" for a in type_spec.seq))


def _derived_fields(type_spec: TypeSpec) -> dict[str, tuple[Attr, str, object]]:
    """Fields whose value encode computes: lengths used by a later size, switch discriminators."""
    derived: dict[str, tuple[Attr, str, object]] = {}
    for attr in type_spec.seq:
        if attr.size_expr is not None and attr.size_expr.kind != "num":
            used = {chain[0] for chain in names_used(attr.size_expr)}
            for name in used:
                inverse = invert_linear(attr.size_expr, name)
                target = next((a for a in type_spec.seq if a.id == name), None)
                if inverse is not None and target is not None and target.kind == "int" and len(used) == 1:
                    derived[name] = (attr, "size", inverse)
        if attr.repeat == "expr" and attr.repeat_expr.kind != "num":
            used = {chain[0] for chain in names_used(attr.repeat_expr)}
            inverse = invert_linear(attr.repeat_expr, next(iter(used))) if len(used) == 1 else None
            target = next((a for a in type_spec.seq if a.id in used), None)
            if inverse is not None and target is not None and target.kind == "int":
                derived[target.id] = (attr, "count", inverse)
        unique_cases = attr.kind == "switch" and len({id(t) for _, t in attr.case_types}) == len(attr.case_types)
        if unique_cases and attr.switch_on.kind == "name":
            target = next((a for a in type_spec.seq if a.id == attr.switch_on.value), None)
            if target is not None and target.kind in ("int", "bits"):
                derived[target.id] = (attr, "switch", None)
    return derived


def _arrow(attr: Attr, module: Module) -> str:
    if attr.kind == "bits":
        if attr.enum:
            return "string"
        return "bool" if attr.bits == 1 else next(f"int{w}" for w in (8, 16, 32, 64) if attr.bits < w or w == 64)
    if attr.kind in ("int", "float"):
        return "string" if attr.enum else ARROW_INT[attr.fmt[1]]
    if attr.kind == "str":
        return "string"
    if attr.kind == "bytes":
        return "binary"
    if attr.kind == "user":
        python_type = attr.user_type.python_type
        if python_type == "datetime":
            return "timestamp[ms]"
        if python_type == "value":
            return "int32"
        return "struct"
    return "switch"


class TypeEmitter:
    def __init__(self, module: Module, type_spec: TypeSpec):
        self.module, self.type_spec = module, type_spec
        self.derived = _derived_fields(type_spec)

    @property
    def cls(self) -> str:
        return self.type_spec.class_name

    def message_class(self) -> list[str]:
        t = self.type_spec
        names = [a.id for a in t.seq if a.kind != "contents"]
        compared = tuple(i for i, name in enumerate(names) if name not in self.derived)
        lines = [f"class {self.cls}(Message):", f'    """{_short(t.doc) or t.name}"""', "",
                 "    __slots__ = ()", f"    _fields = {tuple(names)!r}", f"    _compared = {compared!r}", ""]
        defaults = {a.id: a for a in t.seq if a.has_default}
        params = ", ".join(f"{name}=None" if name in self.derived else
                           f"{name}={_default_src(defaults[name])}" if name in defaults else name for name in names)
        lines += [f"    def __new__(cls{', *, ' + params if params else ''}):",
                  f"        return _tuple_new(cls, ({', '.join(names)}{',' if len(names) == 1 else ''}))", ""]
        for index, attr in enumerate(a for a in t.seq if a.kind != "contents"):
            derived = " Derived on encode; None until decoded." if attr.id in self.derived else ""
            lines.append(f"    {attr.id} = property(itemgetter({index}), doc={(_short(attr.doc) + derived)!r})")
        for inst in t.instances.values():
            scope = _ObjectScope(self.module, t)
            value = to_python(inst.value, scope.scope())
            lines += ["", "    @property", f"    def {inst.id}(self):", f'        """{_short(inst.doc)}"""']
            if inst.enum_name:
                enum_map = self.module.enum_map(t.find_enum(inst.enum_name))
                lines += [f"        value = {value}", f"        return {enum_map}.get(value, value)"]
            else:
                lines.append(f"        return {value}")
        return lines

    def fields_info(self) -> str:
        """Field metadata the runtime walks for to_dict, from_dict and the Arrow schema."""
        rows = []
        for attr in self.type_spec.seq:
            if attr.kind == "contents":
                continue
            derived = attr.id in self.derived
            if attr.repeat:
                rows.append(f"    FieldInfo({attr.id!r}, 'list', 'list', {self._info(attr, 'item', False)}, {derived}),")
            else:
                rows.append(f"    {self._info(attr, attr.id, derived)},")
        lines = [f"{self.cls}.FIELDS = ("] + rows + [")"]
        # Fixed bytes (magics, separators) by field name: the runtime's one source for them.
        constants = [f"{attr.id!r}: {attr.contents!r}, " for attr in self.type_spec.seq if attr.kind == "contents"]
        if constants:
            lines.append(f"{self.cls}.CONTENTS = {{{''.join(constants)}}}")
        # Bit fields by name: (the first field of their run of bit fields, bits before them in that run, width),
        # most significant bit first, as Kaitai reads them; a run starts on a byte (inspect's bit lines).
        bits, run, at = {}, None, 0
        for attr in self.type_spec.seq:
            if attr.kind == "bits" and not attr.repeat:
                if run is None:
                    run, at = attr.id, 0
                bits[attr.id] = (run, at, attr.bits)
                at += attr.bits
            else:
                run = None
        if bits:
            lines.append(f"{self.cls}.BITS = {bits!r}")
        first = self.type_spec.seq[0] if self.type_spec.seq else None
        if first is not None and first.kind == "contents":  # what every value starts with (detection)
            lines.append(f"{self.cls}.LEADING = {first.contents!r}")
        return "\n".join(lines)

    def _info(self, attr: Attr, name: str, derived: bool) -> str:
        """FieldInfo(...) source for one field, or for the element of a repeated field."""
        kind = {"bits": "bool" if attr.bits == 1 else "int"}.get(attr.kind, attr.kind)
        detail = "None"
        if attr.enum:
            kind, detail = "enum", self.module.enum_ref(attr.enum)
        elif attr.kind == "user":
            python_type = attr.user_type.python_type
            if python_type == "struct":
                kind, detail = "struct", self.module.type_ref(attr.user_type, "")
            else:
                kind = {"datetime": "datetime", "value": "int"}[python_type]
        elif attr.kind == "switch":
            detail = "(" + "".join(f"({t.name!r}, {self.module.type_ref(t, '')}), "
                                   for t in _distinct_cases(attr)) + ")"
        default = f", {_default_src(attr)}" if attr.has_default and name == attr.id else ""
        return f"FieldInfo({name!r}, {kind!r}, {_arrow(attr, self.module)!r}, {detail}, {derived}{default})"

    def chained_lists(self) -> dict[str, TypeSpec]:
        """Counted lists whose items' sizes follow from their headers alone (a header of checked
        integers, then one sized run of bytes): a scan may walk them with a memo (inlong_proto/core/block_walks.py)
        and be sure that an item the size function accepts decodes whenever its bytes are there."""
        out = {}
        for attr in self.type_spec.seq:
            item = attr.user_type if attr.kind == "user" else None
            if attr.repeat != "expr" or item is None or item.spec is not self.type_spec.spec \
                    or item.python_type != "struct" or item.switched_endian:
                continue
            header, header_size, body, trailer = TypeEmitter(self.module, item).layout()
            if body is not None and body.kind == "bytes" and not body.valid and not trailer and header_size \
                    and len(item.seq) == len(header) + 1:
                out[attr.id] = item
        return out

    def decode(self, chained: bool = False) -> list[str]:
        """decode_<type>; chained: the root of a frame takes a scan's memo (chains) for its counted lists."""
        gen = DecodeEmitter(self.module)
        gen.claim_lengths(self.type_spec)
        if chained:
            gen.chained = {name: f"size_{item.fn_name}" for name, item in self.chained_lists().items()}
        scope = LocalScope(gen, self.type_spec, "", "")
        gen.seq(scope)
        gen.flush()
        if any("(end - start)" in line for line in gen.code.lines):
            gen.code.lines.insert(0, "    start = pos")
        python_type = self.type_spec.python_type
        if python_type == "struct":
            args = ", ".join(scope.resolve((a.id,)) for a in self.type_spec.seq if a.kind != "contents")
            gen.code.add(f"return _tuple_new({self.cls}, ({args}{',' if args and ',' not in args else ''})), pos")
        else:
            gen.code.add("value = None")
            gen.build(scope, Attr("value", "", "", "user", user_type=self.type_spec), "value")
            gen.code.add("return value, pos")
        name = f"decode_{self.type_spec.fn_name}"
        return [f"def {name}(buf, pos=0, end=None, path=''{', chains=None' if gen.chained else ''}):",
                f'    """Decode one {self.type_spec.name} from buf[pos:end]; returns (value, next_pos)."""',
                "    if end is None:", "        end = len(buf)"] + gen.code.lines

    def encode(self) -> list[str]:
        t = self.type_spec
        gen = EncodeEmitter(self.module, {k: (v[0], v[1]) for k, v in self.derived.items()})
        scope = LocalScope(gen, t, "", "")
        if t.python_type == "struct":
            gen.code.add(f"if not isinstance(obj, {self.cls}):")
            gen.fail("", "", reason(f"expected {self.cls}, got ", E("type(obj).__name__", True)))
            gen.values(scope, "obj")
        else:
            gen.code.add("value = obj")
            gen.inline_values(LocalScope(gen, t, "value__", ""), "value")
            scope = LocalScope(gen, t, "value__", "")
        for attr in t.seq:
            var = scope.var(attr.id)
            if attr.repeat:
                gen.code.add(f"if not isinstance({var}, (list, tuple)):")
                gen.fail("", attr.id, reason("expected a list, got ", E(f"type({var}).__name__", True)))
                if attr.kind == "user":
                    call = self.module.type_ref(attr.user_type, "encode_")
                    le = gen.endian_arg(scope, attr.user_type, attr, "")
                    gen.code.add(f"{var}__bytes = b''.join([{call}(item, path + {attr.id!r} + '[' + str(index) + '].'"
                                 f"{le}) for index, item in enumerate({var})])")
                elif attr.kind == "bytes":
                    gen.code.add(f"{var}__bytes = b''.join({var})")
                else:
                    packer = self.module.struct(attr.fmt)
                    gen.code.add(f"{var}__bytes = b''.join([{packer}.pack(item) for item in {var}])")
            elif attr.kind == "bytes" or attr.kind == "str":
                src = f"{var}.encode({attr.encoding!r})" if attr.kind == "str" else var
                gen.code.add(f"{var}__bytes = {src}" if attr.kind == "str" else f"{var}__bytes = {var}")
            elif attr.kind == "user" and t.python_type == "struct" and attr.user_type.python_type == "struct":
                call = self.module.type_ref(attr.user_type, "encode_")
                le = gen.endian_arg(scope, attr.user_type, attr, "")
                gen.code.add(f"{var}__bytes = {call}({var}, path + {attr.id + '.'!r}{le})")
            elif attr.kind == "switch":
                keyword = "if"
                on = attr.switch_on.value if attr.switch_on.kind == "name" else None
                if on not in self.derived:  # the discriminator is given: it must name this body's case
                    given = gen.expr(scope, attr.switch_on)
                    for case_type in _distinct_cases(attr):
                        keys = ", ".join(gen.expr(scope, k) for k, c in attr.case_types if c is case_type)
                        gen.code.add(f"if type({var}) is {self.module.type_ref(case_type, '')} and "
                                     f"{given} not in ({keys},):")
                        gen.fail("", attr.id, reason(f"{case_type.name} needs {attr.switch_on.value if on else 'the discriminator'} in ({keys}), got ", E(given)))
                    # raw bytes decode back only when the discriminator names no case (the decoder's fallback)
                    keys = ", ".join(gen.expr(scope, k) for k, _ in attr.case_types)
                    gen.code.add(f"if isinstance({var}, (bytes, bytearray)) and {given} in ({keys},):")
                    gen.fail("", attr.id, reason(f"raw bytes need {attr.switch_on.value if on else 'the discriminator'} outside the cases ({keys}), got ", E(given)))
                for key, case_type in _first_key_per_case(attr):
                    case_cls = self.module.type_ref(case_type, "")
                    gen.code.add(f"{keyword} type({var}) is {case_cls}:")
                    gen.code.depth += 1
                    le = gen.endian_arg(scope, case_type, attr, "")
                    gen.code.add(f"{var}__bytes = {self.module.type_ref(case_type, 'encode_')}"
                                 f"({var}, path + {attr.id + '.'!r}{le})")
                    gen.code.depth -= 1
                    if isinstance(on, str) and on in self.derived:
                        gen.code.add(f"    {scope.var(on)} = {gen.expr(scope, key)}")
                    keyword = "elif"
                if on not in self.derived:
                    gen.code.add(f"elif isinstance({var}, (bytes, bytearray)):")
                    gen.code.add(f"    {var}__bytes = bytes({var})")
                gen.code.add("else:")
                gen.fail("", attr.id, reason(f"no case of {attr.switch_on.value} carries ",
                                             E(f"type({var}).__name__", True)))
        for name, (attr, how, inverse) in self.derived.items():
            if how == "size":
                gen.code.add(f"{scope.var(name)} = {inverse(f'len({scope.var(attr.id)}__bytes)')}")
            elif how == "count":
                gen.code.add(f"{scope.var(name)} = {inverse(f'len({scope.var(attr.id)})')}")
        for name in self.derived:
            local = scope.var(name)
            gen.code.add(f"if {local}__given is not None and {local}__given != {local}:")
            gen.fail("", name, reason(f"{name} is derived on encode: given ", E(f"{local}__given"),
                                      ", the encoded data needs ", E(local)))
        for attr in t.seq:
            if attr.size is not None and attr.kind in ("bytes", "str") and attr.size_expr is not None:
                gen.code.add(f"if len({scope.var(attr.id)}__bytes) != {attr.size}:")
                gen.fail("", attr.id, reason(f"must be {attr.size} bytes, got ",
                                             E(f"len({scope.var(attr.id)}__bytes)")))
        gen.checks_all(scope)
        gen.pack_list(scope)
        pieces, fixed_fmt, fixed_vals, endian = [], "", [], None
        for kind, fmt, value in gen.parts + [("end", "", "")]:
            order = fmt[0] if fmt[:1] in ("<", ">") else None
            if kind == "fixed" and (endian is None or order is None or order == endian):
                fixed_fmt += fmt.lstrip("<>")
                fixed_vals.append(value)
                endian = endian or order
                continue
            if fixed_fmt:
                pieces.append(f"{self.module.struct((endian or '>') + fixed_fmt)}.pack({', '.join(fixed_vals)})")
                fixed_fmt, fixed_vals, endian = "", [], None
            if kind == "fixed":
                fixed_fmt, fixed_vals, endian = fmt.lstrip("<>"), [value], order
                continue
            if kind == "bytes":
                pieces.append(value)
        gen.code.add(f"return {' + '.join(pieces) if pieces else repr(b'')}")
        return [f"def encode_{t.fn_name}(obj, path=''):",
                f'    """Encode one {t.name}; lengths and discriminators are derived from the data."""'] + \
            gen.code.lines

    def layout(self) -> tuple[list[Attr], int, Attr | None, int]:
        """(header fields, header size, the one sized field after them, bytes after it): how a frame's
        size follows from its header; the sized field is None when it does not (no frame_length)."""
        t = self.type_spec
        header = []
        for attr in t.seq:
            if not (attr.kind == "bits" or attr.kind in ("int", "contents") and not attr.repeat):
                break
            header.append(attr)
        rest = t.seq[len(header):]
        variable = [a for a in rest if a.size is None]
        header_size = sum(a.bits if a.kind == "bits" else a.size * 8 for a in header) // 8
        if len(variable) != 1 or variable[0].size_expr is None or variable[0].repeat:
            return header, header_size, None, 0
        body = variable[0]
        return header, header_size, body, sum(a.size for a in rest if a is not body)

    def starts(self, limit: int) -> list[str]:
        """START: where a frame may begin, for the scanner's resynchronisation (see starts.py); bounded by
        MAX_FRAME_SIZE, so START_ANY (the same without that bound) serves a larger max_frame_size."""
        header, header_size, body, trailer = self.layout()
        bounds = {} if body is None else starts.size_bounds(header, body, header_size, trailer, limit)
        _, size = starts.leading(self.type_spec)
        bounded, unbounded = starts.pattern(self.type_spec, bounds), starts.pattern(self.type_spec, {})
        lines = [f"START = re.compile(rb'{bounded}', re.DOTALL)  # where a frame may begin (see ksygen/starts.py)"]
        lines.append("START_ANY = START" if bounded == unbounded else
                     f"START_ANY = re.compile(rb'{unbounded}', re.DOTALL)  # the same for any frame size")
        return lines + [f"START_SIZE = {size}  # the bytes START judges; a position with fewer left is not judged"]

    def probe(self, name: str = "frame_length") -> list[str]:
        """frame_length(buf, pos, end): the frame size from its header, None if the header is incomplete
        (also size_<item> for the items of a chained list, under that name)."""
        t = self.type_spec
        gen = DecodeEmitter(self.module, need_more="return None")
        scope = LocalScope(gen, t, "", "")
        header, header_size, body, trailer = self.layout()
        if body is None:
            # No length in the header (TubeMQ: a counted list of sized blocks): the runtime frames by
            # decoding, and bounds what it buffers by max_frame_size instead.
            return [f"HEADER_SIZE = {header_size}", "frame_length = None  # the frame's size is known only by decoding it"]
        gen.code.add("start = pos")
        for attr in header:
            gen.field(scope, attr)
        gen.flush()
        size = gen.expr(scope, body.size_expr)
        gen.code.add(f"body_size = {size}")
        gen.code.add("if body_size < 0:")
        gen.fail("start", body.id, reason("negative size ", E("body_size")))
        gen.code.add(f"return {header_size} + body_size + {trailer}")
        what = "frame" if name == "frame_length" else t.name
        return ([f"HEADER_SIZE = {header_size}", "", ""] if name == "frame_length" else []) + [
                f"def {name}(buf, pos=0, end=None, path=''):",
                f'    """Size of the {what} starting at pos, from its header alone; None until the header is in."""',
                "    if end is None:", "        end = len(buf)"] + gen.code.lines


class _ObjectScope:
    """Names as attributes of a decoded object, for instance properties."""

    def __init__(self, module: Module, type_spec: TypeSpec):
        self.module, self.type_spec = module, type_spec

    def scope(self) -> Scope:
        def resolve(chain):
            return "self." + ".".join(chain)
        return Scope(resolve, lambda enum, member: FunctionEmitter(self.module, "decode").enum_member(
            self.type_spec, enum, member), lambda name: self.type_spec.find_type(name).fixed_size)


def _endian_dispatch(name: str) -> list[str]:
    """decode_x / encode_x of a switched-order type take the order (le) from their caller: the user type
    that evaluated the meta/endian switch, or the runtime that already knows a section's order."""
    return [f"def decode_{name}(buf, pos=0, end=None, path='', *, le):",
            f'    """Decode one {name} from buf[pos:end] in the byte order `le` names (True: little-endian)."""',
            f"    return (decode_{name}__le if le else decode_{name}__be)(buf, pos, end, path)", "", "",
            f"def encode_{name}(obj, path='', *, le):",
            f'    """Encode one {name} in the byte order `le` names (True: little-endian)."""',
            f"    return (encode_{name}__le if le else encode_{name}__be)(obj, path)"]


def emit_module(spec: SpecFile) -> str:
    module = Module(spec)
    body: list[str] = []
    types = list(spec.root.all_types())
    for type_spec in types:
        for enum in type_spec.enums.values():
            body += [f"class {enum.class_name}(IntEnum):", f'    """{enum.name} of {type_spec.name}."""', ""]
            for value, (member, doc) in enum.members.items():
                body.append(f"    {member} = {value!r}")
                if doc:
                    body.append(f'    """{_short(doc)}"""')
            body += ["", ""]
    emitters = [TypeEmitter(module, t) for t in types]
    for emitter in emitters:
        if emitter.type_spec.python_type == "struct":
            body += emitter.message_class() + ["", ""]
    for emitter in emitters:
        if emitter.type_spec.python_type == "struct":
            body += [emitter.fields_info(), "", ""]
    memo: dict = {}
    options = spec.root.options
    chained = TypeEmitter(module, spec.root).chained_lists() if options.get("frame") else {}
    for emitter in emitters:
        if not emitter.type_spec.switched_endian:
            body += emitter.decode(chained=emitter.type_spec is spec.root and bool(chained)) + ["", ""] + \
                emitter.encode() + ["", ""]
            if any(item is emitter.type_spec for item in chained.values()):
                body += emitter.probe(f"size_{emitter.type_spec.fn_name}") + ["", ""]
            continue
        for order in ("le", "be"):
            variant = TypeEmitter(module, specialize(emitter.type_spec, order, memo))
            body += variant.decode() + ["", ""] + variant.encode() + ["", ""]
        body += _endian_dispatch(emitter.type_spec.name) + ["", ""]
    if options.get("frame"):
        body += TypeEmitter(module, spec.root).probe() + ["", ""]
        root = spec.root
        switch = next((a for a in root.seq if a.kind == "switch"), None)
        messages = []
        for t in _distinct_cases(switch) if switch else []:
            messages.append(f"    {module.type_ref(t, '')}: ({t.name!r}, {t.options.get('direction')!r}),")
        limit = int(options.get("max-frame-size", 65536))
        body += [f"PROTOCOL = {options['protocol']!r}",
                 f"MAX_FRAME_SIZE = {limit!r}"] + TypeEmitter(module, root).starts(limit) + [
                 f"CHAINS = {bool(chained)}  # decode takes a scan's memo of item walks (inlong_proto/core/block_walks.py)",
                 f"FRAME = {root.class_name}",
                 f"MESSAGE_FIELD = {switch.id if switch else None!r}",
                 "MESSAGE_TYPES = {"] + messages + ["}", "decode = decode_" + root.name,
                                                   "encode = encode_" + root.name, ""]
    header = [
        f'"""Generated by tools/ksygen from specs/{spec.path.parent.name}/{spec.path.name}. Do not edit."""',
        "# flake8: noqa",
        "from __future__ import annotations",
        "",
        "import re" if options.get("frame") else None,
        "import struct",
        "from datetime import datetime",
        "from enum import IntEnum",
        "from operator import itemgetter",
        "",
        f"from {RUNTIME} import Claim, EncodeError, FieldInfo, TruncatedError, ValidationError, truncated",
        "from inlong_proto.core.message import Message, _tuple_new",
    ]
    header = [line for line in header if line is not None]
    for imported in spec.imports:
        header.append(f"import {PACKAGE}.{imported.module} as {_import_alias(imported)}")
    header.append("")
    consts = [f"{name} = struct.Struct({fmt!r})" for fmt, name in module.structs.items()] + module.consts
    body += list(module.enum_maps.values())
    return "\n".join(header + consts + ["", ""] + body).rstrip() + "\n"
