"""The conformance corpus (issue 29): the test vectors as a versioned product for people writing clients in
other languages. ``inlong-proto corpus export DIR`` writes, for every protocol and direction,

* ``frames/<protocol>/<case>.bin``: the raw bytes of one frame, one malformed frame, one stream of frames
  or one damaged dump;
* ``expected/<protocol>/<case>.json``: a JSON array, what ``inlong-proto decode -p PROTOCOL [-d DIRECTION]
  --mode permissive [--payload] -T json`` prints for those bytes (the decode shape: one object per frame or
  error span, with ``protocol``, ``offset``, ``length``, ``message_type``, ``direction`` and the frame's fields);
* ``manifest.json``: every case, its rule, direction, source, sizes and digests, and the rules themselves;
  specs/corpus/manifest.schema.json describes it.

The cases come from tests/vectors (so the export needs a clone, or ``--vectors``); the expected values are
computed by this package's pure decoder at export time, so the corpus is what the specs say, nothing else.
"""
from __future__ import annotations

import hashlib
import importlib
import json
import os
import shutil
from pathlib import Path

import click

from inlong_proto.core import __version__, protocols
from inlong_proto.core.errors import InlongProtoError
from inlong_proto.core.frames import encode, iter_frames

CORPUS_VERSION = "1.2.0"  # 1.2: the legacy EventMesh TCP form is framed too (streams, encode rule)
SCHEMA = Path(__file__).resolve().parents[2] / "specs" / "corpus" / "manifest.schema.json"
SOURCE_VECTORS = Path(__file__).resolve().parents[2] / "tests" / "vectors"  # only there in a clone

# The rules a case is checked under (the kit, `inlong-proto tck`, applies them; docs/how-to/client-authors.md).
RULES = {
    "decode": "Decode the bytes (one whole frame, or a stream of whole frames) into exactly the expected items: "
              "every field of every item equal, offsets and lengths included.",
    "payload": "As decode, with the payload layer read too (the decoder is told INLONG_TCK_PAYLOAD=1): the "
               "expected items carry a `payload` object.",
    "reject": "Malformed input: the decoder must not yield a frame where the expected has an error span; each "
              "error item's offset, length, error.kind and error.offset must equal the expected one "
              "(error.field, error.reason and raw are advisory, compared by nobody).",
    "recover": "A damaged dump: the decoder must yield every expected frame at its offset with its fields, and "
               "the bytes it yields as error spans must be exactly the bytes the expected error spans cover "
               "(frames plus error spans tile the input); how it splits the damage into spans is free. Items "
               "that share an offset (zero-length gRPC messages and calls at a frame's end) match in order.",
    "cut": "Every stream case with `cut: true` also stands for len-1 inputs, its first k bytes for every k in "
           "1..len-1 (not written as files): the expected items are the stream's frames that end at or before "
           "k, then, unless k is a frame boundary, one error item of error.kind `truncated` at the offset where "
           "the next frame starts, with length k minus that offset and error.offset k. A case with "
           "`cut_connection` is one direction of an HTTP/2 connection, read as an observer reads it: the items "
           "that end by k include the zero-length gRPC messages and calls there; the error item's error.offset "
           "is its own offset (where the cut frame starts); when it starts at 0 and k is under "
           "`cut_connection.invalid_below` (the preface, or a frame header) its kind is `invalid`, as such a "
           "prefix cannot be told from other bytes; the decoder may split it into consecutive `truncated` items "
           "(a header block's whole frames, then the cut frame); calls the cut leaves open (zero-length `call` "
           "items at k for a stream whose call does not end there in the whole stream) are advisory, compared "
           "by nobody.",
    "encode": "Encode each expected item (the decode shape, read back as `inlong-proto encode` reads it; "
              "lengths and counts may be derived) into exactly the case's bytes.",
}
SOURCES = {
    "upstream-produced": "bytes written by the upstream implementation itself (its Java encoder, or a capture "
                         "of its client or server)",
    "sdk-exact": "bytes built field by field after the upstream SDK's code (the file and line each vector names)",
    "spec": "an example the spec itself defines (the broadcast protocol has no upstream), or a hand-made valid input",
    "hostile": "malformed input: bad magic, lengths out of range, invalid values, truncation",
    "recovery": "a damaged dump built from valid frames: garbage between them, a corrupt frame, a cut tail",
    "library-produced": "bytes written by an independent implementation of the transport the upstream uses "
                        "(gRPC's C core through grpcio, python-hyper's hyperframe and hpack), carrying messages "
                        "of the upstream's .proto files",
    "mixed": "a stream pipelining frames of several of the sources above",
}
# protocol -> the folder of its frame vectors (the registry's `vectors`; a vector may name its own protocol)
FOLDERS = protocols.VECTOR_FOLDERS
# the protocols of one frame layout: their vectors are whole frames, pipelined into stream cases and encoded
FRAMED = tuple(name for name, entry in protocols.REGISTRY.items() if entry["framing"] == "frames")


