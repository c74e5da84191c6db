"""What TubeMQ frames mean to the audit (inlong_proto.audit): messages sent, pulls and their answers. Sans-IO;
every byte was already read by tubemq.rpc (docs/how-to/audit.md):

Requests and answers pair by serial number per connection (as rpc.CallPairer pairs). sendMessageP2B is one
message of its topic; an exception answer or SendMessageResponseB2P.success false is a failure. A re-send
repeats the message's data and flag (there is no producer message id). getMessagesC2B is a pull: the messages
of its answer are deliveries of the pull's topic. Every other call (register, heartbeat, commit, close) is
paired with its answer and counted as nothing.

Replay (resend) gives a call a fresh serial number, rebuilding it as the Java client sends it (rpc.request_frame).
"""
from __future__ import annotations

import hashlib

from inlong_proto.core.audit_events import Answer, Call, Pull, Sent
from inlong_proto.core.frames import encode
from inlong_proto.core.plain import lenient_text
from inlong_proto.tubemq.rpc import messages_of, request_frame

__all__ = ["PULL_METHOD", "SEND_METHOD", "events", "resend"]

SEND_METHOD = "sendMessageP2B"
PULL_METHOD = "getMessagesC2B"


def events(frame, direction: str) -> list:
    """The audit events of a decoded TubeMQ frame sent in `direction` (request or response)."""
    rpc = frame.payload
    if rpc is None:
        return []
    key = ("rpc", rpc.serial_no)
    if direction == "request":
        business = rpc.business
        if rpc.method == SEND_METHOD and business is not None:
            data = messages_of(rpc)
            return [Sent("tubemq", business.topicName, "", key, None, len(data),
                         sum(len(item.payload) for item in data), frame.length, _resent_as(business))]
        if rpc.method == PULL_METHOD and business is not None:
            return [Pull("tubemq", business.topicName, "", key)]
        return [Call(key)]
    if rpc.exception is not None:
        return [Answer(key, False, lenient_text(rpc.exception.class_name).rsplit(".", 1)[-1])]
    business = rpc.business
    success = getattr(business, "success", True)
    if not success:
        return [Answer(key, False, f"{business.errCode} {lenient_text(getattr(business, 'errMsg', '') or '')}".strip())]
    data = messages_of(rpc)
    return [Answer(key, True, None, len(data), sum(len(item.payload) for item in data))]


def _resent_as(business) -> tuple:
    """A TubeMQ message carries no producer id: a re-send repeats its data (attributes and payload, with the
    minute $msgTime$ the producer stamped) and flag, whatever partition it goes to. A 16-byte digest of them
    is kept, so equal data sent twice on purpose also counts as a re-send (docs/how-to/audit.md)."""
    return ("data", business.flag, hashlib.blake2b(business.data, digest_size=16).digest())


def resend(request, number: int) -> bytes:
    """The bytes replay sends for a captured sendMessageP2B Frame: the call under serial number `number`."""
    return encode(request_frame(number, SEND_METHOD, request.payload.business))
