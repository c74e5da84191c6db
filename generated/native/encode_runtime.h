/* Copied by tools/generate.py from tools/ksygen/encode_runtime.h. Do not edit here: edit that file and run make generate. */
/* ---- runtime of the generated encoders (tools/ksygen/encode_runtime.h, copied once into generated/native and
 * included by the generated encode.c only): a growable output buffer, big/little-endian writers and the
 * strict readers of Python values (checked int64 arithmetic: the shared runtime.h). It knows no protocol
 * and no byte position. Every reader answers 1 (a value it is sure the pure encoder takes the same way) or 0
 * (anything else: the caller gives up and the pure encoder decides). ---- */
#ifndef INLONG_PROTO_ENCODE_RUNTIME_H
#define INLONG_PROTO_ENCODE_RUNTIME_H
#include "runtime.h"
#include <datetime.h>

typedef struct { uint8_t *p; Py_ssize_t len, cap; } ipw;

/* The output limit: a message that would encode to more is left to the pure encoder. */
#define IPW_MAX ((Py_ssize_t)1 << 40)

static inline int ipw_reserve(ipw *w, Py_ssize_t more)
{
    if (more < 0 || more > IPW_MAX - w->len) return 0;
    if (w->len + more <= w->cap) return 1;
    Py_ssize_t cap = w->cap ? w->cap : 256;
    while (cap < w->len + more) cap *= 2;
    uint8_t *p = realloc(w->p, (size_t)cap);
    if (p == NULL) return 0;
    w->p = p;
    w->cap = cap;
    return 1;
}

static inline int ipw_bytes(ipw *w, const void *src, Py_ssize_t n)
{
    if (!ipw_reserve(w, n)) return 0;
    if (n) memcpy(w->p + w->len, src, (size_t)n);
    w->len += n;
    return 1;
}

/* The low `size` bytes of v at p, in the given order (le: 1 little-endian, 0 big-endian). */
static inline void ip_put(uint8_t *p, uint64_t v, int size, int le)
{
    for (int i = 0; i < size; i++) {
        int shift = 8 * (le ? i : size - 1 - i);
        p[i] = (uint8_t)(v >> shift);
    }
}

static inline int ipw_int(ipw *w, int64_t v, int size, int le)
{
    if (!ipw_reserve(w, size)) return 0;
    ip_put(w->p + w->len, (uint64_t)v, size, le);
    w->len += size;
    return 1;
}

/* Room for a field whose value is known only later (a derived length): its offset, or -1. */
static inline Py_ssize_t ipw_hole(ipw *w, int size)
{
    if (!ipw_reserve(w, size)) return -1;
    Py_ssize_t at = w->len;
    memset(w->p + at, 0, (size_t)size);
    w->len += size;
    return at;
}

/* `type(o) is int`, as an int64. */
static inline int ip_exact_int(PyObject *o, int64_t *v)
{
    if (!PyLong_CheckExact(o)) return 0;
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow || (x == -1 && PyErr_Occurred())) { PyErr_Clear(); return 0; }
    *v = (int64_t)x;
    return 1;
}

/* `isinstance(o, int)` where the value behaves exactly as an int would (int, bool, IntEnum members: the
 * same hash, comparison, shifts, or and index as int), as an int64. Any other subclass is refused. */
static inline int ip_int_like(PyObject *o, int64_t *v)
{
    PyTypeObject *t = Py_TYPE(o);
    if (t != &PyLong_Type && t != &PyBool_Type) {
        if (!PyLong_Check(o) || t->tp_hash != PyLong_Type.tp_hash || t->tp_richcompare != PyLong_Type.tp_richcompare
                || t->tp_as_number == NULL
                || t->tp_as_number->nb_index != PyLong_Type.tp_as_number->nb_index
                || t->tp_as_number->nb_lshift != PyLong_Type.tp_as_number->nb_lshift
                || t->tp_as_number->nb_or != PyLong_Type.tp_as_number->nb_or)
            return 0;
    }
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow || (x == -1 && PyErr_Occurred())) { PyErr_Clear(); return 0; }
    *v = (int64_t)x;
    return 1;
}

/* A derived field as given: None, or an int equal to what encode derives. */
static inline int ip_given_ok(PyObject *o, int64_t derived)
{
    int64_t v;
    if (o == Py_None) return 1;
    return ip_int_like(o, &v) && v == derived;
}