def _http2_openings(stream_module: str) -> dict[str, int]:
    module = importlib.import_module(stream_module)
    return {"request": len(module.PREFACE), "response": module.HEADER_SIZE}


# protocols whose vectors are each one direction of a connection (HTTP/2): each is a stream case, cut by the
# cut rule's connection form; the fewest bytes at the start an observer needs to know a frame starts there,
# per direction (the client's connection preface, a frame header: HTTP/2's, from the protocol's stream module)
CONNECTIONS = {name: _http2_openings(entry["module"]) for name, entry in protocols.REGISTRY.items()
               if entry["framing"] == "http2"}


def decode_items(data: bytes, protocol: str, direction: str | None, payload: bool = False) -> list[dict]:
    """What `inlong-proto decode -p protocol [-d direction] --mode permissive [--payload]` prints, as a list."""
    reader = None
    if payload and protocols.PAYLOAD_READERS.get(protocol):
        reader = importlib.import_module(protocols.PAYLOAD_READERS[protocol]).payload
    items = []
    for frame in iter_frames(data, protocol, direction, "PERMISSIVE"):
        item = frame.to_dict()
        if reader is not None and frame.error is None:
            try:
                item["payload"] = reader(frame).to_dict()
            except InlongProtoError as exc:
                item["payload"] = {"error": str(exc)}
        items.append(json.loads(json.dumps(item)))  # plain JSON, as printed
    return items


def _source(vector: dict, valid: bool, protocol: str) -> str:
    if not valid:
        return "hostile"
    told = vector.get("source", "")
    if told.startswith("library:"):
        return "library-produced"
    if told.startswith("captured") or vector.get("java_encoder"):
        return "upstream-produced"
    if told.startswith("hand-made") or protocol in protocols.SPEC_DEFINED:
        return "spec"
    return "sdk-exact"


def _vectors(root: Path):
    """(protocol, name, direction, bytes, valid, source, description, vector path) of every frame vector."""
    for default, folder in FOLDERS.items():
        base = root / folder
        for path in sorted(base.rglob("*.json")):
            vector = json.loads(path.read_text())
            if "hex" not in vector and "text" not in vector:
                continue
            kind = path.parent.name if path.parent != base else vector.get("kind", "valid")
            if kind not in ("valid", "malformed"):
                continue  # dataproxy/payload (records of a body) and replies (builder arguments) are not frames
            data = bytes.fromhex(vector["hex"]) if "hex" in vector else vector["text"].encode("utf-8")
            protocol = vector.get("protocol") or default
            valid = kind == "valid"
            yield (protocol, path.stem, vector.get("direction"), data, valid, _source(vector, valid, protocol),
                   vector.get("description", ""), "tests/vectors/" + path.relative_to(root).as_posix())


