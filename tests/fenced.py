"""Run the fenced `python` and `sh` examples of Markdown pages, so that no example can go stale: the README's
(tests/test_readme.py) and the documentation site's (tests/test_docs.py).

Each block runs in one folder that holds the files the examples name: `examples/` (the repository's, so
that `examples/data/...` means the shipped samples, as from a clone's root) and `pcaps/` (the tests'
tcpdump captures, standing for a folder of the reader's own). The test S3 server (moto,
tests/conftest.py) holds the bucket `captures` with `2026/11/lo.pcap` and `big.pcap` (the sample capture)
and `dumps/dataproxy.bin` (the sample DataProxy dump); in the examples the host `minio.internal:9000`
stands for it, and `key` / `secret` are its credentials.

python blocks run each in its own interpreter in that folder, given what the prose around them assumes:
`inlong_proto` (imported as in the first example) and, where a block uses Spark, `spark` (a local session
started there, so that relative paths mean the same to the JVM, as a page's first Spark example starts
it). Every DataFrame a block leaves behind is counted, so a lazy example runs too.

sh blocks run under `bash -e` with the package's commands first on PATH; what a block starts with `&` is
stopped when it ends. A block may print `inlong-proto: error: …` only where it shows a failure (`|| echo`):
elsewhere the error line is a broken example, even when the block's status hides it (`| head`). `make` and `pip install` lines are checked, not run (the suite runs inside what they
install): the make targets must exist (`make -n`), the pip extras must be defined.
"""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CAPTURES = ROOT / "tests" / "vectors" / "capture"
S3_HOST = "http://minio.internal:9000"


def blocks(page: Path) -> list[tuple[str, int, str, str]]:
    """(language, line, section, text) of every fenced python / sh block, section = the heading above it."""
    text = page.read_text()
    out = []
    for match in re.finditer(r"^```(python|sh)\n(.*?)^```", text, re.S | re.M):
        before = text[:match.start()]
        headings = re.findall(r"^#{2,4} (.+)$", before, re.M)
        out.append((match.group(1), before.count("\n") + 1, headings[-1] if headings else "", match.group(2)))
    return out


def make_folder(home: Path) -> Path:
    """The files the examples name (module doc), in home and in the S3 bucket (the s3 fixture's)."""
    import s3server

    (home / "examples").symlink_to(ROOT / "examples")  # the examples' own commands run from a clone's root
    (home / "pcaps").mkdir()
    for path in CAPTURES.glob("*.pcap*"):
        shutil.copy(path, home / "pcaps" / path.name)
    samples = ROOT / "examples" / "data"
    uploads = {"2026/11/lo.pcap": samples / "mixed.pcap", "dumps/dataproxy.bin": samples / "dataproxy.bin",
               "big.pcap": samples / "mixed.pcap"}
    for key, path in uploads.items():
        s3server.upload(path, f"s3://{s3server.BUCKET}/{key}")
    return home


def example_namespace(spark) -> dict:
    """What a python block may use without defining it (module doc)."""
    import inlong_proto

    return {"spark": spark, "key": os.environ.get("AWS_ACCESS_KEY_ID"),
            "secret": os.environ.get("AWS_SECRET_ACCESS_KEY"), "inlong_proto": inlong_proto, "__name__": "example"}


def run_example(section: str, text: str, source: str) -> None:
    """Run one python block here (the current folder), as a user's script would: a Spark example gets a
    session started from this folder, so that relative paths mean the same to the JVM."""
    spark = None
    if "spark" in text:
        from inlong_proto.spark.dumps import local_session
        from inlong_proto.spark.source import register

        spark = local_session("inlong-proto-examples", cores=1)
        spark.sparkContext.setLogLevel("ERROR")
        register(spark)
    namespace = example_namespace(spark)
    endpoint = os.environ.get("AWS_ENDPOINT_URL", S3_HOST)
    exec(compile(text.replace(S3_HOST, endpoint), f"{source} ({section})", "exec"), namespace)
    if spark is not None:
        from pyspark.sql import DataFrame

        for value in list(namespace.values()):
            if isinstance(value, DataFrame):
                value.count()


def run_python(section: str, text: str, folder: Path, source: str) -> None:
    """A python block in a fresh interpreter in folder (run_example there); fails with its stderr."""
    runner = ("import sys; sys.path[:0] = [sys.argv[1], sys.argv[2]]; import fenced; "
              "fenced.run_example(sys.argv[3], sys.stdin.read(), sys.argv[4])")
    done = subprocess.run([sys.executable, "-c", runner, str(ROOT / "tests"), str(ROOT), section, source],
                          input=text, cwd=folder, env=environment(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-4000:]


def environment() -> dict:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "PYSPARK_PYTHON": sys.executable}
    env.pop("PYTEST_CURRENT_TEST", None)
    return env


def _checked(line: str) -> bool:
    """A make or pip install line: checked, not run (module doc)."""
    words = line.split("#", 1)[0].split()
    if words[:1] == ["make"]:
        targets = [w for w in words[1:] if not w.startswith("-")]
        done = subprocess.run(["make", "-n", *targets], cwd=ROOT, capture_output=True, text=True)
        assert done.returncode == 0, f"make {' '.join(targets)}: {done.stderr}"
        return True
    if words[:2] == ["pip", "install"]:
        extras = re.findall(r"\[([\w,-]+)\]", line)
        defined = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
        for extra in ",".join(extras).split(","):
            assert not extra or extra in defined, f"pip install: no extra {extra!r}"
        return True
    return False


def run_shell(text: str, folder: Path) -> None:
    """An sh block under bash -e in folder; what it left running is killed; fails with its output."""
    script = "\n".join(line for line in text.splitlines() if not _checked(line))
    if not script.strip():
        return
    log = folder / "sh-output.txt"
    with open(log, "w") as output:
        process = subprocess.Popen(["bash", "-e", "-c", script], cwd=folder, env=environment(), stdout=output,
                                   stderr=subprocess.STDOUT, start_new_session=True)
        try:
            process.wait(timeout=240)
        finally:
            try:
                os.killpg(process.pid, signal.SIGKILL)  # what it started with & and left running
            except ProcessLookupError:
                pass
    text = log.read_text(errors="replace")
    assert process.returncode == 0, f"exit {process.returncode}:\n{text[-4000:]}"
    assert "Traceback" not in text, text[-4000:]
    if "||" not in script:  # a block that shows a failure says so (`|| echo ...`); elsewhere an error is a bug
        assert "inlong-proto: error:" not in text, text[-4000:]
