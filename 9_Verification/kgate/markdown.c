/* markdown.c: candidate loading for the kernel gate (static track).
 *
 * kg_load_candidate() reads one candidate file and returns the CUDA source to
 * check. A .md / .markdown file is a Markdown answer: the fenced code blocks
 * (``` or ~~~, up to three spaces of indent) whose info string starts with
 * cuda, cu, cpp or c++ (any case) are its code, concatenated in order. Every
 * other line is replaced by an empty line, so line N of the extracted source
 * is line N of the Markdown file and compiler messages point at the answer.
 * Any other file is taken as it is.
 *
 * A leading UTF-8 byte-order mark is dropped (the gate reports it:
 * kg_file_has_bom). Bad input gives NULL and a reason, never a crash: a missing or unreadable
 * file, an empty file (or only white space), a file larger than max_bytes
 * (0 means KG_DEFAULT_MAX_BYTES, 1 MiB), binary data (NUL bytes or many
 * control characters), and a Markdown answer without a tagged code block.
 *
 * Only a regular file is read: a symbolic link (to a root-only file, say:
 * the gate may run as root), a FIFO (it would block), a device, a socket or
 * a folder is refused with what it is, without being opened (the link is
 * never followed); the file is opened with O_NOFOLLOW and must still be the
 * one that was looked at (same device and inode) when it is read.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kgate_static.h"

#define KG_DEFAULT_MAX_BYTES ((size_t)1 << 20)

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || errlen == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static int ends_with_ci(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    if (m > n) return 0;
    for (size_t i = 0; i < m; i++)
        if (tolower((unsigned char)s[n - m + i]) != tolower((unsigned char)suffix[i])) return 0;
    return 1;
}

/* 1 when the info string (text after the fence) names a language we take. */
static int tag_is_code(const char *p, const char *end)
{
    static const char *tags[] = {"cuda", "cu", "cpp", "c++"};
    while (p < end && (*p == ' ' || *p == '\t')) p++;
    if (p < end && *p == '{') p++;              /* {cuda} or {.cuda} */
    if (p < end && *p == '.') p++;
    const char *w = p;
    while (p < end && !isspace((unsigned char)*p) && *p != '}' && *p != ',' && *p != '`') p++;
    size_t len = (size_t)(p - w);
    for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++) {
        size_t tl = strlen(tags[i]);
        if (len != tl) continue;
        size_t k = 0;
        while (k < tl && tolower((unsigned char)w[k]) == tags[i][k]) k++;
        if (k == tl) return 1;
    }
    return 0;
}

/* Is the line [p, end) a fence? Returns the fence length (>= 3) and sets
 * *ch to '`' or '~' and *info to the text after it; 0 if not a fence. */
static size_t fence_len(const char *p, const char *end, char *ch, const char **info)
{
    int indent = 0;
    while (p < end && *p == ' ' && indent < 4) { p++; indent++; }
    if (indent > 3 || p >= end || (*p != '`' && *p != '~')) return 0;
    char c = *p;
    size_t n = 0;
    while (p < end && *p == c) { p++; n++; }
    if (n < 3) return 0;
    if (c == '`') /* a backtick fence's info string has no backticks */
        for (const char *q = p; q < end; q++)
            if (*q == '`') return 0;
    *ch = c;
    *info = p;
    return n;
}

/* Extract the tagged code blocks of a Markdown answer, keeping line numbers.
 * Returns a malloc'd string or NULL with a reason. */
static char *extract_markdown(const char *text, size_t len, char *err, size_t errlen)
{
    char *out = malloc(len + 1);
    if (!out) { set_err(err, errlen, "out of memory"); return NULL; }
    size_t o = 0;
    int in_block = 0, take = 0, n_taken = 0, n_other = 0;
    char fch = 0;
    size_t flen = 0;
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        const char *le = eol ? eol : end;           /* line without '\n' */
        const char *lc = le;                        /* without a '\r' too */
        if (lc > p && lc[-1] == '\r') lc--;
        char c = 0;
        const char *info = NULL;
        size_t fl = fence_len(p, lc, &c, &info);
        int copy = 0;
        if (!in_block) {
            if (fl) {
                in_block = 1; fch = c; flen = fl;
                take = tag_is_code(info, lc);
                if (take) n_taken++; else n_other++;
            }
        } else if (fl && c == fch && fl >= flen) {
            /* a closing fence has nothing but blanks after it */
            const char *q = info;
            while (q < lc && (*q == ' ' || *q == '\t')) q++;
            if (q == lc) in_block = 0, take = 0;
            else copy = take;
        } else {
            copy = take;
        }
        if (copy) { memcpy(out + o, p, (size_t)(le - p)); o += (size_t)(le - p); }
        if (eol) out[o++] = '\n';
        p = eol ? eol + 1 : end;
    }
    out[o] = '\0';
    if (n_taken == 0) {
        free(out);
        if (n_other)
            set_err(err, errlen, "Markdown answer has %d code block(s) but none tagged cuda, cu, cpp or c++", n_other);
        else
            set_err(err, errlen, "Markdown answer has no fenced code block");
        return NULL;
    }
    size_t i = 0;
    while (i < o && isspace((unsigned char)out[i])) i++;
    if (i == o) {
        free(out);
        set_err(err, errlen, "Markdown answer's code blocks are empty");
        return NULL;
    }
    return out;
}

