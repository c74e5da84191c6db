"""Reference asyncio EventMesh TCP server: the runtime side of sessions, pub/sub and pushes.

A thin I/O adapter over the sans-IO pieces: frames are cut and typed by the runtime's StreamDecoder
(the generated codec of specs/eventmesh/tcp_frame.ksy plus `inlong_proto.eventmesh.tcp.describe`),
and every frame written is built by the `tcp` helpers and encoded by `inlong_proto.encode`. What it
answers follows the runtime's command handling (docs/protocols/eventmesh.md, 1.7):

* HELLO_REQUEST / RECOMMEND_REQUEST are the only commands allowed without a session; anything else
  first gets its reply command (the command table's ``error_reply``) with code 1, desc
  ``java.lang.Exception: no session is found`` and the same seq.
* HELLO_RESPONSE 0 "success", or code 1 when the UserAgent lacks a version, a 'pub'/'sub' purpose
  or a group; the session is then closed. HEARTBEAT_RESPONSE, SUBSCRIBE_RESPONSE (topics recorded),
  UNSUBSCRIBE_RESPONSE (all topics dropped, whatever the body), LISTEN_RESPONSE (sent once; a push
  that comes first sends it early with desc "succeed"), CLIENT_GOODBYE_RESPONSE then close.
* ASYNC_MESSAGE_TO_SERVER / BROADCAST_MESSAGE_TO_SERVER: the *_ACK with code 0, or code 1 for what
  the runtime refuses (a protocol property missing, openmessage, extension names outside a-z0-9,
  data over max_event_size characters); accepted messages are pushed to the sessions subscribed to
  the topic: ASYNC_MESSAGE_TO_CLIENT for ASYNC items, REQUEST_TO_CLIENT for SYNC ones,
  BROADCAST_MESSAGE_TO_CLIENT for BROADCASTING ones (mode wins). BROADCASTING subscribers each get
  the message, CLUSTERING ones one per consumer group (in turn). Push seqs are a decimal counter;
  the *_TO_CLIENT_ACK that comes back is matched by seq and gets no reply.
* Commands with no processor (28, 29, 31-34, and server-side commands sent by a client) are echoed
  with code 1 and a NullPointerException text. REQUEST_TO_SERVER (request-reply) is not implemented
  here: it is refused with RESPONSE_TO_CLIENT code 1.
* Server-initiated: `redirect()` sends REDIRECT_TO_CLIENT (no seq, a RedirectInfo body) and can
  close the session later, as the runtime does 5 s after; `goodbye()` sends SERVER_GOODBYE_REQUEST
  (no seq), which `stop()` sends to every session.
* Any frame that does not decode (bad magic or version, bad header JSON, an unknown cmd, a body the
  runtime cannot bind, a frame over the limit, a stream cut mid-frame) closes that connection only,
  silently, as the runtime's decoder does.

Hostile or broken clients (the shared defences are `inlong_proto.endpoints.common.Link`'s): a connection is
closed after `idle_timeout` seconds (default 120 s, the runtime's idle handler) without a whole frame, or
without reading replies it is waited on for. The runtime counts any byte as activity; here a byte a
second that never completes a frame does not keep a connection open (a client's heartbeats, every 30 s
in the Java SDK, do). A client that leaves over max_pending bytes unread is dropped, and log lines about
a client are rate-limited per connection (log_rate).

strict (a core.conformance Report): each rule of specs/eventmesh/conformance.yaml a client breaks is
reported with the offset of the frame in what that client sent; the answers stay the same.

The ack of a stored message carries no body here (the runtime's is an opaque bean serialization).

faults (endpoints.faults, tests of the audit): a plan over the sends the server serves (ASYNC_MESSAGE_TO_SERVER,
BROADCAST_MESSAGE_TO_SERVER, REQUEST_TO_SERVER, after a HELLO); "fail" answers as the runtime does when its
producer fails (MessageTransferProcessor: the answer command with code 1 and the exception's text), nothing
pushed; a delay delays the answer only (pushes go at once).
"""
from __future__ import annotations

import asyncio
import itertools
import logging
import os
import re
from collections import Counter
from dataclasses import dataclass, field

from inlong_proto.core.conformance import Report
from inlong_proto.core.errors import DecodeError, EncodeError
from inlong_proto.endpoints.common import (DEFAULT_LOG_RATE, Link, LinkStats, ListeningServer, RawStream,
                                           connection_scope)
