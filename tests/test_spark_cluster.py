"""A real cluster: a standalone master and two workers on loopback, started from the pyspark install.

The package is shipped to the cluster the way a user would (a wheel, given to addPyFile), and the same
job (tests/spark_cluster_job.py: read_dumps and format("inlong") with small splits, damaged dumps among them) must
give the same rows as local mode. The driver and the executors run an interpreter that has pyspark,
pyarrow, pandas, cramjam, protobuf, ... but not inlong_proto, so nothing works unless shipping does.
"""
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import time
import urllib.request
from pathlib import Path

import pyspark
import pytest

import s3server
import spark_cluster_job
import vectors

ROOT = Path(__file__).resolve().parent.parent
SPARK_HOME = Path(pyspark.__file__).parent
STARTUP_TIMEOUT = 60
# Short-lived JVMs on few cores: the C1 compiler only and one GC thread spend far less CPU on warming up.
JAVA_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def spark_env(tmp: Path, python: Path) -> dict[str, str]:
    """Environment of the cluster's daemons and of spark-submit: loopback only, no user config, scratch
    space under tmp, the package-less interpreter for Python, and no PYTHONPATH to leak the package in."""
    conf, local = tmp / "conf", tmp / "local"
    conf.mkdir(exist_ok=True)
    local.mkdir(exist_ok=True)
    # INLONG_PROTO_BACKEND stays out too: the shipped wheel is imported from a zip, where no compiled module
    # loads, so the executors run the pure backend whatever CI asks of the rest of the suite.
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYSPARK_", "SPARK_")) and k not in ("PYTHONPATH", "INLONG_PROTO_BACKEND")}
    env.update(SPARK_HOME=str(SPARK_HOME), SPARK_CONF_DIR=str(conf), SPARK_LOCAL_DIRS=str(local),
               SPARK_LOCAL_IP="127.0.0.1", SPARK_DAEMON_JAVA_OPTS=JAVA_OPTIONS,
               PYSPARK_PYTHON=str(python), PYSPARK_DRIVER_PYTHON=str(python))
    return env


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory) -> Path:
    """A venv that sees this venv's site-packages through a plain path line in a .pth file. Python adds
    that folder to sys.path but does not run the .pth files inside it, so the editable install's import
    hook (a .pth file there) stays off: every dependency is importable, inlong_proto is not."""
    folder = tmp_path_factory.mktemp("bare-venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    site = Path(sysconfig.get_path("purelib", vars={"base": str(folder), "platbase": str(folder)}))
    (site / "deps.pth").write_text(sysconfig.get_path("purelib") + "\n")
    python = folder / "bin" / "python"
    probe = subprocess.run([str(python), "-c", "import pyspark, pyarrow, pandas, cramjam, google.protobuf, h11, "
                            "click, rich\nimport inlong_proto"], capture_output=True, text=True, cwd=folder)
    assert "No module named 'inlong_proto'" in probe.stderr, probe.stderr
    return python


@pytest.fixture(scope="module")
def package(tmp_path_factory) -> Path:
    """The wheel a user would build (pip wheel), from a copy of the sources so the checkout stays clean.
    Shipped as .zip: PySpark puts only .zip/.egg/.jar files on the workers' sys.path, and a pure-Python
    wheel is a zip archive that zipimport reads."""
    tmp = tmp_path_factory.mktemp("wheel")
    source = tmp / "src"
    source.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy(ROOT / name, source)
    for name in ("inlong_proto", "generated"):
        shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    "--wheel-dir", str(tmp / "dist"), str(source)], check=True, capture_output=True)
    (wheel,) = (tmp / "dist").glob("inlong_proto-*.whl")
    return wheel.rename(wheel.with_suffix(".zip"))


