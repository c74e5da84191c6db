/* ---- the runtime every part of the compiled backend shares (tools/ksygen/runtime.h, copied once into
 * generated/native by tools/generate.py): C headers, big/little-endian readers, checked int64 arithmetic,
 * strict UTF-8, and each part's module constructor.
 *
 * The extension inlong_proto._compiled is one shared object built from several translation units
 * (setup.py compiles every .c file in generated/native): compiled.c (the module init, generated), scan.c and
 * encode.c (generated, each including its own runtime header once), capture_runtime.c,
 * tubemq_layer_runtime.c and eventmesh_layer_runtime.c (hand-written, each including its generated tables
 * once). Everything a part defines is static, except its constructor ipc_<part>_module(); the functions
 * here are C99 inline definitions (IP_SHARED) with their one external definition in compiled.c
 * (IP_RUNTIME_INSTANCES), so no part holds a copy of another's code and no name can clash. ---- */
#ifndef INLONG_PROTO_RUNTIME_H
#define INLONG_PROTO_RUNTIME_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* An inline definition; compiled.c instantiates the one external definition of each (C99 6.7.4). */
#define IP_SHARED inline

/* Each part's module (inlong_proto._compiled.<part>), made by compiled.c's module init. */
PyObject *ipc_scan_module(void);
PyObject *ipc_encode_module(void);
PyObject *ipc_capture_module(void);
PyObject *ipc_tubemq_layer_module(void);
PyObject *ipc_eventmesh_layer_module(void);

/* ---- big/little-endian readers ---- */
IP_SHARED uint16_t ip_rd2be(const uint8_t *p) { return (uint16_t)((p[0] << 8) | p[1]); }
IP_SHARED uint16_t ip_rd2le(const uint8_t *p) { return (uint16_t)((p[1] << 8) | p[0]); }
IP_SHARED uint32_t ip_rd4be(const uint8_t *p)
{ return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3]; }
IP_SHARED uint32_t ip_rd4le(const uint8_t *p)
{ return ((uint32_t)p[3] << 24) | ((uint32_t)p[2] << 16) | ((uint32_t)p[1] << 8) | p[0]; }
IP_SHARED uint64_t ip_rd8be(const uint8_t *p) { return ((uint64_t)ip_rd4be(p) << 32) | ip_rd4be(p + 4); }
IP_SHARED uint64_t ip_rd8le(const uint8_t *p) { return ((uint64_t)ip_rd4le(p + 4) << 32) | ip_rd4le(p); }

/* ---- checked int64 arithmetic: Python's
 * ints never overflow, so an overflow, a division by zero or a negative shift sets *bad, and the value is
 * left to Python. Division and modulo floor, as Python's (and the Kaitai expression language's) do. ---- */
IP_SHARED int64_t ip_add(int64_t a, int64_t b, int *bad)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r)) { *bad = 1; return 0; }
    return r;
}

IP_SHARED int64_t ip_sub(int64_t a, int64_t b, int *bad)
{
    int64_t r;
    if (__builtin_sub_overflow(a, b, &r)) { *bad = 1; return 0; }
    return r;
}

IP_SHARED int64_t ip_mul(int64_t a, int64_t b, int *bad)
{
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r)) { *bad = 1; return 0; }
    return r;
}

IP_SHARED int64_t ip_neg(int64_t a, int *bad)
{
    if (a == INT64_MIN) { *bad = 1; return 0; }
    return -a;
}

IP_SHARED int64_t ip_shl(int64_t a, int64_t b, int *bad)
{
    if (a < 0 || b < 0 || b > 62 || a > (INT64_MAX >> b)) { *bad = 1; return 0; }
    return a << b;
}

IP_SHARED int64_t ip_shr(int64_t a, int64_t b, int *bad)
{
    if (b < 0) { *bad = 1; return 0; }
    if (b > 63) return a < 0 ? -1 : 0;
    return a >= 0 ? a >> b : ~((~a) >> b);
}

IP_SHARED int64_t ip_fdiv(int64_t a, int64_t b, int *bad)
{
    if (b == 0 || (a == INT64_MIN && b == -1)) { *bad = 1; return 0; }
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
    return q;
}

IP_SHARED int64_t ip_fmod(int64_t a, int64_t b, int *bad)
{
    if (b == 0 || (a == INT64_MIN && b == -1)) { *bad = 1; return 0; }
    int64_t m = a % b;
    if (m != 0 && ((m < 0) != (b < 0))) m += b;
    return m;
}

/* ---- strict UTF-8 ---- */
/* Whether s[0:n) is what Python's strict bytes.decode("utf-8") accepts: no overlong forms, no surrogates,
 * nothing above U+10FFFF, no truncated sequence. */
IP_SHARED int ip_utf8_ok(const uint8_t *s, Py_ssize_t n)
{
    Py_ssize_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        if (c < 0x80) {  /* ASCII, eight bytes at a time where it can */
            uint64_t word;
            i++;
            while (n - i >= 8) {
                memcpy(&word, s + i, 8);
                if (word & UINT64_C(0x8080808080808080)) break;
                i += 8;
            }
            continue;
        }
        if (c >= 0xC2 && c <= 0xDF) {
            if (n - i < 2 || (s[i + 1] & 0xC0) != 0x80) return 0;
            i += 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
            if (n - i < 3) return 0;
            uint8_t c1 = s[i + 1];
            if (c == 0xE0 ? (c1 < 0xA0 || c1 > 0xBF) : c == 0xED ? (c1 < 0x80 || c1 > 0x9F) : (c1 & 0xC0) != 0x80)
                return 0;
            if ((s[i + 2] & 0xC0) != 0x80) return 0;
            i += 3;
        } else if (c >= 0xF0 && c <= 0xF4) {
            if (n - i < 4) return 0;
            uint8_t c1 = s[i + 1];
            if (c == 0xF0 ? (c1 < 0x90 || c1 > 0xBF) : c == 0xF4 ? (c1 < 0x80 || c1 > 0x8F) : (c1 & 0xC0) != 0x80)
                return 0;
            if ((s[i + 2] & 0xC0) != 0x80 || (s[i + 3] & 0xC0) != 0x80) return 0;
            i += 4;
        } else return 0;
    }
    return 1;
}

/* The external definitions of the inline functions above: compiled.c (and nothing else) expands this. */
#define IP_RUNTIME_INSTANCES \
    extern inline uint16_t ip_rd2be(const uint8_t *p); \
    extern inline uint16_t ip_rd2le(const uint8_t *p); \
    extern inline uint32_t ip_rd4be(const uint8_t *p); \
    extern inline uint32_t ip_rd4le(const uint8_t *p); \
    extern inline uint64_t ip_rd8be(const uint8_t *p); \
    extern inline uint64_t ip_rd8le(const uint8_t *p); \
    extern inline int64_t ip_add(int64_t a, int64_t b, int *bad); \
    extern inline int64_t ip_sub(int64_t a, int64_t b, int *bad); \
    extern inline int64_t ip_mul(int64_t a, int64_t b, int *bad); \
    extern inline int64_t ip_neg(int64_t a, int *bad); \
    extern inline int64_t ip_shl(int64_t a, int64_t b, int *bad); \
    extern inline int64_t ip_shr(int64_t a, int64_t b, int *bad); \
    extern inline int64_t ip_fdiv(int64_t a, int64_t b, int *bad); \
    extern inline int64_t ip_fmod(int64_t a, int64_t b, int *bad); \
    extern inline int ip_utf8_ok(const uint8_t *s, Py_ssize_t n);

#endif
