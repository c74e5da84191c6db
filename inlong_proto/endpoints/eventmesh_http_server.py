"""Reference asyncio EventMesh HTTP server: the runtime's legacy request-code API and its webhook pushes.

HTTP/1.1 is cut by h11 (sans-IO; asyncio streams do the I/O). Each complete request is then read by the
project's own decoder (`inlong_proto.eventmesh.http`, driven by specs/eventmesh/http.yaml), and every
byte written is built by that module's builders (`response`, `error_status`, `push`), so what this server
says is what the decoder reads. What it answers follows the runtime (docs/protocols/eventmesh.md, 2.1-2.6):

* only GET and POST (else 405, empty body, then close); a `version` header other than 1.0/2.0: 400, close;
  a request code that is blank or not served (and the URI-path API, not implemented here): 400 with
  retCode 2 and a `code` header (the text, or 0).
* header checks (idc, sys, numeric pid) where the spec's code table says so: retCode 6; a required form
  field missing or blank: retCode 7; message content over max_event_size characters: retCode 8 (7 for
  MSG_SEND_SYNC, as its processor words it); a form field that does not decode: HTTP 500, retCode 18.
* SUBSCRIBE (206) records (consumerGroup, url, item) per topic; UNSUBSCRIBE (207) drops the url from the
  topics named; HEARTBEAT (203) is answered; all three with retCode 0 "success" and only the code header.
* MSG_SEND_ASYNC (104) is answered "success" + SendResult[topic=..., messageId=...] and pushed on.
  MSG_SEND_SYNC (101) is pushed the same way and answered once a subscriber sends REPLY_MESSAGE (301)
  with the pushed uniqueId (retMsg: the reply as JSON ReplyMessage), or with retCode 4 after the
  message's ttl (capped by reply_timeout). Other served codes (102, 107) are refused with retCode 10.
* pushes: each accepted message goes to every BROADCASTING subscriber of its topic and to one url per
  consumer group for CLUSTERING ones (in turn), as a form POST with code 105 (106 for a SYNC item). The
  webhook's answer is read by the decoder: REMOTE_OK/OK complete it, FAIL (or no retCode) completes it
  as failed (counted, logged), RETRY/NOLISTEN, other statuses and connection errors retry up to the
  spec's retry limit, 410/415 give up.
* abuse protection (the CloudEvents HTTP webhook handshake, as the real runtime's WebhookUtil does it, but
  before the first push rather than at SUBSCRIBE, and strictly): before pushing to a url the pusher sends it
  an OPTIONS request with `WebHook-Request-Origin: <webhook_origin>`; only a 200 answer whose
  `WebHook-Allowed-Origin` is that origin or `*` lets pushes go (paced by `WebHook-Allowed-Rate`, pushes per
  minute, when given). The verdict is kept verdict_ttl seconds per url. A url that refused gets no POST:
  its queued pushes and every later one are dropped and counted (push_refused); a handshake that gets no
  answer at all (connection refused, timeout) counts as a failed push attempt and is retried like one.
  Targets on the `webhook_allow` list (host:port, as the url writes them) skip the handshake: for tests
  and demos. Handshakes are not written to the push recordings.

Defences, shared with the TCP servers (`inlong_proto.endpoints.common.Link`): a connection without a whole
request for idle_timeout seconds is closed; a request whose head is over the spec's max-head-bytes or
whose body is over max_request_size is answered 431/413 and closed before its body is read (a huge
Content-Length costs nothing); bytes HTTP cannot parse get 400 and a close; a client that leaves over
max_pending bytes unread is dropped; pushes waiting for their webhook are capped (max_pending_pushes: the
rest are dropped and counted); one client (an IP address) holds at most max_subscriptions (topic, url)
subscriptions (more get retCode 19); log lines about a peer or a webhook are rate-limited, per peer and
over the whole process (endpoints.LogBudget).

strict (a core.conformance Report): each rule of specs/eventmesh/conformance.yaml a client breaks is
reported with the offset of the request in what that client sent on its connection; answers stay the same.

faults (endpoints.faults, tests of the audit): a plan over the sends (101, 102, 104, 107) that pass the request
code checks. "fail" answers as the runtime's processor does when its producer fails (retCode 15
EVENTMESH_SEND_ASYNC_MSG_ERR for 104, 3 EVENTMESH_SEND_SYNC_MSG_ERR for 101, 17 EVENTMESH_SEND_BATCHLOG_MSG_ERR
for a batch), nothing pushed; "drop" leaves the request unanswered, and since HTTP/1.1 answers in order, nothing
after it on the connection is answered either (it is read and ignored until the client closes or idle_timeout).
"""
from __future__ import annotations

import asyncio
import itertools
import logging
import os
import random
import time
import urllib.parse
from collections import Counter, OrderedDict, deque
from collections.abc import Iterable
from dataclasses import dataclass, field

import h11

from inlong_proto.endpoints.common import (DEFAULT_LOG_RATE, Link, LinkStats, ListeningServer, LogBudget, PeerLog,
                                           RawStream, connection_scope, host_port)
from inlong_proto.endpoints.faults import FAULT_TEXT, Faults
from inlong_proto.core.conformance import Report
from inlong_proto.core.errors import DecodeError
from inlong_proto.eventmesh import http
from inlong_proto.eventmesh.http import (BODIES, CODES, HEADER_KEYS, MAX_HEAD, PUSH, RET_CODES, TRANSPORT,
                                         ClientRetCode, HttpRequest, HttpResponse, HttpStreamDecoder, ReplyMessage,
                                         RequestCode, RetCode, SubscriptionItem, SubscriptionMode, SubscriptionType)
from inlong_proto.eventmesh.tcp import dumps

log = logging.getLogger(__name__)

