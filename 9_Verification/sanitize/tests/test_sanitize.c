/* test_sanitize.c: the harness's CPU side: the XML reader, the report
 * reader on real compute-sanitizer 2025.3.1 reports captured on the H200
 * (fixtures/h200/) and on the planted programs' reports captured there by
 * capture_fixtures.sh (fixtures/planted_*), the
 * expectations format, the verdicts, the writers, and process control. */
#define _DEFAULT_SOURCE
/* snprintf truncation of over-long paths is intended and bounded */
#pragma GCC diagnostic ignored "-Wformat-truncation"
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "json_valid.h"
#include "sanitize.h"

static char fx_dir[1024];      /* .../tests/fixtures */
static char planted_dir[1024]; /* .../9_Verification/planted */

static void find_dirs(void)
{
    const char *env = getenv("SANITIZE_TEST_DIR");
    char base[1024];
    snprintf(base, sizeof base, "%s", env ? env : __FILE__);
    if (!env) {
        char *slash = strrchr(base, '/');
        if (slash) *slash = '\0';
        else snprintf(base, sizeof base, ".");
    }
    snprintf(fx_dir, sizeof fx_dir, "%s/fixtures", base);
    snprintf(planted_dir, sizeof planted_dir, "%s/../../planted", base);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    if (b) {
        b[n] = '\0';
        if (len) *len = (size_t)n;
    }
    return b;
}

static void fx(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", fx_dir, name);
}

/* The H200 capture of a planted run (capture_fixtures.sh). */
static void planted_fixture(char *buf, size_t len, const char *run, const char *tool)
{
    snprintf(buf, len, "%s/%s.%s.xml", fx_dir, run, tool);
}

/* ---- XML reader ------------------------------------------------------ */

static void test_xml_basics(void **state)
{
    (void)state;
    const char *doc =
        "\xEF\xBB\xBF<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<!-- a comment -->\n"
        "<!DOCTYPE r>\n<r a=\"1\" b='x &amp; y'>\n  <k>  hello &lt;world&gt; &#65;&#x42;&#xe9; </k>"
        "<!-- inside --><c><![CDATA[<not> & markup]]></c><e/><e x=\"&quot;q&apos;\" />\n</r>\n"
        "<!-- trailing -->\n";
    char err[256];
    xml_node *r = xml_parse(doc, strlen(doc), err, sizeof err);
    assert_non_null(r);
    assert_string_equal(r->name, "r");
    assert_string_equal(xml_attr_get(r, "a"), "1");
    assert_string_equal(xml_attr_get(r, "b"), "x & y");
    assert_null(xml_attr_get(r, "zz"));
    assert_string_equal(xml_child_text(r, "k"), "hello <world> AB\xC3\xA9");
    assert_string_equal(xml_child_text(r, "c"), "<not> & markup");
    assert_int_equal(r->n_kids, 4);
    assert_string_equal(xml_attr_get(r->kids[3], "x"), "\"q'");
    assert_ptr_equal(xml_find(r, "e"), r->kids[2]);
    assert_null(xml_child(r, "nope"));
    xml_free(r);
}

static void test_xml_malformed(void **state)
{
    (void)state;
    const char *bad[] = {
        "",                                   /* empty */
        "   \n  ",                            /* only white space */
        "<?xml version=\"1.0\"?>",            /* prolog only */
        "<a>",                                /* unclosed */
        "<a></b>",                            /* mismatched */
        "<a><b></a></b>",                     /* crossed */
        "<a x=1></a>",                        /* unquoted attribute */
        "<a x=\"1\" x=\"2\"></a>",            /* repeated attribute */
        "<a x=\"1></a>",                      /* unterminated value */
        "<a>&bogus;</a>",                     /* unknown entity */
        "<a>&#xZZ;</a>",                      /* bad character reference */
        "<a>&#0;</a>",                        /* NUL reference */
        "<a>& b</a>",                         /* bare ampersand */
        "<a><![CDATA[x</a>",                  /* unclosed CDATA */
        "<a><!-- x</a>",                      /* unclosed comment */
        "<a/><b/>",                           /* two roots */
        "text<a/>",                           /* text before the root */
        "<a/>text",                           /* text after the root */
        "<1a/>",                              /* bad name */
        "<!DOCTYPE a [<!ENTITY x \"y\">]><a/>", /* internal subset: refused */
        "<a",                                 /* truncated start tag */
        "<a></a",                             /* truncated end tag */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[256] = "";
        xml_node *r = xml_parse(bad[i], strlen(bad[i]), err, sizeof err);
        if (r) fail_msg("accepted malformed input #%zu: %s", i, bad[i]);
        assert_non_null(strstr(err, "line "));
    }
    /* a NUL byte inside */
    char nul[] = "<a>x\0y</a>";
    char err[256];
    assert_null(xml_parse(nul, sizeof nul - 1, err, sizeof err));
    assert_non_null(strstr(err, "NUL"));
    /* the error names where: line 3 */
    const char *multi = "<a>\n<b>\n</c>\n</a>";
    assert_null(xml_parse(multi, strlen(multi), err, sizeof err));
    assert_non_null(strstr(err, "line 3"));
    assert_non_null(strstr(err, "</c>"));
}

static void test_xml_depth_limit(void **state)
{
    (void)state;
    int depth = 5000;
    char *doc = malloc((size_t)depth * 7 + 1);
    size_t n = 0;
    for (int i = 0; i < depth; i++) n += (size_t)sprintf(doc + n, "<a>");
    for (int i = 0; i < depth; i++) n += (size_t)sprintf(doc + n, "</a>");
    char err[256];
    assert_null(xml_parse(doc, n, err, sizeof err));
    assert_non_null(strstr(err, "deeper"));
    free(doc);
}

/* Every prefix of a real report is either the whole document or an error:
 * never a crash, never a tree. */
static void test_xml_every_truncation(void **state)
{
    (void)state;
    char path[1200];
    fx(path, sizeof path, "h200/sync.xml");
    size_t len = 0;
    char *text = slurp(path, &len);
    assert_non_null(text);
    /* the whole file parses */
    char err[256];
    xml_node *full = xml_parse(text, len, err, sizeof err);
    assert_non_null(full);
    xml_free(full);
    /* the end of the root is where the document becomes complete */
    const char *close = strstr(text, "</ComputeSanitizerOutput>");
    assert_non_null(close);
    size_t complete = (size_t)(close - text) + strlen("</ComputeSanitizerOutput>");
    size_t step = len > 20000 ? 7 : 1;
    for (size_t cut = 0; cut < complete; cut += step) {
        xml_node *r = xml_parse(text, cut, err, sizeof err);
        if (r) fail_msg("a truncation at byte %zu of %zu parsed", cut, len);
        assert_true(strlen(err) > 0);
    }
    free(text);
}

/* The reader is linear and capped: what took 18.6 s (a 788 KB element with
 * many attributes, checked for repeats pairwise) is refused at once. */
