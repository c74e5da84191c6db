// The kit's adapter for the JavaScript parsers the official Kaitai compiler writes from specs/ (make generate ->
// generated/javascript, debug mode): reads one frame or a stream of frames on stdin and prints the items in the
// decode shape `inlong-proto tck` compares (docs/how-to/client-authors.md).
//
//   INLONG_TCK_PROTOCOL=broadcast node tools/js/kaitai_adapter.js < frame.bin
//   node tools/js/kaitai_adapter.js --batch < inputs.jsonl     (inlong-proto tck --batch: one JSON line per input)
//
// The runtime (npm's kaitai-struct, pinned in tools/ksc/package.json and generated/javascript/package.json) is
// looked up in generated/javascript/node_modules, then tools/ksc/node_modules.
//
// What the generated parsers cannot express is printed as {"not_covered": why} and the kit counts it so:
// checked UTF-8 is not in the .ksy, and a Kaitai parser stops at the first damage (no resynchronisation), so
// recovery is not covered either; encode is not generated at all (the compiler's JavaScript target reads
// only). Where only some fields of an item need a layer the .ksy does not describe (the payload layers:
// protobuf, JSON headers, attributes as text; the message type and direction they tell), the item names them
// under "not_covered" and the kit compares the rest: partly covered, never passed.
"use strict";
const fs = require("fs");
const path = require("path");
const Module = require("module");

const ROOT = path.resolve(__dirname, "..", "..");
const GENERATED = process.env.INLONG_KAITAI_JS || path.join(ROOT, "generated", "javascript");
process.env.NODE_PATH = [path.join(GENERATED, "node_modules"), path.join(ROOT, "tools", "ksc", "node_modules")]
  .concat(process.env.NODE_PATH ? [process.env.NODE_PATH] : []).join(path.delimiter);
Module._initPaths();
const KaitaiStream = require("kaitai-struct/KaitaiStream");

// protocol -> the top-level type of each direction (the `registry` block of each spec names the same ones),
// and the field whose enum name is the message type. Protocols whose decode shape needs a payload layer the
// .ksy does not describe are listed with why.
// payload: why the payload layer is not given; unchecked: the fields (error.field paths) whose checks are that
// layer's, not the .ksy's (declared under "not_covered", so the kit does not count a miss there as a failure)
const PAYLOAD = "the payload layer is read by code, not described by the .ksy";
const JSON_LAYER = "the JSON header and body are checked by the payload layer (JSON Schema), not by the .ksy";
const JSON_DIRECTION = "which direction a command goes is told by the JSON header (payload layer): a given " +
  "direction cannot be checked against it";
const PROTOCOLS = {
  broadcast: { request: "BroadcastFrame", response: "BroadcastFrame", messageType: ["command_id"],
    direction: (fields) => (fields.command_id === "data_request" ? "request" : "response") },
  dataproxy: { request: "DataproxyRequest", response: "DataproxyResponse" },
  tubemq: { request: "TubemqFrame", response: "TubemqFrame", payload: PAYLOAD,
    messageType: null, why: "the RPC method is named in the protobuf RPC header (payload layer)",
    unchecked: { rpc: "the protobuf RPC layer is read by code, not described by the .ksy" } },
  eventmesh: { request: "TcpFrame", response: "TcpFrame", payload: PAYLOAD,
    messageType: null, why: "the command is named in the JSON header (payload layer)", givenDirection: JSON_DIRECTION,
    unchecked: { "package.header": JSON_LAYER, "package.body": JSON_LAYER } },
  "eventmesh-legacy": { request: "TcpFrameLegacy", response: "TcpFrameLegacy", payload: PAYLOAD,
    messageType: null, why: "the command is named in the JSON header (payload layer)", givenDirection: JSON_DIRECTION,
    unchecked: { "package.header": JSON_LAYER, "package.body": JSON_LAYER } },
  "eventmesh-frame": { request: "EventmeshWireFrame", response: "EventmeshWireFrame", payload: PAYLOAD,
    messageType: ["msg_type"] },
};
const NOT_COVERED = {
  "eventmesh-http": "HTTP/1.1 is not a .ksy format",
  "eventmesh-grpc": "HTTP/2 with HPACK header blocks and gRPC calls across frames is not a .ksy format",
};
// types the Python codecs render as one value (their spec's `-inlong: python-type`): the text inside the brackets
const AS_TEXT = { BracketedTimestamp: (bytes) => Buffer.from(bytes.subarray(1, bytes.length - 1)).toString("latin1") };

const snake = (name) => name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();

