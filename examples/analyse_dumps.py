# %% [markdown]
# # Questions on a folder of captures, answered with Spark
#
# A notebook-style script (`# %%` cells: VS Code, PyCharm and Jupytext run them one by one; or run the
# whole file with `python examples/analyse_dumps.py [--captures FOLDER] [--out FOLDER]`). It answers:
#
# 1. How many records per minute does each DataProxy group/stream send?
# 2. How long do TubeMQ RPC calls take, per method (p50, p95), and which fail?
# 3. Which error codes do DataProxy and EventMesh answer with, minute by minute?
# 4. Which clients send what (connections, frames, bytes, streams), and which of them are refused?
#
# The data set is pcap captures, one per server, as tcpdump writes them. Without --captures the script
# first writes a realistic set (examples/make_dumps.py: 20 minutes of traffic with a sink outage, a
# master fail-over, a slow broker and a misbehaving publisher). The answers are printed, saved as CSV,
# and drawn in one PNG. Needs the `spark` and `examples` extras.

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
from inlong_proto.spark.records import read_records  # noqa: E402
from inlong_proto.spark.dumps import local_session  # noqa: E402
from inlong_proto.spark.source import register  # noqa: E402
import make_dumps  # noqa: E402  (next to this file: the script's folder is on sys.path)

parser = argparse.ArgumentParser(description="Answer questions on a folder of pcap captures with Spark.")
parser.add_argument("--captures", type=Path, help="a folder of pcap / pcapng files (make_dumps.py writes one)")
parser.add_argument("--out", type=Path, default=Path("out/analysis"), help="where the CSVs and the PNG go")
args, _ = parser.parse_known_args()  # tolerant of what a notebook kernel passes
OUT = args.out
OUT.mkdir(parents=True, exist_ok=True)
CAPTURES = args.captures or make_dumps.make(OUT / "captures")
pd.set_option("display.width", 160)
pd.set_option("display.max_columns", 30)

# %% [markdown]
# Spark runs embedded (`local_session`); times are shown in UTC. The `inlong` data source reassembles
# every TCP flow of every capture and classifies it (`protocol=auto`): one row per frame, its columns in
# its protocol's struct, and a `capture` column saying which flow, which end sent it (`sender`) and
# when the packet holding its first byte was captured (`time`). That clock is what the time-based
# questions use: TubeMQ and EventMesh frames carry none of their own.

# %%
spark = local_session("analyse-captures", cores=2)
spark.sparkContext.setLogLevel("ERROR")
spark.conf.set("spark.sql.session.timeZone", "UTC")
register(spark)
frames = spark.read.format("inlong").option("protocol", "auto").load(str(CAPTURES)).cache()
print(frames.groupBy("protocol", F.col("capture.sender").alias("sender"))
      .agg(F.count("*").alias("frames"), F.sum(F.col("error").isNotNull().cast("int")).alias("errors"))
      .orderBy("protocol", "sender").toPandas().to_string(index=False))

# %% [markdown]
# ## 1. Message rates per group/stream
# `read_records` gives one row per record of every DataProxy data request, here of every DataProxy
# flow in the captures (other flows are left out), with the same `capture` column. Records are counted
# in the minute their packet was captured, whether or not the server accepted them: this is what the
# SDKs sent.

# %%
records = read_records(spark, str(CAPTURES)).where("error IS NULL").cache()
rates = (records.groupBy(F.date_trunc("minute", "capture.time").alias("minute"), "group_id", "stream_id")
         .agg(F.count("*").alias("records"))
         .orderBy("minute", "group_id", "stream_id").toPandas())
rates.to_csv(OUT / "rates.csv", index=False)
per_stream = (rates.groupby(["group_id", "stream_id"])["records"]
              .agg(total="sum", per_minute="mean", peak="max").round({"per_minute": 1}).reset_index())
print("\nRecords per group/stream (per minute: mean and peak)")
print(per_stream.to_string(index=False))
by_group = rates.pivot_table(index="minute", columns="group_id", values="records", aggfunc="sum", fill_value=0)
print("\nRecords per minute and group")
print(by_group.to_string())

# %% [markdown]
# ## 2. TubeMQ RPC latency by method
# A call is a request (sent by the client) and the response (sent by the server) with the same serial
# number on the same connection: the same file and `capture.flow` (serial numbers are not reused
# within these captures, as `rpc.pair_calls` also allows for). Latency = response capture time - request
# capture time. An exception response (`message_type = 'exception'`, e.g. StandbyException after a master
# fail-over) counts as failed.