static void test_xml_linear_and_capped(void **state)
{
    (void)state;
    char err[256];
    /* 60000 attributes in one element */
    size_t cap = 60000 * 16 + 100, n = 0;
    char *doc = malloc(cap);
    n += (size_t)sprintf(doc + n, "<ComputeSanitizerOutput><record");
    for (int i = 0; i < 60000; i++) n += (size_t)sprintf(doc + n, " a%d=\"\"", i);
    n += (size_t)sprintf(doc + n, "/></ComputeSanitizerOutput>");
    double t0 = sz_now();
    assert_null(xml_parse(doc, n, err, sizeof err));
    assert_true(sz_now() - t0 < 1.0);
    assert_non_null(strstr(err, "more than 64 attributes"));
    free(doc);
    /* 64 attributes are fine, the 65th is refused */
    char few[2000];
    n = (size_t)sprintf(few, "<a");
    for (int i = 0; i < XML_MAX_ATTRS; i++) n += (size_t)sprintf(few + n, " a%d='%d'", i, i);
    sprintf(few + n, "/>");
    xml_node *r = xml_parse(few, strlen(few), err, sizeof err);
    assert_non_null(r);
    assert_string_equal(xml_attr_get(r, "a63"), "63");
    xml_free(r);
    sprintf(few + n, " b=''/>");
    assert_null(xml_parse(few, strlen(few), err, sizeof err));
    /* a tree is capped in elements; a stream only per child of the root */
    int kids = 300000;
    doc = malloc((size_t)kids * 10 + 100);
    n = (size_t)sprintf(doc, "<ComputeSanitizerOutput>");
    for (int i = 0; i < kids; i++) n += (size_t)sprintf(doc + n, "<record/>");
    n += (size_t)sprintf(doc + n, "</ComputeSanitizerOutput>");
    assert_null(xml_parse(doc, n, err, sizeof err));
    assert_non_null(strstr(err, "more than 100000 elements"));
    t0 = sz_now();
    sz_found f;
    assert_int_equal(sz_report_read_text(doc, n, 0, &f, err, sizeof err), 0);
    assert_int_equal(f.n_records, kids);
    assert_true(sz_now() - t0 < 2.0);
    sz_found_free(&f);
    free(doc);
    /* one record with more elements than SZ_MAX_RECORD_ELEMENTS */
    doc = malloc(20000 * 4 + 100);
    n = (size_t)sprintf(doc, "<ComputeSanitizerOutput><record>");
    for (int i = 0; i < 20000; i++) n += (size_t)sprintf(doc + n, "<a/>");
    n += (size_t)sprintf(doc + n, "</record></ComputeSanitizerOutput>");
    assert_int_equal(sz_report_read_text(doc, n, 0, &f, err, sizeof err), -1);
    assert_non_null(strstr(err, "elements"));
    free(doc);
    /* the deadline */
    char path[1200];
    fx(path, sizeof path, "h200/race.xml");
    assert_int_equal(sz_report_read_file_limited(path, 1 << 20, sz_now() - 1, &f, err, sizeof err), -1);
    assert_non_null(strstr(err, "time limit"));
    assert_int_equal(sz_report_read_file_limited(path, 1 << 20, sz_now() + 60, &f, err, sizeof err), 0);
    assert_int_equal(f.n_records, 100);
    sz_found_free(&f);
}

/* Records fold by kind, kernel and first location through a hash table:
 * counts stay right, and too many distinct detections is an error. */
static void test_report_folding(void **state)
{
    (void)state;
    int records = 50000, distinct = 97;
    char *doc = malloc((size_t)records * 200 + 100);
    size_t n = (size_t)sprintf(doc, "<ComputeSanitizerOutput>");
    for (int i = 0; i < records; i++)
        n += (size_t)sprintf(doc + n, "<record><kind>Precise</kind><what><text>Invalid __global__ "
                             "read</text></what><where><func>k</func><path>/a/k.cu</path><line>%d"
                             "</line></where></record>", 1 + i % distinct);
    n += (size_t)sprintf(doc + n, "</ComputeSanitizerOutput>");
    sz_found f;
    char err[300];
    assert_int_equal(sz_report_read_text(doc, n, 0, &f, err, sizeof err), 0);
    assert_int_equal(f.n, distinct);
    int total = 0;
    for (int j = 0; j < f.n; j++) {
        total += f.d[j].count;
        assert_int_equal(f.d[j].count, records / distinct + (f.d[j].locs[0].line <= records % distinct));
    }
    assert_int_equal(total, records);
    sz_found_free(&f);
    /* every record at its own line: more than SZ_MAX_DETECTIONS */
    n = (size_t)sprintf(doc, "<ComputeSanitizerOutput>");
    for (int i = 0; i < SZ_MAX_DETECTIONS + 1; i++)
        n += (size_t)sprintf(doc + n, "<record><kind>Precise</kind><where><func>k</func><path>k.cu"
                             "</path><line>%d</line></where></record>", i + 1);
    n += (size_t)sprintf(doc + n, "</ComputeSanitizerOutput>");
    assert_int_equal(sz_report_read_text(doc, n, 0, &f, err, sizeof err), -1);
    assert_non_null(strstr(err, "distinct detections"));
    free(doc);
}

/* A report file is read only if it is a regular file, not through a
 * symlink, and within the cap. */
static void test_report_file_refusals(void **state)
{
    (void)state;
    char dir[] = "/tmp/sz_files_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char real[1200], link[1200], fifo[1200], src[1200], err[600];
    fx(src, sizeof src, "h200/vectorAdd_memcheck.xml");
    snprintf(link, sizeof link, "%s/link.xml", dir);
    snprintf(fifo, sizeof fifo, "%s/fifo.xml", dir);
    snprintf(real, sizeof real, "%s", src);
    assert_int_equal(symlink(real, link), 0);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    sz_found f;
    assert_int_equal(sz_report_read_file(real, &f, err, sizeof err), 0);
    sz_found_free(&f);
    assert_int_equal(sz_report_read_file(link, &f, err, sizeof err), -1);
    assert_non_null(strstr(err, "symbolic link"));
    double t0 = sz_now();
    assert_int_equal(sz_report_read_file(fifo, &f, err, sizeof err), -1); /* does not block */
    assert_true(sz_now() - t0 < 1);
    assert_non_null(strstr(err, "regular file"));
    assert_int_equal(sz_report_read_file("/dev/zero", &f, err, sizeof err), -1);
    assert_int_equal(sz_report_read_file_limited(real, 10, 0, &f, err, sizeof err), -1);
    assert_non_null(strstr(err, "larger than 10"));
    unlink(link);
    unlink(fifo);
    rmdir(dir);
}

/* ---- hostile text ----------------------------------------------------- */

/* 1 if s (n bytes) is valid UTF-8. */
static int utf8_valid(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        unsigned c = p[i];
        size_t k = c < 0x80 ? 1 : (c >= 0xC2 && c <= 0xDF) ? 2 : (c >= 0xE0 && c <= 0xEF) ? 3
                 : (c >= 0xF0 && c <= 0xF4) ? 4 : 0;
        if (!k || i + k > n) return 0;
        for (size_t j = 1; j < k; j++)
            if ((p[i + j] & 0xC0) != 0x80) return 0;
        if (k == 3 && c == 0xE0 && p[i + 1] < 0xA0) return 0; /* overlong */
        if (k == 3 && c == 0xED && p[i + 1] >= 0xA0) return 0; /* surrogate */
        if (k == 4 && c == 0xF0 && p[i + 1] < 0x90) return 0;
        if (k == 4 && c == 0xF4 && p[i + 1] >= 0x90) return 0;
        i += k;
    }
    return 1;
}

/* 1 if s holds a C0 control other than newline, DEL, or a C1 control. */
static int has_controls(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n; i++) {
        if ((p[i] < 0x20 && p[i] != '\n') || p[i] == 0x7F) return 1;
        if (p[i] == 0xC2 && i + 1 < n && p[i + 1] >= 0x80 && p[i + 1] <= 0x9F) return 1;
    }
    return 0;
}

static const char hostile[] =
    "a\033[2Jb\033]0;owned\007c\t\n\r\177d\302\233e\233f\377g\300\257h\342\200\256i"
    "\xed\xa0\x80j\xf4\x90\x80\x80k\xc3\xa9l\xe2\x82";

static void test_clean_text(void **state)
{
    (void)state;
    char out[256];
    sz_clean_text(out, sizeof out, hostile);
    assert_true(utf8_valid(out, strlen(out)));
    assert_false(has_controls(out, strlen(out)));
    /* printable text and valid UTF-8 stay as they were */
    assert_non_null(strstr(out, "l"));
    assert_non_null(strstr(out, "k\xc3\xa9l"));
    assert_string_equal(out, "a?[2Jb?]0;owned?c   ?d?e?f?g??h?i???j????k\xc3\xa9l??");
    /* cut at a character boundary, never in the middle of one */
    char small[5];
    sz_clean_text(small, sizeof small, "abc\xc3\xa9");
    assert_string_equal(small, "abc");
    sz_clean_text(small, sizeof small, "ab\xc3\xa9");
    assert_string_equal(small, "ab\xc3\xa9");
    /* the writer keeps newlines only */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    sz_write_clean(f, hostile, sizeof hostile - 1);
    fclose(f);
    assert_true(utf8_valid(buf, len));
    assert_false(has_controls(buf, len));
    assert_non_null(strchr(buf, '\n'));
    free(buf);
}

