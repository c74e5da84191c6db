"""The command line's one error style: every failure is one line, `inlong-proto: error: …`, on stderr; exit
status 2 for a usage error (the command line's fault), 1 for data (the input's, or the system's).

A decode error's reason may end with the spec's doc of the field, in parentheses (the generated codecs append
it to every `valid` check): the one-line form leaves it out. The docs are those of the generated codecs'
fields, so only a parenthesis that is a field's doc goes. An extra the command needs and that is not installed
names itself (`pip install 'inlong-proto[spark]'`)."""
from __future__ import annotations

import importlib
import re
from functools import cache

import click

from inlong_proto.core.plain import printable

PROGRAM = "inlong-proto"
_BYTES = r"""b(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")"""
# a fixed field's error (magics, begin tokens: no property, so no doc to compare): its doc follows the bytes found
CONTENTS_ERROR = re.compile(rf"^(.*expected {_BYTES}, found {_BYTES}) \(.*\)$", re.S)
USAGE, DATA = 2, 1


@cache
def _spec_docs() -> tuple[str, ...]:
    """Every field doc of the generated frame codecs, walked from each frame type through its structs, lists
    and switch cases (the reason's parenthesis is the first line of one)."""
    from inlong_proto.generated.codec import PROTOCOLS

    docs, seen = set(), set()
    todo = [importlib.import_module(name).FRAME for entries in PROTOCOLS.values() for _, name in entries]
    while todo:
        cls = todo.pop()
        if not isinstance(cls, type) or cls in seen or not hasattr(cls, "FIELDS"):
            continue
        seen.add(cls)
        for info in cls.FIELDS:
            doc = getattr(getattr(cls, info.name, None), "__doc__", None)
            if doc:
                docs.add(doc)
            details = [info.detail]
            if info.kind == "list":
                details = [getattr(info.detail, "detail", None)]
            elif info.kind == "switch":
                details = [case for _, case in info.detail]
            todo += [detail for detail in details if isinstance(detail, type)]
    return tuple(sorted(docs))


def without_spec_doc(text: str) -> str:
    """text without a trailing ` (<the first line of a field's spec doc>)`."""
    if not text.endswith(")"):
        return text
    fixed = CONTENTS_ERROR.match(text)
    if fixed:
        return fixed.group(1)
    at = text.find(" (")
    while at >= 0:
        inner = text[at + 2:-1]
        if len(inner) >= 8 and any(doc.startswith(inner) for doc in _spec_docs()):
            return text[:at]
        at = text.find(" (", at + 1)
    return text


def line(message: str) -> str:
    """The one error line for message (escaped: an error may quote frame content)."""
    text = " ".join(without_spec_doc(str(message)).split("\n"))
    return f"{PROGRAM}: error: {printable(text)}"


def echo(message) -> None:
    click.echo(line(str(message)), err=True)


class Usage(click.UsageError):
    """A usage error shown as the one line (status 2)."""

    exit_code = USAGE

    def show(self, file=None) -> None:
        echo(self.format_message())


class Failure(click.ClickException):
    """A data error shown as the one line (status 1)."""

    exit_code = DATA

    def show(self, file=None) -> None:
        echo(self.format_message())


def missing_extra(module: str, extra: str, what: str) -> Failure:
    """The error for an optional dependency that is not installed."""
    return Failure(f"{what} needs {module}, which is not installed: pip install 'inlong-proto[{extra}]'")


def require(module: str, extra: str, what: str) -> None:
    """Import module or fail with missing_extra (sys.modules[module] = None counts as not installed)."""
    try:
        importlib.import_module(module)
    except ImportError:
        raise missing_extra(module, extra, what) from None