from inlong_proto.endpoints.faults import FAULT_TEXT, Faults
from inlong_proto.core.frames import Frame, StreamDecoder, encode
from inlong_proto.eventmesh import tcp
from inlong_proto.eventmesh.strict import frame_rule
from inlong_proto.eventmesh.tcp import (COMMANDS, CloudEvent, Command, EventMeshMessage, RedirectInfo,
                                        SubscriptionItem, SubscriptionMode, SubscriptionType, TcpMessage, UserAgent)

log = logging.getLogger(__name__)

PROTOCOL = "eventmesh"
READ_SIZE = 65536
NO_SESSION = "java.lang.Exception: no session is found"
NO_PROCESSOR = "java.lang.NullPointerException"
SUCCESS = "success"
GOODBYE = "graceful normal quit from eventmesh"
MAX_EVENT_SIZE = 1000  # eventMesh.server.maxEventSize
DEFAULT_IDLE_TIMEOUT = 120.0  # eventMesh.server.tcp.allIdleSeconds as configured in the runtime's properties
_EXTENSION_NAME = re.compile(r"[a-z0-9]+")  # what a CloudEvent extension name may be

PUBLISH_ACKS = {Command.ASYNC_MESSAGE_TO_SERVER: Command.ASYNC_MESSAGE_TO_SERVER_ACK,
                Command.BROADCAST_MESSAGE_TO_SERVER: Command.BROADCAST_MESSAGE_TO_SERVER_ACK}
PUSH_ACKS = {Command.ASYNC_MESSAGE_TO_CLIENT_ACK: Command.ASYNC_MESSAGE_TO_CLIENT,
             Command.BROADCAST_MESSAGE_TO_CLIENT_ACK: Command.BROADCAST_MESSAGE_TO_CLIENT,
             Command.REQUEST_TO_CLIENT_ACK: Command.REQUEST_TO_CLIENT,
             Command.RESPONSE_TO_CLIENT_ACK: Command.RESPONSE_TO_CLIENT}
WITHOUT_SESSION = (Command.HELLO_REQUEST, Command.RECOMMEND_REQUEST)


def push_command(item: SubscriptionItem) -> Command:
    """The push a subscription item gets (SessionPusher): BROADCASTING mode wins, then SYNC or ASYNC."""
    if item.mode == SubscriptionMode.BROADCASTING:
        return Command.BROADCAST_MESSAGE_TO_CLIENT
    if item.type == SubscriptionType.SYNC:
        return Command.REQUEST_TO_CLIENT
    return Command.ASYNC_MESSAGE_TO_CLIENT


def hello_problem(user_agent) -> str | None:
    """Why HelloProcessor would refuse this UserAgent, or None."""
    if not isinstance(user_agent, UserAgent):
        return "java.lang.Exception: the hello has no UserAgent body"
    if user_agent.version is None:
        return "java.lang.Exception: UserAgent.version is null"
    if user_agent.purpose not in tcp.HELLO_PURPOSES:
        return f"java.lang.Exception: UserAgent.purpose {user_agent.purpose!r} is neither pub nor sub"
    if not (user_agent.group or "").strip():
        return "java.lang.Exception: UserAgent.group is blank"
    return None


def _text_of(value) -> str:
    """A property value as the runtime's toString() gives it."""
    return value if isinstance(value, str) else tcp.dumps(value)


@dataclass(frozen=True)
class Published:
    """An accepted message: its topic, what it carries, and how it is pushed on."""

    topic: str
    message: TcpMessage
    protocol_type: str

    def push_body(self):
        """The pushed body: CloudEvents bytes as received, or an EventMeshMessage whose properties are
        the event's extensions (header properties and message properties) as strings."""
        if self.protocol_type == "cloudevents":
            return self.message.raw_body
        body: EventMeshMessage = self.message.body
        properties = {key: _text_of(value) for key, value in (self.message.header.properties or {}).items()}
        properties.update((key, _text_of(value)) for key, value in (body.properties or {}).items())
        content_type = (body.headers or {}).get("datacontenttype")
        headers = {"datacontenttype": content_type} if content_type is not None else {}
        return EventMeshMessage(topic=body.topic, properties=properties, headers=headers, body=body.body)


