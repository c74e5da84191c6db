/* Copied by tools/generate.py from tools/ksygen/eventmesh_layer_runtime.c. Do not edit here: edit that file and run make generate. */
/* ---- runtime of the compiled EventMesh TCP payload layer (tools/ksygen/eventmesh_layer_runtime.c, its own
 * translation unit of inlong_proto._compiled, copied once into generated/native).
 *
 * verdicts(rows, header_offsets, header_data, body_offsets, body_data, want) answers, for each row of the
 * Arrow columns package.header (string) and package.body (binary), either the message type and direction
 * that inlong_proto.eventmesh.tcp.describe gives the frame, or -1 ("ask Python"). It answers only where it
 * is sure describe accepts the frame: a small strict JSON scanner reads the header and the JSON bodies
 * against binding rules generated from the JSON Schemas (eventmesh_tables.h, included below: what each key
 * accepts, the command table, the protocol types), and anything it does not model exactly as Python's json decoder and
 * the generated from_json do (escapes where the text matters, fractions where an integer is wanted, digits
 * beyond 18, nesting deeper than MAX_DEPTH, text after the value) makes the row -1, and so does a frame whose
 * direction is not the one the caller asked for (frames.build_frame refuses it).
 * Memory: the output only; nesting is bounded by MAX_DEPTH (C recursion, a fixed stack).
 */
#include "runtime.h"

#define MAX_DEPTH 32
#define MAX_NUMBER_TEXT 300 /* a longer number token is left to Python (its int has a digit limit) */
#define MAX_EXACT_DIGITS 18 /* integers that must be in a range are read exactly up to this many digits */

/* JSON value kinds, as bits (CHECK_UNION lists the accepted ones) */
enum { KIND_NULL = 1, KIND_BOOLEAN = 2, KIND_INTEGER = 4, KIND_FRACTION = 8, KIND_STRING = 16, KIND_OBJECT = 32,
       KIND_ARRAY = 64 };

/* what a value must be, as the generated from_json checks it */
enum { CHECK_ANY, CHECK_STRING, CHECK_INTEGER, CHECK_NUMBER, CHECK_BOOLEAN, CHECK_UNION, CHECK_OBJECT, CHECK_MAP,
       CHECK_ARRAY, CHECK_COMMAND, CHECK_UNMODELLED };

/* checks on a string's text (schema_checks): one of `values`, at least one character, printable ASCII only
 * (uri-reference), an absolute URI, an RFC 3339 date-time, base64, or a check this scanner does not model
 * (pattern, maxLength...). All but the first two answer -1 for a string with escapes. */
enum { STRING_ENUM = 1, STRING_NONEMPTY = 2, STRING_NO_SPACE = 4, STRING_URI = 8, STRING_DATE_TIME = 16,
       STRING_BASE64 = 32, STRING_UNMODELLED = 64 };

/* unknown keys of an object: kept as they are, refused, or checked against `item` */
enum { EXTRA_ANY, EXTRA_REFUSED, EXTRA_RULE };

/* header values the verdict needs, beside their checks */
enum { CAPTURE_NONE, CAPTURE_COMMAND, CAPTURE_CODE, CAPTURE_PROPERTIES, CAPTURE_PROTOCOL_TYPE };

/* how a command's body is typed (commands.yaml body-kinds and protocol-types) */
enum { BODY_NONE, BODY_TEXT, BODY_MESSAGE, BODY_JSON };

/* Facts.protocol besides an index of PROTOCOL_TYPES */
enum { PROTOCOL_ABSENT = -1, PROTOCOL_UNKNOWN = -2, PROTOCOL_UNSURE = -3 };

typedef struct Rule Rule;

typedef struct Field {
    const char *name;
    size_t length;
    unsigned char required;
    unsigned char null_ok; /* null accepted (nullable, any, or a Jackson primitive that reads null as its default) */
    unsigned char capture;
    const Rule *rule;
} Field;

