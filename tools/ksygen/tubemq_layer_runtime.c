/* ---- runtime of the compiled TubeMQ payload layer (tools/ksygen/tubemq_layer_runtime.c, its own translation
 * unit of inlong_proto._compiled, copied once into generated/native; its tables: the generated tubemq_tables.h).
 *
 * verdicts(rows, list_offsets, item_offsets, item_data, want) reads each frame's RPC stream from the Arrow
 * buffers of a scanned batch's `blocks` column (list<struct<block_len, data>>: a frame's blocks are
 * consecutive, so its stream is one slice of the data buffer) and answers what
 * inlong_proto.tubemq.rpc.describe would: (message type index << 1) | (1 for a response), or -1 "ask
 * Python" wherever this file is not certain describe accepts the frame. It answers >= 0 only when
 *  - every delimiter is a varint of at most 5 bytes below 2^32 whose message lies inside the stream,
 *  - every message read (the envelope, and the business message of a method with a mapping) holds only
 *    well-formed fields: tags of at most 5 bytes below 2^32 with a field number > 0, varints of at most
 *    10 bytes (the 10th 0 or 1), lengths of at most 5 bytes below 2^31 inside the message, no groups,
 *  - every known field has the wire type its kind expects (a packed repeated scalar asks Python), an int32
 *    or enum value is an int32, a closed enum's value is a known one (upb would move another to the
 *    unknown fields), a bool is 0 or 1, a string upb checks (proto3) is strict UTF-8 as Python decodes it
 *    (a proto2 string, unchecked by upb, is bytes here),
 *  - every required field of every message instance is present (merging two occurrences of a singular
 *    message could complete it; that case asks Python),
 *  - nesting is at most TQ_MAX_DEPTH deep, and the method id has a message type here.
 * Unknown fields of wire types 0, 1, 2 and 5 are skipped, as upb keeps them without a look.
 * Nothing is allocated per row; no byte outside the given buffers is read.
 */
#include "runtime.h"

enum { TQ_K_NONE = 0, TQ_K_INT32, TQ_K_UINT32, TQ_K_VARINT, TQ_K_BOOL, TQ_K_ENUM, TQ_K_FIXED32, TQ_K_FIXED64,
       TQ_K_STRING, TQ_K_BYTES, TQ_K_MESSAGE };
enum { TQ_WT_VARINT = 0, TQ_WT_FIXED64 = 1, TQ_WT_LEN = 2, TQ_WT_FIXED32 = 5 };
#define TQ_MAX_DEPTH 32
#define TQ_ASK_PYTHON (-1)

typedef struct { uint8_t kind; int8_t required_bit; int16_t sub, enum_set; } tq_field;
typedef struct { const tq_field *fields; uint32_t count; uint64_t required_mask; } tq_message;
typedef struct { const int32_t *values; size_t count; } tq_enum;

#include "tubemq_tables.h"  /* generated: the tables this runtime reads */

/* A varint of at most max_bytes bytes; a 10-byte one must end in 0 or 1 (no bits past 64). */
static inline int tq_varint(const uint8_t **p, const uint8_t *end, int max_bytes, uint64_t *out)
{
    const uint8_t *q = *p;
    uint64_t value = 0;
    if (q < end && !(*q & 0x80)) {  /* one byte: most tags, lengths and values */
        *out = *q;
        *p = q + 1;
        return 1;
    }
    for (int i = 0; i < max_bytes; i++) {
        if (q >= end) return 0;
        uint8_t byte = *q++;
        if (i == 9 && byte > 1) return 0;
        value |= (uint64_t)(byte & 0x7F) << (7 * i);
        if (!(byte & 0x80)) {
            *p = q;
            *out = value;
            return 1;
        }
    }
    return 0;
}

/* A length prefix: at most 5 bytes, below 2^31, and the bytes it announces inside [*p, end). */
static inline int tq_length(const uint8_t **p, const uint8_t *end, uint64_t *length)
{
    return tq_varint(p, end, 5, length) && *length <= INT32_MAX && *length <= (uint64_t)(end - *p);
}

