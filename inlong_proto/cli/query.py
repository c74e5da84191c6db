"""Fields and filters over decoded items, for `decode -e PATH` and `decode -Y EXPR` (tshark's letters).

A path names a value by its dotted path in decode's JSON: ``payload.group_id``, ``flow.client``,
``body.data_response.data``; ``[n]`` picks a list element (``payload.attrs[0]``). Through a list
without an index a path reaches every element, and a test holds when it holds for any value reached
(tshark's rule for repeated fields).

The filter language, parsed with Python's ``ast`` and a whitelist of node types (never ``eval``)::

    message_type == "text_message" and payload.record_count > 3
    flow.server_port in (46801, 8123) or not exists error
    body.data_response.data contains "42" || protocol eq "broadcast"
    payload.group_id matches "^demo_"          # a regular expression, searched

* comparisons: ``== != < <= > >=`` (or ``eq ne lt le gt ge``), ``in`` / ``not in`` a tuple of literals;
* ``contains`` (a substring, or a list member), ``matches`` (a regular expression in RE2's syntax, searched:
  RE2 runs in time linear in the text, so no pattern can make a hostile value take long; it has no
  backreferences or lookaround, and a pattern it refuses is a QueryError);
* ``exists PATH``, or a bare PATH: the path reaches a value that is not null;
* ``and or not`` (or ``&& || !``), parentheses; literals: strings, numbers, ``true false``.

A value that is missing, or null, satisfies no comparison; ``!=`` holds when every value reached differs.
Values of different kinds (text and a number) are not equal and not ordered. An expression longer than
MAX_LENGTH characters or nested deeper than MAX_DEPTH is refused, as is a unary minus on anything but a number.
"""
from __future__ import annotations

import ast
import difflib
import importlib
import io
import token
import tokenize
from dataclasses import dataclass
from typing import Callable

MAX_LENGTH = 65536  # characters of one -Y expression or -e path
MAX_DEPTH = 100  # nesting of its syntax tree: deeper would exhaust Python's stack (ast, the tests, unparse)


class QueryError(ValueError):
    """A malformed filter or path, or a path that no item of the protocol has."""


class _TooLarge(QueryError):
    """An expression or path past MAX_LENGTH or MAX_DEPTH."""


@dataclass(frozen=True)
class Path:
    text: str
    parts: tuple[str | int, ...]

    def values(self, record: dict) -> list:
        """Every value the path reaches (lists without an index are walked through), nulls left out."""
        return self._walk(record)[0]

    def pick(self, record: dict):
        """The value for an output column: the value, a list when the path went through a list, or None."""
        found, fanned = self._walk(record)
        return found if fanned else (found[0] if found else None)

    def _walk(self, record: dict) -> tuple[list, bool]:
        found, fanned = [record], False
        for part in self.parts:
            reached = []
            for value in found:
                if isinstance(part, int):
                    if isinstance(value, list) and -len(value) <= part < len(value):
                        reached.append(value[part])
                    continue
                fanned = fanned or isinstance(value, list)
                for item in (value if isinstance(value, list) else [value]):
                    if isinstance(item, dict) and item.get(part) is not None:
                        reached.append(item[part])
            found = reached
        return found, fanned


def _path_of(node: ast.AST, source: str) -> Path:
    parts: list[str | int] = []
    while True:
        if isinstance(node, ast.Name):
            parts.append(node.id)
            break
        if isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and type(node.slice.value) is int:
            parts.append(node.slice.value)
            node = node.value
        else:
            raise QueryError(f"{source!r}: not a field path (dotted names, [n] for a list element)")
    parts.reverse()
    return Path(".".join(p if isinstance(p, str) else f"[{p}]" for p in parts).replace(".[", "["), tuple(parts))


# tshark's words and symbols, as the Python tokens they become before parsing
_WORDS = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">=", "contains": "@", "matches": "%",
          "exists": "~", "true": "True", "false": "False", "and": "and", "or": "or", "not": "not", "in": "in"}
_SYMBOLS = {"&&": "and", "||": "or", "!": "not"}


