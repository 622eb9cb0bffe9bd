/* test_hist_host.c: the histogram sample's host-side rules (hist_host.c) and
 * the shared ones the kernels use too (hist_common.h), on the CPU. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hist_common.h"
#include "hist_host.h"

static void input_names_and_cases(void **state)
{
    (void)state;
    assert_string_equal(hist_input_name(HIST_UNIFORM), "uniform");
    assert_string_equal(hist_input_name(HIST_SKEWED), "skewed");
    assert_string_equal(hist_input_name(HIST_DEGENERATE), "degenerate");
    assert_null(hist_input_name(3));
    assert_null(hist_input_name(-1));

    hist_case c[HIST_MAX_CASES];
    char err[160];
    assert_int_equal(hist_cases("all", "256", c, err, sizeof err), 3);
    for (int k = 0; k < 3; k++) assert_true(c[k].kind == k && c[k].bins == 256);
    /* both bin counts: 256 first, inputs fastest */
    assert_int_equal(hist_cases("all", "both", c, err, sizeof err), 6);
    for (int k = 0; k < 6; k++) assert_true(c[k].kind == k % 3 && c[k].bins == (k < 3 ? 256 : 64));
    assert_int_equal(hist_cases("degenerate", "64", c, err, sizeof err), 1);
    assert_true(c[0].kind == HIST_DEGENERATE && c[0].bins == 64);
    assert_int_equal(hist_cases("skewed", "both", c, err, sizeof err), 2);
    assert_true(c[0].kind == HIST_SKEWED && c[1].kind == HIST_SKEWED && c[1].bins == 64);
    /* refused by name */
    assert_int_equal(hist_cases("gauss", "256", c, err, sizeof err), -1);
    assert_non_null(strstr(err, "--input=gauss"));
    assert_int_equal(hist_cases("uniform", "128", c, err, sizeof err), -1);
    assert_non_null(strstr(err, "--bins=128"));
}

/* 2^20 uniform bytes: every one of the 256 values within 6 standard
 * deviations (sqrt(4096 * 255/256) = 64) of 4096. A generator that lost a
 * bit of each byte would leave half the values empty. */
static void uniform_input_is_flat_and_reproducible(void **state)
{
    (void)state;
    enum { N = 1 << 20 };
    unsigned h[256] = {0};
    for (uint64_t i = 0; i < N; i++) {
        unsigned b = hist_input_byte(HIST_UNIFORM, 2026, i);
        assert_true(b < 256);
        h[b]++;
    }
    for (int v = 0; v < 256; v++) assert_in_range(h[v], 4096 - 6 * 64, 4096 + 6 * 64);
    /* the definition: byte i mod 8 of rng_hash(seed, A, i / 8) */
    for (uint64_t j = 0; j < 100; j += 9)
        for (unsigned k = 0; k < 8; k++)
            assert_int_equal(hist_input_byte(HIST_UNIFORM, 77, 8 * j + k),
                             (rng_hash(77, RNG_STREAM_A, j) >> (8 * k)) & 0xFF);
    /* a function of (seed, i): the same again, another seed differs */
    int same = 0;
    for (uint64_t i = 0; i < 4096; i++) {
        assert_int_equal(hist_input_byte(HIST_UNIFORM, 2026, i), hist_input_byte(HIST_UNIFORM, 2026, i));
        same += hist_input_byte(HIST_UNIFORM, 2026, i) == hist_input_byte(HIST_UNIFORM, 2027, i);
    }
    assert_true(same < 4096 / 64);   /* about 16 expected by chance */
}

/* The sum of 16 nibbles by hand, then the distribution the README states:
 * mean 120, sd 18.44, 0..240 only, 95.3% in 84..156, busiest bin 120. */
static void skewed_input_is_the_stated_bell_curve(void **state)
{
    (void)state;
    assert_int_equal(hist_nibble_sum(0), 0);
    assert_int_equal(hist_nibble_sum(~0ULL), 240);
    assert_int_equal(hist_nibble_sum(0x0123456789ABCDEFULL), 120);
    assert_int_equal(hist_nibble_sum(0xF000000000000001ULL), 16);

    enum { N = 1 << 20 };
    unsigned h[256] = {0};
    double sum = 0, sum2 = 0;
    for (uint64_t i = 0; i < N; i++) {
        unsigned b = hist_input_byte(HIST_SKEWED, 2026, i);
        h[b]++;
        sum += b;
        sum2 += (double)b * b;
    }
    double mean = sum / N, sd = sqrt(sum2 / N - mean * mean);
    assert_true(fabs(mean - 120.0) < 0.2);    /* standard error 0.018 */
    assert_true(fabs(sd - 18.439) < 0.2);
    for (int v = 241; v < 256; v++) assert_int_equal(h[v], 0);
    unsigned inside = 0, top = 0;
    int top_v = 0;
    for (int v = 84; v <= 156; v++) inside += h[v];
    for (int v = 0; v < 256; v++)
        if (h[v] > top) top = h[v], top_v = v;
    assert_true(fabs((double)inside / N - 0.9529) < 0.005);
    assert_in_range(top_v, 118, 122);          /* the exact mode is 120; noise may move it by 1-2 */
    assert_true(fabs((double)top / N - 0.0214) < 0.002);
}