def find_vectors(instead: str = "--vectors DIR") -> Path:
    """The vectors an export reads by default: the current folder's tests/vectors (the root of a clone), else
    the source tree's when this package runs from a clone; an installed package carries none (the error names
    the option to pass instead)."""
    for candidate in (Path.cwd() / "tests" / "vectors", SOURCE_VECTORS):
        if any((candidate / folder).is_dir() for folder in FOLDERS.values()):
            return candidate
    raise click.ClickException("no test vectors found: run this from the root of a clone of inlong-proto "
                               f"(it reads tests/vectors) or pass {instead}")


class Builder:
    """Collects cases and writes them (bytes and expected) under out."""

    def __init__(self, out: Path):
        self.out = out
        self.cases: list[dict] = []
        self.names: set[str] = set()

    def add(self, protocol: str, name: str, rule: str, direction, data: bytes, source: str, description: str,
            items: list[dict], **extra) -> dict:
        case_id = f"{protocol}/{name}"
        assert case_id not in self.names, case_id
        self.names.add(case_id)
        binary = Path("frames", protocol, name + ".bin")
        expected = Path("expected", protocol, name + ".json")
        for relative, content in ((binary, data), (expected, (json.dumps(items, indent=1, ensure_ascii=False)
                                                              + "\n").encode("utf-8"))):
            target = self.out / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)
        case = {"id": case_id, "protocol": protocol, "rule": rule, "direction": direction, "source": source,
                "description": description, "input": binary.as_posix(), "size": len(data),
                "sha256": hashlib.sha256(data).hexdigest(), "expected": expected.as_posix(),
                "frames": sum(1 for i in items if "error" not in i),
                "errors": sum(1 for i in items if "error" in i)}
        case.update(extra)
        self.cases.append(case)
        return case


def _encodes_exactly(items: list[dict], data: bytes) -> bool:
    """Whether this package's own encoder gives back exactly data from the decoded items (the encode rule
    holds only where it does)."""
    from inlong_proto.core.plain import from_plain

    try:
        out = b""
        for item in items:
            frame_type = protocols.get(item["protocol"]).frame_type_for(item["direction"])
            names = {f.name for f in frame_type.FIELDS}
            out += encode(from_plain(frame_type, {k: v for k, v in item.items() if k in names}))
        return out == data
    except Exception:  # noqa: BLE001  (a shape the encoder does not take: no encode rule for that case)
        return False


