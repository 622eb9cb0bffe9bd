/* test_precheck.c: the include policy (precheck.c) and the reader under it
 * (pplex.c) against lexing tricks: every directive must be found where gcc
 * (nvcc's preprocessor) and clang find it, and no directive may be found
 * where they find none. A candidate cannot hide an #include from the policy
 * with a raw string, a digit separator, a trigraph, a splice, a comment, a
 * digraph or a line ending, and an #include inside a literal or a comment is
 * no include. No compiler runs here: tests/test_static_views.c compares with
 * nvcc itself.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "kgate_static.h"
#include "pplex.h"

static void refused(const char *src, int want_line)
{
    char why[400];
    int line = 0;
    if (!kg_include_check(src, why, sizeof why, &line)) fail_msg("not refused:\n%s", src);
    assert_true(strlen(why) > 10);
    if (want_line && line != want_line) fail_msg("refused at line %d, not %d (%s):\n%s", line, want_line, why, src);
}

static void accepted(const char *src)
{
    char why[400];
    int line = 0;
    if (kg_include_check(src, why, sizeof why, &line)) fail_msg("refused (%s):\n%s", why, src);
}

/* Raw strings read as the compilers read them: their contents are no
 * directives, and nothing after them is hidden by a quote or a comment
 * opener inside them. */
static void test_raw_strings(void **s)
{
    (void)s;
    /* a quote and a comment opener inside a raw string: the include after it is real */
    refused("const char* s = R\"abc(a\"/*)abc\";\n#include \"/etc/passwd\"\n// */\n", 2);
    refused("const char* s = R\"(\"/*)\";\n#include </etc/passwd>\nint x; // */\n", 2);
    refused("auto s = u8R\"x(\"/*)x\";\n#include \"/etc/passwd\"\n", 2);
    refused("auto s = LR\"(\"/*)\";\n#include \"/etc/passwd\"\n", 2);
    refused("auto s = uR\"(\"/*)\"; auto t = UR\"(\"/*)\";\n#include \"/etc/passwd\"\n", 2);
    /* a fake opener: xR and 1R are not raw-string prefixes, the quote opens a plain string */
    refused("int xR; const char *s = xR\"(/*\";\n#include \"/etc/passwd\"\nconst char *t = \")\";\n", 2);
    refused("auto v = 1R\"(/*\";\n#include \"/etc/passwd\"\nconst char *t = \")\";\n", 2);
    refused("auto v = u8 R\"(/*)\" \"/*\";\n#include \"/etc/passwd\"\n", 2);
    /* an include inside a raw string is no include, on one line or several */
    accepted("const char* s = R\"(#include \"/etc/passwd\")\";\n");
    accepted("const char* s = R\"(\n#include \"/etc/passwd\"\n)\";\nint x;\n");
    accepted("const char* s = R\"d(\n)\"\n#include </dev/zero>\n)d\";\n");
    /* trigraphs and splices are reverted inside a raw string: ??/ is no splice there */
    accepted("const char* s = R\"(?\?/\n#include \"/etc/passwd\"\n)\";\n");
    /* what the compilers read differently, or refuse, is refused */
    refused("#define X R\"(\n#include \"/etc/passwd\"\n)\"\n", 1);      /* gcc ends the #define, clang not */
    refused("const char* s = R\"x\\\ny(a)x\\\ny\";\n#include <cuda.h>\n", 1); /* a splice in the delimiter */
    refused("const char* s = R\"(never closed\n#include \"/etc/passwd\"\n", 1);
    refused("const char* s = R\"12345678901234567(a)12345678901234567\";\n", 1);
    refused("const char* s = R\\\n\"(a)\";\n", 1);                        /* a splice in the prefix */
}

/* C++14 digit separators: 1'0 is a number, its quote opens no literal. */
static void test_digit_separators(void **s)
{
    (void)s;
    refused("int x = 1'0 + '/*';\n#include \"/etc/passwd\"\n// */\n", 2);
    refused("int x = 0x1'f'f; char c = '/'; /* */\n#include \"/etc/passwd\"\n", 2);
    accepted("int x = 1'000'000;\n#include <cuda_runtime.h>\n");
    /* a real character literal still hides what is inside it */
    accepted("char c = '#'; int y = 2;\n");
}

/* Every line ending gcc and clang know: \n, \r\n and a lone \r. */
static void test_line_endings(void **s)
{
    (void)s;
    refused("int a;\r#include \"/etc/passwd\"\rint b;\r", 2);
    refused("int a;\r\n#include \"/etc/passwd\"\r\n", 2);
    refused("// a comment\r#include \"/etc/passwd\"\n", 2);   /* a lone \r ends the comment */
    /* a backslash, blanks, then a newline: a splice for gcc and clang */
    accepted("#define Y \\  \n#include \"/etc/passwd\"\n");
    refused("#inc\\  \nlude \"/etc/passwd\"\n", 1);
}

