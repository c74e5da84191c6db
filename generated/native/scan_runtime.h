/* Copied by tools/generate.py from tools/ksygen/scan_runtime.h. Do not edit here: edit that file and run make generate. */
/* ---- runtime of the generated scanners (tools/ksygen/scan_runtime.h, copied once into generated/native and
 * included by the generated scan.c only): Arrow column buffers, the pool of kept buffers, date arithmetic.
 * It knows no protocol and no byte position. The readers, checked arithmetic and strict UTF-8 are the shared
 * runtime's (runtime.h). ---- */
#ifndef INLONG_PROTO_SCAN_RUNTIME_H
#define INLONG_PROTO_SCAN_RUNTIME_H
#include "runtime.h"
#include <stdio.h>

#if defined(__GNUC__) || defined(__clang__)
#define IP_NOINLINE __attribute__((noinline))  /* a slow path kept out of the appends it would bloat */
#define IP_INLINE inline __attribute__((always_inline))  /* an append the compiler would call, not inline */
#else
#define IP_NOINLINE
#define IP_INLINE inline
#endif

/* Column kinds; a fixed-width column's kind also holds its width in bytes: IP_FIXED | width << 4. */
enum { IP_FIXED = 0, IP_STR = 1, IP_STRUCT = 2, IP_BOOL = 3, IP_LIST = 4 };
#define IP_KIND(k) ((k) & 15)
#define IP_KIND_WIDTH(k) ((k) >> 4)
/* The verdicts of a decode function besides a size (see cgen.py): certainly no frame here, or ask Python. */
#define IP_INVALID ((Py_ssize_t)-1)
#define IP_UNKNOWN ((Py_ssize_t)-2)
/* Row directions: 0 none (or ambiguous), 1 request, 2 response. */
static const char *const IP_DIRECTIONS[] = {NULL, "request", "response"};
static const Py_ssize_t IP_DIRECTION_LEN[] = {0, 7, 8};

/* hint: the capacity to start with (what this column took in the last scan, scaled to this one). */
typedef struct { uint8_t *p; Py_ssize_t len, cap, hint; } ipbuf;
/* Every append names the row it fills (a frame's number in the scan, or a list item's among all items), and
 * a null row is not appended at all: most columns of a frame layout are null in another layout's rows. The
 * rows a column skipped are written when its next value comes, or at the end (ip_settle): zero values or
 * repeated offsets, and the validity bitmap, which exists only once some row was null (the values before
 * it, from vstart, are all valid). n: the rows written. */
typedef struct { ipbuf data, offs, valid; Py_ssize_t n, nulls, items, vstart; int oom; } ipcol;

/* Freed column buffers, kept for the next scans: a scan's columns in fresh memory cost it as much again in
 * the kernel zeroing pages (a third of a DataProxy scan's time). At most IP_POOL_BYTES in IP_POOL_SLOTS
 * buffers of at least IP_POOL_MIN bytes; the lock is taken with or without the GIL. */
#define IP_POOL_SLOTS 256
#define IP_POOL_MIN ((Py_ssize_t)1 << 16)
#define IP_POOL_BYTES ((Py_ssize_t)64 << 20)
static struct { uint8_t *p; Py_ssize_t cap; } ip_pool[IP_POOL_SLOTS];
static int ip_pooled;
static Py_ssize_t ip_pool_held;
static PyThread_type_lock ip_pool_lock;

/* The smallest kept buffer of need to 2 * need bytes (its capacity in *cap), or NULL. */
static uint8_t *ip_pool_take(Py_ssize_t need, Py_ssize_t *cap)
{
    uint8_t *p = NULL;
    if (need < IP_POOL_MIN || ip_pool_lock == NULL) return NULL;
    PyThread_acquire_lock(ip_pool_lock, WAIT_LOCK);
    int best = -1;
    for (int i = 0; i < ip_pooled; i++)
        if (ip_pool[i].cap >= need && ip_pool[i].cap <= 2 * need && (best < 0 || ip_pool[i].cap < ip_pool[best].cap))
            best = i;
    if (best >= 0) {
        p = ip_pool[best].p;
        *cap = ip_pool[best].cap;
        ip_pool_held -= *cap;
        memmove(&ip_pool[best], &ip_pool[best + 1], (size_t)(--ip_pooled - best) * sizeof ip_pool[0]);
    }
    PyThread_release_lock(ip_pool_lock);
    return p;
}

/* A buffer given up: kept, the oldest kept ones freed to make room (the latest scans' sizes are the likely
 * next ones); freed itself when it is too small or alone bigger than the pool. */