/* Strings from a report are cleaned when read; every writer stays clean
 * and valid whatever a name, an argument or a message holds. */
static void test_hostile_strings(void **state)
{
    (void)state;
    char doc[2048];
    snprintf(doc, sizeof doc,
             "<ComputeSanitizerOutput><record><kind>Pre%scise</kind><what><text>Invalid "
             "__global__ read %s</text></what><where><func>k%s</func><path>/x/%s.cu</path>"
             "<line>9</line></where></record></ComputeSanitizerOutput>",
             "\033[2J", hostile, "\033[31m\177", "\033[1;1H\377");
    sz_result r;
    memset(&r, 0, sizeof r);
    char err[300];
    assert_int_equal(sz_report_read_text(doc, strlen(doc), 0, &r.found, err, sizeof err), 0);
    assert_int_equal(r.found.n, 1);
    const sz_detection *d = &r.found.d[0];
    const char *fields[] = {d->kind, d->raw_kind, d->text, d->kernel, d->locs[0].file,
                            d->locs[0].func};
    for (int i = 0; i < 6; i++) {
        assert_true(utf8_valid(fields[i], strlen(fields[i])));
        assert_false(has_controls(fields[i], strlen(fields[i])));
    }
    assert_int_equal(d->locs[0].line, 9);
    /* a result whose every string is hostile */
    snprintf(r.name, sizeof r.name, "n%s", hostile);
    snprintf(r.label, sizeof r.label, "l%s", hostile);
    snprintf(r.binary, sizeof r.binary, "b%s", hostile);
    snprintf(r.args, sizeof r.args, "a%s", hostile);
    snprintf(r.message, sizeof r.message, "m%s", hostile);
    snprintf(r.log_path, sizeof r.log_path, "p%s", hostile);
    r.tool = SZ_MEMCHECK;
    r.unexpected = calloc(1, sizeof(int));
    r.unexpected[0] = 1;
    r.verdict = SZ_UNEXPECTED;
    sz_meta m = {"2026-11-29T00:00:00Z", hostile, hostile, hostile, hostile, hostile, 1};
    for (int which = 0; which < 3; which++) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (which == 0) sz_write_table(f, &r, 1);
        else if (which == 1) assert_int_equal(sz_write_json(f, &r, 1, &m), 0);
        else assert_int_equal(sz_write_junit(f, &r, 1), 0);
        fclose(f);
        if (!utf8_valid(buf, len)) fail_msg("writer %d: invalid UTF-8", which);
        if (which != 1 && has_controls(buf, len)) fail_msg("writer %d: control characters", which);
        if (which == 1) {
            char e[300];
            if (!json_valid(buf, len, e, sizeof e)) fail_msg("JSON invalid: %s", e);
            for (size_t i = 0; i < len; i++) /* JSON escapes them all */
                if ((unsigned char)buf[i] < 0x20 && buf[i] != '\n') fail_msg("raw control in JSON");
        }
        if (which == 2) {
            char e[300];
            xml_node *root = xml_parse(buf, len, e, sizeof e);
            if (!root) fail_msg("JUnit not well-formed: %s", e);
            xml_free(root);
        }
        free(buf);
    }
    sz_result_free(&r);
}

/* ---- reading reports: real H200 captures ----------------------------- */

static const sz_detection *find_kind(const sz_found *f, const char *kind)
{
    for (int j = 0; j < f->n; j++)
        if (!strcmp(f->d[j].kind, kind)) return &f->d[j];
    return NULL;
}

static void check_real(const char *file, const char *kind, int line, const char *kernel,
                       int min_count)
{
    char path[1200], err[600];
    fx(path, sizeof path, file);
    sz_found f;
    if (sz_report_read_file(path, &f, err, sizeof err)) fail_msg("%s", err);
    const sz_detection *d = find_kind(&f, kind);
    if (!d) fail_msg("%s: no %s detection", file, kind);
    if (line) {
        char w[300];
        sz_detection_where(d, w, sizeof w);
        char want[64];
        snprintf(want, sizeof want, "probe.cu:%d", line);
        assert_string_equal(w, want);
        assert_string_equal(d->kernel, kernel);
        assert_true(d->has_thread && d->has_block);
    }
    assert_true(d->count >= min_count);
    sz_found_free(&f);
}

static void test_report_real_kinds(void **state)
{
    (void)state;
    check_real("h200/oob_read.xml", "oob-global-read", 8, "oob_read", 32);
    check_real("h200/oob_write.xml", "oob-global-write", 12, "oob_write", 32);
    check_real("h200/race.xml", "shared-race", 16, "shared_race", 100);
    check_real("h200/uninit.xml", "uninit-global-read", 20, "uninit_read", 64);
    check_real("h200/sync.xml", "barrier-error", 25, "divergent_barrier", 32);
    check_real("h200/leak.xml", "leak", 0, "", 1);
    /* the follow-on records of a faulting kernel are read too */
    check_real("h200/oob_read.xml", "api-error", 0, "", 3);
    check_real("h200/oob_read.xml", "leak", 0, "", 2);
}

static void test_report_real_details(void **state)
{
    (void)state;
    char path[1200], err[600];
    sz_found f;
    fx(path, sizeof path, "h200/oob_read.xml");
    assert_int_equal(sz_report_read_file(path, &f, err, sizeof err), 0);
    assert_int_equal(f.n_records, 37);
    const sz_detection *d = find_kind(&f, "oob-global-read");
    assert_int_equal(d->count, 32);
    assert_int_equal(d->thread[0], 64); /* the first faulting thread: 64 of 96 */
    assert_int_equal(d->block[0], 0);
    assert_string_equal(d->raw_kind, "Precise");
    assert_non_null(strstr(d->text, "Invalid __global__ read"));
    /* device location first; host frames have no lines here */
    assert_false(d->locs[0].host);
    assert_string_equal(d->locs[0].file, "/work/main/.carry/probe/probe.cu");
    sz_found_free(&f);
    /* a race has both ends */
    fx(path, sizeof path, "h200/race.xml");
    assert_int_equal(sz_report_read_file(path, &f, err, sizeof err), 0);
    d = find_kind(&f, "shared-race");
    int has16 = 0, has17 = 0;
    for (int i = 0; i < d->n_locs; i++) {
        has16 |= d->locs[i].line == 16;
        has17 |= d->locs[i].line == 17;
    }
    assert_true(has16 && has17);
    sz_found_free(&f);
    /* clean reports: a root and no records */
    const char *tools[4] = {"memcheck", "racecheck", "initcheck", "synccheck"};
    for (int t = 0; t < 4; t++) {
        char name[64];
        snprintf(name, sizeof name, "h200/vectorAdd_%s.xml", tools[t]);
        fx(path, sizeof path, name);
        assert_int_equal(sz_report_read_file(path, &f, err, sizeof err), 0);
        assert_int_equal(f.n_records, 0);
        assert_int_equal(f.n, 0);
        sz_found_free(&f);
    }
}

/* A record with its locations only in the text (the shape of a racecheck
 * analysis summary): the FILE:LINE tokens become locations. */
static void test_report_text_locations(void **state)
{
    (void)state;
    const char *doc =
        "<ComputeSanitizerOutput><record><kind>Analysis</kind><what><text>Race reported between "
        "Write access at k+0x90 in /x/shared_race.cu:12 and Read access at k+0xb0 in "
        "shared_race.cu:13 [64 hazards]</text></what></record></ComputeSanitizerOutput>";
    char err[300];
    xml_node *r = xml_parse(doc, strlen(doc), err, sizeof err);
    assert_non_null(r);
    sz_found f;
    assert_int_equal(sz_report_read(r, &f, err, sizeof err), 0);
    assert_int_equal(f.n, 1);
    assert_string_equal(f.d[0].kind, "shared-race");
    assert_int_equal(f.d[0].n_locs, 2);
    assert_string_equal(f.d[0].locs[0].file, "/x/shared_race.cu");
    assert_int_equal(f.d[0].locs[0].line, 12);
    assert_string_equal(f.d[0].locs[1].file, "shared_race.cu");
    assert_int_equal(f.d[0].locs[1].line, 13);
    sz_expected e = {"shared-race", "shared_race.cu", 13};
    assert_true(sz_matches(&e, &f.d[0]));
    sz_found_free(&f);
    xml_free(r);
}

