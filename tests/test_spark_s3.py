"""Object stores: format("inlong") over s3:// through pyarrow.fs, on a real S3 server (moto) on loopback.

A remote split is read by range into a window of limit + 1 bytes past what it decides, so its rows must
equal those of the local read at every split size; the windows are checked without Spark on a file that
counts its reads, then the whole path through Spark against the bucket.
"""
import random

import pytest

from inlong_proto.core import sources
from inlong_proto.core.sources import BytesSource, RangeSource, filesystem, list_files, open_source
from inlong_proto.core.sources import split_count
from inlong_proto.spark.pieces import split_frames

import s3server
from test_spark_source import PROTOCOLS, corrupt, dump, rows


class CountingFile:
    """A pyarrow-like random access file over bytes that records every ranged read."""

    def __init__(self, data: bytes):
        self.data, self.reads = data, []

    def size(self):
        return len(self.data)

    def read_at(self, length, offset):
        self.reads.append((offset, length))
        return self.data[offset:offset + length]

    def close(self):
        pass


def ranged(data: bytes, block: int, ahead: int) -> RangeSource:
    src = RangeSource(CountingFile(data), "mem://dump")
    src.block, src.ahead = block, ahead
    return src


def split_rows(src, protocol: str, split: int) -> list[dict]:
    out = []
    for index in range(split_count(src.size, split)):
        out += rows(split_frames(src, protocol, None, split, index))
    return out


def big_dump(protocol: str, size: int, seed: int) -> bytes:
    """Valid frames, then damage, until the dump is past `size` bytes (bigger than a window)."""
    data, step = b"", 0
    while len(data) < size:
        data += corrupt(dump(protocol, 60, seed + step), seed + step)
        step += 1
    return data


@pytest.mark.parametrize("protocol", ["broadcast", "dataproxy"])  # limits of 64 KiB: windows end inside
def test_windows_of_ranged_reads_decide_as_the_whole_file(protocol):
    data = big_dump(protocol, 160_000, seed=7)
    local = BytesSource(data)
    for split, block, ahead in [(len(data), 4096, 1000), (40_000, 512, 64)]:
        assert split_rows(ranged(data, block, ahead), protocol, split) == split_rows(local, protocol, split)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_small_windows_on_every_protocol(protocol):
    data = corrupt(dump(protocol, 80, seed=3), 3)
    for split in (64, 997):
        assert split_rows(ranged(data, 256, 100), protocol, split) == split_rows(BytesSource(data), protocol, split)


def test_a_remote_split_reads_only_around_its_range():
    data = big_dump("broadcast", 2_000_000, seed=1)
    split, block = 250_000, 1 << 15
    limit = 1 << 16
    for index in range(split_count(len(data), split)):
        file = CountingFile(data)
        src = RangeSource(file, "mem://dump")
        src.block = block
        list(split_frames(src, "broadcast", None, split, index))
        lo = min(offset for offset, _ in file.reads)
        hi = max(offset + length for offset, length in file.reads)
        assert lo >= index * split - limit - block
        assert hi <= (index + 1) * split + 3 * limit + src.ahead + 2 * block
        assert sum(length for _, length in file.reads) == src.fetched < 4 * split


def test_released_ranges_are_fetched_again_not_read_as_zeros():
    data = bytes(random.Random(0).randrange(256) for _ in range(10_000))
    src = ranged(data, 1024, 100)
    src.ensure(0, 10_000)
    src.release(0, 8192)
    src.ensure(0, 10_000)
    assert bytes(src.buffer[:10_000]) == data


# ---------------------------------------------------------------------------------------------------
# Against the S3 server


@pytest.fixture(scope="module")
def bucket(s3, tmp_path_factory):
    """Dumps of every protocol (clean and damaged) and a capture in s3://captures/dumps/, and the same
    files in a local folder."""
    import shutil
    from pathlib import Path

    local = tmp_path_factory.mktemp("bucket")
    for protocol in PROTOCOLS:
        (local / f"{protocol}.bin").write_bytes(dump(protocol, 120, seed=5))
        (local / f"{protocol}.damaged.bin").write_bytes(corrupt(dump(protocol, 120, seed=6), 6))
    shutil.copy(Path(__file__).parent / "vectors" / "capture" / "dataproxy_lo.pcap", local / "dataproxy.pcap")
    (local / "_SUCCESS").write_bytes(b"")  # hidden, as Spark writes them
    for path in sorted(local.iterdir()):
        s3server.upload(path, f"s3://{s3server.BUCKET}/dumps/{path.name}")
    return local


