"""Reference asyncio DataProxy (TCP v0) server: answers every frame the way the Java server does.

The protocol decisions live in `DataProxySession`, a sans-IO state machine fed with the bytes of one
connection; `DataProxyServer` is the thin asyncio adapter that reads, writes, records and counts.
Frames are cut by their length prefix like the real server's LengthFieldBasedFrameDecoder (the
header probe and the decoding are the generated codec's, through the runtime), then each frame is
decoded on its own, so one malformed frame is answered or refused at once instead of holding the
stream. What the real server does (docs/protocols/inlong-dataproxy-and-tubemq.md, part 1):

* MsgType 1: the fixed 5-byte reply. MsgType 8: server time (s), the version echoed, load 0xFFFF and
  the request's attr echoed verbatim. MsgType 2-6: the text response (body '2', or the original body
  for MsgType 4), MsgType 7: the binary response echoing the UniqueId; both carry
  `dpIp=<ip>[&errCode=n[&errMsg=...]]&<request attr>`, with `rt`/`rtms` prepended when the request
  lacks them (`rtms` only for MsgType 7), then, for a MsgType 7 request with the ExtField trace bit,
  `node2ip=<listen port>&rtime2=<receive ms>` (the port, not the IP: the real server's quirk).
* A MsgType 6 body that is not InLongMsg v3 {len, data}{len, attr} pairs is acknowledged (errCode 0) with
  a note, as the real server drops it silently. (For a negative length, or 1-3 bytes left where a length
  should be, the real server instead throws and closes the connection; that is not emulated.)
* No reply when the attr says isAck=false (any case), unless syncSend/proxySend=true conflicts with
  it (errors 150/151, which are answered).
* Error replies: zero body 105, unparsable attr 109, Snappy body that does not decompress 96 (text
  types; the real server never looks inside a MsgType 7 body), MsgType 5 body without a valid item
  123, ExtField file-check/index bits 112, MsgType 7 magic other than 0xEE01 94, missing groupId 100.
* Connection closed without a reply: unknown base type, impossible TotalLen, a frame over
  max_frame_size, any other frame whose layout does not decode (for MsgType 8 a bad magic included).

Hostile or broken clients (the shared defences are `inlong_proto.endpoints.common.Link`'s): a connection is
closed after idle_timeout seconds without a whole frame (default 180 s, the real server's
maxReadIdleTime, which however counts any byte), or without reading replies it is waited on for; a
client that leaves over max_pending bytes of replies unread is dropped; log lines about a client are
rate-limited per connection (log_rate).
"""
from __future__ import annotations

import asyncio
import dataclasses
import functools
import logging
import os
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from inlong_proto.core import protocols
from inlong_proto.core.conformance import Report
from inlong_proto.core.errors import DecodeError
from inlong_proto.endpoints.common import (DEFAULT_LOG_RATE, DEFAULT_MAX_PENDING, Link, LinkStats, ListeningServer,
                                           connection_scope)
from inlong_proto.endpoints.faults import FAULT_TEXT, Faults
from inlong_proto.core.frames import Frame, decode, encode
from inlong_proto.generated.codec.dataproxy.dataproxy_common import MsgType
from inlong_proto.generated.codec.dataproxy.dataproxy_request import BinMessage
from inlong_proto.dataproxy import builders
from inlong_proto.dataproxy.payload import ErrCode, Payload, parse_attrs, payload

log = logging.getLogger(__name__)

PROTOCOL = "dataproxy"
READ_SIZE = 65536
#: Seconds without a whole frame before a connection is closed: the real server's maxReadIdleTime
#: default (InLong DataProxy SourceConstants.VAL_DEF_READ_IDLE_TIME_MS, 3 minutes).
DEFAULT_IDLE_TIMEOUT = 180.0
# The integrity mark of a MsgType 7 request (specs/dataproxy/dataproxy_request.ksy, bin_message.magic).
# Only used to re-read the other fields of a frame whose mark is wrong, so that the error-94 reply can
# echo its UniqueId the way the real server does; never written to the wire from here.
_BIN_MAGIC = BinMessage.CONTENTS["magic"]


