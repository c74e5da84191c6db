"""What every protocol's reference endpoints share: CLI options, logging, one connection's lifetime,
recording exact frame bytes."""
from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

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


@contextlib.asynccontextmanager
async def connection_scope(handlers: set, peer: str, writer: asyncio.StreamWriter, log: logging.Logger,
                           close: Callable[[], None] | None = None):
    """One server connection: its handler task is tracked (so stop() can wait for it), a vanished peer is
    logged and any bug is confined to this connection, and the connection is always closed at the end."""
    task = asyncio.current_task()
    if task is not None:
        handlers.add(task)
    log.info("%s: connected", peer)
    try:
        yield
    except OSError as exc:  # reset by the peer and the like: the client went away
        log.info("%s: connection lost: %s", peer, exc)
    except Exception:  # confine any bug to this one connection
        log.exception("%s: unexpected error, closing the connection", peer)
    finally:
        if task is not None:
            handlers.discard(task)
        (close or writer.close)()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(writer.wait_closed(), 1.0)
