"""The compiled backend wherever the package is installed (issue 26): after a non-editable ``pip install .``, a
job started from the repository root imports the SOURCE tree (the current folder is first on sys.path), which
has no compiled extension; backends.compiled then loads the installed one, built from the same generated C,
in the driver and in every Spark worker, and refuses one built from other C, with the reason.

One test, about a minute and a half on 2 cores: a copy of this working tree (its tracked and untracked files,
no built extension), a fresh venv without pip or system site packages that sees the dependencies of the
project's venv (pyspark, pyarrow, setuptools...) through a .pth line (a plain path: the editable install's hook
there is not run, so inlong_proto is not found through it), ``pip install --no-deps --no-build-isolation``
of the copy into it (the compiler runs), then a local[2] Spark job from the copy's root with that venv's
Python.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = [pytest.mark.install, pytest.mark.timeout(600)]

JOB = r"""
import json, sys, warnings
from pathlib import Path

import inlong_proto
from inlong_proto.backends import compiled
from inlong_proto.spark import common
from inlong_proto.spark.dumps import local_session
from inlong_proto.spark.source import register

out = {"package": inlong_proto.__file__, "backend": inlong_proto.backend(), "origin": compiled.origin()}
spark = local_session("installed-backend", cores=2)
spark.sparkContext.setLogLevel("ERROR")
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    register(spark)
    out["report"] = common.worker_backend(spark)
    out["rows"] = spark.read.format("inlong").option("protocol", "broadcast").load(sys.argv[1]).count()
out["warnings"] = [str(w.message) for w in caught]
spark.stop()
# the workers told to run pure Python (spark.executorEnv): a mismatch, and a warning naming it
from pyspark.sql import SparkSession
spark = (SparkSession.builder.master("local[2]").appName("mismatch").config("spark.ui.enabled", "false")
         .config("spark.driver.host", "127.0.0.1").config("spark.executorEnv.INLONG_PROTO_BACKEND", "python")
         .getOrCreate())
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    out["mismatch"] = common.worker_backend(spark)
out["mismatch_warnings"] = [(w.category.__name__, str(w.message)) for w in caught]
spark.stop()
print("REPORT " + json.dumps(out))
"""


def _copy_tree(target: Path) -> None:
    """This working tree as it is (tracked and untracked files git does not ignore), without built files."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.split(b"\0")
    for name in filter(None, (item.decode() for item in listed)):
        source = ROOT / name
        if not os.path.lexists(source):  # deleted in the working tree
            continue
        destination = target / name
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, destination, follow_symlinks=False)


def test_a_job_from_the_clone_root_runs_the_installed_extension(tmp_path):
    pytest.importorskip("pyspark")
    if shutil.which("git") is None or shutil.which(sysconfig.get_config_var("CC").split()[0]) is None:
        pytest.skip("needs git and a C compiler")
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    clone, venv = tmp_path / "clone", tmp_path / "venv"
    _copy_tree(clone)
    assert not list((clone / "inlong_proto").glob("*.so")), "the copy must hold no built extension"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    own = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                              capture_output=True, text=True, check=True).stdout.strip())
    (own / "project_venv.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")  # dependencies, pip, setuptools
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "INLONG_PROTO_BACKEND")}
    env["INLONG_PROTO_BUILD_NATIVE"] = "1"
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                    "--disable-pip-version-check", str(clone)], cwd=tmp_path, env=env, check=True)
    installed = list((own / "inlong_proto").glob("_compiled*.so"))
    assert installed, "pip install built no extension"
    assert not list((clone / "inlong_proto").glob("*.so"))  # built in place: the job below would not test much

    # from elsewhere the installed package is imported (and its own extension)
    where = subprocess.run([str(python), "-c", "import inlong_proto; print(inlong_proto.__file__)"], cwd=tmp_path,
                           env=env, capture_output=True, text=True, check=True).stdout.strip()
    assert Path(where).is_relative_to(own)

    # from the clone's root: the source tree, with the installed extension, in the driver and the workers
    env["PYSPARK_PYTHON"] = env["PYSPARK_DRIVER_PYTHON"] = str(python)
    dump = ROOT / "examples" / "data" / "broadcast.bin"
    run = subprocess.run([str(python), "-c", JOB, str(dump)], cwd=clone, env=env, capture_output=True, text=True,
                         timeout=400)
    lines = [line for line in run.stdout.splitlines() if line.startswith("REPORT ")]
    assert run.returncode == 0 and lines, run.stdout[-3000:] + run.stderr[-3000:]
    out = json.loads(lines[-1][len("REPORT "):])
    assert Path(out["package"]).resolve().is_relative_to(clone.resolve())  # the source tree, not site-packages
    assert out["backend"] == "native"
    assert Path(out["origin"]).resolve() == installed[0].resolve()
    report = out["report"]
    assert report["driver"] == report["workers"] == "native", report
    assert Path(report["workers_origin"]).resolve() == installed[0].resolve()
    assert out["rows"] > 0
    assert not out["warnings"]
    assert out["mismatch"]["driver"] == "native" and out["mismatch"]["workers"] == "python"
    assert [category for category, _ in out["mismatch_warnings"]] == ["BackendMismatchWarning"]
    assert "Spark workers run the pure-Python backend" in out["mismatch_warnings"][0][1]

    # the clone's generated C changed after the install: the installed extension is refused, with the reason
    with (clone / "generated" / "native" / "compiled.c").open("a") as file:
        file.write("/* changed */\n")
    refused = subprocess.run([str(python), "-c", "import inlong_proto; from inlong_proto.backends import compiled; "
                              "print(inlong_proto.backend()); print(compiled.origin())"], cwd=clone, env=env,
                             capture_output=True, text=True, check=True).stdout.splitlines()
    assert refused[0] == "python"
    assert f"{clone.resolve() / 'inlong_proto'} has no compiled extension" in refused[1], refused
    assert "built from other generated C" in refused[1], refused
    env["INLONG_PROTO_BACKEND"] = "native"
    insisted = subprocess.run([str(python), "-c", "import inlong_proto; inlong_proto.backend()"], cwd=clone, env=env,
                              capture_output=True, text=True)
    assert insisted.returncode != 0 and "built from other generated C" in insisted.stderr
