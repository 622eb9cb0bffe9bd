/* test_reduce_ref.c: the host side of the reduction samples: type parsing,
 * the integer inputs, the streamed reference against common/cpu_ref.c's sums
 * over a stored array, the exact check (and that it fails for a zero result,
 * a dropped element, a dropped block and a truncated n at 2^28 and 2^31+1),
 * and the stress-size sequence. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cpu_ref.h"
#include "reduce_input.h"
#include "reduce_ref.h"

static void test_types(void **state)
{
    (void)state;
    red_type t;
    assert_int_equal(red_type_parse("float", &t), 0);
    assert_int_equal(t, RED_FLOAT);
    assert_int_equal(red_type_parse("double", &t), 0);
    assert_int_equal(t, RED_DOUBLE);
    assert_int_equal(red_type_parse("int", &t), 0);
    assert_int_equal(t, RED_INT);
    assert_int_equal(red_type_parse("half", &t), -1);
    assert_int_equal(red_type_parse("", &t), -1);
    assert_int_equal(red_type_parse(NULL, &t), -1);
    assert_string_equal(red_type_name(RED_DOUBLE), "double");
    assert_int_equal(red_type_size(RED_FLOAT), 4);
    assert_int_equal(red_type_size(RED_DOUBLE), 8);
    assert_int_equal(red_type_size(RED_INT), 4);
    assert_int_equal(red_acc_size(RED_FLOAT), 4);
    assert_int_equal(red_acc_size(RED_INT), 8);
}

/* Nonzero integers, symmetric: -K..-1 and 1..K, every value seen. */
static void check_input_values(red_type t, int k, long long (*get)(uint64_t))
{
    (void)t;
    const uint64_t n = 400000;
    int seen_lo = 0, seen_hi = 0, seen_one = 0, seen_minus_one = 0;
    long long sum = 0;
    for (uint64_t i = 0; i < n; i++) {
        long long x = get(i);
        assert_true(x != 0);
        assert_true(x >= -k && x <= k);
        seen_lo |= x == -k;
        seen_hi |= x == k;
        seen_one |= x == 1;
        seen_minus_one |= x == -1;
        sum += x;
    }
    if (k <= 1000) assert_true(seen_lo && seen_hi);
    assert_true(seen_one && seen_minus_one);
    /* zero mean: |mean| within 6 standard errors (sigma <= k / sqrt 3) */
    double se = (double)k / sqrt(3.0) / sqrt((double)n);
    assert_true(fabs((double)sum / (double)n) < 6.0 * se);
}

static long long get_f32(uint64_t i) { return (long long)red_input_f32(7, i); }
static long long get_f64(uint64_t i) { return (long long)red_input_f64(7, i); }
static long long get_i32(uint64_t i) { return red_input_i32(7, i); }

static void test_inputs_are_nonzero_integers(void **state)
{
    (void)state;
    check_input_values(RED_FLOAT, RED_K_F32, get_f32);
    check_input_values(RED_DOUBLE, RED_K_F64, get_f64);
    check_input_values(RED_INT, RED_K_I32, get_i32);
    for (uint64_t i = 0; i < 1000; i++) {
        float f = red_input_f32(7, i);
        double d = red_input_f64(7, i);
        assert_true(f == floorf(f));   /* integers, exactly */
        assert_true(d == floor(d));
        assert_true(red_input_exact(RED_K_F32, 7, i) == (long long)f);
        assert_true(red_input_exact(RED_K_I32, 7, i) == red_input_i32(7, i));
    }
    /* Reproducible, and different seeds give different data. */
    assert_true(red_input_f32(1, 5) == red_input_f32(1, 5));
    int differ = 0;
    for (uint64_t i = 0; i < 64; i++) differ += red_input_f32(1, i) != red_input_f32(2, i);
    assert_true(differ > 32);
}

