"""Write docs/wireshark-dataproxy.txt: tshark's detail view of one DataProxy message, decoded by the
generated Lua plugin, from the test capture tests/vectors/capture/dataproxy_lo.pcap. The README shows it
as a "screenshot"; tests/wireshark/test_tshark.py checks that both copies are what tshark prints now.

    .venv/bin/python tools/wireshark_screenshot.py [--check]

tshark runs with HOME in an empty folder (no personal plugins or preferences) and TZ=UTC, so the text
depends only on the plugin, the capture and tshark's version (CI's Debian tshark).
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

CAPTURE = ROOT / "tests" / "vectors" / "capture" / "dataproxy_lo.pcap"
OUTPUT = ROOT / "docs" / "wireshark-dataproxy.txt"
PACKET_FILTER = "dataproxy"  # the first packet that holds a DataProxy message


def screenshot(plugin: Path | None = None, *, env: dict | None = None, capture: Path = CAPTURE) -> str:
    """tshark -O dataproxy (DataProxy's tree expanded, the layers below it one line each) of the first
    packet of `capture` holding a DataProxy message."""
    from inlong_proto.cli.wireshark import plugin_path

    plugin = plugin or plugin_path()
    tshark = shutil.which("tshark")
    if tshark is None:
        raise SystemExit("tshark is not installed (apt-get install tshark)")
    with tempfile.TemporaryDirectory() as home:
        env = env or {**os.environ, "HOME": home, "XDG_CONFIG_HOME": f"{home}/.config", "TZ": "UTC",
                      "LC_ALL": "C.UTF-8"}
        done = subprocess.run([tshark, "-X", f"lua_script:{plugin}", "-r", str(capture), "-Y", PACKET_FILTER,
                               "-O", "dataproxy"], env=env, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"tshark: exit {done.returncode}: {done.stderr}")
    first = done.stdout.split("\n\n")[0].rstrip("\n")
    shown = capture.relative_to(ROOT) if capture.is_relative_to(ROOT) else capture.name  # a path a clone has
    return f"$ tshark -X lua_script:$(inlong-proto wireshark path) -r {shown} -Y {PACKET_FILTER} -O dataproxy\n" \
           f"{first}\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="fail if the file is not current, write nothing")
    args = parser.parse_args()
    text = screenshot()
    if args.check:
        if not OUTPUT.exists() or OUTPUT.read_text() != text:
            sys.exit(f"{OUTPUT.relative_to(ROOT)} is stale: run tools/wireshark_screenshot.py")
        return
    OUTPUT.write_text(text)
    print(f"wrote {OUTPUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
