"""inlong_proto.spark.audit over a reader's rows of captures: the same table as the command's (issue 28)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from inlong_proto.audit import AuditTable, audit_capture, audit_dump  # noqa: E402
from traffic import dataproxy_capture  # noqa: E402

pytestmark = pytest.mark.timeout(300)


def test_spark_audit_matches_the_command(spark, tmp_path):
    pytest.importorskip("pyspark")
    from inlong_proto.spark import audit, audit_messages
    from inlong_proto.spark.source import register

    expected = []
    for seed in (1, 2):
        data, _ = dataproxy_capture(seed)
        (tmp_path / f"c{seed}.pcap").write_bytes(data)
        table = AuditTable()
        for item in audit_capture(data):
            table.add(item)
        expected.append(table)
    expected[0].merge(expected[1])
    dump = (Path(__file__).parent.parent.parent / "examples" / "data" / "tubemq.bin").read_bytes()
    (tmp_path / "tubemq.bin").write_bytes(dump)  # a raw dump of both directions: no times, paired as one connection
    for item in audit_dump([dump], "tubemq"):
        expected[0].add(item)
    want = expected[0].rows()

    register(spark)
    df = spark.read.format("inlong").option("protocol", "auto").load(str(tmp_path))
    got = [row.asDict() for row in audit(df).collect()]
    for row in got:
        row["window_start"] = None if row["window_start"] is None else row["window_start"].isoformat() + "Z"
    got.sort(key=lambda row: (row["system"], row["group"], row["stream"], row["window_start"] or ""))
    assert got == want and any(row["system"] == "tubemq" and row["window_start"] is None for row in got)

    messages = audit_messages(df)
    assert messages.where("kind = 'sent'").count() == sum(r["messages"] for r in want)
    by_group = audit(df, window="1h", by=("group",)).collect()
    assert {(r["group"], r["stream"]) for r in by_group} == {("g1", "*"), ("g2", "*"), ("orders", "*")}
