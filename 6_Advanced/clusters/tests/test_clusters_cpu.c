/* test_clusters_cpu.c: the clusters sample's host code on the CPU (make test
 * builds and runs every <folder>/tests/test_*.c with cmocka): the CPU
 * histogram, the inputs, the split of the bins over a cluster, the inbox
 * steps' shared memory, and the chains and sums the DSMEM probe is checked
 * with. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "clusters_common.h"
#include "clusters_cpu.h"

/* Counts add to what is there; every sample lands in the bin of its value. */
static void histogram_counts_values(void **state)
{
    (void)state;
    uint32_t *h = calloc(CL_BINS, sizeof *h);
    assert_non_null(h);
    const uint16_t d[6] = {0, 65535, 7, 7, 0, 7};
    h[7] = 10;
    clusters_cpu_hist(d, 6, h);
    assert_int_equal(h[0], 2);
    assert_int_equal(h[7], 13);
    assert_int_equal(h[65535], 1);
    uint64_t total = 0;
    for (unsigned b = 0; b < CL_BINS; b++) total += h[b];
    assert_int_equal(total, 16);
    clusters_cpu_hist(d, 0, h);   /* n = 0 adds nothing */
    assert_int_equal(h[0], 2);
    free(h);
}

/* Every slice of every cluster size is a whole number of bins, and owner
 * and offset address each bin of the span exactly once. */
static void split_covers_every_bin_once(void **state)
{
    (void)state;
    const unsigned sizes[][2] = {{1, 2}, {2, 1}, {4, 1}, {8, 1}, {16, 1}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const unsigned cluster = sizes[s][0], passes = sizes[s][1];
        const unsigned span = cl_span(passes), slice = cl_slice(cluster, passes);
        assert_int_equal(slice * cluster * passes, CL_BINS);
        assert_true(slice * 4 <= 227 * 1024);   /* fits one H200 block's shared memory */
        unsigned char *seen = calloc(span, 1);
        assert_non_null(seen);
        for (unsigned b = 0; b < span; b++) {
            const unsigned r = cl_owner(b, slice), o = cl_offset(b, slice);
            assert_true(r < cluster);
            assert_true(o < slice);
            assert_int_equal(seen[r * slice + o], 0);
            seen[r * slice + o] = 1;
        }
        free(seen);
    }
    /* One block alone cannot hold the 256 KiB: that is why size 1 takes two passes. */
    assert_true(cl_slice(1, 1) * 4 > 227 * 1024);
}

/* Uniform: every 16-bit value possible, spread evenly; skewed: bins 0 and 1
 * about 1/16 each, 56% of the samples below 256. */
static void inputs_have_their_shapes(void **state)
{
    (void)state;
    const size_t n = 1 << 20;
    uint32_t *u = calloc(CL_BINS, sizeof *u), *k = calloc(CL_BINS, sizeof *k);
    assert_non_null(u);
    assert_non_null(k);
    for (size_t i = 0; i < n; i++) {
        const unsigned a = cl_input_value(CL_UNIFORM, 2026, i), b = cl_input_value(CL_SKEWED, 2026, i);
        assert_true(a < CL_BINS);
        assert_true(b < CL_BINS);
        u[a]++;
        k[b]++;
    }
    uint32_t umax = 0, below256 = 0;
    for (unsigned b = 0; b < CL_BINS; b++) umax = u[b] > umax ? u[b] : umax;
    for (unsigned b = 0; b < 256; b++) below256 += k[b];
    assert_true(umax < 50);                    /* mean 16 per bin */
    assert_true(k[0] > n / 16 - n / 160 && k[0] < n / 16 + n / 160);
    assert_true(k[1] > n / 16 - n / 160 && k[1] < n / 16 + n / 160);
    /* P(v < 256) = 8/16 (shifts 8..15) + sum over shifts 0..7 of 2^(s-8) / 16 = 0.5623 */
    assert_true(below256 > (size_t)(0.5523 * n) && below256 < (size_t)(0.5723 * n));
    /* the same seed gives the same samples, another seed others */
    assert_int_equal(cl_input_value(CL_UNIFORM, 7, 12345), cl_input_value(CL_UNIFORM, 7, 12345));
    int differ = 0;
    for (size_t i = 0; i < 64; i++) differ += cl_input_value(CL_UNIFORM, 7, i) != cl_input_value(CL_UNIFORM, 8, i);
    assert_true(differ > 60);
    free(u);
    free(k);
}

