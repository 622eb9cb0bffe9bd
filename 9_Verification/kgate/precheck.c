/* precheck.c: what the gate checks in a candidate's text before anything
 * parses or compiles it, and the static scan's result record.
 *
 * The include policy: a candidate is one file that may include the CUDA
 * toolkit's and the system's headers, nothing else. An include of an absolute
 * path (/dev/stdin, /dev/zero, /etc/passwd), of a name with `..`, a computed
 * include (#include MACRO, whose name the text does not show), #include_next,
 * #import or #embed is refused before libclang or nvcc open anything: a
 * blocking or endless file would otherwise hang or exhaust them (the sandbox
 * and its limits stop that too; this makes the verdict say why). The text is
 * read as the compilers read it: trigraphs (??= is #, ??/ is a backslash;
 * nvcc's -std=c++14 host pass honours them), digraphs (%: is #), backslash-
 * newline splices, comments and string literals.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kgate_static.h"

char *kg_static_fixed_source(const char *source, const kg_static_result *r)
{
    static const char half_inc[] = "#include <cuda_fp16.h>\n", bf16_inc[] = "#include <cuda_bf16.h>\n",
                      line1[] = "#line 1\n";
    if (!source) return NULL;
    int half = r && r->needs_half_header, bf16 = r && r->needs_bf16_header;
    size_t n = strlen(source), o = 0;
    char *out = malloc(n + sizeof half_inc + sizeof bf16_inc + sizeof line1 + 1);
    if (!out) return NULL;
    if (half) { memcpy(out + o, half_inc, sizeof half_inc - 1); o += sizeof half_inc - 1; }
    if (bf16) { memcpy(out + o, bf16_inc, sizeof bf16_inc - 1); o += sizeof bf16_inc - 1; }
    if (half || bf16) { memcpy(out + o, line1, sizeof line1 - 1); o += sizeof line1 - 1; }
    memcpy(out + o, source, n + 1);
    return out;
}

int kg_is_torch_source(const char *src)
{
    static const char *const marks[] = {"<torch/", "\"torch/", "<ATen/", "torch::Tensor", "at::Tensor",
                                        "torch/extension.h", NULL};
    for (int i = 0; src && marks[i]; i++)
        if (strstr(src, marks[i])) return 1;
    return 0;
}

char *kg_compile_source(const char *source, const char *display_name, int half, int bf16)
{
    if (!source) return NULL;
    char name[600];
    size_t k = 0;
    for (const char *p = display_name ? display_name : "candidate"; *p && k + 1 < sizeof name; p++) {
        unsigned char c = (unsigned char)*p;
        name[k++] = (c < 0x20 || c == 0x7f || c == '"' || c == '\\') ? '_' : (char)c;
    }
    name[k] = 0;
    size_t n = strlen(source);
    char *out = malloc(n + k + 128);
    if (!out) return NULL;
    int o = sprintf(out, "%s%s#line 1 \"%s\"\n", half ? "#include <cuda_fp16.h>\n" : "",
                    bf16 ? "#include <cuda_bf16.h>\n" : "", name);
    memcpy(out + o, source, n + 1);
    return out;
}

/* Phases 1-2 and comments: trigraphs replaced, splices removed (a line map
 * keeps original line numbers), comments become a space, string and
 * character literals are kept as they are. Returns a malloc'd buffer and a
 * malloc'd array giving each output byte's source line. */
