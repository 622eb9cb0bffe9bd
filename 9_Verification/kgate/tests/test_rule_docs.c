/* test_rule_docs.c: the rule reference in README-static.md is the test.
 *
 * Every rule of the table (rules.c) has a section in README-static.md:
 *
 *     #### KG-POW-SMALL
 *     - severity: P2 · family: math
 *     - what: ...
 *     - why: ...
 *     - fix: <the fix hint of rules.c, word for word>
 *     ```cuda fires          (one or more)
 *     ```cuda near-miss      (one or more)
 *
 * Each "fires" block is scanned and must give a finding of that rule with
 * that severity; each "near-miss" block must give none of that rule. A
 * snippet may name the task's launcher with a line
 * `// kgate-signature: void launch(...)` (KG-LAUNCH-SIGNATURE). The test
 * also checks that every rule id the scanner can emit (the "KG-..." strings
 * of the folder's C files: static_scan.c and its parts, precheck.c, the
 * gate's) is in the table, and that the documentation names no
 * rule the table does not have: the table, the scanner and the
 * documentation cannot drift apart.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "dynamic.h"
#include "kgate_static.h"
#include "rules.h"

#define MAX_DOC_RULES 160
#define MAX_SNIPPETS 6

typedef struct {
    char id[40];
    int sev;             /* from "- severity: Pn" */
    char family[32];
    char fix[300];
    int has_what, has_why;
    int line;            /* of the ### header in the README */
    int n_fire, n_miss;
    char *fire[MAX_SNIPPETS], *miss[MAX_SNIPPETS];
    int fire_line[MAX_SNIPPETS], miss_line[MAX_SNIPPETS];
} doc_rule;

static doc_rule docs[MAX_DOC_RULES];
static int n_docs;
static char dir[1024];

static char *path_in_dir(const char *name)
{
    static char p[1400];
    snprintf(p, sizeof p, "%s/%.255s", dir, name);
    return p;
}

/* Read README-static.md into docs[]. */
static int setup(void **s)
{
    (void)s;
    /* __FILE__ is 9_Verification/kgate/tests/test_rule_docs.c from the repo root */
    snprintf(dir, sizeof dir, "%s", __FILE__);
    char *p = strstr(dir, "/tests/test_rule_docs.c");
    if (p) *p = 0;
    char *text = kg_read_file(path_in_dir("README-static.md"), 4u << 20, NULL);
    if (!text) {
        fprintf(stderr, "cannot read %s (run from the repository root)\n", path_in_dir("README-static.md"));
        return -1;
    }
    doc_rule *cur = NULL;
    int in_block = 0, kind = 0, block_line = 0, lineno = 0;
    char *buf = NULL;
    size_t blen = 0;
    for (char *line = text; line && *line;) {
        char *eol = strchr(line, '\n');
        if (eol) *eol = 0;
        lineno++;
        if (in_block) {
            if (!strncmp(line, "```", 3)) {
                in_block = 0;
                if (cur && kind) {
                    if (kind == 1 && cur->n_fire < MAX_SNIPPETS) {
                        cur->fire_line[cur->n_fire] = block_line;
                        cur->fire[cur->n_fire++] = buf;
                    } else if (kind == 2 && cur->n_miss < MAX_SNIPPETS) {
                        cur->miss_line[cur->n_miss] = block_line;
                        cur->miss[cur->n_miss++] = buf;
                    } else free(buf);
                } else free(buf);
                buf = NULL;
                blen = 0;
            } else if (kind) {
                size_t l = strlen(line);
                char *nb = realloc(buf, blen + l + 2);
                assert_non_null(nb);
                buf = nb;
                memcpy(buf + blen, line, l);
                blen += l;
                buf[blen++] = '\n';
                buf[blen] = 0;
            }
        } else if (!strncmp(line, "```", 3)) {
            in_block = 1;
            block_line = lineno;
            kind = strstr(line, "cuda fires") ? 1 : strstr(line, "cuda near-miss") ? 2 : 0;
            buf = calloc(1, 1);
            blen = 0;
        } else if (!strncmp(line, "#### KG-", 8)) {
            assert_true(n_docs < MAX_DOC_RULES);
            cur = &docs[n_docs++];
            memset(cur, 0, sizeof *cur);
            sscanf(line + 5, "%39s", cur->id);
            cur->sev = -1;
            cur->line = lineno;
        } else if (!strncmp(line, "## ", 3) || !strncmp(line, "### ", 4)) {
            cur = NULL;   /* a new chapter or family ends the last rule's section */
        } else if (cur && !strncmp(line, "- severity: P", 13)) {
            cur->sev = line[13] - '0';
            const char *fam = strstr(line, "family: ");
            if (fam) sscanf(fam + 8, "%31s", cur->family);
        } else if (cur && !strncmp(line, "- what: ", 8)) {
            cur->has_what = 1;
        } else if (cur && !strncmp(line, "- why: ", 7)) {
            cur->has_why = 1;
        } else if (cur && !strncmp(line, "- fix: ", 7)) {
            snprintf(cur->fix, sizeof cur->fix, "%s", line + 7);
        }
        line = eol ? eol + 1 : NULL;
    }
    free(buf);
    free(text);
    return 0;
}

