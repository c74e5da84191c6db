"""Mutated TubeMQ captures in the real tshark (issue 24, item 21): no Lua error leaks out of the plugin.

4 of 460 mutated TubeMQ captures printed `Lua Error: (null)`. The protobuf dissector's exception on a
damaged RPC message was caught by Dissector.call (under pcall), but pinfo.can_desegment stayed as the
failed call left it, and TCP's PDU loop then failed after the frame with an error Lua could not name.
The plugin now puts it back and marks the refused message with expert info (Error/Malformed).

The captures: the TubeMQ request and response vectors of one connection, 1 to 3 bytes of each stream
changed (past the first frame's header) with a seeded random.Random per connection, all connections in
one pcap, read with the preferences tests/wireshark/test_tshark.py uses.
"""
from __future__ import annotations

import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from inlong_proto.capture.writer import pcap_file
from vectors import talk, valid_frames

TSHARK = shutil.which("tshark")
pytestmark = pytest.mark.skipif(TSHARK is None, reason="tshark is not installed (apt-get install tshark)")
CONNECTIONS = 60  # seeds 0..59: about one in eight made the old plugin fail
REFUSED = "the protobuf dissector refused this"
# Connections 10 ms apart from here (ns): the order of the packets (sorted by time, then bytes) and so what
# tshark's out-of-order reassembly hands the plugin depend on it; these reproduce the failures.
START = 10**18


def mutated(data: bytes, rng: random.Random) -> bytes:
    data = bytearray(data)
    for _ in range(rng.randrange(1, 4)):
        at = rng.randrange(12, len(data))
        data[at] = rng.randrange(256)
    return bytes(data)


def capture(seeds) -> bytes:
    requests = b"".join(valid_frames(["request"])["tubemq"])
    responses = b"".join(valid_frames(["response"])["tubemq"])
    packets = []
    for seed in seeds:
        rng = random.Random(seed)
        packets += talk(mutated(requests, rng), mutated(responses, rng), 8715, client_port=20000 + seed,
                        t0=START + seed * 10**7)
    return pcap_file(sorted(packets))


def tshark_text(tmp_path: Path, data: bytes) -> str:
    """tshark -V of a capture with the plugin (HOME a fresh folder: no personal plugins or preferences)."""
    from inlong_proto.cli.wireshark import plugin_path

    path = tmp_path / "mutated.pcap"
    path.write_bytes(data)
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "TZ": "UTC",
           "LC_ALL": "C.UTF-8"}
    plugin = os.environ.get("INLONG_PROTO_WIRESHARK_PLUGIN") or plugin_path()
    done = subprocess.run([TSHARK, "-X", f"lua_script:{plugin}", "-o", "tcp.reassemble_out_of_order:TRUE",
                           "-r", str(path), "-V"], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-4000:]
    assert "Lua" not in done.stderr, done.stderr[-4000:]
    return done.stdout


def test_mutated_tubemq_captures_give_no_lua_error(tmp_path):
    text = tshark_text(tmp_path, capture(range(CONNECTIONS)))
    errors = [line for line in text.splitlines() if "Lua Error" in line]
    assert not errors, errors[:5]
    assert "TubeMQ" in text


def test_a_message_the_protobuf_dissector_refuses_is_marked_malformed(tmp_path):
    """Seed 1 damages a ResponseHeader (a 32-bit field cut by the message's end): the old plugin's
    `Lua Error: (null)`; now expert info on that message, and the frame's other messages still shown."""
    text = tshark_text(tmp_path, capture([1]))
    assert "Lua Error" not in text
    marks = [line.strip() for line in text.splitlines() if REFUSED in line]
    assert any(line.startswith("[Expert Info (Error/Malformed): tubemq.rpc.message: " + REFUSED + " ResponseHeader")
               for line in marks), marks
    assert "(HeartResponseM2C)" in text  # the messages after the refused one are dissected as before
