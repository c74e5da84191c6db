"""What every protocol's reference endpoints share: CLI options, logging, one connection's lifetime and its
defences against hostile peers, recording exact frame bytes.

The three reference servers (broadcast, DataProxy, EventMesh TCP) run every connection through one `Link`,
so they defend themselves the same way, with one implementation:

* a deadline: a connection that makes no progress for `idle_timeout` seconds is closed. Progress is a whole
  frame received, or (while the server waits for the peer to read) the peer reading enough of what it was
  sent for the write buffer to fall back under its low-water mark. Bytes that do not complete a frame are
  not progress, so a peer that trickles one byte per second is closed all the same.
* a cap on unread bytes: a write that would leave more than `max_pending` bytes in the connection's write
  buffer drops the connection instead, whatever the data is (replies, replays, pushes).
* a per-connection log limit: lines a peer causes go through a token bucket (`log_rate` lines per second);
  what is over it is counted and summarised in one line. Every limited line also draws on one bucket of the
  whole process (`LogBudget`, DEFAULT_GLOBAL_LOG_RATE), so many peers (or webhooks) cannot add up to a
  flood either.
"""
from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass

import click

from inlong_proto.core.errors import DecodeError, TruncatedError
from inlong_proto.core.frames import iter_frames
from inlong_proto.core.plain import printable

LOG_LEVELS = ("debug", "info", "warning", "error")

#: Log lines per second per connection (and as many at once) before lines are counted instead.
DEFAULT_LOG_RATE = 10.0
#: Bytes a client may leave unread before it is dropped.
DEFAULT_MAX_PENDING = 1 << 20
#: Log lines per second (and as many at once) of all peers of the process together; see LogBudget.
DEFAULT_GLOBAL_LOG_RATE = 100.0

HOST = click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind or connect to.")
LOG_LEVEL = click.option("--log-level", type=click.Choice(LOG_LEVELS, case_sensitive=False), default="info",
                         show_default=True, help="Logging threshold (logs go to stderr).")


def _zero_is_none(ctx, param, value):
    return value or None


def idle_timeout_option(default: float):
    """The servers' `--idle-timeout` (each has its own default; 0 turns the deadline off)."""
    return click.option("--idle-timeout", type=click.FloatRange(min=0), default=default, show_default=True,
                        callback=_zero_is_none,
                        help="Close a connection after this many seconds without progress: a whole frame "
                             "received, or the client reading a backlog of replies (bytes of an unfinished "
                             "frame do not count). 0: never.")


LOG_RATE = click.option("--log-rate", type=click.FloatRange(min=0), default=DEFAULT_LOG_RATE, show_default=True,
                        callback=_zero_is_none,
                        help="Log lines per second per connection (and as many at once); further lines are "
                             "counted and reported as one 'suppressed N log line(s)' line. 0: no limit.")


def strict_option(protocol: str):
    """`--strict FILE`: the peer checks what the other side sends against specs/<protocol>/conformance.yaml
    (core.conformance) and reports each finding; the command opens the report with strict_report."""
    return click.option("--strict", "strict", type=click.Path(dir_okay=False), default=None,
                        help=f"Check every frame the other side sends against the rules of "
                             f"specs/{protocol}/conformance.yaml: one JSON line per finding (rule, peer, offset, "
                             f"length, expected, got, spec) appended to this file as it happens, and a summary "
                             f"table on stderr at exit (Ctrl-C or kill for a server). Answers stay upstream's.")


@contextlib.contextmanager
def strict_report(protocol: str, path: str | None):
    """The Report a --strict command passes to its peer (None without --strict), summarised at exit."""
    from inlong_proto.core.conformance import Report

    if path is None:
        yield None
        return
    with open(path, "a", encoding="utf-8") as out:
        report = Report(protocol, out)
        try:
            yield report
        finally:
            report.summary()