static int teardown(void **s)
{
    (void)s;
    for (int i = 0; i < n_docs; i++) {
        for (int k = 0; k < docs[i].n_fire; k++) free(docs[i].fire[k]);
        for (int k = 0; k < docs[i].n_miss; k++) free(docs[i].miss[k]);
    }
    return 0;
}

static const doc_rule *doc_of(const char *id)
{
    for (int i = 0; i < n_docs; i++)
        if (!strcmp(docs[i].id, id)) return &docs[i];
    return NULL;
}

/* Every rule of the table is documented the same way, and nothing else is. */
static void test_table_matches_docs(void **s)
{
    (void)s;
    int bad = 0;
    assert_true(kg_rule_count() >= 60);
    for (int i = 0; i < kg_rule_count(); i++) {
        const kg_rule_info *r = kg_rule_at(i);
        const doc_rule *d = doc_of(r->id);
        if (!d) { fprintf(stderr, "%s: no section in README-static.md\n", r->id); bad++; continue; }
        if (d->sev != r->sev) { fprintf(stderr, "%s: README says P%d, rules.c P%d\n", r->id, d->sev, r->sev); bad++; }
        if (strcmp(d->family, r->family)) { fprintf(stderr, "%s: README family '%s', rules.c '%s'\n", r->id, d->family, r->family); bad++; }
        if (strcmp(d->fix, r->fix)) { fprintf(stderr, "%s: README fix '%s'\n   rules.c fix '%s'\n", r->id, d->fix, r->fix); bad++; }
        if (!d->has_what || !d->has_why) { fprintf(stderr, "%s: no '- what:' or '- why:' line\n", r->id); bad++; }
        if (d->n_fire < 1 || d->n_miss < 1) {
            fprintf(stderr, "%s: needs a ```cuda fires and a ```cuda near-miss block\n", r->id);
            bad++;
        }
    }
    for (int i = 0; i < n_docs; i++)
        if (kg_rule_index(docs[i].id) < 0) {
            fprintf(stderr, "README-static.md line %d documents %s, which rules.c does not have\n", docs[i].line, docs[i].id);
            bad++;
        }
    for (int i = 0; i < n_docs; i++)
        for (int k = i + 1; k < n_docs; k++)
            if (!strcmp(docs[i].id, docs[k].id)) { fprintf(stderr, "%s documented twice\n", docs[i].id); bad++; }
    assert_int_equal(bad, 0);
}

/* Every "KG-..." string the scanner (and the gate's include check) can
 * emit is a rule of the table: every C file of the folder is read (the
 * static track is split into static_scan.c and scan_*.c). */
