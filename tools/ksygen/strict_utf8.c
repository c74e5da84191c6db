/* ---- strict UTF-8 (tools/ksygen/strict_utf8.c, put into each runtime that checks text at its marker) ---- */
/* Whether s[0:n) is what Python's strict bytes.decode("utf-8") accepts: no overlong forms, no surrogates,
 * nothing above U+10FFFF, no truncated sequence. */
static inline int ip_utf8_ok(const uint8_t *s, Py_ssize_t n)
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
