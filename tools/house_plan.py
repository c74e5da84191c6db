"""The mechanical part of issue 25's house plan (the layout of inlong_proto/ into floors), re-runnable and idempotent.

    python tools/house_plan.py            # apply: git mv, absolute imports, dotted names and paths rewritten
    python tools/house_plan.py --check    # exit 1 if applying would change anything

Why a script: other work lands on main while the layout moves, and after a merge the same rewrite must run again
on the newest files. Every step is a no-op where it has already been applied:
- a move runs only while its source exists and its target does not (a deprecation shim left at an old path
  carries SHIM_MARK and is never moved or rewritten);
- every relative import in inlong_proto/ becomes absolute, resolved against the file's *old* location (a merge
  may bring a relative import written before the move into a moved file);
- a dotted module name (``inlong_proto.spark_source``) or a path (``inlong_proto/spark_source.py``) is
  rewritten through MOVES unless it already names a new module.
The hand-made cuts (shims, registration, helpers made public) are ordinary commits; git merges those.
"""
from __future__ import annotations

import argparse
import ast
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHIM_MARK = "house-plan: deprecation shim"
KEEP_MARK = "house-plan: names the old paths"  # a file that must keep naming them (the shims' test)

# old path -> new path (files); the dotted names follow from them.
MOVES = {
    # backends
    "inlong_proto/native.py": "inlong_proto/backends/compiled.py",
    "inlong_proto/native_encode.py": "inlong_proto/backends/compiled_encode.py",
    "inlong_proto/capture/native_path.py": "inlong_proto/backends/compiled_capture.py",
    "inlong_proto/reference.py": "inlong_proto/backends/reference.py",
    # cli (commands.py, not main.py: a module and its function main() would share a name)
    "inlong_proto/cli.py": "inlong_proto/cli/commands.py",
    "inlong_proto/output.py": "inlong_proto/cli/output.py",
    "inlong_proto/query.py": "inlong_proto/cli/query.py",
    "inlong_proto/inspect.py": "inlong_proto/cli/hexview.py",
    "inlong_proto/wireshark.py": "inlong_proto/cli/wireshark.py",
    "inlong_proto/tubemq/cli.py": "inlong_proto/cli/tubemq.py",
    "inlong_proto/dataproxy/cli.py": "inlong_proto/cli/dataproxy.py",
    "inlong_proto/eventmesh/cli.py": "inlong_proto/cli/eventmesh.py",
    "inlong_proto/broadcast/cli.py": "inlong_proto/cli/broadcast.py",
    # core
    "inlong_proto/frames.py": "inlong_proto/core/frames.py",
    "inlong_proto/stream.py": "inlong_proto/core/stream.py",
    "inlong_proto/protocols.py": "inlong_proto/core/protocols.py",
    "inlong_proto/errors.py": "inlong_proto/core/errors.py",
    "inlong_proto/message.py": "inlong_proto/core/message.py",
    "inlong_proto/values.py": "inlong_proto/core/plain.py",
    "inlong_proto/chains.py": "inlong_proto/core/chains.py",
    "inlong_proto/schema_checks.py": "inlong_proto/core/schema_checks.py",
    "inlong_proto/detect.py": "inlong_proto/core/detect.py",
    "inlong_proto/arrow.py": "inlong_proto/core/arrow.py",
    "inlong_proto/sources.py": "inlong_proto/core/sources.py",
    # endpoints
    "inlong_proto/endpoints.py": "inlong_proto/endpoints/common.py",
    "inlong_proto/demo.py": "inlong_proto/endpoints/demo.py",
    "inlong_proto/capture/tap.py": "inlong_proto/endpoints/tap.py",
    "inlong_proto/broadcast/server.py": "inlong_proto/endpoints/broadcast_server.py",
    "inlong_proto/broadcast/client.py": "inlong_proto/endpoints/broadcast_client.py",
    "inlong_proto/broadcast/history.py": "inlong_proto/endpoints/broadcast_history.py",
    "inlong_proto/dataproxy/server.py": "inlong_proto/endpoints/dataproxy_server.py",
    "inlong_proto/dataproxy/sender.py": "inlong_proto/endpoints/dataproxy_sender.py",
    "inlong_proto/tubemq/server.py": "inlong_proto/endpoints/tubemq_server.py",
    "inlong_proto/tubemq/master.py": "inlong_proto/endpoints/tubemq_master.py",
    "inlong_proto/tubemq/broker.py": "inlong_proto/endpoints/tubemq_broker.py",
    "inlong_proto/tubemq/client.py": "inlong_proto/endpoints/tubemq_client.py",
    "inlong_proto/eventmesh/server.py": "inlong_proto/endpoints/eventmesh_server.py",
    "inlong_proto/eventmesh/client.py": "inlong_proto/endpoints/eventmesh_client.py",
    "inlong_proto/eventmesh/http_server.py": "inlong_proto/endpoints/eventmesh_http_server.py",
    "inlong_proto/eventmesh/http_client.py": "inlong_proto/endpoints/eventmesh_http_client.py",
    "inlong_proto/eventmesh/grpc_server.py": "inlong_proto/endpoints/eventmesh_grpc_server.py",
    "inlong_proto/eventmesh/grpc_client.py": "inlong_proto/endpoints/eventmesh_grpc_client.py",
    # spark
    "inlong_proto/spark.py": "inlong_proto/spark/dumps.py",
    "inlong_proto/spark_source.py": "inlong_proto/spark/source.py",
    "inlong_proto/spark_capture.py": "inlong_proto/spark/captures.py",
    "inlong_proto/spark_job.py": "inlong_proto/spark/job.py",
    # item 4's small moves
    "tools/bench.py": "tools/bench/codecs.py",
    "tools/bench_capture_split.py": "tools/bench/capture_split.py",
    "tools/bench_hostile.py": "tools/bench/hostile.py",
    "tools/bench_memory.py": "tools/bench/memory.py",
    "tools/bench_native.py": "tools/bench/native.py",
    "tools/bench_native_capture.py": "tools/bench/native_capture.py",
    "tools/bench_native_encode.py": "tools/bench/native_encode.py",
    "tools/bench_native_spark.py": "tools/bench/native_spark.py",
    "tools/bench_recovery.py": "tools/bench/recovery.py",
    "tools/bench_spark.py": "tools/bench/spark.py",
    "tools/s3server.py": "tests/s3server.py",
    "tools/jsonschema_codegen.py": "tools/ksygen/jsonschema_codegen.py",
}
# Packages the moves create (their __init__.py is hand-written, re-exporting the documented names).
NEW_PACKAGES = ["inlong_proto/backends", "inlong_proto/cli", "inlong_proto/core", "inlong_proto/endpoints",
                "inlong_proto/spark", "tools/bench"]