/* The streamed reference equals the stored-array sums of common/cpu_ref.c. */
static void test_prefixes_match_stored_sums(void **state)
{
    (void)state;
    const size_t n = 100003;
    float *f = malloc(n * sizeof *f);
    double *d = malloc(n * sizeof *d);
    int *k = malloc(n * sizeof *k);
    assert_non_null(f);
    assert_non_null(d);
    assert_non_null(k);
    for (size_t i = 0; i < n; i++) {
        f[i] = red_input_f32(42, i);
        d[i] = red_input_f64(42, i);
        k[i] = red_input_i32(42, i);
    }
    const size_t stops[] = {n, 1, 33, 2, 1000, 31, 1000};   /* any order, duplicates */
    const int ns = (int)(sizeof stops / sizeof stops[0]);
    red_ref rf[7], rd[7], ri[7];
    red_ref_prefixes(RED_FLOAT, 42, stops, ns, rf);
    red_ref_prefixes(RED_DOUBLE, 42, stops, ns, rd);
    red_ref_prefixes(RED_INT, 42, stops, ns, ri);
    for (int s = 0; s < ns; s++) {
        size_t m = stops[s];
        assert_int_equal(rf[s].n, m);
        assert_true(rf[s].sum == cpu_sum_f32(f, m));   /* exact: integer inputs */
        assert_true(rd[s].sum == cpu_sum_f64(d, m));
        assert_true(ri[s].isum == cpu_sum_i32(k, m));
        assert_true(rf[s].sum == (double)rf[s].isum);
        long long a = 0, s_ = 0, peak = 0;
        for (size_t i = 0; i < m; i++) {
            a += (long long)fabsf(f[i]);
            s_ += (long long)f[i];
            if (llabs(s_) > peak) peak = llabs(s_);
        }
        assert_true(rf[s].abs_sum == (double)a);
        assert_true(rf[s].max_abs_prefix == peak);
    }
    /* n = 1: the sum is the element itself. */
    assert_true(rf[1].sum == (double)f[0]);
    assert_true(ri[1].isum == k[0]);
    free(f);
    free(d);
    free(k);
}

static void test_exact_limits(void **state)
{
    (void)state;
    /* 2^24 + 1 is the first integer float cannot hold; 2^53 + 1 for double */
    assert_true(red_exact_limit(RED_FLOAT) == 16777216.0);
    assert_true((float)(red_exact_limit(RED_FLOAT) + 1.0) != red_exact_limit(RED_FLOAT) + 1.0);
    assert_true((float)(red_exact_limit(RED_FLOAT) - 1.0) == red_exact_limit(RED_FLOAT) - 1.0);
    assert_true(red_exact_limit(RED_DOUBLE) == 9007199254740992.0);
    assert_true(red_exact_limit(RED_INT) > 1e18);
}

static void test_check(void **state)
{
    (void)state;
    char msg[512];
    red_ref r;
    memset(&r, 0, sizeof r);
    r.n = 1000;
    r.isum = -37;
    r.sum = -37.0;
    assert_int_equal(red_check(RED_FLOAT, &r, -37.0, 0, msg, sizeof msg), 1);
    assert_string_equal(msg, "");
    /* exact: off by one element of value 1, or by one ulp of a large sum, fails */
    assert_int_equal(red_check(RED_FLOAT, &r, -36.0, 0, msg, sizeof msg), 0);
    assert_non_null(strstr(msg, "n=1000"));
    assert_non_null(strstr(msg, "expected -37"));
    assert_int_equal(red_check(RED_FLOAT, &r, -37.0 + 1.0 / 1024, 0, msg, sizeof msg), 0);
    assert_int_equal(red_check(RED_FLOAT, &r, 0.0, 0, msg, sizeof msg), 0);
    assert_int_equal(red_check(RED_FLOAT, &r, NAN, 0, msg, sizeof msg), 0);   /* poison */
    assert_int_equal(red_check(RED_DOUBLE, &r, INFINITY, 0, msg, sizeof msg), 0);
    assert_int_equal(red_check(RED_DOUBLE, &r, -37.0, 0, NULL, 0), 1);
    red_ref ri;
    memset(&ri, 0, sizeof ri);
    ri.n = 33;
    ri.isum = -17;
    ri.sum = -17.0;
    assert_int_equal(red_check(RED_INT, &ri, 0, -17, msg, sizeof msg), 1);
    assert_int_equal(red_check(RED_INT, &ri, 0, -18, msg, sizeof msg), 0);
    assert_non_null(strstr(msg, "off by -1"));
    assert_int_equal(red_check(RED_INT, &ri, 0, -1, msg, sizeof msg), 0);   /* poison */
}

