"""A Spark job started from the root of a clone sees the same package as an installed one.

Spark's Python workers put their working directory first on sys.path, so a driver run from the
repository root makes every worker import the source folder ``inlong_proto/`` rather than the installed
copy. That folder is the package as it is (``inlong_proto/generated`` is a relative symlink to the
top-level ``generated/``), so the job works and gives the rows it gives from anywhere else. Checked with
the project's editable install (this interpreter) and with a plain ``pip install .`` into a fresh venv:
read_dumps, read_records and format("inlong"), each started from the root and from another folder.
"""
import json
import os
import random
import shutil
import subprocess
import sys
import sysconfig
from importlib import metadata
from pathlib import Path

import pytest

import inlong_proto as ip
from inlong_proto.dataproxy import bin_request, text_request

import vectors

pytest.importorskip("pyspark")
pytest.importorskip("pyarrow")

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("pyproject.toml", "setup.py", "README.md", "inlong_proto", "generated")

# The driver, run as `python -c JOB DUMPS OUT`: like a script in the folder it is started from, its own
# sys.path starts with that folder, as its workers' does.
JOB = r"""
import json, os, sys

from inlong_proto.spark.records import read_records
from inlong_proto.spark.dumps import local_session, read_dumps
from inlong_proto.spark.source import register


def where(_=None):
    import inlong_proto, inlong_proto.generated.codec
    return [os.path.abspath(inlong_proto.__file__), os.path.abspath(inlong_proto.generated.codec.__file__)]


def canonical(rows):
    return sorted(json.dumps(row.asDict(recursive=True), sort_keys=True, default=repr) for row in rows)


dumps, out = sys.argv[1:]
spark = local_session("inlong-proto-clone-root", cores=2)
spark.sparkContext.setLogLevel("ERROR")
try:
    register(spark)
    frames = {
        "read_dumps": read_dumps(spark, os.path.join(dumps, "broadcast"), "broadcast"),
        "read_records": read_records(spark, os.path.join(dumps, "dataproxy")),
        "format(inlong)": spark.read.format("inlong").option("protocol", "auto").option("splitSize", "2k")
                          .load(dumps),
    }
    report = {"rows": {name: canonical(df.collect()) for name, df in frames.items()}, "driver": where(),
              "workers": sorted({tuple(found) for found in
                                 spark.sparkContext.parallelize(range(4), 4).map(where).collect()})}
finally:
    spark.stop()
with open(out, "w") as file:
    json.dump(report, file)
"""


@pytest.fixture(scope="module")
def dumps(tmp_path_factory) -> Path:
    """Dumps of several protocols (one damaged) and DataProxy requests with records."""
    root = tmp_path_factory.mktemp("clone-dumps")
    rng = random.Random(11)
    for protocol, frames in vectors.valid_frames().items():
        (root / protocol).mkdir()
        (root / protocol / "dump.bin").write_bytes(b"".join(rng.choice(frames) for _ in range(30)))
    broadcast = (root / "broadcast" / "dump.bin").read_bytes()
    (root / "broadcast" / "damaged.bin").write_bytes(broadcast[:100] + b"<garbage>" + broadcast[100:-5])
    ms = 1_700_000_000_123
    (root / "dataproxy" / "records.bin").write_bytes(
        ip.encode(text_request([b"alpha", b"beta"], group_id="g", stream_id="s", data_time_ms=ms, message_id=1))
        + ip.encode(bin_request([b"one", b"two"], group_id="g", stream_id="s", data_time_ms=ms, unique_id=2,
                                record_attrs=[{"k": "v"}, {}])) + b"\x00\x00junk")
    return root