static void ip_pool_give(uint8_t *p, Py_ssize_t cap)
{
    if (p == NULL) return;
    if (cap < IP_POOL_MIN || cap > IP_POOL_BYTES || ip_pool_lock == NULL) { free(p); return; }
    uint8_t *evicted[IP_POOL_SLOTS];
    int count = 0, gone = 0;
    PyThread_acquire_lock(ip_pool_lock, WAIT_LOCK);
    while (gone < ip_pooled && (ip_pooled - gone == IP_POOL_SLOTS || ip_pool_held + cap > IP_POOL_BYTES)) {
        evicted[count++] = ip_pool[gone].p;
        ip_pool_held -= ip_pool[gone++].cap;
    }
    memmove(&ip_pool[0], &ip_pool[gone], (size_t)(ip_pooled - gone) * sizeof ip_pool[0]);
    ip_pooled -= gone;
    ip_pool[ip_pooled].p = p;
    ip_pool[ip_pooled++].cap = cap;
    ip_pool_held += cap;
    PyThread_release_lock(ip_pool_lock);
    for (int i = 0; i < count; i++) free(evicted[i]);  /* outside the lock */
}

/* forget_pool(): in a forked child, a fresh lock and an empty pool (the parent's lock may have been held by
 * another thread at the fork; the kept buffers are left to the child's copy of the heap). */
