"""What `inlong-proto decode` loads: never pyspark or pandas (pyarrow would import pandas at its first array;
commands.UNUSED_BY_DECODE hides it from the command's own process; a dump's batches come from spark.pieces, which
imports no pyspark), and on a capture neither the Spark readers nor the audit. Each run is the console script's own (`from inlong_proto.cli import
main; sys.exit(main())`), in a fresh interpreter, which reports its modules as it exits."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CAPTURE = ROOT / "tests" / "vectors" / "capture" / "dataproxy_lo.pcap"
DUMP = ROOT / "examples" / "data" / "dataproxy.bin"
SCRIPT = ("import atexit, sys\n"
          "from inlong_proto.cli import main\n"
          "atexit.register(lambda: sys.stderr.write('\\nmodules: ' + ' '.join(sorted(sys.modules)) + '\\n'))\n"
          "sys.exit(main())\n")


def loaded(*args: str, out: Path) -> set[str]:
    with open(out, "wb") as sink:
        done = subprocess.run([sys.executable, "-c", SCRIPT, *args], stdout=sink, stderr=subprocess.PIPE,
                              cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    return set(done.stderr.decode().rpartition("modules: ")[2].split())


@pytest.mark.parametrize("args", [["decode", "--help"],
                                  ["decode", "-p", "dataproxy", "-T", "parquet", str(CAPTURE)],
                                  ["decode", "-p", "dataproxy", "-T", "jsonl", str(CAPTURE)]],
                         ids=["help", "parquet", "jsonl"])
def test_decode_loads_no_spark_and_no_pandas(args, tmp_path):
    modules = loaded(*args, out=tmp_path / "out")
    assert modules and "inlong_proto.cli.commands" in modules
    unwanted = {name for name in modules if name.partition(".")[0] in ("pyspark", "pandas")
                or name.startswith(("inlong_proto.spark", "inlong_proto.audit"))}
    assert not unwanted
    if "-T" in args:
        assert (tmp_path / "out").stat().st_size > 1000  # the rows were written
        assert "pyarrow" in modules  # through the compiled batches



@pytest.mark.parametrize("output", ["parquet", "jsonl"])
def test_decode_of_a_dump_reads_through_the_pieces_without_pyspark(output, tmp_path):
    modules = loaded("decode", "-p", "dataproxy", "-T", output, str(DUMP), out=tmp_path / "out")
    assert "inlong_proto.spark.pieces" in modules  # the readers' own batches, not a second path
    assert not {name for name in modules if name.partition(".")[0] in ("pyspark", "pandas")}
    assert "inlong_proto.spark.source" not in modules
    assert (tmp_path / "out").stat().st_size > 1000
