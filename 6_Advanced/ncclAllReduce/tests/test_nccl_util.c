/* test_nccl_util.c: ncclAllReduce's host-only parts: nccl-tests' byte
 * counts and bandwidth arithmetic, the sweep, the inputs and expected
 * outputs of each collective, and the record. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "json_valid.h"
#include "nccl_util.h"
#include "report.h"

static void busbw_factors(void **state)
{
    (void)state;
    /* nccl-tests doc/PERFORMANCE.md: 2(n-1)/n and (n-1)/n */
    assert_float_equal(coll_busbw_factor(COLL_ALL_REDUCE, 2), 1.0, 0);
    assert_float_equal(coll_busbw_factor(COLL_ALL_REDUCE, 4), 1.5, 0);
    assert_float_equal(coll_busbw_factor(COLL_ALL_REDUCE, 8), 1.75, 0);
    assert_float_equal(coll_busbw_factor(COLL_ALL_REDUCE, 3), 4.0 / 3.0, 1e-15);
    assert_float_equal(coll_busbw_factor(COLL_ALL_REDUCE, 1), 0.0, 0);   /* nothing moves */
    assert_float_equal(coll_busbw_factor(COLL_REDUCE_SCATTER, 2), 0.5, 0);
    assert_float_equal(coll_busbw_factor(COLL_REDUCE_SCATTER, 8), 0.875, 0);
    assert_float_equal(coll_busbw_factor(COLL_ALL_GATHER, 4), 0.75, 0);
    assert_float_equal(coll_busbw_factor(COLL_ALL_GATHER, 0), 0.0, 0);
    assert_float_equal(coll_busbw_factor((coll_kind)7, 4), 0.0, 0);
    assert_int_equal(coll_selftest_busbw(), 0);
}

static void bandwidths(void **state)
{
    (void)state;
    /* 1 GiB all-reduced over 2 ranks in 3 ms: algbw 357.9 GB/s, busbw the same */
    assert_float_equal(coll_algbw(1073741824.0, 3.0), 357.913941, 1e-5);
    assert_float_equal(coll_busbw(COLL_ALL_REDUCE, 1073741824.0, 3.0, 2), 357.913941, 1e-5);
    /* over 8 ranks: busbw 1.75 x algbw */
    assert_float_equal(coll_busbw(COLL_ALL_REDUCE, 1073741824.0, 3.0, 8), 626.349397, 1e-5);
    /* all-gather of S = 1 GiB (the whole array) over 4 ranks in 2 ms */
    assert_float_equal(coll_busbw(COLL_ALL_GATHER, 1073741824.0, 2.0, 4), 402.653184, 1e-5);
    assert_float_equal(coll_algbw(1e9, 0.0), 0.0, 0);
    assert_float_equal(coll_algbw(1e9, -1.0), 0.0, 0);
}

static void counts(void **state)
{
    (void)state;
    coll_counts k;
    /* all_reduce: bytes / 4 floats in and out on every rank, S = one buffer */
    assert_int_equal(coll_counts_for(COLL_ALL_REDUCE, 8, 4, 2, &k), 0);
    assert_int_equal(k.param_count, 2);
    assert_int_equal(k.send_count, 2);
    assert_int_equal(k.recv_count, 2);
    assert_float_equal(k.S_bytes, 8, 0);
    assert_int_equal(coll_counts_for(COLL_ALL_REDUCE, 1u << 30, 4, 8, &k), 0);
    assert_int_equal(k.param_count, 1u << 28);
    assert_float_equal(k.S_bytes, 1073741824.0, 0);
    /* reduce_scatter: recvcount per rank, sendcount n times it, S = the array */
    assert_int_equal(coll_counts_for(COLL_REDUCE_SCATTER, 1u << 30, 4, 8, &k), 0);
    assert_int_equal(k.param_count, (1u << 28) / 8);
    assert_int_equal(k.recv_count, (1u << 28) / 8);
    assert_int_equal(k.send_count, 1u << 28);
    assert_float_equal(k.S_bytes, 1073741824.0, 0);
    /* all_gather: sendcount per rank, recvcount n times it */
    assert_int_equal(coll_counts_for(COLL_ALL_GATHER, 1u << 20, 4, 2, &k), 0);
    assert_int_equal(k.param_count, 131072);
    assert_int_equal(k.send_count, 131072);
    assert_int_equal(k.recv_count, 262144);
    assert_float_equal(k.S_bytes, 1048576.0, 0);
    /* 3 ranks: the remainder is dropped, S says what really moved */
    assert_int_equal(coll_counts_for(COLL_REDUCE_SCATTER, 1024, 4, 3, &k), 0);
    assert_int_equal(k.recv_count, 85);
    assert_int_equal(k.send_count, 255);
    assert_float_equal(k.S_bytes, 1020.0, 0);
    /* tiny sizes on many ranks: at least one element each */
    assert_int_equal(coll_counts_for(COLL_ALL_GATHER, 8, 4, 8, &k), 0);
    assert_int_equal(k.send_count, 1);
    assert_float_equal(k.S_bytes, 32.0, 0);
    /* refused */
    assert_int_equal(coll_counts_for(COLL_ALL_REDUCE, 3, 4, 2, &k), -1);
    assert_int_equal(coll_counts_for(COLL_ALL_REDUCE, 8, 4, 0, &k), -1);
    assert_int_equal(coll_counts_param(COLL_ALL_REDUCE, 0, 4, 2, &k), -1);
    assert_int_equal(coll_counts_param((coll_kind)9, 5, 4, 2, &k), -1);
    /* from the count NCCL is called with */
    assert_int_equal(coll_counts_param(COLL_REDUCE_SCATTER, 12345, 4, 2, &k), 0);
    assert_int_equal(k.send_count, 24690);
    assert_float_equal(k.S_bytes, 98760.0, 0);
}

