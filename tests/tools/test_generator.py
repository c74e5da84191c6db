"""tools/ksygen: the generator's own tests (expressions, supported subset, derived fields, determinism)."""
import filecmp
import importlib.util
import shutil
import sys
import textwrap
from pathlib import Path

import pytest

from tools import generate
from tools.ksygen import expr
from tools.ksygen.emit import emit_module
from tools.ksygen.expr import GenerationError
from tools.ksygen.model import Loader

ROOT = Path(__file__).resolve().parents[2]


def py(text, names=None):
    scope = expr.Scope(lambda chain: "_".join(chain), lambda enum, member: f"{enum}.{member}", lambda t: 29)
    return expr.to_python(expr.parse(text), scope)


def test_expressions_translate_to_python():
    assert py("a - 8") == "(a - 8)"
    assert py("a / 2 % 10") == "((a // 2) % 10)"
    assert py("x == 1 ? 29 : 30") == "(29 if (x == 1) else 30)"
    assert py("not a and b or c") == "(((not a) and b) or c)"
    assert py("cmd::data_request") == "cmd.data_request"
    assert py("8 + sizeof<data_request>") == "(8 + 29)"
    assert py("year.value >= 0x1_0") == "(year_value >= 16)"
    assert py("s.length") == "len(s)"


@pytest.mark.parametrize("text", ["a ? b", "a +", "f(1)", "a.b(c)", "$x", "a[1"])
def test_bad_expressions_stop_generation(text):
    with pytest.raises(GenerationError):
        expr.parse(text)


def test_linear_size_expressions_invert():
    assert expr.invert_linear(expr.parse("total - 8"), "total")("n") == "(n + 8)"
    assert expr.invert_linear(expr.parse("len"), "len")("n") == "n"
    assert expr.invert_linear(expr.parse("4 + len"), "len")("n") == "(n - 4)"
    assert expr.invert_linear(expr.parse("len * 2"), "len") is None


def write_spec(folder: Path, text: str, name="demo") -> Path:
    path = folder / "demo" / f"{name}.ksy"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


BASE = """\
meta:
  id: demo
  endian: le
seq:
  - id: magic
    contents: "DM"
    doc: Magic.
  - id: name_length
    type: u2
    doc: Bytes of name.
  - id: name
    type: str
    size: name_length
    encoding: UTF-8
    doc: A name.
  - id: blob_length
    type: u4be
    doc: Bytes of blob.
  - id: blob
    size: blob_length
    doc: Opaque data.
  - id: kind
    type: s1
    enum: kind
    doc: No validation, unknown values stay ints.
enums:
  kind:
    1: one
    2: two
"""


