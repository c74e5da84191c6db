"""``inlong-proto specs compile --target TARGET OUT``: the specs through the pinned official Kaitai Struct compiler
(tools/ksc, installed by make setup) into another language's parsers, for client authors (issue 29;
docs/how-to/client-authors.md). Needs a clone (specs/, tools/ksc) and node."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import click

ROOT = Path(__file__).resolve().parents[2]
COMPILER = ROOT / "tools" / "ksc" / "compile.js"
# the targets of the npm build of kaitai-struct-compiler 0.11.0 (graphviz and html are not parsers)
TARGETS = ("construct", "cpp_stl", "csharp", "go", "java", "javascript", "lua", "nim", "perl", "php", "python",
           "ruby", "rust")


@click.group()
def specs():
    """The specs (specs/*.ksy) for other languages."""


@specs.command("compile")
@click.option("--target", "-t", type=click.Choice(TARGETS), required=True, help="The compiler's target language.")
@click.option("--protocol", "-p", "folders", multiple=True,
              help="Only the specs of this folder of specs/ (broadcast, dataproxy, ...; repeat); default: all.")
@click.option("--debug", is_flag=True, help="The compiler's debug mode (each field's offsets recorded).")
@click.argument("out", type=click.Path(file_okay=False))
def compile_command(target, folders, debug, out):
    """Compile the specs with the pinned official Kaitai Struct compiler into OUT (imports of specs/common and
    other folders are resolved, so each spec's dependencies are written too)."""
    if shutil.which("node") is None or not (COMPILER.parent / "node_modules").is_dir():
        raise click.ClickException("needs node and the pinned compiler: run make setup in a clone")
    files = sorted(p for p in (ROOT / "specs").rglob("*.ksy")
                   if not folders or p.relative_to(ROOT / "specs").parts[0] in folders)
    if not files:
        raise click.ClickException(f"no .ksy under specs/{{{','.join(folders)}}}")
    Path(out).mkdir(parents=True, exist_ok=True)
    result = subprocess.run(["node", str(COMPILER), target, str(out), *(["--debug"] if debug else []),
                             *map(str, files)], capture_output=True, text=True)
    if result.returncode != 0:
        raise click.ClickException(f"kaitai-struct-compiler ({target}): {result.stderr.strip()}")
    written = sorted(p.name for p in Path(out).iterdir() if p.is_file())
    click.echo(f"{len(files)} specs -> {len(written)} {target} files in {out}")
