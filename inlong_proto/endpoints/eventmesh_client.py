"""Reference asyncio EventMesh TCP client: what the Java SDK's TCP clients do, on one connection.

`hello` opens the session (and starts the heartbeat timer), `subscribe` / `listen` make it a
consumer, `publish_async` / `publish_broadcast` send a message and wait for the server's ack,
pushed messages are acknowledged at once (the push's command's *_ACK, its seq, its body echoed as a
Java String, like the SDK) and handed out by `receive`, `goodbye` ends the session. Requests are
matched to replies by seq (10 characters in '0'..'8', as the SDK makes them); a reply with code != 0
raises EventMeshError. REDIRECT_TO_CLIENT is reported (`report.redirects`, `on_redirect`), a
SERVER_GOODBYE_REQUEST is answered with SERVER_GOODBYE_RESPONSE.

Every frame is built by `inlong_proto.eventmesh.tcp` and encoded by `inlong_proto.encode`, and
what arrives is read by the runtime's StreamDecoder; `record` receives every byte read from the
socket and `record_sent` every byte written, so both are raw dumps. A frame that does not decode
ends the connection (as the SDK's decoder closes the channel), and every call waiting for a reply
then raises ConnectionError. With `strict` (a core.conformance Report) each rule of
specs/eventmesh/conformance.yaml the server breaks is reported, at the offset of the frame in what the
server sent.
"""
from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import BinaryIO

from inlong_proto.core.conformance import Report
from inlong_proto.core.errors import DecodeError, EncodeError
from inlong_proto.core.frames import Frame, StreamDecoder, encode
from inlong_proto.eventmesh import tcp
from inlong_proto.eventmesh.strict import frame_rule
from inlong_proto.eventmesh.tcp import (CloudEvent, Command, EventMeshMessage, RedirectInfo, SubscriptionMode,
                                        SubscriptionType, TcpMessage, UserAgent)

log = logging.getLogger(__name__)

PROTOCOL = "eventmesh"
READ_SIZE = 65536
HEARTBEAT_INTERVAL = 30.0  # the Java SDK's period, seconds
SEQ_DIGITS = "012345678"  # the SDK draws from '0'..'8' (its random bound excludes '9')
SEQ_LENGTH = 10

PUSHES = (Command.ASYNC_MESSAGE_TO_CLIENT, Command.BROADCAST_MESSAGE_TO_CLIENT, Command.REQUEST_TO_CLIENT,
          Command.RESPONSE_TO_CLIENT)
ACKS = {Command.ASYNC_MESSAGE_TO_CLIENT: Command.ASYNC_MESSAGE_TO_CLIENT_ACK,
        Command.BROADCAST_MESSAGE_TO_CLIENT: Command.BROADCAST_MESSAGE_TO_CLIENT_ACK,
        Command.REQUEST_TO_CLIENT: Command.REQUEST_TO_CLIENT_ACK,
        Command.RESPONSE_TO_CLIENT: Command.RESPONSE_TO_CLIENT_ACK}


class EventMeshError(Exception):
    """The server answered a request with a code other than 0."""

    def __init__(self, reply: TcpMessage):
        self.reply = reply
        self.command, self.code, self.desc = reply.command, reply.header.code, reply.header.desc
        super().__init__(f"{self.command.name} code {self.code}: {self.desc}")


def make_user_agent(*, purpose: str = "pub", group: str = "inlong-proto", subsystem: str = "5023",
                    env: str = "dev", idc: str = "idc1", pid: int | None = None, host: str = "127.0.0.1",
                    port: int = 0, version: str = "1.0", username: str | None = "eventmesh",
                    password: str | None = "eventmesh", path: str | None = None) -> UserAgent:
    """A UserAgent with the fields the Java SDK's clients fill in (no token, as the SDK sends none)."""
    return UserAgent(env=env, subsystem=subsystem, path_=path, pid=os.getpid() if pid is None else pid, host=host,
                     port=port, version=version, username=username, password=password, idc=idc, group=group,
                     purpose=purpose)


def text_message(topic: str, body: str, *, properties: dict[str, str] | None = None,
                 content_type: str | None = "text/plain") -> EventMeshMessage:
    """An eventmeshmessage body (property names must be lowercase a-z0-9 for the runtime)."""
    headers = {} if content_type is None else {"datacontenttype": content_type}
    return EventMeshMessage(topic=topic, properties=dict(properties or {}), headers=headers, body=body)