def load_module(path: Path, module_path: Path):
    code = emit_module(Loader(path.parent.parent).load(path))
    module_path.write_text(code)
    spec = importlib.util.spec_from_file_location("demo_codec", module_path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["demo_codec"] = module  # dataclasses resolve annotations through sys.modules
    spec.loader.exec_module(module)
    return module


def test_generated_codec_derives_lengths_and_round_trips(tmp_path):
    demo = load_module(write_spec(tmp_path, BASE), tmp_path / "demo_codec.py")
    message = demo.Demo(name="héllo", blob=b"\x00\x01\x02", kind=7)
    data = demo.encode_demo(message)
    assert data == b"DM" + (6).to_bytes(2, "little") + "héllo".encode() + (3).to_bytes(4, "big") + \
        b"\x00\x01\x02" + b"\x07"
    decoded, end = demo.decode_demo(data)
    assert decoded == message and end == len(data)
    assert (decoded.name_length, decoded.blob_length, decoded.kind) == (6, 3, 7)
    assert demo.decode_demo(data[:-1] + b"\x02")[0].kind is demo.Kind.two
    assert demo.Demo.CONTENTS == {"magic": b"DM"} and demo.Demo.LEADING == b"DM"  # the runtime's constants


def test_generated_codec_errors_name_field_and_offset(tmp_path):
    from inlong_proto.core.errors import TruncatedError, ValidationError

    demo = load_module(write_spec(tmp_path, BASE), tmp_path / "demo_codec.py")
    with pytest.raises(ValidationError) as caught:
        demo.decode_demo(b"XX\x00\x00\x00\x00\x00\x00\x00")
    assert (caught.value.offset, caught.value.field) == (0, "magic")
    with pytest.raises(TruncatedError) as caught:
        demo.decode_demo(b"DM\x05\x00ab")
    assert caught.value.field == "name"
    with pytest.raises(ValidationError) as caught:
        demo.decode_demo(b"DM\x02\x00\xff\xfe\x00\x00\x00\x00\x01")
    assert caught.value.field == "name" and caught.value.offset == 4


@pytest.mark.parametrize("snippet, message", [
    ("    process: zlib\n", "'process' is not supported"),
    ("    repeat: until\n    repeat-until: _ == 0\n", "'repeat-until' is not supported"),
    ("    terminator: 0\n", "'terminator' is not supported"),
])
def test_unsupported_constructs_stop_generation_with_the_spec_path(tmp_path, snippet, message):
    text = BASE.replace("    doc: Opaque data.\n", "    doc: Opaque data.\n" + snippet)
    path = write_spec(tmp_path, text)
    with pytest.raises(GenerationError, match=message) as caught:
        emit_module(Loader(tmp_path).load(path))
    assert "demo/demo.ksy: /seq/4" in str(caught.value)


def test_unaligned_bits_strz_and_missing_docs_are_refused(tmp_path):
    with pytest.raises(GenerationError, match="whole bytes"):
        emit_module(Loader(tmp_path).load(write_spec(tmp_path, BASE.replace("type: s1", "type: b4"))))
    with pytest.raises(GenerationError, match="not supported"):
        Loader(tmp_path / "z").load(write_spec(tmp_path / "z", BASE.replace("type: s1", "type: strz")))
    with pytest.raises(GenerationError, match="needs a doc"):
        Loader(tmp_path / "x").load(write_spec(tmp_path / "x", BASE.replace("    doc: Magic.\n", "")))


def test_protobuf_wiring_generates_importable_messages(tmp_path):
    specs = tmp_path / "specs"
    (specs / "demo").mkdir(parents=True)
    (specs / "demo" / "ping.proto").write_text(textwrap.dedent("""\
        syntax = "proto3";
        package demo;
        message Ping { int64 id = 1; string note = 2; }
        service Pinger { rpc Send (Ping) returns (Ping); }
    """))
    out = tmp_path / "generated"
    out.mkdir()
    assert generate.protobuf(specs, out) == [specs / "demo" / "ping.proto"]
    assert (out / "protobuf" / "demo" / "ping_pb2_grpc.py").exists()
    spec = importlib.util.spec_from_file_location("ping_pb2", out / "protobuf" / "demo" / "ping_pb2.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.Ping.FromString(module.Ping(id=7, note="hi").SerializeToString()).id == 7


@pytest.mark.skipif(shutil.which("node") is None or shutil.which("dot") is None,
                    reason="make generate needs node and graphviz; .ci/run installs both")
def test_generation_is_deterministic_and_committed(tmp_path):
    generate.generate(ROOT / "specs", tmp_path / "a")
    generate.generate(ROOT / "specs", tmp_path / "b")
    for left, right in ((tmp_path / "a", tmp_path / "b"), (tmp_path / "a", ROOT / "generated")):
        comparison = filecmp.dircmp(left, right, ignore=["__pycache__"])
        stack = [comparison]
        while stack:
            current = stack.pop()
            assert not current.left_only and not current.right_only, (current.left, current.left_only,
                                                                      current.right_only)
            _, mismatch, errors = filecmp.cmpfiles(current.left, current.right, current.common_files, shallow=False)
            assert not mismatch and not errors, (current.left, mismatch)
            stack.extend(current.subdirs.values())


FLAGS_AND_LISTS = """\
meta:
  id: demo
  endian: be
seq:
  - id: total
    type: u4
    doc: Bytes after this field.
  - id: encrypted
    type: b1
    doc: Flag bit 7.
  - id: compressed
    type: b2
    doc: Bits 6-5.
  - id: kind
    type: b5
    enum: kind
    valid:
      in-enum: true
    doc: Bits 4-0.
  - id: body
    size: total - 1
    type:
      switch-on: kind
      cases:
        kind::text: text
        kind::more_text: text
        kind::numbers: numbers
    doc: Body by kind.
types:
  text:
    seq:
      - id: items
        type: item
        repeat: eos
        doc: Items until the end of the body.
  item:
    seq:
      - id: len
        type: u2
        doc: Item size.
      - id: data
        size: len
        doc: Item bytes.
  numbers:
    seq:
      - id: count
        type: u1
        doc: How many numbers.
      - id: values
        type: s2
        repeat: expr
        repeat-expr: count
        doc: The numbers.
enums:
  kind:
    1: text
    2: more_text
    3: numbers
"""


def test_bit_fields_repeats_and_shared_cases(tmp_path):
    from inlong_proto.core.errors import EncodeError, ValidationError

    path = write_spec(tmp_path, FLAGS_AND_LISTS)
    demo = load_module(path, tmp_path / "demo_codec.py")
    items = demo.Text(items=(demo.Item(data=b"ab"), demo.Item(data=b"")))
    message = demo.Demo(encrypted=True, compressed=2, kind=demo.Kind.more_text, body=items)
    data = demo.encode_demo(message)
    assert data == b"\x00\x00\x00\x07" + bytes([0b1_10_00010]) + b"\x00\x02ab\x00\x00"
    decoded, _ = demo.decode_demo(data)
    assert decoded == message and decoded.kind is demo.Kind.more_text and decoded.encrypted is True
    numbers = demo.Demo(encrypted=False, compressed=0, kind=3, body=demo.Numbers(values=(-1, 2)))
    data = demo.encode_demo(numbers)
    assert data == b"\x00\x00\x00\x06\x03\x02\xff\xff\x00\x02"
    assert demo.decode_demo(data)[0].body.count == 2
    with pytest.raises(EncodeError, match="kind"):  # shared cases: the discriminator is given, and checked
        demo.encode_demo(demo.Demo(encrypted=False, compressed=0, kind=3, body=items))
    with pytest.raises(EncodeError, match="compressed"):
        demo.encode_demo(demo.Demo(encrypted=False, compressed=4, kind=1, body=items))
    with pytest.raises(ValidationError) as caught:
        demo.decode_demo(b"\x00\x00\x00\x01\x1f")
    assert (caught.value.offset, caught.value.field) == (4, "kind")
    assert [f.kind for f in demo.Numbers.FIELDS] == ["int", "list"]
    assert demo.Numbers.FIELDS[1].detail.arrow == "int16"


SWITCHED_ORDER = """\
meta:
  id: demo
  endian: be
seq:
  - id: magic
    type: u2be
    enum: order
    doc: Says the byte order of what follows.
  - id: body
    type: body
    doc: In the order the magic names.
types:
  body:
    meta:
      endian:
        switch-on: _parent.magic
        cases:
          order::little: le
          order::big: be
    seq:
      - id: count
        type: u2
        doc: Items.
      - id: items
        type: item
        repeat: expr
        repeat-expr: count
        doc: Items, in the same order (inherited).
    types:
      item:
        seq:
          - id: value
            type: s4
            doc: A value.
          - id: tag
            type: u1
            doc: One byte reads the same either way.
enums:
  order:
    0x4949: little
    0x4d4d: big
"""


def test_meta_endian_switch_on_a_decoded_value(tmp_path):
    from inlong_proto.core.errors import ValidationError

    demo = load_module(write_spec(tmp_path, SWITCHED_ORDER), tmp_path / "demo_codec.py")
    body = demo.Body(items=(demo.Item(value=-2, tag=7), demo.Item(value=3, tag=8)))
    little = demo.encode_demo(demo.Demo(magic=demo.Order.little, body=body))
    big = demo.encode_demo(demo.Demo(magic=demo.Order.big, body=body))
    assert little == b"II" + b"\x02\x00" + b"\xfe\xff\xff\xff\x07" + b"\x03\x00\x00\x00\x08"
    assert big == b"MM" + b"\x00\x02" + b"\xff\xff\xff\xfe\x07" + b"\x00\x00\x00\x03\x08"
    assert demo.decode_demo(little)[0].body == body == demo.decode_demo(big)[0].body
    assert demo.decode_body(little, 2, le=True)[0] == body  # the runtime may pass a known order
    assert demo.encode_item(body.items[0], le=False) == b"\xff\xff\xff\xfe\x07"
    with pytest.raises(ValidationError, match="byte order of body undecided") as info:
        demo.decode_demo(b"XX" + little[2:])
    assert info.value.field == "body"


def test_inherited_order_needs_a_user_that_knows_it(tmp_path):
    text = SWITCHED_ORDER.replace("  - id: body\n    type: body\n", "  - id: body\n    type: body::item\n")
    with pytest.raises(GenerationError, match="no byte order is known"):
        emit_module(Loader(tmp_path).load(write_spec(tmp_path, text)))
    with pytest.raises(GenerationError, match="only a switch-on"):
        Loader(tmp_path).load(write_spec(tmp_path, SWITCHED_ORDER.replace(
            "      endian:\n        switch-on: _parent.magic\n        cases:\n          order::little: le\n"
            "          order::big: be\n", "      endian: le\n")))


# ------------------------------------------------------------------ START: where a frame may begin


@pytest.mark.parametrize("fmt, low, high", [(">i", 37, 38), (">I", 1, 65532), ("<h", -300, 5), (">q", -1, 1),
                                            ("<I", 0, 0xFFFFFFFF), (">B", 7, 200), (">i", -2**31, -5),
                                            ("<Q", 2**40, 2**63)])
def test_integer_ranges_become_exact_byte_patterns(fmt, low, high):
    """The pattern of a checked integer matches exactly the encodings of the values in its range."""
    import random
    import re
    import struct

    from tools.ksygen import starts
    from tools.ksygen.model import INT_RANGE, Attr

    width = struct.calcsize(fmt)
    attr = Attr("n", "", "", "int", fmt=fmt, size=width, valid={"min": low, "max": high})
    regex = re.compile(starts._int(attr, None).encode(), re.DOTALL)
    type_low, type_high = INT_RANGE[fmt[-1]]
    rng = random.Random(fmt)
    values = {type_low, type_high, low, high, low - 1, high + 1, 0, -1, 1}
    values |= {rng.randint(type_low, type_high) for _ in range(300)} | {rng.randint(low, high) for _ in range(300)}
    for value in values:
        if type_low <= value <= type_high:
            assert (regex.fullmatch(struct.pack(fmt, value)) is not None) == (low <= value <= high), value


def test_frames_get_a_start_pattern_from_their_leading_fields(tmp_path):
    """contents, enum membership, bit fields and the size bound (a frame of at most max-frame-size)."""
    import re

    spec = write_spec(tmp_path, """\
        meta:
          id: framed
          endian: be
        -inlong:
          protocol: framed
          frame: true
          max-frame-size: 1000
        seq:
          - id: magic
            contents: "FR"
            doc: Magic.
          - id: flag
            type: b3
            doc: Flags.
          - id: kind
            type: b5
            enum: kind
            valid:
              in-enum: true
            doc: Kind.
          - id: length
            type: u2
            doc: Bytes after the header.
          - id: body
            size: length
            doc: Body.
        enums:
          kind:
            1: one
            2: two
        """, name="framed")
    framed = load_module(spec, tmp_path / "framed_codec.py")
    assert framed.START_SIZE == 5
    for kind in range(32):
        for length in (0, 995, 996, 40000):
            header = b"FR" + bytes([0b10100000 | kind]) + length.to_bytes(2, "big")
            fits = kind in (1, 2) and length <= 995
            assert (framed.START.match(header) is not None) == fits, (kind, length)
            assert (framed.START_ANY.match(header) is not None) == (kind in (1, 2))
    assert framed.START.match(b"FX\x01\x00\x00") is None and isinstance(framed.START, re.Pattern)