def run_until_stopped(main: Awaitable[None], log: logging.Logger) -> None:
    """Run a server's coroutine until Ctrl-C or SIGTERM (`kill`), either of which stops it cleanly, so that its
    recordings and its --strict report and summary are written however it is stopped. SIGINT is handled even
    where the shell started the server with it ignored (`... &` in a script, where `kill -INT` would not
    reach Python's own handler)."""

    async def until_signal() -> None:
        loop, task = asyncio.get_running_loop(), asyncio.current_task()
        for signum in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):  # not a Unix main thread
                loop.add_signal_handler(signum, task.cancel)
        try:
            await main
        except asyncio.CancelledError:
            log.info("interrupted, exiting")

    try:
        asyncio.run(until_signal())
    except KeyboardInterrupt:
        log.info("interrupted, exiting")


class _PrintableFormatter(logging.Formatter):
    """Log lines carry peers' text (topics, urls, their errors): escaped as inspect escapes frame content, so a
    peer can neither drive the terminal nor forge a line. A traceback (our own code's) is appended as is."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        return printable(super().formatMessage(record))


def setup_logging(level: str) -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(_PrintableFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=level.upper(), handlers=[handler])


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

    def unframeable(self, protocol: str, direction: str, max_frame_size: int) -> tuple[int, DecodeError] | None:
        """(the stream offset of the bytes held, why they cannot begin a frame: a bad start, a length over the
        limit), or None while they may still become one. A PERMISSIVE decoder holds such bytes until a valid
        frame follows them; a peer that sends nothing after them would wait out the idle deadline, where the
        real server's decoder gives up on the connection at once."""
        if not self._buf:
            return None
        try:
            next(iter_frames(bytes(self._buf), protocol, direction, "FAILFAST", max_frame_size=max_frame_size), None)
        except DecodeError as exc:
            cause: BaseException | None = exc
            while cause is not None:  # the decoder's frames would keep the copy alive in a cycle until a gc
                traceback.clear_frames(cause.__traceback__)
                cause = cause.__context__
            return None if isinstance(exc, TruncatedError) else (self._base, exc.shifted(self._base))
        return None


class _TokenBucket:
    """rate tokens a second, at most burst held (the subclass sets rate, burst, clock, _tokens and _stamp): the
    pacing a peer's log limit and the process's share."""

    def _take(self) -> bool:
        now = self.clock()
        self._tokens = min(self.burst, self._tokens + (now - self._stamp) * self.rate)
        self._stamp = now
        if self._tokens < 1:
            return False
        self._tokens -= 1
        return True


class LogBudget(_TokenBucket):
    """One token bucket shared by many PeerLogs (by default every one of the process: LOG_BUDGET).

    A peer's own limit bounds what one peer writes; this bounds what all of them write together, so 17,000
    webhooks or 400 connections cannot each write their own burst. Lines (and per-peer summaries) it refuses
    are counted by their PeerLog as suppressed too; summaries it refuses are folded into one line of its own,
    "suppressed N log line(s) over the global limit", written before the next line it lets through and by
    flush().
    """

    def __init__(self, rate: float = DEFAULT_GLOBAL_LOG_RATE, burst: float | None = None,
                 clock: Callable[[], float] = time.monotonic):
        if rate <= 0:
            raise ValueError(f"rate must be positive, not {rate!r}")
        self.rate, self.clock = rate, clock
        self.burst = burst if burst is not None else float(max(1, math.ceil(rate)))
        self._tokens = self.burst
        self._stamp = clock()
        self.held = 0  # suppressed lines whose summaries this budget has not written yet
        self.total_suppressed = 0  # lines refused here (not those a peer's own limit refused)
        self._level = logging.NOTSET
        self._logger: logging.Logger | None = None

    def take(self) -> bool:
        return self._take()

    def hold(self, logger: logging.Logger, count: int, level: int) -> None:
        """A peer's summary of `count` lines that could not be written now."""
        self.held += count
        self._level = max(self._level, level)
        self._logger = logger

    def flush(self) -> None:
        """Write the summary of the held lines, if any."""
        if self.held and self._logger is not None:
            self._logger.log(self._level, "suppressed %d log line(s) over the global limit of %g per second",
                             self.held, self.rate)
        self.held, self._level = 0, logging.NOTSET


