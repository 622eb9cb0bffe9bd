/* test_markdown.c: kg_load_candidate on .cu files, Markdown answers and bad input. */
#define _DEFAULT_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "kgate_static.h"

static char g_dir[] = "/tmp/kgate_md_XXXXXX";

static const char *write_file(const char *name, const char *data, size_t len)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    if (len) assert_int_equal(fwrite(data, 1, len, f), len);
    fclose(f);
    return path;
}

static char *load(const char *name, const char *text, size_t max, char *err)
{
    const char *p = write_file(name, text, strlen(text));
    return kg_load_candidate(p, max, err, 256);
}

static void test_cu_as_is(void **state)
{
    (void)state;
    char err[256];
    const char *src = "__global__ void k() {}\n";
    char *s = load("a.cu", src, 0, err);
    assert_non_null(s);
    assert_string_equal(s, src);
    free(s);
}

static void test_md_blocks_concatenated_lines_kept(void **state)
{
    (void)state;
    char err[256];
    const char *md =
        "Here is my answer.\n"          /* 1 */
        "```cuda\n"                     /* 2 */
        "__global__ void k() {}\n"      /* 3 */
        "```\n"                         /* 4 */
        "Some prose with `code`.\n"     /* 5 */
        "```python\n"                   /* 6 */
        "print('no')\n"                 /* 7 */
        "```\n"                         /* 8 */
        "~~~ C++ title\n"               /* 9 */
        "int launch_here;\n"            /* 10 */
        "~~~\n"                         /* 11 */
        "```CU\n"                       /* 12 */
        "int third;\n";                 /* 13: unclosed fence runs to the end */
    char *s = load("answer.md", md, 0, err);
    assert_non_null(s);
    /* line N of the extract is line N of the answer */
    int line = 1;
    const char *p = s;
    const char *l3 = NULL, *l10 = NULL, *l13 = NULL;
    for (; *p; p++) {
        if (p == s || p[-1] == '\n') {
            if (line == 3) l3 = p;
            if (line == 10) l10 = p;
            if (line == 13) l13 = p;
        }
        if (*p == '\n') line++;
    }
    assert_non_null(l3);
    assert_non_null(l10);
    assert_non_null(l13);
    assert_true(strncmp(l3, "__global__ void k() {}\n", 23) == 0);
    assert_true(strncmp(l10, "int launch_here;", 16) == 0);
    assert_true(strncmp(l13, "int third;", 10) == 0);
    assert_null(strstr(s, "print"));
    assert_null(strstr(s, "prose"));
    assert_null(strstr(s, "```"));
    free(s);
}

static void test_md_crlf_and_indented_fence(void **state)
{
    (void)state;
    char err[256];
    char *s = load("b.md", "text\r\n   ```cpp\r\nint x;\r\n   ```\r\n", 0, err);
    assert_non_null(s);
    assert_non_null(strstr(s, "int x;"));
    assert_null(strstr(s, "text"));
    free(s);
}

static void test_md_no_code_block(void **state)
{
    (void)state;
    char err[256];
    assert_null(load("c.md", "# Title\n\nJust prose, no code.\n", 0, err));
    assert_non_null(strstr(err, "no fenced code block"));
    assert_null(load("d.md", "```\nint x;\n```\n```python\nx = 1\n```\n", 0, err));
    assert_non_null(strstr(err, "none tagged"));
    assert_null(load("e.md", "```cuda\n\n```\n", 0, err));
    assert_non_null(strstr(err, "empty"));
}

static void test_empty_and_blank(void **state)
{
    (void)state;
    char err[256];
    const char *p = write_file("empty.cu", "", 0);
    assert_null(kg_load_candidate(p, 0, err, sizeof err));
    assert_non_null(strstr(err, "empty file"));
    assert_null(load("blank.cu", "  \n\t\n", 0, err));
    assert_non_null(strstr(err, "empty file"));
}

static void test_binary(void **state)
{
    (void)state;
    char err[256];
    const char bin[] = {'i', 'n', 't', 0, 1, 2, 3, 'x'};
    const char *p = write_file("bin.cu", bin, sizeof bin);
    assert_null(kg_load_candidate(p, 0, err, sizeof err));
    assert_non_null(strstr(err, "not a text file"));
    char junk[4096];
    for (size_t i = 0; i < sizeof junk; i++) junk[i] = (char)(1 + (i * 7919u) % 255u);
    p = write_file("junk.cu", junk, sizeof junk);
    assert_null(kg_load_candidate(p, 0, err, sizeof err));
    assert_non_null(strstr(err, "not a text file"));
}

