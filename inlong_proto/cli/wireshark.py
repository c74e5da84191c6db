"""`inlong-proto wireshark`: the generated Wireshark Lua dissectors (generated/wireshark/), where they are
and how to install them.

The plugin is generated from the specs (tools/generate.py) and ships in the package, as the codecs do:
inlong_proto/generated is the top-level generated/ folder in a clone, and real files in a wheel.

    inlong-proto wireshark path            # the plugin file, for tshark -X lua_script:PATH
    inlong-proto wireshark install         # copy it to the personal Lua plugin folder, and set the
                                           # TCP preferences it needs in the personal profile
    inlong-proto wireshark install --dir D # ... or to D
    inlong-proto wireshark install --no-preferences   # the plugin only

The plugin finds every frame only when Wireshark's TCP dissector hands it the streams in order: out-of-order
segments (reordering, retransmissions) are reassembled only with `tcp.reassemble_out_of_order`, off by
default in Wireshark 4.0, and only while subdissectors may ask for reassembly at all. A server on a port
Wireshark gives to another protocol (irc on 57000, enip on 44818, ...: ephemeral ports a test or a relay may
get) is found only when the heuristics run before the port table (`tcp.try_heuristic_first`). `install` writes
those settings (TCP_PREFERENCES) into the profile's `preferences` file, editing or adding just those lines.
"""
from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

import click

__all__ = ["PLUGIN_DIR", "PLUGIN_NAME", "TCP_PREFERENCES", "install", "install_preferences", "personal_config_dir",
           "personal_plugin_dir", "plugin_files", "plugin_path", "preferences_path", "set_preferences", "wireshark"]

PLUGIN_DIR = Path(__file__).resolve().parents[1] / "generated" / "wireshark"
PLUGIN_NAME = "inlong_proto.lua"
_SHIPPED = ("*.lua", "*.proto")  # what install copies: the plugin and the .proto files it reads, if any

# Wireshark's TCP preferences the plugin relies on (name -> value as the preferences file spells it), each
# with why. Wireshark 4.0's defaults are those of `tshark -G defaultprefs`; reassemble_out_of_order and
# try_heuristic_first differ from their defaults, the others are written so that a profile that turned them off works again.
TCP_PREFERENCES = {
    "tcp.desegment_tcp_streams": ("TRUE", "frames cut across segments are joined (dissect_tcp_pdus asks for it)"),
    "tcp.reassemble_out_of_order": ("TRUE", "reordered and retransmitted segments are put back in order before "
                                            "the plugin sees them (off by default: frames after a reordering "
                                            "are lost)"),
    "tcp.analyze_sequence_numbers": ("TRUE", "out-of-order reassembly needs the sequence analysis"),
    "tcp.check_checksum": ("FALSE", "a bad checksum (offloaded on loopback captures) would stop reassembly"),
    "tcp.try_heuristic_first": ("TRUE", "a flow on a port Wireshark gives to another protocol (irc 57000, enip "
                                        "44818, ...) is still found by the plugin's heuristics (off by default: "
                                        "that dissector takes it; the plugin's checks are strict enough to go first)"),
}
_PREFERENCES_NOTE = "# inlong-proto wireshark install: TCP settings its dissectors need (docs/how-to/wireshark.md)"


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


def personal_config_dir(platform: str | None = None, environ: dict | None = None) -> Path:
    """Wireshark's personal configuration folder (`tshark -G folders`, "Personal configuration"), which
    holds the default profile's `preferences`: $WIRESHARK_CONFIG_DIR if set, else %APPDATA%\\Wireshark on
    Windows, else $XDG_CONFIG_HOME/wireshark (~/.config/wireshark), or ~/.wireshark where only that legacy
    folder exists."""
    platform = sys.platform if platform is None else platform
    environ = os.environ if environ is None else environ
    if environ.get("WIRESHARK_CONFIG_DIR"):
        return Path(environ["WIRESHARK_CONFIG_DIR"])
    if platform.startswith("win"):
        appdata = environ.get("APPDATA")
        if not appdata:
            raise click.ClickException("APPDATA is not set: set WIRESHARK_CONFIG_DIR or pass --no-preferences")
        return Path(appdata) / "Wireshark"
    home = Path(environ.get("HOME") or str(Path.home()))
    xdg = Path(environ["XDG_CONFIG_HOME"]) if environ.get("XDG_CONFIG_HOME") else home / ".config"
    modern, legacy = xdg / "wireshark", home / ".wireshark"
    return legacy if legacy.is_dir() and not modern.exists() else modern


