"""Emits a CPython extension (plain C API) that scans dumps of framed protocols straight into Arrow columns.

From the same parsed .ksy model as the Python codecs (model.py), one C function per frame spec decodes a
whole frame into a row of C values, and a scan loop appends rows to column buffers (values, validity
bitmaps, string offsets) laid out as Arrow expects them; inlong_proto/native.py wraps them with
pyarrow.Array.from_buffers. No Python object is made per frame.

The C scan only ever *accepts*: at the first position where it cannot decode a whole valid frame (a
failed check, too few bytes, a construct it does not model) it stops and says where, and the runtime
hands that stretch to the pure-Python scanner, which finds the error span and resynchronises exactly as
iter_frames does. So error rows, offsets and texts come from one implementation by construction, and
the C code only has to agree with the Python codec on valid frames (tests/test_native_backend.py checks).

Supported (anything else makes the spec's scanner absent, with the reason in the generated file): integer
fields (u1..s8 except u8), fixed `contents`, fixed-size inlined types (python-type value and datetime,
and fixed-size structs), one sized switch over fixed-size struct cases, `valid` (min, max, eq, any-of,
in-enum, expr) and value instances in expressions. Every offset and size comes from the model.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

from .expr import GenerationError, Node, names_used, parse
from .model import ARROW_INT, Attr, SpecFile, TypeSpec

_DATETIME_PARTS = ("year", "month", "day", "hour", "minute", "second", "millisecond")
_WIDTH = {"int8": 1, "int16": 2, "int32": 4, "int64": 8}
# C type and reader of each struct format character (sign applied by the cast).
_READ = {"B": ("uint8_t", 1), "b": ("int8_t", 1), "H": ("uint16_t", 2), "h": ("int16_t", 2),
         "I": ("uint32_t", 4), "i": ("int32_t", 4), "q": ("int64_t", 8)}
META = ("path", "offset", "length", "protocol", "direction", "message_type")


class Unsupported(GenerationError):
    """A construct the C scanner does not model: that spec gets no native scanner (pure Python runs)."""


@dataclass
class Column:
    name: str
    arrow: str  # int8..int64, string (enum name), timestamp[ms], struct
    index: int = -1  # position among every column of the scanner (meta columns first)
    enum: object = None
    children: list["Column"] = field(default_factory=list)

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
        attr = self.attr(head)
        if attr is not None:
            if attr.kind == "user" and attr.user_type.python_type != "struct":
                return self.child(attr).into(rest)
            if attr.kind == "int" and not rest:
                return self.var(head)
            raise Unsupported(f"{self.type_spec.where}: {'.'.join(chain)} in an expression")
        if head in self.type_spec.instances and not rest:
            return f"({to_c(self.type_spec.instances[head].value, self)})"
        raise Unsupported(f"{self.type_spec.where}: name {'.'.join(chain)!r} in an expression")

    def enum_member(self, enum_path: str, member: str) -> str:
        enum = self.type_spec.find_enum(enum_path)
        for value, (member_id, _) in enum.members.items():
            if member_id == member:
                return f"INT64_C({value})"
        raise GenerationError(f"{self.type_spec.where}: enum {enum_path} has no member {member!r}")

    def sizeof(self, name: str) -> int:
        size = self.type_spec.find_type(name).fixed_size
        if size is None:
            raise GenerationError(f"{self.type_spec.where}: sizeof<{name}> is not a fixed size")
        return size


def _chain(node: Node) -> tuple[str, ...] | None:
    if node.kind == "name":
        return (node.value,)
    if node.kind == "attr":
        base = _chain(node.args[0])
        return None if base is None else base + (node.value,)
    return None


_C_OPS = {"and": "&&", "or": "||"}


def to_c(node: Node, scope: CScope) -> str:
    """A Kaitai expression as C over int64_t; Python's floor division and modulo kept (ip_fdiv, ip_fmod)."""
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
        chain = _chain(node)
        if chain is None or chain[-1] in ("to_i", "length", "size") and len(chain) > 1:
            raise Unsupported(f"method .{node.value} in an expression")
        return scope.resolve(chain)
    if kind == "unary":
        op = {"-": "-", "not": "!", "~": "~"}[node.value]
        return f"({op}{to_c(node.args[0], scope)})"
    if kind == "binary":
        left, right = (to_c(a, scope) for a in node.args)
        if node.value == "/":
            return f"ip_fdiv({left}, {right}, &bad)"
        if node.value == "%":
            return f"ip_fmod({left}, {right}, &bad)"
        return f"({left} {_C_OPS.get(node.value, node.value)} {right})"
    if kind == "ternary":
        cond, then, other = (to_c(a, scope) for a in node.args)
        return f"({cond} ? {then} : {other})"
    raise Unsupported(f"expression node {kind}")