def damaged(frames: list[bytes]) -> bytes:
    """A damaged dump of valid frames: 7 bytes of garbage after the first, the second with its first byte
    flipped, then the rest whole, then the first frame cut in half at the end."""
    first, second, rest = frames[0], frames[1 % len(frames)], frames[2:]
    return first + b"\xa5GARBAG" + bytes([second[0] ^ 0xFF]) + second[1:] + b"".join(rest) + first[:len(first) // 2]


def damaged_connection(stream: bytes, frame: bytes) -> bytes:
    """A damaged dump of one direction of an HTTP/2 connection: 7 bytes of garbage before it (as where a
    capture begins inside a frame; an observer in step with the frames cannot resynchronise inside them, so
    the damage is where it can), then the stream whole, then the first half of one of its frames."""
    return b"\xa5GARBAG" + stream + frame[:len(frame) // 2]


def export(out: Path, vectors: Path | None = None) -> dict:
    """Write the corpus under out, from vectors (default: find_vectors()); the manifest (also written as
    out/manifest.json)."""
    vectors = vectors or find_vectors()
    builder = Builder(out)
    whole: dict[tuple[str, str], list[bytes]] = {}
    kinds: dict[tuple[str, str], set] = {}
    for protocol, name, direction, data, valid, source, description, origin in _vectors(vectors):
        items = decode_items(data, protocol, direction)
        rule = "decode" if valid else "reject"
        if valid and any("error" in item for item in items):
            raise click.ClickException(f"{origin}: a valid vector decodes with an error span")
        extra = {"vector": origin}
        if valid and protocol in CONNECTIONS:
            extra.update(cut=True, cut_connection={"invalid_below": CONNECTIONS[protocol][direction]})
        if valid and protocol in FRAMED:
            extra["encode"] = _encodes_exactly(items, data)
            if len(items) == 1:
                key = (protocol, items[0]["direction"] or direction or "any")
                whole.setdefault(key, []).append(data)
                kinds.setdefault(key, set()).add(source)
        builder.add(protocol, name, rule, direction, data, source, description, items, **extra)
        if valid and protocol in CONNECTIONS:
            last = max((i for i in items if i["length"]), key=lambda i: i["offset"])
            dump = damaged_connection(data, data[last["offset"]:last["offset"] + last["length"]])
            builder.add(protocol, f"damaged_{name}", "recover", direction, dump, "recovery",
                        "7 bytes of garbage first (a capture begun inside a frame), the stream, half a frame",
                        decode_items(dump, protocol, direction), vector=origin)
        if valid and protocols.PAYLOAD_READERS.get(protocol):
            builder.add(protocol, name + ".payload", "payload", direction, data, source,
                        description + " (with the payload layer)", decode_items(data, protocol, direction, True),
                        vector=origin)
    if not builder.cases:
        raise click.ClickException(f"no test vectors in {vectors} (it holds none of {', '.join(FOLDERS.values())})")
    # streams: every valid frame of one protocol and direction, pipelined; cut at every byte by rule
    for (protocol, sent), pieces in sorted(whole.items()):
        direction = None if sent == "any" else sent
        data = b"".join(pieces)
        items = decode_items(data, protocol, direction)
        if len(items) != len(pieces) or any("error" in item for item in items):
            continue  # frames that only read alone (a direction the stream cannot tell): no stream case
        source = next(iter(kinds[protocol, sent])) if len(kinds[protocol, sent]) == 1 else "mixed"
        builder.add(protocol, f"stream_{sent}", "decode", direction, data, source,
                    f"every valid {sent} frame of {protocol}, pipelined", items, cut=True)
        if len(pieces) >= 3:
            dump = damaged(pieces)
            builder.add(protocol, f"damaged_{sent}", "recover", direction, dump, "recovery",
                        "garbage after the first frame, a corrupt first byte in the second, a cut tail",
                        decode_items(dump, protocol, direction))
    manifest = {"corpus": "inlong-proto conformance corpus", "version": CORPUS_VERSION,
                "generator": f"inlong-proto {__version__}",
                "shape": "docs/how-to/client-authors.md#the-decode-shape",
                "rules": RULES, "sources": SOURCES,
                "protocols": sorted({case["protocol"] for case in builder.cases}),
                "cases": builder.cases}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return manifest


def load(directory: Path) -> dict:
    return json.loads((Path(directory) / "manifest.json").read_text())


@click.group()
def corpus():
    """The conformance corpus: every vector as raw bytes plus its expected decoded value."""


@corpus.command("export")
@click.argument("directory", type=click.Path(file_okay=False))
@click.option("--vectors", type=click.Path(exists=True, file_okay=False),
              help="The vectors folder (default: tests/vectors of the clone this runs in or from).")
def export_command(directory, vectors):
    """Write the corpus into DIRECTORY: manifest.json, frames/<protocol>/*.bin, expected/<protocol>/*.json."""
    vectors = Path(vectors) if vectors else find_vectors()
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    if os.listdir(out) and not (out / "manifest.json").is_file():
        raise click.ClickException(f"{out} is not empty and holds no corpus")
    for folder in ("frames", "expected"):  # an earlier export's cases go: the new manifest names all there are
        shutil.rmtree(out / folder, ignore_errors=True)
    manifest = export(out, vectors)
    by_rule: dict[str, int] = {}
    for case in manifest["cases"]:
        by_rule[case["rule"]] = by_rule.get(case["rule"], 0) + 1
    click.echo(f"{len(manifest['cases'])} cases ({', '.join(f'{n} {r}' for r, n in sorted(by_rule.items()))}) "
               f"of {len(manifest['protocols'])} protocols in {out}")