function renderBytes(bytes) {
  const buffer = Buffer.from(bytes);
  const text = new TextDecoder("utf-8", { fatal: true });
  try {
    return text.decode(buffer);
  } catch (err) {
    return { hex: buffer.toString("hex") };
  }
}

// A parsed object as plain JSON, field by field in its seq order (its _debug keys), the way to_plain does it;
// input: the whole input (its buffer starts at 0, so a stream's byteOffset is an offset into it).
function plain(obj, input) {
  const out = {};
  for (const [camel, info] of Object.entries(obj._debug)) {
    if (info.start === undefined) continue; // instances are not part of the decode shape
    let value = obj[camel];
    const name = snake(camel);
    if ((CONTENTS[obj.constructor.name] || new Set()).has(name)) continue;
    if (Array.isArray(value)) { // a repeated field: each element as a field of its own would be
      value = value.map((element) => (element && element._debug ? plain(element, input)
        : element instanceof Uint8Array ? renderBytes(element)
          : info.enumName ? enumName(obj, info.enumName, element) : element));
    } else if (info.enumName) {
      value = enumName(obj, info.enumName, value);
    } else if (value instanceof Uint8Array) {
      value = renderBytes(value);
    } else if (value && typeof value === "object" && value._debug) {
      const type = value.constructor.name;
      if (AS_TEXT[type]) {
        value = AS_TEXT[type](input.subarray(info.ioOffset + info.start, info.ioOffset + info.end));
      } else if (info.switch || isCase(obj, camel)) {
        value = { [snake(type)]: plain(value, input) };
      } else {
        value = plain(value, input);
      }
    }
    if (typeof value === "string" && value.includes("\uFFFD")) throw new NotCovered(
      `checked UTF-8: the generated parser decodes ${name} with replacement characters, it does not reject`);
    out[name] = value;
  }
  return out;
}

class NotCovered extends Error {}

// "BroadcastFrame.Command" or "DataproxyCommon.MsgType": the enum table lives on the top-level type of the
// spec that declares it (an imported spec's module); its name, lowercased, as the decode shape shows it
function enumName(obj, dotted, value) {
  const [top, ...rest] = dotted.split(".");
  let table = require(path.join(GENERATED, top))[top];
  for (const part of rest) table = table && table[part];
  const name = table && table[value];
  return typeof name === "string" ? name.toLowerCase() : value;
}

// The fields the decode shape leaves out, read from the specs: `contents` (fixed bytes, checked, not data).
// Type name (as the compiler names its class) -> their ids.
// SWITCHES: the same for fields whose type is a `switch-on`.
const SWITCHES = {};
const CONTENTS = (() => {
  const yaml = require("js-yaml");
  const out = {};
  const camel = (id) => id.replace(/(^|_)([a-z0-9])/g, (m, u, c) => c.toUpperCase());
  const walk = (name, type) => {
    for (const field of type.seq || []) {
      if (field.contents !== undefined) (out[camel(name)] = out[camel(name)] || new Set()).add(field.id);
      if (field.type && field.type["switch-on"] !== undefined) {
        (SWITCHES[camel(name)] = SWITCHES[camel(name)] || new Set()).add(field.id);
      }
    }
    for (const [sub, inner] of Object.entries(type.types || {})) walk(sub, inner);
  };
  const visit = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) visit(full);
      else if (entry.name.endsWith(".ksy")) {
        const spec = yaml.load(fs.readFileSync(full, "utf8"));
        walk(spec.meta.id, spec);
      }
    }
  };
  visit(process.env.INLONG_SPECS || path.join(ROOT, "specs"));
  return out;
})();

// a field read through a `switch-on` (the Python shape names the case's type), as the specs say
function isCase(obj, camel) {
  return (SWITCHES[obj.constructor.name] || new Set()).has(snake(camel));
}

// Where the parser stopped: [{node, info}] of the fields it had begun and not finished (or whose check failed),
// outermost first.
function stops(obj) {
  const found = [];
  const walk = (node) => {
    if (Array.isArray(node)) return node.forEach(walk); // a repeated field: its elements
    if (!node || !node._debug) return;
    for (const [camel, info] of Object.entries(node._debug)) {
      if (info.start === undefined) continue; // an instance: read on demand, not where the parser stopped
      if (info.end === undefined || info.validationError) {
        // a bit field read from the byte already in the bit buffer starts and ends past it: that byte is where
        // (only a bit field reads a number without moving the byte position)
        const bits = info.end === info.start && ["number", "boolean"].includes(typeof node[camel]);
        found.push({ node, info: bits ? { ...info, start: info.start - 1 } : info });
      }
      walk(node[camel]);
    }
  };
  walk(obj);
  return found;
}

