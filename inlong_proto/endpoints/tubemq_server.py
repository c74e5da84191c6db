"""What the TubeMQ reference master and broker share: the RPC answering rules and the asyncio adapter.

A service (the master's or the broker's state, sans-IO) names the methods it implements and turns a
request's business message into a response message, or raises `Refusal` for an exception answer.
`answer` adds the rules of the real RPC layer around it (apache/inlong NettyRpcServer, RpcProtocol):

* a method id without a message mapping (11, 12, 14, 19, or unknown) gets the FATAL "Unsupported method
  ID" answer; a known method this endpoint does not serve gets an ERROR answer naming it, as the real
  server does for a method sent to the wrong service type;
* a request without a positive RequestBody.timeout gets no answer (quirk Q-T6: the real server skips a
  request older than its timeout, which with 0 is every request);
* an exception class name is rewritten for the request's protocol version (com.apache.tubemq.* for 2).

`RpcServer` is the thin asyncio adapter: it cuts requests with the runtime's StreamDecoder, records
them, writes answers, and runs every connection through `endpoints.Link` (idle deadline, cap on unread
answers, rate-limited log), like the other reference servers. A whole frame whose RPC envelope or
business message does not parse gets the real server's FATAL answer and the connection goes on; any other
frame that does not decode closes the connection, as the real server's decoder does with a bad token or
list size.

With a conformance report (strict=, core.conformance) the server also reports each rule of
specs/tubemq/conformance.yaml a client breaks: the frame rules and the serial discipline here, the
envelope rules in `answer`, the business rules where the service notes them (RuleNotes); its answers stay
the same.
"""
from __future__ import annotations

import asyncio
import logging
import os
from collections import Counter
from dataclasses import dataclass, field
from typing import Protocol

from inlong_proto.core.conformance import Report
from inlong_proto.endpoints.common import (DEFAULT_LOG_RATE, DEFAULT_MAX_PENDING, Link, LinkStats, ListeningServer,
                                           RawStream, connection_scope)
from inlong_proto.core.errors import DecodeError
from inlong_proto.core.frames import StreamDecoder, encode
from inlong_proto.tubemq.rpc import (SERVICE_TYPES, RpcMessage, exception_class, exception_frame, frame_serial,
                                     response_frame, unreadable_request_frame, unsupported_method_frame)

PROTOCOL = "tubemq"
READ_SIZE = 65536
#: Largest request frame accepted: room for a message of the default maximum size (1 MiB) twice over.
#: The real server accepts up to 3584 blocks (about 28 MiB); raise it with max_frame_size to match.
DEFAULT_MAX_FRAME_SIZE = 2 * 1024 * 1024
#: Seconds without a whole frame before a connection is closed. Java clients heartbeat the master every
#: 10 s or so and fetch from the broker continuously; the real server's own default is 180 s of read idle.
DEFAULT_IDLE_TIMEOUT = 180.0
_SERVICE_NAMES = {value: name for name, value in SERVICE_TYPES.items()}


class Refusal(Exception):
    """An answer with an exception (ERROR status): a Java class name and its message."""

    def __init__(self, class_name: str, message: str):
        super().__init__(f"{class_name}: {message}")
        self.class_name, self.message = class_name, message


class RuleNotes:
    """What a sans-IO service notes while it answers: the rules of specs/tubemq/conformance.yaml the request
    broke, as (rule id, what came); a strict server takes them after each request and reports them at its
    frame. None (the default) keeps nothing."""

    notes: list[tuple[str, str]] | None = None

    def _note(self, rule: str, got: str) -> None:
        if self.notes is not None:
            self.notes.append((rule, got))


class Service(Protocol):
    """The sans-IO state behind a server: the methods it serves and how it answers them."""

    methods: frozenset[str]
    notes: list[tuple[str, str]] | None

    def handle(self, method: str, request, peer: str):
        """The response message to `request` (the decoded business message); raises Refusal."""


def _frame_rule(exc: DecodeError) -> str:
    """The rule of specs/tubemq/conformance.yaml a frame that does not decode breaks."""
    if exc.kind == "too_large":
        return "tubemq.max-frame-size"
    if exc.kind == "truncated":
        return "tubemq.whole-frames"
    field = exc.field or ""
    for name, rule in (("begin_token", "tubemq.begin-token"), ("list_size", "tubemq.list-size"),
                       ("block_len", "tubemq.block-len")):
        if field.endswith(name):
            return rule
    return "tubemq.rpc-envelope"


