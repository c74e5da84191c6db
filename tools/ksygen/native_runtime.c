/* ---- runtime of the generated scanners (copied from tools/ksygen/native_runtime.c): Arrow column
 * buffers, big/little-endian readers, date arithmetic. It knows no protocol and no byte position. ---- */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

enum { IP_FIXED = 0, IP_STR = 1, IP_STRUCT = 2, IP_BOOL = 3, IP_LIST = 4 };
/* The verdicts of a decode function besides a size (see cgen.py): certainly no frame here, or ask Python. */
#define IP_INVALID ((Py_ssize_t)-1)
#define IP_UNKNOWN ((Py_ssize_t)-2)
/* Row directions: 0 none (or ambiguous), 1 request, 2 response. */
static const char *const IP_DIRECTIONS[] = {NULL, "request", "response"};

typedef struct { uint8_t *p; Py_ssize_t len, cap; } ipbuf;
typedef struct { ipbuf data, offs, valid; Py_ssize_t n, nulls, items; int oom; } ipcol;

static int ipbuf_reserve(ipbuf *b, Py_ssize_t more)
{
    if (b->len + more <= b->cap) return 1;
    Py_ssize_t cap = b->cap ? b->cap : 1024;
    while (cap < b->len + more) cap *= 2;
    uint8_t *p = realloc(b->p, (size_t)cap);
    if (p == NULL) return 0;
    b->p = p;
    b->cap = cap;
    return 1;
}

static inline void ip_put(ipcol *c, ipbuf *b, const void *src, Py_ssize_t n)
{
    if (!ipbuf_reserve(b, n)) { c->oom = 1; return; }
    memcpy(b->p + b->len, src, (size_t)n);
    b->len += n;
}

/* One validity bit (Arrow: least significant bit first); counts the row. */
static inline void ip_bit(ipcol *c, int ok)
{
    if ((c->n & 7) == 0) {
        if (!ipbuf_reserve(&c->valid, 1)) { c->oom = 1; return; }
        c->valid.p[c->valid.len++] = 0;
    }
    if (ok) c->valid.p[c->n >> 3] |= (uint8_t)(1u << (c->n & 7));
    else c->nulls++;
    c->n++;
}

#define IP_FIXED_APPEND(bits, ctype) \
    static inline void ip_i##bits(ipcol *c, int64_t v, int ok) \
    { ctype x = ok ? (ctype)v : 0; ip_put(c, &c->data, &x, sizeof x); ip_bit(c, ok); }
IP_FIXED_APPEND(8, int8_t)
IP_FIXED_APPEND(16, int16_t)
IP_FIXED_APPEND(32, int32_t)
IP_FIXED_APPEND(64, int64_t)

/* An Arrow boolean: one value bit and one validity bit. */
static inline void ip_bool(ipcol *c, int64_t v, int ok)
{
    if ((c->n & 7) == 0) {
        if (!ipbuf_reserve(&c->data, 1)) { c->oom = 1; return; }
        c->data.p[c->data.len++] = 0;
    }
    if (ok && v) c->data.p[c->n >> 3] |= (uint8_t)(1u << (c->n & 7));
    ip_bit(c, ok);
}

static inline void ip_str(ipcol *c, const char *s, Py_ssize_t n)
{
    int32_t end;
    if (c->offs.len == 0) { int32_t zero = 0; ip_put(c, &c->offs, &zero, 4); }
    if (s != NULL) ip_put(c, &c->data, s, n);
    if (c->data.len > INT32_MAX) { c->oom = 1; return; }
    end = (int32_t)c->data.len;
    ip_put(c, &c->offs, &end, 4);
    ip_bit(c, s != NULL);
}

/* A list value of `count` items (appended to the child columns by the caller): its end offset. */
static inline void ip_list(ipcol *c, int ok, int64_t count)
{
    int32_t end;
    if (c->offs.len == 0) { int32_t zero = 0; ip_put(c, &c->offs, &zero, 4); }
    c->items += (Py_ssize_t)count;
    if (c->items > INT32_MAX) { c->oom = 1; return; }
    end = (int32_t)c->items;
    ip_put(c, &c->offs, &end, 4);
    ip_bit(c, ok);
}

static inline void ip_cstr(ipcol *c, const char *s) { ip_str(c, s, s ? (Py_ssize_t)strlen(s) : 0); }

/* An enum's member name; a value the spec does not name is its decimal text (as the Arrow tables show it). */
static inline void ip_enum(ipcol *c, const char *name, int64_t v)
{
    char text[24];
    if (name != NULL) { ip_cstr(c, name); return; }
    snprintf(text, sizeof text, "%lld", (long long)v);
    ip_cstr(c, text);
}

