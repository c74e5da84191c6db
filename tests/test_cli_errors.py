"""Issue 27, item 5: every failure of the command line is one line, `inlong-proto: error: …`, on stderr, with no
traceback; exit status 2 for a usage error, 1 for data. A table of bad invocations, run through click's
CliRunner (stderr apart), and a few in a subprocess with an optional dependency made unimportable
(sys.modules[name] = None), each of which must name the extra that brings it."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from inlong_proto.cli import main

ROOT = Path(__file__).resolve().parent.parent
CAPTURES = ROOT / "tests" / "vectors" / "capture"
DATAPROXY_PCAP = CAPTURES / "dataproxy_lo.pcap"
DUMP = ROOT / "examples" / "data" / "dataproxy.bin"
USAGE, DATA = 2, 1


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, str]:
    home = tmp_path_factory.mktemp("bad")
    made = {
        "empty": b"",
        "random": bytes((index * 131 + 7) % 256 for index in range(5000)),  # not UTF-8, no protocol's frames
        "text": b"this is not json\n",
        "array": b"[1, 2]\n",
        "direction": json.dumps({"direction": "sideways"}).encode() + b"\n",
        "unknown_field": json.dumps({"total_length": 37, "nonsense": 1}).encode() + b"\n",
    }
    paths = {}
    for name, data in made.items():
        path = home / f"{name}.bin"
        path.write_bytes(data)
        paths[name] = str(path)
    paths["missing"] = str(home / "missing.bin")
    paths["folder"] = str(home)
    paths["out"] = str(home / "out.pcap")
    return paths


# (arguments, with {name} for a file of the fixture, expected status, a piece the line must hold)
CASES = [
    # usage: the command line's fault
    (["decode"], USAGE, "Missing argument"),
    (["decode", "--bogus", "{random}"], USAGE, "--bogus"),
    (["decode", "-p", "nope", "{random}"], USAGE, "unknown protocol 'nope'"),
    (["decode", "-T", "xml", "{random}"], USAGE, "--format"),
    (["decode", "-d", "sideways", "{random}"], USAGE, "--direction"),
    (["decode", "-p", "dataproxy", "-e", "no_such_field", str(DUMP)], USAGE, "no_such_field"),
    (["decode", "-p", "dataproxy", "-Y", "offset ==", str(DUMP)], USAGE, ""),
    (["decode", "--records", "-p", "tubemq", "{random}"], USAGE, "--records"),
    (["encode", "{random}"], USAGE, "name it with -p"),
    (["encode", "-p", "auto", "{random}"], USAGE, "-p auto only reads"),
    (["encode", "-p", "eventmesh-http", "{random}"], USAGE, "stream of HTTP messages"),
    (["write-pcap", str(DUMP), "{out}"], USAGE, "name it with -p"),
    (["write-pcap", "-p", "auto", str(DUMP), "{out}"], USAGE, "-p auto only reads"),
    (["inspect", "--mode", "WRONG", "{random}"], USAGE, "--mode"),
    (["capture"], USAGE, "Missing argument"),
    (["no-such-command"], USAGE, "No such command"),
    (["tubemq", "calls"], USAGE, "Missing argument"),
    (["tubemq", "calls", "-T", "xml", "{random}"], USAGE, "--format"),
    # data: the input's fault (or the file system's)
    (["decode", "{empty}"], DATA, "empty: expected a raw dump or a .pcap / .pcapng capture"),
    (["decode", "{random}"], DATA, "no known protocol reads its first frame (expected a capture"),
    (["decode", "-p", "dataproxy", "{random}"], DATA, "in total_len: value"),
    (["decode", "-p", "tubemq", "{random}"], DATA, "in begin_token: expected"),
    (["decode", "-p", "eventmesh", "{random}"], DATA, "in magic: expected"),
    (["decode", "{missing}"], DATA, "No such file or directory"),
    (["decode", "{folder}"], DATA, "Is a directory"),
    (["capture", "{empty}"], DATA, "empty: expected a .pcap or .pcapng file"),
    (["capture", "{random}"], DATA, "not a capture"),
    (["capture", str(DUMP)], DATA, "not a capture"),
    (["inspect", "{empty}"], DATA, "empty: expected a raw dump"),
    (["inspect", "{random}"], DATA, "no known protocol reads the first frames (expected"),
    (["inspect", "-p", "broadcast", "--mode", "FAILFAST", "{random}"], DATA, "in total_length"),
    (["encode", "-p", "broadcast", "{random}"], DATA, "not JSON lines"),
    (["encode", "-p", "broadcast", "{empty}"], DATA, "empty: expected the JSON objects"),
    (["encode", "-p", "broadcast", "{text}"], DATA, "line 1: not JSON"),
    (["encode", "-p", "broadcast", "{array}"], DATA, "expected a JSON object"),
    (["encode", "-p", "broadcast", "{direction}"], DATA, "direction 'sideways'"),
    (["encode", "-p", "broadcast", "{unknown_field}"], DATA, "line 1:"),
    (["tubemq", "calls", "{random}"], DATA, "no TubeMQ call found: expected"),
    (["tubemq", "calls", "{empty}"], DATA, "empty: expected a capture of TubeMQ traffic"),
    (["tubemq", "calls", str(DATAPROXY_PCAP)], DATA, "no TubeMQ call found"),
    (["write-pcap", "-p", "dataproxy", "{missing}", "{out}"], DATA, "No such file or directory"),
    (["write-pcap", "-p", "dataproxy", "{empty}", "{out}"], DATA, "empty: expected a raw dump of dataproxy frames"),
    (["write-pcap", "-p", "tubemq", str(DUMP), "{out}"], DATA, "no tubemq frame found: expected a raw dump"),
    (["audit", "{empty}"], DATA, "empty: expected a capture (pcap / pcapng) or a raw dump"),
    (["audit", "{random}"], DATA, "neither a capture (pcap / pcapng) nor a raw dump"),
    (["replay", "--to", "127.0.0.1:9", "--dry-run", "{empty}"], DATA, "empty: expected a capture, or a raw dump"),
    (["replay", "--to", "127.0.0.1:9", "--dry-run", "{random}"], DATA, "not a capture, nor a raw dump"),
    (["replay", "--to", "127.0.0.1:9", "-p", "dataproxy", "{random}"], DATA, "no request to replay: expected"),
]


def _one_line(stderr: str) -> str:
    assert "Traceback" not in stderr, stderr
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("inlong-proto: error: "), lines[0]
    return lines[0]


@pytest.mark.parametrize("arguments, status, piece", CASES, ids=[" ".join(case[0])[:60] for case in CASES])
def test_a_bad_invocation_is_one_line(arguments, status, piece, files):
    assert len(CASES) >= 30
    argv = [argument.format(**files) for argument in arguments]
    result = CliRunner().invoke(main, argv)
    line = _one_line(result.stderr)
    assert result.exit_code == status, (result.exit_code, line)
    assert piece in line, line
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit), result.exception
    assert not Path(files["out"]).exists()  # a failed write-pcap leaves no file


def test_the_spec_doc_is_left_out_of_the_line(files):
    """A `valid` check's reason ends with the field's spec doc in parentheses; the one line does not."""
    line = _one_line(CliRunner().invoke(main, ["decode", "-p", "dataproxy", files["random"]]).stderr)
    assert line.endswith("]") and "Bytes after this field" not in line, line
    magic = _one_line(CliRunner().invoke(main, ["decode", "-p", "eventmesh", files["random"]]).stderr)
    assert "CONSTANT_MAGIC_FLAG" not in magic and magic.endswith("'"), magic


def _without(module: str, *argv: str, cwd: Path) -> subprocess.CompletedProcess:
    """The command in a fresh interpreter where `import module` fails as if it were not installed."""
    code = f"import sys; sys.modules[{module!r}] = None; from inlong_proto.cli import main; main()"
    return subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, cwd=cwd, timeout=120,
                          env={**__import__("os").environ, "PYTHONPATH": str(ROOT)})


@pytest.mark.parametrize("module, package, extra, argv", [
    ("pyspark", "pyspark", "spark", ["spark", "parse", str(DUMP), "out"]),
    ("pyspark", "pyspark", "spark", ["demo", "--out", "demo"]),
    ("pyspark", "pyspark", "spark", ["spark", "ingest", str(DUMP), "--to", "t", "--checkpoint", "c", "--once"]),
    ("grpc", "grpcio", "grpc", ["eventmesh", "grpc-serve", "--port", "0"]),
    ("grpc", "grpcio", "grpc", ["eventmesh", "grpc-client", "--port", "9", "heartbeat"]),
    ("pyarrow", "pyarrow", "spark", ["decode", "-T", "csv", str(DUMP)]),
    ("pyarrow", "pyarrow", "spark", ["decode", "-T", "parquet", "-e", "offset", str(DUMP)]),
    ("pyarrow", "pyarrow", "spark", ["audit", "-T", "parquet", str(ROOT / "examples" / "data" / "mixed.pcap")]),
], ids=["spark parse", "demo", "spark ingest", "grpc-serve", "grpc-client", "decode -T csv", "decode -T parquet -e",
        "audit -T parquet"])
def test_a_missing_extra_names_itself(module, package, extra, argv, tmp_path):
    done = _without(module, *argv, cwd=tmp_path)
    line = _one_line(done.stderr)
    assert done.returncode == DATA, line
    assert f" needs {package}," in line and f"pip install 'inlong-proto[{extra}]'" in line, line
    assert not (tmp_path / "demo").exists()  # the demo stops before it starts its servers


def test_any_missing_module_names_its_extra(tmp_path):
    """Where a command imports an optional module itself, the CLI maps it to the extra (from the package's
    metadata): grpcio is the `grpc` extra."""
    from inlong_proto.cli.commands import _missing

    error = ModuleNotFoundError("No module named 'grpc'", name="grpc")
    assert "pip install 'inlong-proto[grpc]'" in _missing(error).format_message()


def test_the_spark_modules_load_without_pyspark(tmp_path):
    """Their options and rules work without the extra (a missing-extra line comes from the command, not a
    TypeError of a class defined on placeholder bases)."""
    code = ("import sys; sys.modules['pyspark'] = None\n"
            "import inlong_proto.spark.source, inlong_proto.spark.stream, inlong_proto.spark.ingestion")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=120,
                          env={**__import__("os").environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr


def test_python_dash_m_speaks_as_the_command(tmp_path):
    """`python -m inlong_proto` names itself inlong-proto in its errors and help, as the console script does."""
    done = subprocess.run([sys.executable, "-m", "inlong_proto", "decode", "-T", "xml", "x"], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)
    assert _one_line(done.stderr).startswith("inlong-proto: error: decode: Invalid value for '--format'")
    assert done.stderr.rstrip().endswith("(see 'inlong-proto decode --help')") and done.returncode == USAGE