static FILE *open_regular(const char *path, struct stat *st, char *err, size_t errlen)
{
    struct stat ls, fs;
    if (!path || lstat(path, &ls) != 0) {
        set_err(err, errlen, "cannot open %s: %s", path ? path : "(none)", strerror(errno));
        return NULL;
    }
    const char *what = S_ISREG(ls.st_mode) ? NULL : S_ISLNK(ls.st_mode) ? "a symbolic link"
                       : S_ISFIFO(ls.st_mode) ? "a FIFO" : S_ISCHR(ls.st_mode) ? "a character device"
                       : S_ISBLK(ls.st_mode) ? "a block device" : S_ISSOCK(ls.st_mode) ? "a socket"
                       : S_ISDIR(ls.st_mode) ? "a folder" : "something else";
    if (what) {
        set_err(err, errlen, "%s is %s, not a regular file: refused (the gate follows no links)", path, what);
        return NULL;
    }
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        set_err(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    if (fstat(fd, &fs) != 0 || !S_ISREG(fs.st_mode) || fs.st_dev != ls.st_dev || fs.st_ino != ls.st_ino) {
        close(fd);
        set_err(err, errlen, "%s changed while it was opened: refused", path);
        return NULL;
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) { close(fd); set_err(err, errlen, "cannot open %s: %s", path, strerror(errno)); return NULL; }
    if (st) *st = fs;
    return f;
}

char *kg_load_candidate(const char *path, size_t max_bytes, char *err, size_t errlen)
{
    if (err && errlen) err[0] = '\0';
    if (!path || !*path) { set_err(err, errlen, "no candidate path given"); return NULL; }
    if (max_bytes == 0) max_bytes = KG_DEFAULT_MAX_BYTES;

    struct stat st;
    FILE *f = open_regular(path, &st, err, errlen);
    if (!f) return NULL;
    if ((unsigned long long)st.st_size > (unsigned long long)max_bytes) {
        fclose(f);
        set_err(err, errlen, "file is %lld bytes, larger than the candidate limit of %zu bytes",
                (long long)st.st_size, max_bytes);
        return NULL;
    }
    /* Read at most max_bytes + 1 so a file that grew since stat() is caught. */
    char *buf = malloc(max_bytes + 2);
    if (!buf) { fclose(f); set_err(err, errlen, "out of memory"); return NULL; }
    size_t n = fread(buf, 1, max_bytes + 1, f);
    int rerr = ferror(f);
    fclose(f);
    if (rerr) { free(buf); set_err(err, errlen, "cannot read %s", path); return NULL; }
    if (n > max_bytes) {
        free(buf);
        set_err(err, errlen, "file is larger than the candidate limit of %zu bytes", max_bytes);
        return NULL;
    }
    buf[n] = '\0';
    if (n >= 3 && (unsigned char)buf[0] == 0xEF && (unsigned char)buf[1] == 0xBB &&
        (unsigned char)buf[2] == 0xBF) {   /* a UTF-8 byte-order mark: not code (kg_file_has_bom reports it) */
        memmove(buf, buf + 3, n - 2);
        n -= 3;
    }

    size_t ws = 0, ctrl = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)buf[i];
        if (c == 0) {
            free(buf);
            set_err(err, errlen, "not a text file (NUL byte at offset %zu)", i);
            return NULL;
        }
        if (isspace(c)) ws++;
        else if (c < 0x20 || c == 0x7f) ctrl++;
    }
    if (ws == n) {
        free(buf);
        set_err(err, errlen, n ? "empty file (only white space)" : "empty file");
        return NULL;
    }
    if (ctrl * 100 > n) { /* more than 1% control characters */
        free(buf);
        set_err(err, errlen, "not a text file (%zu control characters in %zu bytes)", ctrl, n);
        return NULL;
    }
    if (ends_with_ci(path, ".md") || ends_with_ci(path, ".markdown")) {
        char *code = extract_markdown(buf, n, err, errlen);
        free(buf);
        return code;
    }
    return buf;
}

int kg_file_has_bom(const char *path)
{
    unsigned char b[3] = {0, 0, 0};
    FILE *f = open_regular(path, NULL, NULL, 0);   /* never a link, a FIFO or a device */
    if (!f) return 0;
    size_t n = fread(b, 1, 3, f);
    fclose(f);
    return n == 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF;
}