static char *logical_text(const char *src, int **line_of)
{
    size_t n = strlen(src);
    char *t = malloc(n + 1), *o = malloc(n + 1);
    int *tl = malloc((n + 1) * sizeof *tl), *ol = malloc((n + 1) * sizeof *ol);
    if (!t || !o || !tl || !ol) {
        free(t); free(o); free(tl); free(ol);
        return NULL;
    }
    /* trigraphs */
    size_t k = 0;
    int line = 1;
    for (size_t i = 0; i < n; i++) {
        char c = src[i];
        if (c == '?' && i + 2 < n && src[i + 1] == '?') {
            static const char from[] = "=/'()!<>-", to[] = "#\\^[]|{}~";
            const char *f = strchr(from, src[i + 2]);
            if (f && src[i + 2]) {
                tl[k] = line;
                t[k++] = to[f - from];
                i += 2;
                continue;
            }
        }
        tl[k] = line;
        t[k++] = c;
        if (c == '\n') line++;
    }
    t[k] = 0;
    /* splices and comments */
    size_t m = 0;
    enum { CODE, STR, CHR, LINE_C, BLOCK_C } st = CODE;
    for (size_t i = 0; i < k; i++) {
        char c = t[i];
        if (c == '\\' && (t[i + 1] == '\n' || (t[i + 1] == '\r' && t[i + 2] == '\n'))) {
            i += t[i + 1] == '\r' ? 2 : 1;
            continue;
        }
        switch (st) {
        case CODE:
            if (c == '/' && t[i + 1] == '/') { st = LINE_C; o[m] = ' '; ol[m++] = tl[i]; i++; continue; }
            if (c == '/' && t[i + 1] == '*') { st = BLOCK_C; o[m] = ' '; ol[m++] = tl[i]; i++; continue; }
            if (c == '"') st = STR;
            else if (c == '\'') st = CHR;
            break;
        case STR:
            if (c == '\\' && t[i + 1]) { o[m] = c; ol[m++] = tl[i]; i++; c = t[i]; break; }
            if (c == '"' || c == '\n') st = CODE;
            break;
        case CHR:
            if (c == '\\' && t[i + 1]) { o[m] = c; ol[m++] = tl[i]; i++; c = t[i]; break; }
            if (c == '\'' || c == '\n') st = CODE;
            break;
        case LINE_C:
            if (c != '\n') continue;
            st = CODE;
            break;
        case BLOCK_C:
            if (c == '*' && t[i + 1] == '/') { st = CODE; i++; }
            else if (c == '\n') { o[m] = '\n'; ol[m++] = tl[i]; }
            continue;
        }
        o[m] = c;
        ol[m++] = tl[i];
    }
    o[m] = 0;
    ol[m] = line;
    free(t);
    free(tl);
    *line_of = ol;
    return o;
}

int kg_include_check(const char *src, char *why, size_t len, int *line_out)
{
    if (why && len) why[0] = 0;
    if (line_out) *line_out = 0;
    if (!src) return 0;
    int *lines = NULL;
    char *t = logical_text(src, &lines);
    if (!t) return 0;
    int bad = 0;
    for (char *p = t; *p && !bad;) {
        char *eol = strchr(p, '\n');
        size_t ln = eol ? (size_t)(eol - p) : strlen(p);
        char *q = p;
        while (q < p + ln && (*q == ' ' || *q == '\t' || *q == '\v' || *q == '\f' || *q == '\r')) q++;
        int hash = 0;
        if (q < p + ln && *q == '#') { hash = 1; q++; }
        else if (q + 1 < p + ln && q[0] == '%' && q[1] == ':') { hash = 1; q += 2; }
        if (hash) {
            while (q < p + ln && (*q == ' ' || *q == '\t')) q++;
            char dir[32];
            size_t d = 0;
            while (q < p + ln && (isalnum((unsigned char)*q) || *q == '_') && d + 1 < sizeof dir) dir[d++] = *q++;
            dir[d] = 0;
            int lno = lines[p - t];
            if (!strcmp(dir, "include_next") || !strcmp(dir, "import") || !strcmp(dir, "embed")) {
                snprintf(why, len, "#%s refused: a candidate includes toolkit and system headers only", dir);
                bad = lno;
            } else if (!strcmp(dir, "include")) {
                while (q < p + ln && (*q == ' ' || *q == '\t')) q++;
                char close = q < p + ln && *q == '"' ? '"' : q < p + ln && *q == '<' ? '>' : 0;
                if (!close) {
                    snprintf(why, len, "computed #include refused: the include name must be written "
                             "out (\"...\" or <...>)");
                    bad = lno;
                } else {
                    char name[256];
                    size_t nn = 0;
                    q++;
                    while (q < p + ln && *q != close && nn + 1 < sizeof name) name[nn++] = *q++;
                    name[nn] = 0;
                    const char *reason = NULL;
                    if (name[0] == '/') reason = "an absolute path";
                    else if (strstr(name, "..")) reason = "a name with ..";
                    else if (name[0] == '~') reason = "a home folder";
                    else if (nn == 0) reason = "an empty name";
                    if (reason) {
                        snprintf(why, len, "#include %c%.120s%c refused: %s (only the toolkit's and "
                                 "the system's headers may be included)",
                                 close == '"' ? '"' : '<', name, close, reason);
                        bad = lno;
                    }
                }
            }
        }
        if (!eol) break;
        p = eol + 1;
    }
    free(t);
    free(lines);
    if (bad && line_out) *line_out = bad;
    return bad ? 1 : 0;
}

/* ---- the scan's record -------------------------------------------------- */

