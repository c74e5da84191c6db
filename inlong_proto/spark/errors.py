"""The data source's errors as one line (issue 27, item 10).

Spark wraps what a Python data source raises: an error in its ``__init__`` / ``schema()`` / ``reader()`` /
``partitions()`` reaches the driver as an AnalysisException with the condition PYTHON_DATA_SOURCE_ERROR
(``[PYTHON_DATA_SOURCE_ERROR] Failed to create Python data source instance: <msg>``), one in ``read()`` as a
PythonException (``An exception was thrown from the Python worker: <msg>``), and ``<msg>`` is the Python
worker's whole traceback (8-17 lines) unless the session's
``spark.sql.execution.pyspark.udf.hideTraceback.enabled`` is true, when it is only the exception's own
line (``traceback.format_exception_only``). Nothing else is in a data source's hands: the JVM builds the
message, the worker formats the exception.

So format("inlong") does both things it can:

- its own errors (a bad or misspelt option, a missing path, a FAILFAST decode error, a read limit) are raised
  as SourceError, whose line is ``inlong: <one line>`` (the class is spelt ``inlong``, in builtins, so
  Python prints no module path before it);
- ``register(spark)`` (inlong_proto.spark.source) sets hideTraceback to true unless the session already has
  a value for it, so that the first line a user sees is ``[PYTHON_DATA_SOURCE_ERROR] Failed to create
  Python data source instance: inlong: format 'inlong' has no option 'mdoe' (did you mean 'mode'?); ...``.
  That conf is the session's: the tracebacks of its Python UDFs are hidden too (``register(spark,
  tracebacks=True)`` leaves it alone).

``one_line(exc)`` gives the line from any of these exceptions, tracebacks hidden or not.
"""
from __future__ import annotations

import contextlib
from typing import Iterator

from inlong_proto.core.errors import InlongProtoError

HIDE_TRACEBACK = "spark.sql.execution.pyspark.udf.hideTraceback.enabled"
PREFIX = "inlong: "


class SourceError(ValueError):
    """An error of format("inlong"), printed as ``inlong: <message>`` (one line). A ValueError, as the option
    checks it replaces raise; ``cause`` is the exception it stands for (the traceback does not chain it)."""

    def __init__(self, message: str, cause: BaseException | None = None):
        super().__init__(" ".join(str(message).split("\n")).strip())
        self.cause = cause


# traceback.format_exception_only prints module.qualname, but no module for builtins: "inlong: ...".
SourceError.__module__, SourceError.__qualname__ = "builtins", "inlong"

OURS = (InlongProtoError, ValueError, OSError)


@contextlib.contextmanager
def one_line_errors(*also: type) -> Iterator[None]:
    """Raise what the block raises on purpose (OURS, and the exception classes also) as a SourceError of its
    message, without the chain; anything else (a bug) as it is, traceback and all."""
    try:
        yield
    except SourceError:
        raise
    except Exception as exc:
        if not isinstance(exc, OURS + also):
            raise
        raise SourceError(str(exc) or type(exc).__name__, exc) from None


def hide_tracebacks(spark) -> None:
    """Set HIDE_TRACEBACK to true unless the session has a value for it (the module doc)."""
    if spark.conf.get(HIDE_TRACEBACK, None) is None:
        spark.conf.set(HIDE_TRACEBACK, "true")


def one_line(exc: BaseException) -> str:
    """The one line that says what went wrong, from any exception a Spark read raises: for format("inlong")'s
    own errors its message without the ``inlong: `` prefix (``format 'inlong' has no option 'mdoe' (did
    you mean 'mode'?); its options are ...``), whether the session hides the worker's traceback or not; for
    another Python error the worker's last traceback line (``ZeroDivisionError: division by zero``); else the
    first line of str(exc)."""
    texts = []
    parameters = getattr(exc, "getMessageParameters", None)
    if callable(parameters):
        try:
            texts += [str(v) for v in (parameters() or {}).values() if v]
        except Exception:  # a Spark Connect error without its parameters: str(exc) has the message
            pass
    texts.append(str(exc))
    lines = [line.strip() for text in texts for line in text.splitlines() if line.strip()]
    for line in lines:
        if line.startswith(PREFIX):
            return line[len(PREFIX):]
    for line in lines:
        if f": {PREFIX}" in line:
            return line.split(f": {PREFIX}", 1)[1]
    if isinstance(exc, SourceError):
        return str(exc)
    for text in texts[:-1]:  # the worker's traceback (message parameters): its last line
        rows = [line for line in text.splitlines() if line.strip()]
        if rows and text.lstrip().startswith("Traceback"):
            return rows[-1].strip()
    return lines[0] if lines else type(exc).__name__