def test_listing_objects_prefixes_globs_and_lists(bucket):
    root = f"s3://{s3server.BUCKET}/dumps"
    names = sorted(p.name for p in bucket.iterdir() if not p.name.startswith("_"))
    listed = list_files(root)
    assert [uri.rsplit("/", 1)[1] for uri, _ in listed] == names
    assert all(uri.startswith(root + "/") for uri, _ in listed)
    assert [size for _, size in listed] == [(bucket / name).stat().st_size for name in names]
    assert [u for u, _ in list_files(root + "/*.damaged.bin")] == sorted(f"{root}/{p}.damaged.bin" for p in PROTOCOLS)
    assert list_files([root + "/broadcast.bin", root + "/tubemq.bin"]) == \
        [(f"{root}/broadcast.bin", (bucket / "broadcast.bin").stat().st_size),
         (f"{root}/tubemq.bin", (bucket / "tubemq.bin").stat().st_size)]
    assert [u for u, _ in list_files(f"s3a://{s3server.BUCKET}/dumps/tubemq.bin")] == \
        [f"s3a://{s3server.BUCKET}/dumps/tubemq.bin"]
    with pytest.raises(FileNotFoundError, match="missing"):
        list_files(root + "/missing")


def test_remote_source_is_read_by_range(bucket):
    uri = f"s3://{s3server.BUCKET}/dumps/eventmesh.bin"
    data = (bucket / "eventmesh.bin").read_bytes()
    with open_source(uri) as src:
        assert src.size == len(data)
        assert src.read(100, 50) == data[100:150]
        assert src.fetched == 50
        for split in (500, 4096, 1 << 20):
            assert split_rows(src, "eventmesh", split) == split_rows(BytesSource(data), "eventmesh", split)


def test_fs_options_replace_the_environment(bucket, s3):
    """Reader options fs.* build the filesystem themselves: no AWS variable is needed then."""
    options = {"endpoint_override": s3["AWS_ENDPOINT_URL"], "access_key": s3["AWS_ACCESS_KEY_ID"],
               "secret_key": s3["AWS_SECRET_ACCESS_KEY"], "region": s3["AWS_REGION"]}
    sources._FILESYSTEMS.clear()
    try:
        with s3server.environment({name: "" for name in s3}):
            uri = f"s3://{s3server.BUCKET}/dumps/broadcast.bin"
            assert list_files(uri, options) == [(uri, (bucket / "broadcast.bin").stat().st_size)]
            with pytest.raises(ValueError, match="not_a_parameter"):
                filesystem(uri, {**options, "not_a_parameter": "1"})
    finally:
        sources._FILESYSTEMS.clear()


def _table(spark, path, **options):
    reader = spark.read.format("inlong")
    for name, value in options.items():
        reader = reader.option(name, value)
    return reader.load(path)


def _sorted_rows(df, root: str) -> list[tuple]:
    """Rows with the path made relative to root, in a stable order."""
    out = []
    for row in df.collect():
        values = row.asDict(recursive=True)
        values["path"] = values["path"].rsplit("/", 1)[1]
        out.append(values)
    return sorted(out, key=lambda v: (v["path"], v["offset"], v["length"]))


@pytest.mark.parametrize("split", ["3k", "128m"])
def test_spark_reads_the_bucket_as_the_local_folder(spark, bucket, split):
    from inlong_proto.spark.source import register

    register(spark)
    remote = f"s3://{s3server.BUCKET}/dumps/"
    for protocol in ("broadcast", "tubemq"):
        pattern = f"{protocol}*.bin"
        found = _sorted_rows(_table(spark, remote + pattern, protocol=protocol, splitSize=split), remote)
        wanted = _sorted_rows(_table(spark, str(bucket / pattern), protocol=protocol, splitSize=split), "")
        assert found == wanted and len(found) > 200
    found = _sorted_rows(_table(spark, remote, protocol="auto", splitSize=split), remote)
    wanted = _sorted_rows(_table(spark, str(bucket), protocol="auto", splitSize=split), "")
    assert found == wanted
    assert any(row["capture"] is not None for row in found)  # the pcap in the bucket was reassembled
    assert any(row["error"] is not None for row in found)