struct Rule {
    unsigned char check;
    unsigned char nullable; /* null accepted as an array item, map value, extra key or the whole document */
    unsigned char coerce;   /* Jackson coercion: a string from any scalar, an integer from a digit string */
    unsigned char kinds;    /* CHECK_UNION */
    unsigned char string_checks;
    int64_t low, high;      /* CHECK_INTEGER */
    const Rule *item;       /* CHECK_ARRAY items, CHECK_MAP values, CHECK_OBJECT extra keys (EXTRA_RULE) */
    unsigned char extra;
    const Field *fields;
    int field_count;
    uint32_t required_mask;
    const char *const *values; /* STRING_ENUM */
    int value_count;
};

typedef struct CommandEntry {
    const char *name;
    size_t length;
    unsigned char response; /* sent by the server */
    unsigned char body;
    const Rule *rule;       /* BODY_JSON */
} CommandEntry;

typedef struct ProtocolTypeEntry {
    const char *name;
    size_t length;
    unsigned char body; /* BODY_TEXT or BODY_JSON */
    const Rule *rule;
} ProtocolTypeEntry;

static const Rule ANY_VALUE = {CHECK_ANY, 1, 0, 0, 0, 0, 0, NULL, EXTRA_ANY, NULL, 0, 0, NULL, 0};

#include "eventmesh_tables.h"  /* generated: the tables this runtime reads */

typedef struct Facts {
    int command;    /* its index in COMMANDS, -1 before cmd is read */
    int64_t code;
    int protocol;   /* an index of PROTOCOL_TYPES or PROTOCOL_* */
} Facts;

typedef struct Scan {
    const uint8_t *at, *end;
    int depth;
    Facts *facts;
} Scan;

typedef struct Token {
    int kind;
    const uint8_t *start, *stop; /* a string's text between the quotes, a number's text */
    int escaped;                 /* a string holds a backslash escape */
} Token;

static inline void skip_space(Scan *s)
{
    while (s->at < s->end && (*s->at == ' ' || *s->at == '\t' || *s->at == '\n' || *s->at == '\r')) s->at++;
}

