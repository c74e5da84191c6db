"""Click options and logging shared by every protocol's reference-endpoint commands."""
from __future__ import annotations

import logging

import click

LOG_LEVELS = ("debug", "info", "warning", "error")

HOST = click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind or connect to.")
LOG_LEVEL = click.option("--log-level", type=click.Choice(LOG_LEVELS, case_sensitive=False), default="info",
                         show_default=True, help="Logging threshold (logs go to stderr).")


def setup_logging(level: str) -> None:
    logging.basicConfig(level=level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")
