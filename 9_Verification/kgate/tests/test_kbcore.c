/* test_kbcore.c: the pure parts of the KernelBench mode (kb_core.c): a
 * runner's reply line read as the hostile text it may be (no forged
 * fields, no oversized payload claims, no control bytes), dtypes and
 * shapes, KernelBench's allclose (the candidate's magnitude scales the
 * tolerance, NaN never passes) whole and slice by slice (the first
 * mismatch named by its index in the whole output), half and bfloat16
 * decoding, fast_p, the judge's per-call figure, pairing by name and the
 * labels file.
 */
#define _GNU_SOURCE
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "dynamic.h"
#include "kbgate.h"

static void test_reply_ok(void **state)
{
    (void)state;
    kb_reply r;
    char err[200];
    assert_int_equal(kb_parse_reply("OK dtype=float32 shape=[4,5] bytes=80", &r, err, sizeof err), 0);
    assert_true(r.ok);
    assert_string_equal(kb_field(&r, "dtype"), "float32");
    assert_string_equal(kb_field(&r, "shape"), "[4,5]");
    assert_int_equal(r.nbytes, 80);
    assert_null(kb_field(&r, "nothing"));
    assert_int_equal(kb_parse_reply("OK", &r, err, sizeof err), 0);
    assert_int_equal(r.nbytes, -1);
    /* an ERR's message is the rest of the line, '=' and spaces included */
    assert_int_equal(kb_parse_reply("ERR stage=run msg=RuntimeError: a=b c", &r, err, sizeof err), 0);
    assert_false(r.ok);
    assert_string_equal(kb_field(&r, "stage"), "run");
    assert_string_equal(r.msg, "RuntimeError: a=b c");
    double ms;
    assert_int_equal(kb_parse_reply("OK mean_ms=0.25 bad_ms=nan neg_ms=-1", &r, err, sizeof err), 0);
    assert_int_equal(kb_field_ms(&r, "mean_ms", &ms), 0);
    assert_true(ms == 0.25);
    assert_int_equal(kb_field_ms(&r, "bad_ms", &ms), -1);
    assert_int_equal(kb_field_ms(&r, "neg_ms", &ms), -1);
    long long v;
    assert_int_equal(kb_parse_reply("OK n=12 m=x", &r, err, sizeof err), 0);
    assert_int_equal(kb_field_ll(&r, "n", 0, 64, &v), 0);
    assert_int_equal(v, 12);
    assert_int_equal(kb_field_ll(&r, "n", 0, 10, &v), -1);
    assert_int_equal(kb_field_ll(&r, "m", 0, 10, &v), -1);
}

static void test_reply_refused(void **state)
{
    (void)state;
    kb_reply r;
    char err[200];
    static const char *const bad[] = {
        "",                                   /* nothing */
        "PASS",                               /* not OK or ERR */
        "OKAY n=1",                           /* not the word OK */
        "OK n",                               /* a field without = */
        "OK =1",                              /* no key */
        "OK bytes=-1",                        /* a negative size */
        "OK bytes=1073741825",                /* over the gate's 1 GiB */
        "OK bytes=999999999999999999999",     /* not a number the gate can hold */
        "OK bytes=12abc",
        "OK n=1\rPASS",                       /* a carriage return: a forged line on a terminal */
        "OK n=\x1b[2J",                       /* an escape sequence */
        "OK ke-y=1",                          /* a key that is not a name */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        if (kb_parse_reply(bad[i], &r, err, sizeof err) == 0) fail_msg("accepted: \"%s\"", bad[i]);
        assert_true(strlen(err) > 5);
    }
    /* too many fields, a value too long, a line too long */
    char line[KB_LINE_MAX + 64];
    size_t l = (size_t)snprintf(line, sizeof line, "OK");
    for (int i = 0; i < KB_MAX_FIELDS + 1; i++) l += (size_t)snprintf(line + l, sizeof line - l, " k%d=1", i);
    assert_int_equal(kb_parse_reply(line, &r, err, sizeof err), -1);
    snprintf(line, sizeof line, "OK v=%0200d", 1);
    assert_int_equal(kb_parse_reply(line, &r, err, sizeof err), -1);
    memset(line, 'a', KB_LINE_MAX + 10);
    memcpy(line, "OK a=", 5);
    line[KB_LINE_MAX + 10] = 0;
    assert_int_equal(kb_parse_reply(line, &r, err, sizeof err), -1);
}