@dataclass(frozen=True)
class Outcome:
    """What one frame (or one unusable stretch of the stream) comes to.

    raw: the frame's bytes when it is a well-formed request (what the record file receives), else None.
    reply: the generated response message to send, or None. err_code: the errCode the reply carries
    (0 for success; None when nothing was answered for an error, e.g. the connection is closed).
    close: the connection must be closed after this outcome; reason says why in words. note: something
    worth a warning about a frame that was accepted all the same. broken: the rules of
    specs/dataproxy/conformance.yaml the bytes break, as (rule id, what came), found at `offset` of the
    stream (`length` bytes: the frame's, None where no frame could be cut); a strict server reports them.
    """

    raw: bytes | None = None
    frame: Frame | None = None
    payload: Payload | None = None
    reply: object | None = None
    err_code: int | None = 0
    err_msg: str | None = None
    close: bool = False
    reason: str | None = None
    note: str | None = None
    broken: tuple[tuple[str, str], ...] = ()
    offset: int = 0
    length: int | None = None

    @property
    def base_type(self) -> MsgType | None:
        return None if self.frame is None else MsgType(self.frame.message.base_type)


class DataProxySession:
    """The sans-IO server side of one connection: feed() the received bytes, get Outcomes back.

    After an Outcome with close=True the session accepts nothing more. clock gives the time in seconds
    (receive time of the text types, server time of heartbeat replies). listen_port is the port the
    server listens on, which the real server writes as node2ip in replies to traced MsgType 7 requests.
    """

    def __init__(self, *, dp_ip: str = "127.0.0.1", clock: Callable[[], float] = time.time,
                 max_frame_size: int = 65536, listen_port: int = 0):
        codec = protocols.get(PROTOCOL).candidates("request")[0]
        self._frame_length = codec.module.frame_length
        self.dp_ip, self.clock, self.max_frame_size = dp_ip, clock, max_frame_size
        self.listen_port = listen_port  # what a traced MsgType 7 reply carries as node2ip
        self._buf = bytearray()
        self.offset = 0  # stream offset of _buf[0]
        self.closed = False

    @property
    def buffered(self) -> int:
        return len(self._buf)

    # -- framing -------------------------------------------------------------------------------

    def feed(self, data: bytes) -> list[Outcome]:
        if self.closed:
            return []
        self._buf += data
        outcomes: list[Outcome] = []
        while not self.closed:
            try:
                size = self._frame_length(self._buf, 0, len(self._buf))
            except DecodeError as exc:
                rule = "dataproxy.msg-type" if exc.field.endswith("base_type") else "dataproxy.total-len"
                outcomes.append(self._refuse(f"malformed header at offset {self.offset}: {exc.reason}", rule))
                break
            if size is not None and size > self.max_frame_size:
                outcomes.append(self._refuse(f"frame at offset {self.offset} claims {size} bytes, "
                                             f"over max_frame_size {self.max_frame_size}",
                                             "dataproxy.max-frame-size", length=size))
                break
            if size is None or len(self._buf) < size:
                break
            chunk = bytes(self._buf[:size])
            del self._buf[:size]
            outcome = dataclasses.replace(self._on_frame(chunk), offset=self.offset, length=size)
            self.offset += size
            outcomes.append(outcome)
            if outcome.close:
                self.closed = True
        return outcomes

    def close(self) -> list[Outcome]:
        """End of stream: bytes left over are a frame cut short."""
        if self.closed or not self._buf:
            self.closed = True
            return []
        return [self._refuse(f"stream ends inside a frame: {len(self._buf)} bytes at offset {self.offset}",
                             "dataproxy.whole-frames")]

    def _refuse(self, reason: str, rule: str, *, length: int | None = None) -> Outcome:
        self.closed = True
        self._buf.clear()
        return Outcome(err_code=None, close=True, reason=reason, broken=((rule, reason),), offset=self.offset,
                       length=length)

    # -- one frame -----------------------------------------------------------------------------

    def _on_frame(self, chunk: bytes) -> Outcome:
        try:
            frame = decode(chunk, PROTOCOL, "request", max_frame_size=self.max_frame_size)
        except DecodeError as exc:
            return self._malformed(chunk, exc)
        message = frame.message
        base = MsgType(message.base_type)
        if base == MsgType.heartbeat:
            return Outcome(raw=chunk, frame=frame, reply=builders.legacy_heartbeat_response())
        if base == MsgType.bin_heartbeat:
            return Outcome(raw=chunk, frame=frame,
                           reply=builders.heartbeat_response(message, server_time_s=int(self.clock())))
        return self._data(chunk, frame)

    def _malformed(self, chunk: bytes, exc: DecodeError) -> Outcome:
        """A frame whose layout does not decode: only a MsgType 7 magic error is answered (94)."""
        where = f"frame at offset {self.offset}"
        if exc.field == "body.magic":
            found = chunk[exc.offset:exc.offset + len(_BIN_MAGIC)]
            repaired = chunk[:exc.offset] + _BIN_MAGIC + chunk[exc.offset + len(_BIN_MAGIC):]
            try:
                message = decode(repaired, PROTOCOL, "request", max_frame_size=self.max_frame_size).message
            except DecodeError:
                message = None
            if message is not None and isinstance(message.body, BinMessage):
                code, text = ErrCode.field_magic_not_equal, (
                    f"magicInMsg({int.from_bytes(found, 'big')}) != {int.from_bytes(_BIN_MAGIC, 'big')}")
                reply = builders.bin_response(message, dp_ip=self.dp_ip, err_code=int(code), err_msg=text)
                return Outcome(reply=reply, err_code=int(code), err_msg=text,
                               reason=f"{where}: MsgType 7 with a wrong magic: {exc.reason}",
                               broken=(("dataproxy.magic", text),))
        rule = "dataproxy.magic" if exc.field == "body.magic" else "dataproxy.layout"
        return Outcome(err_code=None, close=True, reason=f"{where} does not decode: {exc}",
                       broken=((rule, str(exc)),))

    def _data(self, chunk: bytes, frame: Frame) -> Outcome:
        """MsgType 2-7: the checks of CodecTextMsg / CodecBinMsg, in the real server's order."""
        message = frame.message
        base = MsgType(message.base_type)
        body = message.body
        if base == MsgType.bin_multi_body:
            build = functools.partial(builders.bin_response, listen_port=self.listen_port)
        else:
            build = builders.text_response

        def answer(code: int, text: str | None = None, *, parsed: Payload | None = None,
                   needed: bool = True, note: str | None = None) -> Outcome:
            """The outcome; on success the echoed attr gains rt/rtms, on an error it is echoed as sent."""
            reply, text = None, _safe(text) if text else None
            if needed:
                received = int(self.clock() * 1000) if code == ErrCode.success else None
                reply = build(message, dp_ip=self.dp_ip, err_code=int(code), err_msg=text,
                              receive_time_ms=received)
            reason = None if code == ErrCode.success else f"{ErrCode(code).name}{': ' + text if text else ''}"
            broken = tuple((rule, got) for rule, got in ((_NOTE_RULES.get(base), note),
                                                        (_ERR_CODE_RULES.get(code), reason)) if rule and got)
            return Outcome(raw=chunk, frame=frame, payload=parsed, reply=reply, err_code=int(code),
                           err_msg=text, reason=reason, note=note, broken=broken)

        if base == MsgType.bin_multi_body and (body.ext_field.file_check or body.ext_field.index_message):
            return answer(ErrCode.unsupported_extend_field_value, "file-check and index messages are not supported")
        if not body.body:
            return answer(ErrCode.body_length_zero)
        try:
            attrs = dict(parse_attrs(body.attr, strict=True))
        except DecodeError as exc:
            return answer(ErrCode.split_attr_error, f"Parse attr failure: {exc.reason}")
        need_resp = _get(attrs, "isAck").lower() != "false"
        if _get(attrs, "syncSend").lower() == "true" and not need_resp:
            return answer(ErrCode.attr_order_control_conflict_error)  # the real server sends no errMsg
        if _get(attrs, "proxySend").lower() == "true" and not need_resp:
            return answer(ErrCode.attr_proxy_control_conflict_error)
        note = None
        try:
            parsed = payload(frame)
        except DecodeError as exc:
            if base != MsgType.bin_multi_body:
                # payload() names the body itself for a Snappy failure, an item inside it otherwise.
                code = (ErrCode.uncompress_data_error if exc.field == "body.body"
                        else ErrCode.msg_body_items_invalid)
                return answer(code, exc.reason, needed=need_resp)
            # The real server forwards MsgType 7 bodies unread: it acknowledges what it cannot parse.
            note = f"frame at offset {self.offset}: MsgType 7 body not readable (acknowledged anyway): {exc}"
            parsed = None
        if parsed is not None and parsed.error is not None:  # MsgType 6: the real server drops it, says 0
            note = f"frame at offset {self.offset}: records not readable (acknowledged anyway): {parsed.error}"
        needs_group = base != MsgType.bin_multi_body or body.ext_field.ids_as_strings
        if needs_group and not _get(attrs, "groupId").strip():
            return answer(ErrCode.miss_required_groupid_argument, needed=need_resp, note=note)
        return answer(ErrCode.success, parsed=parsed, needed=need_resp, note=note)