static int tq_in_enum(int set, int64_t value)
{
    const tq_enum *e = &tq_enums[set];
    for (size_t i = 0; i < e->count; i++)
        if (e->values[i] == value) return 1;
    return 0;
}

/* Skips an unknown field's value; groups (wire types 3, 4) and the undefined 6, 7 fail. */
static int tq_skip(const uint8_t **p, const uint8_t *end, unsigned wire_type)
{
    uint64_t value;
    switch (wire_type) {
    case TQ_WT_VARINT: return tq_varint(p, end, 10, &value);
    case TQ_WT_FIXED64: if (end - *p < 8) return 0; *p += 8; return 1;
    case TQ_WT_FIXED32: if (end - *p < 4) return 0; *p += 4; return 1;
    case TQ_WT_LEN: if (!tq_length(p, end, &value)) return 0; *p += value; return 1;
    default: return 0;
    }
}

/* The wire type each kind expects, by kind. */
static const uint8_t tq_wire_type[] = {
    [TQ_K_NONE] = TQ_WT_VARINT, [TQ_K_INT32] = TQ_WT_VARINT, [TQ_K_UINT32] = TQ_WT_VARINT,
    [TQ_K_VARINT] = TQ_WT_VARINT, [TQ_K_BOOL] = TQ_WT_VARINT, [TQ_K_ENUM] = TQ_WT_VARINT,
    [TQ_K_FIXED32] = TQ_WT_FIXED32, [TQ_K_FIXED64] = TQ_WT_FIXED64,
    [TQ_K_STRING] = TQ_WT_LEN, [TQ_K_BYTES] = TQ_WT_LEN, [TQ_K_MESSAGE] = TQ_WT_LEN};

/* A field whose last occurrence the caller wants from a message (the envelope's flag, status, method and
 * payload): its varint value, or a length-delimited field's length and where its bytes start. */
typedef struct { uint64_t number, value; const uint8_t *data; int found; } tq_pick;

/* Whether message `index` parses from [p, end) and is initialized, as certainly as the rules above say;
 * it fills the picks (top-level fields of this message) on the way. */
static int tq_valid(int index, const uint8_t *p, const uint8_t *end, int depth, tq_pick *picks, int pick_count)
{
    if (depth > TQ_MAX_DEPTH) return 0;
    const tq_message *message = &tq_messages[index];
    uint64_t seen = 0;
    while (p < end) {
        uint64_t tag, value;
        if (*p < 0x80) tag = *p++;  /* a one-byte tag (fields 1 to 15), inline: 7 % faster than tq_varint */
        else if (!tq_varint(&p, end, 5, &tag) || tag > UINT32_MAX) return 0;
        if ((tag >> 3) == 0) return 0;
        uint64_t number = tag >> 3;
        unsigned wire_type = (unsigned)(tag & 7);
        const tq_field *field = number < message->count ? &message->fields[number] : NULL;
        if (field == NULL || field->kind == TQ_K_NONE) {
            if (!tq_skip(&p, end, wire_type)) return 0;
            continue;
        }
        if (wire_type != tq_wire_type[field->kind]) return 0;
        const uint8_t *data = NULL;
        /* by wire type first, then the kind's checks: fewer distinct branches for the predictor */
        if (wire_type == TQ_WT_LEN) {
            if (!tq_length(&p, end, &value)) return 0;
            if (field->kind == TQ_K_STRING && !ip_utf8_ok(p, (Py_ssize_t)value)) return 0;
            if (field->kind == TQ_K_MESSAGE && !tq_valid(field->sub, p, p + value, depth + 1, NULL, 0)) return 0;
            data = p;
            p += value;
        } else if (wire_type == TQ_WT_VARINT) {
            if (!tq_varint(&p, end, 10, &value)) return 0;
            int64_t signed_value = (int64_t)value;
            if (field->kind == TQ_K_INT32 || field->kind == TQ_K_ENUM) {
                if (signed_value < INT32_MIN || signed_value > INT32_MAX) return 0;
                if (field->kind == TQ_K_ENUM && !tq_in_enum(field->enum_set, signed_value)) return 0;
            }
            else if (field->kind == TQ_K_UINT32 && value > UINT32_MAX) return 0;
            else if (field->kind == TQ_K_BOOL && value > 1) return 0;
        } else {  /* fixed32, fixed64 */
            if (!tq_skip(&p, end, wire_type)) return 0;
            value = 0;
        }
        if (field->required_bit >= 0) seen |= UINT64_C(1) << field->required_bit;
        for (int i = 0; i < pick_count; i++)
            if (picks[i].number == number) {
                picks[i].value = value;
                picks[i].data = data;
                picks[i].found = 1;
            }
    }
    return (seen & message->required_mask) == message->required_mask;
}