def dotted(path: str) -> str:
    """The module name of a repository path; tests/ is on sys.path, so tests/x.py is plain ``x``."""
    name = path[:-3].replace("/", ".")
    name = name.removesuffix(".__init__")
    return name.removeprefix("tests.")


MODULES = {dotted(old): dotted(new) for old, new in MOVES.items()}
NEW_NAMES = set(MODULES.values()) | {p.replace("/", ".") for p in NEW_PACKAGES} | {
    dotted(path.relative_to(ROOT).as_posix()) for folder in NEW_PACKAGES for path in (ROOT / folder).glob("*.py")}
OLD_OF_NEW_PATH = {new: old for old, new in MOVES.items()}
TEXT_SUFFIXES = {".py", ".md", ".toml", ".cfg", ".txt", ".yaml", ".yml", ".ksy", ".json", ".lua", ".c", ".h",
                 ".sh", ".ini", ".in"}
TEXT_NAMES = {"Makefile", "run", ".gitignore"}
SKIP_PARTS = {".git", "node_modules", ".venv", "__pycache__"}


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True, text=True).stdout


def is_shim(path: Path) -> bool:
    """A deprecation shim (never moved), or a file that names the old paths on purpose (never rewritten)."""
    if not path.is_file():
        return False
    text = path.read_text(encoding="utf-8", errors="replace")
    return SHIM_MARK in text or KEEP_MARK in text


