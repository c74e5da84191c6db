"""Lines per layer, the largest modules, import cycles and imports against the layers of inlong_proto/, and the
import cycles among the scripts of tools/.

    python tools/layers_report.py [ROOT]        # ROOT: a checkout (default: this one), old or new layout

A checkout from before the move (38094b1, what issue 25 was filed against) is placed through MOVES below.

Why our own small walk rather than import-linter's graph: the same count must run on a checkout from before the
house plan, where the layers are not folders yet. Each module is placed on its floor by where the house plan puts
it (MOVES for an old path, its folder for a new one); every ``import`` and ``from ... import``
counts, also those inside functions; deprecation shims (they import nothing at import time) and generated/ are
left out. A cycle is a strongly connected group of two or more modules.
"""
from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path

SHIM_MARK = "house-plan: deprecation shim"  # what the shims at the old paths say

MOVES = {  # old path -> new path, as tools/house_plan.py (commit 05437ef) moved them
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
    "inlong_proto/chains.py": "inlong_proto/core/block_walks.py",
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
}

# bottom up, as tests/test_layers.py enforces them
LAYERS = ["core", "capture", "protocols", "backends", "audit", "spark", "endpoints", "cli", "package"]
PROTOCOLS = ("broadcast", "dataproxy", "tubemq", "eventmesh")


def layer_of(new_path: str) -> str:
    parts = new_path.split("/")
    if len(parts) == 2:  # inlong_proto/__init__.py, __main__.py: the public facade over the floors, on top
        return "package"
    folder = parts[1]
    return "protocols" if folder in PROTOCOLS else folder


def modules(root: Path) -> dict[str, Path]:
    """module name -> file, for inlong_proto/ without generated/ and shims."""
    out = {}
    for path in sorted((root / "inlong_proto").rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if "/generated/" in f"/{rel}" or SHIM_MARK in path.read_text(encoding="utf-8"):
            continue
        name = rel[:-3].replace("/", ".").removesuffix(".__init__")
        out[name] = path
    return out


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The inlong_proto modules ``name`` imports."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            # `from inlong_proto import _compiled`: the compiled extension, not a module of the graph
            targets = [f"{module}.{a.name}" for a in node.names
                       if not (module == "inlong_proto" and a.name[0] == "_" != a.name[1])]
            if any(f"{module}.{a.name}" not in known and f"{module}.{a.name}" in targets
                   and not f"{module}.{a.name}".startswith("inlong_proto.generated") for a in node.names):
                targets.append(module)  # a name defined in the module (or its package), not a submodule
        else:
            continue
        for target in targets:
            if target.startswith("inlong_proto.generated.") or target == "inlong_proto.generated":
                continue
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target == "inlong_proto" and not isinstance(node, ast.ImportFrom):
                continue  # `import inlong_proto.x` names x; the facade is only imported by `from inlong_proto import`
            if target and target != name:
                found.add(target)
    # a submodule import also runs the packages above it; only the named module counts here
    return found


def _against(a: str, b: str, floors: dict[str, str]) -> bool:
    """An import up the floors, or between two sibling packages of the protocols floor (eventmesh -> tubemq)."""
    if LAYERS.index(floors[b]) > LAYERS.index(floors[a]):
        return True
    if floors[a] == floors[b] == "protocols":
        return _package(a) != _package(b)
    return False


def _package(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else ""


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of two or more modules (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def report(root: Path) -> dict:
    mods = modules(root)
    known = set(mods)
    graph = {name: imports(name, path, known) for name, path in mods.items()}
    # packages' __init__ re-exports are edges too, but an edge to one's own package __init__ is not a layer fact
    floors = {}
    for name, path in mods.items():
        rel = path.relative_to(root).as_posix()
        floors[name] = layer_of(MOVES.get(rel, rel))
    lines = defaultdict(int)
    sizes = []
    for name, path in mods.items():
        count = len(path.read_text(encoding="utf-8").splitlines())
        lines[floors[name]] += count
        sizes.append((count, name))
    against = sorted((a, b) for a, targets in graph.items() for b in targets if _against(a, b, floors))
    return {"lines": dict(lines), "largest": sorted(sizes, reverse=True)[:10], "cycles": cycles(graph),
            "against": against, "modules": len(mods), "edges": sum(len(t) for t in graph.values()),
            "tools_cycles": tools_cycles(root)}


def tools_cycles(root: Path) -> list[list[str]]:
    """Import cycles among the scripts of tools/ (the generator, the benchmarks): issue 25 counted one there
    (bench_memory <-> bench_spark). A script runs with its own folder on sys.path, so a bare ``import
    bench_spark`` names the module beside it."""
    files = {}
    for path in sorted((root / "tools").rglob("*.py")):
        if "node_modules" not in path.parts:
            files[".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__")] = path
    graph = {}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = package.split(".")[: len(package.split(".")) - max(node.level - 1, 0)] if node.level else []
                module = ".".join(base + ([node.module] if node.module else []))
                targets = [f"{module}.{a.name}" if f"{module}.{a.name}" in files else module for a in node.names]
            else:
                continue
            for target in targets:
                for candidate in (target, f"{package}.{target}"):
                    if candidate in files and candidate != name:
                        found.add(candidate)
                        break
        graph[name] = found
    return cycles(graph)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    root = Path(argv[0]).resolve() if argv else Path(__file__).resolve().parent.parent
    result = report(root)
    print(f"{root}: {result['modules']} modules, {result['edges']} imports between them")
    print("lines per layer (bottom up):")
    for floor in LAYERS:
        print(f"  {floor:10} {result['lines'].get(floor, 0):6}")
    print(f"  {'total':10} {sum(result['lines'].values()):6}")
    print("largest modules:")
    for count, name in result["largest"]:
        print(f"  {count:6}  {name}")
    print(f"import cycles: {len(result['cycles'])}")
    for group in result["cycles"]:
        print("  " + " <-> ".join(group))
    print(f"imports against the layers: {len(result['against'])}")
    for a, b in result["against"]:
        print(f"  {a} -> {b}")
    print(f"import cycles in tools/: {len(result['tools_cycles'])}")
    for group in result["tools_cycles"]:
        print("  " + " <-> ".join(group))
    return 0


if __name__ == "__main__":
    sys.exit(main())
