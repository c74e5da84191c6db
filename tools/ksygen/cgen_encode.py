"""Emits the encoders' part of the compiled extension (plain C API): `encode_<spec>(message) -> bytes | None`.

From the same parsed .ksy model as the Python codecs (model.py) and mirroring what emit.py's encode
functions do, one C function per struct type reads a generated message (the tuple subclass of
generated/codec, by the field positions the model gives) and writes its bytes: every offset, size, byte
order, constant and check comes from the model. Lengths, counts and switch discriminators that encode
derives are written as holes and filled once the bytes they measure are written, and a derived value
that was given must equal what encode derives, as in the pure encoder.

The design that keeps the errors identical: the C encoder only ever *accepts*. It returns the frame's
bytes only for a message it is sure the pure encoder accepts and encodes to the same bytes, and None
for everything else: a construct it does not model, a value of a type it does not take exactly
(`type(x) is int` where the pure code asks that, exact bytes, bytearray, str, list, tuple and naive
datetime; an int subclass only when it hashes, compares, shifts and indexes like int, as IntEnum
members do), any value it would refuse (a range, an enum, a `valid` check, a fixed size, a derived field
given wrong, an arithmetic overflow) and a failed allocation. On None the runtime
(inlong_proto/backends/compiled_encode.py) calls the pure encoder, which then raises its own EncodeError (type,
field path and reason) or, where the C code was only cautious, encodes the message itself. So errors
come from one implementation by construction, and the C code only has to agree with the Python codec on
the messages it accepts (tests/test_native_encode.py checks that on vectors, generated messages and
mutated ones).

Supported (anything else leaves the spec without a compiled encoder, the reason written at the top of
the generated file): integers (u1..s8, fixed byte order), bit fields in whole-byte groups, fixed
`contents`, sized and size-eos bytes and strings (UTF-8, ASCII), nested struct types, inlined
python-type value and datetime types (with their -inlong-encode expressions and round-trip check),
switches over struct cases (a derived or a given discriminator, raw bytes outside the cases), lists
(repeat eos/expr) of integers, bytes and struct types, derived lengths and counts (linear inverses of
the size and count expressions), and `valid` (min, max, eq, any-of, in-enum, expr). A C scanner for the
same specs lives beside it (cgen.py, inlong_proto._compiled.scan); the two share only runtime.h.
"""
from __future__ import annotations

from .cgen import enum_value, failed_checks, fixed_sizeof, name_chain
from .emit import _DATETIME_PARTS, _derived_fields, _first_key_per_case
from .expr import GenerationError, Node, names_used, parse
from .model import INT_RANGE, Attr, SpecFile, TypeSpec

PACKAGE = "inlong_proto.generated.codec"
_SIZE = {"B": 1, "b": 1, "H": 2, "h": 2, "I": 4, "i": 4, "Q": 8, "q": 8}
_ENCODINGS = {"utf-8": "ipw_utf8", "utf8": "ipw_utf8", "ascii": "ipw_ascii"}


class Unsupported(GenerationError):
    """A construct the C encoder does not model: that spec gets no compiled encoder (pure Python runs)."""


def _c_string(data: bytes) -> str:
    return '"' + "".join(chr(b) if 32 <= b < 127 and chr(b) not in '"\\?' else f"\\{b:03o}" for b in data) + '"'


def _int_const(value: int) -> str:
    if not -2**63 <= value < 2**63:
        raise Unsupported(f"constant {value} does not fit in 64 bits")
    return "INT64_MIN" if value == -2**63 else f"INT64_C({value})"