#: The process-wide budget PeerLogs draw on unless given another.
LOG_BUDGET = LogBudget()


class PeerLog(_TokenBucket):
    """The log lines about one peer, through a token bucket: `rate` lines per second, `burst` at once.

    A peer chooses how many frames it sends, so without a limit it chooses how big the logs grow. Lines over
    the limit are counted, and one line "suppressed N log line(s)" (at the highest level suppressed) is written
    before the next line that is let through, and when the connection ends (flush). Lines below the logger's
    level cost no token. A line let through by the peer's bucket also needs a token of `budget` (the whole
    process's LogBudget unless told), and so does a summary. rate None: no limit at all.
    """

    def __init__(self, logger: logging.Logger, peer: str, rate: float | None = DEFAULT_LOG_RATE,
                 burst: float | None = None, clock: Callable[[], float] = time.monotonic,
                 budget: LogBudget | None = None):
        if rate is not None and rate <= 0:
            raise ValueError(f"rate must be positive or None, not {rate!r}")
        self.logger, self.peer, self.rate, self.clock = logger, peer, rate, clock
        self.budget = budget if budget is not None else LOG_BUDGET
        self.burst = burst if burst is not None else float(max(1, math.ceil(rate or 1)))
        self._tokens = self.burst
        self._stamp = clock()
        self.suppressed = 0  # lines suppressed since the last summary
        self.total_suppressed = 0
        self._suppressed_level = logging.NOTSET

    def log(self, level: int, msg: str, *args, exc_info=None) -> None:
        if not self.logger.isEnabledFor(level):
            return
        if self.rate is not None and not (self._take() and self._take_global()):
            self.suppressed += 1
            self.total_suppressed += 1
            self._suppressed_level = max(self._suppressed_level, level)
            return
        self._emit(level, msg, args, exc_info)

    def always(self, level: int, msg: str, *args, exc_info=None) -> None:
        """A line a connection writes a bounded number of times (connected, why it is closed, disconnected):
        never suppressed, so the log always says how a connection ended."""
        if self.logger.isEnabledFor(level):
            self._emit(level, msg, args, exc_info)

    def debug(self, msg: str, *args) -> None:
        self.log(logging.DEBUG, msg, *args)

    def info(self, msg: str, *args) -> None:
        self.log(logging.INFO, msg, *args)

    def warning(self, msg: str, *args) -> None:
        self.log(logging.WARNING, msg, *args)

    def error(self, msg: str, *args) -> None:
        self.log(logging.ERROR, msg, *args)

    def flush(self) -> None:
        """Write the summary of the lines suppressed since the last one, if any (or hand it to the budget when
        that has no token left)."""
        if self.suppressed:
            if self.rate is None or self.budget.take():
                self.logger.log(self._suppressed_level, "%s: suppressed %d log line(s)", self.peer,
                                self.suppressed)
            else:
                self.budget.hold(self.logger, self.suppressed, self._suppressed_level)
            self.suppressed, self._suppressed_level = 0, logging.NOTSET


    def _take_global(self) -> bool:
        if self.budget.take():
            return True
        self.budget.total_suppressed += 1
        return False

    def _emit(self, level: int, msg: str, args: tuple, exc_info) -> None:
        self.budget.flush()
        self.flush()
        self.logger.log(level, "%s: " + msg, self.peer, *args, exc_info=exc_info)


def peer_name(writer: asyncio.StreamWriter) -> str:
    """A connection's peer as "ip:port" (what Link.name and the logs call it; "?" when unknown)."""
    peername = writer.get_extra_info("peername")
    return f"{peername[0]}:{peername[1]}" if peername else "?"