def _python(expression: str) -> str:
    """The expression in Python's syntax: tshark's words and symbols replaced, token by token."""
    out, pending = [], ""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(expression).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError) as exc:
        raise QueryError(f"cannot read the filter {expression!r}: {exc}") from None
    for tok in tokens:
        text = tok.string
        if tok.type in (token.NEWLINE, token.NL, token.ENDMARKER, token.INDENT, token.DEDENT) or text.isspace():
            continue
        if text in ("&", "|") and pending == text:  # the second half of && or ||
            out.append(_SYMBOLS[text * 2])
            pending = ""
            continue
        if pending:
            raise QueryError(f"{expression!r}: {pending!r} is not an operator (use && or and, || or or)")
        if text in ("&", "|"):
            pending = text
            continue
        if tok.type == token.NAME and text.lower() in _WORDS and text not in ("True", "False"):
            out.append(_WORDS[text.lower()])
        elif text == "!":
            out.append("not")
        elif tok.type == token.OP and text in ("==", "!=", "<", "<=", ">", ">=", "(", ")", ",", ".", "[", "]", "-"):
            out.append(text)
        elif tok.type in (token.NAME, token.NUMBER, token.STRING):
            out.append(text)
        else:
            raise QueryError(f"{expression!r}: unexpected {text!r} at column {tok.start[1] + 1}")
    if pending:
        raise QueryError(f"{expression!r}: {pending!r} is not an operator (use && or and, || or or)")
    return " ".join(out)


def _parse(text: str, what: str) -> ast.expr:
    """text (a -Y expression or -e path) as a syntax tree, refused with a QueryError when it is too long or
    too deeply nested to build and walk within Python's stack (ast.parse itself raises RecursionError on a
    few thousand nested operators, and every later step recurses too)."""
    if len(text) > MAX_LENGTH:
        raise _TooLarge(f"{what} is {len(text):,} characters long; at most {MAX_LENGTH:,} are read")
    try:
        body = ast.parse(_python(text), mode="eval").body
    except SyntaxError as exc:
        raise QueryError(f"cannot parse {what} {text!r}: {exc.msg}") from None
    except (RecursionError, MemoryError):
        raise _TooLarge(f"{what} is nested too deeply (at most {MAX_DEPTH} levels)") from None
    stack = [(body, 1)]
    while stack:  # a loop, not recursion: the tree may be as deep as the parser allowed
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise _TooLarge(f"{what} is nested too deeply (at most {MAX_DEPTH} levels)")
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return body


_COMPARE = {ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b, ast.Lt: lambda a, b: a < b,
            ast.LtE: lambda a, b: a <= b, ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b}


def _same_kind(a, b) -> bool:
    number = (int, float)
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool)
    return (isinstance(a, number) and isinstance(b, number)) or type(a) is type(b)


def _flat(values: list) -> list:
    return [v for value in values for v in (value if isinstance(value, list) else [value])]