@dataclass
class ClientReport:
    """What a client did. ok: no publish failed or went unanswered and no error ended the run."""

    sent: Counter = field(default_factory=Counter)  # frames written, by command name
    received: Counter = field(default_factory=Counter)  # frames read, by command name
    published: int = 0  # messages sent
    publish_acked: int = 0  # acks with code 0
    publish_failed: int = 0  # acks with code != 0, or none before the timeout / the end
    messages: int = 0  # pushed messages received
    acked: int = 0  # pushes acknowledged
    heartbeats: int = 0
    heartbeats_answered: int = 0
    refused: int = 0  # replies with code != 0
    unexpected: int = 0  # frames that answer nothing sent and are no push
    redirects: list[dict] = field(default_factory=list)
    server_goodbye: dict | None = None  # the SERVER_GOODBYE_REQUEST's code and desc
    error: str | None = None  # why the connection ended early

    @property
    def ok(self) -> bool:
        return not self.publish_failed and self.error is None

    def to_dict(self) -> dict:
        return {"sent": dict(sorted(self.sent.items())), "received": dict(sorted(self.received.items())),
                "published": self.published, "publish_acked": self.publish_acked,
                "publish_failed": self.publish_failed, "messages": self.messages, "acked": self.acked,
                "heartbeats": self.heartbeats, "heartbeats_answered": self.heartbeats_answered,
                "refused": self.refused, "unexpected": self.unexpected, "redirects": list(self.redirects),
                "server_goodbye": self.server_goodbye, "error": self.error, "ok": self.ok}


@dataclass
class _Pending:
    future: asyncio.Future
    replies: tuple[Command, ...]  # the reply command, and the request echoed (a refusal without a reply cmd)