def _distinct_cases(attr: Attr) -> list[TypeSpec]:
    return list({id(t): t for _, t in attr.case_types}.values())


class FrameEmitter:
    """The decode function, row layout and column appends of one frame spec."""

    def __init__(self, spec: SpecFile):
        self.spec, self.root = spec, spec.root
        self.name = spec.root.name
        self.lines: list[str] = []
        self.depth = 1
        self.temp = 0
        self.columns: list[Column] = []  # top-level frame columns (frame_schema order)
        self.leaves: list[Column] = []  # every column, meta first, depth-first (the row's slots)
        self.directions: list[str | None] = []
        self.message_types: list[str] = []
        self.enums: dict[str, object] = {}

    # ------------------------------------------------------------------ columns
    def column_tree(self, type_spec: TypeSpec) -> list[Column]:
        out = []
        for attr in type_spec.seq:
            if attr.kind == "contents":
                continue
            if attr.repeat:
                raise Unsupported(f"{attr.where}: repeated field")
            if attr.kind == "switch":
                for case in _distinct_cases(attr):
                    out.append(Column(case.name, "struct", children=self.column_tree(self.fixed_struct(case))))
            elif attr.kind == "int":
                if attr.fmt[1] not in _READ:
                    raise Unsupported(f"{attr.where}: integer type {attr.fmt!r}")
                out.append(Column(attr.id, "string", enum=attr.enum) if attr.enum else
                           Column(attr.id, ARROW_INT[attr.fmt[1]]))
            elif attr.kind == "user":
                python_type = attr.user_type.python_type
                if python_type == "datetime":
                    out.append(Column(attr.id, "timestamp[ms]"))
                elif python_type == "value":
                    out.append(Column(attr.id, "int32"))
                else:
                    out.append(Column(attr.id, "struct", children=self.column_tree(self.fixed_struct(attr.user_type))))
            else:
                raise Unsupported(f"{attr.where}: {attr.kind} field")
        return out

    @staticmethod
    def fixed_struct(type_spec: TypeSpec) -> TypeSpec:
        if type_spec.fixed_size is None or type_spec.endian_switch is not None or type_spec.switched_endian:
            raise Unsupported(f"{type_spec.where}: a struct that is not of fixed size and order")
        return type_spec

    def number(self, columns: list[Column]) -> None:
        for column in columns:
            column.index = len(self.leaves)
            self.leaves.append(column)
            self.number(column.children)

    # ------------------------------------------------------------------ decode
    def add(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)

    def new(self, stem: str) -> str:
        self.temp += 1
        return f"{stem}{self.temp}"

    def need(self, base: str, k: int, size: int, lim: str) -> None:
        self.add(f"if ({base} + {k + size} > {lim}) return -1;")

    def read(self, attr: Attr, at: str) -> str:
        ctype, size = _READ[attr.fmt[1]]
        if size == 1:
            return f"(int64_t)({ctype})b[{at}]"
        return f"(int64_t)({ctype})ip_rd{size}{'le' if attr.fmt[0] == '<' else 'be'}(b + {at})"

    def checks(self, scope: CScope, attr: Attr, value: str | CScope) -> None:
        valid = attr.valid or {}
        plain = value if isinstance(value, str) else None
        if attr.enum is not None and valid.get("in-enum"):
            known = " || ".join(f"{plain} == INT64_C({v})" for v in attr.enum.members)
            self.add(f"if (!({known})) return -1;")
        if "eq" in valid:
            self.add(f"if ({self.need_plain(plain, attr)} != {to_c(parse(valid['eq']), scope)}) return -1;")
        if "any-of" in valid:
            options = " || ".join(f"{self.need_plain(plain, attr)} == {to_c(parse(v), scope)}" for v in valid["any-of"])
            self.add(f"if (!({options})) return -1;")
        if "min" in valid:
            self.add(f"if ({self.need_plain(plain, attr)} < {to_c(parse(valid['min']), scope)}) return -1;")
        if "max" in valid:
            self.add(f"if ({self.need_plain(plain, attr)} > {to_c(parse(valid['max']), scope)}) return -1;")
        if "expr" in valid:
            scope.current = value
            self.add(f"if (!({to_c(parse(valid['expr']), scope)})) return -1;")
            scope.current = None

    @staticmethod
    def need_plain(plain: str | None, attr: Attr) -> str:
        if plain is None:
            raise Unsupported(f"{attr.where}: min/max/eq on a non-integer field")
        return plain

    def seq(self, scope: CScope, base: str, k: int, lim: str, columns: dict[str, Column]) -> tuple[str, int]:
        """Emit the fields of scope's type from b[base + k]; returns where they end (base, k)."""
        type_spec = scope.type_spec
        fixed = type_spec.fixed_size
        if fixed is not None:
            self.need(base, k, fixed, lim)  # one bound check for a fixed-size type
        for attr in type_spec.seq:
            column = columns.get(attr.id)
            if attr.kind == "contents":
                if fixed is None:
                    self.need(base, k, attr.size, lim)
                self.add(f"if (memcmp(b + {base} + {k}, {_c_string(attr.contents)}, {attr.size}) != 0) return -1;")
                k += attr.size
            elif attr.kind == "int":
                if fixed is None:
                    self.need(base, k, attr.size, lim)
                var = scope.var(attr.id)
                self.add(f"int64_t {var} = {self.read(attr, f'{base} + {k}')};")
                self.checks(scope, attr, var)
                if column is not None:
                    self.store(column, var)
                k += attr.size
            elif attr.kind == "user":
                child = scope.child(attr)
                user = attr.user_type
                size = self.fixed_struct(user).fixed_size
                if fixed is None:
                    self.need(base, k, size, lim)
                sub = {c.name: c for c in column.children} if column is not None and column.arrow == "struct" else {}
                self.seq(child, base, k, lim, sub)
                if user.python_type == "value":
                    self.checks(scope, attr, child)
                    if column is not None:
                        self.store(column, child.resolve(("value",)))
                elif user.python_type == "datetime":
                    self.checks(scope, attr, child)
                    parts = ", ".join(child.resolve((part,)) for part in _DATETIME_PARTS)
                    ms = f"{scope.var(attr.id)}__ms"
                    self.add(f"int64_t {ms};")
                    self.add(f"if (!ip_datetime_ms({parts}, &{ms})) return -1;")
                    if column is not None:
                        self.store(column, ms)
                else:
                    if attr.valid:
                        raise Unsupported(f"{attr.where}: valid on a struct field")
                    if column is not None:
                        self.add(f"r->ok[{column.index}] = 1;")
                k += size
            elif attr.kind == "switch":
                base, k = self.switch(scope, attr, base, k, lim)
            else:
                raise Unsupported(f"{attr.where}: {attr.kind} field")
        return base, k

    def switch(self, scope: CScope, attr: Attr, base: str, k: int, lim: str) -> tuple[str, int]:
        if attr.size_eos or attr.size_expr is None:
            raise Unsupported(f"{attr.where}: a switch without a size")
        valid = attr.valid or {}
        if set(valid) - {"expr"} or any(chain[0] in ("_", "_io") for chain in
                                         (names_used(parse(valid["expr"])) if "expr" in valid else ())):
            raise Unsupported(f"{attr.where}: a check on the switch's value")
        if "expr" in valid:
            self.add(f"if (!({to_c(parse(valid['expr']), scope)})) return -1;")
        size, start, stop = self.new("size"), self.new("start"), self.new("stop")
        self.add(f"int64_t {size} = {to_c(attr.size_expr, scope)};")
        self.add(f"if ({size} < 0 || {size} > {lim} - ({base} + {k})) return -1;")
        self.add(f"Py_ssize_t {start} = {base} + {k}, {stop} = {start} + (Py_ssize_t){size};")
        on = self.new("on")
        self.add(f"int64_t {on} = {to_c(attr.switch_on, scope)};")
        cases = _distinct_cases(attr)
        keyword = "if"
        for case in cases:
            keys = " || ".join(f"{on} == {to_c(key, scope)}" for key, t in attr.case_types if t is case)
            self.add(f"{keyword} ({keys}) {{")
            self.depth += 1
            column = next(c for c in self.columns if c.name == case.name)
            direction = case.options.get("direction")
            if direction not in self.directions:
                self.directions.append(direction)
            self.add(f"if (want && want != {self.direction_code(direction)}) return -1;")
            self.add(f"r->kind = {len(self.message_types)};")
            self.message_types.append(case.name)
            self.add(f"r->dir = {self.directions.index(direction)};")
            self.add(f"r->ok[{column.index}] = 1;")
            self.seq(CScope(self, case, f"{scope.var(attr.id)}__{case.name}__"), start, 0, stop,
                     {c.name: c for c in column.children})
            self.depth -= 1
            keyword = "} else if"
        self.add("} else return -1;  /* a case the spec does not name: left to the Python codec */")
        return stop, 0

    @staticmethod
    def direction_code(direction: str | None) -> int:
        return {"request": 1, "response": 2}.get(direction, 3)

    def store(self, column: Column, value: str) -> None:
        self.add(f"r->v[{column.index}] = {value}; r->ok[{column.index}] = 1;")

    # ------------------------------------------------------------------ the whole scanner
    def emit(self) -> list[str]:
        root = self.root
        if root.switched_endian:
            raise Unsupported(f"{root.where}: switched byte order")
        self.columns = self.column_tree(root)
        self.number([Column(name, "meta") for name in META] + self.columns)
        switch = next((a for a in root.seq if a.kind == "switch"), None)
        scope = CScope(self, root, "f_")
        body_start = len(self.lines)
        if switch is None:  # the frame type itself is the message
            direction = root.options.get("direction")
            self.directions.append(direction)
            self.message_types.append(root.class_name)
            if direction is not None:
                self.add(f"if (want && want != {self.direction_code(direction)}) return -1;")
            self.add("r->kind = 0; r->dir = 0;")
        base, k = self.seq(scope, "0", 0, "end", {c.name: c for c in self.columns})
        decode = self.lines[body_start:]
        name = self.name
        n_leaves = len(self.leaves)
        out = [f"/* ---- {name}: specs/{self.spec.path.parent.name}/{self.spec.path.name} ---- */",
               f"#define NCOL_{name} {n_leaves}",
               f"typedef struct {{ int kind, dir; int64_t v[{n_leaves}]; unsigned char ok[{n_leaves}]; }} row_{name};",
               "",
               f"/* One whole valid {name} at b[0:end): its size, or -1 (invalid, incomplete or not modelled). */",
               f"static Py_ssize_t decode_{name}(const uint8_t *b, Py_ssize_t end, int want, row_{name} *r)",
               "{", "    int bad = 0;"] + decode + [
               "    if (bad) return -1;",
               f"    return {base} + {k};", "}", ""]
        # message type and direction names, by row kind / dir
        out.append(f"static const char *const MTYPE_{name}[] = {{{', '.join(json.dumps(t) for t in self.message_types)}}};")
        out.append(f"static const char *const DIR_{name}[] = {{{', '.join(json.dumps(d) if d else 'NULL' for d in self.directions)}}};")
        for column in self.leaves:
            if column.enum is not None and column.enum.class_name not in self.enums:
                self.enums[column.enum.class_name] = column.enum
        for enum_name, enum in self.enums.items():
            out += [f"static const char *enum_{name}_{enum_name}(int64_t v)", "{", "    switch (v) {"]
            out += [f"    case INT64_C({value}): return {json.dumps(member)};" for value, (member, _) in enum.members.items()]
            out += ["    default: return NULL;", "    }", "}"]
        out += ["", f"static void append_{name}(ipcol *c, const row_{name} *r, Py_ssize_t pos, Py_ssize_t size, "
                    "const char *path, Py_ssize_t path_len)", "{",
                "    ip_str(&c[0], path, path_len);", "    ip_i64(&c[1], pos, 1);", "    ip_i64(&c[2], size, 1);",
                f"    ip_str(&c[3], {json.dumps(self.spec.root.options['protocol'])}, "
                f"{len(self.spec.root.options['protocol'])});",
                f"    ip_cstr(&c[4], DIR_{name}[r->dir]);", f"    ip_cstr(&c[5], MTYPE_{name}[r->kind]);"]
        for column in self.leaves[len(META):]:
            i = column.index
            if column.arrow == "struct":
                out.append(f"    ip_bit(&c[{i}], r->ok[{i}]);")
            elif column.enum is not None:
                out.append(f"    if (r->ok[{i}]) ip_enum(&c[{i}], enum_{name}_{column.enum.class_name}(r->v[{i}]), r->v[{i}]); "
                           f"else ip_cstr(&c[{i}], NULL);")
            elif column.arrow == "timestamp[ms]":
                out.append(f"    ip_i64(&c[{i}], r->v[{i}], r->ok[{i}]);")
            else:
                out.append(f"    ip_i{_WIDTH[column.arrow] * 8}(&c[{i}], r->v[{i}], r->ok[{i}]);")
        out += ["}", ""]
        kinds = ", ".join("IP_STR" if c.arrow == "string" or c.name in ("path", "protocol", "direction", "message_type")
                          and c.arrow == "meta" else "IP_STRUCT" if c.arrow == "struct" else "IP_FIXED"
                          for c in self.leaves)
        out += [f"static const int KIND_{name}[] = {{{kinds}}};",
                f"static PyObject *scan_{name}(PyObject *self, PyObject *args)", "{",
                f"    IP_SCAN_BODY(row_{name}, decode_{name}, append_{name}, NCOL_{name}, KIND_{name})", "}", ""]
        return out

    def describe(self) -> dict:
        return {"spec": self.name, "protocol": self.root.options["protocol"],
                "direction": self.root.options.get("direction"),
                "columns": [c.describe() for c in self.columns]}


