/* ---- checked int64 arithmetic (tools/ksygen/checked_int64.c, put into each runtime at its marker): Python's
 * ints never overflow, so an overflow, a division by zero or a negative shift sets *bad, and the value is
 * left to Python. Division and modulo floor, as Python's (and the Kaitai expression language's) do. ---- */
static inline int64_t ip_add(int64_t a, int64_t b, int *bad)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r)) { *bad = 1; return 0; }
    return r;
}

static inline int64_t ip_sub(int64_t a, int64_t b, int *bad)
{
    int64_t r;
    if (__builtin_sub_overflow(a, b, &r)) { *bad = 1; return 0; }
    return r;
}

static inline int64_t ip_mul(int64_t a, int64_t b, int *bad)
{
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r)) { *bad = 1; return 0; }
    return r;
}

static inline int64_t ip_neg(int64_t a, int *bad)
{
    if (a == INT64_MIN) { *bad = 1; return 0; }
    return -a;
}

static inline int64_t ip_shl(int64_t a, int64_t b, int *bad)
{
    if (a < 0 || b < 0 || b > 62 || a > (INT64_MAX >> b)) { *bad = 1; return 0; }
    return a << b;
}

static inline int64_t ip_shr(int64_t a, int64_t b, int *bad)
{
    if (b < 0) { *bad = 1; return 0; }
    if (b > 63) return a < 0 ? -1 : 0;
    return a >= 0 ? a >> b : ~((~a) >> b);
}

static inline int64_t ip_fdiv(int64_t a, int64_t b, int *bad)
{
    if (b == 0 || (a == INT64_MIN && b == -1)) { *bad = 1; return 0; }
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
    return q;
}

static inline int64_t ip_fmod(int64_t a, int64_t b, int *bad)
{
    if (b == 0 || (a == INT64_MIN && b == -1)) { *bad = 1; return 0; }
    int64_t m = a % b;
    if (m != 0 && ((m < 0) != (b < 0))) m += b;
    return m;
}