def move_files(check: bool) -> list[str]:
    """git mv each move whose source exists and target does not; a source and a target both real is a conflict
    (a merge that did not follow a rename) and stops the run."""
    done = []
    for old, new in MOVES.items():
        src, dst = ROOT / old, ROOT / new
        if not src.exists() or is_shim(src):
            continue
        if dst.exists():
            sys.exit(f"house_plan: both {old} and {new} exist: merge {old}'s changes into {new} by hand, then "
                     f"delete {old} (or make it a shim)")
        done.append(f"git mv {old} {new}")
        if not check:
            dst.parent.mkdir(parents=True, exist_ok=True)
            git("mv", old, new)
    return done


def map_module(name: str, bare_ok: bool = True) -> str:
    """``name`` through MODULES (its longest old prefix), unless it already names a new module. A module that
    became a package of the same name (cli, spark, endpoints, tools.bench) stays as it is when named bare (the
    package re-exports its API: ``python -m inlong_proto.cli``, ``inlong_proto.cli:main``); a name inside it
    (``inlong_proto.cli._LiveDecoder``) moves with the module's code, unless bare_ok is False."""
    if bare_ok and name in NEW_NAMES:
        return name
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        head = ".".join(parts[:cut])
        if head in NEW_NAMES and head not in MODULES:
            return name
        if head in MODULES:
            return ".".join([MODULES[head], *parts[cut:]])
    return name


def package_of(path: str) -> str:
    """The package a file's relative imports were written against: that of its old location."""
    rel = OLD_OF_NEW_PATH.get(path, path)
    name = dotted(rel)
    return name if rel.endswith("__init__.py") else name.rpartition(".")[0]


def resolve(package: str, level: int, module: str | None) -> str:
    base = package.split(".")
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def from_statements(module: str, names: list[tuple[str, str | None]]) -> list[str]:
    """``from module import names`` mapped: a name that is itself a moved module is imported from its new
    package under its old local name; the others from the mapped module. One statement per target."""
    groups: dict[str, list[str]] = {}
    for name, asname in names:
        full = f"{module}.{name}"
        if full in NEW_NAMES and full not in MODULES:  # already the new layout: `from inlong_proto.cli import x`
            groups.setdefault(module, []).append(name if not asname else f"{name} as {asname}")
        elif full in MODULES:
            new = MODULES[full]
            parent, _, leaf = new.rpartition(".")
            local = asname or name
            groups.setdefault(parent, []).append(leaf if leaf == local else f"{leaf} as {local}")
        else:
            target = map_module(module, bare_ok=False)
            groups.setdefault(target, []).append(name if not asname else f"{name} as {asname}")
    return [f"from {target} import {', '.join(items)}" if target else f"import {', '.join(items)}"
            for target, items in groups.items()]


def _plain(module: str, names: list[tuple[str, str | None]]) -> str:
    return f"from {module} import " + ", ".join(n if not a else f"{n} as {a}" for n, a in names)


def wrap(statement: str, indent: str, width: int = 120) -> str:
    """A from-import within ``width`` columns, parenthesised and wrapped when longer."""
    line = indent + statement
    if len(line) <= width:
        return line
    head, _, names = statement.partition(" import ")
    out, current = [], f"{indent}{head} import ("
    for item in names.split(", "):
        piece = item + ", "
        if len(current) + len(piece) > width - 1:
            out.append(current.rstrip())
            current = indent + " " * (len(head) + 9)
        current += piece
    out.append(current.rstrip().rstrip(",") + ")")
    return "\n".join(out)


