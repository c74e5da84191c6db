"""The protocol registry (generated/registry.py) from the specs.

Each protocol declares what the runtime needs to know of it beside its layouts in a `registry` block: in the
root `-inlong:` of its frame .ksy (one of them, for a protocol with a layout per direction), or at the top of
the YAML spec beside a stream protocol's specs (HTTP/1.1, HTTP/2). The runtime (inlong_proto.core.protocols) keeps
no table of its own: ports, detection, payload layers and connection context all come from here.
"""
from __future__ import annotations

import pprint
import re
from pathlib import Path

import yaml

from .expr import GenerationError

FRAMINGS = ("frames", "http1", "http2")
# key: (required, kinds allowed, what it says)
KEYS = {
    "protocol": (False, (str,), "the name (a frame .ksy's -inlong/protocol when not given)"),
    "framing": (True, (str,), "frames (the .ksy layouts), http1 (h11) or http2 (hyperframe + hpack)"),
    "doc": (True, (str,), "what the protocol is, in a line"),
    "ports": (True, (list,), "the real servers' default ports: a capture's flow on one is this protocol"),
    "detect": (True, (dict,), "order (ties and stream openings go to the lower), opening, patterns, probe"),
    "module": (False, (str,), "the stream decoder's module (HttpStreamDecoder, iter_messages, MESSAGE_TYPES)"),
    "extension": (False, (str,), "the payload layer every frame goes through (describe)"),
    "payload-reader": (False, (str,), "the payload layer `decode --payload` asks for (payload)"),
    "payload-type": (False, (str,), "module:Class of the payload's items (their JSON_KEYS)"),
    "compiled-layer": (False, (str,), "the compiled payload layer's part of inlong_proto._compiled (its submodule)"),
    "connection": (False, (str,), "module:Class of the state both directions of a connection share"),
    "audit-reader": (False, (str,), "module:function(frame, direction) giving the audit's events of a decoded frame "
                                    "(inlong_proto.core.audit_events: a message sent, its answer, a delivery)"),
    "dump-direction": (False, (str,), "module:function(message) telling which way a frame of a raw dump went, where "
                                      "its bytes fit both directions' layouts (the audit of a dump asks it)"),
    "replay": (False, (str,), "module:function(request, number) giving the bytes `inlong-proto replay` sends for a "
                              "captured request, what its client matches answers on made fresh from number"),
    "upstream": (False, (bool,), "false for a protocol that no upstream implements: its spec defines it, and its "
                                 "vectors are the spec's examples (the corpus's source `spec`)"),
    "vectors": (False, (str,), "its frame vectors' folder under tests/vectors (default: the protocol's name); a "
                               "vector there may name another protocol (the legacy form's, in eventmesh/tcp)"),
    "summary": (False, (list,), "the Info column of decode's table: pieces of text with {dotted.path} placeholders "
                                "into an item's JSON (* any one key, |count a list's length); a piece with a "
                                "missing or empty value is left out"),
}
DETECT_KEYS = {"order": int, "opening": str, "patterns": list, "probe": str}
SUMMARY_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
SUMMARY_PATH = re.compile(r"^(?:[A-Za-z_][A-Za-z0-9_]*|\*)(?:\.(?:[A-Za-z_][A-Za-z0-9_]*|\*))*(?:\|count)?$")
_DOTTED = re.compile(r"^[a-z_][a-z0-9_.]*(:[A-Za-z_][A-Za-z0-9_]*)?$")
FUNCTION_KEYS = ("audit-reader", "dump-direction", "replay")  # module:function, the function named
_FOLDER = re.compile(r"^[a-z0-9_-]+(/[a-z0-9_-]+)*$")


