"""`make generate`: rebuild everything under generated/ from specs/, deterministically.

* the project's own codecs (tools/ksygen) -> generated/codec/<protocol>/<spec>.py
* the Arrow row builders of the frame specs (tools/ksygen/rows.py) -> generated/rows/<protocol>/<spec>.py
* the protocol registry (tools/ksygen/registry.py: ports, detection, payload layers, connection context, from
  each protocol's `registry` block) -> generated/registry.py
* the C of the one compiled extension, inlong_proto._compiled (setup.py builds every generated/native/*.c):
  its module init (tools/ksygen/cgen.py) -> generated/native/compiled.c; the hand-written runtimes of
  tools/ksygen, once each (runtime.h shared by every part, scan_runtime.h, encode_runtime.h,
  capture_runtime.c, tubemq_layer_runtime.c, eventmesh_layer_runtime.c) -> generated/native/; the scanners
  (cgen.py) -> scan.c; the encoders (cgen_encode.py) -> encode.c; the capture walker's header readers
  (cgen_capture.py) -> capture_readers.h; the TubeMQ payload layer's tables (cgen_protobuf.py, from the
  protobuf descriptors and the method table) -> tubemq_tables.h; the EventMesh TCP payload layer's tables
  (cgen_json.py, from the JSON Schemas and commands.yaml) -> eventmesh_tables.h
* the official Kaitai Struct compiler (tools/ksc, pinned) -> generated/kaitai, generated/kaitai_debug
  (with field offsets, for `inlong-proto inspect`), generated/construct, generated/diagrams (.dot + .svg); their
  imports made package-relative (tools/ksygen/references.py), so they import as ordinary modules
* the same compiler's JavaScript parsers (debug mode: each field's offsets and enum name) -> generated/javascript,
  with a package.json pinning their runtime (npm's kaitai-struct, installed in tools/ksc by make setup); the kit's
  adapter (tools/js/kaitai_adapter.js) turns what they parse into the decode shape (issue 29)
* grpcio-tools for every .proto -> generated/protobuf
* every YAML table under specs/ (method tables, enums) -> generated/tables, as Python data
* JSON Schemas under specs/ (EventMesh headers and bodies) -> generated/eventmesh, typed classes (jsonschema_codegen)
* the protocol reference pages of the docs site (tools/ksygen/docs.py) -> generated/docs/*.md
* Wireshark Lua dissectors of the frame specs (tools/ksygen/wireshark.py) -> generated/wireshark/inlong_proto.lua,
  with the TubeMQ .proto files it hands to Wireshark's protobuf dissector
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tools.ksygen import jsonschema_codegen  # noqa: E402
from tools.ksygen import cgen, cgen_capture, cgen_encode, cgen_json, cgen_protobuf, registry, wireshark  # noqa: E402
from tools.ksygen import docs, references, rows  # noqa: E402
from tools.ksygen.emit import emit_module  # noqa: E402
from tools.ksygen.expr import GenerationError  # noqa: E402
from tools.ksygen.model import Loader  # noqa: E402

KSC = ROOT / "tools" / "ksc" / "compile.js"


def ksy_files(specs: Path) -> list[Path]:
    return sorted(specs.rglob("*.ksy"))


def own_codecs(specs: Path, out: Path) -> list[str]:
    """Generate every spec's codec and the registry of frame codecs; returns the protocol names."""
    loader = Loader(specs)
    frames, loaded = [], []
    for path in ksy_files(specs):
        spec = loader.load(path)
        loaded.append(spec)
        target = out / "codec" / Path(*spec.module.split(".")).with_suffix(".py")
        target.parent.mkdir(parents=True, exist_ok=True)
        (target.parent / "__init__.py").write_text('"""Generated codecs. Do not edit."""\n')
        target.write_text(emit_module(spec))
        if spec.root.options.get("frame"):
            frames.append((spec.root.options["protocol"], spec.root.options.get("direction"), spec.module))
    by_protocol: dict[str, list] = {}
    for name, direction, module in sorted(frames, key=lambda f: (f[0], f[1] or "")):
        by_protocol.setdefault(name, []).append((direction, "inlong_proto.generated.codec." + module))
    registry = ['"""Generated: protocol name -> ((direction or None, frame codec module), ...). Do not edit."""',
                "", "PROTOCOLS = {"]
    registry += [f"    {name!r}: {tuple(entries)!r}," for name, entries in by_protocol.items()]
    registry += ["}", ""]
    (out / "codec" / "__init__.py").write_text("\n".join(registry))
    rows.write(loaded, out)
    native(loaded, out, specs)
    native_encode(loaded, out)
    capture_native(loaded, out)
    return list(by_protocol)


def payload_layers(specs: Path) -> list[str]:
    """The protocols whose frames a runtime layer reads further (their registry entry names an extension): the
    compiled backend's answers for them are not final."""
    return sorted(name for name, entry in registry.entries(specs).items() if entry.get("extension"))