def rewrite_python_imports(rel: str, text: str) -> str:
    """Relative imports made absolute and every inlong_proto import mapped, statement by statement (AST)."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return text
    package = package_of(rel) if rel.startswith("inlong_proto/") else ""
    lines = text.splitlines(keepends=True)
    edits = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                if not package:
                    continue
                module = resolve(package, node.level, node.module)
            else:
                module = node.module or ""
            if module.split(".")[0] not in ("inlong_proto", "tools"):
                continue
            names = [(a.name, a.asname) for a in node.names]
            stmts = from_statements(module, names)
            if not node.level and stmts == from_statements(module, names) == [_plain(module, names)]:
                continue
        elif isinstance(node, ast.Import):
            if not any(map_module(a.name) != a.name for a in node.names):
                continue
            stmts = ["import " + ", ".join(map_module(a.name) + (f" as {a.asname}" if a.asname else "")
                                           for a in node.names)]
        else:
            continue
        first, last = node.lineno - 1, node.end_lineno - 1
        line = lines[first]
        indent = line[: node.col_offset]
        before, after = line[: node.col_offset], lines[last][node.end_col_offset:]
        if before.strip():  # `x; from . import y`: leave such lines to the text pass
            continue
        new = "\n".join(wrap(s, indent) for s in stmts) + after
        if new != "".join(lines[first:last + 1]):
            edits.append((first, last, new))
    for first, last, replacement in sorted(edits, reverse=True):
        lines[first:last + 1] = [replacement if replacement.endswith("\n") else replacement + "\n"]
    return "".join(lines)


DOTTED = re.compile(r"(?<![\w.])((?:inlong_proto|tools)(?:\.[A-Za-z_]\w*)+)")
FROM_LINE = re.compile(r"\bfrom ((?:inlong_proto|tools)(?:\.\w+)*) import ((?:\w+(?: as \w+)?)(?:, \w+(?: as \w+)?)*)")
PATHS = re.compile("|".join(sorted((r"(?<![\w/])" + re.escape(old) + r"(?![\w/])" for old in MOVES), key=len,
                                   reverse=True)))
TOOL_IMPORTS = {  # tests and tools import some tools as top-level modules (tools/ or tests/ on sys.path)
    "from tools import s3server": "import s3server",
    "from tools import jsonschema_codegen": "from tools.ksygen import jsonschema_codegen",
    "from bench_spark import": "from tools.bench.spark import",
}


def rewrite_text(text: str) -> str:
    """Single-line from-imports inside strings and docs, then dotted names, then paths."""
    for old, new in TOOL_IMPORTS.items():
        text = text.replace(old, new)

    def from_line(match: re.Match) -> str:
        names = [(n.split(" as ")[0], n.split(" as ")[1] if " as " in n else None)
                 for n in match.group(2).split(", ")]
        return "; ".join(from_statements(match.group(1), names))

    text = FROM_LINE.sub(from_line, text)
    def name(match: re.Match) -> str:
        found = match.group(1)
        # `from inlong_proto.cli import broadcast`: a module that became a package is decided by what is imported
        # from it (the import passes did that), not by its name alone
        if found in NEW_NAMES and text.endswith("from ", 0, match.start()) and \
                text.startswith(" import", match.end()):
            return found
        return map_module(found)

    text = DOTTED.sub(name, text)
    return PATHS.sub(lambda m: MOVES[m.group(0)], text)


ROOT_PATTERN = re.compile(r"Path\(__file__\)\.resolve\(\)\.parent\.parent(?!\.parent)")


def rewrite_file(rel: str, text: str) -> str:
    if rel.endswith(".py"):
        text = rewrite_python_imports(rel, text)
    text = rewrite_text(text)
    # a tool moved one folder deeper finds the repository root one level further up
    if rel in OLD_OF_NEW_PATH and rel.startswith("tools/") and rel.count("/") == 2:
        text = ROOT_PATTERN.sub("Path(__file__).resolve().parents[2]", text)
    return text


def candidates() -> list[str]:
    files = git("ls-files", "--cached", "--others", "--exclude-standard").splitlines()
    out = []
    for rel in files:
        path = ROOT / rel
        if rel == "tools/house_plan.py" or set(Path(rel).parts) & SKIP_PARTS or not path.is_file():
            continue
        if path.suffix in TEXT_SUFFIXES or path.name in TEXT_NAMES:
            out.append(rel)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if anything would change")
    args = parser.parse_args(argv)
    moved = move_files(args.check)
    changed = []
    for rel in candidates():
        path = ROOT / rel
        if is_shim(path):
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        new = rewrite_file(rel, text)
        if new != text:
            changed.append(rel)
            if not args.check:
                path.write_text(new, encoding="utf-8")
    for line in moved:
        print(line)
    for rel in changed:
        print(f"rewrote {rel}")
    if args.check:
        return 1 if moved or changed else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