class EScope:
    """Fields of one (possibly inlined) type as C locals; resolves expression names to C source."""

    def __init__(self, type_spec: TypeSpec, prefix: str):
        self.type_spec, self.prefix = type_spec, prefix
        self.children: dict[str, EScope] = {}
        self.current: str | EScope | None = None

    def var(self, name: str) -> str:
        return f"{self.prefix}{name}"

    def attr(self, name: str) -> Attr | None:
        return next((a for a in self.type_spec.seq if a.id == name), None)

    def child(self, attr: Attr) -> "EScope":
        if attr.id not in self.children:
            self.children[attr.id] = EScope(attr.user_type, f"{self.var(attr.id)}__")
        return self.children[attr.id]

    def into(self, rest: tuple[str, ...]) -> str:
        """An inlined value: itself (the int the message holds), or a name inside it."""
        if not rest:
            if self.type_spec.python_type == "value":
                return self.prefix[:-2]
            raise Unsupported(f"{self.type_spec.where}: a {self.type_spec.python_type} value inside an expression")
        return self.resolve(rest)

    def resolve(self, chain: tuple[str, ...]) -> str:
        head, rest = chain[0], chain[1:]
        if head == "_":
            if isinstance(self.current, EScope):
                return self.current.into(rest)
            if self.current is None or rest:
                raise Unsupported(f"{self.type_spec.where}: '_' here")
            return self.current
        attr = self.attr(head)
        if attr is not None:
            if attr.kind == "user" and attr.user_type.python_type == "value":
                return self.child(attr).into(rest)
            if attr.kind == "user" and attr.user_type.python_type == "datetime" and rest:
                return self.child(attr).resolve(rest)
            if attr.kind in ("int", "bits") and not attr.repeat and not rest:
                return self.var(head)
            raise Unsupported(f"{self.type_spec.where}: {'.'.join(chain)} in an expression")
        if head in self.type_spec.instances and not rest:
            return f"({to_c(self.type_spec.instances[head].value, self)})"
        raise Unsupported(f"{self.type_spec.where}: name {'.'.join(chain)!r} in an expression")

    def enum_member(self, enum_path: str, member: str) -> str:
        return _int_const(enum_value(self.type_spec, enum_path, member))

    def sizeof(self, name: str) -> int:
        return fixed_sizeof(self.type_spec, name)


_CHECKED = {"+": "ip_add", "-": "ip_sub", "*": "ip_mul", "/": "ip_fdiv", "%": "ip_fmod", "<<": "ip_shl",
            ">>": "ip_shr"}
_PLAIN = {"and": "&&", "or": "||", "==": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">=",
          "&": "&", "|": "|", "^": "^"}


def to_c(node: Node, scope: EScope) -> str:
    """A Kaitai expression as C over int64_t with Python's semantics where values stay in 64 bits: floor
    division and modulo, and every overflow setting `bad` (the message is then left to the pure encoder)."""
    kind = node.kind
    if kind == "num":
        return _int_const(node.value)
    if kind == "bool":
        return "1" if node.value else "0"
    if kind == "enum":
        return scope.enum_member(*node.value)
    if kind == "sizeof":
        return _int_const(scope.sizeof(node.value))
    if kind in ("name", "attr"):
        chain = name_chain(node)
        if chain is None or chain[0] in ("_io", "_parent", "_root") or chain[-1] in ("to_i", "length", "size") \
                and len(chain) > 1:
            raise Unsupported(f"{scope.type_spec.where}: {node.value} in an expression")
        return scope.resolve(chain)
    if kind == "unary":
        inner = to_c(node.args[0], scope)
        if node.value == "-":
            return f"ip_neg({inner}, &bad)"
        return f"({'!' if node.value == 'not' else '~'}{inner})"
    if kind == "binary":
        left, right = (to_c(a, scope) for a in node.args)
        if node.value in _CHECKED:
            return f"{_CHECKED[node.value]}({left}, {right}, &bad)"
        if node.value in _PLAIN:
            return f"({left} {_PLAIN[node.value]} {right})"
        raise Unsupported(f"operator {node.value}")
    if kind == "ternary":
        cond, then, other = (to_c(a, scope) for a in node.args)
        return f"({cond} ? {then} : {other})"
    raise Unsupported(f"expression node {kind}")


def _node(value) -> Node:
    return parse(value)


class Classes:
    """The generated message classes the encoders check exact types against (looked up once, at import)."""

    def __init__(self):
        self.index: dict[tuple[str, str], int] = {}

    def ref(self, type_spec: TypeSpec) -> str:
        key = (f"{PACKAGE}.{type_spec.spec.module}", type_spec.class_name)
        if key not in self.index:
            self.index[key] = len(self.index)
        return f"((PyTypeObject *)ip_cls[{self.index[key]}])"


