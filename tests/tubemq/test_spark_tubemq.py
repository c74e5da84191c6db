"""TubeMQ dumps in Spark: the RPC method name is a column for both directions."""
import json
from pathlib import Path

VECTORS = Path(__file__).resolve().parents[1] / "vectors" / "tubemq" / "valid"


def test_read_dumps_names_the_method_of_requests_and_responses(spark, tmp_path):
    chosen = sorted(VECTORS.glob("method_0[13]_*.json")) + [VECTORS / "response_standby_exception_worked_example.json"]
    data = b"".join(bytes.fromhex(json.loads(p.read_text())["hex"]) for p in chosen)
    (tmp_path / "capture.bin").write_bytes(data + b"\xff\x7f")  # a cut-off tail becomes an error row
    from inlong_proto.spark.dumps import read_dumps

    rows = read_dumps(spark, str(tmp_path), "tubemq").orderBy("offset").collect()
    assert [(r.message_type, r.direction) for r in rows[:-1]] == [
        ("producerRegisterP2M", "request"), ("producerRegisterP2M", "response"),
        ("producerCloseClientP2M", "request"), ("producerCloseClientP2M", "response"), ("exception", "response")]
    assert rows[-1].error is not None and rows[-1].offset + rows[-1].length == len(data) + 2
    assert rows[0].list_size == 1 and rows[0].blocks[0].block_len == len(rows[0].blocks[0].data)
