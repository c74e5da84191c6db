"""Protocol reference pages (generated/docs/*.md) from the specs, so that the documentation cannot drift.

One page per protocol of the registry (tools/ksygen/registry.py), in detection order, plus one for the capture
formats and an index. A page holds what the specs say and nothing else:

* the registry entry (framing, default ports, detection order, the largest frame);
* each .ksy of the protocol (read through model.Loader, the codecs' own reader): its doc (the decisions and
  the quirks of the real implementations), its doc-ref, the official compiler's diagram, and for every type
  a field table (offset where it is fixed, size, type, checks, doc), its value instances and its enums;
* the YAML and JSON Schema specs its runtime reads (request codes, commands, methods, JSON bodies).

Which spec belongs to which page: a frame .ksy names its protocol (-inlong/protocol), the specs it imports
follow it, and any other spec goes to the protocols whose runtime modules (the registry's module, extension
and payload reader) import what was generated from it; what is left goes to a page named after its folder.
Links are relative: ../diagrams/ is generated/diagrams, which the docs site mounts beside these pages.
"""
from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import yaml

from . import registry
from .model import Attr, Loader, SpecFile, TypeSpec

_MODULE_KEYS = ("module", "extension", "payload_reader")
FOLDER_TITLES = {"capture": "Capture formats", "common": "Shared types"}


# --------------------------------------------------------------------------------------------- text helpers
def _cell(text: object) -> str:
    """One Markdown table cell: a line, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|") if text not in (None, "") else ""


def _table(head: list[str], rows: list[list]) -> list[str]:
    if not rows:
        return []
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    out += ["| " + " | ".join(_cell(value) for value in row) + " |" for row in rows]
    return out + [""]


def _code(text: object) -> str:
    return f"`{text}`" if text not in (None, "") else ""


def _paragraphs(text: str) -> list[str]:
    """A spec's doc as Markdown: a list that follows a line of text gets the blank line Markdown needs."""
    lines, out = (text or "").strip().splitlines(), []
    for line in lines:
        if re.match(r"\s*[*-] ", line) and out and out[-1].strip() and not re.match(r"\s*[*-] |\s", out[-1]):
            out.append("")
        out.append(line)
    return out + [""] if out else []


# ------------------------------------------------------------------------------------------------- .ksy
def _raw_type(data: dict, type_spec: TypeSpec) -> dict:
    """The YAML mapping of a type (for the expressions as written), found by its chain of names."""
    chain = []
    scope = type_spec
    while scope.parent is not None:
        chain.append(scope.name)
        scope = scope.parent
    for name in reversed(chain):
        data = data["types"][name]
    return data


def _size(attr: Attr, raw: dict) -> str:
    if attr.kind == "bits":
        return f"{attr.bits} bit{'s' if attr.bits > 1 else ''}"
    if attr.size_eos:
        size = "to the end"
    elif attr.size is not None:
        size = str(attr.size)
    elif "size" in raw:
        size = _code(raw["size"])
    elif attr.user_type is not None and attr.user_type.fixed_size is not None:
        size = str(attr.user_type.fixed_size)
    else:
        size = "variable"
    if attr.repeat == "eos":
        return f"{size}, repeated to the end"
    if attr.repeat == "expr":
        return f"{size} × {_code(raw.get('repeat-expr'))}"
    return size


def _type(attr: Attr, raw: dict) -> str:
    if attr.kind == "contents":
        return "contents"
    if attr.kind == "switch":
        cases = ", ".join(f"{_code(key)} → {_code(name)}" for key, name in raw["type"]["cases"].items())
        return f"switch on {_code(raw['type']['switch-on'])}: {cases}"
    kind = raw.get("type")
    if kind is None:
        return "bytes"
    if kind == "str":
        return f"str ({attr.encoding})"
    return _code(kind) + (f", enum {_code(attr.enum_name)}" if attr.enum_name else "")


def _checks(attr: Attr, raw: dict) -> str:
    checks = []
    if attr.contents is not None:
        text = attr.contents.decode("ascii") if attr.contents.isascii() and attr.contents.decode().isprintable() \
            else attr.contents.hex(" ")
        checks.append(f"= {_code(text)}")
    valid = raw.get("valid")
    if valid is not None and not isinstance(valid, dict):
        valid = {"eq": valid}
    for key, value in (valid or {}).items():
        if key == "eq":
            checks.append(f"= {_code(value)}")
        elif key == "min":
            checks.append(f"≥ {_code(value)}")
        elif key == "max":
            checks.append(f"≤ {_code(value)}")
        elif key == "any-of":
            checks.append("one of " + ", ".join(_code(v) for v in value))
        elif key == "in-enum":
            checks.append("a known enum value")
        elif key == "expr":
            checks.append(_code(" ".join(str(value).split())))
    return "; ".join(checks)