@dataclass(eq=False)
class Session:
    """One client connection and what the runtime keeps for it."""

    link: Link
    user_agent: UserAgent | None = None  # set by a successful hello
    topics: dict[str, SubscriptionItem] = field(default_factory=dict)
    listen_answered: bool = False
    unacked: dict[str, Command] = field(default_factory=dict)  # push seq -> push command
    closing: bool = False
    received: int = 0  # bytes received so far
    frame: Frame | None = None  # the frame being answered (a strict finding's offset and length)

    @property
    def writer(self) -> asyncio.StreamWriter:
        return self.link.writer

    @property
    def peer(self) -> str:
        return self.link.name

    @property
    def group(self) -> str | None:
        return None if self.user_agent is None else self.user_agent.group

    @property
    def purpose(self) -> str | None:
        return None if self.user_agent is None else self.user_agent.purpose

    def close(self) -> None:
        self.closing = True
        self.writer.close()


@dataclass
class ServerStats:
    """Counters over the server's lifetime (tests and the CLI summary read them)."""

    connections: int = 0
    sessions: int = 0  # successful hellos
    received: Counter = field(default_factory=Counter)  # frames received, by command name
    sent: Counter = field(default_factory=Counter)  # frames sent, by command name
    published: int = 0  # messages accepted (acked with code 0)
    refused: int = 0  # replies with code 1
    pushed: int = 0
    push_acked: int = 0
    unmatched_acks: int = 0  # acks whose seq matches no push awaiting one
    redirects: int = 0
    goodbyes: int = 0  # SERVER_GOODBYE_REQUESTs sent
    closed_for_bad_input: int = 0
    links: LinkStats = field(default_factory=LinkStats)  # what the per-connection limits did

    def to_dict(self) -> dict:
        return {"connections": self.connections, "sessions": self.sessions,
                "received": dict(sorted(self.received.items())), "sent": dict(sorted(self.sent.items())),
                "published": self.published, "refused": self.refused, "pushed": self.pushed,
                "push_acked": self.push_acked, "unmatched_acks": self.unmatched_acks, "redirects": self.redirects,
                "goodbyes": self.goodbyes, "closed_for_bad_input": self.closed_for_bad_input,
                **self.links.to_dict()}