/* The failures to guard against, at the sizes that matter, each checked against the
 * exact reference: a result of 0, one element dropped (the first or the
 * last), n truncated (2^31+1 summed as 2^31; or as a 32-bit int, which is
 * negative and sums nothing), half the array. The references stream
 * 2^31+1 generated values per type, a few seconds each. */
static void large_n_failures(red_type t)
{
    const uint64_t seed = 2026;   /* the samples' default --seed */
    const size_t n28 = (size_t)1 << 28, n31 = ((size_t)1 << 31) + 1;
    const size_t stops[] = {1, n28 / 2, n28 - 1, n28, n31 - 1, n31};
    red_ref r[6];
    red_ref_prefixes(t, seed, stops, 6, r);
    const red_ref *first = &r[0], *half = &r[1], *r28m1 = &r[2], *r28 = &r[3];
    const red_ref *r31m1 = &r[4], *r31 = &r[5];
    char msg[512];
    const red_ref *full[2] = {r28, r31};
    const red_ref *minus_last[2] = {r28m1, r31m1};
    for (int s = 0; s < 2; s++) {
        const red_ref *f = full[s];
        /* the right answer passes */
        assert_int_equal(red_check(t, f, f->sum, f->isum, msg, sizeof msg), 1);
        /* a zero result fails (the sum is not 0) */
        assert_true(f->isum != 0);
        assert_int_equal(red_check(t, f, 0.0, 0, msg, sizeof msg), 0);
        /* the last element dropped (a truncated n: 2^31+1 summed as 2^31) */
        assert_int_equal(red_check(t, f, minus_last[s]->sum, minus_last[s]->isum, msg,
                                   sizeof msg), 0);
        /* the first element dropped */
        assert_int_equal(red_check(t, f, f->sum - first->sum, f->isum - first->isum, msg,
                                   sizeof msg), 0);
        /* one element counted twice */
        assert_int_equal(red_check(t, f, f->sum + first->sum, f->isum + first->isum, msg,
                                   sizeof msg), 0);
        /* half the array */
        assert_int_equal(red_check(t, f, half->sum, half->isum, msg, sizeof msg), 0);
        /* float: every partial sum of the sequential order stays far inside
         * the exact range (the GPU's orders are sums of other index sets of
         * the same zero-mean values: reduce_input.h) */
        assert_true((double)f->max_abs_prefix * 16.0 < red_exact_limit(t));
    }
    /* n as a 32-bit int: 2^31+1 wraps negative, so nothing is summed: 0 */
    assert_true((int)(unsigned int)n31 < 0);
    assert_int_equal(red_check(t, r31, 0.0, 0, msg, sizeof msg), 0);
}

static void test_large_n_failures_float(void **state) { (void)state; large_n_failures(RED_FLOAT); }
static void test_large_n_failures_int(void **state) { (void)state; large_n_failures(RED_INT); }
static void test_large_n_failures_double(void **state) { (void)state; large_n_failures(RED_DOUBLE); }

/* A lost block is missed only if its values cancel exactly. Over 2^24
 * float inputs, count the aligned blocks of 256 (a tile of the tree
 * kernels) whose sum is 0: about 1 / (sigma sqrt(2 pi 256)) of them
 * (sigma = 9.67), i.e. 0.26%; and the aligned pairs that cancel: 1/32.
 * A single element never cancels (no input is 0). */