static void degenerate_input_is_one_nonzero_value(void **state)
{
    (void)state;
    unsigned v = hist_degenerate_value(2026);
    assert_in_range(v, 1, 255);
    for (uint64_t i = 0; i < 100000; i += 7) assert_int_equal(hist_input_byte(HIST_DEGENERATE, 2026, i), v);
    int distinct = 0;
    for (uint64_t seed = 0; seed < 20000; seed++) {   /* a value 0 would show up ~78 times */
        unsigned w = hist_degenerate_value(seed);
        assert_in_range(w, 1, 255);   /* never 0: never a zero-filled buffer */
        assert_int_equal(w, 1 + rng_hash(seed, RNG_STREAM_C, 0) % 255);
        distinct += w != v;
    }
    assert_true(distinct > 19000);
}

/* The plan at the benchmark size: the eight sizes, offsets 1..15 at 17 and
 * 4097, offset 9 at 2^20+5, then n; and the rules for every n. */
static void check_plan_covers_sizes_and_offsets(void **state)
{
    (void)state;
    hist_check p[HIST_MAX_CHECKS];
    const size_t big = (size_t)512 << 20;
    int c = hist_check_plan(big, p);
    assert_int_equal(c, 8 + 15 + 15 + 1 + 1);
    const size_t sizes[] = {1, 3, 15, 16, 17, 1000, 4097, (1u << 20) + 5};
    for (int k = 0; k < 8; k++) assert_true(p[k].n == sizes[k] && p[k].offset == 0);
    for (int k = 0; k < 15; k++) assert_true(p[8 + k].n == 17 && p[8 + k].offset == (size_t)k + 1);
    for (int k = 0; k < 15; k++) assert_true(p[23 + k].n == 4097 && p[23 + k].offset == (size_t)k + 1);
    assert_true(p[38].n == (1u << 20) + 5 && p[38].offset == 9);
    assert_true(p[39].n == big && p[39].offset == 0);

    assert_int_equal(hist_check_plan(1, p), 1);
    assert_true(p[0].n == 1 && p[0].offset == 0);
    /* n = 17: the four smaller sizes, 17 at offsets 1..15, then 17 itself */
    assert_int_equal(hist_check_plan(17, p), 4 + 15 + 1);
    assert_true(p[4].n == 17 && p[4].offset == 1 && p[19].n == 17 && p[19].offset == 0);
    /* the --quick size: no 2^20+5 */
    assert_int_equal(hist_check_plan((1u << 16) + 5, p), 7 + 30 + 1);

    const size_t ns[] = {1, 2, 3, 14, 16, 17, 18, 999, 1000, 4096, 4097, 4098, 65541,
                         (1u << 20) + 4, (1u << 20) + 5, (1u << 20) + 6, ((size_t)1 << 32) + 1};
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
        c = hist_check_plan(ns[k], p);
        assert_in_range(c, 1, HIST_MAX_CHECKS);
        assert_true(p[c - 1].n == ns[k] && p[c - 1].offset == 0);   /* n itself, last */
        for (int j = 0; j < c; j++) {
            assert_true(p[j].n >= 1 && p[j].n <= ns[k] && p[j].offset < 16);
            assert_true(p[j].offset + p[j].n <= ns[k] + 15);         /* inside the buffer */
        }
    }
}

/* Grids: one round of work at small n, the resident blocks at large n, and
 * never a block counting past HIST_MAX_BLOCK_BYTES (+ one round), so its
 * 32-bit counters cannot reach 2^31. */
