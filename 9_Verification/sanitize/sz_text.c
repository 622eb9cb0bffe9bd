/* sz_text.c: the text cleaning every string from a report or a command
 * line goes through before it reaches a terminal or a file: valid UTF-8
 * only, no terminal controls (C0, DEL, C1), no bidirectional overrides.
 * A leaf: it uses nothing else of the harness (sz_report.c and sz_output.c
 * use it), so the harness's pieces depend on each other without a cycle:
 * sz_text <- sz_report <- sz_expect <- sz_output <- main. */
#define _POSIX_C_SOURCE 200809L
#include "sanitize.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The length of the valid UTF-8 sequence at p (at most avail bytes) and its
 * code point, or 0 if the bytes there are not one (a stray continuation
 * byte, an overlong form, a surrogate, beyond U+10FFFF, cut short). */
size_t sz_utf8_seq(const unsigned char *p, size_t avail, unsigned *cp)
{
    unsigned c = p[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    size_t n;
    unsigned min;
    if (c >= 0xC2 && c <= 0xDF) n = 2, min = 0x80, c &= 0x1F;
    else if (c >= 0xE0 && c <= 0xEF) n = 3, min = 0x800, c &= 0x0F;
    else if (c >= 0xF0 && c <= 0xF4) n = 4, min = 0x10000, c &= 0x07;
    else return 0;
    if (avail < n) return 0;
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80) return 0;
        c = (c << 6) | (p[i] & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return 0;
    *cp = c;
    return n;
}

/* Code points a terminal acts on or that reorder text: C0, DEL, C1, the
 * bidirectional embeddings, overrides and isolates, and U+FFFE/U+FFFF
 * (not characters; not allowed in XML). */
int sz_is_control(unsigned cp)
{
    return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) ||
           (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200E || cp == 0x200F || cp == 0xFFFE ||
           cp == 0xFFFF;
}

size_t sz_clean_text(char *dst, size_t len, const char *src)
{
    if (!len) return 0;
    const unsigned char *p = (const unsigned char *)(src ? src : "");
    size_t n = strlen((const char *)p), j = 0;
    for (size_t i = 0; i < n;) {
        unsigned cp;
        size_t k = sz_utf8_seq(p + i, n - i, &cp);
        if (k == 0 || sz_is_control(cp)) {
            /* one replacement per bad byte, or per control character */
            if (j + 2 > len) break;
            dst[j++] = (k && (cp == '\t' || cp == '\n' || cp == '\r')) ? ' ' : '?';
            i += k ? k : 1;
            continue;
        }
        if (j + k + 1 > len) break; /* never cut a character in two */
        memcpy(dst + j, p + i, k);
        j += k;
        i += k;
    }
    dst[j] = '\0';
    return j;
}

void sz_write_clean(FILE *f, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        unsigned cp;
        size_t k = sz_utf8_seq(p + i, n - i, &cp);
        if (k == 1 && cp == '\n') {
            fputc('\n', f);
        } else if (k == 0 || sz_is_control(cp)) {
            fputc('?', f);
        } else {
            fwrite(p + i, 1, k, f);
        }
        i += k ? k : 1;
    }
}

void sz_print_clean(FILE *f, const char *fmt, ...)
{
    va_list ap, aq;
    va_start(ap, fmt);
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (buf) {
        vsnprintf(buf, (size_t)n + 1, fmt, aq);
        sz_write_clean(f, buf, (size_t)n);
        free(buf);
    }
    va_end(aq);
}