static PyObject *ip_forget_pool(PyObject *self, PyObject *unused)
{
    (void)self; (void)unused;
    ip_pool_lock = PyThread_allocate_lock();
    ip_pooled = 0;
    ip_pool_held = 0;
    if (ip_pool_lock == NULL) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

/* pool_stats(): (buffers kept, their bytes). */
static PyObject *ip_pool_stats(PyObject *self, PyObject *unused)
{
    (void)self; (void)unused;
    PyThread_acquire_lock(ip_pool_lock, WAIT_LOCK);
    int count = ip_pooled;
    Py_ssize_t held = ip_pool_held;
    PyThread_release_lock(ip_pool_lock);
    return Py_BuildValue("in", count, held);
}

static int IP_NOINLINE ipbuf_grow(ipbuf *b, Py_ssize_t more)
{
    Py_ssize_t cap = b->cap ? b->cap * 2 : (b->hint > 1024 ? b->hint : 1024), got;
    while (cap < b->len + more) cap *= 2;
    uint8_t *p = ip_pool_take(cap, &got);
    if (p != NULL) {
        if (b->len) memcpy(p, b->p, (size_t)b->len);
        ip_pool_give(b->p, b->cap);
        cap = got;
    }
    else if ((p = realloc(b->p, (size_t)cap)) == NULL) return 0;
    b->p = p;
    b->cap = cap;
    return 1;
}

static inline int ipbuf_reserve(ipbuf *b, Py_ssize_t more)
{
    return b->len + more <= b->cap || ipbuf_grow(b, more);
}

/* n bytes from src onto b. Nothing for n == 0: b->p may still be NULL then (no buffer yet), and memcpy with a
   NULL pointer is undefined even for 0 bytes (UBSan: a DataProxy binary heartbeat's empty body). */
static IP_INLINE void ip_put(ipcol *c, ipbuf *b, const void *src, Py_ssize_t n)
{
    if (n == 0) return;
    if (!ipbuf_reserve(b, n)) { c->oom = 1; return; }
    memcpy(b->p + b->len, src, (size_t)n);
    b->len += n;
}

/* n zero bytes at p: a loop for the few a short run of nulls needs (a call to memset costs more). */
static IP_INLINE void ip_zero(uint8_t *p, Py_ssize_t n)
{
    if (n > 16) { memset(p, 0, (size_t)n); return; }
    for (Py_ssize_t i = 0; i < n; i++) p[i] = 0;
}

/* Bits [from, to) of a bitmap that holds the bits before from: set, or left zero; its bytes up to to. */
static IP_INLINE void ip_fill_bits(ipcol *c, ipbuf *b, Py_ssize_t from, Py_ssize_t to, int one)
{
    Py_ssize_t bytes = (to + 7) >> 3;
    if (b->len < bytes) {
        if (!ipbuf_reserve(b, bytes - b->len)) { c->oom = 1; return; }
        ip_zero(b->p + b->len, bytes - b->len);
        b->len = bytes;
    }
    if (!one || from >= to) return;
    Py_ssize_t first = from >> 3, last = (to - 1) >> 3;
    uint8_t head = (uint8_t)(0xFFu << (from & 7)), tail = (uint8_t)(0xFFu >> (7 - ((to - 1) & 7)));
    if (first == last) { b->p[first] |= head & tail; return; }
    b->p[first] |= head;
    if (last - first > 1) memset(b->p + first + 1, 0xFF, (size_t)(last - first - 1));
    b->p[last] |= tail;
}

/* Rows [c->n, row) are null: the bitmap gets the values before them (ones) and them (zeros), the values
 * zeros, repeated offsets or clear bits. */
static void IP_NOINLINE ip_settle(ipcol *c, int kind, Py_ssize_t row)
{
    Py_ssize_t pend = row - c->n;
    ip_fill_bits(c, &c->valid, c->vstart, c->n, 1);
    ip_fill_bits(c, &c->valid, c->n, row, 0);
    c->nulls += pend;
    if (IP_KIND(kind) == IP_FIXED) {
        Py_ssize_t more = pend * IP_KIND_WIDTH(kind);
        if (!ipbuf_reserve(&c->data, more)) { c->oom = 1; return; }
        ip_zero(c->data.p + c->data.len, more);
        c->data.len += more;
    }
    else if (kind == IP_BOOL) ip_fill_bits(c, &c->data, c->n, row, 0);
    else if (kind == IP_STR || kind == IP_LIST) {
        int32_t end = (int32_t)(kind == IP_STR ? c->data.len : c->items);
        if (!ipbuf_reserve(&c->offs, 4 * (pend + 1))) { c->oom = 1; return; }
        if (c->offs.len == 0) { memset(c->offs.p, 0, 4); c->offs.len = 4; }
        if (end == 0) ip_zero(c->offs.p + c->offs.len, 4 * pend);  /* no value yet: a column null so far */
        else for (Py_ssize_t i = 0; i < pend; i++) memcpy(c->offs.p + c->offs.len + 4 * i, &end, 4);
        c->offs.len += 4 * pend;
    }
    c->n = c->vstart = row;
}

/* The end of a column of `rows` rows: its last skipped rows written, and the bitmap of its last values (when
 * it has one: some row was null). */
static void ip_finish(ipcol *c, int kind, Py_ssize_t rows)
{
    if (c->n < rows) ip_settle(c, kind, rows);
    if (c->nulls) ip_fill_bits(c, &c->valid, c->vstart, c->n, 1);
}

/* A struct's row: validity only. */
static IP_INLINE void ip_bit(ipcol *c, int ok, Py_ssize_t row)
{
    if (!ok) return;
    if (c->n != row) ip_settle(c, IP_STRUCT, row);
    c->n = row + 1;
}

#define IP_FIXED_APPEND(bits, ctype) \
    static IP_INLINE void ip_i##bits(ipcol *c, int64_t v, int ok, Py_ssize_t row) \
    { \
        ctype x = (ctype)v; \
        if (!ok) return; \
        if (c->n != row) ip_settle(c, IP_FIXED | (int)sizeof(ctype) << 4, row); \
        ip_put(c, &c->data, &x, sizeof x); \
        c->n = row + 1; \
    }
IP_FIXED_APPEND(8, int8_t)
IP_FIXED_APPEND(16, int16_t)
IP_FIXED_APPEND(32, int32_t)
IP_FIXED_APPEND(64, int64_t)

/* An Arrow boolean: one value bit (the bitmap's bytes are those of the rows written). */
static IP_INLINE void ip_bool(ipcol *c, int64_t v, int ok, Py_ssize_t row)
{
    if (!ok) return;
    if (c->n != row) ip_settle(c, IP_BOOL, row);
    if ((row & 7) == 0) {
        if (!ipbuf_reserve(&c->data, 1)) { c->oom = 1; return; }
        c->data.p[c->data.len++] = 0;
    }
    if (v) c->data.p[row >> 3] |= (uint8_t)(1u << (row & 7));
    c->n = row + 1;
}

static IP_INLINE void ip_str(ipcol *c, const char *s, Py_ssize_t n, Py_ssize_t row)
{
    int32_t end;
    if (s == NULL) return;
    if (c->n != row) ip_settle(c, IP_STR, row);
    if (c->offs.len == 0) { int32_t zero = 0; ip_put(c, &c->offs, &zero, 4); }
    ip_put(c, &c->data, s, n);
    if (c->data.len > INT32_MAX) { c->oom = 1; return; }
    end = (int32_t)c->data.len;
    ip_put(c, &c->offs, &end, 4);
    c->n = row + 1;
}

/* A list value of `count` items (appended to the child columns by the caller): its end offset. */
static IP_INLINE void ip_list(ipcol *c, int ok, int64_t count, Py_ssize_t row)
{
    int32_t end;
    if (!ok) return;
    if (c->n != row) ip_settle(c, IP_LIST, row);
    if (c->offs.len == 0) { int32_t zero = 0; ip_put(c, &c->offs, &zero, 4); }
    c->items += (Py_ssize_t)count;
    if (c->items > INT32_MAX) { c->oom = 1; return; }
    end = (int32_t)c->items;
    ip_put(c, &c->offs, &end, 4);
    c->n = row + 1;
}

/* An enum's member name (len bytes); a value the spec does not name is its decimal text (as the Arrow tables
 * show it). */
static inline void ip_enum(ipcol *c, const char *name, Py_ssize_t len, int64_t v, Py_ssize_t row)
{
    char text[24];
    if (name != NULL) { ip_str(c, name, len, row); return; }
    ip_str(c, text, snprintf(text, sizeof text, "%lld", (long long)v), row);
}

/* A column whose every row holds the same n bytes (the path, the protocol), filled in at the end of a scan. */
static void ip_repeat(ipcol *c, const char *s, Py_ssize_t n, Py_ssize_t rows)
{
    if ((double)n * (double)rows > (double)INT32_MAX || !ipbuf_reserve(&c->data, n * rows)
        || !ipbuf_reserve(&c->offs, 4 * (rows + 1))) { c->oom = 1; return; }
    if (n > 0) for (Py_ssize_t i = 0; i < rows; i++) memcpy(c->data.p + i * n, s, (size_t)n);  /* p: NULL for n 0 */
    for (Py_ssize_t i = 0; i <= rows; i++) { int32_t end = (int32_t)(i * n); memcpy(c->offs.p + 4 * i, &end, 4); }
    c->data.len = n * rows;
    c->offs.len = 4 * (rows + 1);
    c->n = rows;
}


static inline int ip_ascii_ok(const uint8_t *s, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++) if (s[i] & 0x80) return 0;
    return 1;
}

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
typedef struct { PyObject_HEAD uint8_t *p; Py_ssize_t len, cap; } ipowned;