static void test_too_large(void **state)
{
    (void)state;
    char err[256];
    size_t n = 10u << 20; /* 10 MB */
    char *big = malloc(n);
    assert_non_null(big);
    memset(big, 'a', n);
    const char *p = write_file("big.cu", big, n);
    free(big);
    assert_null(kg_load_candidate(p, 0, err, sizeof err)); /* default limit 1 MiB */
    assert_non_null(strstr(err, "larger than"));
    p = write_file("small.cu", "int x;\n", 7);
    assert_null(kg_load_candidate(p, 4, err, sizeof err));
    assert_non_null(strstr(err, "larger than"));
}

static void test_missing_file(void **state)
{
    (void)state;
    char err[256];
    assert_null(kg_load_candidate("/nonexistent/kgate/x.cu", 0, err, sizeof err));
    assert_non_null(strstr(err, "cannot open"));
    assert_null(kg_load_candidate(g_dir, 0, err, sizeof err));
    assert_non_null(strstr(err, "not a regular file"));
    assert_null(kg_load_candidate(NULL, 0, err, sizeof err));
}

/* Only regular files are read: a symbolic link (here to a file the gate
 * could read, as one to /etc/shadow would be for a gate run as root), a
 * FIFO (reading it would block) and a device are refused by what they are,
 * none of them opened; and no byte-order mark is looked for in them. */
static void test_not_regular(void **state)
{
    (void)state;
    char target[300], link[300], fifo[300], err[512];
    snprintf(target, sizeof target, "%s/target.cu", g_dir);
    snprintf(link, sizeof link, "%s/link.cu", g_dir);
    snprintf(fifo, sizeof fifo, "%s/fifo.cu", g_dir);
    FILE *f = fopen(target, "w");
    assert_non_null(f);
    fputs("\xef\xbb\xbf__global__ void k() {}\n", f);
    fclose(f);
    assert_int_equal(symlink(target, link), 0);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    char *src = kg_load_candidate(target, 0, err, sizeof err);
    assert_non_null(src);   /* the file itself is fine */
    free(src);
    assert_null(kg_load_candidate(link, 0, err, sizeof err));
    assert_non_null(strstr(err, "is a symbolic link, not a regular file: refused"));
    assert_null(strstr(err, "target.cu"));   /* where it leads is not said: it is not looked at */
    assert_null(kg_load_candidate(fifo, 0, err, sizeof err));   /* returns: never blocks */
    assert_non_null(strstr(err, "is a FIFO, not a regular file"));
    assert_null(kg_load_candidate("/dev/zero", 0, err, sizeof err));
    assert_non_null(strstr(err, "is a character device"));
    assert_int_equal(kg_file_has_bom(target), 1);
    assert_int_equal(kg_file_has_bom(link), 0);
    assert_int_equal(kg_file_has_bom(fifo), 0);   /* would block if opened */
    unlink(link);
    unlink(fifo);
    unlink(target);
}

static int setup(void **state)
{
    (void)state;
    return mkdtemp(g_dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* A byte-order mark is not code: dropped, and reported by the gate. */
static void test_bom(void **state)
{
    (void)state;
    char err[256];
    const char *cu = "\xEF\xBB\xBF__global__ void k() {}\n";
    const char *p = write_file("bom.cu", cu, strlen(cu));
    assert_true(kg_file_has_bom(p));
    char *s = kg_load_candidate(p, 0, err, sizeof err);
    assert_non_null(s);
    assert_string_equal(s, "__global__ void k() {}\n");
    free(s);
    const char *md = "\xEF\xBB\xBF# answer\n```cuda\nint x;\n```\n";
    p = write_file("bom.md", md, strlen(md));
    s = kg_load_candidate(p, 0, err, sizeof err);
    assert_non_null(s);
    assert_string_equal(s, "\n\nint x;\n\n");   /* line 3 is still line 3 */
    free(s);
    p = write_file("nobom.cu", "int x;\n", 7);
    assert_false(kg_file_has_bom(p));
    assert_false(kg_file_has_bom("/nonexistent/x.cu"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bom),
        cmocka_unit_test(test_cu_as_is),
        cmocka_unit_test(test_md_blocks_concatenated_lines_kept),
        cmocka_unit_test(test_md_crlf_and_indented_fence),
        cmocka_unit_test(test_md_no_code_block),
        cmocka_unit_test(test_empty_and_blank),
        cmocka_unit_test(test_binary),
        cmocka_unit_test(test_too_large),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_not_regular),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