def _check(where: str, entry: dict) -> dict:
    unknown = set(entry) - set(KEYS)
    if unknown:
        raise GenerationError(f"{where}: unknown registry keys {sorted(unknown)}; known: {sorted(KEYS)}")
    for key, (required, kinds, what) in KEYS.items():
        if key not in entry:
            if required:
                raise GenerationError(f"{where}: registry/{key} is required ({what})")
            continue
        if not isinstance(entry[key], kinds):
            raise GenerationError(f"{where}: registry/{key} must be {' or '.join(k.__name__ for k in kinds)}")
        if key in ("module", "extension", "payload-reader", "payload-type", "compiled-layer", "connection") \
                and not _DOTTED.match(entry[key]):
            raise GenerationError(f"{where}: registry/{key} {entry[key]!r} is not a module or module:Class")
        if key in FUNCTION_KEYS and not (_DOTTED.match(entry[key]) and ":" in entry[key]):
            raise GenerationError(f"{where}: registry/{key} {entry[key]!r} is not a module:function")
        if key == "vectors" and not _FOLDER.match(entry[key]):
            raise GenerationError(f"{where}: registry/vectors {entry[key]!r} is not a folder under tests/vectors")
    if entry["framing"] not in FRAMINGS:
        raise GenerationError(f"{where}: registry/framing must be one of {', '.join(FRAMINGS)}")
    if (entry["framing"] == "frames") == ("module" in entry):
        raise GenerationError(f"{where}: registry/module names a stream protocol's decoder, and only that")
    if not all(type(port) is int and 0 < port < 65536 for port in entry["ports"]):
        raise GenerationError(f"{where}: registry/ports must be TCP port numbers")
    detect = entry["detect"]
    for key, kind in DETECT_KEYS.items():
        if key in detect and not isinstance(detect[key], kind):
            raise GenerationError(f"{where}: registry/detect/{key} must be {kind.__name__}")
    if set(detect) - set(DETECT_KEYS) or "order" not in detect:
        raise GenerationError(f"{where}: registry/detect takes {sorted(DETECT_KEYS)}, order required")
    for pattern in detect.get("patterns", ()):
        re.compile(pattern.encode("ascii"))
    for piece in entry.get("summary", ()):
        if not isinstance(piece, str) or not SUMMARY_PLACEHOLDER.search(piece):
            raise GenerationError(f"{where}: registry/summary pieces are text with at least one {{path}}: {piece!r}")
        for path in SUMMARY_PLACEHOLDER.findall(piece):
            if not SUMMARY_PATH.match(path):
                raise GenerationError(f"{where}: registry/summary: {{{path}}} is not a dotted path (a.b, *, |count)")
    return entry


def entries(specs: Path) -> dict[str, dict]:
    """protocol name -> its registry entry (keys with underscores, the spec file it came from), in detection
    order."""
    found: dict[str, dict] = {}
    for path in sorted(specs.rglob("*.ksy")) + sorted(specs.rglob("*.yaml")):
        data = yaml.safe_load(path.read_text()) or {}
        options = data.get("-inlong") or {} if path.suffix == ".ksy" else data
        entry = options.get("registry")
        if entry is None:
            continue
        where = str(path.relative_to(specs))
        entry = dict(_check(where, dict(entry)))
        name = entry.pop("protocol", None) or options.get("protocol")
        if not name:
            raise GenerationError(f"{where}: the registry block names no protocol")
        if name in found:
            raise GenerationError(f"{where}: protocol {name} is registered twice (also in {found[name]['spec']})")
        entry["spec"] = where
        found[name] = {key.replace("-", "_"): value for key, value in entry.items()}
    ports = [port for entry in found.values() for port in entry["ports"]]
    if len(ports) != len(set(ports)):
        raise GenerationError(f"registry: a port is claimed by two protocols: {sorted(ports)}")
    orders = [entry["detect"]["order"] for entry in found.values()]
    if len(orders) != len(set(orders)):
        raise GenerationError(f"registry: two protocols share a detect order: {sorted(orders)}")
    return dict(sorted(found.items(), key=lambda item: item[1]["detect"]["order"]))


def write(specs: Path, out: Path) -> Path:
    target = out / "registry.py"
    table = pprint.pformat(entries(specs), width=110, sort_dicts=False)
    target.write_text('"""Generated from the `registry` blocks of specs/ (tools/ksygen/registry.py). Do not edit.\n\n'
                      'Protocol name -> what the runtime knows of it, in detection order."""\n\n'
                      f"PROTOCOLS = {table}\n")
    return target
