# %% [markdown]
# # Questions on a folder of dumps, answered with Spark
#
# A notebook-style script (`# %%` cells: VS Code, PyCharm and Jupytext run them one by one; or run the
# whole file with `python examples/analyse_dumps.py [--dumps FOLDER] [--out FOLDER]`). It answers:
#
# 1. How many messages per minute does each DataProxy group/stream send?
# 2. How long do TubeMQ RPC calls take, per method (p50, p95), and which fail?
# 3. Which error codes do DataProxy and EventMesh answer with, minute by minute?
#
# Without --dumps it first writes a realistic dump set (examples/make_dumps.py: 20 minutes of traffic
# with a sink outage, a master fail-over, a slow broker and a misbehaving publisher). The answers are
# printed, saved as CSV, and drawn in one PNG. Needs the `spark` and `examples` extras.

# %%
import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only: no display needed
import matplotlib.dates as mdates  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402

from inlong_proto.dataproxy.payload import ErrCode  # noqa: E402
from inlong_proto.dataproxy.records import read_records  # noqa: E402
from inlong_proto.spark import local_session, read_dumps  # noqa: E402
from inlong_proto.spark_source import file_uri  # noqa: E402
import make_dumps  # noqa: E402  (next to this file: the script's folder is on sys.path)

parser = argparse.ArgumentParser(description="Answer questions on a folder of dumps with Spark.")
parser.add_argument("--dumps", type=Path, help="a dump folder laid out as make_dumps.py writes it")
parser.add_argument("--out", type=Path, default=Path("out/analysis"), help="where the CSVs and the PNG go")
args, _ = parser.parse_known_args()  # tolerant of what a notebook kernel passes
OUT = args.out
OUT.mkdir(parents=True, exist_ok=True)
DUMPS = args.dumps or make_dumps.make(OUT / "dumps")
pd.set_option("display.width", 160)
pd.set_option("display.max_columns", 30)

# %% [markdown]
# Spark runs embedded (`local_session`); times are shown in UTC. `capture_times.csv` holds each frame's
# capture time: TubeMQ and EventMesh frames carry no clock, DataProxy frames carry their own.

# %%
spark = local_session("analyse-dumps", cores=2)
spark.sparkContext.setLogLevel("ERROR")
spark.conf.set("spark.sql.session.timeZone", "UTC")
ROOT = file_uri(str(DUMPS)) + "/"
times = spark.read.csv(str(DUMPS / "capture_times.csv"), header=True, schema="file string, offset long, time double")


def stamped(frames):
    """Frames with their capture time, joined on (file relative to the dump folder, offset)."""
    relative = F.expr(f"substring(path, {len(ROOT) + 1})")
    return frames.withColumn("file", relative).join(times, ["file", "offset"], "left")


# %% [markdown]
# ## 1. Message rates per group/stream
# `read_records` gives one row per record of every DataProxy data request; `data_time` is the time the
# SDK put on the batch (MsgType 7 carries it in seconds). Records are counted whether or not the server
# accepted them: this is what the SDKs sent.

# %%
records = read_records(spark, str(DUMPS / "dataproxy" / "requests"), direction="request")
rates = (records.where("error IS NULL")
         .groupBy(F.date_trunc("minute", "data_time").alias("minute"), "group_id", "stream_id")
         .agg(F.count("*").alias("records"))
         .orderBy("minute", "group_id", "stream_id").toPandas())
rates.to_csv(OUT / "rates.csv", index=False)
per_stream = (rates.groupby(["group_id", "stream_id"])["records"]
              .agg(total="sum", per_minute="mean", peak="max").round({"per_minute": 1}).reset_index())
print("Records per group/stream (per minute: mean and peak)")
print(per_stream.to_string(index=False))
by_group = rates.pivot_table(index="minute", columns="group_id", values="records", aggfunc="sum", fill_value=0)
print("\nRecords per minute and group")
print(by_group.to_string())

# %% [markdown]
# ## 2. TubeMQ RPC latency by method
# A call is a request and the response with the same serial number on the same connection (one dump
# file per connection; serial numbers are not reused within these dumps, as `rpc.pair_calls` also
# allows for). Latency = response capture time - request capture time. An exception response
# (`message_type = 'exception'`, e.g. StandbyException after a master fail-over) counts as failed.

# %%
tube = stamped(read_dumps(spark, str(DUMPS / "tubemq"), "tubemq").where("error IS NULL"))
request, response = F.col("direction") == "request", F.col("direction") == "response"
calls = (tube.groupBy("file", "serial_no")
         .agg(F.max(F.when(request, F.col("message_type"))).alias("method"),
              F.max(F.when(response, F.col("message_type"))).alias("answer"),
              F.min(F.when(request, F.col("time"))).alias("sent"),
              F.min(F.when(response, F.col("time"))).alias("answered"))
         .withColumn("latency_ms", (F.col("answered") - F.col("sent")) * 1000)
         .cache())