static int ipowned_getbuffer(PyObject *self, Py_buffer *view, int flags)
{
    static uint8_t empty[1];
    ipowned *o = (ipowned *)self;
    return PyBuffer_FillInfo(view, self, o->p ? o->p : empty, o->len, 1, flags);
}

static void ipowned_dealloc(PyObject *self)
{
    ip_pool_give(((ipowned *)self)->p, ((ipowned *)self)->cap);
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

/* The buffer's bytes as an ipowned (trimmed to their length when more than a quarter is unused); the ipbuf
 * gives them up. */
static PyObject *ip_bytes(ipbuf *b)
{
    ipowned *o = PyObject_New(ipowned, &ipowned_type);
    if (o == NULL) return NULL;
    o->p = b->p;
    o->len = b->len;
    o->cap = b->cap;
    if (b->p != NULL && b->cap - b->len > 4096 && b->cap - b->len > b->cap / 4) {
        uint8_t *trimmed = realloc(b->p, (size_t)(b->len ? b->len : 1));
        if (trimmed != NULL) {
            o->p = trimmed;
            o->cap = b->len ? b->len : 1;
        }
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
    for (int i = 0; i < ncol; i++) {
        ip_pool_give(cols[i].data.p, cols[i].data.cap);
        ip_pool_give(cols[i].offs.p, cols[i].offs.cap);
        ip_pool_give(cols[i].valid.p, cols[i].valid.cap);
    }
}

/* Each buffer's starting capacity from what it took in the scan these hints were taken from, scaled by this
 * scan's window or row limit, whichever bounds it more (hints: per column its data, offsets and validity
 * lengths, then that scan's rows and bytes). */
static void ip_take_hints(ipcol *cols, int ncol, const Py_ssize_t *hints, Py_ssize_t window, Py_ssize_t max_rows)
{
    Py_ssize_t rows = hints[3 * ncol], bytes = hints[3 * ncol + 1];
    if (rows <= 0 || bytes <= 0) return;
    double scale = (double)window / (double)bytes, by_rows = (double)max_rows / (double)rows;
    if (by_rows < scale) scale = by_rows;
    for (int i = 0; i < ncol; i++) {
        ipbuf *bufs[3] = {&cols[i].data, &cols[i].offs, &cols[i].valid};
        for (int k = 0; k < 3; k++) {
            double want = (double)hints[3 * i + k] * scale * 1.125;
            bufs[k]->hint = want < (double)(1 << 30) ? (Py_ssize_t)want : (Py_ssize_t)1 << 30;
        }
    }
}

static void ip_keep_hints(const ipcol *cols, int ncol, Py_ssize_t *hints, Py_ssize_t rows, Py_ssize_t bytes)
{
    if (rows <= 0) return;
    for (int i = 0; i < ncol; i++) {
        hints[3 * i] = cols[i].data.len;
        hints[3 * i + 1] = cols[i].offs.len;
        hints[3 * i + 2] = cols[i].valid.len;
    }
    hints[3 * ncol] = rows;
    hints[3 * ncol + 1] = bytes;
}

/* scan_<protocol>(buffer, pos, limit, want, max_rows, path): whole valid frames from pos on, at most max_rows,
 * each at most limit bytes and sent in direction want (0 any, 1 request, 2 response); stops at the first
 * position without one (IP_INVALID or IP_UNKNOWN). Each decode sees at most limit + 1 bytes, as the Python
 * decoder does. Returns (stop, rows, columns); the GIL is released while scanning. */
#define IP_SCAN_BODY(ROW, DECODE, APPEND, NCOL, KINDS, OWNERS, PROTOCOL) \
    Py_buffer view; Py_ssize_t pos, limit, max_rows, path_len, n = 0; int want, oom = 0; const char *path; \
    ipcol cols[NCOL]; \
    static Py_ssize_t hints[3 * NCOL + 2]; /* read and written with the GIL held */ \
    (void)self; \
    if (!PyArg_ParseTuple(args, "y*nnins#", &view, &pos, &limit, &want, &max_rows, &path, &path_len)) return NULL; \
    if (pos < 0 || pos > view.len || limit < 0) { PyBuffer_Release(&view); PyErr_SetString(PyExc_ValueError, "pos outside the buffer"); return NULL; } \
    memset(cols, 0, sizeof cols); \
    ip_take_hints(cols, NCOL, hints, view.len - pos, max_rows); \
    Py_ssize_t first = pos; \
    Py_BEGIN_ALLOW_THREADS \
    { \
        const uint8_t *b = (const uint8_t *)view.buf; \
        Py_ssize_t end = view.len; \
        ROW row; \
        while (pos < end && n < max_rows) { \
            Py_ssize_t window = end - pos > limit ? limit + 1 : end - pos; \
            memset(row.ok, 0, sizeof row.ok); \
            Py_ssize_t size = DECODE(b + pos, window, limit, want, &row); \
            if (size <= 0) break; \
            APPEND(cols, &row, b + pos, pos, size, n); \
            pos += size; \
            n++; \
        } \
        ip_repeat(&cols[0], path, path_len, n); \
        ip_repeat(&cols[3], PROTOCOL, (Py_ssize_t)sizeof PROTOCOL - 1, n); \
    } \
    Py_END_ALLOW_THREADS \
    PyBuffer_Release(&view); \
    /* each column to its rows: the scan's, or its list's items */ \
    for (int i = 0; i < NCOL; i++) { \
        ip_finish(&cols[i], KINDS[i], OWNERS[i] < 0 ? n : cols[OWNERS[i]].items); \
        oom |= cols[i].oom; \
    } \
    if (oom) { ip_free(cols, NCOL); return PyErr_NoMemory(); } \
    ip_keep_hints(cols, NCOL, hints, n, pos - first); \
    PyObject *columns = ip_columns(cols, NCOL, KINDS); \
    ip_free(cols, NCOL); \
    if (columns == NULL) return NULL; \
    return Py_BuildValue("nnN", pos, n, columns);

/* frame_<name>(buffer, pos, end, limit, want): the verdict at pos on buffer[pos:end), seen through the
 * window [pos, min(end, pos + limit + 1)) as the Python decoder sees it: the frame's size, IP_INVALID (the
 * pure decoder gives no frame there either) or IP_UNKNOWN (ask it). */
#define IP_FRAME_BODY(ROW, DECODE) \
    Py_buffer view; Py_ssize_t pos, end, limit, size; int want; ROW row; \
    (void)self; \
    if (!PyArg_ParseTuple(args, "y*nnni", &view, &pos, &end, &limit, &want)) return NULL; \
    if (pos < 0 || end > view.len || pos > end || limit < 0) { \
        PyBuffer_Release(&view); \
        PyErr_SetString(PyExc_ValueError, "need 0 <= pos <= end <= len(buffer) and limit >= 0"); \
        return NULL; \
    } \
    if (end - pos > limit) end = pos + limit + 1; \
    memset(row.ok, 0, sizeof row.ok); \
    size = DECODE((const uint8_t *)view.buf + pos, end - pos, limit, want, &row); \
    PyBuffer_Release(&view); \
    return PyLong_FromSsize_t(size);

#endif
