// Runs the official Kaitai Struct compiler (npm build, pinned in package-lock.json) over .ksy files.
// Usage: node compile.js TARGET OUTDIR [--debug] SPEC.ksy...   (TARGET: python | construct | graphviz)
// --debug records each field's start and end offsets (used by `inlong-proto inspect`).
// Imports are resolved relative to the importing file, or to the specs root for absolute ones.
"use strict";
const fs = require("fs");
const path = require("path");
const yaml = require("js-yaml");
const compiler = require("kaitai-struct-compiler");

const [target, outDir, ...rest] = process.argv.slice(2);
const debug = rest.includes("--debug");
const specs = rest.filter((arg) => arg !== "--debug");
if (!target || !outDir || specs.length === 0) {
  console.error("usage: node compile.js TARGET OUTDIR SPEC.ksy...");
  process.exit(2);
}
const specsRoot = path.resolve(__dirname, "..", "..", "specs");

function load(file) {
  return yaml.load(fs.readFileSync(file, "utf8"));
}

async function compileOne(spec) {
  const specDir = path.dirname(path.resolve(spec));
  const importer = {
    importYaml(name, mode) {
      const base = mode === "abs" ? specsRoot : specDir;
      return Promise.resolve(load(path.join(base, name + ".ksy")));
    },
  };
  const files = await compiler.compile(target, load(spec), importer, debug);
  for (const [name, text] of Object.entries(files)) {
    fs.writeFileSync(path.join(outDir, name), text);
  }
}

(async () => {
  fs.mkdirSync(outDir, { recursive: true });
  for (const spec of specs) {
    try {
      await compileOne(spec);
    } catch (err) {
      console.error(`${spec}: ${err && err.message ? err.message : err}`);
      process.exit(1);
    }
  }
})();