class Cluster:
    """A master and workers started with bin/spark-class (the wheel has no sbin/start-*.sh scripts)."""

    def __init__(self, tmp: Path, env: dict[str, str], workers: int):
        self.tmp, self.env, self.workers = tmp, env, workers
        self.port, self.ui_port = free_port(), free_port()
        self.url = f"spark://127.0.0.1:{self.port}"
        self.processes: list[subprocess.Popen] = []

    def start(self) -> None:
        self._daemon("master", "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                     "--port", str(self.port), "--webui-port", str(self.ui_port))
        for index in range(self.workers):
            work = self.tmp / f"worker-{index}"
            self._daemon(f"worker-{index}", "org.apache.spark.deploy.worker.Worker", self.url,
                         "--cores", "1", "--memory", "1g", "--host", "127.0.0.1", "--webui-port", "0",
                         "--work-dir", str(work))
        self._wait_for_workers()

    def _daemon(self, name: str, main_class: str, *args: str) -> None:
        log = open(self.tmp / f"{name}.log", "wb")
        with log:  # the child keeps its own descriptor
            self.processes.append(subprocess.Popen(
                [str(SPARK_HOME / "bin" / "spark-class"), main_class, *args], env=self.env, cwd=self.tmp,
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True))

    def _wait_for_workers(self) -> None:
        deadline = time.monotonic() + STARTUP_TIMEOUT
        alive = 0
        while time.monotonic() < deadline:
            for process in self.processes:
                if process.poll() is not None:
                    raise RuntimeError(f"a Spark daemon exited with {process.returncode}:\n{self.logs()}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.ui_port}/json/", timeout=2) as response:
                    status = json.load(response)
                alive = sum(worker["state"] == "ALIVE" for worker in status["workers"])
                if alive == self.workers:
                    return
            except OSError:
                pass  # the master's UI is not up yet
            time.sleep(0.3)
        raise TimeoutError(f"{alive} of {self.workers} workers alive after {STARTUP_TIMEOUT} s:\n{self.logs()}")

    def logs(self) -> str:
        return "\n".join(f"--- {log.name}\n{log.read_text(errors='replace')[-3000:]}"
                         for log in sorted(self.tmp.glob("*.log")))

    def stop(self) -> None:
        """Kill each daemon's process group (a worker's executors are in its group), then reap."""
        for process in self.processes:
            kill_group(process, signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                kill_group(process, signal.SIGKILL)
                process.wait()


def kill_group(process: subprocess.Popen, sig: int) -> None:
    try:
        os.killpg(process.pid, sig)
    except ProcessLookupError:
        pass


@pytest.fixture(scope="module")
def cluster(tmp_path_factory, bare_python, s3):  # s3: the AWS variables are set before the daemons start
    tmp = tmp_path_factory.mktemp("cluster")
    cluster = Cluster(tmp, spark_env(tmp, bare_python), workers=2)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(scope="module")
def dumps(tmp_path_factory) -> Path:
    """One folder per protocol with dumps of its test vectors; the broadcast folder also has a copy with
    garbage spliced in and a cut-off tail, and the TubeMQ one a flipped byte."""
    root = tmp_path_factory.mktemp("dumps")
    rng = random.Random(6)
    for protocol, frames in vectors.valid_frames().items():
        folder = root / protocol
        folder.mkdir()
        (folder / "capture.bin").write_bytes(b"".join(rng.choice(frames) for _ in range(40)))
    broadcast = (root / "broadcast" / "capture.bin").read_bytes()
    middle = len(broadcast) // 2
    (root / "broadcast" / "damaged.bin").write_bytes(broadcast[:middle] + b"\x00\x00\x00\x26<garbage>"
                                                     + broadcast[middle:-7])
    tubemq = bytearray((root / "tubemq" / "capture.bin").read_bytes())
    tubemq[len(tubemq) // 3] ^= 0xFF
    (root / "tubemq" / "damaged.bin").write_bytes(bytes(tubemq))
    return root


class Driver:
    """A driver script spark-submitted in client mode, running in the background; its process group is
    killed if it overruns or the test fails first."""

    def __init__(self, cluster: Cluster, *job_args: str):
        self.cluster, self.log = cluster, cluster.tmp / "driver.log"
        with open(self.log, "wb") as out:
            self.process = subprocess.Popen(
                [str(SPARK_HOME / "bin" / "spark-submit"), "--master", cluster.url,
                 "--conf", "spark.ui.enabled=false", "--conf", "spark.driver.host=127.0.0.1",
                 "--conf", "spark.executor.memory=768m", "--driver-java-options", JAVA_OPTIONS,
                 "--conf", f"spark.executor.extraJavaOptions={JAVA_OPTIONS}", *job_args],
                env=cluster.env, cwd=cluster.tmp, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True)

    def wait(self, timeout: float) -> None:
        try:
            returncode = self.process.wait(timeout=timeout)
        finally:
            if self.process.poll() is None:
                kill_group(self.process, signal.SIGKILL)
                self.process.wait()
        assert returncode == 0, f"driver failed:\n{self.log.read_text(errors='replace')[-6000:]}\n{self.cluster.logs()}"


@pytest.fixture(scope="module")
def remote(dumps, s3) -> str:
    """The dumps, copied to the S3 server's bucket."""
    prefix = f"s3://{s3server.BUCKET}/cluster"
    for path in sorted(dumps.rglob("*.bin")):
        s3server.upload(path, f"{prefix}/{path.relative_to(dumps).as_posix()}")
    return prefix


def test_cluster_job_equals_local_mode(spark, cluster, dumps, remote, package, tmp_path):
    result = tmp_path / "result.json"
    driver = Driver(cluster, spark_cluster_job.__file__, str(dumps), str(package), str(result), remote)
    try:
        local = spark_cluster_job.run(spark, str(dumps), remote)  # meanwhile
    finally:
        driver.wait(timeout=120)
    report = json.loads(result.read_text())

    assert report["executors"] == 2
    assert report["driver_before_shipping"] == "ImportError: No module named 'inlong_proto'"
    assert report["tasks_before_shipping"] == ["ImportError: No module named 'inlong_proto'"]
    assert package.name in report["driver_module"]  # the shipped copy, not the checkout
    assert report["executors_used"]["format(inlong)/auto"] == ["0", "1"]  # both workers' executors
    assert report["rows"].keys() == local.keys()
    for name, rows in local.items():
        assert report["rows"][name] == rows, name

    auto = [json.loads(row) for row in local["format(inlong)/auto"]]
    assert {row["protocol"] for row in auto} >= {"broadcast", "dataproxy", "tubemq", "eventmesh"}
    assert {Path(row["path"]).name for row in auto if row["error"]} == {"damaged.bin"}
    # the bucket holds the same files: the same rows but for the path
    assert report["executors_used"]["format(inlong)/s3"] == ["0", "1"]
    from_bucket = [json.loads(row) for row in report["rows"]["format(inlong)/s3"]]
    assert all(row["path"].startswith(remote + "/") for row in from_bucket)

    def relative(rows, root):
        return sorted(json.dumps({**row, "path": row["path"].removeprefix(root)}, sort_keys=True) for row in rows)

    assert relative(from_bucket, remote + "/") == relative(auto, f"file:{dumps}/")
