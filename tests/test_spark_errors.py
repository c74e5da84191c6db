"""format("inlong")'s errors reach a user as one line (issue 27, item 10; inlong_proto.spark.errors): the first
line of what Spark raises for a bad option, a misspelt one and a missing path ends with ``inlong: <our
message>``, and a FAILFAST decode error's line follows ``An exception was thrown from the Python worker:``
(pyspark's own first line of a PythonException). one_line(exc) gives the message whether the session hides
the worker's traceback or not."""
from __future__ import annotations

import contextlib
import shutil
from pathlib import Path

import pytest

pytest.importorskip("pyspark")

from inlong_proto.spark import one_line  # noqa: E402
from inlong_proto.spark.errors import HIDE_TRACEBACK, PREFIX, SourceError, one_line_errors  # noqa: E402
from inlong_proto.spark.source import register  # noqa: E402

SAMPLE = Path(__file__).resolve().parent.parent / "examples" / "data" / "dataproxy.bin"
MISSPELT = "format 'inlong' has no option 'mdoe' (did you mean 'mode'?); its options are protocol, direction"
BAD_MODE = "mode must be one of PERMISSIVE, DROPMALFORMED, FAILFAST, not 'SOMETIMES'"


@pytest.fixture(scope="module")
def session(spark):
    register(spark)
    return spark


@pytest.fixture(scope="module")
def dump(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("errors") / "dataproxy.bin"
    shutil.copy(SAMPLE, path)
    return path


def read(spark, path, **options):
    reader = spark.read.format("inlong")
    for key, value in {"protocol": "dataproxy", **options}.items():
        reader = reader.option(key, value)
    return reader.load(str(path))


def caught(action) -> Exception:
    with pytest.raises(Exception) as info:
        action()
    return info.value


@contextlib.contextmanager
def tracebacks_shown(spark):
    """The session with Spark's default (the worker's traceback in the message), then as it was."""
    before = spark.conf.get(HIDE_TRACEBACK, None)
    spark.conf.set(HIDE_TRACEBACK, "false")
    try:
        yield
    finally:
        spark.conf.set(HIDE_TRACEBACK, before) if before is not None else spark.conf.unset(HIDE_TRACEBACK)


def cases(spark, dump):
    """(name, action, the message, where Spark's line comes from) of the four errors of the issue."""
    return [
        ("bad option", lambda: read(spark, dump, mode="sometimes"), BAD_MODE,
         "[PYTHON_DATA_SOURCE_ERROR] Failed to create Python data source instance: "),
        ("misspelt option", lambda: read(spark, dump, mdoe="FAILFAST"), MISSPELT,
         "[PYTHON_DATA_SOURCE_ERROR] Failed to create Python data source instance: "),
        ("missing path", lambda: read(spark, dump.parent / "nowhere.bin").count(),
         f"path does not exist: {dump.parent / 'nowhere.bin'}",
         "[PYTHON_DATA_SOURCE_ERROR] Failed to generate Python data source read partitions: "),
        ("FAILFAST decode error", lambda: read(spark, dump, protocol="tubemq", mode="FAILFAST").count(),
         f"file:{dump}: offset 0 in begin_token: expected", None),
    ]


def test_register_hides_the_worker_traceback_unless_the_session_says(session):
    assert session.conf.get(HIDE_TRACEBACK) == "true"


@pytest.mark.parametrize("index", range(4), ids=["bad-option", "misspelt-option", "missing-path", "failfast"])
def test_the_first_line_a_user_sees_is_ours(session, dump, index):
    name, action, message, spark_start = cases(session, dump)[index]
    exc = caught(action)
    lines = str(exc).splitlines()
    if spark_start is not None:  # AnalysisException PYTHON_DATA_SOURCE_ERROR: one line, ours at its end
        assert exc.getCondition() == "PYTHON_DATA_SOURCE_ERROR"
        assert lines[0].startswith(spark_start + PREFIX + message), lines[0]
        assert exc.getMessageParameters()["msg"].strip().startswith(PREFIX + message)
        assert "Traceback" not in str(exc)
    else:  # PythonException: pyspark prints its msg, then the worker's line
        assert exc.getCondition() == "PYTHON_EXCEPTION"
        assert lines[0] == "An exception was thrown from the Python worker:"
        assert lines[1].startswith(PREFIX + message) and len(lines) == 2, lines
    assert one_line(exc).startswith(message) and "\n" not in one_line(exc)


@pytest.mark.parametrize("index", [1, 3], ids=["misspelt-option", "failfast"])
def test_one_line_finds_it_in_a_traceback_too(session, dump, index):
    name, action, message, _ = cases(session, dump)[index]
    with tracebacks_shown(session):
        exc = caught(action)
    assert "Traceback (most recent call last)" in str(exc)
    assert [line for line in str(exc).splitlines() if line.startswith(PREFIX + message)]  # the last line
    assert one_line(exc).startswith(message)


def test_one_line_of_other_exceptions():
    assert one_line(ValueError("plain\nsecond")) == "plain"
    assert one_line(SourceError("two\nlines")) == "two lines"

    class Captured(Exception):  # what pyspark's PythonException carries
        def getMessageParameters(self):
            return {"msg": "An exception was thrown from the Python worker",
                    "traceback": "Traceback (most recent call last):\n  File \"x.py\", line 1\n"
                                 "ZeroDivisionError: division by zero\n"}

    assert one_line(Captured("An exception was thrown from the Python worker:")) == \
        "ZeroDivisionError: division by zero"


def test_only_our_errors_lose_their_traceback():
    with pytest.raises(SourceError) as info, one_line_errors():
        raise FileNotFoundError("path does not exist: x")
    assert info.value.__cause__ is None and info.value.__suppress_context__
    assert isinstance(info.value.cause, FileNotFoundError)
    import traceback

    assert traceback.format_exception_only(type(info.value), info.value) == ["inlong: path does not exist: x\n"]
    with pytest.raises(TypeError), one_line_errors():  # a bug keeps its type and traceback
        raise TypeError("a bug")