@dataclass
class LinkStats:
    """What the defences did, over all of a server's connections (tests and summaries read it)."""

    closed_idle: int = 0  # connections closed by the deadline
    dropped_unread: int = 0  # connections dropped for leaving more than max_pending bytes unread
    peak_unread: int = 0  # the largest write buffer any connection had after a write, in bytes
    suppressed_lines: int = 0  # log lines the per-connection limit suppressed

    def to_dict(self) -> dict:
        return {"closed_idle": self.closed_idle, "dropped_unread": self.dropped_unread,
                "peak_unread": self.peak_unread, "suppressed_lines": self.suppressed_lines}


class Link:
    """One server connection's I/O policy: the deadline, the cap on unread bytes and the rate-limited log.

    name is the peer's "ip:port". The deadline runs only inside `connection_scope`; see the module doc for
    what counts as progress. A server whose client may legitimately stay silent (a live broadcast client
    only reads) calls `rest()` to suspend the deadline and `expect()` when bytes of a frame arrive again.
    """

    def __init__(self, writer: asyncio.StreamWriter, logger: logging.Logger, *, idle_timeout: float | None = None,
                 max_pending: int | None = DEFAULT_MAX_PENDING, log_rate: float | None = DEFAULT_LOG_RATE,
                 stats: LinkStats | None = None, log_budget: LogBudget | None = None):
        if idle_timeout is not None and idle_timeout <= 0:
            raise ValueError(f"idle_timeout must be positive or None, not {idle_timeout!r}")
        self.name = peer_name(writer)
        self.writer = writer
        self.log = PeerLog(logger, self.name, log_rate, budget=log_budget)
        self.idle_timeout, self.max_pending = idle_timeout, max_pending
        self.stats = stats if stats is not None else LinkStats()
        self.dropped = False
        self.expired = False  # closed by the deadline (a strict peer reports what the peer failed to send)
        self._timer: asyncio.Timeout | None = None
        if max_pending is not None:  # drain() must pause writers well before the cap drops the client
            transport = writer.transport
            high = transport.get_write_buffer_limits()[1]
            if high > max_pending // 2:
                transport.set_write_buffer_limits(high=max_pending // 2)

    @property
    def closing(self) -> bool:
        return self.dropped or self.writer.is_closing()

    @property
    def unread(self) -> int:
        """Bytes written but not yet taken by the kernel: what this connection costs the server's memory."""
        return self.writer.transport.get_write_buffer_size()

    @property
    def room(self) -> int | None:
        """Bytes that may be written now without crossing max_pending (None: no limit)."""
        return None if self.max_pending is None else max(0, self.max_pending - self.unread)

    # -- the deadline --------------------------------------------------------------------------

    def progress(self) -> None:
        """The peer completed a frame or read a backlog: it has idle_timeout seconds for the next progress."""
        if self._timer is not None and self.idle_timeout is not None:
            self._timer.reschedule(asyncio.get_running_loop().time() + self.idle_timeout)

    def rest(self) -> None:
        """The peer may stay silent as long as it likes (until expect())."""
        if self._timer is not None:
            self._timer.reschedule(None)

    def expect(self) -> None:
        """Bytes of an unfinished frame arrived: start the deadline unless it is already running."""
        if self._timer is not None and self._timer.when() is None:
            self.progress()

    # -- writing -------------------------------------------------------------------------------

    def write(self, data: bytes) -> bool:
        """Queue bytes, never blocking; a write that would leave over max_pending bytes unread drops the
        connection instead (False), so a client that does not read costs at most that much memory."""
        if self.closing:
            return False
        pending = self.unread
        if self.max_pending is not None and pending + len(data) > self.max_pending:
            self.drop(f"{pending} bytes unread and {len(data)} more to send, over {self.max_pending}")
            return False
        self.writer.write(data)
        self.stats.peak_unread = max(self.stats.peak_unread, self.unread)
        return True

    def drop(self, reason: str) -> None:
        """Abort the connection at once (nothing more is flushed to a peer that does not read)."""
        if self.dropped:
            return
        self.dropped = True
        self.stats.dropped_unread += 1
        self.log.always(logging.WARNING, "%s: dropping the client", reason)
        self.writer.transport.abort()

    async def drain(self) -> None:
        """Wait until the peer has read the backlog down to the low-water mark; a wait that ends is progress.
        Under the deadline, so a peer that stops reading is closed rather than waited for."""
        transport = self.writer.transport
        blocked = transport.get_write_buffer_size() > transport.get_write_buffer_limits()[1]
        await self.writer.drain()
        if blocked:
            self.progress()


@contextlib.asynccontextmanager
async def connection_scope(handlers: set, link: Link, close: Callable[[], None] | None = None):
    """One server connection: its handler task is tracked (so stop() can wait for it), the link's deadline
    runs over the whole conversation, a vanished peer is logged and any bug is confined to this connection,
    and the connection is always closed at the end."""
    task = asyncio.current_task()
    if task is not None:
        handlers.add(task)
    log = link.log
    log.always(logging.INFO, "connected")
    timer: asyncio.Timeout | None = None
    try:
        async with asyncio.timeout(None) as timer:
            link._timer = timer
            link.progress()
            yield link
    except TimeoutError as exc:  # before OSError, which it is
        if timer is not None and timer.expired():
            link.expired = True
            link.stats.closed_idle += 1
            log.always(logging.WARNING, "idle: no progress (a whole frame, or reading what was sent) for %gs, "
                       "closing the connection", link.idle_timeout)
            if link.unread:  # what it did not read will not be read: do not wait to flush it
                link.writer.transport.abort()
        else:
            log.always(logging.INFO, "connection lost: %s", exc)
    except OSError as exc:  # reset by the peer and the like: the client went away
        log.always(logging.INFO, "connection lost: %s", exc)
    except Exception:  # confine any bug to this one connection
        log.always(logging.ERROR, "unexpected error, closing the connection", exc_info=True)
    finally:
        link._timer = None
        try:
            (close or link.writer.close)()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(link.writer.wait_closed(), 1.0)
            log.flush()
            link.stats.suppressed_lines += log.total_suppressed
            log.always(logging.INFO, "disconnected")
        finally:
            if task is not None:  # only now: stop() waits for the handler until it has closed
                handlers.discard(task)


async def finish_handlers(handlers: set, links: Callable[[], Iterable[Link]], timeout: float = 2.0) -> None:
    """Wait for the connection handlers once their connections have been closed (a server's stop()).

    A close waits until unread data is flushed, which a client that does not read never allows: after
    `timeout` seconds the connections still open (`links()`) are aborted, and only handlers that still do
    not end are cancelled (the last resort: asyncio 3.11 logs a spurious error for a cancelled handler).
    """
    pending = set(handlers)
    if pending:
        _, pending = await asyncio.wait(pending, timeout=timeout)
    if pending:
        for link in list(links()):
            link.writer.transport.abort()
        _, pending = await asyncio.wait(pending, timeout=1.0)
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)


