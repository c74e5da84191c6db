"""The floors of inlong_proto/ (issue 25), from the ground up:

    core        the codec API, Frame, the stream-decoder contract, errors, plain values, the registry reader,
                detection, Arrow schemas, byte sources
    capture     pcap / pcapng, link/IP/TCP, reassembly, classification through the registry
    protocols   broadcast | dataproxy | tubemq | eventmesh, and beside them the backends (compiled scanners,
                encoders, the compiled capture walker, the Kaitai reference): siblings that never import
                each other (the compiled capture walker wraps capture/, so the backends sit above it)
    spark       the data source, the binaryFile + UDTF readers, the capture splitter, the job
    endpoints   reference servers and clients, the recording relay, the demo
    cli         the commands, output, the filter language, the inspect view

The top-level package (``inlong_proto/__init__.py``, the public API) sits over all of them. The contracts are
import-linter's, in pyproject.toml ([tool.importlinter]); this test runs them, and adds what import-linter
does not say: no import cycle at all inside the package, and no private name (``_x``) of one module used by
another. tools/layers_report.py prints the same counts for any checkout.
"""
from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "inlong_proto"
sys.path.insert(0, str(ROOT / "tools"))

import layers_report  # noqa: E402

# the compiled extension: private by name, built from generated/native, loaded by backends/compiled.py only
EXTENSIONS = {"_compiled"}


def test_import_linter_contracts_hold():
    from importlinter.application import use_cases  # a dev dependency (pyproject.toml): no skip without it
    from importlinter.configuration import configure

    import inlong_proto

    assert Path(inlong_proto.__file__).resolve().parent == PACKAGE  # this checkout's package is the one checked
    configure()
    passed = use_cases.lint_imports(config_filename=str(ROOT / "pyproject.toml"), cache_dir=None, no_logo=True)
    assert passed, "an import runs against the floors: run `lint-imports` in the repository root for the chain"


def test_no_cycle_and_nothing_against_the_floors():
    result = layers_report.report(ROOT)
    assert result["cycles"] == []
    assert result["against"] == []
    assert result["tools_cycles"] == []


def test_report_finds_a_cycle_among_the_tools_scripts(tmp_path):
    """As it found issue 25's bench_memory <-> bench_spark: a script imports the one beside it by its bare name."""
    (tmp_path / "tools" / "bench").mkdir(parents=True)
    (tmp_path / "tools" / "bench_memory.py").write_text("def peak():\n    from bench_spark import build\n")
    (tmp_path / "tools" / "bench_spark.py").write_text("from bench_memory import peak\n")
    (tmp_path / "tools" / "bench" / "cli.py").write_text("from tools.bench_spark import peak\n")
    assert layers_report.tools_cycles(tmp_path) == [["tools.bench_memory", "tools.bench_spark"]]


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        if "generated" not in path.relative_to(PACKAGE).parts:
            yield path


def _is_module(dotted: str) -> bool:
    path = ROOT.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _private_uses(path: Path) -> list[str]:
    """`from inlong_proto.x import _y`, and `m._y` where m is an inlong_proto module imported here."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found, aliases = [], set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("inlong_proto"):
            for alias in node.names:
                name = alias.name
                if name.startswith("_") and not name.startswith("__") and name not in EXTENSIONS:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: from {node.module} import {name}")
                elif _is_module(f"{node.module}.{name}"):
                    aliases.add(alias.asname or name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("inlong_proto.") and alias.asname and _is_module(alias.name):
                    aliases.add(alias.asname)
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases
                and node.attr.startswith("_") and not node.attr.startswith("__")):
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value.id}.{node.attr}")
    return found


def test_no_private_name_used_across_modules():
    found = [line for path in _modules() for line in _private_uses(path)]
    assert found == []


def test_the_old_paths_map_onto_modules_of_this_tree():
    """layers_report places a checkout from before the move (38094b1) through MOVES: each old path's new module is
    here, on a floor, so the before and after counts sort the same code onto the same floors."""
    missing = [new for new in layers_report.MOVES.values() if not (ROOT / new).is_file()]
    assert missing == []
    assert {layers_report.layer_of(new) for new in layers_report.MOVES.values()} <= set(layers_report.LAYERS)


def test_report_counts_the_layers():
    """The figures of the closing note: every module on a floor, the package's lines all counted."""
    result = layers_report.report(ROOT)
    assert set(result["lines"]) <= set(layers_report.LAYERS)
    assert sum(result["lines"].values()) > 10_000
