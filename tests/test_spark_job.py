"""The batch job: every dump under a folder to a table partitioned by protocol and date, with a summary."""
import subprocess
import sys
from pathlib import Path

from inlong_proto.spark_job import parse

import vectors

REQUESTS = vectors.valid_frames(directions={None, "request"})


def dump(folder: Path, protocol: str, name: str, extra: bytes = b"") -> bytes:
    data = b"".join(REQUESTS[protocol]) + extra
    (folder / name).write_bytes(data)
    return data


def test_parse_writes_partitions_and_summarises(spark, tmp_path):
    source = tmp_path / "captures"
    source.mkdir()
    dump(source, "broadcast", "broadcast.bin", b"junk")
    dump(source, "tubemq", "tubemq.bin")
    summary = parse(spark, str(source), str(tmp_path / "out"), split_size="1k")
    protocols = {row[0] for row in summary}
    assert protocols == {"broadcast", "tubemq"}
    errors = [row for row in summary if row[1] == "(error span)"]
    assert errors == [("broadcast", "(error span)", 0, 1, 4)]
    partitions = sorted(p.relative_to(tmp_path / "out").as_posix() for p in (tmp_path / "out").glob("*/*"))
    assert [p.split("/")[0] for p in partitions] == ["protocol=broadcast", "protocol=tubemq"]
    assert all(p.split("/")[1].startswith("date=20") for p in partitions)
    covered = sum(row[4] for row in summary)
    assert covered == sum(f.stat().st_size for f in source.iterdir())


def test_cli_help_lists_the_job():
    result = subprocess.run([sys.executable, "-m", "inlong_proto", "spark", "parse", "--help"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and "partitioned by protocol" in result.stdout