/* bytes or bytearray (exactly: a subclass may redefine len or the buffer). */
static inline int ip_raw(PyObject *o, const char **p, Py_ssize_t *n)
{
    if (PyBytes_CheckExact(o)) {
        *p = PyBytes_AS_STRING(o);
        *n = PyBytes_GET_SIZE(o);
        return 1;
    }
    if (PyByteArray_CheckExact(o)) {
        *p = PyByteArray_AS_STRING(o);
        *n = PyByteArray_GET_SIZE(o);
        return 1;
    }
    return 0;
}

/* Writes bytes or a bytearray as it is; *n: how many bytes. */
static inline int ipw_raw(ipw *w, PyObject *o, Py_ssize_t *n)
{
    const char *p;
    return ip_raw(o, &p, n) && ipw_bytes(w, p, *n);
}

/* Writes str.encode('UTF-8') of an exact str; 0 when it cannot be encoded (lone surrogates). An ASCII
 * string is its own UTF-8; any other is encoded into a temporary bytes object (so that the str keeps no
 * cached UTF-8 copy, as str.encode keeps none). */
static inline int ipw_utf8(ipw *w, PyObject *o, Py_ssize_t *n)
{
    if (!PyUnicode_CheckExact(o)) return 0;
    if (PyUnicode_IS_ASCII(o)) {
        *n = PyUnicode_GET_LENGTH(o);
        return ipw_bytes(w, PyUnicode_DATA(o), *n);
    }
    PyObject *encoded = PyUnicode_AsUTF8String(o);
    if (encoded == NULL) { PyErr_Clear(); return 0; }
    *n = PyBytes_GET_SIZE(encoded);
    int ok = ipw_bytes(w, PyBytes_AS_STRING(encoded), *n);
    Py_DECREF(encoded);
    return ok;
}

/* Writes str.encode('ASCII') of an exact str; 0 when it holds anything else. */
static inline int ipw_ascii(ipw *w, PyObject *o, Py_ssize_t *n)
{
    if (!PyUnicode_CheckExact(o) || !PyUnicode_IS_ASCII(o)) return 0;
    *n = PyUnicode_GET_LENGTH(o);
    return ipw_bytes(w, PyUnicode_DATA(o), *n);
}

/* A naive datetime with millisecond precision (exactly datetime.datetime): its parts. */
static inline int ip_datetime(PyObject *o, int64_t parts[7])
{
    if (!PyDateTime_CheckExact(o)) return 0;
#if PY_VERSION_HEX >= 0x030A0000
    if (PyDateTime_DATE_GET_TZINFO(o) != Py_None) return 0;
#else
    if (((PyDateTime_DateTime *)o)->hastzinfo) return 0;
#endif
    int us = PyDateTime_DATE_GET_MICROSECOND(o);
    if (us % 1000) return 0;
    parts[0] = PyDateTime_GET_YEAR(o);
    parts[1] = PyDateTime_GET_MONTH(o);
    parts[2] = PyDateTime_GET_DAY(o);
    parts[3] = PyDateTime_DATE_GET_HOUR(o);
    parts[4] = PyDateTime_DATE_GET_MINUTE(o);
    parts[5] = PyDateTime_DATE_GET_SECOND(o);
    parts[6] = us / 1000;
    return 1;
}

/* A list or tuple (exactly), for a repeated field. */
static inline int ip_seq(PyObject *o)
{
    return PyList_CheckExact(o) || PyTuple_CheckExact(o);
}

static inline PyObject *ip_seq_item(PyObject *o, Py_ssize_t i)
{
    return PyList_CheckExact(o) ? PyList_GET_ITEM(o, i) : PyTuple_GET_ITEM(o, i);
}

static inline Py_ssize_t ip_seq_len(PyObject *o)
{
    return PyList_CheckExact(o) ? PyList_GET_SIZE(o) : PyTuple_GET_SIZE(o);
}

/* The one output buffer, reused by every call (the GIL is held throughout); trimmed after a big message. */
static ipw ip_out;

static PyObject *ip_finish(int ok)
{
    PyObject *result = NULL;
    if (ok == 1) result = PyBytes_FromStringAndSize((const char *)ip_out.p, ip_out.len);
    if (result == NULL) {
        PyErr_Clear();  /* not modelled, refused or out of memory: the pure encoder decides */
        Py_INCREF(Py_None);
        result = Py_None;
    }
    if (ip_out.cap > ((Py_ssize_t)1 << 20)) {
        free(ip_out.p);
        ip_out.p = NULL;
        ip_out.cap = 0;
    }
    ip_out.len = 0;
    return result;
}

#endif