/* Trigraphs: nvcc's C++14 compile replaces them, C++17 and clang do not;
 * the policy holds under both readings. */
static void test_trigraph_readings(void **s)
{
    (void)s;
    refused("?\?=include \"/etc/passwd\"\n", 1);              /* # only with trigraphs */
    refused("// ?\?/\n#include \"/etc/passwd\"\n", 2);        /* hidden only with trigraphs */
    refused("#define A 1 ?\?/\n#include \"/etc/passwd\"\n", 2);
    refused("/* *?\?/\n/ #include \"/etc/passwd\" */\n", 0);
    accepted("int a = 1; // what?\?!\n");
}

/* Comments, digraphs, null directives and where a directive may start. */
static void test_directive_starts(void **s)
{
    (void)s;
    refused("/* a */ /* b */ #include \"/etc/passwd\"\n", 1);
    refused("#/* a */include/* b */\"/etc/passwd\"\n", 1);
    refused("%:include \"/etc/passwd\"\n", 1);
    refused("  \t\v\f#  include \"/etc/passwd\"\n", 1);
    accepted("int a; # include \"/etc/passwd\"\n");            /* not first on its line: no directive */
    accepted("int a; /* x\n */ #include \"/etc/passwd\"\n");  /* the line began before the comment */
    accepted("#define S(x) #x\nconst char *t = S(#include \"/etc/passwd\");\n");
    accepted("%:%: x\n");
    /* header names are read verbatim: // in <...> is part of the name */
    refused("#include </etc//passwd>\n", 1);
    refused("#include < /etc/passwd>\n", 1);
    refused("#include <a//../../etc/passwd>\n", 1);
    refused("#include <cuda.h\n", 1);                          /* unterminated */
}

/* What opens a file besides #include. */
static void test_other_openers(void **s)
{
    (void)s;
    refused("#if __has_include(\"/etc/shadow\")\n#endif\n", 1);
    refused("#if __has_include(</dev/zero>)\n#endif\n", 1);
    refused("#define N \"/etc/shadow\"\n#if __has_include(N)\n#endif\n", 2);
    refused("#define H __has_include\n#if H(\"/etc/shadow\")\n#endif\n", 1);
    refused("#pragma GCC dependency \"/etc/shadow\"\n", 1);
    refused("_Pragma(\"GCC dependency \\\"/etc/shadow\\\"\")\n", 0);
    accepted("#if __has_include(<cuda_fp16.h>)\n#include <cuda_fp16.h>\n#endif\n");
}

/* The reader itself: directives, their lines and ends, and the comparison
 * of two readings. */
static void test_reader(void **s)
{
    (void)s;
    pp_text a, b;
    const char *src = "int x;\n#if A \\\n  && B\n#define Y 1 /* two\nlines */ + 2\n#else\n#endif";
    assert_int_equal(pp_read(src, 0, &a), 0);
    assert_int_equal(a.n_dir, 4);
    assert_string_equal(a.dir[0].name, "if");
    assert_int_equal(a.dir[0].line, 2);
    assert_int_equal(a.dir[0].last_line, 3);
    assert_int_equal(a.dir[0].end, strlen("int x;\n#if A \\\n  && B\n"));
    assert_string_equal(a.dir[1].name, "define");
    assert_int_equal(a.dir[1].last_line, 5);
    assert_string_equal(a.dir[3].name, "endif");
    assert_int_equal(a.dir[3].end, strlen(src));   /* no newline at the end */
    pp_free(&a);
    /* a line marker is gcc's #line */
    assert_int_equal(pp_read("# 12 \"x.cu\"\n#line 3\n", 0, &a), 0);
    assert_int_equal(a.dir[0].line_marker, 1);
    assert_string_equal(a.dir[1].name, "line");
    pp_free(&a);
    /* two readings: trigraphs that change the tokens, and trigraphs that do not */
    const char *t1 = "int a; // ?\?/\nint hidden;\n";
    assert_int_equal(pp_read(t1, 0, &a), 0);
    assert_int_equal(pp_read(t1, 1, &b), 0);
    assert_int_equal(pp_first_difference(&a, &b), 2);
    pp_free(&a);
    pp_free(&b);
    const char *t2 = "int a; // what?\?!\nconst char *s = \"?\?!\";\n";
    assert_int_equal(pp_read(t2, 0, &a), 0);
    assert_int_equal(pp_read(t2, 1, &b), 0);
    assert_int_equal(pp_first_difference(&a, &b), 0);
    pp_free(&a);
    pp_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_raw_strings),
        cmocka_unit_test(test_digit_separators),
        cmocka_unit_test(test_line_endings),
        cmocka_unit_test(test_trigraph_readings),
        cmocka_unit_test(test_directive_starts),
        cmocka_unit_test(test_other_openers),
        cmocka_unit_test(test_reader),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
