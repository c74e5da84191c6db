"""The payload fields decode's packet list shows of DataProxy frames (the registry's summary: error code,
group, stream, record count, error message), read from a batch of the compiled path's rows by Arrow
kernels, as payload() reads them one frame at a time (cli.packet_list's columnar table).

Covered: text-layout requests of MsgType 2 to 6 whose body is read without Snappy (no cp attribute,
or an encrypted body, which is not read), binary requests (MsgType 7, the Java SDK's usual form) whose body
is not Snappy (or is encrypted), and answers in the text or the binary response layout, where the
attributes are empty or plain ASCII (no whitespace or control character for the server's trimming to
change) and every entry holds one '='. In those, payload() can only fail on the attributes (a request
repeating a key, an errCode that is not a number) and on the body layout of a MsgType 5 request and of
a binary request (checked row by row by the generated decoder, for the latter the one ExtField picks, as
text_data and bin_data read them), and the records it would build are
never needed: cnt, or a binary request's MsgCnt, is the count the summary shows (request_tally's reading,
with its records not even counted); a binary request's group and stream are its attributes' or its
numbers, as ExtField says (bin_head). Binary heartbeats (MsgType 8) too: a request's payload shows
nothing, an answer's its status. Any other row (a text-layout heartbeat, Snappy, other attributes) makes
summary_columns answer None, and the caller reads the frames one at a time."""
from __future__ import annotations

from inlong_proto.core.errors import TruncatedError, ValidationError
from inlong_proto.core.plain import to_plain
from inlong_proto.dataproxy.payload import INT_MAX, MsgType, java_int, layouts, response_status

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
    text, answer, binary = batch.column("text_message"), batch.column("bin_response"), batch.column("bin_message")
    beat = batch.column("bin_heartbeat")
    is_text, is_binary, is_beat = text.is_valid(), binary.is_valid(), beat.is_valid()
    direction = batch.column("direction")
    answers, asks = (pc.fill_null(pc.equal(direction, side), False) for side in ("response", "request"))
    response = pc.or_(pc.and_(pc.or_(is_text, is_beat), answers), answer.is_valid())
    text_request = pc.and_(is_text, asks)
    request = pc.or_(text_request, is_binary)  # (a row of no direction, a dump's, is left to payload's guess)
    if not pc.all(pc.or_(pc.or_(request, response), pc.and_(is_beat, asks))).as_py():
        return None
    attr = pc.if_else(is_text, pc.struct_field(text, "attr"), pc.if_else(
        is_binary, pc.struct_field(binary, "attr"), pc.if_else(is_beat, pc.struct_field(beat, "attr"),
                                                               pc.struct_field(answer, "attr"))))
    plain = pc.or_(pc.equal(attr, ""), pc.and_(pc.match_substring_regex(attr, _PLAIN),
                                                pc.match_substring_regex(attr, _ENTRIES)))
    if not pc.all(pc.fill_null(plain, False)).as_py():
        return None
    keys = pc.replace_substring_regex(attr, "=[^&]*", "")  # "groupId&streamId&cnt": which keys, in order
    multi_body = pc.fill_null(pc.and_(text_request, pc.equal(batch.column("base_type"), MsgType.multi_body.name)),
                              False)
    quiet = pc.or_(pc.is_in(batch.column("base_type"), value_set=pa.array(_QUIET_BODIES)), multi_body)
    compressed = pc.match_substring_regex(keys, "(^|&)cp(&|$)")
    encrypted = batch.column("encrypted")
    readable = pc.if_else(is_binary, pc.or_(encrypted, pc.invert(batch.column("compressed"))),
                          pc.or_(pc.invert(text_request), pc.and_(quiet, pc.or_(encrypted, pc.invert(compressed)))))
    if not pc.all(pc.fill_null(readable, False)).as_py():
        return None
    repeated = _mapped(keys, lambda names: "" if len(set(names.split("&"))) < names.count("&") + 1 else None)
    failed = pc.and_(request, repeated.is_valid())  # parse_attrs(strict=True) refuses a repeated key
    code = _mapped(_value(attr, "errCode"), _error_code)
    failed = pc.or_(failed, pc.and_(response, pc.equal(code, "")))  # response_status refuses the errCode
    failed = pc.or_(failed, _bad_bodies(binary, pc.and_(is_binary, pc.invert(encrypted)), _bin_layout))
    failed = pc.or_(failed, _bad_bodies(text, pc.and_(multi_body, pc.invert(encrypted)),
                                        lambda message: layouts.decode_text_items))
    group, stream = _value(attr, "groupId"), _value(attr, "streamId")
    count = _mapped(_value(attr, "cnt"), _count)
    if pc.any(is_binary).as_py():
        named = pc.struct_field(pc.struct_field(binary, "ext_field"), "ids_as_strings")
        by_number = pc.fill_null(pc.and_(is_binary, pc.invert(named)), False)
        group = pc.if_else(by_number, _number(pc.struct_field(binary, "group_num")), group)
        stream = pc.if_else(by_number, _number(pc.struct_field(binary, "stream_num")), stream)
        count = pc.if_else(is_binary, pc.cast(pc.struct_field(binary, "msg_cnt"), pa.string()), count)
    if pc.any(is_beat).as_py():  # a heartbeat's payload names no group, stream or count (reader.heartbeat)
        group, stream, count = (pc.if_else(is_beat, pa.scalar(None, pa.string()), column)
                                for column in (group, stream, count))
    columns = {"payload.group_id": group, "payload.stream_id": stream, "payload.record_count": count,
               "payload.error_code": pc.if_else(response, code, pa.scalar(None, pa.string())),
               "payload.error_message": pc.if_else(response, _value(attr, "errMsg"), pa.scalar(None, pa.string()))}
    none = pa.nulls(batch.num_rows, pa.string())
    return {name: pc.if_else(failed, none, pc.if_else(pc.equal(column, ""), none, column))
            for name, column in columns.items()}


def _number(column):
    """A numeric id as bin_head gives it: its digits, none for 0."""
    import pyarrow as pa
    import pyarrow.compute as pc

    return pc.if_else(pc.equal(column, 0), pa.scalar(None, pa.string()), pc.cast(column, pa.string()))


def _bin_layout(message: dict):
    """The generated decoder of a binary request's body, as ExtField picks it (bin_data)."""
    ext = message["ext_field"]
    return (layouts.decode_bin_items_with_attrs if ext["per_record_attributes"] else layouts.decode_lf_block
            if ext["separated_by_lf"] else layouts.decode_bin_items)


def _bad_bodies(column, read, layout):
    """Where a request's body (column: its message struct) is read (read: not encrypted, not Snappy, the
    caller's) and is not the layout the generated decoder layout(message) reads (payload's text_data,
    bin_data), row by row."""
    import pyarrow as pa
    import pyarrow.compute as pc

    bad = [False] * len(column)
    rows = pc.indices_nonzero(pc.fill_null(read, False)).to_pylist()
    for row, message in zip(rows, pc.take(column, pa.array(rows, pa.int64())).to_pylist()):
        body = message["body"]
        try:
            layout(message)(body, 0, len(body), "body.body.")
        except (ValidationError, TruncatedError):
            bad[row] = True
    return pa.array(bad, pa.bool_())


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
    value = java_int(text, INT_MAX)
    return None if value is None else str(value)


def _error_code(text: str | None) -> str:
    """errCode as the summary shows payload()'s error_code; "" where response_status refuses it."""
    try:
        code, _ = response_status(() if text is None else (("errCode", text),))
    except ValidationError:
        return ""
    return str(to_plain(code))
