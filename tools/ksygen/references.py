"""The official Kaitai compiler's Python, debug Python and Construct outputs as importable packages.

The compiler writes each spec's module for a flat folder on sys.path: the Kaitai targets import another spec
by its bare file name (``import dataproxy_common``) and the Construct target names another spec's structs
(``LazyBound(lambda: dataproxy_common__ext_field)``, ``Enum(..., dataproxy_common__msg_type)``) without
importing them at all. After the compiler has run, this rewrites those into package-relative imports
(``from . import dataproxy_common``; ``from .dataproxy_common import dataproxy_common__ext_field``) and writes
each folder's ``__init__.py``, so that inlong_proto.backends.reference imports them as ordinary modules.

Where the compiler's target cannot express a construct it writes ``???`` (Construct has no bit fields): such
a module is no valid Python, so it is kept as ``<spec>.incomplete`` (to read, not to import: import-linter and
byte-compilation parse every .py of the package). The package's ``INCOMPLETE`` maps its spec id, and that of
every module importing it, to the reason, and the reference loader refuses them by that table.
"""
from __future__ import annotations

import re
from pathlib import Path

from .expr import GenerationError

FOLDERS = ("kaitai", "kaitai_debug", "construct")
_BARE_IMPORT = re.compile(r"^import (\w+)$", re.MULTILINE)
_RELATIVE_IMPORT = re.compile(r"^from \. import (\w+)$", re.MULTILINE)
_OWN_IMPORTS = re.compile(r"^from \.\w+ import [\w, ]+\n", re.MULTILINE)  # what _construct_imports adds
_DEFINED = re.compile(r"^(\w+) = ", re.MULTILINE)
_STRING = re.compile(r"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"")
_CONSTRUCT_HEAD = "from construct.lib import *\n"


def write(out: Path) -> None:
    for folder in FOLDERS:
        if (out / folder).is_dir():
            _package(out / folder, folder)


def _package(folder: Path, name: str) -> None:
    """Rewrite one folder's modules in place (again on its own output, it changes nothing) and its __init__.py."""
    modules = {path.stem: path.read_text() for path in sorted(folder.glob("*.py")) if path.stem != "__init__"}
    modules.update({path.stem: path.read_text() for path in sorted(folder.glob("*.incomplete"))})
    imports: dict[str, list[str]] = {}
    for stem, text in modules.items():
        if name == "construct":
            text, imports[stem] = _construct_imports(stem, text, modules)
        else:
            text = _BARE_IMPORT.sub(lambda match: f"from . import {match[1]}" if match[1] in modules
                                    else match[0], text)
            imports[stem] = [m for m in _RELATIVE_IMPORT.findall(text) if m in modules]
        modules[stem] = text
    incomplete = {stem: f"the official compiler's {name} output for {stem} is incomplete (it has no equivalent "
                        f"for some construct, e.g. bit fields; see {name}/{stem}.incomplete)"
                  for stem, text in modules.items() if "???" in text}
    for stem, text in modules.items():  # no valid Python: kept to read, under a name nothing imports or parses
        (folder / f"{stem}.{'incomplete' if stem in incomplete else 'py'}").write_text(text)
        (folder / f"{stem}.{'py' if stem in incomplete else 'incomplete'}").unlink(missing_ok=True)
    changed = True
    while changed:  # a module importing an incomplete one cannot be imported either
        changed = False
        for stem in modules:
            bad = next((dep for dep in imports[stem] if dep in incomplete), None)
            if stem not in incomplete and bad is not None:
                incomplete[stem] = f"the official compiler's {name} output for {stem} imports {bad}, which is " \
                                   f"incomplete: {incomplete[bad]}"
                changed = True
    lines = [f'"""The official Kaitai Struct compiler\'s {name} output, made importable by tools/ksygen/references.py.',
             'Generated. Do not edit."""', "",
             "# spec id -> why its module cannot be imported (the compiler wrote ??? for what its target lacks)",
             "INCOMPLETE = {"]
    lines += [f"    {stem!r}: {reason!r}," for stem, reason in sorted(incomplete.items())]
    (folder / "__init__.py").write_text("\n".join(lines + ["}", ""]))


def _construct_imports(stem: str, text: str, modules: dict[str, str]) -> tuple[str, list[str]]:
    """text with `from .other import name, ...` for every struct of another spec it names."""
    text = _OWN_IMPORTS.sub("", text)
    own = set(_DEFINED.findall(text))
    code = _STRING.sub("''", text)
    lines, deps = [], []
    for other, other_text in modules.items():
        if other == stem:
            continue
        used = sorted(n for n in set(_DEFINED.findall(other_text)) - own - {"_schema"}
                      if re.search(rf"\b{n}\b", code))
        if used:
            deps.append(other)
            lines.append(f"from .{other} import {', '.join(used)}\n")
    if lines:
        if _CONSTRUCT_HEAD not in text:
            raise GenerationError(f"construct/{stem}.py: no {_CONSTRUCT_HEAD.strip()!r} line to put imports after")
        text = text.replace(_CONSTRUCT_HEAD, _CONSTRUCT_HEAD + "".join(lines), 1)
    return text, deps
