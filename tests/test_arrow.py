"""The Arrow schema and batches are derived from the generated FIELDS; check them on broadcast."""
from datetime import datetime
from decimal import Decimal

import pytest

from inlong_proto import Frame, encode, iter_frames
from inlong_proto.core import arrow, protocols
from inlong_proto.core.arrow import frame_row, frame_schema, frame_tuple, frames_to_batch, spark_ddl
from inlong_proto.core.errors import FieldInfo
from inlong_proto.generated.codec.broadcast import broadcast_frame as b

pa = pytest.importorskip("pyarrow")

RESPONSE = b.BroadcastFrame(body=b.DataResponse(status=b.Status.history,
                                                timestamp=datetime(2024, 1, 1, 0, 0, 0, 123000), data=5))
REQUEST = b.BroadcastFrame(body=b.DataRequest(last_timestamp=datetime(1970, 1, 1), last_data=0))


def test_broadcast_schema():
    schema = frame_schema("broadcast")
    assert schema.names == ["path", "offset", "length", "protocol", "direction", "message_type", "error",
                            "_corrupt_record", "total_length", "command_id", "data_request", "data_response",
                            "capture"]
    assert [schema.field(n).type for n in ("path", "offset", "length", "error", "_corrupt_record")] == \
        [pa.string(), pa.int64(), pa.int64(), pa.string(), pa.binary()]
    assert schema.field("total_length").type == pa.int32()
    assert schema.field("command_id").type == pa.string()  # enum member name
    assert schema.field("data_request").type == pa.struct([("last_timestamp", pa.timestamp("ms")),
                                                           ("last_data", pa.int32())])
    assert schema.field("data_response").type == pa.struct([("status", pa.string()),
                                                            ("timestamp", pa.timestamp("ms")),
                                                            ("data", pa.int32())])


def test_spark_ddl_uses_timestamp_ntz():
    pytest.importorskip("pyspark")
    ddl = spark_ddl("broadcast")
    assert ddl.startswith("`path` string, `offset` bigint, `length` bigint,")
    assert "`data_response` struct<status:string,timestamp:timestamp_ntz,data:int>" in ddl


def test_batch_with_frames_and_error_span():
    data = encode(RESPONSE) + b"junk" + encode(REQUEST)
    frames = list(iter_frames(data, "broadcast", mode="PERMISSIVE"))
    batch = frames_to_batch("dump.bin", frames, "broadcast")
    assert batch.schema == frame_schema("broadcast")
    rows = batch.to_pylist()
    assert [(r["offset"], r["length"], r["message_type"]) for r in rows] == \
        [(0, 38, "data_response"), (38, 4, None), (42, 37, "data_request")]
    assert {r["path"] for r in rows} == {"dump.bin"}

    response, error, request = rows
    assert response["data_response"] == {"status": "history", "timestamp": datetime(2024, 1, 1, 0, 0, 0, 123000),
                                         "data": 5}
    assert response["data_request"] is None
    assert (response["direction"], response["command_id"], response["total_length"]) == \
        ("response", "data_response", 38)
    assert request["data_request"] == {"last_timestamp": datetime(1970, 1, 1), "last_data": 0}

    assert error["error"].startswith("offset 38 in total_length: ")
    assert all(error[name] is None for name in ("direction", "message_type", "total_length", "command_id",
                                                "data_request", "data_response"))


def test_frame_tuple_follows_schema_order():
    frame, = iter_frames(encode(RESPONSE), "broadcast")
    values = frame_tuple("p", frame, "broadcast")
    row = frame_row("p", frame)
    assert list(row) == frame_schema("broadcast").names
    assert values == tuple(tuple(value.values()) if isinstance(value, dict) else value for value in row.values())
    assert values[:3] == ("p", 0, 38)


def test_unknown_enum_value_is_rendered_as_number():
    # Decoding rejects unknown statuses, but a message built by hand may carry one.
    message = b.BroadcastFrame(body=b.DataResponse(status=57, timestamp=datetime(2024, 1, 1), data=1))
    row = frame_row("p", Frame("broadcast", 0, 38, message, "data_response", "response"))
    assert row["data_response"]["status"] == "57"


def test_uint64_maps_to_decimal():
    from inlong_proto.core import arrow
    from inlong_proto.generated.rows.broadcast import broadcast_frame as rows

    info = FieldInfo("big", "int", "decimal128(20, 0)", None, False)
    assert arrow._plain_type(info.arrow) == pa.decimal128(20, 0)
    assert rows._decimal(2**64 - 1) == Decimal(2**64 - 1)  # the generated row builders' conversion


@pytest.mark.parametrize("protocol", sorted(protocols.STREAM_PROTOCOLS))
def test_stream_protocol_columns_cover_every_key_their_items_give(protocol):
    """A stream protocol's struct column (its module's COLUMNS) holds every to_dict key of its items beyond
    the meta columns, and nothing else, so that a key added to to_dict cannot miss the Spark tables."""
    import importlib

    module = importlib.import_module(protocols.STREAM_PROTOCOLS[protocol])
    meta = {"protocol", "offset", "length", "message_type", "direction"}  # the meta columns an item fills
    keys = {key for cls in module.MESSAGE_TYPES for key in cls.JSON_KEYS} - meta
    sources = {spec[0] if isinstance(spec, tuple) else name for name, spec in module.COLUMNS.items()}
    assert sources == keys
    assert arrow.frame_schema(protocol).names[-1] == arrow.CAPTURE_COLUMN
