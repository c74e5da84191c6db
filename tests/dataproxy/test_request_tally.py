"""request_tally (what the audit counts DataProxy records with) against payload(frame, "request"), which builds
every Record: the same attributes, group, stream, record count, record bytes, body size and cnt, or the same
error, on every DataProxy vector, the sample dumps and captures, the audit's known-truth traffic, requests of
every layout the builders make, and spec-generated requests."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import strategies
from hypothesis import given, settings

from inlong_proto.capture import CaptureDecoder
from inlong_proto.core.errors import DecodeError
from inlong_proto.core.frames import iter_frames
from inlong_proto.dataproxy import builders
from inlong_proto.dataproxy.payload import MsgType, payload, request_tally

sys.path.insert(0, str(Path(__file__).parent.parent / "audit"))

from traffic import dataproxy_capture  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "tests" / "vectors" / "dataproxy"


def _counted(read) -> tuple:
    return read.attrs, read.group_id, read.stream_id, read.records, read.size, read.body_size, read.record_count


def _built(read) -> tuple:
    return (read.attrs, read.group_id, read.stream_id, len(read.records), sum(len(r.data) for r in read.records),
            len(read.body), read.record_count)


def _outcome(read, view, frame):
    try:
        return view(read(frame))
    except (DecodeError, ValueError) as exc:
        return type(exc).__name__, str(exc)


def _check(frames) -> int:
    """Both readings agree on every frame; how many frames had records (so that a test shows it read some)."""
    with_records = 0
    for frame in frames:
        expected = _outcome(lambda f: payload(f, "request"), _built, frame)
        assert _outcome(request_tally, _counted, frame) == expected, frame
        with_records += len(expected) == 7 and expected[3] > 0  # (an error is (type, text))
    return with_records


def _vector_frames():
    for path in sorted(VECTORS.rglob("*.json")):
        vector = json.loads(path.read_text())
        pieces = ([(vector["hex"], vector["direction"])] if "hex" in vector  # (replies: a request and its answer)
                  else [(vector["request"], "request"), (vector["response"], "response")])
        for text, direction in pieces:
            yield from iter_frames(bytes.fromhex(text), "dataproxy", direction, "PERMISSIVE")


def _capture_frames(data: bytes):
    decoder = CaptureDecoder("dataproxy", "PERMISSIVE")
    for item in [*decoder.feed(data), *decoder.close()]:
        if item.frame.protocol == "dataproxy":
            yield item.frame


def test_every_vector_and_sample_is_counted_as_payload_reads_it():
    frames = list(_vector_frames())
    frames += iter_frames((ROOT / "examples" / "data" / "dataproxy.bin").read_bytes(), "dataproxy", None, "PERMISSIVE")
    for name in ("dataproxy_lo.client.bin", "dataproxy_lo.server.bin"):
        frames += iter_frames((ROOT / "tests" / "vectors" / "capture" / name).read_bytes(), "dataproxy", None,
                              "PERMISSIVE")
    frames += _capture_frames((ROOT / "examples" / "data" / "mixed.pcap").read_bytes())
    assert _check(frames) > 0


def test_the_audits_known_truth_traffic_is_counted_as_payload_reads_it():
    assert sum(_check(_capture_frames(dataproxy_capture(seed)[0])) for seed in (1, 2)) > 0


def test_every_layout_the_builders_make_is_counted_as_payload_reads_it():
    records = [b"a", b"", b"line with\r", b"\xff\xfe binary"]
    kw = {"group_id": "g", "stream_id": "s", "data_time_ms": 1_700_000_000_000}
    requests = [builders.bin_request(records, unique_id=1, compress=compress, **kw) for compress in (False, True)]
    requests += [builders.bin_request([b"x", b"y"], unique_id=2, separated_by_lf=True, compress=compress, **kw)
                 for compress in (False, True)]
    requests += [builders.bin_request(records, unique_id=3, record_attrs=[{"k": n} for n in range(4)], **kw),
                 builders.bin_request(records, group_num=7, stream_num=0, data_time_ms=1, unique_id=4)]
    for msg_type in (MsgType.common_service, MsgType.ack_service, MsgType.original_return, MsgType.multi_body):
        for compress in (False, True):
            requests.append(builders.text_request([b"a", b"bb"], message_id=6, msg_type=msg_type, compress=compress,
                                                  **kw))
    requests.append(builders.text_request([b"a", b"bb"], message_id=7, msg_type=MsgType.multi_body_attr,
                                          record_attrs=[{"k": 1}, {"k": 2}], **kw))
    requests.append(builders.text_request([b"\x0a\x01pb"], message_id=8, extra_attrs={"mt": "pb"}, **kw))
    assert _check(requests) == len(requests)


@settings(max_examples=300, deadline=None)
@given(strategies.frames("dataproxy", "request"))
def test_spec_generated_requests_are_counted_as_payload_reads_them(message):
    _check([message])