static void test_report_malformed_files(void **state)
{
    (void)state;
    const char *files[] = {"malformed_mismatched.xml", "malformed_truncated.xml",
                           "malformed_wrong_root.xml", "malformed_empty.xml",
                           "does_not_exist.xml"};
    const char *says[] = {"does not match", "truncated", "ComputeSanitizerOutput", "empty",
                          "cannot open"};
    for (int i = 0; i < 5; i++) {
        char path[1200], err[600] = "";
        fx(path, sizeof path, files[i]);
        sz_found f;
        assert_int_equal(sz_report_read_file(path, &f, err, sizeof err), -1);
        if (!strstr(err, says[i])) fail_msg("%s: message '%s' lacks '%s'", files[i], err, says[i]);
        assert_non_null(strstr(err, files[i])); /* names the file */
        assert_int_equal(f.n, 0);
    }
}

/* ---- expectations ---------------------------------------------------- */

static const char *expect_text =
    "# two binaries, as an 8_Debugging case declares them\n"
    "run: bin/case_buggy --quick --n=\"1 2\"\n"
    "tools: memcheck, racecheck\n"
    "timeout: 30\n"
    "memcheck: detect oob-global-read at case.cu:42\n"
    "memcheck: detect leak   # by kind only\n"
    "memcheck: allow api-error\n"
    "racecheck: clean\n"
    "\n"
    "run: bin/case_fixed\n"
    "name: fixed\n";

static void test_expect_parse(void **state)
{
    (void)state;
    sz_expect_file f;
    char err[400];
    assert_int_equal(sz_expect_parse(expect_text, "case", "8_Debugging/case", "x.expect", &f,
                                     err, sizeof err), 0);
    assert_int_equal(f.n, 2);
    const sz_run_spec *a = &f.runs[0], *b = &f.runs[1];
    assert_string_equal(a->binary, "bin/case_buggy");
    assert_string_equal(a->args, "--quick --n=\"1 2\"");
    assert_string_equal(a->name, "case_buggy");
    assert_string_equal(a->folder, "8_Debugging/case");
    assert_int_equal(a->timeout_s, 30);
    assert_true(a->tool[SZ_MEMCHECK].enabled && a->tool[SZ_RACECHECK].enabled);
    assert_false(a->tool[SZ_INITCHECK].enabled || a->tool[SZ_SYNCCHECK].enabled);
    assert_int_equal(a->tool[SZ_MEMCHECK].detect, 1);
    assert_int_equal(a->tool[SZ_MEMCHECK].n, 2);
    assert_string_equal(a->tool[SZ_MEMCHECK].e[0].kind, "oob-global-read");
    assert_string_equal(a->tool[SZ_MEMCHECK].e[0].file, "case.cu");
    assert_int_equal(a->tool[SZ_MEMCHECK].e[0].line, 42);
    assert_int_equal(a->tool[SZ_MEMCHECK].e[1].line, 0);
    assert_int_equal(a->tool[SZ_MEMCHECK].n_allow, 1);
    assert_int_equal(a->tool[SZ_RACECHECK].detect, 0);
    assert_string_equal(b->name, "fixed");
    assert_string_equal(b->args, "");
    for (int t = 0; t < SZ_N_TOOLS; t++) {
        assert_true(b->tool[t].enabled);
        assert_int_equal(b->tool[t].detect, 0);
    }
    sz_expect_free(&f);

    /* no run: line: tool lines describe bin/<folder> --quick */
    assert_int_equal(sz_expect_parse("racecheck: detect shared-race at k.cu:7\n", "smp",
                                     "0_Simple/smp", "y", &f, err, sizeof err), 0);
    assert_int_equal(f.n, 1);
    assert_string_equal(f.runs[0].binary, "bin/smp");
    assert_string_equal(f.runs[0].args, "--quick");
    assert_int_equal(f.runs[0].tool[SZ_RACECHECK].detect, 1);
    assert_int_equal(f.runs[0].tool[SZ_MEMCHECK].detect, 0);
    assert_int_equal(f.runs[0].gpus, 1);   /* the default */
    sz_expect_free(&f);

    /* gpus: a multi-GPU program's run, before or after its run: line */
    assert_int_equal(sz_expect_parse("gpus: 2\nmemcheck: clean\n", "p2p", "1_Utilities/p2p", "g",
                                     &f, err, sizeof err), 0);
    assert_int_equal(f.n, 1);
    assert_int_equal(f.runs[0].gpus, 2);
    assert_string_equal(f.runs[0].binary, "bin/p2p");
    sz_expect_free(&f);
    assert_int_equal(sz_expect_parse("run: bin/a --quick\ngpus: 8\nrun: bin/b\n", "a", "", "g",
                                     &f, err, sizeof err), 0);
    assert_int_equal(f.n, 2);
    assert_int_equal(f.runs[0].gpus, 8);
    assert_int_equal(f.runs[1].gpus, 1);
    sz_expect_free(&f);
    /* once per run: each run may say it */
    assert_int_equal(sz_expect_parse("run: bin/a\ngpus: 2\nrun: bin/b\ngpus: 64\n", "a", "", "g",
                                     &f, err, sizeof err), 0);
    assert_int_equal(f.runs[0].gpus, 2);
    assert_int_equal(f.runs[1].gpus, 64);
    sz_expect_free(&f);

    /* an empty or missing file: the default */
    assert_int_equal(sz_expect_parse("# nothing\n", "smp", "", "z", &f, err, sizeof err), 0);
    assert_int_equal(f.n, 1);
    sz_expect_free(&f);
    assert_int_equal(sz_expect_load("/nonexistent/sanitize.expect", "vectorAdd", "0_Simple/vectorAdd",
                                    &f, err, sizeof err), 0);
    assert_string_equal(f.runs[0].binary, "bin/vectorAdd");
    assert_string_equal(f.runs[0].args, "--quick");
    sz_expect_free(&f);
}