def preferences_path(profile: str | None = None, platform: str | None = None, environ: dict | None = None) -> Path:
    """The `preferences` file of a profile (the default one when profile is None)."""
    folder = personal_config_dir(platform, environ)
    return folder / "preferences" if not profile else folder / "profiles" / profile / "preferences"


def set_preferences(text: str, wanted: dict[str, str]) -> str:
    """The preferences file `text` with each `name: value` of wanted set: an active line of that name is
    rewritten in place (its continuation lines dropped), a missing one is added at the end under a comment;
    every other line (comments, other settings, a commented-out default) is kept as it was."""
    lines = text.splitlines()
    out, done, skipping = [], set(), False
    for line in lines:
        if skipping and line[:1] in (" ", "\t"):  # a continuation of a value being replaced
            continue
        skipping = False
        match = re.match(r"([A-Za-z0-9_.\-]+)\s*:", line)
        if match and match.group(1) in wanted:
            name = match.group(1)
            if name not in done:
                out.append(f"{name}: {wanted[name]}")
                done.add(name)
            skipping = True
            continue
        out.append(line)
    missing = [name for name in wanted if name not in done]
    if missing:
        if out and out[-1].strip():
            out.append("")
        if _PREFERENCES_NOTE not in out:
            out.append(_PREFERENCES_NOTE)
        out += [f"{name}: {wanted[name]}" for name in missing]
    return "\n".join(out) + "\n"


def install_preferences(path: Path | None = None) -> tuple[Path, list[str]]:
    """Set TCP_PREFERENCES in a Wireshark preferences file (the default profile's when path is None),
    created with its folders if need be; returns the file and the settings it changed or added."""
    path = preferences_path() if path is None else Path(path)
    before = path.read_text(encoding="utf-8", errors="surrogateescape") if path.is_file() else ""
    wanted = {name: value for name, (value, _) in TCP_PREFERENCES.items()}
    after = set_preferences(before, wanted)

    def value_before(name: str) -> str:  # Wireshark takes a name's last line
        return ([""] + re.findall(rf"^{re.escape(name)}:\s*(\S*)\s*$", before, re.M))[-1].upper()

    changed = [f"{name}: {value}" for name, value in wanted.items() if value_before(name) != value.upper()]
    if after != before:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(after, encoding="utf-8", errors="surrogateescape")
    return path, changed


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
@click.option("--preferences/--no-preferences", "preferences", default=True, show_default=True,
              help="Also set the TCP preferences the plugin needs (out-of-order reassembly) in the profile's "
                   "preferences file, keeping the rest of it.")
@click.option("--profile", default=None, metavar="NAME",
              help="The Wireshark configuration profile whose preferences to set (default: the default profile).")
def install_command(directory: Path | None, preferences: bool, profile: str | None):
    """Copy the plugin to Wireshark's personal plugin folder (restart Wireshark to load it) and set the TCP
    preferences it needs in the personal profile ($WIRESHARK_CONFIG_DIR or ~/.config/wireshark)."""
    try:
        written = install(directory)
        prefs = install_preferences(preferences_path(profile)) if preferences else None
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
    if prefs is not None:
        path, changed = prefs
        click.echo(f"preferences {path}: " + (", ".join(changed) if changed else "already set") +
                   " (reassembly of reordered TCP segments; --no-preferences skips this)")
