"""Captures with a known truth for the audit tests: each request is planned as answered ok, failed, dropped
(never answered), delayed, sent without asking for an answer, or re-sent, and the expected counts per
(group, stream, minute) are kept beside the pcap."""
from __future__ import annotations

import random
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from inlong_proto.capture.writer import Conversation, pcap_file
from inlong_proto.core.frames import encode
from inlong_proto.dataproxy import builders
from inlong_proto.dataproxy.payload import ErrCode

T0 = 1_700_000_040 * 10**9  # a whole minute (1_700_000_040 = 28333334 * 60)
SERVER = ("10.0.0.2", 46801)
PLANS = ("ok", "fail", "drop", "delay", "noack")


@dataclass
class Truth:
    counts: dict = field(default_factory=lambda: defaultdict(Counter))  # (group, stream, minute) -> Counter
    unacked: list = field(default_factory=list)  # request messages left without an ok answer

    def add(self, key, **counts):
        self.counts[key].update(counts)


def _minute(ts_ns: int) -> str:
    from datetime import datetime, timezone

    start = ts_ns - ts_ns % (60 * 10**9)
    return datetime.fromtimestamp(start // 10**9, tz=timezone.utc).isoformat().replace("+00:00", "Z")


def dataproxy_capture(seed: int = 1, connections: int = 3, per_connection: int = 40, *,
                      duplicates: int = 3) -> tuple[bytes, Truth]:
    """MsgType 7 and 3 requests over several connections and three minutes, each with a plan; a dropped
    request's connection is closed before its answer. Then `duplicates` requests of the first connection
    re-sent (same UniqueId / messageId) on a new connection, answered ok."""
    rng = random.Random(seed)
    truth = Truth()
    packets = []
    keys = [("g1", "s1"), ("g1", "s2"), ("g2", "s1")]
    sent_first = []
    for c in range(connections):
        conv = Conversation(client=(f"10.0.1.{c + 1}", 40000 + c), server=SERVER)
        ts = T0 + c * 1000
        packets += conv.open(ts)
        for i in range(per_connection):
            ts += rng.randrange(1, 4) * 10**9  # up to ~3 minutes in all
            group, stream = rng.choice(keys)
            plan = rng.choice(PLANS)
            count = rng.randrange(1, 5)
            records = [f"r{c}-{i}-{n}".encode() for n in range(count)]
            uid = c * 1000 + i + 1
            if rng.random() < 0.5:
                request = builders.bin_request(records, group_id=group, stream_id=stream, data_time_ms=ts // 10**6,
                                               unique_id=uid, is_ack=False if plan == "noack" else None,
                                               report_time_ms=1)
            else:
                request = builders.text_request(records, group_id=group, stream_id=stream,
                                                data_time_ms=ts // 10**6, message_id=uid,
                                                is_ack=False if plan == "noack" else None, report_time_ms=1)
            raw = encode(request)
            packets += conv.send("client", raw, ts)
            build = builders.bin_response if request.base_type == 7 else builders.text_response
            key = (group, stream, _minute(ts))
            size = sum(len(r) for r in records)
            truth.add(key, messages=1, records=count, bytes=size)
            if c == 0 and len(sent_first) < duplicates and plan == "ok":
                sent_first.append((raw, build, request, key, count, size))
            if plan == "ok":
                packets += conv.send("server", encode(build(request, dp_ip="10.0.0.2", receive_time_ms=1)), ts + 5 * 10**6)
                truth.add(key, acked_ok=1, records_ok=count)
            elif plan == "fail":
                packets += conv.send("server", encode(build(request, dp_ip="10.0.0.2", err_code=ErrCode(115),
                                                            err_msg="topic not configured")), ts + 5 * 10**6)
                truth.add(key, failed=1)
                truth.unacked.append(raw)
            elif plan == "delay":
                packets += conv.send("server", encode(build(request, dp_ip="10.0.0.2", receive_time_ms=1)),
                                     ts + 900 * 10**6)
                truth.add(key, acked_ok=1, records_ok=count, delayed=1)
            elif plan == "noack":
                truth.add(key, not_asked=1)
                truth.unacked.append(raw)
            else:  # drop: the server never answers; the connection ends, reopened on a new port
                truth.add(key, unanswered=1)
                truth.unacked.append(raw)
                packets += conv.close(ts + 10**6)
                conv = Conversation(client=(f"10.0.1.{c + 1}", 41000 + c * 100 + i), server=SERVER)
                packets += conv.open(ts + 2 * 10**6)
        packets += conv.close(ts + 10**9)
    if sent_first:  # the re-sends, on a new connection of the first client, 10 ms after its last message
        conv = Conversation(client=("10.0.1.1", 50000), server=SERVER)
        ts = max(t for t, _ in packets) + 10**7
        packets += conv.open(ts)
        for raw, build, request, (group, stream, _), count, size in sent_first:
            ts += 10**6
            packets += conv.send("client", raw, ts)
            packets += conv.send("server", encode(build(request, dp_ip="10.0.0.2", receive_time_ms=1)), ts + 10**6)
            truth.add((group, stream, _minute(ts)), messages=1, records=count, bytes=size, acked_ok=1, records_ok=count, duplicates=1)
        packets += conv.close(ts + 10**6)
    packets.sort(key=lambda p: p[0])
    return pcap_file(packets, nano=True), truth
