"""Arrow row builders of the frame specs -> generated/rows/<protocol folder>/<spec>.py.

One module per frame spec. Its ``frame_columns(message)`` turns a decoded frame (a generated message, a tuple
whose items follow its FIELDS) into the protocol's frame columns of ``inlong_proto.core.arrow.frame_schema``,
in that order, as one tuple: nested structs as tuples, lists as lists, enums by member name, unsigned 64-bit
integers as Decimal, bytes as bytes. Columns of the protocol's other layout (DataProxy's request and response
share one table) are None. ``COLUMNS`` names them; core/arrow.py checks it against the schema it derives from
the codecs' FIELDS, so a stale module is an error, never a shifted column.

The walk is the one FIELDS describes (emit.py's fields_info): every field by its tuple index, a switch as one
column per distinct case type (named after the type), each case's columns null unless the message holds that
case. A struct type without fields is a BOOLEAN column (true where the row holds it, else null): Parquet, ORC
and Spark's file sinks refuse an empty struct. It is written here, as source, so that nothing is compiled at run time.
"""
from __future__ import annotations

from pathlib import Path

from .emit import _arrow, _distinct_cases, _import_alias
from .expr import GenerationError
from .model import SpecFile, TypeSpec

PACKAGE = "inlong_proto.generated.codec"

_HELPERS = '''

def _enum_name(names, value):
    """An enum field's column: its member name; a value the spec does not name as its decimal text."""
    if value is None:
        return None
    name = names.get(value)
    return name if name is not None else str(int(value))


def _decimal(value):
    return None if value is None else Decimal(value)


def _bytes(value):
    return None if value is None else bytes(value)
'''


class _RowModule:
    """The source of one frame spec's row module."""

    def __init__(self, spec: SpecFile):
        self.spec = spec
        self.imports: dict[str, SpecFile] = {}
        self.functions: dict[int, str] = {}  # id(TypeSpec) -> function name
        self.columns: dict[int, list[str]] = {}  # id(TypeSpec) -> its own columns, in order
        self.enums: dict[str, str] = {}  # constant name -> source
        self.lines: list[str] = []

    def ref(self, type_spec: TypeSpec, name: str) -> str:
        alias = _import_alias(type_spec.spec)
        self.imports[alias] = type_spec.spec
        return f"{alias}.{name}"

    def function_of(self, type_spec: TypeSpec) -> str:
        """The function returning a message's own columns (one per field, one per switch case)."""
        key = id(type_spec)
        if key in self.functions:
            return self.functions[key]
        if type_spec.python_type != "struct":
            raise GenerationError(f"{type_spec.where}: a switch case or struct column must be a struct type")
        name = self.functions[key] = f"_row{len(self.functions)}"
        items, columns = [], []
        fields = [attr for attr in type_spec.seq if attr.kind != "contents"]
        for index, attr in enumerate(fields):
            if attr.kind == "switch" and not attr.repeat:
                for case in _distinct_cases(attr):
                    value = "True" if _flag(case) else f"{self.function_of(case)}(m[{index}])"
                    items.append(f"({value} if type(m[{index}]) is {self.ref(case, case.class_name)} else None)")
                    columns.append(case.name)
            else:
                items.append(self.value_of(attr, f"m[{index}]", repeated=bool(attr.repeat)))
                columns.append(attr.id)
        self.columns[key] = columns
        self.lines += [f"def {name}(m):", f'    """{type_spec.class_name} of {type_spec.spec.module}."""',
                       f"    return ({''.join(item + ', ' for item in items)})", "", ""]
        return name

    def value_of(self, attr, expr: str, repeated: bool) -> str:
        if repeated:
            item = self.value_of(attr, "x", repeated=False)
            return f"(None if {expr} is None else [{item} for x in {expr}])"
        if attr.kind == "switch":
            raise GenerationError(f"{attr.where}: a repeated switch has no Arrow column")
        if attr.enum is not None:
            constant = f"_{_import_alias(attr.enum.owner.spec).lstrip('_').upper()}_{attr.enum.class_name.upper()}"
            members = {value: member for value, (member, _) in attr.enum.members.items()}
            self.enums[constant] = f"{constant} = {members!r}"
            return f"_enum_name({constant}, {expr})"
        if attr.kind == "user" and attr.user_type.python_type == "struct":
            if _flag(attr.user_type):
                return f"(None if {expr} is None else True)"
            return f"(None if {expr} is None else {self.function_of(attr.user_type)}({expr}))"
        if _arrow(attr, None).startswith("decimal128"):
            return f"_decimal({expr})"
        if attr.kind == "bytes":
            return f"_bytes({expr})"
        return expr

    def source(self, columns: list[str]) -> str:
        root = self.spec.root
        top = self.function_of(root)
        own = {name: index for index, name in enumerate(self.columns[id(root)])}
        if len(own) != len(self.columns[id(root)]):
            raise GenerationError(f"{root.where}: two of its columns share a name")
        frame = self.ref(root, root.class_name)
        picks = "".join(f"c[{own[column]}], " if column in own else "None, " for column in columns)
        head = [f'"""Generated by tools/ksygen/rows.py from specs/{self.spec.path.parent.name}/{self.spec.path.name}.'
                f' Do not edit.', "",
                f"frame_columns(message): a decoded {root.class_name} as its columns of the {root.options['protocol']!r}",
                'frame table (inlong_proto.core.arrow.frame_schema), in that order."""',
                "# flake8: noqa", "from __future__ import annotations", "", "from decimal import Decimal", ""]
        head += [f"import {PACKAGE}.{spec.module} as {alias}" for alias, spec in sorted(self.imports.items())]
        head += ["", f"PROTOCOL = {root.options['protocol']!r}", f"FRAME = {frame}",
                 f"COLUMNS = {tuple(columns)!r}"]
        head += [self.enums[name] for name in sorted(self.enums)]
        tail = ["def frame_columns(m):", f"    c = {top}(m)", f"    return ({picks})"]
        return "\n".join(head + [_HELPERS, ""] + self.lines + tail) + "\n"