int kg_static_worst(const kg_static_result *r)
{
    return kg_static_worst_policy(r, KG_POLICY_DEFAULT);
}

int kg_static_worst_policy(const kg_static_result *r, int policy)
{
    int w = 3;
    for (int i = 0; r && i < r->n; i++) {
        int s = kg_policy_sev(policy, kg_rule_index(r->items[i].rule), (int)r->items[i].sev);
        if (s < w) w = s;
    }
    return w;
}

void kg_static_msg_from(const kg_static_result *r, int rc, int policy, kg_static_msg *m)
{
    memset(m, 0, sizeof *m);
    m->magic = KG_STATIC_MSG_MAGIC;
    m->rc = rc;
    m->policy = policy >= 0 && policy < KG_POLICY_COUNT ? policy : KG_POLICY_DEFAULT;
    m->worst = kg_static_worst_policy(r, m->policy);
    m->parsed = r->parsed;
    m->is_external = r->is_external;
    m->needs_half = r->needs_half_header;
    m->needs_bf16 = r->needs_bf16_header;
    m->is_torch = r->is_torch;
    /* findings that decide (P0 under the policy) first, so a full record
     * never loses the one that rejected */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < r->n; i++) {
            const kg_finding *f = &r->items[i];
            int ri = kg_rule_index(f->rule);
            if (ri < 0) continue;
            int eff = kg_policy_sev(m->policy, ri, (int)f->sev);
            if ((eff == 0) != (pass == 0)) continue;
            if (eff == 0) m->n_p0++;
            else if (eff == 1) m->n_p1++;
            else m->n_p2++;
            if (m->n_hits < KG_MSG_HITS) {
                kg_static_hit *h = &m->hits[m->n_hits++];
                h->rule = (uint16_t)ri;
                h->sev = (uint8_t)f->sev;
                h->eff = (uint8_t)eff;
                h->line = f->line;
                snprintf(h->msg, sizeof h->msg, "%.199s", f->message);
            }
        }
    snprintf(m->parse_error, sizeof m->parse_error, "%s", r->parse_error);
    for (int k = 0; k < r->n; k++) {
        int ri = kg_rule_index(r->items[k].rule);
        if (ri >= 0 && kg_policy_sev(m->policy, ri, (int)r->items[k].sev) == 0) {
            snprintf(m->reason, sizeof m->reason, "%s at line %d: %.300s", r->items[k].rule,
                     r->items[k].line, r->items[k].message);
            break;
        }
    }
}

/* Every string NUL-terminated inside its field, printable (a record from a
 * compromised scan must not put control bytes into the report). */
static int clean_str(char *s, size_t cap)
{
    char *z = memchr(s, 0, cap);
    if (!z) return 0;
    for (char *p = s; p < z; p++)
        if ((unsigned char)*p < 0x20 || (unsigned char)*p == 0x7f) *p = '?';
    return 1;
}

int kg_static_msg_valid(kg_static_msg *m)
{
    if (m->magic != KG_STATIC_MSG_MAGIC) return 0;
    if (m->rc < -1 || m->rc > 0) return 0;
    if (m->worst < 0 || m->worst > 3) return 0;
    if (m->parsed < 0 || m->parsed > 1 || m->is_external < 0 || m->is_external > 1) return 0;
    if (m->needs_half < 0 || m->needs_half > 1 || m->needs_bf16 < 0 || m->needs_bf16 > 1) return 0;
    if (m->is_torch < 0 || m->is_torch > 1 || m->policy < 0 || m->policy >= KG_POLICY_COUNT) return 0;
    if (m->n_p0 < 0 || m->n_p1 < 0 || m->n_p2 < 0 || m->n_p0 > 1000 || m->n_p1 > 1000 ||
        m->n_p2 > 1000)
        return 0;
    if (m->n_hits < 0 || m->n_hits > KG_MSG_HITS || m->n_hits > m->n_p0 + m->n_p1 + m->n_p2) return 0;
    if ((m->worst == 0) != (m->n_p0 > 0)) return 0;
    for (int i = 0; i < m->n_hits; i++) {
        kg_static_hit *h = &m->hits[i];
        if ((int)h->rule >= kg_rule_count() || h->sev > 2 || h->eff > 2) return 0;
        if (h->line < 0 || h->line > 10000000) return 0;
        if (kg_policy_sev(m->policy, h->rule, h->sev) != h->eff) return 0;
        if (!clean_str(h->msg, sizeof h->msg)) return 0;
    }
    return clean_str(m->reason, sizeof m->reason) && clean_str(m->parse_error, sizeof m->parse_error);
}