class EventMeshClient:
    """One EventMesh TCP connection. `async with EventMeshClient(host, port, user_agent=...) as c:`
    connects and says hello; leaving says goodbye and closes.

    heartbeat_interval: seconds between heartbeats once the session is open (None: no timer).
    timeout: seconds to wait for the connection and for each reply. auto_ack: acknowledge pushes as
    they arrive (the SDK's behaviour). on_message(TcpMessage) / on_redirect(RedirectInfo): callbacks.
    max_queued: pushed messages kept for receive() (older ones are dropped with a warning).
    strict: the conformance report of the rules the server breaks (module doc).
    """

    def __init__(self, host: str, port: int, *, user_agent: UserAgent | None = None,
                 record: str | os.PathLike | None = None, record_sent: str | os.PathLike | None = None,
                 heartbeat_interval: float | None = HEARTBEAT_INTERVAL, timeout: float = 10.0, auto_ack: bool = True,
                 on_message: Callable[[TcpMessage], None] | None = None,
                 on_redirect: Callable[[RedirectInfo], None] | None = None, max_queued: int = 10000,
                 seed: int | None = None, strict: Report | None = None):
        self.host, self.port = host, port
        self.strict = strict
        self.user_agent = user_agent if user_agent is not None else make_user_agent()
        self.record, self.record_sent = record, record_sent
        self.heartbeat_interval, self.timeout, self.auto_ack = heartbeat_interval, timeout, auto_ack
        self.on_message, self.on_redirect, self.max_queued = on_message, on_redirect, max_queued
        self.report = ClientReport()
        self.session_open = False
        self._rng = random.Random(seed)
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._files: dict[str, BinaryIO] = {}
        self._pending: dict[str, _Pending] = {}
        self._messages: asyncio.Queue | None = None
        self._tasks: list[asyncio.Task] = []
        self._heartbeat_task: asyncio.Task | None = None
        self._heartbeats_stopped = False
        self._listen_reply: TcpMessage | None = None
        self._closed: asyncio.Event | None = None

    # -- connection ------------------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        return self._closed is not None and not self._closed.is_set()

    @property
    def closed(self) -> bool:
        return self._closed is not None and self._closed.is_set()

    async def wait_closed(self, timeout: float | None = None) -> None:
        if self._closed is None:
            return
        async with asyncio.timeout(timeout):
            await self._closed.wait()

    async def connect(self) -> None:
        if self._closed is not None:
            raise RuntimeError("the client is already connected (a client is used once)")
        try:
            self._reader, self._writer = await asyncio.wait_for(
                asyncio.open_connection(self.host, self.port), self.timeout)
        except OSError as exc:  # refused, unreachable, or TimeoutError
            self.report.error = f"cannot connect to {self.host}:{self.port}: {exc or type(exc).__name__}"
            raise ConnectionError(self.report.error) from None
        self._closed = asyncio.Event()
        self._messages = asyncio.Queue()
        try:
            for name, path in (("received", self.record), ("sent", self.record_sent)):
                if path is not None:
                    self._files[name] = open(path, "ab")
        except BaseException:
            await self.close()
            raise
        log.info("connected to %s:%d", self.host, self.port)
        self._tasks.append(asyncio.create_task(self._receive(), name="eventmesh-client-receive"))

    async def close(self) -> None:
        """Close the connection (without a goodbye; see goodbye()), stop the timers, close the records."""
        self._end("closed by the client")
        for task in self._tasks:
            if task is not asyncio.current_task():
                task.cancel()
        await asyncio.gather(*(t for t in self._tasks if t is not asyncio.current_task()), return_exceptions=True)
        self._tasks.clear()
        self._heartbeat_task = None
        if self._writer is not None:
            self._writer.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._writer.wait_closed(), 1.0)
        for handle in self._files.values():
            handle.close()
        self._files.clear()

    async def __aenter__(self) -> "EventMeshClient":
        await self.connect()
        try:
            await self.hello()
        except BaseException:
            await self.close()
            raise
        return self

    async def __aexit__(self, *exc_info) -> None:
        try:
            if self.session_open and self.connected:
                with contextlib.suppress(EventMeshError, ConnectionError, TimeoutError):
                    await self.goodbye()
        finally:
            await self.close()

    # -- requests --------------------------------------------------------------------------------

    def _next_seq(self) -> str:
        while True:
            seq = "".join(self._rng.choice(SEQ_DIGITS) for _ in range(SEQ_LENGTH))
            if seq not in self._pending:
                return seq

    def _write(self, frame, command: Command) -> None:
        """Write one frame built by the tcp helpers (command: what it carries, for the report)."""
        if not self.connected or self._writer is None or self._writer.is_closing():
            raise ConnectionError(f"not connected to {self.host}:{self.port}"
                                  + (f" ({self.report.error})" if self.report.error else ""))
        data = encode(frame)  # EncodeError for a body that cannot be written
        self._writer.write(data)
        self.report.sent[command.name] += 1
        handle = self._files.get("sent")
        if handle is not None:
            handle.write(data)
            handle.flush()

    async def _request(self, frame, command: Command, seq: str, reply: Command) -> TcpMessage:
        """Send one request and wait for its reply (or the request echoed with code 1)."""
        future = asyncio.get_running_loop().create_future()
        self._pending[seq] = _Pending(future, (reply, command))
        try:
            self._write(frame, command)
            await self._writer.drain()
            try:
                async with asyncio.timeout(self.timeout):  # unlike 3.11's wait_for, never swallows a cancel
                    answer = await future
            except TimeoutError:
                raise TimeoutError(f"no {reply.name} to {command.name} seq {seq} within {self.timeout}s") from None
        finally:
            self._pending.pop(seq, None)
            if not future.done():
                future.cancel()
        if answer.header.code != 0:
            raise EventMeshError(answer)
        return answer

    async def _simple(self, command: Command, reply: Command) -> TcpMessage:
        """A request with no body (heartbeat, listen, unsubscribe, goodbye), as the SDK builds it."""
        seq = self._next_seq()
        return await self._request(tcp.frame(tcp.header(command, seq=seq)), command, seq, reply)

    async def hello(self) -> TcpMessage:
        """HELLO_REQUEST with the UserAgent; starts the heartbeat timer once the session is open."""
        seq = self._next_seq()
        answer = await self._request(tcp.hello(self.user_agent, seq), Command.HELLO_REQUEST, seq,
                                     Command.HELLO_RESPONSE)
        self.session_open = True
        log.info("session open as %s (%s)", self.user_agent.group, self.user_agent.purpose)
        if self.heartbeat_interval is not None and self._heartbeat_task is None:
            self._heartbeat_task = asyncio.create_task(self._heartbeats(), name="eventmesh-client-heartbeat")
            self._tasks.append(self._heartbeat_task)
        return answer

    async def heartbeat(self) -> TcpMessage:
        self.report.heartbeats += 1
        answer = await self._simple(Command.HEARTBEAT_REQUEST, Command.HEARTBEAT_RESPONSE)
        self.report.heartbeats_answered += 1
        return answer

    async def subscribe(self, topic: str, mode: SubscriptionMode | str = SubscriptionMode.CLUSTERING,
                        type: SubscriptionType | str = SubscriptionType.ASYNC) -> TcpMessage:  # noqa: A002
        """SUBSCRIBE_REQUEST for one topic (mode CLUSTERING / BROADCASTING, type ASYNC / SYNC)."""
        seq = self._next_seq()
        frame = tcp.subscribe(topic, SubscriptionMode(mode), SubscriptionType(type), seq)
        return await self._request(frame, Command.SUBSCRIBE_REQUEST, seq, Command.SUBSCRIBE_RESPONSE)

    async def unsubscribe(self) -> TcpMessage:
        """UNSUBSCRIBE_REQUEST with no body, as the SDK sends it (the server drops all topics)."""
        return await self._simple(Command.UNSUBSCRIBE_REQUEST, Command.UNSUBSCRIBE_RESPONSE)

    async def listen(self) -> TcpMessage:
        """LISTEN_REQUEST; the server answers once per session, perhaps early (desc "succeed") when a
        push came first, and then this returns that answer without asking again."""
        if self._listen_reply is None:
            self._listen_reply = await self._simple(Command.LISTEN_REQUEST, Command.LISTEN_RESPONSE)
        return self._listen_reply

    async def publish_async(self, message: EventMeshMessage | CloudEvent | bytes) -> TcpMessage:
        """ASYNC_MESSAGE_TO_SERVER; returns the server's ASYNC_MESSAGE_TO_SERVER_ACK (code 0).
        message: an EventMeshMessage, or a CloudEvent (object or structured-JSON bytes)."""
        return await self._publish(Command.ASYNC_MESSAGE_TO_SERVER, message, Command.ASYNC_MESSAGE_TO_SERVER_ACK)

    async def publish_broadcast(self, message: EventMeshMessage | CloudEvent | bytes) -> TcpMessage:
        """BROADCAST_MESSAGE_TO_SERVER; returns the BROADCAST_MESSAGE_TO_SERVER_ACK (code 0)."""
        return await self._publish(Command.BROADCAST_MESSAGE_TO_SERVER, message,
                                   Command.BROADCAST_MESSAGE_TO_SERVER_ACK)

    async def _publish(self, command: Command, message, ack: Command) -> TcpMessage:
        seq = self._next_seq()
        frame = tcp.message(command, message, seq)  # protocoltype follows the body's kind
        self.report.published += 1
        try:
            answer = await self._request(frame, command, seq, ack)
        except (EventMeshError, TimeoutError, ConnectionError, EncodeError):
            self.report.publish_failed += 1
            raise
        self.report.publish_acked += 1
        return answer

    async def goodbye(self) -> TcpMessage:
        """CLIENT_GOODBYE_REQUEST; the server answers and closes the session. The heartbeat timer
        stops first, so that nothing follows the goodbye."""
        await self._stop_heartbeats()
        answer = await self._simple(Command.CLIENT_GOODBYE_REQUEST, Command.CLIENT_GOODBYE_RESPONSE)
        self.session_open = False
        return answer

    async def receive(self, timeout: float | None = None) -> TcpMessage:
        """The next pushed message (already acknowledged when auto_ack); ConnectionError once the
        connection has ended and no message is left, TimeoutError after `timeout` seconds."""
        if self._messages is None:
            raise ConnectionError("not connected")
        async with asyncio.timeout(timeout):
            item = await self._messages.get()
        if item is None:  # the end of the connection: stay at the end
            self._messages.put_nowait(None)
            raise ConnectionError(self.report.error or "the connection has ended")
        return item

    def ack(self, message: TcpMessage) -> None:
        """Acknowledge a push (done on arrival when auto_ack): its *_ACK, its seq, its body echoed."""
        self._write(tcp.ack(message), ACKS[message.command])
        self.report.acked += 1

    # -- timers ----------------------------------------------------------------------------------

    async def _stop_heartbeats(self) -> None:
        task, self._heartbeat_task = self._heartbeat_task, None
        self._heartbeats_stopped = True  # the loop ends even if a cancel is lost
        if task is not None and task is not asyncio.current_task():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            with contextlib.suppress(ValueError):
                self._tasks.remove(task)

    async def _heartbeats(self) -> None:
        loop = asyncio.get_running_loop()
        due = loop.time()
        while self.connected and self.session_open and not self._heartbeats_stopped:
            due += self.heartbeat_interval
            await asyncio.sleep(max(0.0, due - loop.time()))
            if loop.time() - due > self.heartbeat_interval:  # fell far behind: do not burst
                due = loop.time()
            try:
                await self.heartbeat()
            except EventMeshError as exc:
                log.warning("heartbeat refused: %s", exc)
            except TimeoutError as exc:
                log.warning("%s", exc)
            except ConnectionError:
                return

    # -- receiving -------------------------------------------------------------------------------

    async def _receive(self) -> None:
        decoder = StreamDecoder(PROTOCOL, direction="response", mode="FAILFAST")
        decoded = 0  # bytes of the server's whole frames so far (where a bad frame starts)
        reason = None
        try:
            while True:
                try:
                    data = await self._reader.read(READ_SIZE)
                except OSError as exc:
                    reason = f"connection to {self.host}:{self.port} lost: {exc}"
                    return
                handle = self._files.get("received")
                if handle is not None and data:
                    handle.write(data)
                    handle.flush()
                try:
                    for frame in decoder.feed(data) if data else decoder.close():
                        decoded = frame.offset + frame.length
                        self._dispatch(frame)
                    if data:
                        decoder.feed(b"")  # raises an error found after the frames just handled
                except DecodeError as exc:
                    if self.strict is not None:
                        self.strict(frame_rule(exc), peer=f"{self.host}:{self.port}", offset=decoded, got=str(exc))
                    reason = f"received bytes that do not decode, closing the connection: {exc}"
                    return
                if not data:
                    if self.session_open:
                        reason = f"{self.host}:{self.port} closed the connection"
                    return
        except Exception as exc:  # a bug or a failing callback ends the connection with a report
            log.exception("receiving failed")
            reason = f"receiving failed: {exc!r}"
        finally:
            if reason is not None and self.report.error is None:
                self.report.error = reason
                log.warning("%s", reason)
            self._end(reason or "the server closed the connection")
            if self._writer is not None:
                self._writer.close()

    def _end(self, reason: str) -> None:
        if self._closed is None or self._closed.is_set():
            return
        self._closed.set()
        self.session_open = False
        for pending in self._pending.values():
            if not pending.future.done():
                pending.future.set_exception(ConnectionError(reason))
                pending.future.exception()  # retrieved: no "never retrieved" warning if nobody waits
        if self._messages is not None:
            self._messages.put_nowait(None)

    def _dispatch(self, frame: Frame) -> None:
        message: TcpMessage = frame.payload
        command, seq = message.command, message.header.seq
        self.report.received[command.name] += 1
        log.debug("received %s seq=%s code=%s", command.name, seq, message.header.code)
        if message.header.code != 0:
            self.report.refused += 1
        if command == Command.CLIENT_GOODBYE_RESPONSE and message.header.code == 0:
            self.session_open = False  # the server closes the connection next: no error then
        pending = self._pending.get(seq) if seq is not None else None
        if pending is not None and command in pending.replies and not pending.future.done():
            pending.future.set_result(message)
            return
        if command in PUSHES:
            self._on_push(message)
        elif command == Command.LISTEN_RESPONSE:  # answered early, by the first push
            self._listen_reply = self._listen_reply or message
            for waiting in self._pending.values():
                if Command.LISTEN_RESPONSE in waiting.replies and not waiting.future.done():
                    waiting.future.set_result(message)
        elif command == Command.REDIRECT_TO_CLIENT:
            info = message.body if isinstance(message.body, RedirectInfo) else RedirectInfo()
            self.report.redirects.append({"ip": info.ip, "port": info.port})
            log.warning("the server redirects this client to %s:%s", info.ip, info.port)
            if self.on_redirect is not None:
                self.on_redirect(info)
        elif command == Command.SERVER_GOODBYE_REQUEST:
            self.report.server_goodbye = {"code": message.header.code, "desc": message.header.desc}
            log.warning("the server says goodbye: %s", message.header.desc)
            self.session_open = False
            with contextlib.suppress(ConnectionError, OSError):
                self._write(tcp.frame(tcp.header(Command.SERVER_GOODBYE_RESPONSE, seq=seq)),
                            Command.SERVER_GOODBYE_RESPONSE)
        else:
            self.report.unexpected += 1
            log.warning("a %s (seq %s) that answers nothing sent", command.name, seq)
            if self.strict is not None:
                self.strict("eventmesh.tcp-reply-seq", peer=f"{self.host}:{self.port}", offset=frame.offset,
                            length=frame.length, got=f"{command.name} seq={seq}, which no request waits for")

    def _on_push(self, message: TcpMessage) -> None:
        self.report.messages += 1
        if self.auto_ack:
            try:
                self.ack(message)
            except (ConnectionError, EncodeError, UnicodeDecodeError) as exc:
                log.warning("cannot acknowledge %s seq %s: %s", message.command.name, message.header.seq, exc)
        if self.on_message is not None:
            self.on_message(message)
        queue = self._messages
        if queue.qsize() >= self.max_queued:
            dropped = queue.get_nowait()
            log.warning("receive() is not keeping up: dropping the %s seq %s", dropped.command.name,
                        dropped.header.seq)
        queue.put_nowait(message)