READ_SIZE = 65536
DEFAULT_IDLE_TIMEOUT = 60.0
DEFAULT_MAX_REQUEST_SIZE = 1 << 20
DEFAULT_TTL_MS = 14400000  # EventMeshConstants.DEFAULT_MSG_TTL_MILLS: a blank ttl
CLUSTER, ENV, IDC = "EventMeshCluster", "env", "idc"  # what this runtime says it is (response and push headers)
MAX_REPLY_SIZE = 1 << 16  # a webhook's answer longer than this is treated as a failed push
COMPLETED_OK = (ClientRetCode.REMOTE_OK.name, ClientRetCode.OK.name)
#: Pushes waiting for their webhooks, over all of them; further ones are dropped and counted.
DEFAULT_MAX_PENDING_PUSHES = 1000
#: (topic, url) subscriptions one client (IP address) may hold at once.
DEFAULT_MAX_SUBSCRIPTIONS = 100
#: Seconds a webhook's answer to the abuse-protection handshake is trusted before it is asked again.
DEFAULT_VERDICT_TTL = 600.0
#: Webhook verdicts remembered at once (the least recently used are forgotten first).
MAX_VERDICTS = 10000
#: What the handshake's WebHook-Request-Origin says this runtime is.
DEFAULT_WEBHOOK_ORIGIN = "inlong-proto-eventmesh"
REQUEST_ORIGIN, ALLOWED_ORIGIN = "WebHook-Request-Origin", "WebHook-Allowed-Origin"
ALLOWED_RATE = "WebHook-Allowed-Rate"
MAX_HANDSHAKE_HEAD = 16384  # a longer answer head to the OPTIONS request is a refusal
FORM_TYPE = TRANSPORT["form"]["content-type"]  # what a POST body is sent as
#: The sends a fault plan counts, and the retCode of each one's failure answer (module doc).
FAULT_FAILURES = {RequestCode.MSG_SEND_ASYNC: RetCode.EVENTMESH_SEND_ASYNC_MSG_ERR,
                  RequestCode.MSG_SEND_SYNC: RetCode.EVENTMESH_SEND_SYNC_MSG_ERR,
                  RequestCode.MSG_BATCH_SEND: RetCode.EVENTMESH_SEND_BATCHLOG_MSG_ERR,
                  RequestCode.MSG_BATCH_SEND_V2: RetCode.EVENTMESH_SEND_BATCHLOG_MSG_ERR}


class Refused(Exception):
    """Bytes that are not a request this server reads: answer `status` (empty body) and close."""

    def __init__(self, status: int, reason: str):
        super().__init__(reason)
        self.status = status


class RequestReader:
    """One connection's requests, cut by h11: feed bytes, get each complete request's exact bytes.

    A fresh h11 connection reads each request (the leftover bytes carried over), as the stream decoder
    does, so where one request ends is known exactly (for recording) and the answer need not go through
    h11's state machine. A head over MAX_HEAD bytes or a body over max_body bytes raises Refused as soon as
    it is known (from Content-Length before any body byte arrives), so memory stays bounded.
    """

    def __init__(self, max_body: int):
        self.max_body = max_body
        self.closed = False  # the peer ended its side at a request boundary
        self._raw = bytearray()  # bytes of the request being read (and any after it)
        self._conn = self._fresh(b"")

    def _fresh(self, data: bytes) -> h11.Connection:
        conn = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEAD)
        if data:
            conn.receive_data(data)
        self._size = 0
        return conn

    @property
    def pending(self) -> int:
        """Bytes received that no complete request has taken yet."""
        return len(self._raw)

    def feed(self, data: bytes) -> list[bytes]:
        """data b"": the peer closed its side."""
        self._raw += data
        self._conn.receive_data(data)
        out = []
        while True:
            try:
                event = self._conn.next_event()
            except h11.RemoteProtocolError as exc:
                raise Refused(exc.error_status_hint, http.h11_reason(exc)[0] or "malformed HTTP") from None
            if event is h11.NEED_DATA:
                return out
            if isinstance(event, h11.ConnectionClosed):
                self.closed = True
                return out
            if isinstance(event, h11.Request):
                length = dict(event.headers).get(b"content-length")
                if length is not None and int(length) > self.max_body:
                    raise Refused(413, f"Content-Length {int(length)} is over {self.max_body} bytes")
            elif isinstance(event, h11.Data):
                self._size += len(event.data)
                if self._size > self.max_body:
                    raise Refused(413, f"body over {self.max_body} bytes")
            elif isinstance(event, h11.EndOfMessage):
                trailing, closed = self._conn.trailing_data
                end = len(self._raw) - len(trailing)
                out.append(bytes(self._raw[:end]))
                del self._raw[:end]
                self._conn = self._fresh(bytes(trailing))
                if closed:
                    self._conn.receive_data(b"")


def read_request(raw: bytes) -> HttpRequest:
    """The one request in raw (as RequestReader cut it), read by the spec-driven decoder."""
    decoder = HttpStreamDecoder("request")
    (message,) = decoder.feed(raw) + decoder.close()
    return message


def wants_close(request: HttpRequest) -> bool:
    """Whether the client asked for the connection to end after this answer (HTTP/1.0 or Connection: close)."""
    value = next((v.lower() for n, v in request.headers if n.lower() == "connection"), None)
    return value == "close" or (request.http_version == "1.0" and value != "keep-alive")


def split_url(url: str) -> tuple[str, int] | None:
    """(host, port) of an http:// webhook url, or None when this server cannot push to it."""
    try:
        parts = urllib.parse.urlsplit(url)
        port = parts.port or 80
    except ValueError:
        return None
    if parts.scheme != "http" or not parts.hostname:
        return None
    return parts.hostname, port


def allow_entry(value) -> tuple[str, int]:
    """A --webhook-allow entry: "host:port" (IPv6 in brackets) or a (host, port) pair, compared with the
    host and port a webhook url names (its port 80 when it names none), host case-insensitively."""
    host, port = value if isinstance(value, tuple) else host_port(value)
    return host.lower(), int(port)