/* The next delimited message of the stream, as rpc._Stream.read reads it, validated as message `index`. */
static int tq_read(const uint8_t **pos, const uint8_t *end, int index, tq_pick *picks, int pick_count)
{
    uint64_t size;
    if (!tq_varint(pos, end, 5, &size) || size > UINT32_MAX || size > (uint64_t)(end - *pos)) return 0;
    const uint8_t *start = *pos;
    *pos += size;
    return tq_valid(index, start, *pos, 0, picks, pick_count);
}

/* describe's answer on one RPC stream; want: 0 the flag decides, 1 request, 2 response. */
static int32_t tq_verdict(const uint8_t *stream, const uint8_t *end, int want)
{
    const uint8_t *pos = stream;
    tq_pick flag = {TQ_CONN_FLAG, 0, NULL, 0};
    if (!tq_read(&pos, end, TQ_MSG_RpcConnHeader, &flag, 1) || !flag.found) return TQ_ASK_PYTHON;
    int response = want == 0 ? (int64_t)flag.value == TQ_FLAG_RESPONSE : want == 2;
    tq_pick body[2];  /* method, payload (an absent payload field is empty bytes) */
    if (!response) {
        body[0] = (tq_pick){TQ_REQUEST_METHOD, 0, NULL, 0};
        body[1] = (tq_pick){TQ_REQUEST_PAYLOAD, 0, NULL, 0};
        if (!tq_read(&pos, end, TQ_MSG_RequestHeader, NULL, 0) || !tq_read(&pos, end, TQ_MSG_RequestBody, body, 2))
            return TQ_ASK_PYTHON;
    } else {
        tq_pick status = {TQ_RESPONSE_STATUS, 0, NULL, 0};
        if (!tq_read(&pos, end, TQ_MSG_ResponseHeader, &status, 1) || !status.found) return TQ_ASK_PYTHON;
        if ((int64_t)status.value != TQ_STATUS_SUCCESS)
            return tq_read(&pos, end, TQ_MSG_RspExceptionBody, NULL, 0) ? (TQ_EXCEPTION_TYPE << 1) | 1 : TQ_ASK_PYTHON;
        body[0] = (tq_pick){TQ_RESPONSE_METHOD, 0, NULL, 0};
        body[1] = (tq_pick){TQ_RESPONSE_PAYLOAD, 0, NULL, 0};
        if (!tq_read(&pos, end, TQ_MSG_RspResponseBody, body, 2)) return TQ_ASK_PYTHON;
    }
    if (!body[0].found) return TQ_ASK_PYTHON;
    int request_message, response_message;
    int type = tq_method((int64_t)body[0].value, &request_message, &response_message);
    if (type < 0) return TQ_ASK_PYTHON;
    int business = response ? response_message : request_message;
    const uint8_t *payload = body[1].found ? body[1].data : end;
    if (business >= 0 && !tq_valid(business, payload, payload + (body[1].found ? body[1].value : 0), 0, NULL, 0))
        return TQ_ASK_PYTHON;
    return (type << 1) | response;
}

