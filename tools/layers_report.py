"""Lines per layer, the largest modules, import cycles and imports against the layers of inlong_proto/, and the
import cycles among the scripts of tools/.

    python tools/layers_report.py [ROOT]        # ROOT: a checkout (default: this one), old or new layout

A checkout from before the move is placed through tools/house_plan.py's MOVES; once that script is gone from the
tree, take it from history first (git show 05437ef:tools/house_plan.py > tools/house_plan.py).

Why our own small walk rather than import-linter's graph: the same count must run on a checkout from before the
house plan, where the layers are not folders yet. Each module is placed on its floor by where the house plan puts
it (tools/house_plan.py's MOVES for an old path, its folder for a new one); every ``import`` and ``from ... import``
counts, also those inside functions; deprecation shims (they import nothing at import time) and generated/ are
left out. A cycle is a strongly connected group of two or more modules.
"""
from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
try:  # the old -> new map, for a checkout from before the move (tools/house_plan.py, while it is in the tree)
    from house_plan import MOVES
except ImportError:
    MOVES = {}
SHIM_MARK = "house-plan: deprecation shim"  # the shims at the old paths (tools/house_plan.py's mark)

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