class TypeEncoder:
    """The C encode function of one struct type: `static int enc_<name>(ipw *w, PyObject *obj)`, 1 when
    it wrote the type's bytes, 0 when the message is left to the pure encoder."""

    def __init__(self, owner: "SpecEncoder", type_spec: TypeSpec):
        self.owner, self.type_spec = owner, type_spec
        self.name = owner.fn_name(type_spec)
        self.lines: list[str] = []
        self.depth = 1
        self.temp = 0
        self.derived = {k: (v[0], v[1], v[2]) for k, v in _derived_fields(type_spec).items()}
        self.deferred: list[str] = []  # checks run once every value, derived ones included, is known
        self.measured = {attr.id for attr, how, _ in self.derived.values() if how == "size"}
        self.counted = {attr.id for attr, how, _ in self.derived.values() if how == "count"}

    def add(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)

    def new(self, stem: str) -> str:
        self.temp += 1
        return f"{stem}{self.temp}"

    def later(self, line: str) -> None:
        self.deferred.append(line)

    # ------------------------------------------------------------------ checks (emit.py's checks/checks_all)
    def checks(self, scope: EScope, attr: Attr, value: str | EScope) -> None:
        """The spec's `valid` and, for an integer, its wire type's range (as the pure encoder has them)."""
        valid = attr.valid or {}
        plain = value if isinstance(value, str) else \
            value.prefix[:-2] if value.type_spec.python_type == "value" else None
        for failed in failed_checks(valid, attr, lambda: self.plain(plain, attr),
                                    lambda expr: to_c(_node(expr), scope), _int_const):
            self.later(f"if ({failed}) return 0;")
        if attr.kind == "int":  # the wire type's range: always (the pure encoder's struct.pack refuses past it)
            low, high = INT_RANGE[attr.fmt[1]]
            self.later(f"if ({plain} < {_int_const(low)} || {plain} > {_int_const(min(high, 2**63 - 1))}) return 0;")
        if "expr" in valid:
            scope.current = value
            self.later(f"if (!({to_c(_node(valid['expr']), scope)})) return 0;")
            scope.current = None

    @staticmethod
    def plain(plain: str | None, attr: Attr) -> str:
        if plain is None:
            raise Unsupported(f"{attr.where}: min/max/eq/any-of on a non-integer field")
        return plain

    # ------------------------------------------------------------------ values
    def read_int(self, attr: Attr, source: str, var: str) -> None:
        """An integer or bit field from the message: `type(x) is int` for a plain integer, isinstance(int)
        for an enum or bit field (the pure encoder's tests); a bit field within its width."""
        reader = "ip_exact_int" if attr.kind == "int" and attr.enum is None else "ip_int_like"
        self.add(f"int64_t {var};")
        self.add(f"if (!{reader}({source}, &{var})) return 0;")
        if attr.kind == "bits":
            self.add(f"if ({var} < 0 || {var} > {_int_const((1 << attr.bits) - 1 if attr.bits < 64 else 2**63 - 1)}) "
                     f"return 0;")

    def inline_values(self, child: EScope, var: str, source: str | None) -> None:
        """An inlined python-type value or datetime: its parts, each digit from -inlong-encode, and the
        round trip (the digits must spell the value back); `source` is the message's object, if any."""
        python_type = child.type_spec.python_type
        if python_type == "datetime":
            parts = self.new("dt")
            self.add(f"int64_t {parts}[7];")
            self.add(f"if (!ip_datetime({source}, {parts})) return 0;")
            for index, part in enumerate(_DATETIME_PARTS):
                attr = child.attr(part)
                if attr is None:
                    continue
                self.add(f"int64_t {child.var(part)} = {parts}[{index}];")
                if attr is not None and attr.kind == "user" and attr.user_type.python_type == "value":
                    self.inline_values(child.child(attr), child.var(part), None)
            for attr in child.type_spec.seq:  # every field must be a part or a constant
                if attr.kind != "contents" and attr.id not in _DATETIME_PARTS:
                    raise Unsupported(f"{attr.where}: a datetime field that is not a date or time part")
        elif python_type == "value":
            if source is not None:
                self.add(f"int64_t {var};")
                self.add(f"if (!ip_exact_int({source}, &{var})) return 0;")
            for attr in child.type_spec.seq:
                if attr.kind == "contents":
                    continue
                if attr.kind != "int" or attr.encode_expr is None:
                    raise Unsupported(f"{attr.where}: a field of an inlined value that is not an encoded integer")
                child.current = var
                self.add(f"int64_t {child.var(attr.id)} = {to_c(attr.encode_expr, child)};")
                child.current = None
            if "value" not in child.type_spec.instances:
                raise Unsupported(f"{child.type_spec.where}: an inlined value without a value instance")
            self.add(f"if (bad || {to_c(child.type_spec.instances['value'].value, child)} != {var}) return 0;")
        else:
            raise Unsupported(f"{child.type_spec.where}: python-type {python_type}")

    def checks_all(self, scope: EScope) -> None:
        """emit.py's checks_all: the checks of every field of an inlined type, recursively."""
        for attr in scope.type_spec.seq:
            var = scope.var(attr.id)
            if attr.kind == "contents" or attr.repeat:  # a list's items are checked by their own type
                continue
            if attr.kind == "user" and attr.user_type.python_type == "struct" and attr.valid:
                raise Unsupported(f"{attr.where}: valid on a struct field")
            if attr.kind == "user" and attr.user_type.python_type != "struct":
                self.checks_all(scope.child(attr))
                self.checks(scope, attr, scope.child(attr))
            elif attr.kind in ("int", "bits"):
                self.checks(scope, attr, var)

    # ------------------------------------------------------------------ writing
    def write_fields(self, scope: EScope, top: bool) -> None:
        """Write the fields of scope's type in seq order (emit.py's pack_list order); `top` is the struct
        type itself (its fields come from the message), not a type inlined in it."""
        group: list[tuple[Attr, str]] = []
        width = 0
        for attr in scope.type_spec.seq:
            var = scope.var(attr.id)
            if attr.kind == "bits":
                if top and attr.id in self.derived:
                    raise Unsupported(f"{attr.where}: a derived bit field")
                group.append((attr, var))
                width += attr.bits
                if width in (8, 16, 32, 64):
                    shift, terms = width, []
                    for member, name in group:
                        shift -= member.bits
                        terms.append(f"((uint64_t){name} << {shift})" if shift else f"(uint64_t){name}")
                    self.add(f"if (!ipw_int(w, (int64_t)({' | '.join(terms)}), {width // 8}, 0)) return 0;")
                    group, width = [], 0
                elif width > 64:
                    raise Unsupported(f"{attr.where}: a bit-field group of {width} bits")
                continue
            if group:
                raise Unsupported(f"{attr.where}: bit fields before it do not fill whole bytes")
            if attr.kind == "float":
                raise Unsupported(f"{attr.where}: a float field")
            if attr.repeat:
                self.repeated(scope, attr, var)
            elif attr.kind == "contents":
                self.add(f"if (!ipw_bytes(w, {_c_string(attr.contents)}, {len(attr.contents)})) return 0;")
            elif attr.kind == "int":
                self.int_field(scope, attr, var, top)
            elif attr.kind == "user" and attr.user_type.python_type != "struct":
                self.write_fields(scope.child(attr), False)
            elif not top:
                raise Unsupported(f"{attr.where}: a {attr.kind} field inside an inlined type")
            elif attr.kind in ("bytes", "str"):
                self.sized_bytes(attr, var)
            elif attr.kind == "user":
                self.struct_field(attr, var)
            elif attr.kind == "switch":
                self.switch(scope, attr, var)
            else:
                raise Unsupported(f"{attr.where}: {attr.kind} field")
        if group:
            raise Unsupported(f"{scope.type_spec.where}: bit fields do not fill whole bytes")

    def int_field(self, scope: EScope, attr: Attr, var: str, top: bool) -> None:
        fmt = attr.fmt
        if fmt[0] not in "<>":
            raise Unsupported(f"{attr.where}: a byte order decided while decoding")
        size, le = _SIZE[fmt[1]], int(fmt[0] == "<")
        if top and attr.id in self.derived:
            self.add(f"Py_ssize_t {var}__at = ipw_hole(w, {size});")
            self.add(f"if ({var}__at < 0) return 0;")
            self.owner.patches.append(f"ip_put(w->p + {var}__at, (uint64_t){var}, {size}, {le});")
        else:
            self.add(f"if (!ipw_int(w, {var}, {size}, {le})) return 0;")

    def sized_bytes(self, attr: Attr, var: str) -> None:
        if attr.kind == "str":
            encoding = (attr.encoding or "").lower()
            if encoding not in _ENCODINGS:
                raise Unsupported(f"{attr.where}: encoding {attr.encoding}")
            writer = _ENCODINGS[encoding]
        else:
            writer = "ipw_raw"
        self.add(f"Py_ssize_t {var}__n;")
        self.add(f"if (!{writer}(w, o_{attr.id}, &{var}__n)) return 0;")
        if attr.size is not None and attr.size_expr is not None:
            self.add(f"if ({var}__n != {attr.size}) return 0;")
        if attr.id in self.measured:
            self.add(f"Py_ssize_t {var}__len = {var}__n;")

    def struct_field(self, attr: Attr, var: str) -> None:
        self.check_struct(attr.user_type, attr)
        if attr.id in self.measured:
            self.add(f"Py_ssize_t {var}__start = w->len;")
        self.add(f"if (!{self.owner.fn_name(attr.user_type)}(w, o_{attr.id})) return 0;")
        if attr.id in self.measured:
            self.add(f"Py_ssize_t {var}__len = w->len - {var}__start;")

    def check_struct(self, type_spec: TypeSpec, attr: Attr) -> None:
        if type_spec.python_type != "struct":
            raise Unsupported(f"{attr.where}: a {type_spec.python_type} value in a list or switch")
        if type_spec.endian_switch is not None or type_spec.switched_endian:
            raise Unsupported(f"{type_spec.where}: a byte order decided while decoding")
        self.owner.need(type_spec)

    def switch(self, scope: EScope, attr: Attr, var: str) -> None:
        on = attr.switch_on.value if attr.switch_on.kind == "name" else None
        derived = on in self.derived
        if not derived and any(chain[0] in self.derived for chain in names_used(attr.switch_on)):
            raise Unsupported(f"{attr.where}: a switch on a value encode derives later")
        given = None if derived else to_c(attr.switch_on, scope)
        if attr.id in self.measured:
            self.add(f"Py_ssize_t {var}__start = w->len;")
        keyword = "if"
        for key, case_type in _first_key_per_case(attr):
            self.check_struct(case_type, attr)
            self.add(f"{keyword} (Py_TYPE(o_{attr.id}) == {self.owner.classes.ref(case_type)}) {{")
            self.depth += 1
            if not derived:
                keys = " || ".join(f"{given} == {to_c(k, scope)}" for k, c in attr.case_types if c is case_type)
                self.add(f"if (!({keys})) return 0;")
            self.add(f"if (!{self.owner.fn_name(case_type)}(w, o_{attr.id})) return 0;")
            if derived:
                self.add(f"{scope.var(on)} = {to_c(key, scope)};")
            self.depth -= 1
            keyword = "} else if"
        if not derived:
            keys = " || ".join(f"{given} == {to_c(k, scope)}" for k, _ in attr.case_types)
            self.add(f"{keyword} (PyBytes_CheckExact(o_{attr.id}) || PyByteArray_CheckExact(o_{attr.id})) {{")
            self.depth += 1
            self.add(f"Py_ssize_t {var}__n;")
            self.add(f"if ({keys} || !ipw_raw(w, o_{attr.id}, &{var}__n)) return 0;")
            self.depth -= 1
        self.add("} else return 0;")
        if attr.id in self.measured:
            self.add(f"Py_ssize_t {var}__len = w->len - {var}__start;")

    def repeated(self, scope: EScope, attr: Attr, var: str) -> None:
        item = self.new("item")
        self.add(f"if (!ip_seq(o_{attr.id})) return 0;")
        if attr.id in self.counted:
            self.add(f"Py_ssize_t {var}__count = ip_seq_len(o_{attr.id});")
        self.add(f"for (Py_ssize_t i = 0; i < ip_seq_len(o_{attr.id}); i++) {{")
        self.depth += 1
        self.add(f"PyObject *{item} = ip_seq_item(o_{attr.id}, i);")
        if attr.kind == "user":
            self.check_struct(attr.user_type, attr)
            self.add(f"if (!{self.owner.fn_name(attr.user_type)}(w, {item})) return 0;")
        elif attr.kind == "int":
            if attr.fmt[0] not in "<>":
                raise Unsupported(f"{attr.where}: a byte order decided while decoding")
            low, high = INT_RANGE[attr.fmt[1]]
            self.add(f"int64_t {item}__v;")
            self.add(f"if (!ip_exact_int({item}, &{item}__v) || {item}__v < {_int_const(low)} || "
                     f"{item}__v > {_int_const(min(high, 2**63 - 1))}) return 0;")
            self.add(f"if (!ipw_int(w, {item}__v, {_SIZE[attr.fmt[1]]}, {int(attr.fmt[0] == '<')})) return 0;")
        elif attr.kind == "bytes":
            self.add(f"Py_ssize_t {item}__n;")
            self.add(f"if (!ipw_raw(w, {item}, &{item}__n)) return 0;")
        else:
            raise Unsupported(f"{attr.where}: a list of {attr.kind}")
        self.depth -= 1
        self.add("}")

    # ------------------------------------------------------------------ the whole function
    def emit(self) -> list[str]:
        t = self.type_spec
        scope = EScope(t, "f_")
        fields = [a for a in t.seq if a.kind != "contents"]
        cls = self.owner.classes.ref(t)
        self.owner.patches = []
        self.add(f"if (Py_TYPE(obj) != {cls} || PyTuple_GET_SIZE(obj) != {len(fields)}) return 0;")
        for index, attr in enumerate(fields):
            self.add(f"PyObject *o_{attr.id} = PyTuple_GET_ITEM(obj, {index});")
        # values first (as the pure encoder binds them), so that checks and switches can read any of them
        for attr in fields:
            var = scope.var(attr.id)
            if attr.id in self.derived:
                if attr.kind != "int":
                    raise Unsupported(f"{attr.where}: a derived {attr.kind} field")
                self.add(f"int64_t {var} = 0;")
            elif attr.repeat:
                continue
            elif attr.kind in ("int", "bits"):
                self.read_int(attr, f"o_{attr.id}", var)
            elif attr.kind == "user" and attr.user_type.python_type != "struct":
                self.inline_values(scope.child(attr), var, f"o_{attr.id}")
        self.write_fields(scope, True)
        for name, (attr, how, inverse) in self.derived.items():
            var = scope.var(name)
            if inverse is None and how != "switch":
                raise Unsupported(f"{attr.where}: no inverse for {name}")
            if how == "size":
                if attr.repeat:
                    raise Unsupported(f"{attr.where}: a size on a repeated field")
                self.add(f"{var} = {inverse(f'(int64_t){scope.var(attr.id)}__len')};")
            elif how == "count":
                self.add(f"{var} = {inverse(f'(int64_t){scope.var(attr.id)}__count')};")
            self.add(f"if (!ip_given_ok(o_{name}, {var})) return 0;")
        self.checks_all(scope)
        self.lines += ["    " + line for line in self.deferred]
        self.add("if (bad) return 0;")
        self.lines += ["    " + line for line in self.owner.patches]
        self.add("return 1;")
        return [f"/* {t.name} ({t.where}) */", f"static int {self.name}(ipw *w, PyObject *obj)", "{",
                "    int bad = 0;", "    (void)w;"] + self.lines + ["}", ""]