def _flag(type_spec: TypeSpec) -> bool:
    """A struct type without fields (a message that is its type alone) is a BOOLEAN column, true where the
    row holds it: Parquet, ORC and Spark's file sinks cannot write an empty struct."""
    return type_spec.python_type == "struct" and not any(attr.kind != "contents" for attr in type_spec.seq)


def _columns(root: TypeSpec) -> list[str]:
    module = _RowModule(root.spec)
    module.function_of(root)
    return module.columns[id(root)]


def write(specs: list[SpecFile], out: Path) -> list[Path]:
    """One row module per frame spec under out/rows, in the codecs' folders; the paths written."""
    frames = sorted((spec for spec in specs if spec.root.options.get("frame")),
                    key=lambda spec: (spec.root.options["protocol"], spec.root.options.get("direction") or ""))
    merged: dict[str, list[str]] = {}  # protocol -> columns, its layouts' in registry order (frame_schema's)
    for spec in frames:
        columns = merged.setdefault(spec.root.options["protocol"], [])
        columns += [name for name in _columns(spec.root) if name not in columns]
    root = out / "rows"
    root.mkdir(parents=True, exist_ok=True)
    (root / "__init__.py").write_text('"""Generated Arrow row builders of the frame specs (tools/ksygen/rows.py). '
                                      'Do not edit."""\n')
    written = []
    for spec in frames:
        target = root / Path(*spec.module.split(".")).with_suffix(".py")
        target.parent.mkdir(parents=True, exist_ok=True)
        (target.parent / "__init__.py").write_text('"""Generated Arrow row builders. Do not edit."""\n')
        target.write_text(_RowModule(spec).source(merged[spec.root.options["protocol"]]))
        written.append(target)
    return written
