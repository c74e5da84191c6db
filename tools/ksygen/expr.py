"""Kaitai Struct expression language -> Python source.

Only the subset the specs use is accepted; anything else is a GenerationError naming the expression,
so a spec never compiles to code that silently means something else.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable


class GenerationError(Exception):
    """A spec uses something the generator does not support, or is inconsistent."""


_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<num>0x[0-9a-fA-F_]+|0b[01_]+|0o[0-7_]+|[0-9][0-9_]*)
  | (?P<str>'[^']*'|"(?:[^"\\]|\\.)*")
  | (?P<sizeof>sizeof\s*<\s*[a-z_][a-z0-9_]*(?:::[a-z_][a-z0-9_]*)*\s*>)
  | (?P<enumref>[a-z_][a-z0-9_]*(?:::[a-z_][a-z0-9_]*)+)
  | (?P<name>[a-z_][a-z0-9_]*)
  | (?P<op>==|!=|<=|>=|<<|>>|[-+*/%<>()?:.,&|^~\[\]])
    """,
    re.VERBOSE,
)

_KEYWORDS = {"and", "or", "not", "true", "false"}


@dataclass(frozen=True)
class Node:
    kind: str  # num, str, bool, name, attr, call, enum, sizeof, unary, binary, ternary, index
    value: object = None
    args: tuple = ()


def tokenize(text: str) -> list[tuple[str, str]]:
    tokens, pos = [], 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if not match:
            raise GenerationError(f"cannot read expression {text!r} at character {pos}")
        pos = match.end()
        kind = match.lastgroup
        if kind != "ws":
            tokens.append((kind, match.group()))
    tokens.append(("end", ""))
    return tokens


# Binary operators from loosest to tightest, as in Kaitai's grammar.
_LEVELS = [("or",), ("and",), ("==", "!=", "<", "<=", ">", ">="), ("|",), ("^",), ("&",), ("<<", ">>"),
           ("+", "-"), ("*", "/", "%")]


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.tokens = tokenize(text)
        self.pos = 0

    def peek(self) -> tuple[str, str]:
        return self.tokens[self.pos]

    def take(self, expected: str | None = None) -> tuple[str, str]:
        token = self.tokens[self.pos]
        if expected is not None and token[1] != expected:
            raise GenerationError(f"expected {expected!r} in expression {self.text!r}, found {token[1]!r}")
        self.pos += 1
        return token

    def parse(self) -> Node:
        node = self.ternary()
        if self.peek()[0] != "end":
            raise GenerationError(f"unexpected {self.peek()[1]!r} in expression {self.text!r}")
        return node

    def ternary(self) -> Node:
        cond = self.binary(0)
        if self.peek()[1] == "?":
            self.take("?")
            then = self.ternary()
            self.take(":")
            other = self.ternary()
            return Node("ternary", None, (cond, then, other))
        return cond

    def binary(self, level: int) -> Node:
        if level == len(_LEVELS):
            return self.unary()
        left = self.binary(level + 1)
        while self.peek()[1] in _LEVELS[level]:
            op = self.take()[1]
            left = Node("binary", op, (left, self.binary(level + 1)))
        return left

    def unary(self) -> Node:
        if self.peek()[1] in ("-", "not", "~"):
            op = self.take()[1]
            return Node("unary", op, (self.unary(),))
        return self.postfix()

    def postfix(self) -> Node:
        node = self.atom()
        while True:
            op = self.peek()[1]
            if op == ".":
                self.take()
                kind, name = self.take()
                if kind != "name":
                    raise GenerationError(f"expected a name after '.' in expression {self.text!r}")
                if self.peek()[1] == "(":
                    raise GenerationError(f"method calls with arguments are not supported: {self.text!r}")
                node = Node("attr", name, (node,))
            elif op == "[":
                self.take()
                index = self.ternary()
                self.take("]")
                node = Node("index", None, (node, index))
            else:
                return node

    def atom(self) -> Node:
        kind, text = self.take()
        if kind == "num":
            return Node("num", int(text.replace("_", ""), 0))
        if kind == "str":
            return Node("str", text[1:-1])
        if kind == "sizeof":
            return Node("sizeof", re.sub(r"\s+", "", text)[len("sizeof<"):-1])
        if kind == "enumref":
            *enum_path, member = text.split("::")
            return Node("enum", ("::".join(enum_path), member))
        if kind == "name":
            if text in ("true", "false"):
                return Node("bool", text == "true")
            if text in _KEYWORDS:
                raise GenerationError(f"unexpected {text!r} in expression {self.text!r}")
            return Node("name", text)
        if text == "(":
            node = self.ternary()
            self.take(")")
            return node
        raise GenerationError(f"unexpected {text!r} in expression {self.text!r}")


def parse(text: str | int | bool) -> Node:
    if isinstance(text, bool):
        return Node("bool", text)
    if isinstance(text, int):
        return Node("num", text)
    return _Parser(str(text)).parse()


_PY_OPS = {"and": "and", "or": "or", "/": "//"}


@dataclass
class Scope:
    """How names in an expression become Python: resolve(path) gets the dotted name chain."""

    resolve: Callable[[tuple[str, ...]], str]
    enum_member: Callable[[str, str], str]
    sizeof: Callable[[str], int]


