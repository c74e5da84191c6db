"""The payload fields decode's packet list shows of DataProxy frames (the registry's summary: error code,
group, stream, record count, error message), read from a batch of the compiled path's rows by Arrow
kernels, as payload() reads them one frame at a time (cli.packet_list's columnar table).

Covered: text-layout requests of MsgType 2, 3, 4 and 6 whose body is read without Snappy (no cp attribute,
or an encrypted body, which is not read), and answers in the text or the binary response layout, where
the attributes are plain ASCII (no whitespace or control character for the server's trimming to change)
and every entry holds one '='. In those, payload() can only fail on the attributes (a request repeating
a key, an errCode that is not a number), and the records it would build are never needed: cnt is the
count the summary shows (request_tally's reading, with its records not even counted). Any other row
(a binary request, a heartbeat, Snappy, other attributes) makes summary_columns answer None, and the
caller reads the frames one at a time."""
from __future__ import annotations

from inlong_proto.core.errors import ValidationError
from inlong_proto.core.plain import to_plain
from inlong_proto.dataproxy.payload import _INT_MAX, MsgType, _java_int, response_status

# requests whose body payload() reads without an error (the lines of MsgType 2-4, MsgType 6's pairs, whose
# misreading is flagged in Payload.error, not raised)
_QUIET_BODIES = [MsgType.common_service.name, MsgType.ack_service.name, MsgType.original_return.name,
                 MsgType.multi_body_attr.name]
_PLAIN = r"^[!-~]+$"  # printable ASCII, no space: nothing the server's trimming strips
_ENTRIES = r"^[^&=]*=[^&=]*(&[^&=]*=[^&=]*)*$"  # every entry one key and one value


def summary_columns(batch) -> dict | None:
    """{"payload.<key>": text column (null: missing or empty)} of the keys the summary names, with every
    one null where payload() fails; None where a row is not covered (the module doc)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if batch.column("error").null_count != batch.num_rows:
        return None
    text, answer = batch.column("text_message"), batch.column("bin_response")
    is_text = text.is_valid()
    direction = batch.column("direction")
    response = pc.fill_null(pc.or_(pc.and_(is_text, pc.equal(direction, "response")), answer.is_valid()), False)
    request = pc.fill_null(pc.and_(is_text, pc.equal(direction, "request")), False)
    if not pc.all(pc.or_(request, response)).as_py():
        return None
    attr = pc.if_else(is_text, pc.struct_field(text, "attr"), pc.struct_field(answer, "attr"))
    plain = pc.and_(pc.match_substring_regex(attr, _PLAIN), pc.match_substring_regex(attr, _ENTRIES))
    if not pc.all(pc.fill_null(plain, False)).as_py():
        return None
    keys = pc.replace_substring_regex(attr, "=[^&]*", "")  # "groupId&streamId&cnt": which keys, in order
    quiet = pc.is_in(batch.column("base_type"), value_set=pa.array(_QUIET_BODIES))
    compressed = pc.match_substring_regex(keys, "(^|&)cp(&|$)")
    readable = pc.or_(pc.invert(request), pc.and_(quiet, pc.or_(batch.column("encrypted"), pc.invert(compressed))))
    if not pc.all(pc.fill_null(readable, False)).as_py():
        return None
    repeated = _mapped(keys, lambda names: "" if len(set(names.split("&"))) < names.count("&") + 1 else None)
    failed = pc.and_(request, repeated.is_valid())  # parse_attrs(strict=True) refuses a repeated key
    code = _mapped(_value(attr, "errCode"), _error_code)
    failed = pc.or_(failed, pc.and_(response, pc.equal(code, "")))  # response_status refuses the errCode
    columns = {"payload.group_id": _value(attr, "groupId"), "payload.stream_id": _value(attr, "streamId"),
               "payload.record_count": _mapped(_value(attr, "cnt"), _count),
               "payload.error_code": pc.if_else(response, code, pa.scalar(None, pa.string())),
               "payload.error_message": pc.if_else(response, _value(attr, "errMsg"), pa.scalar(None, pa.string()))}
    none = pa.nulls(batch.num_rows, pa.string())
    return {name: pc.if_else(failed, none, pc.if_else(pc.equal(column, ""), none, column))
            for name, column in columns.items()}


def _value(attr, key: str):
    """The first value of key in each attribute text (attr_value), null where the key is absent."""
    import pyarrow as pa
    import pyarrow.compute as pc

    found = pc.extract_regex(attr, f"(?:^|&){key}=(?P<value>[^&]*)")
    return pc.if_else(found.is_valid(), pc.struct_field(found, "value"), pa.scalar(None, pa.string()))


def _mapped(column, convert):
    """convert (str or None -> str or None) applied once per distinct value of a text column."""
    import pyarrow as pa
    import pyarrow.compute as pc

    distinct = pc.unique(column)
    texts = pa.array([convert(value) for value in distinct.to_pylist()], pa.string())
    return pc.take(texts, pc.index_in(column, value_set=distinct))


def _count(text: str | None) -> str | None:
    """cnt as payload() reads it (a Java int, else none)."""
    value = _java_int(text, _INT_MAX)
    return None if value is None else str(value)


def _error_code(text: str | None) -> str:
    """errCode as the summary shows payload()'s error_code; "" where response_status refuses it."""
    try:
        code, _ = response_status(() if text is None else (("errCode", text),))
    except ValidationError:
        return ""
    return str(to_plain(code))
