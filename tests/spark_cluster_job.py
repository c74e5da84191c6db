"""The job tests/test_spark_cluster.py runs twice: in the test process on local Spark, and here, as a
driver script given to spark-submit against a standalone cluster.

As a script (``spark-submit cluster_job.py DUMPS PACKAGE RESULT REMOTE``) it first checks that neither the
driver nor the executors can import inlong_proto, then ships PACKAGE with addPyFile, as a user would,
runs the job and writes a JSON report to RESULT. inlong_proto is imported only after shipping. REMOTE is
an s3:// copy of DUMPS, read through the AWS variables the cluster's processes were started with.
"""
import json
import os
import sys
import time

SPLIT_SIZE = "4k"  # several splits per file, so both executors get tasks
READ_DUMPS = ("broadcast", "tubemq")  # the folders with a damaged dump; the splitting source reads all


def canonical(rows, drop: str | None = None) -> list[str]:
    """Rows as sorted JSON texts (nested structs as objects), comparable across processes."""
    out = []
    for row in rows:
        values = row.asDict(recursive=True)
        values.pop(drop, None)
        out.append(json.dumps(values, sort_keys=True, default=repr))
    return sorted(out)


def frames(spark, dumps: str, remote: str) -> dict[str, object]:
    """name -> DataFrame: read_dumps of some protocol folders, and the splitting source over them all,
    from the local folder and from the bucket."""
    from inlong_proto.spark.dumps import read_dumps
    from inlong_proto.spark.source import register

    register(spark)
    out = {f"read_dumps/{name}": read_dumps(spark, os.path.join(dumps, name), name)
           for name in READ_DUMPS}
    out["format(inlong)/auto"] = (spark.read.format("inlong").option("protocol", "auto")
                                  .option("splitSize", SPLIT_SIZE).load(dumps))
    out["format(inlong)/s3"] = (spark.read.format("inlong").option("protocol", "auto")
                                .option("splitSize", SPLIT_SIZE).load(remote))
    return out


def run(spark, dumps: str, remote: str) -> dict[str, list[str]]:
    """The job on a local session: name -> canonical rows."""
    return {name: canonical(df.collect()) for name, df in frames(spark, dumps, remote).items()}


def _importable(_=None) -> str:
    try:
        import inlong_proto  # noqa: F401
    except ImportError as exc:
        return f"ImportError: {exc}"
    return "imported"


def _wait_for_executors(sc, count: int, timeout: float = 60) -> None:
    """Block until `count` executors have registered, so that tasks can spread over all of them."""
    deadline = time.monotonic() + timeout
    while sc._jsc.sc().getExecutorMemoryStatus().size() < count + 1:  # the driver is listed too
        if time.monotonic() > deadline:
            raise TimeoutError(f"fewer than {count} executors registered after {timeout} s")
        time.sleep(0.2)


def main(dumps: str, package: str, result: str, remote: str) -> None:
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    spark = SparkSession.builder.appName("inlong-proto-cluster-test").getOrCreate()
    sc = spark.sparkContext
    sc.setLogLevel("ERROR")
    try:
        _wait_for_executors(sc, 2)
        report = {"executors": sc._jsc.sc().getExecutorMemoryStatus().size() - 1,
                  "driver_before_shipping": _importable(),
                  "tasks_before_shipping": sorted(set(sc.parallelize(range(4), 4).map(_importable).collect()))}
        sc.addPyFile(package)
        # The executor's working directory is work/<app id>/<executor id>: which executor ran a row.
        executor = F.udf(lambda: os.path.basename(os.getcwd()), "string")
        report["rows"], report["executors_used"] = {}, {}
        for name, df in frames(spark, dumps, remote).items():
            rows = df.withColumn("_executor", executor()).collect()
            report["rows"][name] = canonical(rows, drop="_executor")
            report["executors_used"][name] = sorted({row["_executor"] for row in rows})
        report["driver_module"] = sys.modules["inlong_proto"].__file__
    finally:
        spark.stop()
    with open(result, "w") as out:
        json.dump(report, out)


if __name__ == "__main__":
    main(*sys.argv[1:])
