"""Compile one spec folder's .proto files with the project's own generate step, in isolation."""
from __future__ import annotations

import contextlib
import importlib
import shutil
import sys
from pathlib import Path

from tools.generate import protobuf

SPECS = Path(__file__).resolve().parent.parent / "specs"


@contextlib.contextmanager
def compiled(tmp: Path, folder: str, modules: list[str]):
    """Yields (the .proto files compiled, {module name: imported module}) for specs/<folder>/*.proto.

    The output goes on sys.path for the duration and its modules are forgotten afterwards, so the specs
    are tested on their own, not through the committed generated/ copy.
    """
    specs = tmp / "specs"
    (specs / folder).mkdir(parents=True)
    for proto in (SPECS / folder).glob("*.proto"):
        shutil.copy(proto, specs / folder / proto.name)
    protos = protobuf(specs, tmp / "generated")
    out = str(tmp / "generated" / "protobuf")
    before = set(sys.modules)
    sys.path.insert(0, out)
    try:
        yield protos, {name: importlib.import_module(f"{folder}.{name}") for name in modules}
    finally:
        sys.path.remove(out)
        for name in set(sys.modules) - before:
            if name == folder or name.startswith(folder + "."):
                del sys.modules[name]