static inline uint16_t ip_rd2be(const uint8_t *p) { return (uint16_t)((p[0] << 8) | p[1]); }
static inline uint16_t ip_rd2le(const uint8_t *p) { return (uint16_t)((p[1] << 8) | p[0]); }
static inline uint32_t ip_rd4be(const uint8_t *p)
{ return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3]; }
static inline uint32_t ip_rd4le(const uint8_t *p)
{ return ((uint32_t)p[3] << 24) | ((uint32_t)p[2] << 16) | ((uint32_t)p[1] << 8) | p[0]; }
static inline uint64_t ip_rd8be(const uint8_t *p) { return ((uint64_t)ip_rd4be(p) << 32) | ip_rd4be(p + 4); }
static inline uint64_t ip_rd8le(const uint8_t *p) { return ((uint64_t)ip_rd4le(p + 4) << 32) | ip_rd4le(p); }

/* @@SHARED strict_utf8.c@@ */

static inline int ip_ascii_ok(const uint8_t *s, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++) if (s[i] & 0x80) return 0;
    return 1;
}

/* @@SHARED checked_int64.c@@ */

/* Milliseconds since 1970-01-01 of a zone-less wall-clock time, or 0 where Python's datetime() would
 * refuse it (then the frame is left to the Python codec). */
static int ip_datetime_ms(int64_t y, int64_t mo, int64_t d, int64_t h, int64_t mi, int64_t s, int64_t ms,
                          int64_t *out)
{
    static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (y < 1 || y > 9999 || mo < 1 || mo > 12 || d < 1 || h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 || s > 59
        || ms < 0 || ms > 999)
        return 0;
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (d > mdays[mo - 1] + (mo == 2 && leap)) return 0;
    int64_t yy = y - (mo <= 2);
    int64_t era = yy / 400;  /* yy >= 0 */
    int64_t yoe = yy - era * 400;
    int64_t doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    int64_t days = era * 146097 + doe - 719468;
    *out = ((days * 24 + h) * 60 + mi) * 60000 + s * 1000 + ms;
    return 1;
}

/* A column buffer handed to Python without a copy: an object that owns the malloc'd bytes and exposes them
 * through the buffer protocol (pyarrow.py_buffer keeps it alive as long as any array uses the memory). */
typedef struct { PyObject_HEAD uint8_t *p; Py_ssize_t len; } ipowned;

static int ipowned_getbuffer(PyObject *self, Py_buffer *view, int flags)
{
    static uint8_t empty[1];
    ipowned *o = (ipowned *)self;
    return PyBuffer_FillInfo(view, self, o->p ? o->p : empty, o->len, 1, flags);
}

static void ipowned_dealloc(PyObject *self)
{
    free(((ipowned *)self)->p);
    Py_TYPE(self)->tp_free(self);
}

static PyBufferProcs ipowned_as_buffer = {ipowned_getbuffer, NULL};

static PyTypeObject ipowned_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "inlong_proto._native.buffer",
    .tp_basicsize = sizeof(ipowned),
    .tp_dealloc = ipowned_dealloc,
    .tp_as_buffer = &ipowned_as_buffer,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Bytes of one Arrow column buffer, owned here and read through the buffer protocol.",
};

/* The buffer's bytes as an ipowned (trimmed to their length); the ipbuf gives them up. */
static PyObject *ip_bytes(ipbuf *b)
{
    ipowned *o = PyObject_New(ipowned, &ipowned_type);
    if (o == NULL) return NULL;
    o->p = b->p;
    o->len = b->len;
    if (b->p != NULL && b->cap > b->len + 4096) {
        uint8_t *trimmed = realloc(b->p, (size_t)(b->len ? b->len : 1));
        if (trimmed != NULL) o->p = trimmed;
    }
    b->p = NULL;
    b->len = b->cap = 0;
    return (PyObject *)o;
}

/* columns -> a list, one tuple per column: (validity or None, data) for fixed-width values and booleans,
 * (validity or None, offsets, data) for strings and binary, (validity or None, offsets) for lists,
 * (validity or None,) for structs. */