static void sweep(void **state)
{
    (void)state;
    long long s[COLL_MAX_SIZES];
    char err[256];
    int n = coll_plan_sizes(8, 1LL << 30, 2, s, COLL_MAX_SIZES, err, sizeof err);
    assert_int_equal(n, 28);   /* 2^3 .. 2^30 */
    assert_int_equal(s[0], 8);
    assert_int_equal(s[27], 1LL << 30);
    n = coll_plan_sizes(8, 1 << 20, 16, s, COLL_MAX_SIZES, err, sizeof err);   /* --quick */
    assert_int_equal(n, 5);
    assert_int_equal(s[4], 524288);
    n = coll_plan_sizes(1000, 1000, 2, s, COLL_MAX_SIZES, err, sizeof err);
    assert_int_equal(n, 1);
    /* near the top of the range: no overflow */
    n = coll_plan_sizes(1LL << 33, 1LL << 34, 1024, s, COLL_MAX_SIZES, err, sizeof err);
    assert_int_equal(n, 1);
    n = coll_plan_sizes(4, 9223372036854775807LL, 1024, s, COLL_MAX_SIZES, err, sizeof err);
    assert_int_equal(n, 7);   /* 4 * 1024^k, k = 0..6, never past LLONG_MAX */
    assert_int_equal(coll_plan_sizes(2, 8, 2, s, COLL_MAX_SIZES, err, sizeof err), -1);
    assert_non_null(strstr(err, "--min-bytes=2"));
    assert_int_equal(coll_plan_sizes(64, 8, 2, s, COLL_MAX_SIZES, err, sizeof err), -1);
    assert_non_null(strstr(err, "--max-bytes=8"));
    assert_int_equal(coll_plan_sizes(8, 64, 1, s, COLL_MAX_SIZES, err, sizeof err), -1);
    assert_non_null(strstr(err, "--factor=1"));
    assert_int_equal(coll_plan_sizes(4, 1LL << 34, 2, s, 4, err, sizeof err), -1);
    assert_non_null(strstr(err, "more than 4 sizes"));
}

static void batches(void **state)
{
    (void)state;
    assert_int_equal(coll_batch_for(8, 100), 100);
    assert_int_equal(coll_batch_for(1 << 20, 100), 64);
    assert_int_equal(coll_batch_for(64.0 * 1048576, 100), 1);
    assert_int_equal(coll_batch_for(1 << 30, 100), 1);
    assert_int_equal(coll_batch_for(8, 2), 2);        /* --quick */
    assert_int_equal(coll_batch_for(0, 100), 100);
    assert_int_equal(coll_batch_for(8, 0), 1);
}

static void inputs_are_whole_and_varied(void **state)
{
    (void)state;
    int neg = 0, pos = 0, big = 0;
    for (uint64_t i = 0; i < 100000; i++) {
        float v = coll_input_value(2026, coll_input_stream(1, 0), i);
        assert_true(v == floorf(v));
        assert_true(v >= -1000 && v <= 1000);
        neg += v < 0;
        pos += v > 0;
        big += fabsf(v) > 900;
    }
    assert_true(neg > 45000 && pos > 45000 && big > 8000);
    /* rounds and ranks are different streams */
    assert_true(coll_input_stream(1, 0) != coll_input_stream(2, 0));
    assert_true(coll_input_stream(1, 0) != coll_input_stream(1, 1));
    int same = 0;
    for (uint64_t i = 0; i < 1000; i++)
        same += coll_input_value(2026, coll_input_stream(1, 0), i) ==
                coll_input_value(2026, coll_input_stream(2, 0), i);
    assert_true(same < 10);
}