static void test_expect_errors(void **state)
{
    (void)state;
    struct { const char *text, *says; } bad[] = {
        {"memcheck: dirty\n", "x.expect:1:"},
        {"\n\nmemcheck: detect\n", "x.expect:3: 'detect' needs"},
        {"memcheck: detect oob-everywhere at a.cu:3\n", "unknown record kind"},
        {"memcheck: detect leak at a.cu\n", "not FILE:LINE"},
        {"memcheck: detect leak at a.cu:x\n", "not a line number"},
        {"memcheck: detect leak at a.cu:0\n", "not a line number"},
        {"memcheck: detect leak near a.cu:3\n", "expected 'at FILE:LINE'"},
        {"memcheck: clean\nmemcheck: detect leak\n", "both clean and detect"},
        {"memcheck: clean\nmemcheck: clean\n", "declared twice"},
        {"asan: clean\n", "unknown key 'asan'"},
        {"tools: memcheck, asan\n", "unknown tool 'asan'"},
        {"timeout: -1\n", "timeout"},
        {"run:\n", "needs a binary"},
        {"run: bin/x --a=\"unterminated\n", "unterminated"},
        {"just words\n", "expected 'key: value'"},
        {"memcheck: allow nonsense\n", "after 'allow'"},
        {"gpus: 0\n", "'gpus:' needs a number of GPUs"},
        {"gpus: 65\n", "'gpus:' needs a number of GPUs"},
        {"gpus: two\n", "'gpus:' needs a number of GPUs"},
        {"gpus:\n", "'gpus:' needs a number of GPUs"},
        {"gpus: +2\n", "'gpus:' needs a number of GPUs"},
        {"gpus: -1\n", "'gpus:' needs a number of GPUs"},
        {"gpus: 2 3\n", "'gpus:' needs a number of GPUs"},
        {"gpus: 99999999999999999999\n", "'gpus:' needs a number of GPUs"},
        {"gpus: 2\nmemcheck: clean\ngpus: 2\n", "'gpus:' is declared twice"},
        {"run: bin/a\ngpus: 2\ngpus: 3\n", "'gpus:' is declared twice"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sz_expect_file f;
        char err[400] = "";
        if (sz_expect_parse(bad[i].text, "x", "", "x.expect", &f, err, sizeof err) != -1)
            fail_msg("accepted: %s", bad[i].text);
        if (!strstr(err, bad[i].says)) fail_msg("'%s' -> '%s' lacks '%s'", bad[i].text, err, bad[i].says);
    }
}

/* ---- verdicts -------------------------------------------------------- */

static sz_verdict judge_file(const char *file, const char *expect_line, int *n_missed,
                             int *n_unexpected)
{
    sz_expect_file e;
    char err[400], path[1200];
    if (sz_expect_parse(expect_line, "probe", "", "t", &e, err, sizeof err)) fail_msg("%s", err);
    int tool = -1;
    for (int t = 0; t < SZ_N_TOOLS; t++)
        if (strstr(expect_line, sz_tool_name(t))) tool = t;
    if (tool < 0) tool = SZ_MEMCHECK;
    fx(path, sizeof path, file);
    sz_found f;
    if (sz_report_read_file(path, &f, err, sizeof err)) fail_msg("%s", err);
    int missed[SZ_MAX_EXPECT], *unexp = calloc((size_t)f.n + 1, sizeof(int));
    sz_verdict v = sz_judge(&e.runs[0].tool[tool], &f, missed, unexp);
    *n_missed = *n_unexpected = 0;
    for (int i = 0; i < SZ_MAX_EXPECT; i++) *n_missed += missed[i];
    for (int j = 0; j < f.n; j++) *n_unexpected += unexp[j];
    free(unexp);
    sz_found_free(&f);
    sz_expect_free(&e);
    return v;
}

static void test_judge(void **state)
{
    (void)state;
    int m, u;
    /* clean and declared clean */
    assert_int_equal(judge_file("h200/vectorAdd_racecheck.xml", "racecheck: clean\n", &m, &u), SZ_CLEAN);
    /* found, declared clean */
    assert_int_equal(judge_file("h200/race.xml", "racecheck: clean\n", &m, &u), SZ_UNEXPECTED);
    assert_int_equal(u, 1);
    /* declared where it is: either end of the race names it */
    assert_int_equal(judge_file("h200/race.xml", "racecheck: detect shared-race at probe.cu:17\n",
                                &m, &u), SZ_DETECTED);
    assert_int_equal(judge_file("h200/race.xml", "racecheck: detect shared-race at probe.cu:16\n",
                                &m, &u), SZ_DETECTED);
    assert_int_equal(judge_file("h200/sync.xml", "synccheck: detect barrier-error at probe.cu:25\n",
                                &m, &u), SZ_DETECTED);
    assert_int_equal(judge_file("h200/uninit.xml",
                                "initcheck: detect uninit-global-read at probe/probe.cu:20\n", &m, &u),
                     SZ_DETECTED);
    /* the wrong line: MISSED, and what was found is UNEXPECTED */
    assert_int_equal(judge_file("h200/sync.xml", "synccheck: detect barrier-error at probe.cu:24\n",
                                &m, &u), SZ_MISSED);
    assert_int_equal(m, 1);
    assert_int_equal(u, 1);
    /* the wrong file, the wrong kind */
    assert_int_equal(judge_file("h200/sync.xml", "synccheck: detect barrier-error at other.cu:25\n",
                                &m, &u), SZ_MISSED);
    assert_int_equal(judge_file("h200/uninit.xml", "initcheck: detect leak\n", &m, &u), SZ_MISSED);
    /* declared buggy, but the program is clean */
    assert_int_equal(judge_file("h200/vectorAdd_memcheck.xml",
                                "memcheck: detect oob-global-read at vectorAdd.cu:40\n", &m, &u),
                     SZ_MISSED);
    /* a faulting kernel's follow-on records: UNEXPECTED unless allowed */
    assert_int_equal(judge_file("h200/oob_read.xml", "memcheck: detect oob-global-read at probe.cu:8\n",
                                &m, &u), SZ_UNEXPECTED);
    assert_int_equal(u, 2); /* api-error, leak */
    assert_int_equal(judge_file("h200/oob_read.xml",
                                "memcheck: detect oob-global-read at probe.cu:8\n"
                                "memcheck: allow api-error\nmemcheck: allow leak\n", &m, &u),
                     SZ_DETECTED);
    /* a leak by kind, with no location in the record */
    assert_int_equal(judge_file("h200/leak.xml", "memcheck: detect leak\n", &m, &u), SZ_DETECTED);
    assert_int_equal(judge_file("h200/leak.xml", "memcheck: detect leak at probe.cu:39\n", &m, &u),
                     SZ_MISSED);
}

static void test_same_file(void **state)
{
    (void)state;
    assert_true(sz_same_file("/a/b/probe.cu", "probe.cu"));
    assert_true(sz_same_file("/a/b/probe.cu", "b/probe.cu"));
    assert_true(sz_same_file("probe.cu", "x/probe.cu")); /* report with stripped paths */
    assert_false(sz_same_file("/a/b/xprobe.cu", "probe.cu"));
    assert_false(sz_same_file("/a/c/probe.cu", "b/probe.cu"));
    assert_true(sz_same_file("/a/b/probe.cu", ""));
}

static void fill_result(sz_result *r, const char *xml_name, const char *expect_line, int tool)
{
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "probe");
    snprintf(r->label, sizeof r->label, "probe");
    snprintf(r->binary, sizeof r->binary, "bin/probe");
    r->tool = tool;
    if (xml_name) fx(r->xml_path, sizeof r->xml_path, xml_name);
    snprintf(r->log_path, sizeof r->log_path, "probe.log");
    sz_expect_file e;
    char err[300];
    if (sz_expect_parse(expect_line, "probe", "", "t", &e, err, sizeof err)) fail_msg("%s", err);
    r->expect = e.runs[0].tool[tool];
    sz_expect_free(&e);
}

