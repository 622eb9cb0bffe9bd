/* test_dynamic_corpus.c: the corpus on the CPU (what `make test` checks
 * without a GPU): the labels cover every file, every verdict class and every
 * task; the static track gives P0 to every P0-labeled candidate and to no good
 * one; degenerate candidates (empty, not C at all, Markdown without code, a
 * 10 MB file) get a clear answer, not a crash. */
#define _GNU_SOURCE
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "dynamic.h"
#include "kg_report.h"
#include "kgate_static.h"

static char corpus[1024];
static kg_label labels[256];
static int n_labels;

static int setup(void **s)
{
    (void)s;
    const char *env = getenv("KGATE_CORPUS");
    if (env) snprintf(corpus, sizeof corpus, "%s", env);
    else {
        /* __FILE__ is 9_Verification/kgate/tests/test_dynamic_corpus.c from the repo root */
        snprintf(corpus, sizeof corpus, "%s", __FILE__);
        char *p = strstr(corpus, "tests/test_dynamic_corpus.c");
        if (p) strcpy(p, "corpus");
    }
    char path[1100];
    snprintf(path, sizeof path, "%s/labels.tsv", corpus);
    char *text = kg_read_file(path, 1 << 20, NULL);
    if (!text) {
        fprintf(stderr, "cannot read %s (run from the repository root or set KGATE_CORPUS)\n", path);
        return -1;
    }
    char err[200];
    n_labels = kg_labels_parse(text, labels, 256, err, sizeof err);
    free(text);
    if (n_labels < 0) fprintf(stderr, "labels.tsv: %s\n", err);
    return n_labels < 0 ? -1 : 0;
}

static void test_labels_cover_corpus(void **s)
{
    (void)s;
    assert_true(n_labels >= 60);
    int per_verdict[KG_V_COUNT] = {0}, good = 0;
    int per_task[16] = {0};
    for (int i = 0; i < n_labels; i++) {
        per_verdict[labels[i].expected]++;
        good += kg_label_is_good(labels[i].expected);
        for (int t = 0; t < kg_task_count(); t++)
            if (!strcmp(kg_task_at(t)->name, labels[i].task)) per_task[t]++;
        char path[1400];
        snprintf(path, sizeof path, "%.1000s/%.255s", corpus, labels[i].file);
        struct stat st;   /* lstat: a candidate that is a link (hostile_symlink_*) is there, unfollowed */
        if (lstat(path, &st) != 0) fail_msg("labels.tsv names %s, which is missing", labels[i].file);
        if (!kg_label_is_good(labels[i].expected) && strlen(labels[i].defect) < 10)
            fail_msg("%s: the planted defect is not stated", labels[i].file);
    }
    for (int v = 0; v < KG_V_STATIC_OK; v++)
        if (per_verdict[v] == 0) fail_msg("no candidate labeled %s", kg_verdict_name(v));
    for (int t = 0; t < kg_task_count(); t++)
        if (per_task[t] < 3) fail_msg("task %s has %d candidates", kg_task_at(t)->name, per_task[t]);
    assert_true(good * 10 >= n_labels * 3);   /* enough good ones for a meaningful false-kill rate */
    /* silent defects for every tool of the sanitizer pass */
    int per_tool[4] = {0}, silent = 0;
    for (int i = 0; i < n_labels; i++)
        if (labels[i].sanitizer > 0 && labels[i].sanitizer <= 4) per_tool[labels[i].sanitizer - 1]++, silent++;
    assert_true(silent >= 12);
    for (int t = 0; t < 4; t++)
        if (per_tool[t] == 0) fail_msg("no silent defect for sanitizer tool %d", t);
    /* and every candidate file has a label */
    DIR *d = opendir(corpus);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *dot = strrchr(e->d_name, '.');
        if (!dot || (strcmp(dot, ".cu") && strcmp(dot, ".md"))) continue;
        if (!kg_labels_find(labels, n_labels, e->d_name)) fail_msg("%s has no label", e->d_name);
    }
    closedir(d);
}