def _name_chain(node: Node) -> tuple[str, ...] | None:
    if node.kind == "name":
        return (node.value,)
    if node.kind == "attr":
        base = _name_chain(node.args[0])
        return None if base is None else base + (node.value,)
    return None


def _linear(node: Node) -> tuple[dict, int] | None:
    """node as {name chain: coefficient} + constant, if it is a linear integer expression."""
    kind = node.kind
    if kind == "num":
        return {}, node.value
    chain = _name_chain(node)
    if chain is not None and (chain[-1] not in ("to_i", "length", "size") or len(chain) == 1):
        return {chain: 1}, 0
    if kind == "unary" and node.value == "-":
        inner = _linear(node.args[0])
        return None if inner is None else ({k: -v for k, v in inner[0].items()}, -inner[1])
    if kind != "binary" or node.value not in ("+", "-", "*"):
        return None
    left, right = _linear(node.args[0]), _linear(node.args[1])
    if left is None or right is None:
        return None
    if node.value == "*":
        if left[0] and right[0]:
            return None
        (terms, const), factor = (left, right[1]) if not right[0] else (right, left[1])
        return {k: v * factor for k, v in terms.items()}, const * factor
    sign = 1 if node.value == "+" else -1
    terms = dict(left[0])
    for key, value in right[0].items():
        terms[key] = terms.get(key, 0) + sign * value
    return {k: v for k, v in terms.items() if v}, left[1] + sign * right[1]


def _folded(node: Node, scope: Scope) -> str | None:
    """Constant-folded form of a linear expression with several terms, e.g. digits to a number:
    (a - 48) * 10 + (b - 48) becomes (a * 10 + b - 528), fewer operations per decoded field."""
    linear = _linear(node)
    if linear is None or len(linear[0]) < 2:
        return None
    terms, const = linear
    parts = [scope.resolve(chain) + (f" * {coeff}" if coeff != 1 else "") for chain, coeff in terms.items()]
    text = " + ".join(parts)
    if const:
        text += f" {'-' if const < 0 else '+'} {abs(const)}"
    return f"({text})"


def _chained(node: Node, scope: Scope) -> str | None:
    """`x >= low and x <= high` as Python's chained `low <= x <= high` (x evaluated once)."""
    if node.value != "and":
        return None
    left, right = node.args
    if not (left.kind == right.kind == "binary" and left.value == ">=" and right.value == "<="
            and left.args[0] == right.args[0]):
        return None
    low, subject, high = (to_python(n, scope) for n in (left.args[1], left.args[0], right.args[1]))
    return f"({low} <= {subject} <= {high})"


def to_python(node: Node, scope: Scope) -> str:
    kind = node.kind
    if kind == "binary":
        folded = _folded(node, scope) or _chained(node, scope)
        if folded is not None:
            return folded
    if kind == "num":
        return repr(node.value)
    if kind == "bool":
        return "True" if node.value else "False"
    if kind == "str":
        return repr(node.value)
    if kind == "enum":
        return scope.enum_member(*node.value)
    if kind == "sizeof":
        return repr(scope.sizeof(node.value))
    if kind in ("name", "attr"):
        chain = _name_chain(node)
        # A field may be called `length` or `size`, and `_io.size` is the stream's: only `x.length`,
        # `x.size` and `x.to_i` on something else are the expression language's methods.
        if chain is not None and (chain[-1] not in ("to_i", "length", "size") or len(chain) == 1
                                  or chain[0] == "_io"):
            return scope.resolve(chain)
        base = to_python(node.args[0], scope)
        if node.value == "to_i":
            return f"int({base})"
        if node.value in ("length", "size"):
            return f"len({base})"
        raise GenerationError(f"unsupported attribute .{node.value}")
    if kind == "unary":
        op = {"-": "-", "not": "not ", "~": "~"}[node.value]
        return f"({op}{to_python(node.args[0], scope)})"
    if kind == "binary":
        left, right = (to_python(a, scope) for a in node.args)
        return f"({left} {_PY_OPS.get(node.value, node.value)} {right})"
    if kind == "ternary":
        cond, then, other = (to_python(a, scope) for a in node.args)
        return f"({then} if {cond} else {other})"
    if kind == "index":
        return f"{to_python(node.args[0], scope)}[{to_python(node.args[1], scope)}]"
    raise GenerationError(f"unsupported expression node {kind}")


def names_used(node: Node) -> set[tuple[str, ...]]:
    """Every name chain an expression reads (for ordering and derived-field analysis)."""
    chain = _name_chain(node)
    if chain is not None:
        return {chain}
    found: set[tuple[str, ...]] = set()
    for arg in node.args:
        if isinstance(arg, Node):
            found |= names_used(arg)
    return found


def invert_linear(node: Node, field: str) -> Callable[[str], str] | None:
    """For `size: field`, `field - k`, `field + k`: return a function size_src -> field value src.

    This is how encode derives length fields from the bytes it actually writes.
    """
    if node.kind == "name" and node.value == field:
        return lambda size: size
    if node.kind == "binary" and node.value in ("+", "-"):
        left, right = node.args
        if left.kind == "name" and left.value == field and right.kind == "num":
            k = right.value
            return (lambda size: f"({size} + {k})") if node.value == "-" else (lambda size: f"({size} - {k})")
        if right.kind == "name" and right.value == field and left.kind == "num" and node.value == "+":
            k = left.value
            return lambda size: f"({size} - {k})"
    return None