#: The rule of specs/dataproxy/conformance.yaml each error answer of `_data` stands for.
_ERR_CODE_RULES = {
    ErrCode.unsupported_extend_field_value: "dataproxy.ext-field",
    ErrCode.body_length_zero: "dataproxy.body-present",
    ErrCode.split_attr_error: "dataproxy.attr-syntax",
    ErrCode.attr_order_control_conflict_error: "dataproxy.ack-conflict",
    ErrCode.attr_proxy_control_conflict_error: "dataproxy.ack-conflict",
    ErrCode.uncompress_data_error: "dataproxy.compressed-body",
    ErrCode.msg_body_items_invalid: "dataproxy.body-items",
    ErrCode.miss_required_groupid_argument: "dataproxy.group-id",
}
#: The rule a body the real server acknowledges unread breaks (`_data`'s notes), per base type.
_NOTE_RULES = {MsgType.bin_multi_body: "dataproxy.bin-body", MsgType.multi_body_attr: "dataproxy.inlongmsg-v3"}


def _get(attrs: dict, key: str) -> str:
    return attrs.get(key) or ""


def _safe(text: str) -> str:
    """An errMsg that cannot break the k=v&k=v attr it travels in (the real server's sometimes do)."""
    return text.replace("&", " ").replace("=", ":")