static void test_static_verdicts_on_corpus(void **s)
{
    (void)s;
    int bad = 0;
    for (int i = 0; i < n_labels; i++) {
        /* hostile compile-time bombs go through the sandboxed gate only
         * (tests/test_hostile.sh): in this process they would run for hours */
        if (!strncmp(labels[i].defect, "HOSTILE", 7) && labels[i].expected == KG_V_L1) continue;
        char path[1400], err[256];
        snprintf(path, sizeof path, "%.1000s/%.255s", corpus, labels[i].file);
        char *src = kg_load_candidate(path, 1 << 20, err, sizeof err);
        if (!src) fail_msg("%s: cannot load: %s", labels[i].file, err);
        /* the task is named in the candidate itself too */
        char want[64];
        snprintf(want, sizeof want, "kgate-task: %s", labels[i].task);
        if (!strstr(src, want)) fail_msg("%s: no '// %s' line", labels[i].file, want);
        kg_static_result r;
        memset(&r, 0, sizeof r);
        assert_int_equal(kg_static_scan(src, labels[i].file, &r), 0);
        int p0 = kg_static_worst(&r) == KG_P0;
        if (labels[i].expected == KG_V_P0 && !p0) {
            fprintf(stderr, "P0-labeled %s not rejected statically\n", labels[i].file);
            bad++;
        }
        /* a silent defect is the sanitizer pass's to stop: the static track must let it through */
        if (labels[i].sanitizer > 0 && p0) {
            fprintf(stderr, "silent-defect %s rejected statically (%s: %s)\n", labels[i].file,
                    r.n ? r.items[0].rule : "?", r.n ? r.items[0].message : "");
            bad++;
        }
        if (kg_label_is_good(labels[i].expected) && p0) {
            fprintf(stderr, "good %s rejected statically (%s: %s)\n", labels[i].file,
                    r.n ? r.items[0].rule : "?", r.n ? r.items[0].message : "");
            bad++;
        }
        if (labels[i].expected == KG_V_EXTERNAL && !r.is_external)
            fprintf(stderr, "note: %s not seen as library-only\n", labels[i].file);
        kg_static_free(&r);
        free(src);
    }
    assert_int_equal(bad, 0);
}

static void write_file(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    if (len) assert_int_equal(fwrite(text, 1, len, f), len);
    fclose(f);
}

/* Each degenerate candidate: either the loader refuses it with a reason, or
 * the static track runs on it; nothing crashes. */
static void test_degenerate_candidates(void **s)
{
    (void)s;
    char dir[] = "/tmp/kgate_test_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char p_empty[64], p_junk[64], p_md[64], p_big[64];
    snprintf(p_empty, sizeof p_empty, "%s/empty.cu", dir);
    snprintf(p_junk, sizeof p_junk, "%s/junk.cu", dir);
    snprintf(p_md, sizeof p_md, "%s/prose.md", dir);
    snprintf(p_big, sizeof p_big, "%s/big.cu", dir);
    write_file(p_empty, "", 0);
    const char *junk = "This is not C at all }}} ((( @@@ \x01\x02 #include <\n";
    write_file(p_junk, junk, strlen(junk));
    const char *md = "# Answer\nUse a kernel with one thread per element.\n```python\nprint(1)\n```\n";
    write_file(p_md, md, strlen(md));
    size_t big = 10u << 20;
    char *b = (char *)malloc(big);
    for (size_t i = 0; i < big; i++) b[i] = "__global__ void k(){}\n"[i % 22];
    write_file(p_big, b, big);
    free(b);

    const char *paths[] = {p_empty, p_junk, p_md, p_big};
    int refused[4];
    for (int k = 0; k < 4; k++) {
        char err[256] = "";
        char *src = kg_load_candidate(paths[k], 1 << 20, err, sizeof err);
        refused[k] = src == NULL;
        if (!src) {
            assert_true(strlen(err) > 0);   /* a reason, for the L1 "not a candidate" verdict */
            continue;
        }
        kg_static_result r;
        memset(&r, 0, sizeof r);
        kg_static_scan(src, paths[k], &r);
        kg_static_free(&r);
        free(src);
    }
    assert_true(refused[0]);   /* empty */
    assert_true(refused[2]);   /* Markdown without a code block */
    assert_true(refused[3]);   /* 10 MB over the 1 MiB limit kgate uses */
    for (int k = 0; k < 4; k++) unlink(paths[k]);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_labels_cover_corpus),
        cmocka_unit_test(test_static_verdicts_on_corpus),
        cmocka_unit_test(test_degenerate_candidates),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