def native(specs: list, out: Path, spec_folder: Path) -> Path:
    """The optional compiled backend's module init and shared runtime (tools/ksygen/cgen.py), and its scanners'
    part: columnar scanners of the frame specs it supports (scan.c). setup.py builds every generated/native/*.c
    into the one extension inlong_proto._compiled when a C compiler is present."""
    folder = out / "native"
    folder.mkdir(parents=True, exist_ok=True)
    cgen.copy_runtime(ROOT, out)
    (folder / "compiled.c").write_text(cgen.emit_module())
    target = folder / "scan.c"
    target.write_text(cgen.emit_extension(specs, payload_layers(spec_folder)))
    return target


def native_encode(specs: list, out: Path) -> Path:
    """The compiled encoders' part (tools/ksygen/cgen_encode.py): encode_<spec>(message) for the frame specs
    it supports (encode.c)."""
    target = out / "native" / "encode.c"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(cgen_encode.emit_extension(specs))
    return target


def capture_native(specs: list, out: Path) -> Path:
    """The compiled capture walker's header readers from specs/capture (tools/ksygen/cgen_capture.py), which
    its runtime (capture_runtime.c) includes."""
    return cgen_capture.write(specs, out)


def tubemq_layer(out: Path) -> Path:
    """The compiled TubeMQ payload layer's tables (tools/ksygen/cgen_protobuf.py): protobuf validation tables
    of every message the method table reaches (tubemq_tables.h, included by tubemq_layer_runtime.c). It
    reads the descriptors of inlong_proto.generated (the modules rpc.py runs on), so when a run changes
    those, main() runs once more in a fresh interpreter to bring it up to date."""
    return cgen_protobuf.write(out)


def eventmesh_layer(specs: Path, out: Path) -> Path:
    """The compiled EventMesh TCP payload layer's tables (tools/ksygen/cgen_json.py): binding rules from the
    header and body schemas and the command table (eventmesh_tables.h, included by
    eventmesh_layer_runtime.c)."""
    return cgen_json.write(specs, out)


def tables(specs: Path, out: Path) -> list[Path]:
    """Declarative YAML tables under specs/ (method tables, enums) as importable Python data."""
    import pprint

    import yaml

    written = []
    for path in sorted(specs.rglob("*.yaml")):
        relative = path.relative_to(specs).with_suffix(".py")
        target = out / "tables" / relative
        _packages(out / "tables", relative.parent, "Generated from the YAML tables under specs/. Do not edit.")
        data = yaml.safe_load(path.read_text())
        target.write_text(f'"""Generated from specs/{path.relative_to(specs)}. Do not edit."""\n\n'
                          f"DATA = {pprint.pformat(data, width=110, sort_dicts=False)}\n")
        written.append(target)
    return written


def _packages(root: Path, folder: Path, doc: str) -> None:
    """Make root/folder and every folder between them an importable package."""
    for depth in range(len(folder.parts) + 1):
        init = root / Path(*folder.parts[:depth]) / "__init__.py"
        init.parent.mkdir(parents=True, exist_ok=True)
        if not init.exists():
            init.write_text(f'"""{doc}"""\n')


def _switched_endian(path: Path) -> bool:
    """Whether a spec switches byte order at run time (a type's meta/endian switch-on)."""
    import yaml

    def walk(types: dict) -> bool:
        return any(isinstance((t.get("meta") or {}).get("endian"), dict) or walk(t.get("types") or {})
                   for t in types.values())

    return walk((yaml.safe_load(path.read_text()) or {}).get("types") or {})


def official(specs: Path, out: Path) -> None:
    files = [str(p) for p in ksy_files(specs)]
    # The compiler's Construct target has no calculated byte order; those specs get no Construct output
    # (reference.load says so) and are compared with the Kaitai output only.
    construct_files = [str(p) for p in ksy_files(specs) if not _switched_endian(p)]
    for target, folder, debug in (("python", "kaitai", False), ("python", "kaitai_debug", True),
                                  ("construct", "construct", False), ("graphviz", "diagrams", False)):
        args = ["node", str(KSC), target, str(out / folder)] + (["--debug"] if debug else []) + \
            (construct_files if target == "construct" else files)
        result = subprocess.run(args, capture_output=True, text=True)
        if result.returncode != 0:
            raise GenerationError(f"kaitai-struct-compiler ({target}) failed:\n{result.stderr}")
    javascript(specs, out)
    references.write(out)  # package-relative imports, __init__.py with INCOMPLETE: importable, never exec'd
    for dot in sorted((out / "diagrams").glob("*.dot")):
        svg = subprocess.run(["dot", "-Tsvg", str(dot)], capture_output=True, text=True, check=True).stdout
        dot.with_suffix(".svg").write_text(svg)


def javascript(specs: Path, out: Path) -> None:
    """The official compiler's JavaScript output of every .ksy, in debug mode (the adapter reads each field's
    enum name and offsets from _debug), and the package.json naming the runtime it needs, pinned as tools/ksc
    pins it."""
    folder = out / "javascript"
    result = subprocess.run(["node", str(KSC), "javascript", str(folder), "--debug"] +
                            [str(p) for p in ksy_files(specs)], capture_output=True, text=True)
    if result.returncode != 0:
        raise GenerationError(f"kaitai-struct-compiler (javascript) failed:\n{result.stderr}")
    runtime = json.loads((KSC.parent / "package.json").read_text())["dependencies"]["kaitai-struct"]
    package = {"name": "inlong-proto-kaitai-parsers", "private": True, "license": "Apache-2.0",
               "description": "Generated by make generate from specs/*.ksy (kaitai-struct-compiler, debug mode). "
                              "Do not edit.",
               "files": sorted(p.name for p in folder.glob("*.js")), "dependencies": {"kaitai-struct": runtime}}
    (folder / "package.json").write_text(json.dumps(package, indent=2) + "\n")


