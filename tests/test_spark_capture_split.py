"""read_captures (one capture parsed by many tasks) against spark.read.format("inlong") (one task, sequential):
the same rows (frames, error spans, offsets, error texts, capture columns, flow numbers) and the same schema,
on every recorded capture and on generated ones with many interleaved flows, reordered, retransmitted and
lost segments and damaged containers, at split sizes small enough that boundaries fall everywhere, with
protocol=auto and a fixed protocol, in the three modes. Few Spark jobs, each over every file."""
import shutil
from pathlib import Path

import pytest

from inlong_proto.capture.split import CaptureSplitError
from inlong_proto.spark.captures import _murmur3_int, bucket_values, read_captures
from inlong_proto.spark.source import register

from capture.test_capture_split import busy_pcap, busy_pcapng, damaged

CAPTURES = Path(__file__).resolve().parent / "vectors" / "capture"
WINDOW = 4096  # longer than any record here; the default is for real captures (capture.split.WINDOW)


def order(row: dict) -> tuple:
    capture = row["capture"] or {}
    flow = capture.get("flow")
    return (row["path"], -1 if flow is None else flow, capture.get("sender") or "", row["offset"],
            row["length"], row["error"] or "", capture.get("packet_offset") or 0)


def table(frame) -> list[dict]:
    return sorted(frame.toArrow().to_pylist(), key=order)


def sequential(spark, folder: Path, protocol: str, mode: str = "PERMISSIVE"):
    register(spark)
    return (spark.read.format("inlong").option("protocol", protocol).option("mode", mode).load(str(folder)))


@pytest.fixture(scope="module")
def clean(tmp_path_factory) -> Path:
    """The recorded captures and generated ones: pcap (Ethernet; SLL, nanoseconds), pcapng on two interfaces."""
    folder = tmp_path_factory.mktemp("clean")
    for path in CAPTURES.glob("*.pcap*"):
        shutil.copy(path, folder / path.name)
    (folder / "busy.pcap").write_bytes(busy_pcap(21, flows=14))
    (folder / "busy_sll.pcap").write_bytes(busy_pcap(22, flows=10, linktype=113, nano=True))
    (folder / "busy.pcapng").write_bytes(busy_pcapng(23, flows=10))
    return folder


@pytest.fixture(scope="module")
def broken(tmp_path_factory) -> Path:
    """Captures cut inside a record, with a record length over the limit, with a malformed packet."""
    folder = tmp_path_factory.mktemp("broken")
    for seed, how in enumerate(("cut", "length", "packet")):
        (folder / f"{how}.pcap").write_bytes(damaged(busy_pcap(30 + seed, flows=10), seed, how))
    (folder / "length.pcapng").write_bytes(damaged(busy_pcapng(33, flows=8), 3, "length"))
    return folder


def test_auto_permissive_equals_the_sequential_reader_at_every_split_size(spark, clean, broken):
    folders = [str(clean), str(broken)]
    want = table(sequential(spark, clean, "auto").unionByName(sequential(spark, broken, "auto")))
    assert any(row["error"] for row in want) and any(row["capture"]["flow"] is None for row in want)
    assert len({row["capture"]["flow"] for row in want if row["path"].endswith("busy.pcap")}) > 10
    for split_size in (1024, 3000, 1 << 20):
        frame = read_captures(spark, folders, "auto", "PERMISSIVE", split_size, sync_window=WINDOW)
        assert table(frame) == want, split_size
    assert frame.schema == sequential(spark, clean, "auto").schema


def test_a_fixed_protocol_drops_malformed_as_the_sequential_reader(spark, clean, broken):
    """Every flow parsed as DataProxy: most flows are error spans, which DROPMALFORMED leaves out."""
    want = table(sequential(spark, clean, "dataproxy", "DROPMALFORMED")
                 .unionByName(sequential(spark, broken, "dataproxy", "DROPMALFORMED")))
    frame = read_captures(spark, [str(clean), str(broken)], "dataproxy", "DROPMALFORMED", 2048,
                          sync_window=WINDOW)
    assert table(frame) == want and want and not any(row["error"] for row in want)
    assert frame.schema == sequential(spark, clean, "dataproxy").schema


def test_failfast(spark, clean, broken, tmp_path):
    for name in ("broadcast_lo.pcap", "broadcast_lo.pcapng", "dataproxy_lo.pcap"):
        shutil.copy(clean / name, tmp_path / name)
    assert table(read_captures(spark, str(tmp_path), "auto", "FAILFAST", 700)) == \
        table(sequential(spark, tmp_path, "auto", "FAILFAST"))
    for name in ("cut.pcap", "length.pcap", "packet.pcap"):
        with pytest.raises(Exception, match=name):
            read_captures(spark, str(broken / name), "auto", "FAILFAST", 1500, sync_window=WINDOW).collect()


def test_a_pcapng_interface_after_the_first_packet_fails_unless_one_split_reads_it(spark, tmp_path):
    path = tmp_path / "late.pcapng"
    path.write_bytes(busy_pcapng(2, flows=6, late_interface=True))
    with pytest.raises(Exception, match=CaptureSplitError.__name__ + "|cannot be split"):
        read_captures(spark, str(path), split_size=2000, sync_window=WINDOW).collect()
    assert table(read_captures(spark, str(path))) == table(sequential(spark, path, "auto"))


def test_buckets_land_on_their_own_partitions(spark):
    from pyspark.sql import functions as F

    values = list(range(-3, 40)) + [2**31 - 1, -(2**31)]
    hashed = spark.createDataFrame([(v,) for v in values], "v int").select(F.hash("v").alias("h")).collect()
    assert [row.h for row in hashed] == [_murmur3_int(v) for v in values]
    buckets = bucket_values(5)
    placed = (spark.createDataFrame([(b,) for b in buckets], "_bucket int").repartition(5, "_bucket")
              .select("_bucket", F.spark_partition_id().alias("p")).collect())
    assert sorted((buckets.index(row._bucket), row.p) for row in placed) == [(i, i) for i in range(5)]