class Filter:
    """A compiled -Y expression: call it with an item's JSON dict. paths: every path it reads."""

    def __init__(self, expression: str):
        self.expression = expression
        self.paths: list[Path] = []
        self.test = self._test(_parse(expression, "the filter"))

    def __call__(self, record: dict) -> bool:
        """Whether the item matches. The expression was checked up front; should a test still fail on some
        item's values, that is one QueryError naming the filter, never a traceback."""
        try:
            return self.test(record)
        except (TypeError, ValueError, RecursionError) as exc:
            raise QueryError(f"the filter {self.expression!r} failed on an item: {exc}") from None

    # each node becomes a closure: a test (record -> bool) or an operand (record -> list of values)
    def _test(self, node: ast.AST) -> Callable[[dict], bool]:
        if isinstance(node, ast.BoolOp):
            parts = [self._test(v) for v in node.values]
            if isinstance(node.op, ast.And):
                return lambda r: all(p(r) for p in parts)
            return lambda r: any(p(r) for p in parts)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            inner = self._test(node.operand)
            return lambda r: not inner(r)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):  # exists PATH
            return self._exists(node.operand)
        if isinstance(node, ast.Compare):
            return self._compare(node)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):  # contains
            left, right = self._operand(node.left), self._literal(node.right, "contains")

            def contains(r):  # a substring only of text by text (5 in "a5" is a TypeError)
                return any((right in v) if isinstance(v, list) or (isinstance(v, str) and isinstance(right, str))
                           else False for v in left(r))
            return contains
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):  # matches
            left, regex = self._operand(node.left), self._regex(self._literal(node.right, "matches"))
            return lambda r: any(isinstance(v, str) and regex.search(v.encode("utf-8", "surrogatepass")) is not None
                                 for v in left(r))
        if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript)):
            return self._exists(node)
        if isinstance(node, ast.Constant) and type(node.value) is bool:
            return lambda r: node.value
        raise QueryError(f"{self.expression!r}: {ast.unparse(node)!r} is not a test (compare a field, "
                         f"or name one to test that it exists)")

    def _regex(self, pattern):
        """The pattern compiled by RE2 (google-re2), whose matching time is linear in the text: Python's re
        backtracks, and took 18.6 s for ^(a+)+$ on one 30-character value. Errors are not logged (RE2
        would write them to stderr itself) but raised here; searching UTF-8 bytes skips the wrapper's
        mapping of match offsets back to characters, which only a caller wanting the match would need."""
        import re2

        options = re2.Options()
        options.log_errors, options.never_capture = False, True
        try:
            return re2.compile(str(pattern), options=options)
        except re2.error as exc:
            reason = exc.args[0].decode("utf-8", "replace") if exc.args and isinstance(exc.args[0], bytes) else exc
            raise QueryError(f"{self.expression!r}: bad regular expression {pattern!r} for RE2 (no backreferences "
                             f"or lookaround): {reason}") from None

    def _exists(self, node: ast.AST) -> Callable[[dict], bool]:
        path = self._path(node)
        return lambda r: bool(path.values(r))

    def _path(self, node: ast.AST) -> Path:
        path = _path_of(node, ast.unparse(node))
        self.paths.append(path)
        return path

    def _literal(self, node: ast.AST, what: str):
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            if not (isinstance(node.operand, ast.Constant) and type(node.operand.value) in (int, float)):
                raise QueryError(f"{self.expression!r}: '-' takes a number, not {ast.unparse(node.operand)}")
            node = ast.Constant(-node.operand.value)
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, int, float, bool)):
            return node.value
        raise QueryError(f"{self.expression!r}: {what} takes a literal (a string or a number), "
                         f"not {ast.unparse(node)!r}")

    def _operand(self, node: ast.AST) -> Callable[[dict], list]:
        if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript)):
            path = self._path(node)
            return lambda r: _flat(path.values(r))
        value = self._literal(node, "a comparison")
        return lambda r: [value]

    def _compare(self, node: ast.Compare) -> Callable[[dict], bool]:
        tests, left = [], node.left
        for op, right in zip(node.ops, node.comparators):
            if isinstance(op, (ast.In, ast.NotIn)):
                if not isinstance(right, (ast.Tuple, ast.List)):
                    raise QueryError(f"{self.expression!r}: 'in' takes a list of literals: (1, 2) or (\"a\", \"b\")")
                options = [self._literal(item, "in") for item in right.elts]
                values = self._operand(left)
                negate = isinstance(op, ast.NotIn)
                tests.append(lambda r, values=values, options=options, negate=negate: (
                    (lambda found: bool(found) and (all(v not in options for v in found) if negate
                                                    else any(v in options for v in found)))(values(r))))
            elif type(op) in _COMPARE:
                a, b, compare = self._operand(left), self._operand(right), _COMPARE[type(op)]
                if isinstance(op, ast.NotEq):
                    tests.append(lambda r, a=a, b=b: (lambda x, y: bool(x and y) and all(
                        not (_same_kind(u, v) and u == v) for u in x for v in y))(a(r), b(r)))
                else:
                    tests.append(lambda r, a=a, b=b, compare=compare: any(
                        _same_kind(u, v) and compare(u, v) for u in a(r) for v in b(r)))
            else:
                raise QueryError(f"{self.expression!r}: unsupported comparison {type(op).__name__}")
            left = right
        return lambda r: all(test(r) for test in tests)