static void test_lost_block_visibility(void **state)
{
    (void)state;
    const size_t n = (size_t)1 << 24, m = 256;
    size_t zero_blocks = 0, blocks = 0, zero_pairs = 0, pairs = 0;
    long long bs = 0;
    for (size_t i = 0; i < n; i++) {
        long long x = red_input_exact(RED_K_F32, 2026, i);
        bs += x;
        if (i % 2 == 1) {
            pairs++;
            zero_pairs += x + red_input_exact(RED_K_F32, 2026, i - 1) == 0;
        }
        if (i % m == m - 1) {
            blocks++;
            zero_blocks += bs == 0;
            bs = 0;
        }
    }
    double fb = (double)zero_blocks / (double)blocks, fp = (double)zero_pairs / (double)pairs;
    print_message("lost-block visibility (float, seed 2026): %zu of %zu blocks of 256 sum to 0 "
                  "(%.3f%%), %zu of %zu pairs (%.2f%%)\n", zero_blocks, blocks, 100 * fb,
                  zero_pairs, pairs, 100 * fp);
    assert_true(fb > 0.0015 && fb < 0.0040);   /* 1 / (9.67 sqrt(2 pi 256)) = 0.26% */
    assert_true(fp > 0.028 && fp < 0.035);     /* 1/32 */
}

/* Float sums of the integer inputs are exact in the order the GPU kernels
 * use, not only in the compensated CPU sum: simulate the grid-stride kernels
 * (1056 blocks x 256 threads, float4 loads summed as (x+y)+(z+w), then a
 * tree over the thread sums) in float at 2^26 and compare exactly. */
static void test_float_sum_in_gpu_order_is_exact(void **state)
{
    (void)state;
    const size_t n = (size_t)1 << 26, threads = 1056 * 256, nv = n / 4;
    float *part = malloc(threads * sizeof *part);
    assert_non_null(part);
    for (size_t t = 0; t < threads; t++) {
        float acc = 0.0f;
        for (size_t v = t; v < nv; v += threads) {
            float x = red_input_f32(2026, 4 * v), y = red_input_f32(2026, 4 * v + 1);
            float z = red_input_f32(2026, 4 * v + 2), w = red_input_f32(2026, 4 * v + 3);
            acc += (x + y) + (z + w);
        }
        part[t] = acc;
    }
    for (size_t width = threads; width > 1; width = (width + 1) / 2)
        for (size_t i = 0; i < width / 2; i++) part[i] = part[i] + part[i + (width + 1) / 2];
    const size_t stop = n;
    red_ref r;
    red_ref_prefixes(RED_FLOAT, 2026, &stop, 1, &r);
    assert_true((double)part[0] == r.sum);
    char msg[512];
    assert_int_equal(red_check(RED_FLOAT, &r, (double)part[0], 0, msg, sizeof msg), 1);
    free(part);
}

static void test_stress_sizes(void **state)
{
    (void)state;
    const size_t max_n = (size_t)1 << 28;
    int small = 0, large = 0;
    for (uint64_t k = 0; k < 4000; k++) {
        size_t s = red_stress_size(9, k, max_n);
        assert_true(s >= 1 && s <= max_n);
        assert_true(s == red_stress_size(9, k, max_n));
        small += s < 256;
        large += s > (max_n >> 4);
    }
    /* Log-uniform: about 8/28 of the sizes under 256, 4/28 over max/16. */
    assert_true(small > 700 && small < 1600);
    assert_true(large > 300 && large < 900);
    for (uint64_t k = 0; k < 100; k++) assert_int_equal(red_stress_size(9, k, 1), 1);
    for (uint64_t k = 0; k < 1000; k++) assert_true(red_stress_size(3, k, 2) <= 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_types),
        cmocka_unit_test(test_inputs_are_nonzero_integers),
        cmocka_unit_test(test_prefixes_match_stored_sums),
        cmocka_unit_test(test_exact_limits),
        cmocka_unit_test(test_check),
        cmocka_unit_test(test_large_n_failures_float),
        cmocka_unit_test(test_large_n_failures_int),
        cmocka_unit_test(test_large_n_failures_double),
        cmocka_unit_test(test_lost_block_visibility),
        cmocka_unit_test(test_float_sum_in_gpu_order_is_exact),
        cmocka_unit_test(test_stress_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