static int is_hex(uint8_t c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Eight bytes at a time: whether any is '"', '\\' or a control character (below 0x20), or not ASCII. */
#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL
#define ANY_BELOW(w, n) (((w) - ONES * (n)) & ~(w) & HIGHS) /* exact for n <= 128 */
#define ANY_EQUAL(w, c) ANY_BELOW((w) ^ (ONES * (c)), 1)

static uint64_t word_at(const uint8_t *p)
{
    uint64_t w;
    memcpy(&w, p, sizeof w);
    return w;
}

/* The first '"', '\\' or control character at or after p, or end. A word's lowest flagged byte is exact
 * (the borrows of the tests only reach later bytes), so on little-endian machines it is found directly. */
static inline const uint8_t *string_stop(const uint8_t *p, const uint8_t *end)
{
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    while (end - p >= 8) {
        uint64_t w = word_at(p), flagged = ANY_EQUAL(w, '"') | ANY_EQUAL(w, '\\') | ANY_BELOW(w, 0x20);
        if (flagged) return p + (__builtin_ctzll(flagged) >> 3);
        p += 8;
    }
#endif
    while (p < end && *p != '"' && *p != '\\' && *p >= 0x20) p++;
    return p;
}

/* A string as Python's strict decoder reads it: no raw control characters, every escape complete. */
static inline int scan_string(Scan *s, Token *t)
{
    const uint8_t *p = s->at + 1;
    t->kind = KIND_STRING;
    t->escaped = 0;
    t->start = p;
    for (;;) {
        p = string_stop(p, s->end);
        if (p >= s->end) return 0;
        uint8_t c = *p;
        if (c == '"') {
            t->stop = p;
            s->at = p + 1;
            return 1;
        }
        if (c != '\\') return 0; /* a raw control character */
        t->escaped = 1;
        if (p + 1 >= s->end) return 0;
        c = p[1];
        if (c == 'u') {
            if (s->end - p < 6 || !is_hex(p[2]) || !is_hex(p[3]) || !is_hex(p[4]) || !is_hex(p[5])) return 0;
            p += 6;
        } else if (c == '"' || c == '\\' || c == '/' || c == 'b' || c == 'f' || c == 'n' || c == 'r' || c == 't') {
            p += 2;
        } else {
            return 0;
        }
    }
}

static int is_digit(uint8_t c) { return c >= '0' && c <= '9'; }

/* A number as Python's json reads it: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static int scan_number(Scan *s, Token *t)
{
    const uint8_t *p = s->at, *end = s->end;
    t->start = p;
    t->kind = KIND_INTEGER;
    if (p < end && *p == '-') p++;
    if (p >= end || !is_digit(*p)) return 0;
    if (*p == '0') p++;
    else while (p < end && is_digit(*p)) p++;
    if (p < end && *p == '.') {
        p++;
        if (p >= end || !is_digit(*p)) return 0;
        while (p < end && is_digit(*p)) p++;
        t->kind = KIND_FRACTION;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-')) p++;
        if (p >= end || !is_digit(*p)) return 0;
        while (p < end && is_digit(*p)) p++;
        t->kind = KIND_FRACTION;
    }
    if (p - t->start > MAX_NUMBER_TEXT) return 0;
    t->stop = p;
    s->at = p;
    return 1;
}

static int scan_literal(Scan *s, const char *word, size_t length)
{
    if ((size_t)(s->end - s->at) < length || memcmp(s->at, word, length) != 0) return 0;
    s->at += length;
    return 1;
}

/* [+-]?[0-9]+ read exactly (at most MAX_EXACT_DIGITS digits); signs: the accepted leading signs. */
static int read_integer(const uint8_t *p, const uint8_t *end, int signs, int64_t *out)
{
    int negative = 0;
    int64_t value = 0;
    if (p < end && (*p == '-' || (*p == '+' && signs > 1))) {
        if (signs == 0) return 0;
        negative = *p == '-';
        p++;
    }
    if (p >= end || end - p > MAX_EXACT_DIGITS) return 0;
    for (; p < end; p++) {
        if (!is_digit(*p)) return 0;
        value = value * 10 + (*p - '0');
    }
    *out = negative ? -value : value;
    return 1;
}

static int text_equals(const Token *t, const char *text, size_t length)
{
    return !t->escaped && (size_t)(t->stop - t->start) == length && memcmp(t->start, text, length) == 0;
}

static int text_is(const Token *t, const char *text) { return text_equals(t, text, strlen(text)); }

static int fixed_digits(const uint8_t *p, int count, int *out)
{
    int value = 0;
    for (int i = 0; i < count; i++) {
        if (!is_digit(p[i])) return 0;
        value = value * 10 + (p[i] - '0');
    }
    *out = value;
    return 1;
}

/* schema_checks.date_time: its regex, then datetime.fromisoformat of the date, time (seconds up to 60) and
 * zone; hours and zone offsets past 23 are left to Python. */
static int date_time_ok(const uint8_t *p, const uint8_t *end)
{
    static const int days[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int year, month, day, hour, minute, second, zone_hour, zone_minute;
    if (end - p < 20 || !fixed_digits(p, 4, &year) || p[4] != '-' || !fixed_digits(p + 5, 2, &month) ||
        p[7] != '-' || !fixed_digits(p + 8, 2, &day) || (p[10] != 'T' && p[10] != 't') ||
        !fixed_digits(p + 11, 2, &hour) || p[13] != ':' || !fixed_digits(p + 14, 2, &minute) || p[16] != ':' ||
        !fixed_digits(p + 17, 2, &second))
        return 0;
    p += 19;
    if (p < end && *p == '.') {
        p++;
        if (p >= end || !is_digit(*p)) return 0;
        while (p < end && is_digit(*p)) p++;
    }
    if (end - p == 1 && (*p == 'Z' || *p == 'z')) {
        p++;
    } else if (end - p == 6 && (*p == '+' || *p == '-') && fixed_digits(p + 1, 2, &zone_hour) && p[3] == ':' &&
               fixed_digits(p + 4, 2, &zone_minute)) {
        if (zone_hour > 23 || zone_minute > 59) return 0;
        p += 6;
    } else {
        return 0;
    }
    if (year < 1 || month < 1 || month > 12 || day < 1 || day > days[month - 1] || hour > 23 || minute > 59 ||
        second > 60)
        return 0;
    return !(month == 2 && day == 29 && (year % 4 != 0 || (year % 100 == 0 && year % 400 != 0)));
}

static int is_alpha(uint8_t c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/* schema_checks.uri: a scheme, ':', then no white space (here: printable ASCII only). */
static int uri_ok(const uint8_t *p, const uint8_t *end)
{
    if (p >= end || !is_alpha(*p)) return 0;
    while (p < end && (is_alpha(*p) || is_digit(*p) || *p == '+' || *p == '.' || *p == '-')) p++;
    if (p >= end || *p != ':') return 0;
    for (; p < end; p++)
        if (*p <= 0x20 || *p >= 0x7f) return 0;
    return 1;
}

/* schema_checks.base64_text: the alphabet, at most two '=' at the end, a length that is a multiple of 4. */
static int base64_ok(const uint8_t *p, const uint8_t *end)
{
    const uint8_t *data_end = end;
    if ((end - p) % 4 != 0) return 0;
    while (data_end > p && end - data_end < 2 && data_end[-1] == '=') data_end--;
    for (; p < data_end; p++)
        if (!is_alpha(*p) && !is_digit(*p) && *p != '+' && *p != '/') return 0;
    return 1;
}

static inline int string_text_ok(const Rule *r, const Token *t)
{
    int checks = r->string_checks;
    if (checks & STRING_UNMODELLED) return 0;
    if ((checks & STRING_NONEMPTY) && t->stop == t->start) return 0;
    if ((checks & (STRING_NO_SPACE | STRING_URI | STRING_DATE_TIME | STRING_BASE64)) && t->escaped) return 0;
    if (checks & STRING_NO_SPACE) {
        for (const uint8_t *p = t->start; p < t->stop; p++)
            if (*p <= 0x20 || *p >= 0x7f) return 0;
    }
    if ((checks & STRING_URI) && !uri_ok(t->start, t->stop)) return 0;
    if ((checks & STRING_DATE_TIME) && !date_time_ok(t->start, t->stop)) return 0;
    if ((checks & STRING_BASE64) && !base64_ok(t->start, t->stop)) return 0;
    if (checks & STRING_ENUM) {
        for (int i = 0; i < r->value_count; i++)
            if (text_is(t, r->values[i])) return 1;
        return 0;
    }
    return 1;
}

/* Command.from_json: the exact name, or the ordinal as an integer or an ASCII digit string. */
static int command_index(const Token *t)
{
    int64_t ordinal;
    if (t->kind == KIND_STRING) {
        if (t->escaped) return -1;
        for (int i = 0; i < COMMAND_COUNT; i++)
            if (text_equals(t, COMMANDS[i].name, COMMANDS[i].length)) return i;
        if (!read_integer(t->start, t->stop, 0, &ordinal)) return -1;
    } else if (t->kind == KIND_INTEGER) {
        if (!read_integer(t->start, t->stop, 1, &ordinal)) return -1;
    } else {
        return -1;
    }
    return ordinal >= 0 && ordinal < COMMAND_COUNT ? (int)ordinal : -1;
}

/* A scalar against its rule (null is decided by the caller); captures what the verdict needs. */
static inline int scalar_ok(Scan *s, const Rule *r, const Token *t, int capture)
{
    int64_t number;
    switch (r->check) {
    case CHECK_ANY:
        break;
    case CHECK_STRING:
        if (t->kind == KIND_STRING) {
            if (!string_text_ok(r, t)) return 0;
        } else if (!(r->coerce && !r->string_checks && (t->kind & (KIND_BOOLEAN | KIND_INTEGER | KIND_FRACTION)))) {
            return 0;
        }
        break;
    case CHECK_INTEGER:
        if (t->kind == KIND_INTEGER) {
            if (!read_integer(t->start, t->stop, 1, &number)) return 0;
        } else if (t->kind == KIND_STRING && r->coerce && !t->escaped) {
            if (t->stop == t->start) number = 0;
            else if (!read_integer(t->start, t->stop, 2, &number)) return 0;
        } else {
            return 0;
        }
        if (number < r->low || number > r->high) return 0;
        if (capture == CAPTURE_CODE) s->facts->code = number;
        break;
    case CHECK_NUMBER:
        if (!(t->kind & (KIND_INTEGER | KIND_FRACTION))) return 0;
        break;
    case CHECK_BOOLEAN:
        if (t->kind != KIND_BOOLEAN) return 0;
        break;
    case CHECK_UNION:
        if (!(t->kind & r->kinds)) return 0;
        break;
    case CHECK_COMMAND:
        number = command_index(t);
        if (number < 0) return 0;
        if (capture == CAPTURE_COMMAND) s->facts->command = (int)number;
        break;
    default:
        return 0;
    }
    if (capture == CAPTURE_PROTOCOL_TYPE) {
        s->facts->protocol = PROTOCOL_UNSURE; /* a number or boolean reads as its JSON text, or an escape */
        if (t->kind == KIND_STRING && !t->escaped) {
            s->facts->protocol = PROTOCOL_UNKNOWN;
            for (int i = 0; i < PROTOCOL_TYPE_COUNT; i++)
                if (text_equals(t, PROTOCOL_TYPES[i].name, PROTOCOL_TYPES[i].length)) s->facts->protocol = i;
        }
    }
    return 1;
}

static int value(Scan *s, const Rule *r, int null_ok, int capture);

static int object(Scan *s, const Rule *r, int capture)
{
    uint32_t seen = 0;
    Token key;
    if (r->check != CHECK_ANY && r->check != CHECK_OBJECT && r->check != CHECK_MAP) return 0;
    if (capture == CAPTURE_PROTOCOL_TYPE) s->facts->protocol = PROTOCOL_UNSURE; /* str() of a dict */
    s->at++;
    skip_space(s);
    if (s->at < s->end && *s->at == '}') {
        s->at++;
        return (r->required_mask & seen) == r->required_mask;
    }
    for (;;) {
        const Rule *member = &ANY_VALUE;
        int null_ok = 1, member_capture = CAPTURE_NONE;
        if (s->at >= s->end || *s->at != '"' || !scan_string(s, &key)) return 0;
        if (r->check == CHECK_OBJECT) {
            int i;
            if (key.escaped) return 0; /* it may spell a known key */
            for (i = 0; i < r->field_count; i++) {
                const Field *f = &r->fields[i];
                if ((size_t)(key.stop - key.start) == f->length && memcmp(key.start, f->name, f->length) == 0) break;
            }
            if (i < r->field_count) {
                const Field *f = &r->fields[i];
                seen |= (uint32_t)1 << i;
                member = f->rule;
                null_ok = f->null_ok;
                member_capture = f->capture;
                /* the last occurrence of a key counts: forget what an earlier one said */
                if (member_capture == CAPTURE_CODE) s->facts->code = 0;
                if (member_capture == CAPTURE_PROPERTIES) s->facts->protocol = PROTOCOL_ABSENT;
            } else if (r->extra == EXTRA_REFUSED) {
                return 0;
            } else if (r->extra == EXTRA_RULE) {
                member = r->item;
                null_ok = member->nullable;
            }
        } else if (r->check == CHECK_MAP) {
            member = r->item;
            null_ok = member->nullable;
            if (capture == CAPTURE_PROPERTIES) {
                if (key.escaped) return 0;
                if (text_equals(&key, PROTOCOL_TYPE_PROPERTY, sizeof PROTOCOL_TYPE_PROPERTY - 1))
                    member_capture = CAPTURE_PROTOCOL_TYPE;
            }
        }
        skip_space(s);
        if (s->at >= s->end || *s->at != ':') return 0;
        s->at++;
        skip_space(s);
        if (!value(s, member, null_ok, member_capture)) return 0;
        skip_space(s);
        if (s->at >= s->end) return 0;
        if (*s->at == '}') {
            s->at++;
            return (r->required_mask & seen) == r->required_mask;
        }
        if (*s->at != ',') return 0;
        s->at++;
        skip_space(s);
    }
}

static int array(Scan *s, const Rule *r, int capture)
{
    const Rule *item = r->check == CHECK_ARRAY ? r->item : &ANY_VALUE;
    if (r->check != CHECK_ANY && r->check != CHECK_ARRAY) return 0;
    if (capture == CAPTURE_PROTOCOL_TYPE) s->facts->protocol = PROTOCOL_UNSURE; /* str() of a list */
    s->at++;
    skip_space(s);
    if (s->at < s->end && *s->at == ']') {
        s->at++;
        return 1;
    }
    for (;;) {
        if (!value(s, item, item->nullable, CAPTURE_NONE)) return 0;
        skip_space(s);
        if (s->at >= s->end) return 0;
        if (*s->at == ']') {
            s->at++;
            return 1;
        }
        if (*s->at != ',') return 0;
        s->at++;
        skip_space(s);
    }
}

/* One JSON value at s->at (no leading space) against rule r. 1: Python accepts it; 0: refused or not sure. */
static int value(Scan *s, const Rule *r, int null_ok, int capture)
{
    Token t = {0, NULL, NULL, 0};
    int ok;
    if (s->at >= s->end) return 0;
    switch (*s->at) {
    case '{':
    case '[':
        if (++s->depth > MAX_DEPTH) return 0;
        ok = *s->at == '{' ? object(s, r, capture) : array(s, r, capture);
        s->depth--;
        return ok;
    case '"':
        if (!scan_string(s, &t)) return 0;
        break;
    case 't':
        if (!scan_literal(s, "true", 4)) return 0;
        t.kind = KIND_BOOLEAN;
        break;
    case 'f':
        if (!scan_literal(s, "false", 5)) return 0;
        t.kind = KIND_BOOLEAN;
        break;
    case 'n':
        if (!scan_literal(s, "null", 4)) return 0;
        if (capture == CAPTURE_PROTOCOL_TYPE) s->facts->protocol = PROTOCOL_ABSENT;
        return null_ok;
    default:
        if (!scan_number(s, &t)) return 0;
    }
    return scalar_ok(s, r, &t, capture);
}

/* A whole text as _Json.parse reads it, nothing but white space after the value. */
static int document(const uint8_t *data, Py_ssize_t length, const Rule *r, Facts *facts)
{
    Scan s = {data, data + length, 0, facts};
    skip_space(&s);
    if (!value(&s, r, r->nullable, CAPTURE_NONE)) return 0;
    skip_space(&s);
    return s.at == s.end;
}

static int body_ok(int kind, const Rule *rule, const uint8_t *body, Py_ssize_t length)
{
    if (length == 0 || kind == BODY_NONE) return 1;
    if (!ip_utf8_ok(body, length)) return 0;
    return kind == BODY_TEXT || document(body, length, rule, NULL);
}

/* The verdict of one frame: (command index << 1) | response, or -1. want: 0 none, 1 request, 2 response; a
 * frame of the other direction is -1 too, since frames.build_frame refuses it (the pure path's error row). */
static int32_t verdict(const uint8_t *header, Py_ssize_t header_length, const uint8_t *body,
                       Py_ssize_t body_length, int want)
{
    Facts facts = {-1, 0, PROTOCOL_ABSENT};
    if (!document(header, header_length, &HEADER_RULE, &facts) || facts.command < 0) return -1;
    const CommandEntry *command = &COMMANDS[facts.command];
    int response = command->response, kind = command->body;
    const Rule *rule = command->rule;
    if (want == 2 && !response && facts.code != 0) {
        response = 1; /* a refused command echoed by the server: its body is text */
        kind = BODY_TEXT;
    } else if (kind == BODY_MESSAGE && body_length > 0) {
        int protocol = facts.protocol == PROTOCOL_ABSENT ? DEFAULT_PROTOCOL_TYPE : facts.protocol;
        if (protocol == PROTOCOL_UNSURE) return -1;
        if (protocol == PROTOCOL_UNKNOWN) {
            kind = BODY_TEXT;
        } else {
            kind = PROTOCOL_TYPES[protocol].body;
            rule = PROTOCOL_TYPES[protocol].rule;
        }
    }
    if ((want != 0 && response != want - 1) || !body_ok(kind, rule, body, body_length)) return -1;
    return (int32_t)((facts.command << 1) | response);
}

/* Row i's [start, stop) from an int32 offsets buffer, checked against the data's size. */
static int row_range(const Py_buffer *offsets, const Py_buffer *data, Py_ssize_t row, Py_ssize_t *start,
                     Py_ssize_t *stop)
{
    int32_t pair[2];
    memcpy(pair, (const char *)offsets->buf + row * 4, sizeof pair);
    if (pair[0] < 0 || pair[1] < pair[0] || pair[1] > data->len) return 0;
    *start = pair[0];
    *stop = pair[1];
    return 1;
}

static PyObject *layer_verdicts(PyObject *self, PyObject *args)
{
    Py_ssize_t rows;
    int want;
    PyObject *objects[4];
    Py_buffer buffers[4];
    int held = 0;
    PyObject *out = NULL;
    (void)self;
    if (!PyArg_ParseTuple(args, "nOOOOi", &rows, &objects[0], &objects[1], &objects[2], &objects[3], &want))
        return NULL;
    if (rows < 0 || want < 0 || want > 2) {
        PyErr_SetString(PyExc_ValueError, "rows must be >= 0 and want 0, 1 or 2");
        return NULL;
    }
    for (; held < 4; held++)
        if (PyObject_GetBuffer(objects[held], &buffers[held], PyBUF_SIMPLE) < 0) goto done;
    if (rows > 0 && (buffers[0].len / 4 < rows + 1 || buffers[2].len / 4 < rows + 1)) { /* Arrow may give none */
        PyErr_SetString(PyExc_ValueError, "an offsets buffer is shorter than rows + 1 int32s");
        goto done;
    }
    out = PyBytes_FromStringAndSize(NULL, rows * 4);
    if (out == NULL) goto done;
    {
        uint8_t *codes = (uint8_t *)PyBytes_AS_STRING(out);
        const uint8_t *headers = buffers[1].buf, *bodies = buffers[3].buf;
        Py_ssize_t bad_row = -1;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < rows; i++) {
            Py_ssize_t h0, h1, b0, b1;
            if (!row_range(&buffers[0], &buffers[1], i, &h0, &h1) ||
                !row_range(&buffers[2], &buffers[3], i, &b0, &b1)) {
                bad_row = i;
                break;
            }
            uint32_t code = (uint32_t)verdict(headers + h0, h1 - h0, bodies + b0, b1 - b0, want);
            codes[4 * i] = (uint8_t)code;
            codes[4 * i + 1] = (uint8_t)(code >> 8);
            codes[4 * i + 2] = (uint8_t)(code >> 16);
            codes[4 * i + 3] = (uint8_t)(code >> 24);
        }
        Py_END_ALLOW_THREADS
        if (bad_row >= 0) {
            PyErr_Format(PyExc_ValueError, "row %zd: offsets outside their data buffer", bad_row);
            Py_CLEAR(out);
        }
    }
done:
    while (held > 0) PyBuffer_Release(&buffers[--held]);
    return out;
}

static PyMethodDef layer_methods[] = {
    {"verdicts", layer_verdicts, METH_VARARGS,
     "verdicts(rows, header_offsets, header_data, body_offsets, body_data, want) -> bytes: per row a\n"
     "little-endian int32, (MESSAGE_TYPES index << 1) | response, or -1 where Python must decide."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef layer_module = {PyModuleDef_HEAD_INIT, "inlong_proto._compiled.eventmesh_layer",
                                          "The EventMesh TCP payload layer's verdicts, compiled.", -1,
                                          layer_methods, NULL, NULL, NULL, NULL};

PyObject *ipc_eventmesh_layer_module(void)
{
    PyObject *m = PyModule_Create(&layer_module), *names;
    if (m == NULL) return NULL;
    names = PyTuple_New(COMMAND_COUNT);
    if (names == NULL) goto fail;
    for (int i = 0; i < COMMAND_COUNT; i++) {
        PyObject *name = PyUnicode_FromString(COMMANDS[i].name);
        if (name == NULL) {
            Py_DECREF(names);
            goto fail;
        }
        PyTuple_SET_ITEM(names, i, name);
    }
    if (PyModule_AddObject(m, "MESSAGE_TYPES", names) < 0) {
        Py_DECREF(names);
        goto fail;
    }
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