def answer(service: Service, rpc: RpcMessage, peer: str):
    """(the frame answering one request, or None where the real server sends nothing (module doc);
    the exception it carries as "class: message", or None for a SUCCESS answer)."""
    serial = rpc.serial_no
    notes = service.notes if service.notes is not None else []
    if rpc.method is None or rpc.business is None:
        frame = unsupported_method_frame(serial, rpc.method_id)
        notes.append(("tubemq.method-known", f"method id {rpc.method_id}"))
        return frame, f"FATAL: unsupported method id {rpc.method_id}"
    if not rpc.body.HasField("timeout") or rpc.body.timeout <= 0:
        notes.append(("tubemq.timeout", f"{rpc.method} with timeout {rpc.body.timeout}"))
        return None, None
    version = rpc.header.protocolVer if rpc.header.HasField("protocolVer") else None
    if rpc.method not in service.methods:
        service_type = _SERVICE_NAMES.get(rpc.header.serviceType, rpc.header.serviceType)
        notes.append(("tubemq.service-method", f"{rpc.method} (service type {service_type})"))
        refusal = Refusal("java.lang.Exception", f"Unsupported method {rpc.method_id}in service type {service_type}!")
    else:
        try:
            return response_frame(serial, rpc.method, service.handle(rpc.method, rpc.business, peer)), None
        except Refusal as exc:
            refusal = exc
    class_name = exception_class(refusal.class_name, version)
    return exception_frame(serial, class_name, refusal.message), f"{class_name}: {refusal.message}"


@dataclass(eq=False)
class _Connection:
    """One client connection, as a strict server follows it."""

    link: Link
    received: int = 0  # bytes received in all
    framed: int = 0  # bytes of whole frames: where the next frame starts
    last_serial: int | None = None


@dataclass
class ServerStats:
    """Counters over a server's lifetime (tests and the CLI's last line read them)."""

    connections: int = 0
    requests: Counter = field(default_factory=Counter)  # method name (or method_<id>) -> requests
    answers: int = 0
    exceptions: int = 0  # answers carrying an exception (ERROR or FATAL)
    unanswered: int = 0  # requests the real server would not answer either (no timeout)
    closed_for_bad_input: int = 0
    links: LinkStats = field(default_factory=LinkStats)

    def to_dict(self) -> dict:
        return {"connections": self.connections, "requests": dict(sorted(self.requests.items())),
                "answers": self.answers, "exceptions": self.exceptions, "unanswered": self.unanswered,
                "closed_for_bad_input": self.closed_for_bad_input, **self.links.to_dict()}