def plain_env() -> dict[str, str]:
    """No PYTHONPATH or Spark settings of the test run leak into the job."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYSPARK_", "SPARK_")) and k != "PYTHONPATH"}
    env["SPARK_LOCAL_IP"] = "127.0.0.1"
    return env


def editable_python() -> Path:
    """This interpreter, which must hold the project's editable install of this checkout (in its
    site-packages: the checkout's own inlong_proto.egg-info, on the test run's path, is not one)."""
    dists = list(metadata.distributions(name="inlong-proto", path=[sysconfig.get_path("purelib")]))
    info = json.loads((dists[0].read_text("direct_url.json") if dists else None) or "{}")
    if not info.get("dir_info", {}).get("editable") or Path(info["url"].removeprefix("file://")) != ROOT:
        pytest.skip(f"{sys.executable} has no editable install of {ROOT}")
    return Path(sys.executable)


def installed_python(tmp: Path) -> Path:
    """A fresh venv with a plain `pip install .` of a copy of this checkout. Its dependencies come from this
    interpreter's site-packages through a plain path line in a .pth file: Python adds that folder to
    sys.path but runs none of the .pth files inside it, so the editable install there stays off."""
    source = tmp / "clone"
    source.mkdir()
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(ROOT / name, source / name)
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = Path(sysconfig.get_path("purelib", vars={"base": str(venv), "platbase": str(venv)}))
    (site / "deps.pth").write_text(sysconfig.get_path("purelib") + "\n")
    python = venv / "bin" / "python"
    result = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
                             "--no-build-isolation", "--no-cache-dir", str(source)],
                            capture_output=True, text=True, env=plain_env(), cwd=tmp)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "BuildBackendWarning" not in result.stdout + result.stderr  # the packages configuration is complete
    package = site / "inlong_proto"
    assert (package / "generated").is_dir() and not (package / "generated").is_symlink()  # real files
    for data in ("kaitai/broadcast_frame.py", "kaitai_debug/broadcast_frame.py", "construct/broadcast_frame.py",
                 "diagrams/broadcast_frame.svg", "codec/broadcast/broadcast_frame.py"):
        assert (package / "generated" / data).is_file(), data
    return python


def start(python: Path, cwd: Path, dumps: Path, out: Path) -> subprocess.Popen:
    return subprocess.Popen([str(python), "-c", JOB, str(dumps), str(out)], cwd=cwd, env=plain_env(),
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)


def finish(process: subprocess.Popen, out: Path) -> dict:
    try:
        output, _ = process.communicate(timeout=240)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, 9)
            process.wait()
    assert process.returncode == 0, output.decode(errors="replace")[-6000:]
    return json.loads(out.read_text())


@pytest.mark.parametrize("install", ["editable", "pip install ."])
def test_a_job_started_from_the_clone_root_equals_one_started_elsewhere(install, dumps, tmp_path):
    python = editable_python() if install == "editable" else installed_python(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    # both at once: two local Spark sessions start in about the time of one
    jobs = {name: (start(python, cwd, dumps, tmp_path / f"{name}.json"), tmp_path / f"{name}.json")
            for name, cwd in (("root", ROOT), ("elsewhere", elsewhere))}
    reports = {name: finish(process, out) for name, (process, out) in jobs.items()}
    root, other = reports["root"], reports["elsewhere"]

    # From the root, the driver and every worker import the source folder itself, generated/ included.
    source = [str(ROOT / "inlong_proto" / "__init__.py"), str(ROOT / "inlong_proto" / "generated" / "codec" /
                                                                 "__init__.py")]
    assert root["driver"] == source
    assert root["workers"] == [source]
    if install == "pip install .":  # from elsewhere: the installed copy
        installed = Path(python).parent.parent
        assert all(Path(path).is_relative_to(installed) for path in other["driver"] + other["workers"][0])
    assert other["workers"] == [other["driver"]]

    assert root["rows"].keys() == other["rows"].keys() == {"read_dumps", "read_records", "format(inlong)"}
    for name, rows in other["rows"].items():
        assert root["rows"][name] == rows, name
        assert rows, name
    records = [json.loads(row) for row in other["rows"]["read_records"] if "records.bin" in row]
    assert sorted(row["data"] for row in records if row["error"] is None) == \
        sorted(repr(data) for data in (b"alpha", b"beta", b"one", b"two"))
    assert any(json.loads(row)["error"] for row in other["rows"]["read_dumps"])  # the damaged dump's spans