latency = (calls.groupBy("method")
           .agg(F.count("*").alias("calls"),
                F.sum((F.col("answer") == "exception").cast("int")).alias("failed"),
                F.sum(F.col("answer").isNull().cast("int")).alias("unanswered"),
                F.expr("percentile(latency_ms, 0.5)").alias("p50_ms"),
                F.expr("percentile(latency_ms, 0.95)").alias("p95_ms"))
           .orderBy("method").toPandas())
latency.to_csv(OUT / "latency.csv", index=False)
print("\nTubeMQ calls by method (latency in ms)")
print(latency.to_string(index=False, float_format=lambda v: f"{v:.2f}"))
slow = (calls.where("method = 'sendMessageP2B'")
        .groupBy(F.date_trunc("minute", F.timestamp_seconds("sent")).alias("minute"))
        .agg(F.expr("percentile(latency_ms, 0.95)").alias("p95_ms")).orderBy("minute").toPandas())
worst = slow.loc[slow["p95_ms"].idxmax()]
print(f"sendMessageP2B is slowest in minute {worst['minute']:%H:%M} (p95 {worst['p95_ms']:.2f} ms)")

# %% [markdown]
# ## 3. Error codes over time
# DataProxy answers a MsgType 7 batch with `errCode=N` in the response attributes (absent: 0, success)
# and echoes the request's attributes, `rtms` (the SDK's send time, epoch ms) among them. EventMesh
# acknowledges every publish with a header `code` (0 success, 1 refused) and a `desc`.

# %%
dataproxy = (read_dumps(spark, str(DUMPS / "dataproxy" / "responses"), "dataproxy", direction="response")
             .where("bin_response IS NOT NULL")
             .select(F.lit("dataproxy").alias("protocol"),
                     F.timestamp_millis(F.regexp_extract("bin_response.attr", r"(?:^|&)rtms=(\d+)", 1)
                                        .cast("long")).alias("at"),
                     F.coalesce(F.regexp_extract("bin_response.attr", r"(?:^|&)errCode=(\d+)", 1)
                                .try_cast("int"), F.lit(0)).alias("code")))
eventmesh = (stamped(read_dumps(spark, str(DUMPS / "eventmesh"), "eventmesh"))
             .where("message_type = 'ASYNC_MESSAGE_TO_SERVER_ACK'")
             .select(F.lit("eventmesh").alias("protocol"), F.timestamp_seconds("time").alias("at"),
                     F.get_json_object("package.header", "$.code").cast("int").alias("code"),
                     F.get_json_object("package.header", "$.desc").alias("desc")))
answers = dataproxy.withColumn("desc", F.lit(None).cast("string")).unionByName(eventmesh).cache()
errors = (answers.groupBy(F.date_trunc("minute", "at").alias("minute"), "protocol", "code")
          .agg(F.count("*").alias("responses")).orderBy("minute", "protocol", "code").toPandas())
errors.to_csv(OUT / "errors.csv", index=False)
names = {int(code): code.name for code in ErrCode}
errors["label"] = [f"{p} {c}" + (f" {names.get(c, '?')}" if p == "dataproxy" else "")
                   for p, c in zip(errors["protocol"], errors["code"])]
minutes = sorted(set(rates["minute"]) | set(errors["minute"]))
failures = (errors[errors["code"] != 0]
            .pivot_table(index="minute", columns="label", values="responses", aggfunc="sum", fill_value=0)
            .reindex(minutes, fill_value=0).astype(int))
print("\nError responses per minute (code 0 = success left out)")
print(failures.to_string())
print("\nWhy EventMesh refused")
print(answers.where("code != 0 AND desc IS NOT NULL").groupBy("desc").count().toPandas().to_string(index=False))
spark.stop()

# %% [markdown]
# ## One picture

# %%
figure, (top, middle, bottom) = plt.subplots(3, 1, figsize=(11, 12), constrained_layout=True)
for (group, stream), series in rates.groupby(["group_id", "stream_id"]):
    top.plot(series["minute"], series["records"], marker=".", label=f"{group}/{stream}")
top.set(title="DataProxy records per minute", ylabel="records")
top.legend(ncol=3, fontsize="small")
positions = range(len(latency))
middle.bar([p - 0.2 for p in positions], latency["p50_ms"], width=0.4, label="p50")
middle.bar([p + 0.2 for p in positions], latency["p95_ms"], width=0.4, label="p95")
middle.set_xticks(list(positions), latency["method"], rotation=15)
middle.set(title="TubeMQ RPC latency by method", ylabel="ms", yscale="log")
middle.legend()
stacked = pd.Series(0, index=failures.index)
for label in failures.columns:
    bottom.bar(failures.index, failures[label], bottom=stacked, width=0.8 / 24 / 60, label=label)
    stacked += failures[label]
bottom.set(title="Error responses per minute", ylabel="responses")
bottom.legend(fontsize="small")
for axes in (top, bottom):
    axes.xaxis.set_major_formatter(mdates.DateFormatter("%H:%M"))
figure.savefig(OUT / "analysis.png", dpi=90)
print(f"\nwrote {OUT / 'analysis.png'}, rates.csv, latency.csv, errors.csv")
