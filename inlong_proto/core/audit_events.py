"""What a frame means to the audit: a message sent, its answer, a pull, a delivery (issue 28).

Each protocol package's audit reader (its registry's `audit-reader`) turns a decoded frame of one direction into
these events; the pairing engine (inlong_proto.audit.pairing) pairs them. They sit on the ground floor so that
the protocol packages, which may not import the audit above them, can build them.
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Answer", "Call", "Delivery", "Done", "Pull", "Sent"]


@dataclass(frozen=True, slots=True)
class Sent:
    """A message sent: key pairs it with its answer on its connection (None: no answer is asked for)."""

    system: str
    group: str
    stream: str
    key: tuple | None
    message_id: str | None  # the id the sender gave it; None when the protocol carries none
    records: int
    size: int  # the records' data bytes (InLong Audit's size)
    frame_bytes: int
    resent_as: object = None  # what a re-send repeats, when not message_id (TubeMQ: its data); duplicates

    @property
    def identity(self):
        """What two copies of one message share (None: copies cannot be told apart from new messages)."""
        return self.message_id if self.resent_as is None else self.resent_as


@dataclass(frozen=True, slots=True)
class Pull:
    """A request asking for messages (TubeMQ getMessagesC2B); its answer carries deliveries."""

    system: str
    group: str
    stream: str
    key: tuple


@dataclass(frozen=True, slots=True)
class Call:
    """A request that is neither a send nor a pull (a TubeMQ register, heartbeat or close): its answer is
    paired with it and ignored, so it is not reported as an answer that matched no request."""

    key: tuple


@dataclass(frozen=True, slots=True)
class Answer:
    key: tuple
    ok: bool
    error: str | None  # what failed, short (an errCode and its name, an exception class)
    delivered: int = 0  # messages an answer to a Pull carries
    size: int = 0


@dataclass(frozen=True, slots=True)
class Done:
    """A message and its outcome at once (a gRPC call, which the HTTP/2 layer pairs itself): ok None means
    unanswered (the call did not end within the capture or its connection)."""

    sent: Sent
    ok: bool | None
    error: str | None
    latency_s: float | None


@dataclass(frozen=True, slots=True)
class Delivery:
    """Messages pushed to a consumer (EventMesh pushes), not paired with anything."""

    system: str
    group: str
    stream: str
    records: int
    size: int