static PyObject *ip_columns(ipcol *cols, int ncol, const int *kinds)
{
    PyObject *list = PyList_New(ncol);
    if (list == NULL) return NULL;
    for (int i = 0; i < ncol; i++) {
        ipcol *c = &cols[i];
        PyObject *valid, *item;
        if (c->nulls) valid = ip_bytes(&c->valid);
        else { valid = Py_None; Py_INCREF(valid); }
        if (valid == NULL) { Py_DECREF(list); return NULL; }
        if (kinds[i] == IP_BOOL && c->data.len == 0) { uint8_t zero = 0; ip_put(c, &c->data, &zero, 1); }
        if (kinds[i] == IP_STRUCT) item = Py_BuildValue("(N)", valid);
        else if (kinds[i] == IP_LIST) {
            if (c->offs.len == 0) { int32_t zero = 0; ip_put(c, &c->offs, &zero, 4); }
            item = Py_BuildValue("(NN)", valid, ip_bytes(&c->offs));
        }
        else if (kinds[i] == IP_STR) {
            if (c->offs.len == 0) { int32_t zero = 0; ip_put(c, &c->offs, &zero, 4); }
            item = Py_BuildValue("(NNN)", valid, ip_bytes(&c->offs), ip_bytes(&c->data));
        }
        else item = Py_BuildValue("(NN)", valid, ip_bytes(&c->data));
        if (item == NULL) { Py_DECREF(list); return NULL; }
        PyList_SET_ITEM(list, i, item);
    }
    return list;
}

static void ip_free(ipcol *cols, int ncol)
{
    for (int i = 0; i < ncol; i++) { free(cols[i].data.p); free(cols[i].offs.p); free(cols[i].valid.p); }
}

/* scan_<protocol>(buffer, pos, limit, want, max_rows, path): whole valid frames from pos on, at most max_rows,
 * each at most limit bytes and sent in direction want (0 any, 1 request, 2 response); stops at the first
 * position without one (IP_INVALID or IP_UNKNOWN). Each decode sees at most limit + 1 bytes, as the Python
 * decoder does. Returns (stop, rows, columns); the GIL is released while scanning. */
#define IP_SCAN_BODY(ROW, DECODE, APPEND, NCOL, KINDS) \
    Py_buffer view; Py_ssize_t pos, limit, max_rows, path_len, n = 0; int want, oom = 0; const char *path; \
    ipcol cols[NCOL]; \
    (void)self; \
    if (!PyArg_ParseTuple(args, "y*nnins#", &view, &pos, &limit, &want, &max_rows, &path, &path_len)) return NULL; \
    if (pos < 0 || pos > view.len || limit < 0) { PyBuffer_Release(&view); PyErr_SetString(PyExc_ValueError, "pos outside the buffer"); return NULL; } \
    memset(cols, 0, sizeof cols); \
    Py_BEGIN_ALLOW_THREADS \
    { \
        const uint8_t *b = (const uint8_t *)view.buf; \
        Py_ssize_t end = view.len; \
        ROW row, spare; \
        while (pos < end && n < max_rows) { \
            Py_ssize_t window = end - pos > limit ? limit + 1 : end - pos; \
            memset(row.ok, 0, sizeof row.ok); \
            Py_ssize_t size = DECODE(b + pos, window, limit, want, &row, &spare); \
            if (size <= 0) break; \
            APPEND(cols, &row, b + pos, pos, size, path, path_len); \
            pos += size; \
            n++; \
        } \
        for (int i = 0; i < NCOL; i++) oom |= cols[i].oom; \
    } \
    Py_END_ALLOW_THREADS \
    PyBuffer_Release(&view); \
    if (oom) { ip_free(cols, NCOL); return PyErr_NoMemory(); } \
    PyObject *columns = ip_columns(cols, NCOL, KINDS); \
    ip_free(cols, NCOL); \
    if (columns == NULL) return NULL; \
    return Py_BuildValue("nnN", pos, n, columns);

/* frame_<name>(buffer, pos, end, limit, want): the verdict at pos on buffer[pos:end), seen through the
 * window [pos, min(end, pos + limit + 1)) as the Python decoder sees it: the frame's size, IP_INVALID (the
 * pure decoder gives no frame there either) or IP_UNKNOWN (ask it). */
#define IP_FRAME_BODY(ROW, DECODE) \
    Py_buffer view; Py_ssize_t pos, end, limit, size; int want; ROW row, spare; \
    (void)self; \
    if (!PyArg_ParseTuple(args, "y*nnni", &view, &pos, &end, &limit, &want)) return NULL; \
    if (pos < 0 || end > view.len || pos > end || limit < 0) { \
        PyBuffer_Release(&view); \
        PyErr_SetString(PyExc_ValueError, "need 0 <= pos <= end <= len(buffer) and limit >= 0"); \
        return NULL; \
    } \
    if (end - pos > limit) end = pos + limit + 1; \
    memset(row.ok, 0, sizeof row.ok); \
    size = DECODE((const uint8_t *)view.buf + pos, end - pos, limit, want, &row, &spare); \
    PyBuffer_Release(&view); \
    return PyLong_FromSsize_t(size);
