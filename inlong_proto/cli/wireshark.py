"""`inlong-proto wireshark`: the generated Wireshark Lua dissectors (generated/wireshark/), where they are
and how to install them.

The plugin is generated from the specs (tools/generate.py) and ships in the package, as the codecs do:
inlong_proto/generated is the top-level generated/ folder in a clone, and real files in a wheel.

    inlong-proto wireshark path            # the plugin file, for tshark -X lua_script:PATH
    inlong-proto wireshark install         # copy it to the personal Lua plugin folder
    inlong-proto wireshark install --dir D # ... or to D
"""
from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import click

__all__ = ["PLUGIN_DIR", "PLUGIN_NAME", "install", "personal_plugin_dir", "plugin_files", "plugin_path", "wireshark"]

PLUGIN_DIR = Path(__file__).resolve().parents[1] / "generated" / "wireshark"
PLUGIN_NAME = "inlong_proto.lua"
_SHIPPED = ("*.lua", "*.proto")  # what install copies: the plugin and the .proto files it reads, if any


def plugin_path() -> Path:
    """The generated plugin (generated/wireshark/inlong_proto.lua); FileNotFoundError if it is missing."""
    path = PLUGIN_DIR / PLUGIN_NAME
    if not path.is_file():
        raise FileNotFoundError(f"no Wireshark plugin at {path} (run `make generate` in a clone)")
    return path


def plugin_files() -> list[Path]:
    """The plugin and every file it ships with it (.proto files), relative to PLUGIN_DIR, in name order."""
    plugin_path()
    found = {p for pattern in _SHIPPED for p in PLUGIN_DIR.rglob(pattern) if p.is_file()}
    return sorted(p.relative_to(PLUGIN_DIR) for p in found)


def personal_plugin_dir(platform: str | None = None, environ: dict | None = None) -> Path:
    """Wireshark's personal Lua plugin folder (`tshark -G folders`, "Personal Lua Plugins"):
    %APPDATA%\\Wireshark\\plugins on Windows, ~/.local/lib/wireshark/plugins elsewhere (Linux, macOS)."""
    platform = sys.platform if platform is None else platform
    environ = os.environ if environ is None else environ
    if platform.startswith("win"):
        appdata = environ.get("APPDATA")
        if not appdata:
            raise click.ClickException("APPDATA is not set: pass --dir")
        return Path(appdata) / "Wireshark" / "plugins"
    home = environ.get("HOME") or str(Path.home())
    return Path(home) / ".local" / "lib" / "wireshark" / "plugins"


def install(target: Path | None = None) -> list[Path]:
    """Copy the plugin (and its .proto files, keeping their folders) into target, by default the personal
    plugin folder, created if need be; returns the paths written."""
    target = personal_plugin_dir() if target is None else Path(target)
    written = []
    for relative in plugin_files():
        destination = target / relative
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(PLUGIN_DIR / relative, destination)
        written.append(destination)
    return written


@click.group("wireshark")
def wireshark():
    """Wireshark / tshark dissectors for the InLong and EventMesh protocols (generated from the specs)."""


@wireshark.command("path")
def path_command():
    """Print the plugin's path (for `tshark -X lua_script:PATH`)."""
    try:
        click.echo(str(plugin_path()))
    except FileNotFoundError as exc:
        raise click.ClickException(str(exc)) from None


@wireshark.command("install")
@click.option("--dir", "directory", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder to copy the plugin to (default: Wireshark's personal Lua plugin folder).")
def install_command(directory: Path | None):
    """Copy the plugin to Wireshark's personal plugin folder (restart Wireshark to load it)."""
    try:
        written = install(directory)
    except FileNotFoundError as exc:
        raise click.ClickException(str(exc)) from None
    except OSError as exc:
        raise click.ClickException(f"{exc.filename or ''}: {exc.strerror or exc}") from None
    for path in written:
        click.echo(f"installed {path}")
    click.echo(f"Wireshark loads it from {written[0].parent} when it starts (Analyze > Reload Lua Plugins in a "
               f"running one)")
    protos = sorted({str(p.parent) for p in written if p.suffix == ".proto"})
    for folder in protos:
        click.echo(f"for TubeMQ's protobuf messages, add {folder} to Preferences > Protocols > ProtoBuf > "
                   f"Protobuf search paths (tshark: -o 'uat:protobuf_search_paths:\"{folder}\",\"TRUE\"')")