def field_path(text: str) -> Path:
    """A -e argument as a Path."""
    try:
        body = _parse(text, "the field path")
    except _TooLarge:  # said as it is: the text itself may be huge
        raise
    except QueryError:
        raise QueryError(f"{text!r} is not a field path (dotted names, [n] for a list element)") from None
    return _path_of(body, text)


# ------------------------------------------------------------------------------------------ known paths
ANY = None  # a subtree whose keys are not known statically: anything below is accepted


def _fields_tree(cls) -> dict:
    """The JSON keys a generated message class's to_dict gives (values.to_plain), from its FIELDS."""
    tree: dict = {}
    for info in getattr(cls, "FIELDS", ()):
        if info.kind == "switch":
            tree[info.name] = {case: _fields_tree(case_cls) for case, case_cls in info.detail}
        elif info.kind == "struct":
            tree[info.name] = _fields_tree(info.detail)
        elif info.kind == "list":  # detail: the element's FieldInfo
            tree[info.name] = _fields_tree(info.detail.detail) if info.detail.kind == "struct" else {}
        else:  # bytes (and text that is not UTF-8) print as {"hex": ...}
            tree[info.name] = {"hex": {}} if info.kind in ("bytes", "str") else {}
    return tree


def _merge(a: dict | None, b: dict | None) -> dict | None:
    if a is ANY or b is ANY:
        return ANY
    out = dict(a)
    for key, value in b.items():
        out[key] = _merge(out[key], value) if key in out else value
    return out


def known_tree(protocol: str, *, records: bool = False) -> dict | None:
    """Every path decode's JSON can hold for this protocol (auto: any protocol), as a tree of keys, for
    rejecting a misspelt -e / -Y path up front. Payloads (decode --payload, the layers the runtime adds)
    and EventMesh HTTP messages are not described by FIELDS, so below them anything is accepted."""
    from inlong_proto.core import protocols
    from inlong_proto.capture import Flow

    capture = {"flow": {name: {} for name in Flow._fields}, "stream": {}, "timestamp": {}, "timestamp_ns": {},
               "file_offset": {}, "file": {}}
    if records:
        from inlong_proto.dataproxy.records import RecordRow

        row = {name: {} for name in RecordRow.__dataclass_fields__ if name != "record_attrs"}
        return {**row, "attributes": ANY, "error": _ERROR, **capture}
    tree = {"protocol": {}, "offset": {}, "length": {}, "message_type": {}, "direction": {}, "error": _ERROR,
            "raw": ANY, "payload": {}, **capture}
    names = [*protocols.names(), *protocols.STREAM_PROTOCOLS] if protocol == "auto" else [protocol]
    for name in names:
        if name in protocols.STREAM_PROTOCOLS:  # messages, not generated frames: each class names its keys
            module = importlib.import_module(protocols.STREAM_PROTOCOLS[name])
            tree = _merge(tree, {key: ANY for cls in module.MESSAGE_TYPES for key in cls.JSON_KEYS})
            continue
        for cls in protocols.get(name).frame_types:
            tree = _merge(tree, _fields_tree(cls))
        if name in protocols.PAYLOAD_TYPES:
            keys = protocols.function(protocols.PAYLOAD_TYPES[name]).JSON_KEYS
            tree["payload"] = _merge(tree["payload"], {key: ANY for key in keys})
    return tree


_ERROR = {"kind": {}, "offset": {}, "field": {}, "reason": {}}


def check_known(path: Path, tree: dict | None, protocol: str) -> None:
    """Raise QueryError when no item of `protocol` can have the path."""
    node = tree
    for depth, part in enumerate(path.parts):
        if node is ANY:
            return
        if isinstance(part, int):
            continue
        if part not in node:
            where = ".".join(p for p in path.parts[:depth] if isinstance(p, str)) or "the top level"
            known = ", ".join(sorted(node)) or "nothing below it"
            close = difflib.get_close_matches(part, list(node), n=1, cutoff=0.6)
            hint = f" (did you mean {(where + '.' if depth else '') + close[0]!r}?)" if close else ""
            raise QueryError(f"unknown field {path.text!r} for protocol {protocol}{hint}: {where} has {known}")
        node = node[part]
