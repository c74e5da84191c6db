"""Option types every command shares, so that one option reads the same wherever it appears."""
from __future__ import annotations

import re

import click

from inlong_proto.core import frames


class FrameSize(click.ParamType):
    """A frame size in bytes, with k and m suffixes (binary: 256k, 4m), between ``minimum`` and
    frames.MAX_FRAME_SIZE_CEILING (64 MiB): the readers' --max-frame-size and the reference servers' take the
    same values."""

    name = "bytes"

    def __init__(self, minimum: int = 1):
        self.minimum = minimum

    def convert(self, value, param, ctx) -> int:
        if isinstance(value, int):
            size = value
        else:
            match = re.fullmatch(r"\s*(\d+)\s*([km]?)i?b?\s*", str(value).lower())
            if not match:
                self.fail(f"{value!r} is not a number of bytes (k and m suffixes: 256k, 4m)", param, ctx)
            size = int(match[1]) << (10 * " km".index(match[2] or " "))
        try:
            frames.check_max_frame_size(size)
        except ValueError as exc:
            self.fail(str(exc), param, ctx)
        if size < self.minimum:
            self.fail(f"{size} bytes is less than the smallest frame, {self.minimum} bytes", param, ctx)
        return size


def frame_size_option(default: int | None, help: str, minimum: int = 1):
    """--max-frame-size; default None: each protocol's spec limit."""
    return click.option("--max-frame-size", type=FrameSize(minimum), default=default, metavar="BYTES",
                        show_default=default is not None, help=help)