def protobuf(specs: Path, out: Path) -> list[Path]:
    protos = sorted(specs.rglob("*.proto"))
    target = out / "protobuf"
    target.mkdir(parents=True, exist_ok=True)
    (target / "__init__.py").write_text('"""Generated protobuf messages and gRPC stubs. Do not edit."""\n')
    if not protos:
        return []
    from grpc_tools import protoc
    import grpc_tools

    include = Path(grpc_tools.__file__).parent / "_proto"
    args = ["protoc", f"-I{specs}", f"-I{include}", f"--python_out={target}", f"--pyi_out={target}",
            f"--grpc_python_out={target}"] + [str(p) for p in protos]
    if protoc.main(args) != 0:
        raise GenerationError("grpcio-tools (protoc) failed on " + ", ".join(map(str, protos)))
    for folder in sorted({p.parent.relative_to(specs) for p in protos}):
        _packages(target, folder, "Generated. Do not edit.")
    for module in sorted(target.rglob("*.py")):
        _relative_imports(module, target)
    return protos


_PROTO_IMPORT = re.compile(r"^from ([\w.]+) import (\w+_pb2(?:_grpc)?)( as \w+)?$", re.MULTILINE)


def _relative_imports(module: Path, root: Path) -> None:
    """protoc writes `from eventmesh import x_pb2` for a .proto importing a sibling, which only works with
    generated/protobuf on sys.path; make such imports relative so the package works where it is installed."""
    depth = len(module.parent.relative_to(root).parts)

    def rewrite(match: re.Match) -> str:
        package, name, alias = match.group(1), match.group(2), match.group(3) or ""
        if not (root / Path(*package.split("."))).is_dir():
            return match.group(0)  # google.protobuf and other real packages stay as they are
        here = module.parent.relative_to(root).parts
        there = tuple(package.split("."))
        common = 0
        while common < min(len(here), len(there)) and here[common] == there[common]:
            common += 1
        dots = "." * (depth - common + 1)
        return f"from {dots}{'.'.join(there[common:])} import {name}{alias}"

    text = module.read_text()
    new = _PROTO_IMPORT.sub(rewrite, text)
    if new != text:
        module.write_text(new)


def generate(specs: Path, out: Path, with_official: bool = True) -> set[Path]:
    """Everything into out; the files that changed (relative to out)."""
    staging = Path(tempfile.mkdtemp(prefix="inlong-generate-"))
    try:
        (staging / "__init__.py").write_text(
            '"""Everything `make generate` writes from specs/. Never edited by hand."""\n')
        own_codecs(specs, staging)
        registry.write(specs, staging)
        eventmesh_layer(specs, staging)
        tables(specs, staging)
        jsonschema_codegen.generate(specs, staging)
        wireshark.generate(specs, staging, ROOT)
        if with_official:
            official(specs, staging)
        docs.write(specs, staging)  # after official(): the pages embed its diagrams
        protobuf(specs, staging)
        tubemq_layer(staging)
        return sync(staging, out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def sync(staging: Path, out: Path) -> set[Path]:
    """Make out hold exactly what staging holds, rewriting only the files whose bytes change (an unchanged
    module keeps its time, so tools that look at times, make and editors, see no change); the files that
    changed or went."""
    wanted = {path.relative_to(staging) for path in staging.rglob("*") if path.is_file()}
    changed = set()
    for relative in sorted(wanted):
        target = out / relative
        data = (staging / relative).read_bytes()
        if not target.is_file() or target.read_bytes() != data:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            changed.add(relative)
    for path in sorted(out.rglob("*"), reverse=True):
        if path.is_dir():
            if not any(path.iterdir()):
                path.rmdir()
        elif path.relative_to(out) not in wanted:
            path.unlink()
            changed.add(path.relative_to(out))
    return changed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--specs", type=Path, default=ROOT / "specs")
    parser.add_argument("--out", type=Path, default=ROOT / "generated")
    args = parser.parse_args()
    try:
        changed = generate(args.specs, args.out)
    except GenerationError as exc:
        print(f"generate: {exc}", file=sys.stderr)
        return 1
    if args.out.resolve() == (ROOT / "generated").resolve() and any(
            path.parts[0] in ("protobuf", "tables") for path in changed):
        # The TubeMQ layer was written from the protobuf modules and tables this run has just replaced (it
        # reads inlong_proto.generated): once more, in a fresh interpreter that imports the new ones.
        import subprocess

        return subprocess.call([sys.executable, __file__, "--specs", str(args.specs), "--out", str(args.out)])
    return 0


if __name__ == "__main__":
    sys.exit(main())