// The error item of a frame the parser gave up on at pos. The input running out (in the top-level stream) is
// truncation; running out inside a sized sub-stream (a body shorter than its type) means the length field
// lies: invalid, at the sized field of the top-level stream. A failed check is invalid at the field it checks.
function errorItem(err, obj, io, input, pos, protocol) {
  const stopped = stops(obj);
  const inner = stopped[stopped.length - 1];
  let kind = "invalid";
  let at = inner ? inner.info.ioOffset + inner.info.start : pos + io.pos;
  if (err instanceof KaitaiStream.EOFError) {
    const outer = stopped.filter((s) => s.node._io === io).pop();
    if (!inner || inner.node._io === io) {
      kind = "truncated";
      at = input.length;
    } else if (outer) {
      at = outer.info.ioOffset + outer.info.start;
    }
  }
  return { protocol, offset: pos, length: input.length - pos, message_type: null, direction: null,
    error: { kind, offset: at, field: "", reason: String(err.message) } };
}

// the message type: the type a `switch-on` field read (the spec's message field), as the Python codecs name it
function caseName(obj, fields) {
  for (const camel of Object.keys(obj._debug)) {
    if (isCase(obj, camel)) return Object.keys(fields[snake(camel)])[0];
  }
  return null;
}

function decode(input, protocol, direction) {
  const spec = PROTOCOLS[protocol];
  const items = [];
  let pos = 0;
  while (pos < input.length) {
    const typeName = spec[direction || "request"];
    const Type = require(path.join(GENERATED, typeName))[typeName];
    const io = new KaitaiStream(input.subarray(pos));
    const obj = new Type(io);
    try {
      obj._read();
    } catch (err) {
      items.push(errorItem(err, obj, io, input, pos, protocol));
      break;
    }
    let fields;
    try {
      fields = plain(obj, input);
    } catch (err) {
      if (err instanceof NotCovered) return [{ not_covered: err.message }];
      throw err;
    }
    const item = { protocol, offset: pos, length: io.pos };
    const uncovered = {};
    if (spec.messageType === null) uncovered.message_type = spec.why;
    else item.message_type = spec.messageType ? spec.messageType.reduce((v, key) => (v == null ? v : v[key]), fields)
      : caseName(obj, fields);
    if (spec.givenDirection && direction) uncovered.direction = spec.givenDirection;
    else if (direction || spec.direction || !spec.why) {
      item.direction = direction || (spec.direction ? spec.direction(fields) : null);
    } else uncovered.direction = spec.why;
    if (spec.payload) uncovered.payload = spec.payload;
    Object.assign(uncovered, spec.unchecked || {});
    Object.assign(item, fields);
    if (Object.keys(uncovered).length) item.not_covered = uncovered;
    items.push(item);
    pos += io.pos;
  }
  return items;
}

// The answer to one input: the items, or {not_covered: why}.
function answer(input, protocol, direction, rule) {
  const why = NOT_COVERED[protocol] || (PROTOCOLS[protocol] ? null : `no parser for ${protocol}`);
  if (why) return { not_covered: why };
  if (rule === "recover") return { not_covered: "a Kaitai parser stops at the first damage: no resynchronisation" };
  if (rule === "payload") return { not_covered: PAYLOAD };
  if (rule === "reject" && direction && PROTOCOLS[protocol].givenDirection) { // maybe the wrong direction
    return { not_covered: PROTOCOLS[protocol].givenDirection };
  }
  return decode(input, protocol, direction);
}

function main() {
  if (process.argv.includes("--batch")) { // one JSON line per input in, one JSON line per input out
    for (const line of fs.readFileSync(0, "utf8").split("\n")) {
      if (!line.trim()) continue;
      const ask = JSON.parse(line);
      const input = new Uint8Array(Buffer.from(ask.data, "base64"));
      let out;
      try {
        out = answer(input, ask.protocol, ask.direction || null, ask.rule);
      } catch (err) { // this input's failure, reported on its own line: the batch goes on
        out = [{ adapter_error: String(err && err.stack || err) }];
      }
      process.stdout.write(JSON.stringify(out) + "\n");
    }
    return;
  }
  const input = new Uint8Array(fs.readFileSync(0)); // a copy: its own buffer, offset 0
  const out = answer(input, process.env.INLONG_TCK_PROTOCOL, process.env.INLONG_TCK_DIRECTION || null,
    process.env.INLONG_TCK_RULE || "decode");
  for (const item of Array.isArray(out) ? out : [out]) process.stdout.write(JSON.stringify(item) + "\n");
}

main();
