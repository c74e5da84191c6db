"""No code is compiled at run time (issue 25): the Arrow row builders are generated (tools/ksygen/rows.py ->
generated/rows) and the official compiler's reference outputs are packages (tools/ksygen/references.py). Each
generated module is what the generator writes now, and the row builders give the rows an independent walk of
the codecs' FIELDS gives, for every vector."""
from __future__ import annotations

import ast
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from inlong_proto.core import arrow, protocols
from inlong_proto.core.frames import iter_frames
from tests.vectors import valid_frames

ROOT = Path(__file__).resolve().parent.parent


def _written(tmp_path: Path, folder: str) -> dict[str, str]:
    return {str(path.relative_to(tmp_path / folder)): path.read_text()
            for path in sorted((tmp_path / folder).rglob("*")) if path.is_file()}


def _committed(folder: str) -> dict[str, str]:
    base = ROOT / "generated" / folder
    return {str(path.relative_to(base)): path.read_text() for path in sorted(base.rglob("*"))
            if path.is_file() and "__pycache__" not in path.parts}


def test_generated_row_builders_are_what_the_generator_writes(tmp_path):
    sys.path.insert(0, str(ROOT))
    from tools import generate
    from tools.ksygen import rows
    from tools.ksygen.model import Loader

    loader = Loader(ROOT / "specs")
    rows.write([loader.load(path) for path in generate.ksy_files(ROOT / "specs")], tmp_path)
    assert _written(tmp_path, "rows") == _committed("rows"), "generated/rows is stale: make generate"


def test_reference_packages_are_the_post_processed_compiler_output(tmp_path):
    """references.write over the committed outputs changes nothing (they were written by it), and every module
    the INCOMPLETE table does not refuse imports as an ordinary module."""
    import shutil

    sys.path.insert(0, str(ROOT))
    from tools.ksygen import references

    from inlong_proto.backends import reference

    for folder in references.FOLDERS:
        shutil.copytree(ROOT / "generated" / folder, tmp_path / folder,
                        ignore=shutil.ignore_patterns("__pycache__"))
    references.write(tmp_path)
    for folder in references.FOLDERS:
        assert _written(tmp_path, folder) == _committed(folder), folder
        package = __import__(f"inlong_proto.generated.{folder}", fromlist=["INCOMPLETE"])
        for path in sorted((ROOT / "generated" / folder).glob("*.py")):
            if path.stem != "__init__":
                assert path.stem not in package.INCOMPLETE
                assert reference.load(folder, path.stem).__name__ == f"inlong_proto.generated.{folder}.{path.stem}"
        for stem in package.INCOMPLETE:
            with pytest.raises(reference.UnsupportedBackendError, match="incomplete"):
                reference.load(folder, stem)


def test_nothing_in_the_package_is_compiled_at_run_time():
    """No exec / eval / compile() of source anywhere in inlong_proto/ (re.compile and friends are not that)."""
    found = []
    for path in sorted((ROOT / "inlong_proto").rglob("*.py")):
        if "generated" in path.relative_to(ROOT / "inlong_proto").parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                    and node.func.id in ("exec", "eval", "compile"):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.func.id}(")
    assert found == []


# ------------------------------------------------------------------ the rows against an independent walk of FIELDS
def _fields_row(cls, message) -> tuple:
    """A message's own columns, from FIELDS, the way frame_schema lays them out (an interpreter, not generated)."""
    out = []
    for info in cls.FIELDS:
        value = message[cls._fields.index(info.name)]
        if info.kind == "switch":
            for _, case_cls in info.detail:
                held = type(value) is case_cls
                out.append((True if not case_cls.FIELDS else _fields_row(case_cls, value)) if held else None)
        else:
            out.append(_fields_value(info, value))
    return tuple(out)


def _fields_value(info, value):
    if value is None:
        return None
    if info.kind == "struct":
        return True if not info.detail.FIELDS else _fields_row(info.detail, value)
    if info.kind == "list":
        return [_fields_value(info.detail, item) for item in value]
    if info.kind == "enum":
        names = {member.value: member.name for member in info.detail}
        return names.get(value, str(int(value)))
    if info.arrow.startswith("decimal128"):
        return Decimal(value)
    if info.kind == "bytes":
        return bytes(value)
    return value


@pytest.mark.parametrize("protocol", protocols.names())
def test_generated_rows_match_a_walk_of_fields(protocol):
    columns = arrow.frame_schema(protocol).names[len(arrow.META_COLUMNS):-1]
    seen = 0
    for direction in ("request", "response", None):
        for data in valid_frames([direction]).get(protocol, []):
            for frame in iter_frames(data, protocol, direction=direction):
                assert frame.error is None
                own = dict(zip([f.name for f in arrow._message_fields(type(frame.message))],
                               _fields_row(type(frame.message), frame.message)))
                assert arrow.frame_tuple("p", frame, protocol)[len(arrow.META_COLUMNS):-1] == \
                    tuple(own.get(name) for name in columns)
                seen += 1
    assert seen