def _ret_msg(code: RetCode, detail: str = "") -> str:
    return RET_CODES[int(code)]["msg"] + detail


@dataclass
class Message:
    """An accepted message, as it is pushed on."""

    topic: str
    content: str
    bizseqno: str
    uniqueid: str
    ext_fields: dict[str, str]


@dataclass(eq=False)
class PushJob:
    message: Message
    sync: bool  # a SYNC subscription's push (code 106), else 105
    attempts: int = 0


@dataclass(eq=False)
class Webhook:
    """One subscriber url: its queue of pushes, sent one at a time on one keep-alive connection."""

    url: str
    address: tuple[str, int]
    log: PeerLog
    queue: deque = field(default_factory=deque)
    task: asyncio.Task | None = None  # the pusher, from the first push queued until the queue is empty
    reader: asyncio.StreamReader | None = None
    writer: asyncio.StreamWriter | None = None
    decoder: HttpStreamDecoder | None = None
    raw: RawStream | None = None
    next_push: float = 0.0  # loop time before which WebHook-Allowed-Rate lets no push go

    def disconnect(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = self.decoder = self.raw = None


@dataclass
class Verdict:
    """A webhook's answer to the handshake: whether it takes pushes from this origin, until when."""

    allowed: bool
    expires: float  # loop time
    why: str
    rate: int | None = None  # pushes per minute it allows (None: no limit given)


@dataclass
class HttpServerStats:
    """Counters over the server's lifetime (tests and the CLI summary read them)."""

    connections: int = 0
    received: Counter = field(default_factory=Counter)  # requests, by request code name
    answered: Counter = field(default_factory=Counter)  # answers, by retCode name, or "HTTP <status>"
    published: int = 0  # messages accepted
    refused: int = 0  # answers with a retCode other than 0, or an HTTP error status
    subscriptions: int = 0  # (topic, url) pairs added
    heartbeats: int = 0
    replies: int = 0  # REPLY_MESSAGEs that answered a waiting MSG_SEND_SYNC
    sync_timeouts: int = 0  # MSG_SEND_SYNCs that got no reply in time
    pushed: int = 0  # push requests written (retries included)
    push_ok: int = 0  # pushes the webhook completed with REMOTE_OK or OK
    push_failed: int = 0  # pushes answered FAIL (or no retCode), or given up after retries / 410 / 415
    push_retries: int = 0
    push_dropped: int = 0  # pushes not queued: over max_pending_pushes
    handshakes: int = 0  # abuse-protection OPTIONS requests sent
    webhooks_refused: int = 0  # handshakes a webhook refused (its pushes are dropped)
    push_refused: int = 0  # pushes not sent because their webhook refused the handshake
    subscriptions_refused: int = 0  # SUBSCRIBEs over a client's max_subscriptions
    closed_for_bad_input: int = 0
    links: LinkStats = field(default_factory=LinkStats)

    def to_dict(self) -> dict:
        return {"connections": self.connections, "received": dict(sorted(self.received.items())),
                "answered": dict(sorted(self.answered.items())), "published": self.published,
                "refused": self.refused, "subscriptions": self.subscriptions, "heartbeats": self.heartbeats,
                "replies": self.replies, "sync_timeouts": self.sync_timeouts, "pushed": self.pushed,
                "push_ok": self.push_ok, "push_failed": self.push_failed, "push_retries": self.push_retries,
                "push_dropped": self.push_dropped, "handshakes": self.handshakes,
                "webhooks_refused": self.webhooks_refused, "push_refused": self.push_refused,
                "subscriptions_refused": self.subscriptions_refused, "closed_for_bad_input": self.closed_for_bad_input,
                **self.links.to_dict()}


class Answer(Exception):
    """A processor's early answer: retCode and detail (raised to leave the processor at once), and the rule
    of specs/eventmesh/conformance.yaml the request broke, when one says so."""

    def __init__(self, code: RetCode, detail: str = "", rule: str | None = None):
        super().__init__(detail)
        self.code, self.detail, self.rule = code, detail, rule


class WebhookPusher:
    """The runtime's webhook pushes (module doc), for the HTTP and the gRPC runtime alike: a queue per url, at
    most max_pending pushes waiting in all; each url must first agree to take pushes (the handshake), then its
    pushes go one at a time on one keep-alive connection, and the answer, read by the decoder, completes,
    fails or retries the push as the spec says. stats: an object with the counters pushed, push_ok,
    push_failed, push_retries, push_dropped, handshakes, webhooks_refused and push_refused."""

    def __init__(self, stats, *, host: str, log_rate: float | None, push_timeout: float, retry_delay: float,
                 max_pending: int, rng: random.Random, record=None, allow: Iterable = (),
                 origin: str = DEFAULT_WEBHOOK_ORIGIN, verdict_ttl: float = DEFAULT_VERDICT_TTL,
                 log_budget: LogBudget | None = None):
        self.stats, self.host, self.log_rate = stats, host, log_rate
        self.push_timeout, self.retry_delay, self.max_pending = push_timeout, retry_delay, max_pending
        self.allow = frozenset(allow_entry(entry) for entry in allow)
        self.origin, self.verdict_ttl, self.log_budget = origin, verdict_ttl, log_budget
        self._rng = rng
        self.record = record or (lambda name, data: None)  # record(name, bytes): "pushes", "push_replies"
        self._hooks: dict[str, Webhook] = {}
        self._verdicts: OrderedDict[str, Verdict] = OrderedDict()
        self.pending = 0  # pushes waiting in all webhook queues

    def push(self, url: str, message: Message, sync: bool, plog: PeerLog) -> bool:
        """Queue one push to url; False (counted, logged on plog) when max_pending are waiting already or the
        url refused the handshake."""
        verdict = self.verdict(url)
        if verdict is not None and not verdict.allowed:
            self.stats.push_refused += 1
            plog.warning("%s refused pushes (%s): not pushing to it", url, verdict.why)
            return False
        if self.pending >= self.max_pending:
            self.stats.push_dropped += 1
            plog.warning("%d pushes pending, dropping the push to %s", self.pending, url)
            return False
        hook = self._hooks.get(url)
        if hook is None:
            hook = self._hooks[url] = Webhook(url, split_url(url), PeerLog(log, url, self.log_rate,
                                                                           budget=self.log_budget))
            hook.task = asyncio.create_task(self._run(hook), name=f"push {url}")
        hook.queue.append(PushJob(message, sync))
        self.pending += 1
        return True

    def allowed(self, url: str) -> bool:
        """Whether url is on the allow list (no handshake)."""
        address = split_url(url)
        return address is not None and (address[0].lower(), address[1]) in self.allow

    def verdict(self, url: str) -> Verdict | None:
        """The url's answer to the handshake while it is trusted (None: none yet, or expired)."""
        verdict = self._verdicts.get(url)
        if verdict is None:
            return None
        if verdict.expires <= asyncio.get_running_loop().time():
            del self._verdicts[url]
            return None
        self._verdicts.move_to_end(url)
        return verdict

    async def close(self) -> None:
        """Stop every pusher (what is still queued is not sent)."""
        tasks = [hook.task for hook in self._hooks.values()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _run(self, hook: Webhook) -> None:
        """Send a webhook's pushes one after the other, once it agreed, retrying as the runtime does."""
        try:
            while hook.queue:
                job = hook.queue[0]
                agreement = await self._agreement(hook)
                if agreement == "refused":
                    self.stats.push_refused += len(hook.queue)  # the finally forgets them
                    break
                if agreement == "allowed":
                    await self._pace(hook)
                    outcome, delay = await self._push(hook, job)
                else:  # the handshake got no answer: like a push that got none
                    outcome, delay = "retry", None
                if outcome == "retry" and job.attempts < PUSH["retry-limit"]:
                    job.attempts += 1
                    self.stats.push_retries += 1
                    await asyncio.sleep(self.retry_delay if delay is None else delay)
                    continue
                hook.queue.popleft()
                self.pending -= 1
                if outcome == "ok":
                    self.stats.push_ok += 1
                else:
                    self.stats.push_failed += 1
                    why = f"still failing after {job.attempts} retries" if outcome == "retry" else outcome
                    hook.log.warning("push of %s failed: %s", job.message.uniqueid, why)
        finally:  # an idle webhook costs nothing: its connection is closed and it is forgotten
            self.pending -= len(hook.queue)
            hook.disconnect()
            hook.log.flush()
            self._hooks.pop(hook.url, None)

    # -- abuse protection --------------------------------------------------------------------------

    async def _agreement(self, hook: Webhook) -> str:
        """"allowed" (the allow list, or a trusted yes), "refused" (a trusted no), or "retry" (no answer)."""
        if self.allowed(hook.url):
            return "allowed"
        verdict = self.verdict(hook.url)
        if verdict is None:
            self.stats.handshakes += 1
            try:
                verdict = await self._handshake(hook)
            except (OSError, TimeoutError, ConnectionError) as exc:
                hook.log.warning("handshake with %s: %s", hook.url, str(exc) or type(exc).__name__)
                return "retry"
            self._verdicts[hook.url] = verdict
            if len(self._verdicts) > MAX_VERDICTS:
                self._verdicts.popitem(last=False)
            if verdict.allowed:
                hook.log.info("%s agreed to take pushes (%s)", hook.url, verdict.why)
            else:
                self.stats.webhooks_refused += 1
                hook.log.warning("%s refused pushes (%s): its pushes are dropped", hook.url, verdict.why)
        return "allowed" if verdict.allowed else "refused"

    async def _handshake(self, hook: Webhook) -> Verdict:
        """The OPTIONS validation request on a connection of its own, and what its answer says."""
        parts = urllib.parse.urlsplit(hook.url)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        conn = h11.Connection(h11.CLIENT, max_incomplete_event_size=MAX_HANDSHAKE_HEAD)
        request = conn.send(h11.Request(method="OPTIONS", target=target, headers=[
            ("Host", parts.netloc), (REQUEST_ORIGIN, self.origin), ("Content-Length", "0"),
            ("Connection", "close")])) + conn.send(h11.EndOfMessage())
        expires = asyncio.get_running_loop().time() + self.verdict_ttl
        async with asyncio.timeout(self.push_timeout):
            reader, writer = await asyncio.open_connection(*hook.address)
            try:
                writer.write(request)
                await writer.drain()
                answered = False  # any byte: what ends up not being an HTTP answer is a no, not silence
                while True:
                    try:
                        event = conn.next_event()
                    except h11.RemoteProtocolError as exc:
                        return Verdict(False, expires, f"not an HTTP answer: {http.h11_reason(exc)[0]}")
                    if event is h11.NEED_DATA:
                        data = await reader.read(READ_SIZE)
                        if not data and not answered:
                            raise ConnectionError("the webhook closed the connection without an answer")
                        answered = True
                        conn.receive_data(data)
                    elif isinstance(event, h11.Response):
                        break
                    elif not isinstance(event, h11.InformationalResponse):
                        raise ConnectionError("the webhook closed the connection without an answer")
            finally:
                writer.close()
        return self._verdict_of(event, expires)

    def _verdict_of(self, answer: h11.Response, expires: float) -> Verdict:
        headers = {name.decode("latin-1").lower(): value.decode("latin-1").strip() for name, value in answer.headers}
        origin = headers.get(ALLOWED_ORIGIN.lower())
        if answer.status_code != 200:
            return Verdict(False, expires, f"HTTP {answer.status_code}")
        if origin is None:
            return Verdict(False, expires, f"no {ALLOWED_ORIGIN}")
        if origin != "*" and origin.lower() != self.origin.lower():
            return Verdict(False, expires, f"{ALLOWED_ORIGIN}: {origin!r}, not {self.origin!r}")
        rate = headers.get(ALLOWED_RATE.lower(), "")
        per_minute = int(rate) if rate.isdecimal() and int(rate) > 0 else None
        return Verdict(True, expires, f"{ALLOWED_ORIGIN}: {origin}", per_minute)

    async def _pace(self, hook: Webhook) -> None:
        """Wait as long as the webhook's WebHook-Allowed-Rate asks between two pushes."""
        verdict = self._verdicts.get(hook.url)
        if verdict is None or verdict.rate is None:
            return
        loop = asyncio.get_running_loop()
        delay = hook.next_push - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
        hook.next_push = loop.time() + 60.0 / verdict.rate

    async def _push(self, hook: Webhook, job: PushJob) -> tuple[str, float | None]:
        """One push and its answer: ("ok" | "failed" | "retry" | "no_retry" | ..., retry delay or None)."""
        message = job.message
        data = http.push(hook.url, message.content, message.topic, bizseqno=message.bizseqno,
                         unique_id=message.uniqueid, random_no=str(self._rng.randrange(10 ** 9)),
                         ext_fields=message.ext_fields, sync=job.sync,
                         cluster=CLUSTER, eventmesh_ip=self.host, env=ENV, idc=IDC)
        try:
            async with asyncio.timeout(self.push_timeout):
                if hook.writer is None:
                    hook.reader, hook.writer = await asyncio.open_connection(*hook.address)
                    hook.decoder, hook.raw = HttpStreamDecoder("response"), RawStream()
                hook.writer.write(data)
                self.stats.pushed += 1
                self.record("pushes", data)
                await hook.writer.drain()
                reply = await self._read_reply(hook)
        except (OSError, TimeoutError, DecodeError, ConnectionError) as exc:
            hook.log.warning("push to %s: %s", hook.url, str(exc) or type(exc).__name__)
            hook.disconnect()
            return "retry", None
        if wants_close(reply):
            hook.disconnect()
        outcome = reply.push_outcome or {"outcome": "retry"}
        if outcome["outcome"] == "complete":
            name = outcome["client_ret_code"]
            if name in COMPLETED_OK:
                return "ok", None
            hook.log.warning("webhook answered %s (HTTP %d)", name, reply.status)
            return f"webhook answered {name}", None
        hook.log.info("webhook answered HTTP %d: %s", reply.status, outcome["outcome"])
        delay = outcome.get("retry_after_ms")
        return outcome["outcome"], None if delay is None else delay / 1000

    async def _read_reply(self, hook: Webhook) -> HttpResponse:
        while True:
            data = await hook.reader.read(READ_SIZE)
            hook.raw.add(data)
            found = hook.decoder.feed(data) if data else hook.decoder.close()
            if found:
                self.record("push_replies", hook.raw.take(found[0]))
                return found[0]
            if not data:
                raise ConnectionError("the webhook closed the connection without an answer")
            if hook.decoder.buffered > MAX_REPLY_SIZE:
                raise ConnectionError(f"the webhook's answer is over {MAX_REPLY_SIZE} bytes")


class EventMeshHttpServer(ListeningServer):
    """A minimal EventMesh HTTP runtime. `async with EventMeshHttpServer(port=0) as server:`; `server.port`.

    record / record_sent: files the exact bytes of every request read / answer written are appended to;
    record_pushes / record_push_replies: the same for pushes written to webhooks / their answers. Each file
    is one direction of HTTP, so `inlong-proto decode -p eventmesh-http FILE` reads it. webhook_allow:
    "host:port" targets pushed to without the handshake (module doc). log_budget: the LogBudget every log
    line about a peer or webhook also draws on (the process's unless given). strict: the conformance report
    of the rules a client breaks (module doc). faults: the module doc's; `faulted` lists (n, what).
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, record: str | os.PathLike | None = None,
                 record_sent: str | os.PathLike | None = None, record_pushes: str | os.PathLike | None = None,
                 record_push_replies: str | os.PathLike | None = None,
                 idle_timeout: float | None = DEFAULT_IDLE_TIMEOUT,
                 max_event_size: int = TRANSPORT["max-event-size"]["characters"],
                 max_request_size: int = DEFAULT_MAX_REQUEST_SIZE, max_pending: int | None = 4 * 1024 * 1024,
                 max_pending_pushes: int = DEFAULT_MAX_PENDING_PUSHES, push_timeout: float = 5.0,
                 retry_delay: float = 1.0, reply_timeout: float = 10.0, log_rate: float | None = DEFAULT_LOG_RATE,
                 seed: int | None = None, webhook_allow: Iterable = (), webhook_origin: str = DEFAULT_WEBHOOK_ORIGIN,
                 verdict_ttl: float = DEFAULT_VERDICT_TTL, max_subscriptions: int = DEFAULT_MAX_SUBSCRIPTIONS,
                 log_budget: LogBudget | None = None, faults: dict | None = None, strict: Report | None = None):
        if idle_timeout is not None and idle_timeout <= 0:
            raise ValueError(f"idle_timeout must be positive or None, not {idle_timeout!r}")
        self.strict = strict
        self.faults = Faults(faults)
        self.paths = {"received": record, "sent": record_sent, "pushes": record_pushes,
                      "push_replies": record_push_replies}
        self._init_listening(host, port, self.paths, log)
        self.idle_timeout, self.max_event_size, self.max_request_size = idle_timeout, max_event_size, max_request_size
        self.max_pending, self.max_pending_pushes, self.log_rate = max_pending, max_pending_pushes, log_rate
        self.push_timeout, self.retry_delay, self.reply_timeout = push_timeout, retry_delay, reply_timeout
        self.max_subscriptions, self.log_budget = max_subscriptions, log_budget
        self.stats = HttpServerStats()
        self._rng = random.Random(seed)
        self._links: dict[Link, None] = {}
        self._ids = itertools.count(1)
        # topic -> (consumerGroup, url) -> item, in subscription order
        self.subscriptions: dict[str, dict[tuple[str, str], SubscriptionItem]] = {}
        self._owners: dict[tuple[str, str, str], str] = {}  # (topic, group, url) -> the client (IP) it counts for
        self._owned: Counter = Counter()  # client (IP) -> subscriptions it holds
        self._turn: Counter = Counter()  # (topic, group) -> next CLUSTERING member
        self.pusher = WebhookPusher(self.stats, host=host, log_rate=log_rate, push_timeout=push_timeout,
                                    retry_delay=retry_delay, max_pending=max_pending_pushes, rng=self._rng,
                                    record=self._record, allow=webhook_allow, origin=webhook_origin,
                                    verdict_ttl=verdict_ttl, log_budget=log_budget)
        self._waiting: dict[str, asyncio.Future] = {}  # uniqueid of a MSG_SEND_SYNC -> its reply
        self._processors = {RequestCode.MSG_SEND_ASYNC: self._send_async, RequestCode.MSG_SEND_SYNC: self._send_sync,
                            RequestCode.HEARTBEAT: self._heartbeat, RequestCode.SUBSCRIBE: self._subscribe,
                            RequestCode.UNSUBSCRIBE: self._unsubscribe, RequestCode.REPLY_MESSAGE: self._reply}

    # -- lifecycle -----------------------------------------------------------------------------

    @property
    def pending_pushes(self) -> int:
        return self.pusher.pending

    @property
    def faulted(self) -> list[tuple[int, str | float]]:
        return self.faults.faulted

    def _open_links(self):
        return self._links

    async def _stopping(self) -> None:
        """Calls waiting for a reply are answered (retCode 4), webhook pushers stop."""
        for future in self._waiting.values():
            if not future.done():
                future.set_exception(TimeoutError("the server is stopping"))
        await self.pusher.close()

    def _stopped_log(self) -> None:
        if self.log_budget is not None:
            self.log_budget.flush()
        log.info("stopped: %s", self.stats.to_dict())

    def _record(self, name: str, data: bytes) -> None:
        handle = self._files.get(name)
        if handle is not None:
            handle.write(data)
            handle.flush()

    # -- connections ---------------------------------------------------------------------------

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        link = Link(writer, log, idle_timeout=self.idle_timeout, max_pending=self.max_pending,
                    log_rate=self.log_rate, stats=self.stats.links, log_budget=self.log_budget)
        self._links[link] = None
        self.stats.connections += 1
        try:
            async with connection_scope(self._handlers, link):
                await self._converse(reader, link)
        finally:
            self._links.pop(link, None)

    async def _converse(self, reader: asyncio.StreamReader, link: Link) -> None:
        requests = RequestReader(self.max_request_size)
        received = 0  # bytes the client sent so far
        while not link.closing:
            data = await reader.read(READ_SIZE)  # under the link's deadline
            received += len(data)
            try:
                chunks = requests.feed(data)
            except Refused as exc:
                self._report(link, "eventmesh.http-message", received - requests.pending, f"HTTP {exc.status}: {exc}")
                self.stats.closed_for_bad_input += 1
                link.log.always(logging.WARNING, "answering %d and closing: %s", exc.status, exc)
                self._write(link, http.error_status(exc.status), f"HTTP {exc.status}")
                return
            offset = received - requests.pending - sum(map(len, chunks))  # where the first of them starts
            for raw in chunks:
                link.progress()
                answered = await self._on_request(link, raw, offset)
                if answered is None:  # dropped by the fault plan: nothing after it is answered (module doc)
                    while await reader.read(READ_SIZE):
                        pass
                if not answered:
                    return
                offset += len(raw)
            if not data or requests.closed:
                return
            await link.drain()

    def _report(self, link: Link, rule: str, offset: int, got: str, length: int | None = None) -> None:
        if self.strict is not None:
            self.strict(rule, peer=link.name, offset=offset, got=got, length=length)

    async def _on_request(self, link: Link, raw: bytes, offset: int) -> bool | None:
        """Answer one complete request (at offset in what the client sent); False closes the connection, None
        leaves it unanswered (a fault)."""
        self._record("received", raw)
        try:
            request = read_request(raw)
        except DecodeError as exc:  # a form field the runtime's decoder (or body builder) throws on
            self._report(link, "eventmesh.http-form", offset, str(exc), len(raw))
            self.stats.received[RequestCode.UNKNOWN.name] += 1
            return self._refuse(link, 500, f"the request does not decode: {exc}")
        self.stats.received[request.message_type] += 1
        link.log.debug("%s %s", request.method, request.message_type)
        if request.method not in TRANSPORT["methods"]["allowed"]:
            self._report(link, "eventmesh.http-method", offset, f"method {request.method}", len(raw))
            return self._refuse(link, TRANSPORT["methods"]["refused-status"], f"method {request.method}")
        version = (request.protocol_headers.get("version") or "").strip() or TRANSPORT["version"]["default"]
        if version not in TRANSPORT["version"]["allowed"]:
            self._report(link, "eventmesh.http-version", offset, f"version {version!r}", len(raw))
            return self._refuse(link, TRANSPORT["version"]["refused-status"], f"version {version!r}")
        entry = CODES.get(int(request.code)) if request.code is not None else None
        if request.kind != "request" or entry is None or not entry["served"] or request.code_text != str(entry["code"]):
            self._report(link, "eventmesh.http-request-code", offset, f"code {request.code_text!r} "
                         f"({request.message_type})", len(raw))
            code = RetCode.EVENTMESH_REQUESTCODE_INVALID
            self._answer(link, (request.code_text or "").strip() or "0", code, _ret_msg(code), status=400)
            return not wants_close(request)
        content_type = next((v for n, v in request.headers if n.lower() == "content-type"), None)
        if request.method == "POST" and (content_type or "").split(";")[0].strip().lower() != FORM_TYPE:
            self._report(link, "eventmesh.http-content-type", offset, f"Content-Type {content_type!r}", len(raw))
        fault = self.faults.next() if self.faults and request.code in FAULT_FAILURES else None
        if fault in ("drop", "close"):
            link.log.info("%s: fault %s, no answer", request.message_type, fault)
            return None if fault == "drop" else False
        if fault == "fail":
            code = FAULT_FAILURES[request.code]
            self._answer(link, request.code, code, _ret_msg(code, f": {FAULT_TEXT}"), instance=self._instance())
            return not wants_close(request)
        try:
            self._check(request, entry)
            processor = self._processors.get(request.code)
            if processor is None:
                raise Answer(RetCode.EVENTMESH_REJECT_BY_PROCESSOR_ERROR,
                             f": {request.code.name} is not implemented by this reference server")
            code, ret_msg, instance = await processor(link, request)
        except Answer as answer:
            if answer.rule is not None:
                self._report(link, answer.rule, offset, f"retCode {int(answer.code)}{answer.detail}", len(raw))
            code, ret_msg, instance = answer.code, _ret_msg(answer.code, answer.detail), None
        if fault is not None:  # a delay
            link.rest()
            await asyncio.sleep(fault)
            link.progress()
        self._answer(link, request.code, code, ret_msg, instance=instance)
        return not wants_close(request)

    def _check(self, request: HttpRequest, entry: dict) -> None:
        """The runtime's header and body checks, from the spec's tables."""
        if entry.get("header-checks"):
            for key, spec in HEADER_KEYS.items():
                value = request.protocol_headers.get(key) or ""
                if spec.get("checked") and not value.strip() or spec.get("numeric") and not value.isdecimal():
                    raise Answer(RetCode.EVENTMESH_PROTOCOL_HEADER_ERR, f", {key} is {value!r}",
                                 "eventmesh.http-header-checks")
        body = BODIES[entry["body"]]
        required = body.get("required-by-protocol", {}).get(request.protocol_headers.get("protocoltype"))
        for spec in body["fields"]:
            key = spec["key"]
            if spec.get("required") and (required is None or key in required):
                value = request.fields.get(key)
                if value is None or isinstance(value, str) and not value.strip() or value == []:
                    raise Answer(RetCode(body["missing-ret-code"]), f", {key} is blank",
                                 "eventmesh.http-required-fields")

    # -- writing -------------------------------------------------------------------------------

    def _write(self, link: Link, data: bytes, what: str) -> bool:
        if not link.write(data):
            return False
        self.stats.answered[what] += 1
        self._record("sent", data)
        return True

    def _answer(self, link: Link, request_code, code: RetCode, ret_msg: str, *, status: int = 200,
                instance: dict | None = None) -> None:
        """The runtime's JSON answer (instance: the eventmesh* headers, which only processors' answers carry)."""
        if code != RetCode.SUCCESS:
            self.stats.refused += 1
            link.log.warning("%s retCode %d: %s", request_code, int(code), ret_msg)
        data = http.response(request_code, int(code), ret_msg, int(time.time() * 1000), status=status,
                             instance=instance)
        self._write(link, data, code.name)

    def _refuse(self, link: Link, status: int, why: str) -> bool:
        """The runtime's sendError: an empty answer, then the connection is closed."""
        self.stats.refused += 1
        link.log.warning("answering %d: %s", status, why)
        self._write(link, http.error_status(status), f"HTTP {status}")
        return False

    def _instance(self) -> dict:
        """The eventmesh* headers of a message processor's answer."""
        return {"eventmeshcluster": CLUSTER, "eventmeship": self.host, "eventmeshenv": ENV, "eventmeshidc": IDC}

    # -- the processors: each returns (retCode, retMsg, eventmesh* headers or None) or raises Answer --

    async def _heartbeat(self, link: Link, request: HttpRequest):
        self.stats.heartbeats += 1
        return RetCode.SUCCESS, _ret_msg(RetCode.SUCCESS), None

    async def _subscribe(self, link: Link, request: HttpRequest):
        url, group, items = request.fields["url"], request.fields["consumerGroup"], request.fields["topic"]
        if split_url(url) is None:
            raise Answer(RetCode.EVENTMESH_PROTOCOL_BODY_ERR, f" invalid URL: {url}")
        bad = [i for i in items if not i.topic or i.mode in (None, SubscriptionMode.UNRECOGNIZED)
               or i.type in (None, SubscriptionType.UNRECOGNIZED)]
        if bad:
            raise Answer(RetCode.EVENTMESH_PROTOCOL_BODY_ERR, f", unusable item {dumps(bad[0].to_json())}")
        client = link.name.rsplit(":", 1)[0]
        new = {(i.topic, group, url) for i in items if (group, url) not in self.subscriptions.get(i.topic, {})}
        if self._owned[client] + len(new) > self.max_subscriptions:
            self.stats.subscriptions_refused += 1
            raise Answer(RetCode.EVENTMESH_SUBSCRIBE_ERR, f", client {client} would hold over "
                                                          f"{self.max_subscriptions} subscriptions")
        for item in items:
            members = self.subscriptions.setdefault(item.topic, {})
            if (group, url) not in members:
                self.stats.subscriptions += 1
            members[(group, url)] = item
        for key in new:
            self._owners[key] = client
        self._owned[client] += len(new)
        link.log.info("%s subscribed %s to %s", group, url, ", ".join(i.topic for i in items))
        return RetCode.SUCCESS, _ret_msg(RetCode.SUCCESS), None

    async def _unsubscribe(self, link: Link, request: HttpRequest):
        url, group = request.fields["url"], request.fields["consumerGroup"]
        for topic in request.fields["topic"]:
            members = self.subscriptions.get(topic, {})
            if members.pop((group, url), None) is not None:
                owner = self._owners.pop((topic, group, url), None)
                self._owned[owner] -= 1
                if self._owned[owner] <= 0:
                    del self._owned[owner]
            if not members:
                self.subscriptions.pop(topic, None)
        link.log.info("%s unsubscribed %s from %s", group, url, ", ".join(request.fields["topic"]))
        return RetCode.SUCCESS, _ret_msg(RetCode.SUCCESS), None

    def _accept(self, link: Link, request: HttpRequest) -> Message:
        """The message a 101/104 carries (eventmeshmessage or cloudevents), or Answer with why not."""
        fields, headers = request.fields, request.protocol_headers
        content = fields["content"]
        if headers.get("protocoltype") == "cloudevents":
            event = content
            topic, text = event.subject, dumps(event.to_json())
            extensions = {k: v if isinstance(v, str) else dumps(v) for k, v in event.extra.items()}
            bizseqno, uniqueid = extensions.get("bizseqno"), extensions.get("uniqueid")
            data = event.data if isinstance(event.data, str) else dumps(event.data)
        else:
            topic, text, data = fields.get("topic"), content, content
            bizseqno, uniqueid, extensions = fields.get("bizseqno"), fields.get("uniqueid"), {}
        if not topic or not bizseqno or not uniqueid:
            raise Answer(RetCode.EVENTMESH_PROTOCOL_BODY_ERR, ", topic, bizseqno or uniqueid is blank",
                         "eventmesh.http-required-fields")
        if len(data or "") > self.max_event_size:
            code = (RetCode.EVENTMESH_PROTOCOL_BODY_SIZE_ERR if request.code == RequestCode.MSG_SEND_ASYNC
                    else RetCode.EVENTMESH_PROTOCOL_BODY_ERR)
            raise Answer(code, f": {self.max_event_size}", "eventmesh.http-event-size")
        # the event's extensions, pushed as extFields: the protocol headers (ip as the runtime sees it), the
        # message's ids and group, its ttl and tag, and its own extFields
        ext = {"code": request.code_text, **{k: v for k, v in headers.items() if k in HEADER_KEYS and k != "code"}}
        ext["ip"] = link.name.rsplit(":", 1)[0]
        ext.update(bizseqno=bizseqno, uniqueid=uniqueid, producergroup=fields.get("producergroup") or "",
                   ttl=(fields.get("ttl") or "").strip() or str(DEFAULT_TTL_MS))
        if fields.get("tag"):
            ext["tag"] = fields["tag"]
        ext.update(fields.get("extFields") or {})
        ext.update(extensions)
        return Message(topic, text, bizseqno, uniqueid, {k: v for k, v in ext.items() if v is not None})

    async def _send_async(self, link: Link, request: HttpRequest):
        message = self._accept(link, request)
        self.stats.published += 1
        self._deliver(link, message)
        result = f"SendResult[topic={message.topic}, messageId={next(self._ids)}]"
        return RetCode.SUCCESS, _ret_msg(RetCode.SUCCESS, result), self._instance()

    async def _send_sync(self, link: Link, request: HttpRequest):
        message = self._accept(link, request)
        if message.uniqueid in self._waiting:
            raise Answer(RetCode.EVENTMESH_SEND_SYNC_MSG_ERR, f", uniqueid {message.uniqueid} is already waiting")
        ttl = message.ext_fields["ttl"]
        wait = min(self.reply_timeout, int(ttl) / 1000) if ttl.isdecimal() else self.reply_timeout
        future = asyncio.get_running_loop().create_future()
        self._waiting[message.uniqueid] = future
        self.stats.published += 1
        self._deliver(link, message)
        link.rest()  # waiting for a subscriber is not the client being idle
        try:
            reply: ReplyMessage = await asyncio.wait_for(future, wait)
        except TimeoutError:
            self.stats.sync_timeouts += 1
            raise Answer(RetCode.EVENTMESH_WAITING_RR_MSG_ERR, f", no reply in {wait:g}s") from None
        finally:
            self._waiting.pop(message.uniqueid, None)
            link.progress()
        return RetCode.SUCCESS, dumps(reply.to_json()), self._instance()

    async def _reply(self, link: Link, request: HttpRequest):
        fields = request.fields
        future = self._waiting.get(fields.get("uniqueid") or "")
        if future is not None and not future.done():
            properties = dict(fields.get("extFields") or {})
            future.set_result(ReplyMessage(topic=fields.get("origtopic"), body=fields.get("content"),
                                           properties=properties))
            self.stats.replies += 1
        else:
            link.log.info("REPLY_MESSAGE for uniqueid %s answers no waiting message", fields.get("uniqueid"))
        return RetCode.SUCCESS, _ret_msg(RetCode.SUCCESS), self._instance()

    # -- pushes ----------------------------------------------------------------------------------

    def _deliver(self, publisher: Link, message: Message) -> None:
        """Queue a push to every BROADCASTING subscriber of the topic and to one url per CLUSTERING group."""
        targets: list[tuple[str, SubscriptionItem]] = []
        groups: dict[str, list[tuple[str, SubscriptionItem]]] = {}
        for (group, url), item in self.subscriptions.get(message.topic, {}).items():
            if item.mode == SubscriptionMode.BROADCASTING:
                targets.append((url, item))
            else:
                groups.setdefault(group, []).append((url, item))
        for group, members in groups.items():
            key = (message.topic, group)
            targets.append(members[self._turn[key] % len(members)])
            self._turn[key] += 1
        if not targets:
            publisher.log.info("no subscriber for topic %s", message.topic)
        for url, item in targets:
            self.pusher.push(url, message, item.type == SubscriptionType.SYNC, publisher.log)

