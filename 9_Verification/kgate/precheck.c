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
 * read as the compilers read it (pplex.c: trigraphs, which nvcc's C++14
 * compile honours and C++17 does not, so both readings are checked;
 * digraphs, splices, comments, string and raw string literals, digit
 * separators, header names, any line ending); __has_include's names and
 * #pragma GCC dependency are held to the same policy, and a raw string the
 * compilers would read differently is refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kgate_static.h"
#include "pplex.h"

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

/* ---- the include policy ------------------------------------------------- */

/* Why an include name is refused, or NULL. Blanks around it do not hide an
 * absolute path. */
static const char *bad_include_name(const char *name)
{
    while (*name == ' ' || *name == '\t') name++;
    if (!*name) return "an empty name";
    if (name[0] == '/') return "an absolute path";
    if (strstr(name, "..")) return "a name with ..";
    if (name[0] == '~') return "a home folder";
    return NULL;
}

/* __has_include("...") / (<...>) in a directive's text: the name checked as
 * an include's; a computed argument (a macro) is refused. Returns the
 * reason or NULL; the name goes into `shown`. */
static const char *has_include_check(const char *text, char *shown, size_t len)
{
    static const char *const ops[] = {"__has_include_next", "__has_include", "__has_embed", NULL};
    for (const char *p = text; *p; p++) {
        int k = 0;
        while (ops[k] && strncmp(p, ops[k], strlen(ops[k]))) k++;
        if (!ops[k]) continue;
        const char *q = p + strlen(ops[k]);
        snprintf(shown, len, "%s", ops[k]);
        if (k == 2) return "refused: a candidate embeds no file";
        while (*q == ' ') q++;
        if (*q != '(') return "refused: its argument must be a name written out";
        q++;
        while (*q == ' ') q++;
        char name[256];
        size_t n = 0;
        if (*q == '"') {
            for (q++; *q && *q != '"' && n + 1 < sizeof name; q++) name[n++] = *q;
        } else if (*q == '<') {
            for (q++; *q && *q != '>' && n + 1 < sizeof name; q++)
                if (*q != ' ') name[n++] = *q;   /* the directive's text has its tokens apart */
        } else {
            return "refused: its argument must be a name written out";
        }
        name[n] = 0;
        if (!*q) return "refused: an unterminated name";
        const char *why = bad_include_name(name);
        if (why) {
            snprintf(shown, len, "%s(%.120s)", ops[k], name);
            return why;
        }
        p = q;
    }
    return NULL;
}

/* The policy on one reading of the text (with or without trigraphs). */
static int include_policy(const pp_text *pt, char *why, size_t len)
{
    if (pt->error[0]) {
        snprintf(why, len, "%s: the gate cannot tell what the compilers would include", pt->error);
        return pt->error_line > 0 ? pt->error_line : 1;
    }
    for (int i = 0; i < pt->n_dir; i++) {
        const pp_directive *d = &pt->dir[i];
        const char *reason = NULL;
        char shown[300];
        if (!strcmp(d->name, "include_next") || !strcmp(d->name, "import") || !strcmp(d->name, "embed")) {
            snprintf(why, len, "#%s refused: a candidate includes toolkit and system headers only", d->name);
            return d->line;
        }
        if (!strcmp(d->name, "include")) {
            if (!d->close) {
                snprintf(why, len, "computed #include refused: the include name must be written "
                         "out (\"...\" or <...>)");
                return d->line;
            }
            reason = d->header_unterminated ? "an unterminated name" : bad_include_name(d->header);
            if (reason) {
                snprintf(why, len, "#include %c%.120s%c refused: %s (only the toolkit's and "
                         "the system's headers may be included)",
                         d->close == '"' ? '"' : '<', d->header, d->header_unterminated ? ' ' : d->close, reason);
                return d->line;
            }
        }
        if (!strcmp(d->name, "pragma") && strstr(d->text, "dependency")) {
            snprintf(why, len, "#pragma GCC dependency refused: it opens the file it names");
            return d->line;
        }
        if ((reason = has_include_check(d->text, shown, sizeof shown)) != NULL) {
            snprintf(why, len, "%.160s in #%s %s (only the toolkit's and the system's headers may be "
                     "named)", shown, d->name, reason);
            return d->line;
        }
    }
    return 0;
}

int kg_include_check(const char *src, char *why, size_t len, int *line_out)
{
    if (why && len) why[0] = 0;
    if (line_out) *line_out = 0;
    if (!src) return 0;
    char buf[400];
    int bad = 0;
    /* both readings: nvcc's C++14 compile replaces trigraphs, C++17 and clang do not */
    for (int trigraphs = 0; trigraphs < 2 && !bad; trigraphs++) {
        pp_text pt;
        if (pp_read(src, trigraphs, &pt) != 0) {
            snprintf(buf, sizeof buf, "the candidate could not be read (out of memory)");
            bad = 1;
            break;
        }
        bad = include_policy(&pt, buf, sizeof buf);
        pp_free(&pt);
    }
    /* _Pragma("GCC dependency \"...\"") opens a file as #pragma GCC dependency does */
    if (!bad && strstr(src, "_Pragma") && strstr(src, "dependency")) {
        snprintf(buf, sizeof buf, "_Pragma(\"GCC dependency ...\") refused: it opens the file it names");
        bad = 1;
    }
    if (!bad) return 0;
    if (why && len) snprintf(why, len, "%s", buf);
    if (line_out) *line_out = bad;
    return 1;
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
    m->timed_out = r->timed_out ? 1 : 0;
    if (m->timed_out) m->rc = -1;
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
    if (m->timed_out < 0 || m->timed_out > 1 || (m->timed_out && m->rc != -1)) return 0;
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