class RpcServer(ListeningServer):
    """Serves one `Service` over TCP. `async with RpcServer(service, port=0) as server:`; `server.port`.

    record / record_sent: files every well-formed request received / answer sent is appended to (exact
    bytes, flushed each time): clean dumps that `iter_frames(data, "tubemq")` reads. idle_timeout,
    max_pending and log_rate are `endpoints.Link`'s (None: no limit); max_frame_size bounds what one
    connection may make the server buffer. strict: the conformance report (module doc).
    """

    def __init__(self, service: Service, host: str = "127.0.0.1", port: int = 0, *, logger: logging.Logger,
                 record: str | os.PathLike | None = None, record_sent: str | os.PathLike | None = None,
                 idle_timeout: float | None = DEFAULT_IDLE_TIMEOUT, max_pending: int | None = DEFAULT_MAX_PENDING,
                 max_frame_size: int = DEFAULT_MAX_FRAME_SIZE, log_rate: float | None = DEFAULT_LOG_RATE,
                 strict: Report | None = None):
        if idle_timeout is not None and idle_timeout <= 0:
            raise ValueError(f"idle_timeout must be positive or None, not {idle_timeout!r}")
        self.service, self.log = service, logger
        self.record, self.record_sent = record, record_sent
        self._init_listening(host, port, {"received": record, "sent": record_sent}, logger)
        self.idle_timeout, self.max_pending, self.max_frame_size = idle_timeout, max_pending, max_frame_size
        self.log_rate = log_rate
        self.stats = ServerStats()
        self._links: set[Link] = set()
        self.strict = strict
        if strict is not None:
            service.notes = []

    # -- lifecycle -----------------------------------------------------------------------------

    def _open_links(self):
        return self._links

    def _stopped_log(self) -> None:
        self.log.info("stopped: %s", self.stats.to_dict())

    # -- connections ---------------------------------------------------------------------------

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        link = Link(writer, self.log, idle_timeout=self.idle_timeout, max_pending=self.max_pending,
                    log_rate=self.log_rate, stats=self.stats.links)
        self._links.add(link)
        self.stats.connections += 1
        connection = _Connection(link)
        try:
            async with connection_scope(self._handlers, link):
                await self._converse(reader, connection)
        finally:
            self._links.discard(link)
            if self.strict is not None and link.expired:
                self.strict("tubemq.idle", peer=link.name, offset=connection.received,
                            got=f"no whole frame (or answers left unread) for {self.idle_timeout:g} s")

    async def _converse(self, reader: asyncio.StreamReader, connection: "_Connection") -> None:
        link = connection.link
        # PERMISSIVE, so that a whole frame whose envelope does not parse comes back as a span of its own,
        # answered FATAL as the real server answers it; any other malformed span closes the connection
        decoder = StreamDecoder(PROTOCOL, "request", mode="PERMISSIVE", max_frame_size=self.max_frame_size)
        raw = RawStream()
        while not link.closing:
            data = await reader.read(READ_SIZE)  # under the link's deadline
            raw.add(data)
            connection.received += len(data)
            for frame in decoder.feed(data) if data else decoder.close():
                chunk = raw.take(frame)
                if frame.error is not None and not self._on_unreadable(connection, frame, chunk):
                    return
                if frame.error is not None:
                    continue
                link.progress()
                connection.framed = frame.offset + frame.length
                if self.strict is not None:
                    self._check_serial(connection, frame)
                if not self._on_request(link, frame, chunk):
                    return
            held = raw.unframeable(PROTOCOL, "request", self.max_frame_size) if decoder.buffered else None
            if held is not None:  # a bad start with no frame after it (yet): closed now, as the real server does
                self._close_unframeable(connection, *held)
                return
            if not data:
                return
            await link.drain()  # stop reading from a client that does not read answers

    def _on_unreadable(self, connection: "_Connection", frame, chunk: bytes) -> bool:
        """A malformed span: a whole frame whose RPC envelope or business message does not parse gets the
        real server's FATAL answer under its serial (methods.yaml answers.unreadable_request) and the
        connection goes on; anything else (a bad token or list size, a cut frame) closes it, as the real
        server's frame decoder does. False when the connection is to be closed."""
        link, error = connection.link, frame.error
        serial = frame_serial(chunk) if _frame_rule(error) == "tubemq.rpc-envelope" else None
        if serial is None:
            self._close_unframeable(connection, frame.offset, error)
            return False
        if self.strict is not None:
            self.strict("tubemq.rpc-envelope", peer=link.name, offset=frame.offset, length=frame.length,
                        got=str(error))
        link.progress()
        connection.framed = frame.offset + frame.length
        data = encode(unreadable_request_frame(serial, error.field, error.reason))
        if not link.write(data):
            return False
        self.stats.answers += 1
        self.stats.exceptions += 1
        link.log.info("serial=%d answered FATAL: the request does not parse (%s)", serial, error)
        self._write_file("sent", data)
        return True

    def _close_unframeable(self, connection: "_Connection", offset: int, error: DecodeError) -> None:
        """Report (strict) and log bytes at `offset` that cannot be a frame; the caller closes the connection."""
        link = connection.link
        if self.strict is not None:  # a span that closes the connection has no length of its own
            self.strict(_frame_rule(error), peer=link.name, offset=offset, got=str(error))
        self.stats.closed_for_bad_input += 1
        link.log.always(logging.WARNING, "closing the connection on a frame that does not decode: %s", error)

    def _check_serial(self, connection: "_Connection", frame) -> None:
        """Report a serial that repeats or goes back from the connection's last one."""
        serial, last = frame.payload.serial_no, connection.last_serial
        if last is not None and not 0 < (serial - last) % 2**32 < 2**31:
            self.strict("tubemq.serial-order", peer=connection.link.name, offset=frame.offset, length=frame.length,
                        got=f"serial {serial} after serial {last}")
        connection.last_serial = serial

    def _on_request(self, link: Link, frame, chunk: bytes) -> bool:
        """Record and answer one well-formed request; False when the connection was dropped."""
        rpc: RpcMessage = frame.payload
        self.stats.requests[rpc.message_type] += 1
        self._write_file("received", chunk)
        link.log.debug("%s serial=%d", rpc.message_type, rpc.serial_no)
        fault = self._fault_of(rpc)
        if fault in ("drop", "close"):
            link.log.info("%s serial=%d: fault %s, no answer", rpc.message_type, rpc.serial_no, fault)
            return fault == "drop"
        answered, exception = self._failure(rpc) if fault == "fail" else answer(self.service, rpc, link.name)
        if self.strict is not None:
            for rule, got in self.service.notes:
                self.strict(rule, peer=link.name, offset=frame.offset, length=frame.length, got=got)
            self.service.notes.clear()
        if answered is None:
            self.stats.unanswered += 1
            link.log.warning("%s serial=%d has no timeout: not answered, as the real server does not",
                             rpc.message_type, rpc.serial_no)
            return True
        data = encode(answered)
        if exception is not None:
            self.stats.exceptions += 1
            link.log.info("%s serial=%d answered with %s", rpc.message_type, rpc.serial_no, exception)
        if isinstance(fault, float):  # a delay
            asyncio.get_running_loop().call_later(fault, self._answer, link, data)
            return True
        return self._answer(link, data)

    def _answer(self, link: Link, data: bytes) -> bool:
        if not link.write(data):
            return False
        self.stats.answers += 1
        self._write_file("sent", data)
        return True

    def _fault_of(self, rpc: RpcMessage) -> str | float | None:
        """What a fault plan says for this request (endpoints.faults; None: answer as usual). A server whose
        requests a plan may fault overrides this and _failure."""
        return None

    def _failure(self, rpc: RpcMessage):
        """The failure answer to a request a plan fails: (frame, its exception text or None)."""
        raise NotImplementedError

    def _write_file(self, name: str, data: bytes) -> None:
        handle = self._files.get(name)
        if handle is not None:
            handle.write(data)
            handle.flush()