def host_port(value: str) -> tuple[str, int]:
    """A HOST:PORT option value (an IPv6 host in brackets), for the commands' --master, --broker, --client."""
    host, _, port = value.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise click.BadParameter(f"{value!r} is not HOST:PORT")
    return host.strip("[]"), int(port)


class ListeningServer:
    """The lifecycle every reference server shares: bind on start() (recording files opened first),
    address and port, serve_forever() until stop() or cancellation, stop() closing every connection and
    waiting for its handler, `async with`.

    A subclass calls _init_listening(host, port, records, logger) in its __init__ and provides
    _handle(reader, writer) and _open_links() (the Links of its open connections); it may extend _started()
    (after binding: start timers, log), _stopping() (before connections close: cancel timers, say
    goodbye) and _stopped_log(). Recording files are in self._files by name ("received", "sent", ...).
    """

    def _init_listening(self, host: str, port: int, records: dict, logger: logging.Logger) -> None:
        self.host, self.requested_port = host, port
        self._record_paths = records  # name -> path or None
        self._log = logger
        self._files: dict = {}
        self._server: asyncio.Server | None = None
        self._handlers: set[asyncio.Task[None]] = set()
        self._stopped = asyncio.Event()

    @property
    def address(self) -> tuple[str, int]:
        """(host, port) actually bound; the port is the real one when 0 was asked for."""
        if self._server is None or not self._server.sockets:
            raise RuntimeError("the server is not started")
        host, port = self._server.sockets[0].getsockname()[:2]
        return host, port

    @property
    def port(self) -> int:
        return self.address[1]

    async def start(self) -> None:
        """Bind; returns once the port is open."""
        if self._server is not None:
            raise RuntimeError("the server is already started")
        self._stopped.clear()
        try:
            for name, path in self._record_paths.items():
                if path is not None:
                    self._files[name] = open(path, "ab")
            self._server = await asyncio.start_server(self._handle, self.host, self.requested_port)
        except BaseException:
            self._close_files()
            raise
        await self._started()

    async def _started(self) -> None:
        self._log.info("listening on %s:%d", *self.address)

    async def serve_forever(self) -> None:
        """Start if needed and wait until stop() or cancellation (Ctrl-C), stopping cleanly either way."""
        if self._server is None:
            await self.start()
        try:
            await self._stopped.wait()
        finally:
            if self._server is not None:
                await self.stop()

    async def stop(self) -> None:
        """Stop accepting, close every connection, wait for their handlers, close the recordings."""
        server, self._server = self._server, None
        if server is not None:
            server.close()
        await self._stopping()
        for link in list(self._open_links()):
            link.writer.close()
        # Closed connections end their handlers at EOF; finish_handlers deals with those that do not.
        await finish_handlers(self._handlers, lambda: list(self._open_links()))
        if server is not None:
            await server.wait_closed()
        self._close_files()
        LOG_BUDGET.flush()
        self._stopped.set()
        self._stopped_log()

    async def _stopping(self) -> None:
        pass

    def _stopped_log(self) -> None:
        self._log.info("stopped")

    def _open_links(self) -> Iterable[Link]:
        raise NotImplementedError

    def _close_files(self) -> None:
        for handle in self._files.values():
            handle.close()
        self._files.clear()

    async def __aenter__(self):
        await self.start()
        return self

    async def __aexit__(self, *exc_info) -> None:
        if self._server is not None:
            await self.stop()