class EventMeshServer(ListeningServer):
    """A minimal EventMesh TCP runtime. `async with EventMeshServer(port=0) as server:`; `server.port`.

    record / record_sent: files that every well-formed frame received / sent is appended to (exact
    bytes, flushed each time), so each is a clean dump that `iter_frames(data, "eventmesh")` reads.
    idle_timeout: seconds without a whole frame (or, while replies wait, without the client reading
    them) after which a connection is closed (None: never). max_pending: bytes a client may leave unread
    before it is dropped (None: no limit). log_rate: log lines per second per connection (None: no limit).
    recommend: the "ip:port" a RECOMMEND_REQUEST is answered with (default: this server's own).
    strict: the conformance report of the rules a client breaks (module doc). faults: the module doc's;
    `faulted` lists (n, what).
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, record: str | os.PathLike | None = None,
                 record_sent: str | os.PathLike | None = None, idle_timeout: float | None = DEFAULT_IDLE_TIMEOUT,
                 max_event_size: int = MAX_EVENT_SIZE, max_pending: int | None = 4 * 1024 * 1024,
                 max_frame_size: int | None = None, goodbye_on_stop: bool = True, recommend: str | None = None,
                 log_rate: float | None = DEFAULT_LOG_RATE, faults: dict | None = None, strict: Report | None = None):
        if idle_timeout is not None and idle_timeout <= 0:
            raise ValueError(f"idle_timeout must be positive or None, not {idle_timeout!r}")
        self._init_listening(host, port, {"received": record, "sent": record_sent}, log)
        self.strict = strict
        self.faults = Faults(faults)
        self.record, self.record_sent = record, record_sent
        self.idle_timeout, self.max_event_size, self.max_pending = idle_timeout, max_event_size, max_pending
        self.log_rate = log_rate
        self.max_frame_size, self.goodbye_on_stop, self.recommend = max_frame_size, goodbye_on_stop, recommend
        self.stats = ServerStats()
        self._sessions: dict[Session, None] = {}  # insertion-ordered set: pushes go in connection order
        self._timers: set[asyncio.TimerHandle] = set()
        self._push_seq = itertools.count(1)
        self._turn: Counter = Counter()  # (topic, group) -> next CLUSTERING member
        self._dispatch = {
            Command.HELLO_REQUEST: self._hello, Command.RECOMMEND_REQUEST: self._recommend,
            Command.HEARTBEAT_REQUEST: self._heartbeat, Command.SUBSCRIBE_REQUEST: self._subscribe,
            Command.UNSUBSCRIBE_REQUEST: self._unsubscribe, Command.LISTEN_REQUEST: self._listen,
            Command.CLIENT_GOODBYE_REQUEST: self._client_goodbye, Command.SERVER_GOODBYE_RESPONSE: self._nothing,
            Command.ASYNC_MESSAGE_TO_SERVER: self._publish, Command.BROADCAST_MESSAGE_TO_SERVER: self._publish,
            Command.REQUEST_TO_SERVER: self._request, Command.RESPONSE_TO_SERVER: self._nothing,
            **{ack: self._push_ack for ack in PUSH_ACKS},
        }

    # -- lifecycle -----------------------------------------------------------------------------

    @property
    def sessions(self) -> list[Session]:
        """Connections that said hello successfully and are still open, in connection order."""
        return [s for s in self._sessions if s.user_agent is not None and not s.closing]

    @property
    def connections(self) -> list[Session]:
        return list(self._sessions)

    @property
    def faulted(self) -> list[tuple[int, str | float]]:
        return self.faults.faulted

    def _open_links(self):
        return (session.link for session in self._sessions)

    async def _stopping(self) -> None:
        """Timers go; every session that said hello is told goodbye (goodbye_on_stop), then closed."""
        for timer in self._timers:
            timer.cancel()
        self._timers.clear()
        for session in list(self._sessions):
            if self.goodbye_on_stop and session.user_agent is not None and not session.closing:
                if self._send(session, tcp.header(Command.SERVER_GOODBYE_REQUEST, desc=GOODBYE)):
                    self.stats.goodbyes += 1
            session.close()

    def _stopped_log(self) -> None:
        log.info("stopped: %s", self.stats.to_dict())

    # -- server-initiated frames -----------------------------------------------------------------

    def redirect(self, session: Session, ip: str, port: int, *, close_after: float | None = None) -> None:
        """Send REDIRECT_TO_CLIENT (code 0, no desc, no seq, a RedirectInfo); close_after: close the
        session that many seconds later (the runtime closes it 5 s after)."""
        if self._send(session, tcp.header(Command.REDIRECT_TO_CLIENT), RedirectInfo(ip=ip, port=port)):
            self.stats.redirects += 1
            session.link.log.info("redirected to %s:%d", ip, port)
        if close_after is not None:
            self._later(close_after, session, "redirected")

    def goodbye(self, session: Session, *, code: int = 0, desc: str = GOODBYE,
                close_after: float | None = 0.0) -> None:
        """Send SERVER_GOODBYE_REQUEST (no seq) and close the session after close_after seconds
        (None: leave it open)."""
        if self._send(session, tcp.header(Command.SERVER_GOODBYE_REQUEST, code=code, desc=desc)):
            self.stats.goodbyes += 1
        if close_after is not None:
            self._later(close_after, session, "server goodbye")

    def _later(self, delay: float, session: Session, reason: str) -> None:
        def close() -> None:
            if not session.closing:
                session.link.log.always(logging.INFO, "closing the session (%s)", reason)
                session.close()

        self._after(delay, close)

    def _after(self, delay: float, callback) -> None:
        """Run callback delay seconds from now, unless the server stops first."""
        def run() -> None:
            self._timers.discard(handle)
            callback()

        handle = asyncio.get_running_loop().call_later(max(0.0, delay), run)
        self._timers.add(handle)

    # -- connections ---------------------------------------------------------------------------

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        link = Link(writer, log, idle_timeout=self.idle_timeout, max_pending=self.max_pending,
                    log_rate=self.log_rate, stats=self.stats.links)
        session = Session(link)
        self._sessions[session] = None
        self.stats.connections += 1
        try:
            async with connection_scope(self._handlers, link, session.close):
                await self._converse(reader, session)
        finally:
            self._sessions.pop(session, None)
            if self.strict is not None and link.expired:
                self.strict("eventmesh.tcp-heartbeat", peer=session.peer, offset=session.received,
                            got=f"no whole frame within {self.idle_timeout:g} s")
            if session.unacked:
                log.info("%s: %d push(es) never acknowledged", session.peer, len(session.unacked))

    async def _converse(self, reader: asyncio.StreamReader, session: Session) -> None:
        link = session.link
        decoder = StreamDecoder(PROTOCOL, mode="FAILFAST", max_frame_size=self.max_frame_size)
        raw = RawStream()
        while not link.closing:
            data = await reader.read(READ_SIZE)  # under the link's deadline
            session.received += len(data)
            raw.add(data)
            try:
                for frame in decoder.feed(data) if data else decoder.close():
                    link.progress()
                    session.frame = frame
                    if not self._on_frame(session, frame, raw.take(frame)):
                        return
                if data:
                    decoder.feed(b"")  # raises an error found after the frames just handled
            except DecodeError as exc:
                if self.strict is not None:  # the bad frame starts where the last good one ended
                    start = 0 if session.frame is None else session.frame.offset + session.frame.length
                    self.strict(frame_rule(exc), peer=session.peer, offset=start, got=str(exc))
                self.stats.closed_for_bad_input += 1
                link.log.always(logging.WARNING, "closing the connection on a frame that does not decode: %s", exc)
                return
            if not data:
                return
            await link.drain()  # stop reading from a client that does not read replies

    def _on_frame(self, session: Session, frame: Frame, chunk: bytes) -> bool:
        """Answer one well-formed frame; False closes the connection."""
        message: TcpMessage = frame.payload
        command, seq = message.command, message.header.seq
        self.stats.received[command.name] += 1
        handle = self._files.get("received")
        if handle is not None:
            handle.write(chunk)
            handle.flush()
        session.link.log.debug("%s seq=%s", command.name, seq)
        if seq is None and COMMANDS[command].error_reply is not None:
            self._report(session, "eventmesh.tcp-seq", f"{command.name} without a seq")
        if session.user_agent is None and command not in WITHOUT_SESSION:
            self._report(session, "eventmesh.tcp-hello-first", f"{command.name} before a successful HELLO_REQUEST")
            self._reply(session, COMMANDS[command].error_reply, seq, code=1, desc=NO_SESSION)
            return True
        handler = self._dispatch.get(command)
        if handler is None:  # no processor registered: the runtime's NPE, with the command echoed
            self._report(session, "eventmesh.tcp-served-command", f"{command.name}, which no processor serves")
            self._reply(session, command, seq, code=1, desc=NO_PROCESSOR)
            return True
        return handler(session, message)

    def _report(self, session: Session, rule: str, got: str) -> None:
        """A strict finding about the frame being answered."""
        if self.strict is not None:
            self.strict(rule, peer=session.peer, offset=session.frame.offset, length=session.frame.length, got=got)

    # -- writing -------------------------------------------------------------------------------

    def _send(self, session: Session, header_obj: tcp.TcpHeader, body=None) -> bool:
        link = session.link
        if session.closing or link.closing:
            return False
        try:
            data = encode(tcp.frame(header_obj, body))
        except EncodeError as exc:
            link.log.error("cannot encode %s: %s", header_obj.cmd.name, exc)
            return False
        if not link.write(data):  # over max_pending unread: dropped
            session.closing = True
            return False
        self.stats.sent[header_obj.cmd.name] += 1
        if header_obj.code != 0:
            self.stats.refused += 1
        handle = self._files.get("sent")
        if handle is not None:
            handle.write(data)
            handle.flush()
        return True

    def _reply(self, session: Session, command: Command, seq: str | None, *, code: int = 0,
               desc: str | None = SUCCESS, body=None, delay: float | None = None) -> bool:
        if code != 0:
            session.link.log.warning("%s code %d: %s", command.name, code, desc)
        header_obj = tcp.header(command, code=code, desc=desc, seq=seq)
        if delay is not None:
            self._after(delay, lambda: self._send(session, header_obj, body))
            return True
        return self._send(session, header_obj, body)

    # -- the processors --------------------------------------------------------------------------

    def _hello(self, session: Session, message: TcpMessage) -> bool:
        problem = hello_problem(message.body)
        if problem is not None:
            self._report(session, "eventmesh.tcp-user-agent", problem)
            self._reply(session, Command.HELLO_RESPONSE, message.header.seq, code=1, desc=problem)
            return False  # the runtime closes the session after a failed hello
        if session.user_agent is None:
            self.stats.sessions += 1
        session.user_agent = message.body
        session.link.log.info("hello from group %s (%s), subsystem %s, pid %s", session.group,
                              session.purpose, message.body.subsystem, message.body.pid)
        self._reply(session, Command.HELLO_RESPONSE, message.header.seq)
        return True

    def _recommend(self, session: Session, message: TcpMessage) -> bool:
        agent = message.body
        if not isinstance(agent, UserAgent) or agent.username is None or agent.password is None:
            self._reply(session, Command.RECOMMEND_RESPONSE, message.header.seq, code=1,
                        desc="java.lang.Exception: username and password are required")
            return True
        target = self.recommend or "{}:{}".format(*self.address)
        self._reply(session, Command.RECOMMEND_RESPONSE, message.header.seq, body=target)
        return True

    def _heartbeat(self, session: Session, message: TcpMessage) -> bool:
        self._reply(session, Command.HEARTBEAT_RESPONSE, message.header.seq)
        return True

    def _subscribe(self, session: Session, message: TcpMessage) -> bool:
        items = None if message.body is None else message.body.topic_list  # [] subscribes to nothing, as upstream
        bad = [item for item in items or () if not item.topic or item.mode in (None, SubscriptionMode.UNRECOGNIZED)
               or item.type in (None, SubscriptionType.UNRECOGNIZED)]
        if items is None or bad:
            what = "no topicList (null)" if items is None else f"an unusable item {bad[0].to_json()}"
            self._report(session, "eventmesh.tcp-subscription", f"a subscription with {what}")
            self._reply(session, Command.SUBSCRIBE_RESPONSE, message.header.seq, code=1,
                        desc=f"java.lang.Exception: the subscription has {what}")
            return True
        for item in items:
            session.topics[item.topic] = item
        session.link.log.info("subscribed to %s", ", ".join(
            f"{item.topic} ({item.mode}, {item.type})" for item in items))
        self._reply(session, Command.SUBSCRIBE_RESPONSE, message.header.seq)
        return True

    def _unsubscribe(self, session: Session, message: TcpMessage) -> bool:
        session.topics.clear()  # the runtime drops every topic of the session, whatever the body says
        self._reply(session, Command.UNSUBSCRIBE_RESPONSE, message.header.seq)
        return True

    def _listen(self, session: Session, message: TcpMessage) -> bool:
        if not session.listen_answered:  # the listen response is sent once per session
            session.listen_answered = True
            self._reply(session, Command.LISTEN_RESPONSE, message.header.seq)
        return True

    def _client_goodbye(self, session: Session, message: TcpMessage) -> bool:
        self._reply(session, Command.CLIENT_GOODBYE_RESPONSE, message.header.seq)
        return False  # then the session is closed

    def _nothing(self, session: Session, message: TcpMessage) -> bool:
        session.link.log.debug("%s needs no reply", message.command.name)
        return True

    def _request(self, session: Session, message: TcpMessage) -> bool:
        fault = self.faults.next() if self.faults else None
        if fault in ("drop", "close", "fail"):
            return self._faulted(session, Command.RESPONSE_TO_CLIENT, message, fault)
        self._reply(session, Command.RESPONSE_TO_CLIENT, message.header.seq, code=1,
                    desc="request-reply (REQUEST_TO_SERVER) is not supported by this reference server", delay=fault)
        return True

    def _publish(self, session: Session, message: TcpMessage) -> bool:
        ack = PUBLISH_ACKS[message.command]
        fault = self.faults.next() if self.faults else None
        if fault in ("drop", "close", "fail"):
            return self._faulted(session, ack, message, fault)
        published, problem, rule = self._accept(message)
        if problem is not None:
            self._report(session, rule, problem)
            self._reply(session, ack, message.header.seq, code=1, desc=problem, delay=fault)
            return True
        self.stats.published += 1
        self._reply(session, ack, message.header.seq, delay=fault)
        self._deliver(session, published)
        return True

    def _faulted(self, session: Session, answer: Command, message: TcpMessage, fault: str) -> bool:
        """A send the fault plan drops, fails or closes the connection on (module doc)."""
        session.link.log.info("%s seq=%s: fault %s", message.command.name, message.header.seq, fault)
        if fault == "fail":
            self._reply(session, answer, message.header.seq, code=1, desc=f"java.lang.Exception: {FAULT_TEXT}")
        return fault != "close"

    def _accept(self, message: TcpMessage) -> tuple[Published | None, str | None, str | None]:
        """What the runtime's resolvers make of a message: (Published, None, None) or (None, why not, the
        rule of specs/eventmesh/conformance.yaml that says so)."""
        properties = message.header.properties or {}
        missing = [key for key in tcp.PROTOCOL_KEYS if properties.get(key) is None]
        if missing:
            return (None, f"java.lang.NullPointerException: header property {missing[0]} is missing",
                    "eventmesh.tcp-protocol-properties")
        protocol_type = message.protocol_type
        body = message.body
        if protocol_type == "eventmeshmessage" and isinstance(body, EventMeshMessage):
            names = [*properties, *(body.properties or {})]
            bad = [name for name in names if not _EXTENSION_NAME.fullmatch(name)]
            if bad:
                return None, f"java.lang.IllegalArgumentException: Abnormal propKey: {bad[0]}", "eventmesh.tcp-message"
            topic, data = body.topic, body.body or ""
        elif protocol_type == "cloudevents" and isinstance(body, CloudEvent):
            topic = body.subject
            data = body.data if isinstance(body.data, str) else ("" if body.data is None else tcp.dumps(body.data))
        else:
            return None, "event is null", "eventmesh.tcp-message"
        if not topic:
            return None, "java.lang.NullPointerException: the event has no topic", "eventmesh.tcp-message"
        if len(data) > self.max_event_size:
            return None, f"event size exceeds the limit: {self.max_event_size}", "eventmesh.tcp-event-size"
        return Published(topic, message, protocol_type), None, None

    # -- pushes ----------------------------------------------------------------------------------

    def _deliver(self, publisher: Session, published: Published) -> None:
        """Push to every BROADCASTING subscriber of the topic and to one CLUSTERING member per group."""
        targets: list[tuple[Session, SubscriptionItem]] = []
        groups: dict[str | None, list[tuple[Session, SubscriptionItem]]] = {}
        for session in self.sessions:
            item = session.topics.get(published.topic)
            if item is None:
                continue
            if item.mode == SubscriptionMode.BROADCASTING:
                targets.append((session, item))
            else:
                groups.setdefault(session.group, []).append((session, item))
        for group, members in groups.items():
            key = (published.topic, group)
            targets.append(members[self._turn[key] % len(members)])
            self._turn[key] += 1
        if not targets:  # on the publisher's log: it decides how often this is said
            publisher.link.log.info("no subscriber for topic %s", published.topic)
        for session, item in targets:
            self._push(session, item, published)

    def _push(self, session: Session, item: SubscriptionItem, published: Published) -> None:
        command = push_command(item)
        if not session.listen_answered:  # the first push answers the listen early
            session.listen_answered = True
            self._reply(session, Command.LISTEN_RESPONSE, None, desc="succeed")
        seq = str(next(self._push_seq))
        header_obj = tcp.header(command, seq=seq, properties={"protocoltype": published.protocol_type})
        if self._send(session, header_obj, published.push_body()):
            session.unacked[seq] = command
            self.stats.pushed += 1

    def _push_ack(self, session: Session, message: TcpMessage) -> bool:
        seq = message.header.seq
        pushed = session.unacked.pop(seq, None) if seq is not None else None
        if pushed is None:
            self._report(session, "eventmesh.tcp-ack-seq", f"{message.command.name} seq={seq}, which no push awaits")
            self.stats.unmatched_acks += 1
            session.link.log.warning("%s seq=%s matches no push awaiting an ack", message.command.name, seq)
        else:
            self.stats.push_acked += 1
            if PUSH_ACKS[message.command] != pushed:
                session.link.log.warning("%s acknowledges a %s", message.command.name, pushed.name)
        return True  # acks get no reply


async def serve(host: str, port: int, *, record: str | os.PathLike | None = None,
                record_sent: str | os.PathLike | None = None, **options) -> ServerStats:
    """Run a server until cancelled (Ctrl-C under asyncio.run); options go to EventMeshServer."""
    server = EventMeshServer(host, port, record=record, record_sent=record_sent, **options)
    await server.serve_forever()
    return server.stats