/* Sattolo's chain is one cycle through every index, and the chase's end
 * is where the host says. */
static void chain_is_one_cycle(void **state)
{
    (void)state;
    const uint32_t words = CL_CHASE_WORDS;
    uint32_t *next = malloc(words * sizeof *next);
    unsigned char *seen = calloc(words, 1);
    assert_non_null(next);
    assert_non_null(seen);
    clusters_make_chain(next, words, 2026);
    uint32_t j = 0;
    for (uint32_t k = 0; k < words; k++) {
        assert_true(next[j] < words);
        assert_int_equal(seen[j], 0);
        seen[j] = 1;
        j = next[j];
    }
    assert_int_equal(j, 0);   /* back at the start after exactly `words` steps */
    assert_int_equal(clusters_chase_end(next, 0, words), 0);
    assert_int_equal(clusters_chase_end(next, 0, 1), next[0]);
    assert_int_equal(clusters_chase_end(next, 5, 2), next[next[5]]);
    free(next);
    free(seen);
}

/* The inbox steps' shared memory: what the variant table launches fits one
 * H200 block, and one more vector per round at cluster 4 would not (the
 * sizes the step files quote). The chunks hold every peer's worst case:
 * a warp's send of K <= 256 samples takes ceil(K / 8) <= 32 chunks, so C - 1
 * peers of `threads` threads, `vecs` sends each per warp, need at most
 * (C - 1) * threads * vecs; tried here for every K. */
static void inbox_fits_and_holds_the_worst_case(void **state)
{
    (void)state;
    const unsigned t = 1024;
    assert_int_equal(cl_inbox_smem_bytes(2, t, CL_INBOX_VECS2, 0), 131072 + 16 + 65536);    /* step 08 */
    assert_int_equal(cl_inbox_smem_bytes(2, t, CL_INBOX_VECS2, 1), 131072 + 16 + 65536 + 16384);   /* 208 KiB */
    assert_int_equal(cl_inbox_smem_bytes(4, t, CL_INBOX_VECS4, 1), 65536 + 16 + 147456 + 16384);   /* 224 KiB */
    assert_true(cl_inbox_smem_bytes(2, t, CL_INBOX_VECS2, 1) <= CL_SMEM_MAX);
    assert_true(cl_inbox_smem_bytes(4, t, CL_INBOX_VECS4, 1) <= CL_SMEM_MAX);
    assert_true(cl_inbox_smem_bytes(4, t, CL_INBOX_VECS4 + 1, 1) > CL_SMEM_MAX);
    /* every part a multiple of 16 bytes (uint4 reads of the inbox and the staging) */
    assert_int_equal(cl_inbox_smem_bytes(2, 32, 1, 0) % 16, 0);
    assert_int_equal((CL_BINS / 4 * 4 + 16) % 16, 0);
    for (unsigned c = 2; c <= 4; c += 2)
        for (unsigned v = 1; v <= 4; v++) {
            assert_int_equal(8 * cl_inbox_chunks(c, t, v), cl_inbox_entries(c, t, v));
            unsigned long worst = 0;   /* every send to me as large in chunks as it can be */
            for (unsigned k = 0; k <= 256; k++) {
                const unsigned long per_send = (k + 7) / 8;
                assert_true(per_send <= 32);
                if (per_send > worst) worst = per_send;
            }
            assert_true((c - 1) * (t / 32) * v * worst <= cl_inbox_chunks(c, t, v));
        }
    /* the pad is never an offset of a slice */
    assert_true(CL_EMPTY >= cl_slice(2, 1));
}

static void bandwidth_sum(void **state)
{
    (void)state;
    assert_int_equal(cl_bw_expected_sum(1, 1, 4), 6);            /* 0 + 1 + 2 + 3 */
    assert_int_equal(cl_bw_expected_sum(264, 256, CL_BW_WORDS), 264ull * 256 * (8192ull * 8191 / 2));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(histogram_counts_values),
        cmocka_unit_test(split_covers_every_bin_once),
        cmocka_unit_test(inputs_have_their_shapes),
        cmocka_unit_test(chain_is_one_cycle),
        cmocka_unit_test(inbox_fits_and_holds_the_worst_case),
        cmocka_unit_test(bandwidth_sum),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