static int tq_offset(const uint8_t *offsets, Py_ssize_t at)
{
    const uint8_t *b = offsets + 4 * at;
    return (int)(int32_t)((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24);
}

/* Where row's stream lies in the data buffer, or why the offsets cannot say. */
static const char *tq_row(const uint8_t *list_offsets, const uint8_t *item_offsets, Py_ssize_t item_count,
                          Py_ssize_t data_len, Py_ssize_t row, int *start, int *stop)
{
    int first = tq_offset(list_offsets, row), last = tq_offset(list_offsets, row + 1);
    if (first < 0 || last < first || last >= item_count) return "a list offset is outside item_offsets";
    *start = tq_offset(item_offsets, first);
    *stop = tq_offset(item_offsets, last);
    if (*start < 0 || *stop < *start || *stop > data_len) return "an item offset is outside item_data";
    return NULL;
}

static PyObject *verdicts(PyObject *self, PyObject *args)
{
    Py_ssize_t rows;
    Py_buffer lists, items, data;
    int want;
    (void)self;
    if (!PyArg_ParseTuple(args, "ny*y*y*i", &rows, &lists, &items, &data, &want)) return NULL;
    PyObject *out = NULL;
    const char *bad = NULL;
    Py_ssize_t bad_row = -1;
    if (rows < 0) bad = "rows is negative";
    else if (want < 0 || want > 2) bad = "want is 0 (no direction), 1 (request) or 2 (response)";
    else if (rows > 0 && lists.len / 4 - 1 < rows) bad = "list_offsets holds fewer than rows + 1 offsets";
    if (bad == NULL) out = PyBytes_FromStringAndSize(NULL, rows * 4);
    if (out != NULL) {
        uint8_t *codes = (uint8_t *)PyBytes_AS_STRING(out);
        const uint8_t *list_offsets = lists.buf, *item_offsets = items.buf, *bytes = data.buf;
        Py_ssize_t item_count = items.len / 4;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t row = 0; row < rows; row++) {
            int start, stop;
            bad = tq_row(list_offsets, item_offsets, item_count, data.len, row, &start, &stop);
            if (bad != NULL) { bad_row = row; break; }
            uint32_t code = (uint32_t)tq_verdict(bytes + start, bytes + stop, want);
            codes[4 * row] = (uint8_t)code;
            codes[4 * row + 1] = (uint8_t)(code >> 8);
            codes[4 * row + 2] = (uint8_t)(code >> 16);
            codes[4 * row + 3] = (uint8_t)(code >> 24);
        }
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&lists);
    PyBuffer_Release(&items);
    PyBuffer_Release(&data);
    if (bad != NULL) {
        Py_XDECREF(out);
        if (bad_row >= 0) PyErr_Format(PyExc_ValueError, "row %zd: %s", bad_row, bad);
        else PyErr_SetString(PyExc_ValueError, bad);
        return NULL;
    }
    return out;
}

static PyMethodDef tq_methods[] = {
    {"verdicts", verdicts, METH_VARARGS,
     "verdicts(rows, list_offsets, item_offsets, item_data, want) -> bytes: per row a little-endian int32, "
     "(MESSAGE_TYPES index << 1) | (1 for a response) as rpc.describe answers, or -1 (ask Python). The "
     "buffers are the blocks column's int32 list offsets, its data child's int32 offsets and data; want: 0 "
     "the RpcConnHeader flag decides the direction, 1 request, 2 response. ValueError on offsets outside "
     "the buffers."},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef tq_module = {PyModuleDef_HEAD_INIT, "inlong_proto._compiled.tubemq_layer",
    "Generated compiled TubeMQ payload layer (tools/ksygen/cgen_protobuf.py).", -1, tq_methods, NULL, NULL,
    NULL, NULL};

PyObject *ipc_tubemq_layer_module(void)
{
    PyObject *m = PyModule_Create(&tq_module);
    if (m == NULL) return NULL;
    size_t count = sizeof TQ_MESSAGE_TYPES / sizeof TQ_MESSAGE_TYPES[0];
    PyObject *types = PyTuple_New((Py_ssize_t)count);
    if (types == NULL) { Py_DECREF(m); return NULL; }
    for (size_t i = 0; i < count; i++) {
        PyObject *name = PyUnicode_FromString(TQ_MESSAGE_TYPES[i]);
        if (name == NULL) { Py_DECREF(types); Py_DECREF(m); return NULL; }
        PyTuple_SET_ITEM(types, (Py_ssize_t)i, name);
    }
    if (PyModule_AddObject(m, "MESSAGE_TYPES", types) < 0) { Py_DECREF(types); Py_DECREF(m); return NULL; }
    return m;
}
