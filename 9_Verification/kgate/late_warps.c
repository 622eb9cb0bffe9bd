/* late_warps.c: the late-warps run's source (late_warps.h).
 *
 * A race between the warps of a block can stay hidden on a real GPU when
 * the warps happen to run in the order the kernel silently relies on: bins
 * zeroed by every warp before any warp counts into them, with no
 * __syncthreads() between (the corpus's hist_zero_nosync.cu). No sanitizer
 * sees that one (racecheck does not pair a plain store with an atomic), and
 * the outputs are right. The gate changes the order instead: it builds the
 * candidate again with a delay at the start of every kernel for half of
 * each block's warps, and checks the outputs again. Code that synchronizes
 * its warps gives the same outputs in any order, so the delay can change an
 * output only where the kernel has a race. */
#include "late_warps.h"

#include <stdlib.h>
#include <string.h>

/* The statement put after the opening brace of each kernel, on the same
 * line (the candidate's line numbers stay as they were). Half of each
 * block's warps spin for 40000 clock cycles (20 us at 2 GHz) before the
 * kernel's first statement: the odd warps of even blocks, the even warps of
 * odd blocks, so either half runs first somewhere. */
const char *const kg_late_warps_delay =
    " { unsigned kgate_w_ = (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) / 32u;"
    " unsigned kgate_b_ = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);"
    " if ((kgate_w_ ^ kgate_b_) & 1u) { long long kgate_t0_ = clock64();"
    " while (clock64() - kgate_t0_ < 40000) { } } }";

static int ident_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_';
}

/* Past a raw string literal R"d( ... )d" whose quote is at s[i]; returns the
 * offset after it, or n when it does not end. */
static size_t skip_raw(const char *s, size_t n, size_t i)
{
    size_t d0 = i + 1, d = d0;
    while (d < n && s[d] != '(' && d - d0 < 16) d++;
    if (d >= n || s[d] != '(') return n;
    size_t dl = d - d0;
    for (size_t k = d + 1; k < n; k++)
        if (s[k] == ')' && k + 1 + dl < n && !memcmp(s + k + 1, s + d0, dl) && s[k + 1 + dl] == '"')
            return k + 2 + dl;
    return n;
}

/* Past a quoted literal (string or character) whose quote is at s[i]. */
static size_t skip_quoted(const char *s, size_t n, size_t i)
{
    char q = s[i];
    for (size_t k = i + 1; k < n; k++) {
        if (s[k] == '\\') { k++; continue; }
        if (s[k] == q || s[k] == '\n') return k + 1;
    }
    return n;
}

char *kg_late_warps_source(const char *src, int *n_kernels)
{
    size_t n = strlen(src), dl = strlen(kg_late_warps_delay);
    size_t at[KG_LATE_WARPS_MAX_KERNELS];
    int found = 0;
    int line_start = 1;          /* only spaces since the last newline */
    int want = 0, depth = 0;     /* after __global__: looking for its body's '{' */
    for (size_t i = 0; i < n;) {
        char ch = src[i];
        if (ch == '\n') { line_start = 1; i++; continue; }
        if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v') { i++; continue; }
        if (ch == '/' && i + 1 < n && src[i + 1] == '/') {          /* a line comment (splices end it too) */
            while (i < n && !(src[i] == '\n' && src[i - 1] != '\\')) i++;
            continue;
        }
        if (ch == '/' && i + 1 < n && src[i + 1] == '*') {
            const char *e = strstr(src + i + 2, "*/");
            i = e ? (size_t)(e - src) + 2 : n;
            continue;
        }
        if (ch == '#' && line_start) {                              /* a directive, to its unspliced end */
            while (i < n && !(src[i] == '\n' && src[i - 1] != '\\' && !(src[i - 1] == '\r' && i >= 2 && src[i - 2] == '\\'))) {
                if (src[i] == '/' && i + 1 < n && src[i + 1] == '*') {
                    const char *e = strstr(src + i + 2, "*/");
                    i = e ? (size_t)(e - src) + 2 : n;
                    continue;
                }
                i++;
            }
            continue;
        }
        line_start = 0;
        if (ch == '"') {
            /* R"( ... )", and its prefixed spellings u8R, uR, UR, LR */
            if (i > 0 && src[i - 1] == 'R' && (i < 2 || !ident_char(src[i - 2]) || src[i - 2] == '8' ||
                                               src[i - 2] == 'u' || src[i - 2] == 'U' || src[i - 2] == 'L'))
                i = skip_raw(src, n, i);
            else
                i = skip_quoted(src, n, i);
            continue;
        }
        if (ch == '\'') {
            i = skip_quoted(src, n, i);
            continue;
        }
        if (ch >= '0' && ch <= '9') {                               /* a number: 1'000'000 is one */
            while (i < n && (ident_char(src[i]) || src[i] == '.' || src[i] == '\'' ||
                             ((src[i] == '+' || src[i] == '-') && strchr("eEpP", src[i - 1]))))
                i++;
            continue;
        }
        if (ident_char(ch)) {
            size_t e = i;
            while (e < n && ident_char(src[e])) e++;
            if (e - i == 10 && !memcmp(src + i, "__global__", 10)) {
                want = 1;
                depth = 0;
            }
            i = e;
            continue;
        }
        if (want) {
            if (ch == '(' || ch == '[') depth++;
            else if ((ch == ')' || ch == ']') && depth > 0) depth--;
            else if (ch == ';' && depth == 0) want = 0;             /* a declaration */
            else if (ch == '{' && depth == 0) {                     /* the body */
                if (found < KG_LATE_WARPS_MAX_KERNELS) at[found++] = i + 1;
                want = 0;
            }
        }
        i++;
    }
    char *out = malloc(n + (size_t)found * dl + 1);
    if (!out) return NULL;
    size_t o = 0, from = 0;
    for (int k = 0; k < found; k++) {
        memcpy(out + o, src + from, at[k] - from);
        o += at[k] - from;
        memcpy(out + o, kg_late_warps_delay, dl);
        o += dl;
        from = at[k];
    }
    memcpy(out + o, src + from, n - from);
    out[o + n - from] = 0;
    if (n_kernels) *n_kernels = found;
    return out;
}