class StdinLines:
    """Lines of stdin as an async iterator, read by a daemon thread so the event loop never blocks
    (replies keep being read while stdin is quiet, and Ctrl-C ends the command at once)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, limit: int = 1024):
        self.loop = loop
        self.queue: asyncio.Queue[bytes | None] = asyncio.Queue(limit)
        threading.Thread(target=self._read, name="stdin-lines", daemon=True).start()

    def _lines(self):
        """stdin's lines, read from the file descriptor: a thread blocked in sys.stdin.buffer would hold
        its lock and abort the interpreter's shutdown on Ctrl-C."""
        fd, pending = sys.stdin.fileno(), b""
        while chunk := os.read(fd, 65536):
            *lines, pending = (pending + chunk).split(b"\n")
            yield from lines
        if pending:
            yield pending

    def _read(self) -> None:
        try:
            for line in self._lines():
                line = line.rstrip(b"\r")
                if line:  # an empty record would be an empty item or an empty body
                    asyncio.run_coroutine_threadsafe(self.queue.put(line), self.loop).result()
        except Exception as exc:  # a closed loop (the command is ending) or an unreadable stdin
            logging.getLogger(__name__).debug("stdin reader stops: %s", exc)
        finally:
            with contextlib.suppress(RuntimeError):  # the loop is already closed
                asyncio.run_coroutine_threadsafe(self.queue.put(None), self.loop)

    def ready(self) -> int:
        return self.queue.qsize()

    def __aiter__(self) -> "StdinLines":
        return self

    async def __anext__(self) -> bytes:
        line = await self.queue.get()
        if line is None:
            self.queue.put_nowait(None)  # stay at the end
            raise StopAsyncIteration
        return line