class SpecEncoder:
    """The encode functions of one frame spec: its root type and every struct type it reaches."""

    def __init__(self, spec: SpecFile, classes: Classes, done: dict[int, str]):
        self.spec, self.classes = spec, classes
        self.done = done  # id(type) -> function name, shared by every spec (a type is emitted once)
        self.pending: list[TypeSpec] = []
        self.patches: list[str] = []
        self.functions: list[list[str]] = []
        self.stack: list[int] = []

    @staticmethod
    def fn_name(type_spec: TypeSpec) -> str:
        path, scope = [], type_spec
        while scope is not None:
            path.append(scope.name)
            scope = scope.parent
        return f"enc_{type_spec.spec.module.replace('.', '_')}__{'__'.join(reversed(path))}"

    def need(self, type_spec: TypeSpec) -> None:
        if id(type_spec) in self.stack:
            raise Unsupported(f"{type_spec.where}: a recursive type")
        if id(type_spec) not in self.done:
            self.emit_type(type_spec)

    def emit_type(self, type_spec: TypeSpec) -> None:
        self.stack.append(id(type_spec))
        saved = self.patches
        lines = TypeEncoder(self, type_spec).emit()
        self.patches = saved
        self.stack.pop()
        self.done[id(type_spec)] = self.fn_name(type_spec)
        self.functions.append(lines)

    def emit(self) -> list[str]:
        root = self.spec.root
        if root.python_type != "struct" or root.switched_endian:
            raise Unsupported(f"{root.where}: the frame is not a struct of fixed byte order")
        self.need(root)
        name = root.name
        return [line for fn in self.functions for line in fn] + [
            f"static PyObject *encode_{name}(PyObject *self, PyObject *message)", "{",
            "    (void)self;",
            "    ip_out.len = 0;",
            f"    return ip_finish({self.fn_name(root)}(&ip_out, message));", "}", ""]