static void test_evaluate(void **state)
{
    (void)state;
    sz_result r;
    fill_result(&r, "h200/vectorAdd_memcheck.xml", "", SZ_MEMCHECK);
    sz_evaluate(&r, 0, 0, 60);
    assert_int_equal(r.verdict, SZ_CLEAN);
    sz_result_free(&r);
    fill_result(&r, "h200/sync.xml", "synccheck: detect barrier-error at probe.cu:25\n", SZ_SYNCCHECK);
    sz_evaluate(&r, SZ_ERROR_EXITCODE, 0, 60);
    assert_int_equal(r.verdict, SZ_DETECTED);
    sz_result_free(&r);
    /* timeout */
    fill_result(&r, "h200/sync.xml", "", SZ_SYNCCHECK);
    sz_evaluate(&r, -1, 1, 60);
    assert_int_equal(r.verdict, SZ_ERROR);
    assert_non_null(strstr(r.message, "timed out after 60 s"));
    sz_result_free(&r);
    /* the tool failed and wrote nothing */
    fill_result(&r, "nothing_here.xml", "", SZ_MEMCHECK);
    sz_evaluate(&r, 255, 0, 60);
    assert_int_equal(r.verdict, SZ_ERROR);
    assert_non_null(strstr(r.message, "exited 255"));
    sz_result_free(&r);
    /* no report, exit 0 (a stand-in that checked nothing, e.g. /bin/true):
     * ERROR, never CLEAN */
    fill_result(&r, "nothing_here.xml", "", SZ_MEMCHECK);
    sz_evaluate(&r, 0, 0, 60);
    assert_int_equal(r.verdict, SZ_ERROR);
    assert_non_null(strstr(r.message, "no XML report"));
    sz_result_free(&r);
    /* an empty file is no report either */
    fill_result(&r, "malformed_empty.xml", "", SZ_MEMCHECK);
    sz_evaluate(&r, 0, 0, 60);
    assert_int_equal(r.verdict, SZ_ERROR);
    sz_result_free(&r);
    /* a report over the cap is not read */
    fill_result(&r, "h200/race.xml", "racecheck: detect shared-race at probe.cu:17\n", SZ_RACECHECK);
    r.max_report = 100000; /* race.xml is 225439 bytes */
    sz_evaluate(&r, SZ_ERROR_EXITCODE, 0, 60);
    assert_int_equal(r.verdict, SZ_ERROR);
    assert_non_null(strstr(r.message, "larger than 100000"));
    sz_result_free(&r);
    /* reading counts against the run's time limit */
    fill_result(&r, "h200/race.xml", "racecheck: detect shared-race at probe.cu:17\n", SZ_RACECHECK);
    r.deadline = sz_now() - 1;
    sz_evaluate(&r, SZ_ERROR_EXITCODE, 0, 60);
    assert_int_equal(r.verdict, SZ_ERROR);
    assert_non_null(strstr(r.message, "time limit"));
    sz_result_free(&r);
    /* a broken report */
    fill_result(&r, "malformed_truncated.xml", "", SZ_MEMCHECK);
    sz_evaluate(&r, SZ_ERROR_EXITCODE, 0, 60);
    assert_int_equal(r.verdict, SZ_ERROR);
    assert_non_null(strstr(r.message, "unreadable report"));
    sz_result_free(&r);
    /* errors by exit code, none in the report */
    fill_result(&r, "h200/vectorAdd_memcheck.xml", "", SZ_MEMCHECK);
    sz_evaluate(&r, SZ_ERROR_EXITCODE, 0, 60);
    assert_int_equal(r.verdict, SZ_ERROR);
    sz_result_free(&r);
    /* a clean report but the program failed */
    fill_result(&r, "h200/vectorAdd_memcheck.xml", "", SZ_MEMCHECK);
    sz_evaluate(&r, 1, 0, 60);
    assert_int_equal(r.verdict, SZ_ERROR);
    sz_result_free(&r);
    /* WAIVED under the tool */
    fill_result(&r, "h200/vectorAdd_memcheck.xml", "", SZ_MEMCHECK);
    sz_evaluate(&r, 2, 0, 60);
    assert_int_equal(r.verdict, SZ_ERROR);
    assert_non_null(strstr(r.message, "WAIVED"));
    sz_result_free(&r);
}

/* ---- writers ---------------------------------------------------------- */

static void make_results(sz_result *r)
{
    fill_result(&r[0], "h200/vectorAdd_racecheck.xml", "", SZ_RACECHECK);
    sz_evaluate(&r[0], 0, 0, 60);
    fill_result(&r[1], "h200/race.xml", "racecheck: detect shared-race at probe.cu:17\n", SZ_RACECHECK);
    sz_evaluate(&r[1], SZ_ERROR_EXITCODE, 0, 60);
    fill_result(&r[2], "h200/sync.xml", "synccheck: detect barrier-error at probe.cu:24\n", SZ_SYNCCHECK);
    sz_evaluate(&r[2], SZ_ERROR_EXITCODE, 0, 60);
    fill_result(&r[3], "h200/uninit.xml", "", SZ_INITCHECK);
    sz_evaluate(&r[3], SZ_ERROR_EXITCODE, 0, 60);
    fill_result(&r[4], "nothing.xml", "", SZ_MEMCHECK);
    sz_evaluate(&r[4], -1, 1, 5);
    snprintf(r[4].name, sizeof r[4].name, "we<ird>&\"name\"");
    snprintf(r[4].label, sizeof r[4].label, "we<ird>&\"name\"");
}

static char *capture(int which, sz_result *r, int n, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    sz_meta m = {"2026-11-29T00:00:00Z", "abc123", "/usr/local/cuda/bin/compute-sanitizer",
                 "Version 2025.3.1.0", "bin/sanitize --tool=\"racecheck\"", "pid and network namespaces", 2};
    if (which == 0) sz_write_table(f, r, n);
    else if (which == 1) assert_int_equal(sz_write_json(f, r, n, &m), 0);
    else assert_int_equal(sz_write_junit(f, r, n), 0);
    fclose(f);
    return buf;
}

static void test_writers(void **state)
{
    (void)state;
    sz_result r[5];
    make_results(r);
    assert_int_equal(r[0].verdict, SZ_CLEAN);
    assert_int_equal(r[1].verdict, SZ_DETECTED);
    assert_int_equal(r[2].verdict, SZ_MISSED);
    assert_int_equal(r[3].verdict, SZ_UNEXPECTED);
    assert_int_equal(r[4].verdict, SZ_ERROR);
    int c[SZ_N_VERDICTS];
    assert_int_equal(sz_count(r, 5, c), 3);

    size_t len;
    char *t = capture(0, r, 5, &len);
    assert_non_null(strstr(t, "CLEAN"));
    assert_non_null(strstr(t, "MISSED     barrier-error at probe.cu:24"));
    assert_non_null(strstr(t, "UNEXPECTED barrier-error at probe.cu:25"));
    assert_non_null(strstr(t, "UNEXPECTED uninit-global-read at probe.cu:20"));
    assert_non_null(strstr(t, "1 CLEAN, 1 DETECTED, 1 MISSED, 1 UNEXPECTED, 1 ERROR -> FAIL"));
    free(t);

    char *j = capture(1, r, 5, &len);
    char err[300];
    if (!json_valid(j, len, err, sizeof err)) fail_msg("JSON invalid: %s", err);
    assert_non_null(strstr(j, "\"MISSED\":1"));
    assert_non_null(strstr(j, "\"status\":\"FAIL\""));
    assert_non_null(strstr(j, "\"line\":24,\"found\":false"));
    assert_non_null(strstr(j, "\"thread\":[33,0,0]"));
    free(j);

    char *x = capture(2, r, 5, &len);
    xml_node *root = xml_parse(x, len, err, sizeof err);
    if (!root) fail_msg("JUnit not well-formed: %s", err);
    assert_string_equal(root->name, "testsuites");
    assert_string_equal(xml_attr_get(root, "tests"), "5");
    assert_string_equal(xml_attr_get(root, "failures"), "2");
    assert_string_equal(xml_attr_get(root, "errors"), "1");
    const xml_node *suite = xml_child(root, "testsuite");
    assert_int_equal(suite->n_kids, 5);
    assert_non_null(xml_child(suite->kids[2], "failure"));
    assert_non_null(xml_child(suite->kids[4], "error"));
    assert_null(xml_child(suite->kids[0], "failure"));
    assert_string_equal(xml_attr_get(suite->kids[4], "classname"), "sanitize.we<ird>&\"name\"");
    xml_free(root);
    free(x);
    for (int i = 0; i < 5; i++) sz_result_free(&r[i]);
}