# %%
by_client, by_server = F.col("capture.sender") == "client", F.col("capture.sender") == "server"
calls = (frames.where("protocol = 'tubemq' AND error IS NULL")
         .groupBy("path", F.col("capture.flow").alias("flow"), F.col("tubemq.serial_no").alias("serial_no"))
         .agg(F.first("capture.client").alias("client"),
              F.max(F.when(by_client, F.col("message_type"))).alias("method"),
              F.max(F.when(by_server, F.col("message_type"))).alias("answer"),
              F.min(F.when(by_client, F.col("capture.time"))).alias("sent"),
              F.min(F.when(by_server, F.col("capture.time"))).alias("answered"))
         .withColumn("latency_ms", (F.unix_micros("answered") - F.unix_micros("sent")) / 1000)
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
        .groupBy(F.date_trunc("minute", "sent").alias("minute"))
        .agg(F.expr("percentile(latency_ms, 0.95)").alias("p95_ms")).orderBy("minute").toPandas())
if slow["p95_ms"].notna().any():  # captures without a TubeMQ producer have no sendMessageP2B call
    worst = slow.loc[slow["p95_ms"].idxmax()]
    print(f"sendMessageP2B is slowest in minute {worst['minute']:%H:%M} (p95 {worst['p95_ms']:.2f} ms)")

# %% [markdown]
# ## 3. Error codes over time
# DataProxy answers a MsgType 7 batch with `errCode=N` in the response attributes (absent: 0, success).
# EventMesh acknowledges every publish with a header `code` (0 success, 1 refused) and a `desc`. Both
# are counted in the minute the answer was captured.

# %%
answer = [F.col("capture.time").alias("at"), F.col("capture.client").alias("client")]
dataproxy = (frames.where("dataproxy.bin_response IS NOT NULL")
             .select(F.lit("dataproxy").alias("protocol"), *answer,
                     F.coalesce(F.regexp_extract("dataproxy.bin_response.attr", r"(?:^|&)errCode=(\d+)", 1)
                                .try_cast("int"), F.lit(0)).alias("code"),
                     F.lit(None).cast("string").alias("desc")))
eventmesh = (frames.where("protocol = 'eventmesh' AND message_type = 'ASYNC_MESSAGE_TO_SERVER_ACK'")
             .select(F.lit("eventmesh").alias("protocol"), *answer,
                     F.get_json_object("eventmesh.package.header", "$.code").cast("int").alias("code"),
                     F.get_json_object("eventmesh.package.header", "$.desc").alias("desc")))
answers = dataproxy.unionByName(eventmesh).cache()
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

# %% [markdown]
# ## 4. Who sends what
# Only a capture knows the clients: per client host and protocol, its connections, what it sent (frames
# and TCP payload bytes: in PERMISSIVE mode a flow's rows tile every byte), the DataProxy streams it fed,
# and how many of its requests were refused (a DataProxy errCode or EventMesh code other than 0, or a
# TubeMQ exception).

# %%
sent = (frames.where(by_client)
        .groupBy(F.col("capture.client").alias("client"), "protocol")
        .agg(F.countDistinct("path", "capture.flow").alias("connections"),
             F.sum(F.col("error").isNull().cast("int")).alias("frames"), F.sum("length").alias("bytes")))
streams = (records.groupBy(F.col("capture.client").alias("client"))
           .agg(F.concat_ws(" ", F.array_sort(F.collect_set(F.concat_ws("/", "group_id", "stream_id"))))
                .alias("streams"))
           .withColumn("protocol", F.lit("dataproxy")))
refused = (answers.where("code != 0").select("client", "protocol")
           .unionByName(calls.where("answer = 'exception'").select("client", F.lit("tubemq").alias("protocol")))
           .groupBy("client", "protocol").agg(F.count("*").alias("refused")))
clients = (sent.join(streams, ["client", "protocol"], "left").join(refused, ["client", "protocol"], "left")
           .fillna({"refused": 0, "streams": ""})
           .orderBy(F.desc("bytes"), "client", "protocol").toPandas())
clients.to_csv(OUT / "clients.csv", index=False)
print("\nClients by bytes sent")
print(clients.to_string(index=False))
spark.stop()

# %% [markdown]
# ## One picture

# %%
figure, (top, middle, bottom, last) = plt.subplots(4, 1, figsize=(11, 16), constrained_layout=True)
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
names = [f"{client} {protocol}" for client, protocol in zip(clients["client"], clients["protocol"])]
colours = {protocol: f"C{index}" for index, protocol in enumerate(sorted(set(clients["protocol"])))}
bars = last.barh(names, clients["bytes"] / 1024, color=[colours[protocol] for protocol in clients["protocol"]])
last.bar_label(bars, [f"{refused} refused" if refused else "" for refused in clients["refused"]], padding=4)
last.invert_yaxis()  # the biggest sender on top
last.set(title="Bytes sent per client (and requests refused)", xlabel="KiB")
figure.savefig(OUT / "analysis.png", dpi=90)
print(f"\nwrote {OUT / 'analysis.png'}, rates.csv, latency.csv, errors.csv, clients.csv")
