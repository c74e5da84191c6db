"""A fault-making relay for the audit's live tests: the reference TubeMQ broker and EventMesh servers have no
drop or fail mode of their own (the DataProxy server's `faults` is one), so this relay sits between a client
and a server and makes the chosen messages fail or go unanswered, with a known truth.

The n-th message sent through it (counted across connections as audit.readers counts them, from 1) is
either dropped (not forwarded, and the client's connection closed: the request is unanswered) or failed
(answered here with the protocol's failure: a TubeMQ success=false, an EventMesh TCP ACK with code 1, an HTTP
retCode that is not 0). Everything else is copied both ways unchanged.
"""
from __future__ import annotations

import asyncio
import contextlib

import inlong_proto
from inlong_proto.audit.readers import Sent, events
from inlong_proto.core.frames import iter_frames, stream_decoder
from inlong_proto.endpoints.common import RawStream
from inlong_proto.endpoints.replayer import ReplayConnection

FAIL_TEXT = "refused by the test relay"


def failure_answer(frame) -> bytes:
    """The protocol's failure answer to a request frame."""
    if frame.protocol == "tubemq":
        from inlong_proto.generated.protobuf.tubemq import BrokerService_pb2 as broker
        from inlong_proto.tubemq import rpc

        return inlong_proto.encode(rpc.response_frame(frame.payload.serial_no, "sendMessageP2B",
                                                      broker.SendMessageResponseB2P(success=False, errCode=503,
                                                                                    errMsg=FAIL_TEXT)))
    if frame.protocol == "eventmesh":
        from inlong_proto.eventmesh import tcp

        return inlong_proto.encode(tcp.reply(tcp.Command.ASYNC_MESSAGE_TO_SERVER_ACK, frame.payload.header.seq,
                                             code=1, desc=FAIL_TEXT))
    from inlong_proto.eventmesh import http

    return http.response(frame.code, 2, FAIL_TEXT, 1)


class FaultRelay:
    """`async with FaultRelay("tubemq", server_port, {2: "drop", 5: "fail"}) as relay:` then connect to
    relay.port; relay.faulted lists (n, fault) as they happened."""

    def __init__(self, protocol: str, server_port: int, faults: dict[int, str]):
        self.protocol, self.server_port, self.faults = protocol, server_port, faults
        self.sent = 0
        self.faulted: list[tuple[int, str]] = []
        self.port = 0
        self._server = None
        self._tasks: set = set()

    async def __aenter__(self) -> "FaultRelay":
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc_info) -> None:
        self._server.close()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _serve(self, reader, writer) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.server_port)
        back = asyncio.create_task(self._copy(up_reader, writer))
        self._tasks.add(back)
        decoder, raw = stream_decoder(self.protocol, "request", mode="PERMISSIVE"), RawStream()
        try:
            while data := await reader.read(65536):
                raw.add(data)
                for frame in decoder.feed(data):
                    chunk = raw.take(frame)
                    if frame.error is None and any(isinstance(e, Sent) for e in events(frame, "request")):
                        self.sent += 1
                        fault = self.faults.get(self.sent)
                        if fault is not None:
                            self.faulted.append((self.sent, fault))
                            if fault == "drop":
                                return
                            writer.write(failure_answer(frame))
                            continue
                    up_writer.write(chunk)
        finally:
            back.cancel()
            for end in (writer, up_writer):
                end.close()
                with contextlib.suppress(OSError, asyncio.CancelledError):
                    await end.wait_closed()

    @staticmethod
    async def _copy(reader, writer) -> None:
        with contextlib.suppress(OSError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()


async def send_all(port: int, protocol: str, requests: list[bytes], timeout: float = 5.0) -> list:
    """Send each request and wait for its answer, as a client that reconnects after a lost connection does;
    the answers (None: lost)."""
    from inlong_proto.audit.replay import fresh_request

    answers, connection = [], None
    for number, data in enumerate(requests, 1):
        if connection is None:
            connection = await ReplayConnection("127.0.0.1", port, protocol, timeout=timeout).open()
        [frame] = iter_frames(data, protocol, "request")
        fresh, key = fresh_request(frame, number)
        answer = await connection.send(fresh, key)
        answers.append(answer)
        if answer is None:
            await connection.close()
            connection = None
    if connection is not None:
        await connection.close()
    return answers