static void test_scanner_ids_in_table(void **s)
{
    (void)s;
    char files[64][256];
    int n_files = 0, has_scan = 0;
    DIR *d = opendir(dir);
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d)) != NULL && n_files < 64;) {
        size_t l = strlen(e->d_name);
        if (l < 3 || l >= sizeof files[0] || strcmp(e->d_name + l - 2, ".c")) continue;
        snprintf(files[n_files++], sizeof files[0], "%s", e->d_name);
        has_scan |= !strcmp(e->d_name, "static_scan.c");
    }
    closedir(d);
    assert_true(has_scan);
    int bad = 0, seen = 0;
    for (int f = 0; f < n_files; f++) {
        char *src = kg_read_file(path_in_dir(files[f]), 8u << 20, NULL);
        assert_non_null(src);
        for (char *p = src; (p = strstr(p, "\"KG-")) != NULL; p++) {
            char id[48];
            int n = 0;
            for (const char *q = p + 1; n < 47 && ((*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') || *q == '-'); q++)
                id[n++] = *q;
            id[n] = 0;
            if (p[1 + n] != '"') continue;   /* a prefix in a longer string */
            seen++;
            if (kg_rule_index(id) < 0) { fprintf(stderr, "%s: %s is not in rules.c\n", files[f], id); bad++; }
        }
        free(src);
    }
    assert_true(seen >= 60);
    assert_int_equal(bad, 0);
}

static void scan_snippet(const char *src, kg_static_result *r)
{
    kg_scan_opts o;
    memset(&o, 0, sizeof o);
    char sig[400] = "";
    const char *p = strstr(src, "// kgate-signature: ");
    if (p) {
        p += strlen("// kgate-signature: ");
        size_t n = strcspn(p, "\n");
        snprintf(sig, sizeof sig, "%.*s", (int)n, p);
        o.launch_signature = sig;
    }
    assert_int_equal(kg_static_scan_ex(src, "snippet", &o, r), 0);
}

static void dump(const kg_static_result *r)
{
    for (int i = 0; i < r->n; i++)
        fprintf(stderr, "      P%d %s line %d: %s\n", r->items[i].sev, r->items[i].rule, r->items[i].line,
                r->items[i].message);
}

/* The examples: every "fires" block fires its rule with its severity,
 * every "near-miss" block does not fire it. */
static void test_examples(void **s)
{
    (void)s;
    int bad = 0, n = 0;
    for (int i = 0; i < n_docs; i++) {
        const doc_rule *d = &docs[i];
        for (int k = 0; k < d->n_fire; k++) {
            kg_static_result r;
            scan_snippet(d->fire[k], &r);
            int hit = 0;
            for (int j = 0; j < r.n; j++)
                if (!strcmp(r.items[j].rule, d->id) && (int)r.items[j].sev == d->sev) hit = 1;
            if (!hit) {
                fprintf(stderr, "  %s: the example at README-static.md line %d does not fire it (P%d); findings:\n",
                        d->id, d->fire_line[k], d->sev);
                dump(&r);
                bad++;
            }
            kg_static_free(&r);
            n++;
        }
        for (int k = 0; k < d->n_miss; k++) {
            kg_static_result r;
            scan_snippet(d->miss[k], &r);
            int hit = 0;
            for (int j = 0; j < r.n; j++)
                if (!strcmp(r.items[j].rule, d->id)) hit = 1;
            if (hit) {
                fprintf(stderr, "  %s: the near-miss at README-static.md line %d fires it; findings:\n", d->id,
                        d->miss_line[k]);
                dump(&r);
                bad++;
            }
            kg_static_free(&r);
            n++;
        }
    }
    fprintf(stderr, "  %d examples of %d rules scanned\n", n, n_docs);
    assert_true(n >= 2 * kg_rule_count());
    assert_int_equal(bad, 0);
}

/* The policies: lenient <= default <= published <= strict, and the
 * published profile's P0 list is the published gate's seven rules. */
static void test_policies(void **s)
{
    (void)s;
    assert_int_equal(kg_policy_parse("default"), KG_POLICY_DEFAULT);
    assert_int_equal(kg_policy_parse("published"), KG_POLICY_PUBLISHED);
    assert_int_equal(kg_policy_parse("strict"), KG_POLICY_STRICT);
    assert_int_equal(kg_policy_parse("lenient"), KG_POLICY_LENIENT);
    assert_int_equal(kg_policy_parse("Default"), -1);
    assert_int_equal(kg_policy_parse(""), -1);
    assert_int_equal(kg_policy_parse(NULL), -1);
    for (int i = 0; i < kg_rule_count(); i++)
        for (int sev = 0; sev <= 2; sev++) {
            int l = kg_policy_sev(KG_POLICY_LENIENT, i, sev), d = kg_policy_sev(KG_POLICY_DEFAULT, i, sev),
                p = kg_policy_sev(KG_POLICY_PUBLISHED, i, sev), st = kg_policy_sev(KG_POLICY_STRICT, i, sev);
            assert_int_equal(d, sev);
            assert_true((l == 0) <= (d == 0));
            assert_true((d == 0) <= (p == 0));
            assert_true((p == 0) <= (st == 0));
        }
    const char *published[] = {"KG-DEVICE-PRINTF", "KG-RECURSION", "KG-STATIC-GLOBAL", "KG-IDX-THREADONLY",
                               "KG-IDX-NO-BLOCK", "KG-HOSTLIB-DEVICE", "KG-HOST-API-DEVICE"};
    for (size_t i = 0; i < sizeof published / sizeof published[0]; i++) {
        int r = kg_rule_index(published[i]);
        assert_true(r >= 0);
        assert_int_equal(kg_policy_sev(KG_POLICY_PUBLISHED, r, 2), 0);
        assert_int_equal(kg_policy_sev(KG_POLICY_PUBLISHED, r, 1), 0);
    }
    /* lenient keeps only the gate's own refusals */
    assert_int_equal(kg_policy_sev(KG_POLICY_LENIENT, kg_rule_index("KG-INCLUDE"), 0), 0);
    assert_int_equal(kg_policy_sev(KG_POLICY_LENIENT, kg_rule_index("KG-HIDDEN-CODE"), 0), 0);
    assert_int_equal(kg_policy_sev(KG_POLICY_LENIENT, kg_rule_index("KG-SYNC-DIVERGENT"), 0), 1);
    /* strict: every P1 rejects, P2 stays advice */
    assert_int_equal(kg_policy_sev(KG_POLICY_STRICT, kg_rule_index("KG-FASTMATH"), 1), 0);
    assert_int_equal(kg_policy_sev(KG_POLICY_STRICT, kg_rule_index("KG-POW-SMALL"), 2), 2);
    /* out of range */
    assert_int_equal(kg_policy_sev(KG_POLICY_STRICT, -1, 1), 1);
    assert_int_equal(kg_policy_sev(KG_POLICY_STRICT, kg_rule_count(), 1), 1);
    assert_string_equal(kg_policy_name(99), "?");
}

/* The scan's record under a policy: counts, worst, reason and hits follow
 * the policy; a record that lies about them is refused. */
static void test_record_policy(void **s)
{
    (void)s;
    const char *src = "#include <cstdio>\n"
                      "__global__ void k(const float* x, float* y, int n) {\n"
                      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                      "  if (i < n) { y[i] = x[i]; printf(\"%f\\n\", y[i]); }\n}\n"
                      "extern \"C\" void launch(const float* x, float* y, int n, cudaStream_t s) {\n"
                      "  k<<<(n + 255) / 256, 256, 0, s>>>(x, y, n);\n}\n";
    kg_static_result r;
    assert_int_equal(kg_static_scan(src, "p.cu", &r), 0);
    kg_static_msg m;
    kg_static_msg_from(&r, 0, KG_POLICY_DEFAULT, &m);
    assert_true(kg_static_msg_valid(&m));
    assert_int_equal(m.n_p0, 0);
    assert_true(m.worst >= 1);
    kg_static_msg_from(&r, 0, KG_POLICY_PUBLISHED, &m);
    assert_true(kg_static_msg_valid(&m));
    assert_int_equal(m.worst, 0);
    assert_true(m.n_p0 >= 1);
    assert_non_null(strstr(m.reason, "KG-DEVICE-PRINTF"));
    assert_int_equal(m.hits[0].eff, 0);   /* what decided comes first */
    assert_int_equal(m.hits[0].sev, 2);
    /* forged: eff that the policy does not give */
    kg_static_msg bad = m;
    bad.hits[0].eff = 2;
    assert_false(kg_static_msg_valid(&bad));
    bad = m;
    bad.hits[0].rule = (uint16_t)kg_rule_count();
    assert_false(kg_static_msg_valid(&bad));
    bad = m;
    bad.n_hits = KG_MSG_HITS + 1;
    assert_false(kg_static_msg_valid(&bad));
    bad = m;
    bad.policy = KG_POLICY_COUNT;
    assert_false(kg_static_msg_valid(&bad));
    bad = m;
    bad.hits[0].msg[sizeof bad.hits[0].msg - 1] = 'x';
    memset(bad.hits[0].msg, 'x', sizeof bad.hits[0].msg);
    assert_false(kg_static_msg_valid(&bad));
    kg_static_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_matches_docs),
        cmocka_unit_test(test_scanner_ids_in_table),
        cmocka_unit_test(test_policies),
        cmocka_unit_test(test_record_policy),
        cmocka_unit_test(test_examples),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
