"""What every protocol's reference endpoints share: CLI options, logging, recording exact frame bytes."""
from __future__ import annotations

import logging

import click

LOG_LEVELS = ("debug", "info", "warning", "error")

HOST = click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind or connect to.")
LOG_LEVEL = click.option("--log-level", type=click.Choice(LOG_LEVELS, case_sensitive=False), default="info",
                         show_default=True, help="Logging threshold (logs go to stderr).")


def setup_logging(level: str) -> None:
    logging.basicConfig(level=level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")


class RawStream:
    """Received bytes kept until the decoder has placed them, so each frame's exact bytes can be recorded
    (and garbage between frames is not)."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self._base = 0  # stream offset of _buf[0]

    def add(self, data: bytes) -> None:
        self._buf += data

    def take(self, frame) -> bytes:
        """The bytes of `frame` (a Frame from the StreamDecoder fed the same data); earlier ones are dropped."""
        start = frame.offset - self._base
        stop = start + frame.length
        chunk = bytes(self._buf[start:stop])
        del self._buf[:stop]
        self._base += stop
        return chunk