# -- the asyncio adapter ---------------------------------------------------------------------------

@dataclass(eq=False)
class _Connection:
    link: Link
    session: DataProxySession


@dataclass
class ServerStats:
    """Counters over the server's lifetime (tests read them)."""

    connections: int = 0
    frames: int = 0  # well-formed request frames received
    records: int = 0  # records in the data messages accepted (errCode 0)
    replies: int = 0
    errors: int = 0  # error replies plus connections closed for bad input
    error_codes: Counter = field(default_factory=Counter)
    closed_for_bad_input: int = 0
    by_type: Counter = field(default_factory=Counter)  # frames per base type name


class DataProxyServer(ListeningServer):
    """Accepts DataProxy SDK connections and acknowledges their messages like the real server.

    Usable as `async with DataProxyServer(port=0) as server:`; `server.port` is the bound port.
    record: a file that every well-formed request frame's exact bytes are appended to (flushed each
    time), so it is a clean request dump. `payloads` keeps what each accepted data message carried.
    idle_timeout: seconds without a whole frame (or, while replies wait, without the client reading
    them) before a connection is closed (None: never). max_pending: bytes of replies a client may leave
    unread before it is dropped (None: no limit). log_rate: log lines per second per connection (None:
    no limit). `link_stats` counts what these limits did.

    faults (endpoints.faults, tests of the audit): {n: what} for the n-th data request the server receives
    (heartbeats not counted), what being "drop" (no answer, nothing accepted), "fail" (answered with errCode
    `fault_code`, default 115, nothing accepted), "close" (the connection is closed without an answer) or a
    number of seconds to delay the answer by. `faulted` lists (n, what).

    strict: the conformance report (core.conformance) of the rules of specs/dataproxy/conformance.yaml a
    client breaks; answers stay the same.
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, record: str | os.PathLike | None = None,
                 dp_ip: str = "127.0.0.1", clock: Callable[[], float] = time.time,
                 max_frame_size: int = 65536, keep_payloads: bool = True,
                 idle_timeout: float | None = DEFAULT_IDLE_TIMEOUT, max_pending: int | None = DEFAULT_MAX_PENDING,
                 log_rate: float | None = DEFAULT_LOG_RATE, faults: dict | None = None,
                 fault_code: int = ErrCode.topic_is_blank, strict: Report | None = None):
        if idle_timeout is not None and idle_timeout <= 0:
            raise ValueError(f"idle_timeout must be positive or None, not {idle_timeout!r}")
        self._init_listening(host, port, {"received": record}, log)
        self.record, self.dp_ip, self.clock = record, dp_ip, clock
        self.max_frame_size, self.keep_payloads = max_frame_size, keep_payloads
        self.idle_timeout, self.max_pending, self.log_rate = idle_timeout, max_pending, log_rate
        self.stats = ServerStats()
        self.link_stats = LinkStats()
        self.payloads: list[Payload] = []
        self._connections: set[_Connection] = set()
        self.faults, self.fault_code = Faults(faults), fault_code
        self.strict = strict

    # -- counters, for tests and the CLI ---------------------------------------------------------

    @property
    def frames(self) -> int:
        return self.stats.frames

    @property
    def records(self) -> int:
        return self.stats.records

    @property
    def errors(self) -> int:
        return self.stats.errors

    @property
    def clients(self) -> int:
        return len(self._connections)

    @property
    def faulted(self) -> list[tuple[int, str | float]]:
        return self.faults.faulted

    # -- lifecycle -----------------------------------------------------------------------------

    def _open_links(self):
        return (connection.link for connection in self._connections)

    async def _started(self) -> None:
        log.info("listening on %s:%d (dpIp %s)", *self.address, self.dp_ip)

    def _stopped_log(self) -> None:
        log.info("stopped after %d frame(s), %d record(s), %d error(s)", self.stats.frames, self.stats.records,
                 self.stats.errors)

    # -- connections ---------------------------------------------------------------------------

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        link = Link(writer, log, idle_timeout=self.idle_timeout, max_pending=self.max_pending,
                    log_rate=self.log_rate, stats=self.link_stats)
        session = DataProxySession(dp_ip=self.dp_ip, clock=self.clock, max_frame_size=self.max_frame_size,
                                   listen_port=self.port)
        connection = _Connection(link, session)
        self._connections.add(connection)
        self.stats.connections += 1
        try:
            async with connection_scope(self._handlers, link):
                await self._converse(reader, connection)
        finally:
            self._connections.discard(connection)
            if self.strict is not None and link.expired:
                self.strict("dataproxy.idle", peer=link.name, offset=session.offset + session.buffered,
                            got=f"no whole frame (or replies left unread) for {self.idle_timeout:g} s")

    async def _converse(self, reader: asyncio.StreamReader, connection: _Connection) -> None:
        link, session = connection.link, connection.session
        while not link.closing:
            data = await reader.read(READ_SIZE)
            for outcome in session.feed(data) if data else session.close():
                if not outcome.close:
                    link.progress()  # a whole frame (the length prefix cut it), answered or not
                if not self._apply(connection, outcome):
                    return
            if not data:
                return
            await link.drain()  # stop reading from a client that does not read replies

    def _fault(self, outcome: Outcome) -> tuple[Outcome, float | None]:
        """The outcome as the faults say for this data request, and the delay of its answer."""
        if outcome.raw is None or outcome.base_type in (MsgType.heartbeat, MsgType.bin_heartbeat):
            return outcome, None
        what = self.faults.next()
        if what is None:
            return outcome, None
        if what == "drop":
            return dataclasses.replace(outcome, payload=None, reply=None, err_code=None), None
        if what == "close":
            return dataclasses.replace(outcome, payload=None, reply=None, err_code=None, close=True,
                                       reason="fault: closed without an answer"), None
        if what == "fail":
            message = outcome.frame.message
            build = (builders.bin_response if message.base_type == MsgType.bin_multi_body
                     else builders.text_response)
            reply = build(message, dp_ip=self.dp_ip, err_code=int(self.fault_code), err_msg=FAULT_TEXT)
            return dataclasses.replace(outcome, payload=None, reply=reply, err_code=int(self.fault_code),
                                       reason=FAULT_TEXT), None
        return outcome, what

    def _apply(self, connection: _Connection, outcome: Outcome) -> bool:
        """Record, count and answer one outcome; False closes the connection."""
        stats, link = self.stats, connection.link
        delay = None
        if self.strict is not None:
            for rule, got in outcome.broken:
                self.strict(rule, peer=link.name, offset=outcome.offset, length=outcome.length, got=got)
        if self.faults:
            outcome, delay = self._fault(outcome)
        if outcome.raw is not None:
            stats.frames += 1
            stats.by_type[outcome.base_type.name] += 1
            record = self._files.get("received")
            if record is not None:
                record.write(outcome.raw)
                record.flush()
        if outcome.note is not None:
            link.log.warning("%s", outcome.note)
        if outcome.err_code not in (0, None):
            stats.errors += 1
            stats.error_codes[outcome.err_code] += 1
            link.log.warning("errCode %d: %s", outcome.err_code, outcome.reason or outcome.err_msg)
        elif outcome.err_code == 0 and outcome.payload is not None:
            stats.records += len(outcome.payload.records)
            if self.keep_payloads:
                self.payloads.append(outcome.payload)
        if outcome.reply is not None and delay is not None:
            asyncio.get_running_loop().call_later(delay, link.write, encode(outcome.reply))
            stats.replies += 1
        elif outcome.reply is not None and link.write(encode(outcome.reply)):
            stats.replies += 1
        if outcome.close:
            stats.errors += 1
            stats.closed_for_bad_input += 1
            link.log.always(logging.WARNING, "closing the connection: %s", outcome.reason)
            return False
        return not link.dropped


async def serve(host: str, port: int, *, record: str | os.PathLike | None = None, dp_ip: str = "127.0.0.1",
                max_frame_size: int = 65536, idle_timeout: float | None = DEFAULT_IDLE_TIMEOUT,
                log_rate: float | None = DEFAULT_LOG_RATE, faults: dict | None = None,
                strict: Report | None = None) -> None:
    """Run a server until cancelled (Ctrl-C under asyncio.run); faults, strict: DataProxyServer's."""
    async with DataProxyServer(host, port, record=record, dp_ip=dp_ip, max_frame_size=max_frame_size,
                               keep_payloads=False, idle_timeout=idle_timeout, log_rate=log_rate, faults=faults,
                               strict=strict) as server:
        await server.serve_forever()
