"""What the Spark readers share (the UDTF readers in dumps and records, the data source in source, the capture
reader in captures): the import check, the error naming a file, argument checks, the Arrow form Spark wants,
and the report of the backend their workers run on (worker_backend). One module that they all import, so that
none of them imports another for these."""
from __future__ import annotations

import logging
import sys
import warnings

from inlong_proto.backends import compiled
from inlong_proto.core import arrow, protocols
from inlong_proto.core.arrow import AUTO, auto_schema
from inlong_proto.core.errors import DumpDecodeError  # noqa: F401 (the readers import it from here)
from inlong_proto.core.stream import check_direction, check_mode

SPARK_EXTRA = "pip install 'inlong-proto[spark]'"


def require_spark() -> None:
    """Import what the Spark readers need (pyspark, pyarrow, pandas), or raise an ImportError that names
    the extra bringing them, rather than a bare ModuleNotFoundError from deep inside a call."""
    try:
        import pandas  # noqa: F401
        import pyarrow  # noqa: F401
        import pyspark  # noqa: F401
    except ImportError as exc:
        raise ImportError(f"the Spark readers of inlong-proto need pyspark, pyarrow and pandas ({exc}); "
                          f"install the spark extra: {SPARK_EXTRA}", name=exc.name) from exc


def check_reader_args(protocol: str, direction: str | None, mode: str, auto: bool = False) -> tuple[str, str]:
    """(protocol, mode) as the project spells them (public: every Spark reader checks its arguments so); fails
    on the driver, at call time, rather than later
    inside every task. auto: the reader takes protocol auto too."""
    protocol = AUTO if auto and str(protocol).strip().lower() == AUTO else protocols.checked(protocol)
    check_direction(direction)
    return protocol, check_mode(mode)


def spark_arrow_schema(protocol: str, corrupt_record: str = arrow.CORRUPT_RECORD,
                       carried: tuple[str, ...] | None = None):
    """The Arrow form Spark wants the batches in (microseconds; TIMESTAMP values as UTC instants)."""
    from pyspark.sql.pandas.types import to_arrow_schema

    return to_arrow_schema(spark_schema(protocol, corrupt_record, carried), timezone="UTC")


def spark_schema(protocol: str, corrupt_record: str = arrow.CORRUPT_RECORD, carried: tuple[str, ...] | None = None):
    """The Spark schema of format inlong for a protocol (or auto, with the structs of the carried protocols:
    arrow.auto_schema); InlongDataSource lists the columns. Zone-less timestamps (wall-clock text on the wire)
    are TIMESTAMP_NTZ, instants TIMESTAMP."""
    if protocol == AUTO:
        return arrow.to_spark_schema(auto_schema(carried), corrupt_record)
    return arrow.spark_schema(protocol, corrupt_record)


def spark_batch(batch, protocol: str, corrupt_record: str = arrow.CORRUPT_RECORD,
                carried: tuple[str, ...] | None = None):
    """A frame_schema (or auto_schema(carried)) batch in the Arrow form Spark wants, the corrupt-record column
    renamed (no copy)."""
    import pyarrow as pa

    typed = batch.cast(spark_arrow_schema(protocol, carried=carried))
    if corrupt_record == arrow.CORRUPT_RECORD:
        return typed
    return pa.RecordBatch.from_arrays(typed.columns, schema=spark_arrow_schema(protocol, corrupt_record, carried))


class BackendMismatchWarning(RuntimeWarning):
    """The Spark workers run another backend than the driver (worker_backend says why)."""


_REPORTS: dict[str, dict] = {}  # Spark application id -> worker_backend's report


def backend_here(_=None) -> dict:
    """The backend this process runs on, and why: {"backend": "native" | "python", "origin": the extension's
    file, or why there is none (backends.compiled.origin), "python": the interpreter, "package": the
    inlong_proto folder imported}. What each Spark worker answers for worker_backend."""
    try:
        name = compiled.backend()
    except (RuntimeError, ValueError) as exc:  # INLONG_PROTO_BACKEND=native without the extension, or bogus
        name, origin = "error", str(exc)
    else:
        origin = compiled.origin() if name == "native" or compiled.extension() is None else \
            f"{compiled.ENV}=python (the extension is {compiled.origin()})"
    return {"backend": name, "origin": origin, "python": sys.executable, "package": str(compiled.PACKAGE)}


def worker_backend(spark) -> dict | None:
    """The backend the Spark readers' tasks run on in this session, beside the driver's: {"driver",
    "workers": "native" | "python", "driver_origin", "workers_origin", "workers_python"}, asked once per
    Spark application by one small task (a Python worker started as the readers' are: same interpreter,
    environment and working folder) and logged (logger inlong_proto.spark, INFO). When the two differ a
    BackendMismatchWarning names the cause: a job started from a clone's root whose workers import the
    source tree, which has no compiled extension, and no installed one built from the same generated C
    (backends.compiled says how it looks for one). None where Spark cannot be asked (a Spark Connect
    session, a failed task): the report never fails a read."""
    try:
        context = spark.sparkContext
        key = context.applicationId
        if key in _REPORTS:
            return _REPORTS[key]
        worker = context.parallelize([0], 1).map(backend_here).collect()[0]
    except Exception as exc:  # noqa: BLE001 - a report, not a reason to fail the read
        logging.getLogger("inlong_proto.spark").debug("the workers' backend is unknown: %s", exc)
        return None
    driver = backend_here()
    report = _REPORTS[key] = {"driver": driver["backend"], "workers": worker["backend"],
                              "driver_origin": driver["origin"], "workers_origin": worker["origin"],
                              "workers_python": worker["python"]}
    logging.getLogger("inlong_proto.spark").info(
        "inlong_proto backend: driver %s (%s), Spark workers %s (%s)", report["driver"], report["driver_origin"],
        report["workers"], report["workers_origin"])
    if report["workers"] != report["driver"]:
        warnings.warn(mismatch(report), BackendMismatchWarning, stacklevel=3)
    return report


def mismatch(report: dict) -> str:
    """The warning of worker_backend's report where driver and workers differ, naming the cause."""
    if report["workers"] != "native":
        return (f"inlong_proto: the Spark workers run the {_named(report['workers'])} backend, the driver the "
                f"{_named(report['driver'])} one: on the workers ({report['workers_python']}) "
                f"{report['workers_origin']}")
    return (f"inlong_proto: the driver runs the {_named(report['driver'])} backend, the Spark workers the "
            f"compiled one: on the driver {report['driver_origin']}")


def _named(backend: str) -> str:
    return {"native": "compiled", "python": "pure-Python"}.get(backend, backend)