/* A run that needs more GPUs than are visible: SKIPPED, not a failure. */
static void test_writers_skipped(void **state)
{
    (void)state;
    sz_result r[2];
    fill_result(&r[0], "h200/vectorAdd_racecheck.xml", "", SZ_RACECHECK);
    sz_evaluate(&r[0], 0, 0, 60);
    memset(&r[1], 0, sizeof r[1]);
    snprintf(r[1].name, sizeof r[1].name, "p2pBandwidthLatencyTest");
    snprintf(r[1].label, sizeof r[1].label, "p2pBandwidthLatencyTest");
    r[1].tool = SZ_MEMCHECK;
    r[1].gpus = 2;
    r[1].verdict = SZ_SKIPPED;
    r[1].exit_code = -1;
    snprintf(r[1].message, sizeof r[1].message, "needs 2 GPUs; 1 visible");
    assert_string_equal(sz_verdict_name(SZ_SKIPPED), "SKIPPED");
    int c[SZ_N_VERDICTS];
    assert_int_equal(sz_count(r, 2, c), 0);
    assert_int_equal(c[SZ_SKIPPED], 1);

    size_t len;
    char *t = capture(0, r, 2, &len);
    assert_non_null(strstr(t, "1 CLEAN, 0 DETECTED, 0 MISSED, 0 UNEXPECTED, 0 ERROR, 1 SKIPPED -> PASS"));
    assert_non_null(strstr(t, "p2pBandwidthLatencyTest under memcheck: SKIPPED: needs 2 GPUs; 1 visible"));
    /* the row: no detections column for a run that did not run */
    assert_non_null(strstr(t, "SKIPPED         0.0  \n"));
    free(t);
    char *j = capture(1, r, 2, &len);
    char err[300];
    if (!json_valid(j, len, err, sizeof err)) fail_msg("JSON invalid: %s", err);
    assert_non_null(strstr(j, "\"SKIPPED\":1,\"status\":\"PASS\""));
    assert_non_null(strstr(j, "\"verdict\":\"SKIPPED\",\"gpus\":2,"));
    assert_non_null(strstr(j, "\"verdict\":\"CLEAN\",\"gpus\":1,"));
    free(j);
    char *x = capture(2, r, 2, &len);
    xml_node *root = xml_parse(x, len, err, sizeof err);
    if (!root) fail_msg("JUnit not well-formed: %s", err);
    assert_string_equal(xml_attr_get(root, "failures"), "0");
    assert_string_equal(xml_attr_get(root, "errors"), "0");
    const xml_node *suite = xml_child(root, "testsuite");
    assert_string_equal(xml_attr_get(suite, "skipped"), "1");
    const xml_node *sk = xml_child(suite->kids[1], "skipped");
    assert_non_null(sk);
    assert_string_equal(xml_attr_get(sk, "message"), "needs 2 GPUs; 1 visible");
    assert_null(xml_child(suite->kids[1], "failure"));
    assert_null(xml_child(suite->kids[1], "error"));
    assert_null(xml_child(suite->kids[0], "skipped"));
    xml_free(root);
    free(x);
    for (int i = 0; i < 2; i++) sz_result_free(&r[i]);
}

/* ---- processes -------------------------------------------------------- */

static void test_split_args(void **state)
{
    (void)state;
    char *argv[16], err[200];
    int n = sz_split_args("  --quick --n=\"1 2\" 'a b'\\ c x\\\"y  ", argv, 16, err, sizeof err);
    assert_int_equal(n, 4);
    assert_string_equal(argv[0], "--quick");
    assert_string_equal(argv[1], "--n=1 2");
    assert_string_equal(argv[2], "a b c");
    assert_string_equal(argv[3], "x\"y");
    assert_null(argv[4]);
    sz_free_args(argv, n);
    assert_int_equal(sz_split_args("", argv, 16, err, sizeof err), 0);
    assert_int_equal(sz_split_args("a \"b", argv, 16, err, sizeof err), -1);
    assert_non_null(strstr(err, "unterminated"));
    assert_int_equal(sz_split_args("1 2 3 4", argv, 4, err, sizeof err), -1);
}

static int run_to_end(char *const argv[], double timeout, int *timed_out, double *secs)
{
    sz_proc p;
    int fd = open("/dev/null", O_WRONLY);
    assert_int_equal(sz_proc_start(&p, argv, NULL, fd, 1 << 20, "SZ_TEST_VAR", "7", timeout), 0);
    int code;
    while (!sz_proc_poll(&p, &code, timed_out)) usleep(10000);
    *secs = sz_now() - p.start;
    sz_proc_close(&p);
    close(fd);
    return code;
}

/* The pids whose argv[0] starts with token (from /proc), how many. */
static int procs_with(const char *token)
{
    int n = 0;
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        char path[300], buf[256] = "";
        snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
        FILE *f = fopen(path, "rb");
        if (!f) continue;
        size_t k = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[k] = '\0';
        if (!strncmp(buf, token, strlen(token))) n++;
    }
    if (d) closedir(d);
    return n;
}

static int none_left(const char *token, double seconds)
{
    double end = sz_now() + seconds;
    while (procs_with(token)) {
        if (sz_now() > end) return 0;
        usleep(20000);
    }
    return 1;
}

static void test_proc_modes(sz_contain mode)
{
    char why[300];
    int got = sz_contain_init(mode, why, sizeof why);
    if (mode == SZ_CONTAIN_PIDNS && got < 0) {
        print_message("skipped: %s\n", why);
        return;
    }
    assert_int_equal(got, mode);
    int to;
    double s;
    char *ok[] = {"sh", "-c", "test \"$SZ_TEST_VAR\" = 7 && exit 3", NULL};
    assert_int_equal(run_to_end(ok, 10, &to, &s), 3);
    assert_false(to);
    /* a child that leaves a grandchild: everything is killed at the limit */
    char *slow[] = {"sh", "-c", "sleep 30 & sleep 30; exit 0", NULL};
    assert_int_equal(run_to_end(slow, 0.3, &to, &s), -1);
    assert_true(to);
    assert_true(s < 5);
    char *missing[] = {"/nonexistent/program", NULL};
    assert_int_equal(run_to_end(missing, 10, &to, &s), 127);
    /* a setsid grandchild (its own session and process group) outlives
     * neither a run that ends nor one that times out */
    char tok[64], script[300];
    for (int timeout = 0; timeout < 2; timeout++) {
        snprintf(tok, sizeof tok, "sz-unit-%d-%d-%d", (int)mode, timeout, (int)getpid());
        snprintf(script, sizeof script,
                 "setsid bash -c 'exec -a %s-orphan sleep 300' </dev/null >/dev/null 2>&1 & "
                 "bash -c 'exec -a %s-child sleep 300' & sleep 0.3; %s",
                 tok, tok, timeout ? "sleep 300" : "exit 0");
        char *orphan[] = {"bash", "-c", script, NULL};
        int code = run_to_end(orphan, timeout ? 1.0 : 20, &to, &s);
        assert_int_equal(to, timeout);
        if (!timeout) assert_int_equal(code, 0);
        if (!none_left(tok, 3)) fail_msg("%s: a descendant outlived its run (mode %d)", tok, (int)mode);
    }
    /* the output: captured, capped, the rest counted */
    char out[64];
    char *echo[] = {"sh", "-c", "echo hello; echo there >&2; exit 5", NULL};
    assert_int_equal(sz_capture(echo, NULL, 10, out, sizeof out), 5);
    assert_non_null(strstr(out, "hello"));
    assert_non_null(strstr(out, "there"));
    char *flood[] = {"sh", "-c", "head -c 1000000 /dev/zero", NULL};
    sz_proc p;
    int fd = open("/dev/null", O_WRONLY), code;
    assert_int_equal(sz_proc_start(&p, flood, NULL, fd, 1000, NULL, NULL, 20), 0);
    while (!sz_proc_poll(&p, &code, &to)) usleep(5000);
    assert_int_equal(code, 0);
    assert_int_equal(p.log_bytes, 1000);
    assert_int_equal(p.log_dropped, 1000000 - 1000);
    sz_proc_close(&p);
    /* the network: with --contain=pidns a run has a network namespace of its
     * own (compute-sanitizer's rendezvous is over abstract Unix sockets,
     * which belong to it: two runs at once cannot reach each other's), with
     * lo up, so TCP on 127.0.0.1 still works (NCCL's bootstrap uses it);
     * a subreaper's run shares the harness's */
    char mine[64] = "", theirs[256];
    ssize_t nk = readlink("/proc/self/ns/net", mine, sizeof mine - 1);
    assert_true(nk > 0);
    mine[nk] = '\0';
    char *netns[] = {"readlink", "/proc/self/ns/net", NULL};
    assert_int_equal(sz_capture(netns, NULL, 10, theirs, sizeof theirs), 0);
    theirs[strcspn(theirs, "\n")] = '\0';
    if (mode == SZ_CONTAIN_PIDNS && !strcmp(why, "pid and network namespaces")) {
        assert_non_null(strstr(theirs, "net:["));
        if (!strcmp(theirs, mine)) fail_msg("the run shares the harness's network namespace %s", mine);
        char *ifs[] = {"sh", "-c", "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '", NULL};
        assert_int_equal(sz_capture(ifs, NULL, 10, out, sizeof out), 0);
        assert_string_equal(out, "lo\n");
        char *tcp[] = {"python3", "-c",
                       "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(1); "
                       "c = socket.create_connection(s.getsockname(), 2); a, _ = s.accept(); "
                       "c.sendall(b'up'); print('tcp on lo: ' + a.recv(2).decode())", NULL};
        char got[512];
        int rc = sz_capture(tcp, NULL, 20, got, sizeof got);
        if (rc == 127) print_message("skipped: no python3 for the check of lo\n");
        else if (rc != 0 || strcmp(got, "tcp on lo: up\n")) fail_msg("TCP on 127.0.0.1 in a run: exit %d: %s", rc, got);
    } else {
        if (mode == SZ_CONTAIN_PIDNS) print_message("no network namespace per run here: %s\n", why);
        else assert_string_equal(theirs, mine);
    }
    /* a watched file that grows past its cap stops the run */
    char grow_path[] = "/tmp/sz_grow_XXXXXX";
    int gfd = mkstemp(grow_path);
    assert_true(gfd >= 0);
    close(gfd);
    char grow[400];
    snprintf(grow, sizeof grow, "while :; do head -c 10000 /dev/zero >> %s; sleep 0.01; done",
             grow_path);
    char *grower[] = {"sh", "-c", grow, NULL};
    double t0 = sz_now();
    assert_int_equal(sz_proc_start(&p, grower, NULL, fd, 1000, NULL, NULL, 60), 0);
    sz_proc_watch(&p, grow_path, 100000);
    while (!sz_proc_poll(&p, &code, &to)) usleep(5000);
    assert_true(p.watch_over);
    assert_false(to);
    assert_true(sz_now() - t0 < 10);
    sz_proc_close(&p);
    unlink(grow_path);
    /* output that says the run cannot go on (main.c: compute-sanitizer
     * could not attach) stops it at once, with everything it started, even
     * when the line comes in two writes, or after a flood past the log's cap */
    static const char *const needles[] = {"No attachable process found", NULL};
    const char *scripts[] = {
        "setsid bash -c 'exec -a %s-orphan sleep 300' </dev/null >/dev/null 2>&1 & "
        "printf 'x No attach'; sleep 0.3; printf 'able process found.\n'; exec -a %s-tool sleep 300",
        "setsid bash -c 'exec -a %s-orphan sleep 300' </dev/null >/dev/null 2>&1 & "
        "head -c 200000 /dev/zero; echo No attachable process found; exec -a %s-tool sleep 300",
    };
    for (int k = 0; k < 2; k++) {
        snprintf(tok, sizeof tok, "sz-unit-stop-%d-%d-%d", (int)mode, k, (int)getpid());
        assert_true(snprintf(script, sizeof script, scripts[k], tok, tok) < (int)sizeof script);
        char *stop[] = {"bash", "-c", script, NULL};
        t0 = sz_now();
        assert_int_equal(sz_proc_start(&p, stop, NULL, fd, 1000, NULL, NULL, 60), 0);
        sz_proc_stop_on(&p, needles);
        while (!sz_proc_poll(&p, &code, &to)) usleep(5000);
        if (p.stop_hit != needles[0]) fail_msg("script %d: the line was not seen", k);
        assert_int_equal(code, -1);
        assert_false(to);
        assert_true(sz_now() - t0 < 10);
        if (!none_left(tok, 3)) fail_msg("%s: a process outlived its stopped run", tok);
        sz_proc_close(&p);
    }
    /* the same bytes with a change that is not the line: not stopped */
    char *near[] = {"sh", "-c", "printf 'No attachable  process found\\n'; exit 4", NULL};
    assert_int_equal(sz_proc_start(&p, near, NULL, fd, 1000, NULL, NULL, 60), 0);
    sz_proc_stop_on(&p, needles);
    while (!sz_proc_poll(&p, &code, &to)) usleep(5000);
    assert_null(p.stop_hit);
    assert_int_equal(code, 4);
    sz_proc_close(&p);
    close(fd);
}

