"""`make bench`: the audit's throughput (issue 28: within 1.5x of decode on the same file).

The file: a pcap of --requests DataProxy data requests (MsgType 7 and 3, 5 records each, half each) over 16
connections, every one answered (a request and its response per exchange, so frames = 2 x requests), 1 in
50 with an error. Timed on one core, best of --repeat after one warm-up, in CPU seconds (the process's own, or the
command's, from its rusage): on a shared, loaded machine wall time mostly measures the other processes, while
CPU time is what the work costs a core:

* decode: the capture decoder the audit reads with (CaptureDecoder("auto"), frames counted), in process;
* audit: the same decoder, each frame paired (pairing.Auditor) and counted (table.AuditTable);
* the commands, each its own process (start-up included): `inlong-proto decode -T jsonl` and
  `inlong-proto audit -T csv`, output to /dev/null.

Printed: seconds, frames/s per core, and audit / decode.
"""
from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

TARGET = 1.5
CHUNK = 1 << 20


def capture(requests: int) -> bytes:
    """16 DataProxy connections, request and answer exchanges interleaved across them."""
    from inlong_proto.capture.writer import Conversation, pcap_file
    from inlong_proto.core.frames import encode
    from inlong_proto.dataproxy import builders
    from inlong_proto.dataproxy.payload import ErrCode

    conversations = [Conversation((f"10.0.0.{c + 1}", 40000 + c), ("10.255.0.1", 46801)) for c in range(16)]
    ts = 1_700_000_000 * 10**9
    packets = []
    for conversation in conversations:
        packets += conversation.open(ts)
    records = [b"record-%04d,some,fields,of,a,line" % n for n in range(5)]
    for n in range(requests):
        conversation = conversations[n % 16]
        ts += 100_000
        if n % 2:
            request = builders.bin_request(records, group_id=f"g{n % 3}", stream_id=f"s{n % 5}",
                                           data_time_ms=ts // 10**6, unique_id=n + 1)
            build = builders.bin_response
        else:
            request = builders.text_request(records, group_id=f"g{n % 3}", stream_id=f"s{n % 5}",
                                            data_time_ms=ts // 10**6, message_id=n + 1)
            build = builders.text_response
        error = {"err_code": ErrCode(115), "err_msg": "topic not configured"} if n % 50 == 0 else {}
        packets += conversation.send("client", encode(request), ts)
        packets += conversation.send("server", encode(build(request, dp_ip="10.255.0.1", **error)), ts + 50_000)
    for conversation in conversations:
        packets += conversation.close(ts + 10**9)
    return pcap_file(packets, nano=True)


def cpu_seconds() -> float:
    """CPU time of this process and of the commands it ran and waited for."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def best(run, repeat: int) -> tuple[float, object]:
    result = run()
    times = []
    for _ in range(repeat):
        started = cpu_seconds()
        result = run()
        times.append(cpu_seconds() - started)
    return min(times), result


def chunks(data: bytes):
    view = memoryview(data)
    return (view[at:at + CHUNK] for at in range(0, len(view), CHUNK))


def decode_frames(data: bytes) -> int:
    from inlong_proto.capture import CaptureDecoder

    decoder = CaptureDecoder("auto", "PERMISSIVE")
    frames = 0
    for chunk in chunks(data):
        frames += sum(1 for item in decoder.feed(chunk) if item.flow is not None)
    return frames + sum(1 for item in decoder.close() if item.flow is not None)


def audit_frames(data: bytes) -> int:
    from inlong_proto.audit import AuditTable, Auditor, audit_chunks

    table, auditor = AuditTable(), Auditor()
    for item in audit_chunks(chunks(data), auditor=auditor):
        table.add(item)
    return auditor.stats["frames"]


def command(args: list[str]) -> None:
    with open("/dev/null", "wb") as sink:
        subprocess.run([sys.executable, "-m", "inlong_proto.cli", *args], stdout=sink, check=True, cwd=ROOT)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    data = capture(args.requests)
    decode_s, frames = best(lambda: decode_frames(data), args.repeat)
    audit_s, audited = best(lambda: audit_frames(data), args.repeat)
    assert audited == frames, (audited, frames)
    print(f"audit: {frames} DataProxy frames ({len(data) / 1e6:.1f} MB pcap, {args.requests} exchanges), "
          f"CPU seconds on one core")
    print(f"  decode (capture decoder) {decode_s:7.3f} s  {frames / decode_s:10.0f} frames/s")
    ratio = audit_s / decode_s
    print(f"  audit (paired, counted)  {audit_s:7.3f} s  {frames / audit_s:10.0f} frames/s  "
          f"audit/decode {ratio:.2f}x (target <= {TARGET}x: {'met' if ratio <= TARGET else 'NOT met'})")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "audit.pcap"
        path.write_bytes(data)
        cli_decode, _ = best(lambda: command(["decode", "-T", "jsonl", str(path)]), args.repeat)
        cli_audit, _ = best(lambda: command(["audit", "-T", "csv", str(path)]), args.repeat)
    print(f"  inlong-proto decode -T jsonl {cli_decode:7.3f} s  {frames / cli_decode:10.0f} frames/s")
    print(f"  inlong-proto audit -T csv    {cli_audit:7.3f} s  {frames / cli_audit:10.0f} frames/s  "
          f"audit/decode {cli_audit / cli_decode:.2f}x")


if __name__ == "__main__":
    main()