def emit_extension(specs: list[SpecFile], runtime: str) -> str:
    """The C source of the extension: the shared runtime (buffers, readers) and a scanner per frame spec
    the emitter supports; the others are listed with the reason, so `make generate` stays deterministic."""
    parts, methods, described, skipped = [], [], {}, []
    for spec in sorted(specs, key=lambda s: s.module):
        if not spec.root.options.get("frame"):
            continue
        emitter = FrameEmitter(spec)
        try:
            lines = emitter.emit()
        except Unsupported as exc:
            skipped.append(f" * {spec.module}: {exc}")
            continue
        parts += lines
        methods.append(f'    {{"scan_{emitter.name}", scan_{emitter.name}, METH_VARARGS, '
                       f'"scan_{emitter.name}(buffer, pos, limit, want, max_rows, path) -> (stop, rows, columns)"}},')
        described[emitter.name] = emitter.describe()
    header = ["/* Generated by tools/ksygen/cgen.py from specs/. Do not edit.",
              " *",
              " * Columnar scanners of whole valid frames (see cgen.py); specs without one (pure Python only):"] + \
        (skipped or [" * (none)"]) + [" */", runtime]
    describe = json.dumps(described, sort_keys=True, separators=(",", ":"))
    footer = ["static PyMethodDef ip_methods[] = {"] + methods + ["    {NULL, NULL, 0, NULL}", "};", "",
              "static struct PyModuleDef ip_module = {PyModuleDef_HEAD_INIT, \"_native\", "
              "\"Generated columnar frame scanners (tools/ksygen/cgen.py).\", -1, ip_methods, NULL, NULL, NULL, NULL};", "",
              "PyMODINIT_FUNC PyInit__native(void)", "{",
              "    PyObject *m = PyModule_Create(&ip_module);",
              "    if (m == NULL) return NULL;",
              f"    if (PyModule_AddStringConstant(m, \"DESCRIBE\", {_c_string(describe.encode())}) < 0) {{",
              "        Py_DECREF(m);", "        return NULL;", "    }",
              "    return m;", "}", ""]
    return "\n".join(header + parts + footer)