static void grid_fills_the_gpu_and_bounds_each_block(void **state)
{
    (void)state;
    const unsigned long long resident = 264;   /* 2 x 132 SMs */
    assert_int_equal(hist_grid_blocks(1, 16, 1024, resident), 1);
    assert_int_equal(hist_grid_blocks(17, 16, 1024, resident), 1);
    assert_int_equal(hist_grid_blocks(16 * 1024 + 1, 16, 1024, resident), 2);
    assert_int_equal(hist_grid_blocks(65541, 1, 1024, resident), 65);
    assert_int_equal(hist_grid_blocks((size_t)512 << 20, 16, 1024, resident), 264);
    /* n past resident x 2^30 bytes: more blocks than fit at once */
    assert_int_equal(hist_grid_blocks((size_t)1 << 40, 16, 1024, resident), 1024);
    assert_int_equal(hist_grid_blocks((size_t)1 << 40, 16, 1024, 1), 1024);

    const size_t ns[] = {1, 4097, (size_t)512 << 20, ((size_t)1 << 32) + 1, (size_t)1 << 35,
                         (size_t)1 << 40};
    const unsigned long long res[] = {1, 2, 264, 100000};
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++)
        for (size_t r = 0; r < sizeof res / sizeof res[0]; r++)
            for (unsigned bpt = 1; bpt <= 16; bpt += 15) {
                unsigned long long g = hist_grid_blocks(ns[k], bpt, 1024, res[r]);
                assert_true(g >= 1);
                unsigned long long most = hist_block_bytes_max(ns[k], g, 1024, bpt);
                assert_true(most <= HIST_MAX_BLOCK_BYTES + 1024ULL * bpt);
                assert_true(most < (1ULL << 31));
                assert_true(most * g >= ns[k]);   /* and the grid covers the input */
            }
}

/* The flush interval is the largest that keeps a 16-bit counter <= 65535,
 * for every block size and group count; and the overflow check's size does
 * overflow without it (and needs one flush inside the loop). */
static void flush_interval_is_tight_and_the_stress_size_overflows(void **state)
{
    (void)state;
    assert_int_equal(hist_flush_rounds(1024, 4), 511);
    assert_int_equal(hist_flush_rounds(32, 4), 4095);
    for (unsigned block = 32; block <= 1024; block += 32)
        for (unsigned groups = 1; groups <= 8; groups *= 2) {
            unsigned warps = block / 32, per_copy = (warps + groups - 1) / groups;
            unsigned f = hist_flush_rounds(block, groups);
            assert_true(f >= 1);
            assert_true(16ULL * per_copy * f <= 65535);
            assert_true(16ULL * per_copy * (f + 1) > 65535);
        }
    const unsigned long long vectors = HIST_STRESS_N / 16, rounds = vectors / 32;
    assert_true(vectors % 32 == 0);                   /* every lane the same rounds */
    assert_true(rounds * 16 > 65535);                 /* a counter would wrap without the flush */
    assert_true(rounds > hist_flush_rounds(32, 4));   /* the loop's flush runs */
    assert_true(rounds * 16 < 2 * 65535ULL);          /* and once is enough */
}

/* Shared memory per block: the figures of the README's capacity table, and
 * two blocks of the largest fit in an H200 SM (228 KiB, 1 KiB reserved per
 * block). */
static void shared_memory_per_layout(void **state)
{
    (void)state;
    const unsigned warps = 32;
    assert_int_equal(hist_smem_words(HIST_PER_BLOCK, 256, 1, 0, warps) * 4, 1024);
    assert_int_equal(hist_smem_words(HIST_PER_WARP, 256, 1, 0, warps) * 4, 32768);
    assert_int_equal(hist_smem_words(HIST_PER_LANE, 256, 1, 0, warps) * 4, 32768);
    assert_int_equal(hist_smem_words(HIST_PER_LANE, 256, 2, 0, warps) * 4, 65536);
    assert_int_equal(hist_smem_words(HIST_PER_LANE, 256, 4, 1, warps) * 4, 65536 + 1024);
    assert_int_equal(hist_copy_words(HIST_PER_LANE, 256, 4, 1, warps) * 4, 65536);
    assert_int_equal(hist_smem_words(HIST_PER_BLOCK, 64, 1, 0, warps) * 4, 256);
    assert_int_equal(hist_smem_words(HIST_PER_WARP, 64, 1, 0, warps) * 4, 8192);
    assert_int_equal(hist_smem_words(HIST_PER_LANE, 64, 2, 0, warps) * 4, 16384);
    assert_int_equal(hist_smem_words(HIST_PER_LANE, 64, 4, 1, warps) * 4, 16384 + 256);
    /* per-warp copies follow the block size; the one-warp launch of the check */
    assert_int_equal(hist_smem_words(HIST_PER_WARP, 256, 1, 0, 1) * 4, 1024);
    assert_int_equal(hist_smem_words(HIST_PER_LANE, 256, 4, 1, 1) * 4, 65536 + 1024);
    /* hist_lanes: copies, totals, ring (fast_r32_async: 4 slots of 16 bytes per thread) */
    assert_int_equal(hist_lanes_smem_bytes(256, 1024, 0), 32768 + 1024);
    assert_int_equal(hist_lanes_smem_bytes(256, 1024, 4), 32768 + 1024 + 65536);
    assert_int_equal(hist_lanes_smem_bytes(64, 1024, 4), 8192 + 256 + 65536);
    assert_int_equal(hist_lanes_smem_bytes(256, 64, 4), 32768 + 1024 + 4096);
    assert_int_equal(hist_lanes_smem_bytes(64, 32, 0), 8192 + 256);
    assert_true(2 * (hist_lanes_smem_bytes(256, 1024, 4) + 1024) <= 228 * 1024);
    assert_true(hist_lanes_smem_bytes(256, 1024, 4) <= 227 * 1024);   /* the most one block may have */
    assert_int_equal(hist_lanes_smem_bytes(256, 1024, 0) % 16, 0);     /* the ring starts 16-aligned */
    assert_int_equal(hist_lanes_smem_bytes(64, 1024, 0) % 16, 0);
    const int groups[] = {1, 2, 4}, pack[] = {0, 0, 1};
    for (int k = 0; k < 3; k++)
        assert_true(2 * (hist_smem_words(HIST_PER_LANE, 256, groups[k], pack[k], warps) * 4 + 1024) <=
                    228 * 1024);
}