def emit_extension(specs: list[SpecFile]) -> str:
    """encode.c, the encoders' part of inlong_proto._compiled: its runtime (encode_runtime.h, included) and an
    encoder per frame spec the emitter supports; the others are listed with the reason, so `make generate` stays deterministic."""
    classes, done = Classes(), {}
    parts, methods, covered, skipped = [], [], [], []
    for spec in sorted(specs, key=lambda s: s.module):
        if not spec.root.options.get("frame"):
            continue
        trial_classes = Classes()
        trial_classes.index = dict(classes.index)
        trial_done = dict(done)
        encoder = SpecEncoder(spec, trial_classes, trial_done)
        try:
            lines = encoder.emit()
        except Unsupported as exc:
            skipped.append(f" * {spec.module}: {exc}")
            continue
        classes.index, done = trial_classes.index, trial_done
        parts += lines
        name = spec.root.name
        methods.append(f'    {{"encode_{name}", encode_{name}, METH_O, '
                       f'"encode_{name}(message) -> bytes, or None: left to the pure encoder"}},')
        covered.append(name)
    header = ["/* Generated by tools/ksygen/cgen_encode.py from specs/. Do not edit.",
              " *",
              " * Compiled encoders of frame specs (see cgen_encode.py): bytes for a message the pure encoder",
              " * accepts, None for anything else. Specs without one (pure Python only):"] + \
        (skipped or [" * (none)"]) + [" */", '#include "encode_runtime.h"', "",
                                      f"static PyObject *ip_cls[{max(len(classes.index), 1)}];", ""]
    by_index = sorted(classes.index.items(), key=lambda item: item[1])
    init = ["PyObject *ipc_encode_module(void)", "{",
            "    PyDateTime_IMPORT;",
            "    if (PyDateTimeAPI == NULL) return NULL;",
            "    static const char *const where[][2] = {"] + \
        [f"        {{{_c_string(module.encode())}, {_c_string(cls.encode())}}}," for (module, cls), _ in by_index] + \
        ["        {NULL, NULL}", "    };",
         f"    for (int i = 0; i < {len(by_index)}; i++) {{",
         "        PyObject *module = PyImport_ImportModule(where[i][0]);",
         "        if (module == NULL) return NULL;",
         "        ip_cls[i] = PyObject_GetAttrString(module, where[i][1]);",
         "        Py_DECREF(module);",
         "        if (ip_cls[i] == NULL) return NULL;",
         "        if (!PyType_Check(ip_cls[i])) {",
         "            PyErr_Format(PyExc_TypeError, \"%s.%s is not a class\", where[i][0], where[i][1]);",
         "            return NULL;", "        }", "    }",
         "    PyObject *m = PyModule_Create(&ip_module);",
         "    if (m == NULL) return NULL;",
         f"    PyObject *specs = Py_BuildValue(\"({'s' * len(covered)})\""
         f"{''.join(f', {_c_string(n.encode())}' for n in covered)});",
         "    if (specs == NULL || PyModule_AddObject(m, \"SPECS\", specs) < 0) {",
         "        Py_XDECREF(specs);", "        Py_DECREF(m);", "        return NULL;", "    }",
         "    return m;", "}", ""]
    footer = ["static PyMethodDef ip_methods[] = {"] + methods + ["    {NULL, NULL, 0, NULL}", "};", "",
              "static struct PyModuleDef ip_module = {PyModuleDef_HEAD_INIT, \"inlong_proto._compiled.encode\", "
              "\"Generated frame encoders (tools/ksygen/cgen_encode.py).\", -1, ip_methods, NULL, NULL, NULL, NULL};",
              ""]
    return "\n".join(header + parts + footer + init)