static void test_shapes_dtypes(void **state)
{
    (void)state;
    kb_shape s, t;
    assert_int_equal(kb_shape_parse("[4,5]", &s), 0);
    assert_int_equal(s.ndim, 2);
    assert_int_equal(s.numel, 20);
    assert_int_equal(kb_shape_parse("[]", &t), 0);      /* a scalar */
    assert_int_equal(t.ndim, 0);
    assert_int_equal(t.numel, 1);
    assert_int_equal(kb_shape_parse("[0,7]", &t), 0);
    assert_int_equal(t.numel, 0);
    assert_false(kb_shape_equal(&s, &t));
    assert_int_equal(kb_shape_parse("[5,4]", &t), 0);
    assert_false(kb_shape_equal(&s, &t));                /* same numel, another shape */
    assert_int_equal(kb_shape_parse("[4,5]", &t), 0);
    assert_true(kb_shape_equal(&s, &t));
    char buf[64];
    kb_shape_str(&s, buf, sizeof buf);
    assert_string_equal(buf, "[4,5]");
    static const char *const bad[] = {"4,5", "[4,5", "[4,,5]", "[-1]", "[4] ", "[1,2,3,4,5,6,7,8,9]",
                                      "[1099511627776,1099511627776]", "[a]"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (kb_shape_parse(bad[i], &s) == 0) fail_msg("shape accepted: %s", bad[i]);
    assert_int_equal(kb_dtype_parse("bfloat16"), KB_BF16);
    assert_int_equal(kb_dtype_parse("float"), -1);
    assert_int_equal((int)kb_dtype_size(KB_F16), 2);
    assert_true(kb_tolerance(KB_F32) == 1e-4);
    assert_true(kb_tolerance(KB_F16) == 1e-2);
    assert_true(kb_tolerance(KB_BF16) == 1e-2);
    assert_true(kb_tolerance(KB_I64) == 0);
    /* half and bfloat16 decoding */
    uint16_t h[] = {0x3C00, 0xC000, 0x7C00, 0x7E00, 0x0001, 0x3555};
    assert_true(kb_elem(h, KB_F16, 0) == 1.0);
    assert_true(kb_elem(h, KB_F16, 1) == -2.0);
    assert_true(isinf(kb_elem(h, KB_F16, 2)));
    assert_true(isnan(kb_elem(h, KB_F16, 3)));
    assert_true(kb_elem(h, KB_F16, 4) == ldexp(1.0, -24));
    assert_true(fabs(kb_elem(h, KB_F16, 5) - 1.0 / 3.0) < 1e-3);
    uint16_t b[] = {0x3F80, 0xC040, 0xFFFF};
    assert_true(kb_elem(b, KB_BF16, 0) == 1.0);
    assert_true(kb_elem(b, KB_BF16, 1) == -3.0);
    assert_true(isnan(kb_elem(b, KB_BF16, 2)));           /* 0xFF poison bytes: NaN */
    int64_t q[] = {-5};
    assert_true(kb_elem(q, KB_I64, 0) == -5.0);
}

static void test_allclose(void **state)
{
    (void)state;
    float ref[] = {100.0f, 1.0f, 0.0f, INFINITY, 5.0f};
    float got[] = {100.01f, 1.0f, 0.0f, INFINITY, 5.0f};
    long long first;
    /* |ref - got| <= 1e-4 + 1e-4 |got|: 0.01 <= 0.0101 */
    assert_int_equal(kb_allclose(ref, got, KB_F32, 5, 1e-4, &first), 0);
    assert_int_equal(first, -1);
    got[0] = 100.02f;
    assert_int_equal(kb_allclose(ref, got, KB_F32, 5, 1e-4, &first), 1);
    assert_int_equal(first, 0);
    got[0] = 100.0f;
    got[3] = -INFINITY;                                   /* an infinity matches only itself */
    assert_int_equal(kb_allclose(ref, got, KB_F32, 5, 1e-4, &first), 1);
    assert_int_equal(first, 3);
    got[3] = INFINITY;
    got[4] = NAN;                                         /* NaN never passes */
    assert_int_equal(kb_allclose(ref, got, KB_F32, 5, 1e-4, &first), 1);
    ref[4] = NAN;
    assert_int_equal(kb_allclose(ref, got, KB_F32, 5, 1e-4, &first), 1);
    int32_t a[] = {1, 2, 3}, c[] = {1, 2, 4};
    assert_int_equal(kb_allclose(a, c, KB_I32, 3, 0, &first), 1);   /* integers: exact */
    assert_int_equal(first, 2);
}

/* An output compared slice by slice (kb_allclose_slice) finds what the whole
 * comparison finds: the count, and the first mismatch by its index in the
 * whole output (not in its slice), with its values. */
static void test_allclose_slices(void **state)
{
    (void)state;
    assert_int_equal(kb_slice_bytes(64ll << 20, 4), 64ll << 20);
    assert_int_equal(kb_slice_bytes(4095, 4), 4092);   /* whole elements */
    assert_int_equal(kb_slice_bytes(4096, 8), 4096);
    assert_int_equal(kb_slice_bytes(3, 8), 8);         /* at least one */
    assert_int_equal(kb_slice_bytes(1, 2), 2);
    enum { N = 1003 };
    static float ref[N], got[N];
    for (int i = 0; i < N; i++) ref[i] = got[i] = (float)i * 0.25f - 7;
    got[N - 2] += 0.5f;                                /* in the last slice only */
    for (long long chunk = 4; chunk <= 8192; chunk = chunk * 3 + 1) {
        long long step = kb_slice_bytes(chunk, 4), total = 4LL * N;
        kb_cmp c;
        kb_cmp_init(&c);
        for (long long off = 0; off < total; off += step) {
            long long n = total - off < step ? total - off : step;
            kb_allclose_slice(&c, (const char *)ref + off, (const char *)got + off, KB_F32, n / 4, off / 4, 1e-4);
        }
        assert_int_equal(c.bad, 1);
        assert_int_equal(c.first, N - 2);
        assert_true(c.want == ref[N - 2] && c.got == got[N - 2]);
    }
    /* two mismatches in different slices: both counted, the earlier one first */
    got[3] = NAN;
    kb_cmp c;
    kb_cmp_init(&c);
    for (long long e = 0; e < N; e += 100)
        kb_allclose_slice(&c, ref + e, got + e, KB_F32, N - e < 100 ? N - e : 100, e, 1e-4);
    assert_int_equal(c.bad, 2);
    assert_int_equal(c.first, 3);
    assert_true(isnan(c.got));
    kb_cmp_init(&c);
    kb_allclose_slice(&c, ref, ref, KB_F32, N, 0, 1e-4);
    assert_int_equal(c.bad, 0);
    assert_int_equal(c.first, -1);
}

static void test_scores(void **state)
{
    (void)state;
    int correct[] = {1, 1, 0, 1};
    double sp[] = {1.2, 2.0, 9.0, 0.9};
    assert_true(fabs(kb_fast_p(correct, sp, 4, 1.0) - 0.5) < 1e-12);
    assert_true(fabs(kb_fast_p(correct, sp, 4, 1.5) - 0.25) < 1e-12);
    assert_true(fabs(kb_fast_p(correct, sp, 4, 0.0) - 0.75) < 1e-12);
    assert_true(kb_fast_p(correct, sp, 0, 1.0) == 0);
    /* (interval - allowance + charge) / calls, never under 2% of the interval */
    assert_true(fabs(kb_batch_ms(10.0, 2.0, 0.0, 4) - 2.0) < 1e-12);
    assert_true(fabs(kb_batch_ms(10.0, 2.0, 4.0, 4) - 3.0) < 1e-12);
    assert_true(fabs(kb_batch_ms(1.0, 5.0, 0.0, 2) - 0.01) < 1e-12);
    assert_true(isnan(kb_batch_ms(1.0, 0.0, 0.0, 0)));
}

/* a timed batch's length: by one call's time net of a batch's fixed cost */
static void test_batch_calls(void **state)
{
    (void)state;
    /* one call 0.1 ms inside a batch whose fixed cost is 0.5 ms: 80 calls
     * for 8 ms, at most 64 (by the whole 0.6 ms it would have been 14) */
    assert_int_equal(kb_batch_calls(0.6, 0.5, 0, 0), 64);
    assert_int_equal(kb_batch_calls(0.6, 0.1, 0, 0), 16);     /* 0.5 ms a call: 8 / 0.5 */
    assert_int_equal(kb_batch_calls(3.0, 0.5, 0, 0), 4);      /* 2.5 ms a call: 4, the least */
    assert_int_equal(kb_batch_calls(0.5, 0.6, 0, 0), 64);     /* noise: no net time */
    assert_int_equal(kb_batch_calls(0.6, 0.5, 100, 1600), 16); /* memory for 16 calls */
    assert_int_equal(kb_batch_calls(3.0, 0.5, 100, 250), 2);   /* fewer than 4 where 4 do not fit */
    assert_int_equal(kb_batch_calls(3.0, 0.5, 100, 50), 1);    /* one call at least */
    /* the charge: beyond 1.1 times the larger base plus 0.5 ms (rmsnorm__block_row on the
     * H200: 9.57 ms against 6.87 before its code was loaded and the reference's 15.53) */
    assert_true(kb_charge(9.573, 6.870, 15.525) == 0);
    assert_true(fabs(kb_charge(9.573, 6.870, 5.0) - (9.573 - (1.1 * 6.870 + 0.5))) < 1e-12);
    assert_true(fabs(kb_charge(20.0, 6.870, 10.0) - (20.0 - 11.5)) < 1e-12);
    assert_true(kb_charge(7.0, 6.0, 0) == 0.0);                   /* within the slack: 1.1 x 6 + 0.5 */
    assert_true(fabs(kb_charge(7.5, 6.0, 0) - 0.4) < 1e-12);
    /* a call's own time from a batch of one and one of k: 0.15 ms a call and 0.8 ms a
     * batch's first call (conv2d_relu_scale's reference on the H200 sized its batches by
     * the batch of one at 9 calls; these say 54) */
    assert_true(fabs(kb_call_ms(0.95, 9 * 0.15 + 0.8, 9) - 0.15) < 1e-12);
    assert_int_equal(kb_batch_calls(kb_call_ms(0.95, 9 * 0.15 + 0.8, 9), 0, 0, 0), 54);
    assert_true(fabs(kb_call_ms(0.1, 2.0, 10) - 0.2) < 1e-12);   /* never above netk / k */
    assert_true(kb_call_ms(0.9, 0.5, 4) == 0);                  /* noise: none (the most calls) */
    assert_true(kb_call_ms(0.7, 0, 4) == 0.7 && kb_call_ms(0.7, 3.0, 1) == 0.7);   /* no second look */
}

/* the summary's median and the builds' share of the wall time */
static void test_times(void **state)
{
    (void)state;
    double v[] = {5, 1, 3}, w[] = {4, 1, 3, 2};
    assert_true(kb_median(v, 3) == 3);
    assert_true(kb_median(w, 4) == 2.5);
    assert_true(kb_median(v, 0) == 0);
    /* [0,4] and [2,6] overlap: 6 s, not 8; [10,11] apart; [7,7] and a reversed one count nothing */
    double t0[] = {2, 0, 10, 7, 9}, t1[] = {6, 4, 11, 7, 8};
    assert_true(fabs(kb_union_seconds(t0, t1, 5) - 7) < 1e-12);
    /* one inside another */
    double u0[] = {0, 1}, u1[] = {10, 2};
    assert_true(fabs(kb_union_seconds(u0, u1, 2) - 10) < 1e-12);
    assert_true(kb_union_seconds(u0, u1, 0) == 0);
}

static void test_pairing_labels(void **state)
{
    (void)state;
    char p[64];
    assert_int_equal(kb_problem_of("dir/19_ReLU__fast_v2.py", p, sizeof p), 0);
    assert_string_equal(p, "19_ReLU");
    assert_int_equal(kb_problem_of("relu.py", p, sizeof p), -1);
    assert_int_equal(kb_problem_of("__x.py", p, sizeof p), -1);
    assert_int_equal(kb_problem_of("a__b.cu", p, sizeof p), -1);
    kb_label l[4];
    char err[200];
    assert_int_equal(kb_labels_parse("# c\n\na__x.py\ta\tPASS\tgood\r\nb__y.py\tb\tL3\n", l, 4, err, sizeof err), 2);
    assert_string_equal(l[0].file, "a__x.py");
    assert_int_equal(l[0].expected, KG_V_PASS);
    assert_string_equal(l[0].defect, "good");
    assert_int_equal(l[1].expected, KG_V_L3);
    assert_int_equal(kb_labels_parse("a__x.py\ta\tPASSED\n", l, 4, err, sizeof err), -1);
    assert_non_null(strstr(err, "line 1"));
    assert_int_equal(kb_labels_parse("a__x.py\ta\tPASS\na__x.py\ta\tL3\n", l, 4, err, sizeof err), -1);
    assert_non_null(strstr(err, "twice"));
    assert_int_equal(kb_labels_parse("a__x.py PASS\n", l, 4, err, sizeof err), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reply_ok),
        cmocka_unit_test(test_reply_refused),
        cmocka_unit_test(test_shapes_dtypes),
        cmocka_unit_test(test_allclose),
        cmocka_unit_test(test_allclose_slices),
        cmocka_unit_test(test_scores),
        cmocka_unit_test(test_batch_calls),
        cmocka_unit_test(test_times),
        cmocka_unit_test(test_pairing_labels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