/* The carveout asked for: enough for the blocks (the percentage of the
 * SM's shared memory never falls short of what they need), no more than one
 * percent over, at most 100. H200: 228 KiB of shared memory per SM. */
/* The waves grid: more blocks than SMs (so, at one block per SM, some start
 * where another finished), about a quarter more; and every block of it,
 * the last included, gets at least one whole vector of the n bytes, so the
 * blocks of the first wave all leave counts behind. */
static void waves_grid_has_a_second_wave_and_every_block_counts(void **state)
{
    (void)state;
    assert_int_equal(hist_waves_grid(132), 166);   /* H200 */
    assert_int_equal(hist_waves_grid(1), 2);
    assert_int_equal(hist_waves_grid(0), 2);        /* nonsense in, still a second wave */
    for (int sms = 1; sms <= 2048; sms++) {
        const unsigned g = hist_waves_grid(sms);
        assert_true(g > (unsigned)sms);
        assert_true(g <= (unsigned)sms + (unsigned)sms / 4 + 1);
        for (unsigned block = 32; block <= 1024; block *= 2) {
            const size_t n = hist_waves_n(sms, block);
            /* nv whole vectors after a head of at most 15 bytes */
            const size_t nv = (n - 15) / 16;
            assert_true(nv > (size_t)(g - 1) * block);   /* the last block's thread 0 has one */
            assert_true(n % 16 != 0);                      /* and a tail */
        }
    }
}

static void carveout_fits_the_blocks_and_no_more(void **state)
{
    (void)state;
    const size_t sm = 228 * 1024;
    /* fast_r32_l1: two blocks of 33 KiB (+ 1 KiB each): 68 KiB, 29.8% -> 30% */
    assert_int_equal(hist_carveout_percent(hist_lanes_smem_bytes(256, 1024, 0), 1024, 2, sm), 30);
    /* fast_r32_async: two blocks of 97 KiB: 196 KiB, 86% */
    assert_int_equal(hist_carveout_percent(hist_lanes_smem_bytes(256, 1024, 4), 1024, 2, sm), 86);
    assert_int_equal(hist_carveout_percent(0, 0, 2, sm), 0);
    assert_int_equal(hist_carveout_percent(sm, 0, 1, sm), 100);
    assert_int_equal(hist_carveout_percent(sm, 1024, 1, sm), 100);   /* more than there is: 100 */
    assert_int_equal(hist_carveout_percent(1000, 0, 1, 0), 100);     /* unknown size: all of it */
    for (size_t per = 0; per <= sm; per += 997)
        for (unsigned blocks = 1; blocks <= 4; blocks++) {
            const int pct = hist_carveout_percent(per, 1024, blocks, sm);
            const unsigned long long need = (per + 1024ULL) * blocks;
            assert_in_range(pct, 0, 100);
            if (need <= sm) {
                assert_true((unsigned long long)pct * sm >= need * 100);               /* enough */
                assert_true(pct == 0 || (unsigned long long)(pct - 1) * sm < need * 100); /* the least */
            } else {
                assert_int_equal(pct, 100);
            }
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(input_names_and_cases),
        cmocka_unit_test(uniform_input_is_flat_and_reproducible),
        cmocka_unit_test(skewed_input_is_the_stated_bell_curve),
        cmocka_unit_test(degenerate_input_is_one_nonzero_value),
        cmocka_unit_test(check_plan_covers_sizes_and_offsets),
        cmocka_unit_test(grid_fills_the_gpu_and_bounds_each_block),
        cmocka_unit_test(flush_interval_is_tight_and_the_stress_size_overflows),
        cmocka_unit_test(shared_memory_per_layout),
        cmocka_unit_test(waves_grid_has_a_second_wave_and_every_block_counts),
        cmocka_unit_test(carveout_fits_the_blocks_and_no_more),
    };
    return cmocka_run_group_tests_name("hist_host", tests, NULL, NULL);
}
