"""A progress bar on stderr for the commands that read one file through (decode, inspect, capture, tubemq
calls), as `spark parse` has one for Spark's tasks (the same rich Progress on a stderr Console): only when
stderr is a terminal and the file is a regular one of PROGRESS_MIN bytes or more, never for a pipe, stdin
or a followed file. The bar is transient (gone once the file is read). While it runs, what the command
prints on a terminal goes above it (rich redirects stdout there); stdout that is a file or a pipe is left
alone, so the data never mixes with the bar. Writers hold stdout (current_stdout) rather than the stream
object itself, so that they follow the redirection."""
from __future__ import annotations

import os
import stat
import sys
from contextlib import contextmanager
from typing import Callable, Iterable, Iterator

from inlong_proto.core.plain import printable

PROGRESS_MIN = 4 << 20  # bytes: smaller files are read before a bar would be worth drawing


class CurrentStdout:
    """sys.stdout as it is at each call (a progress bar redirects it while it runs)."""

    def __getattr__(self, name):
        return getattr(sys.stdout, name)


current_stdout = CurrentStdout()


def wanted(path: str, follow: bool = False) -> int | None:
    """The file's size when it gets a bar, else None."""
    if follow or path == "-" or not sys.stderr.isatty():
        return None
    try:
        info = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode) or info.st_size < PROGRESS_MIN:
        return None
    return info.st_size


def with_progress(chunks: Iterable[bytes | None], path: str, follow: bool = False) -> Iterator[bytes | None]:
    """chunks as they come, advancing a bar by their bytes when the file gets one (see the module doc)."""
    size = wanted(path, follow)
    if size is None:
        yield from chunks
        return
    with _bar(path, size) as (bar, task):
        for chunk in chunks:
            yield chunk
            if chunk:
                bar.advance(task, len(chunk))


def with_progress_at(items: Iterable, path: str, position: Callable[[object], int]) -> Iterator:
    """items as they come (decode's fast path: Arrow batches), the bar at the furthest position(item) bytes
    of the file yet, when the file gets one."""
    size = wanted(path)
    if size is None:
        yield from items
        return
    with _bar(path, size) as (bar, task):
        furthest = 0
        for item in items:
            yield item
            furthest = max(furthest, min(position(item), size))
            bar.update(task, completed=furthest)


@contextmanager
def _bar(path: str, size: int):
    from rich.console import Console
    from rich.progress import (BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn,
                               TransferSpeedColumn)

    columns = (TextColumn("{task.fields[name]}", markup=False), BarColumn(), DownloadColumn(), TransferSpeedColumn(),
               TimeRemainingColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True,
                  redirect_stdout=sys.stdout.isatty(), redirect_stderr=False) as bar:
        yield bar, bar.add_task("read", total=size, name=printable(os.path.basename(path)))