static void expected_outputs(void **state)
{
    (void)state;
    const int n = 3;
    const uint64_t seed = 7, round = 5;
    coll_counts k;
    /* all_reduce: the sum over ranks, exact in any order */
    assert_int_equal(coll_counts_param(COLL_ALL_REDUCE, 1001, 4, n, &k), 0);
    float *out = malloc(sizeof(float) * 4096);
    coll_expected_fill(COLL_ALL_REDUCE, &k, seed, round, n, 1, out);
    for (size_t j = 0; j < k.recv_count; j++) {
        float fwd = 0, back = 0;
        for (int q = 0; q < n; q++) fwd += coll_input_value(seed, coll_input_stream(round, q), j);
        for (int q = n - 1; q >= 0; q--) back += coll_input_value(seed, coll_input_stream(round, q), j);
        assert_true(fwd == back);
        assert_true(out[j] == fwd);
        assert_true(coll_expected(COLL_ALL_REDUCE, &k, seed, round, n, 2, j) == fwd);
    }
    /* reduce_scatter: rank r's block of the sum */
    assert_int_equal(coll_counts_param(COLL_REDUCE_SCATTER, 17, 4, n, &k), 0);
    for (int r = 0; r < n; r++) {
        coll_expected_fill(COLL_REDUCE_SCATTER, &k, seed, round, n, r, out);
        for (size_t j = 0; j < 17; j++) {
            float want = 0;
            for (int q = 0; q < n; q++)
                want += coll_input_value(seed, coll_input_stream(round, q), (uint64_t)r * 17 + j);
            assert_true(out[j] == want);
            assert_true(coll_expected(COLL_REDUCE_SCATTER, &k, seed, round, n, r, j) == want);
        }
    }
    /* all_gather: rank q's input at q * sendcount, on every rank */
    assert_int_equal(coll_counts_param(COLL_ALL_GATHER, 5, 4, n, &k), 0);
    coll_expected_fill(COLL_ALL_GATHER, &k, seed, round, n, 0, out);
    for (int q = 0; q < n; q++)
        for (size_t i = 0; i < 5; i++) {
            float want = coll_input_value(seed, coll_input_stream(round, q), i);
            assert_true(out[q * 5 + i] == want);
            assert_true(coll_expected(COLL_ALL_GATHER, &k, seed, round, n, 2, q * 5 + i) == want);
        }
    assert_true(coll_same_output_everywhere(COLL_ALL_REDUCE));
    assert_true(coll_same_output_everywhere(COLL_ALL_GATHER));
    assert_false(coll_same_output_everywhere(COLL_REDUCE_SCATTER));
    /* dropping one rank's input changes the sum (what the check must see) */
    assert_int_equal(coll_counts_param(COLL_ALL_REDUCE, 1000, 4, n, &k), 0);
    coll_expected_fill(COLL_ALL_REDUCE, &k, seed, round, n, 0, out);
    int differ = 0;
    for (size_t j = 0; j < 1000; j++) {
        float partial = 0;
        for (int q = 1; q < n; q++) partial += coll_input_value(seed, coll_input_stream(round, q), j);
        differ += partial != out[j];
    }
    assert_true(differ > 990);
    free(out);
}

static void record(void **state)
{
    (void)state;
    report_init("ncclAllReduce", 0);
    coll_row row;
    memset(&row, 0, sizeof row);
    row.coll = COLL_REDUCE_SCATTER;
    row.nranks = 2;
    row.S_bytes = 1073741824.0;
    row.param_count = 134217728;
    row.ok = 1;
    row.time_ms = 3.0;
    row.algbw = coll_algbw(row.S_bytes, row.time_ms);
    row.busbw = coll_busbw(row.coll, row.S_bytes, row.time_ms, row.nranks);
    row.batch = 1;
    row.trials = 20;
    result_rec r;
    coll_fill_record(&r, &row);
    char buf[2048], err[200];
    assert_true(rec_format_text(&r, buf, sizeof buf) > 0);
    assert_string_equal(buf, "RESULT sample=ncclAllReduce variant=reduce_scatter ranks=2 "
                             "bytes=1073741824 count=134217728 status=PASS time_ms=3 gbps=179 "
                             "algbw=357.9 busbw=179 counted=busbw batch=1 trials=20");
    assert_true(rec_format_json(&r, buf, sizeof buf) > 0);
    if (!json_valid(buf, strlen(buf), err, sizeof err)) fail_msg("%s: %s", err, buf);
    row.peak_gbps = 450;
    coll_fill_record(&r, &row);
    assert_true(rec_format_text(&r, buf, sizeof buf) > 0);
    assert_non_null(strstr(buf, "gbps=179 pct_peak=39.77 algbw"));
    row.ok = 0;
    coll_fill_record(&r, &row);
    assert_true(rec_format_text(&r, buf, sizeof buf) > 0);
    assert_string_equal(buf, "RESULT sample=ncclAllReduce variant=reduce_scatter ranks=2 "
                             "bytes=1073741824 count=134217728 status=FAIL");
    assert_string_equal(coll_name(COLL_ALL_GATHER), "all_gather");
    assert_string_equal(coll_name((coll_kind)5), "?");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(busbw_factors),
        cmocka_unit_test(bandwidths),
        cmocka_unit_test(counts),
        cmocka_unit_test(sweep),
        cmocka_unit_test(batches),
        cmocka_unit_test(inputs_are_whole_and_varied),
        cmocka_unit_test(expected_outputs),
        cmocka_unit_test(record),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