static void test_proc_reaper(void **state)
{
    (void)state;
    test_proc_modes(SZ_CONTAIN_REAPER);
}

static void test_proc_pidns(void **state)
{
    (void)state;
    test_proc_modes(SZ_CONTAIN_PIDNS);
}

/* ---- the planted programs: declarations, sources and reports agree ---- */

static void test_planted(void **state)
{
    (void)state;
    char path[1200], err[600];
    snprintf(path, sizeof path, "%s/sanitize.expect", planted_dir);
    sz_expect_file e;
    if (sz_expect_load(path, "planted", "9_Verification/planted", &e, err, sizeof err))
        fail_msg("%s", err);
    assert_true(e.n >= 7);
    int detected_kinds = 0, clean_runs = 0;
    for (int i = 0; i < e.n; i++) {
        const sz_run_spec *r = &e.runs[i];
        for (int t = 0; t < SZ_N_TOOLS; t++) {
            const sz_tool_expect *te = &r->tool[t];
            if (!te->enabled) continue;
            /* every FILE:LINE names the line marked PLANTED: <kind> */
            for (int k = 0; k < te->n; k++) {
                char src[1200], marker[96];
                snprintf(marker, sizeof marker, "PLANTED: %s", te->e[k].kind);
                if (!te->e[k].line) {
                    /* declared by kind: the marker is somewhere in a source */
                    continue;
                }
                snprintf(src, sizeof src, "%s/%s", planted_dir, te->e[k].file);
                char *text = slurp(src, NULL);
                if (!text) fail_msg("%s: cannot read", src);
                char *line = text;
                for (int l = 1; l < te->e[k].line && line; l++) {
                    line = strchr(line, '\n');
                    if (line) line++;
                }
                assert_non_null(line);
                char *nl = strchr(line, '\n');
                if (nl) *nl = '\0';
                if (!strstr(line, marker))
                    fail_msg("%s:%d does not carry '%s': %s", te->e[k].file, te->e[k].line, marker, line);
                free(text);
            }
            /* and the report of that run says what is declared */
            char xml[1200];
            planted_fixture(xml, sizeof xml, r->name, sz_tool_name(t));
            sz_result res;
            memset(&res, 0, sizeof res);
            snprintf(res.xml_path, sizeof res.xml_path, "%s", xml);
            res.tool = t;
            res.expect = *te;
            sz_evaluate(&res, te->detect ? SZ_ERROR_EXITCODE : 0, 0, 60);
            if (res.verdict != (te->detect ? SZ_DETECTED : SZ_CLEAN))
                fail_msg("%s under %s on %s: %s (%s)", r->name, sz_tool_name(t), xml,
                         sz_verdict_name(res.verdict), res.message);
            detected_kinds += te->detect;
            clean_runs += !te->detect;
            sz_result_free(&res);
        }
    }
    assert_int_equal(detected_kinds, 6); /* one per record kind */
    assert_int_equal(clean_runs, 4);     /* the control under all four tools */
    sz_expect_free(&e);
}

int main(void)
{
    find_dirs();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_xml_basics),
        cmocka_unit_test(test_xml_malformed),
        cmocka_unit_test(test_xml_depth_limit),
        cmocka_unit_test(test_xml_every_truncation),
        cmocka_unit_test(test_xml_linear_and_capped),
        cmocka_unit_test(test_report_folding),
        cmocka_unit_test(test_report_file_refusals),
        cmocka_unit_test(test_clean_text),
        cmocka_unit_test(test_hostile_strings),
        cmocka_unit_test(test_report_real_kinds),
        cmocka_unit_test(test_report_real_details),
        cmocka_unit_test(test_report_text_locations),
        cmocka_unit_test(test_report_malformed_files),
        cmocka_unit_test(test_expect_parse),
        cmocka_unit_test(test_expect_errors),
        cmocka_unit_test(test_judge),
        cmocka_unit_test(test_same_file),
        cmocka_unit_test(test_evaluate),
        cmocka_unit_test(test_writers),
        cmocka_unit_test(test_writers_skipped),
        cmocka_unit_test(test_split_args),
        cmocka_unit_test(test_proc_reaper),
        cmocka_unit_test(test_proc_pidns),
        cmocka_unit_test(test_planted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