def _fields(type_spec: TypeSpec, raw: dict) -> list[str]:
    """The field table: offsets counted while every field before is fixed (bit fields as byte:bit)."""
    rows, bits = [], 0
    for attr, raw_attr in zip(type_spec.seq, raw.get("seq") or []):
        if bits is None:
            offset = ""
        elif attr.kind == "bits":
            offset = f"{bits // 8}:{bits % 8}" if bits % 8 or attr.bits % 8 else str(bits // 8)
        else:
            offset = str(bits // 8)
        rows.append([offset, _code(attr.id), _type(attr, raw_attr), _size(attr, raw_attr), _checks(attr, raw_attr),
                     attr.doc])
        if bits is not None:
            if attr.kind == "bits":
                bits += attr.bits
            elif attr.repeat is None and attr.size is not None:
                bits += 8 * attr.size
            elif attr.repeat is None and attr.user_type is not None and attr.user_type.fixed_size is not None:
                bits += 8 * attr.user_type.fixed_size
            else:
                bits = None
    return _table(["offset", "field", "type", "size", "checks", "doc"], rows)


def _type_section(type_spec: TypeSpec, raw: dict, level: str) -> list[str]:
    out = [f"{level} `{type_spec.name}`", ""]
    size = type_spec.fixed_size
    if type_spec.parent is not None:
        out += _paragraphs(type_spec.doc)
    direction = type_spec.options.get("direction")
    facts = [f"{size} bytes" if size is not None else "", f"sent as a {direction}" if direction else "",
             f"read as a Python {type_spec.python_type}" if type_spec.python_type != "struct" else ""]
    if any(facts):
        out += ["; ".join(f for f in facts if f).capitalize() + ".", ""]
    out += _fields(type_spec, raw)
    out += _table(["instance", "value", "doc"],
                  [[_code(i.id), _code(" ".join(i.text.split())), i.doc] for i in type_spec.instances.values()])
    for enum in type_spec.enums.values():
        out += [f"Enum `{enum.name}`:", ""]
        out += _table(["value", "name", "doc"], [[value, _code(name), doc]
                                                  for value, (name, doc) in sorted(enum.members.items())])
    return out


def _ksy_section(spec: SpecFile, diagrams: Path) -> list[str]:
    raw = yaml.safe_load(spec.path.read_text())
    out = [f"## {spec.meta.get('title') or spec.meta['id']}", "",
           f"`specs/{spec.module.replace('.', '/')}.ksy` (id `{spec.meta['id']}`, "
           f"{'big' if spec.endian == 'be' else 'little'}-endian)", ""]
    options = spec.root.options
    if options.get("max-frame-size"):
        out += [f"Largest frame: {options['max-frame-size']:,} bytes (`max_frame_size`).", ""]
    out += _paragraphs(spec.root.doc)
    if raw.get("doc-ref"):
        out += [f"Source of the facts: {_cell(raw['doc-ref'])}", ""]
    if (diagrams / f"{spec.meta['id']}.svg").is_file():
        out += [f"![{spec.meta['id']}](../diagrams/{spec.meta['id']}.svg)", ""]
    for type_spec in spec.root.all_types():
        out += _type_section(type_spec, _raw_type(raw, type_spec), "###")
    return out


# ------------------------------------------------------------------------------------- YAML and JSON specs
def _rows(items: list, keys: list[str]) -> list[list]:
    return [[_code(item.get(key)) if key in ("name", "key", "path") else item.get(key, "") for key in keys]
            for item in items]


def _yaml_section(path: Path, specs: Path) -> list[str]:
    """A YAML table spec: its doc and the tables the runtime reads (HTTP request codes and keys, TCP commands,
    RPC methods), whichever it has; every other top-level entry with a doc as a note."""
    data = yaml.safe_load(path.read_text()) or {}
    out = [f"## `specs/{path.relative_to(specs)}`", ""]
    out += _paragraphs(data.get("doc") if isinstance(data.get("doc"), str) else "")
    if data.get("doc-ref"):
        out += [f"Source of the facts: {_cell(data['doc-ref'])}", ""]
    notes = [(key, value["doc"]) for key, value in data.items()
             if isinstance(value, dict) and isinstance(value.get("doc"), str) and key != "registry"]
    notes += [(f"{key}: {sub}", value["doc"]) for key, section in data.items() if isinstance(section, dict)
              for sub, value in section.items() if isinstance(value, dict) and isinstance(value.get("doc"), str)
              and key not in ("field-types", "bodies", "body-kinds")]
    if notes:
        out += ["Notes:", ""] + [f"- **{key}**: {_cell(doc)}" for key, doc in notes] + [""]
    keys = data.get("header-keys") or {}
    for side in ("request", "response", "absent"):
        if keys.get(side):
            out += [f"### Header keys: {side}", ""] + _table(["key", "doc"], _rows(keys[side], ["key", "doc"]))
    if data.get("request-codes"):
        out += ["### Request codes", ""]
        out += _table(["code", "name", "sender", "served", "body", "doc"],
                      _rows(data["request-codes"]["codes"], ["code", "name", "sender", "served", "body", "doc"]))
    if data.get("uri-routes"):
        out += ["### URI routes", ""] + _table(["path", "name", "desc"],
                                               _rows(data["uri-routes"]["routes"], ["path", "name", "desc"]))
    if data.get("ret-codes"):
        out += ["### Return codes", ""] + _table(["code", "name", "msg"],
                                                 _rows(data["ret-codes"]["codes"], ["code", "name", "msg"]))
    if data.get("commands"):
        out += ["### Commands", ""] + _table(["value", "name", "sender", "body", "error reply", "doc"],
                                             _rows(data["commands"], ["value", "name", "sender", "body",
                                                                      "error-reply", "doc"]))
    if isinstance(data.get("methods"), list):
        out += ["### Methods", ""] + _table(["id", "name", "service type", "request", "response", "doc"],
                                            _rows(data["methods"], ["id", "name", "service_type", "request",
                                                                    "response", "doc"]))
    return out


def _schema_type(prop: dict) -> str:
    if "$ref" in prop:
        return _code(prop["$ref"].rsplit("/", 1)[-1])
    if "anyOf" in prop:
        return " or ".join(_schema_type(p) for p in prop["anyOf"])
    kind = prop.get("type", "any")
    text = " or ".join(kind) if isinstance(kind, list) else kind
    if "enum" in prop:
        text += " (" + ", ".join(_code(v) for v in prop["enum"]) + ")"
    if kind == "array" and isinstance(prop.get("items"), dict):
        text += " of " + _schema_type(prop["items"])
    return text


def _schema_section(path: Path, specs: Path) -> list[str]:
    schema = json.loads(path.read_text())
    out = [f"## {schema.get('title', path.stem)}", "", f"`specs/{path.relative_to(specs)}` (JSON Schema)", ""]
    out += _paragraphs(schema.get("description", ""))
    required = set(schema.get("required", ()))
    rows = [[_code(key), _schema_type(prop), "yes" if key in required else "", prop.get("description", "")]
            for key, prop in (schema.get("properties") or {}).items()]
    out += _table(["key", "type", "required", "doc"], rows)
    for name, definition in (schema.get("$defs") or {}).items():
        values = ", ".join(_code(v) for v in definition.get("enum", ()))
        out += [f"`{name}`: {_cell(definition.get('description', ''))}" + (f" Values: {values}." if values else ""),
                ""]
    return out


# ------------------------------------------------------------------------------------------------- pages
def _module_text(entry: dict) -> str:
    """The source of a protocol's runtime modules (to see which generated code they import)."""
    texts = []
    for key in _MODULE_KEYS:
        if entry.get(key):
            found = importlib.util.find_spec(entry[key].split(":")[0])
            if found is not None and found.origin:
                texts.append(Path(found.origin).read_text())
    return "\n".join(texts)


def _imports(text: str, stem: str) -> bool:
    """Whether module source imports what was generated from a spec of this stem."""
    return re.search(rf"generated\.[\w.]*\b{stem}\b|generated\.[\w.]* import [^\n]*\b{stem}\b", text) is not None


def pages(specs: Path) -> dict[str, dict]:
    """page name -> {title, entry (registry) or None, ksy: [SpecFile], other: [Path]} in page order."""
    specs = specs.resolve()  # the loader's paths are resolved: compare like with like
    loader = Loader(specs)
    loaded = [loader.load(path) for path in sorted(specs.rglob("*.ksy"))]
    entries = registry.entries(specs)
    out = {name: {"title": name, "entry": entry, "ksy": [], "other": []} for name, entry in entries.items()}
    owner: dict[Path, str] = {}
    for spec in loaded:
        name = spec.root.options.get("protocol") or next(
            (n for n, e in entries.items() if specs / e["spec"] == spec.path), None)
        if name in out:
            owner[spec.path] = name
    for spec in loaded:  # imports follow their importer (transitively: the loader resolves them in order)
        for imported in spec.imports:
            if spec.path in owner:
                owner.setdefault(imported.path, owner[spec.path])
    for spec in sorted(loaded, key=lambda s: not s.root.options.get("protocol")):  # frame specs first
        if spec.path in owner:
            out[owner[spec.path]]["ksy"].append(spec)
    leftovers = [s for s in loaded if s.path not in owner]
    others = [p for p in sorted(specs.rglob("*.yaml")) + sorted(specs.rglob("*.schema.json"))
              if p.name != "README.md" and not any(specs / e["spec"] == p for e in entries.values())]
    for name, entry in entries.items():
        if entry["spec"].endswith(".yaml"):
            out[name]["other"].append(specs / entry["spec"])
    seen_modules: dict[tuple, str] = {}
    for name, entry in entries.items():
        modules = tuple(entry.get(key) for key in _MODULE_KEYS)
        if modules in seen_modules:  # sharing its runtime with an earlier protocol: that page has its specs
            out[name]["shares"] = seen_modules[modules]
            continue
        if not any(modules):
            continue
        seen_modules[modules] = name
        text = _module_text(entry)
        out[name]["ksy"] += [s for s in leftovers if _imports(text, s.meta["id"])]
        out[name]["other"] += [p for p in others if _imports(text, p.name.split(".")[0])]
    placed = {s.path for page in out.values() for s in page["ksy"]}
    for spec in leftovers:
        if spec.path not in placed:
            folder = spec.path.parent.name
            out.setdefault(folder, {"title": FOLDER_TITLES.get(folder, folder), "entry": None, "ksy": [],
                                    "other": []})["ksy"].append(spec)
    return out


def _page(name: str, page: dict, specs: Path, diagrams: Path) -> str:
    entry = page["entry"]
    out = ["<!-- Generated from specs/ by tools/ksygen/docs.py (make generate). Do not edit. -->", "",
           f"# {page['title']}", ""]
    if entry is not None:
        out += [f"{entry['doc'][0].upper()}{entry['doc'][1:]}.", ""]
        ports = ", ".join(str(p) for p in entry["ports"]) or "none (found by content alone)"
        out += [f"- protocol name: {_code(name)} (`-p {name}`)", f"- framing: {entry['framing']}",
                f"- default server ports: {ports}", f"- detection order: {entry['detect']['order']}",
                f"- registry entry: `specs/{entry['spec']}`", ""]
    if page.get("shares"):
        out += [f"Its headers and bodies are read as those of [{page['shares']}]({page['shares']}.md), whose page "
                "shows their specs.", ""]
    for spec in page["ksy"]:
        out += _ksy_section(spec, diagrams)
    for path in page["other"]:
        out += _schema_section(path, specs) if path.suffix == ".json" else _yaml_section(path, specs)
    return "\n".join(out).rstrip("\n") + "\n"


def write(specs: Path, out: Path) -> list[Path]:
    """generated/docs: index.md and one page per protocol (out is the generated/ folder being written, whose
    diagrams/ the pages embed when the official compiler has drawn them)."""
    folder = out / "docs"
    folder.mkdir(parents=True, exist_ok=True)
    specs = specs.resolve()
    found = pages(specs)
    written = []
    for name, page in found.items():
        target = folder / f"{name}.md"
        target.write_text(_page(name, page, specs, out / "diagrams"))
        written.append(target)
    rows = [[f"[{name}]({name}.md)", page["entry"]["doc"] if page["entry"] else page["title"],
             ", ".join([f"`{s.meta['id']}`" for s in page["ksy"]] + [f"`{p.name}`" for p in page["other"]])]
            for name, page in found.items()]
    index = ["<!-- Generated from specs/ by tools/ksygen/docs.py (make generate). Do not edit. -->", "",
             "# Protocol reference", "",
             "One page per protocol, generated from its specs: the field tables, diagrams, limits and quirks",
             "on these pages are what the codecs are generated from, so they cannot drift from the code.", ""]
    index += _table(["page", "what", "specs"], rows)
    (folder / "index.md").write_text("\n".join(index).rstrip("\n") + "\n")
    return written + [folder / "index.md"]
