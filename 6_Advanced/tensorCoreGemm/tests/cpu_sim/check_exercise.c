/* check_exercise.c: the CPU check of one of tensorCoreGemm's exercises
 * (run.sh builds it with -DEXERCISE_FILE='"path"'). The exercises replace a
 * pure function the kernels use (exercises/README.md); a GPU-only kernel
 * cannot run here, so this checks the function for the properties the kernel
 * relies on, independently of the sample's own code:
 *   1 ex_swizzle      a permutation of the 8 chunks of every row, and chunk c
 *                     of 8 consecutive rows (one ldmatrix phase) in 8 places
 *   2 ex_tile_of      every tile taken by exactly one block, at many grid
 *                     shapes, and waves of 132 blocks reading at most 60% of
 *                     the panels of A and B that row-major order reads
 *   3 ex_wgmma_desc   each field decoded by the PTX ISA's layout, for every
 *                     address and stride the kernel uses
 * Prints what is wrong and "SIM FAIL: <the first problem>", or "SIM PASS";
 * exit 0 PASS, 1 FAIL. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tc_layout.h" /* TC_HD only: the checks below do not use the sample's answers */
#include EXERCISE_FILE

static int problems = 0;
static char first[300];

static void problem(const char *msg)
{
    if (problems < 8) printf("  %s\n", msg);
    if (!problems) snprintf(first, sizeof first, "%s", msg);
    problems++;
}

#if EXERCISE_CPU_CHECK == 1
static void check(void)
{
    char m[300];
    for (uint32_t row = 0; row < 256; row++) { /* the tiles have 128 (A) and 64 (B) rows */
        unsigned seen = 0;
        for (uint32_t c = 0; c < 8; c++) {
            uint32_t p = ex_swizzle(row, c);
            if (p > 7) {
                snprintf(m, sizeof m, "ex_swizzle(row %u, chunk %u) = %u: a place in a 128-byte "
                         "row is 0..7", row, c, p);
                problem(m);
                return;
            }
            if (seen & (1u << p)) {
                snprintf(m, sizeof m, "row %u: two chunks in place %u (ex_swizzle(%u, %u) = %u): "
                         "a row must hold each of its 8 chunks once", row, p, row, c, p);
                problem(m);
                break;
            }
            seen |= 1u << p;
        }
    }
    for (uint32_t r0 = 0; r0 < 256; r0 += 8)
        for (uint32_t c = 0; c < 8; c++) {
            unsigned seen = 0;
            for (uint32_t r = r0; r < r0 + 8; r++) {
                uint32_t p = ex_swizzle(r, c);
                if (seen & (1u << p)) {
                    snprintf(m, sizeof m, "chunk %u of rows %u..%u: two of them in place %u: one "
                             "ldmatrix phase reads these 8 and they share banks (a bank "
                             "conflict)", c, r0, r0 + 7, p);
                    problem(m);
                    break;
                }
                seen |= 1u << p;
            }
        }
}
#elif EXERCISE_CPU_CHECK == 2
/* Average number of distinct tile rows + tile columns in waves of `wave`
 * consecutive blocks, with the exercise's order (or row-major: mine = 0). */
static double panels_per_wave(int tiles_m, int tiles_n, int wave, int mine)
{
    int total = tiles_m * tiles_n, waves = 0;
    double sum = 0;
    char *row = calloc((size_t)tiles_m, 1), *col = calloc((size_t)tiles_n, 1);
    if (!row || !col) abort();
    for (int t0 = 0; t0 < total; t0 += wave) {
        int n = 0;
        for (int i = 0; i < tiles_m; i++) row[i] = 0;
        for (int j = 0; j < tiles_n; j++) col[j] = 0;
        for (int t = t0; t < t0 + wave && t < total; t++) {
            int tm = t / tiles_n, tn = t % tiles_n;
            if (mine) ex_tile_of(t, tiles_m, tiles_n, &tm, &tn);
            if (!row[tm]) { row[tm] = 1; n++; }
            if (!col[tn]) { col[tn] = 1; n++; }
        }
        sum += n;
        waves++;
    }
    free(row);
    free(col);
    return sum / waves;
}

static void check(void)
{
    char m[300];
    static const int dims[] = {1, 2, 3, 5, 7, 15, 16, 17, 31, 33, 47, 64, 65, 100, 128};
    const int nd = (int)(sizeof dims / sizeof dims[0]);
    for (int a = 0; a < nd; a++)
        for (int b = 0; b < nd; b++) {
            int tiles_m = dims[a], tiles_n = dims[b], total = tiles_m * tiles_n, bad = 0;
            char *taken = calloc((size_t)total, 1);
            if (!taken) abort();
            for (int t = 0; t < total && !bad; t++) {
                int tm = -1, tn = -1;
                ex_tile_of(t, tiles_m, tiles_n, &tm, &tn);
                if (tm < 0 || tm >= tiles_m || tn < 0 || tn >= tiles_n) {
                    snprintf(m, sizeof m, "%d x %d tiles: block %d -> tile (%d, %d), outside the "
                             "grid", tiles_m, tiles_n, t, tm, tn);
                    problem(m);
                    bad = 1;
                } else if (taken[tm * tiles_n + tn]++) {
                    snprintf(m, sizeof m, "%d x %d tiles: tile (%d, %d) taken twice (again by "
                             "block %d): some other tile is never computed", tiles_m, tiles_n,
                             tm, tn, t);
                    problem(m);
                    bad = 1;
                }
            }
            free(taken);
        }
    if (problems) return;
    static const int squares[] = {64, 128}; /* 8192^3 and 16384^3 in 128 x 128 tiles */
    for (int i = 0; i < 2; i++) {
        int d = squares[i];
        double mine = panels_per_wave(d, d, 132, 1), rows = panels_per_wave(d, d, 132, 0);
        printf("  %d x %d tiles, waves of 132 blocks: %.1f panels of A and B each, row-major "
               "order %.1f\n", d, d, mine, rows);
        if (mine > 0.6 * rows) {
            snprintf(m, sizeof m, "%d x %d tiles: a wave of 132 blocks reads %.1f panels of A "
                     "and B, row-major order %.1f: want at most 60%% of that (%.1f)", d, d, mine,
                     rows, 0.6 * rows);
            problem(m);
        }
    }
}
#elif EXERCISE_CPU_CHECK == 3
/* field (bits lo..hi) of a descriptor */
static uint64_t field(uint64_t d, int lo, int hi)
{
    return (d >> lo) & ((1ull << (hi - lo + 1)) - 1);
}

static void check(void)
{
    char m[300];
    /* every 16-byte aligned address of the 228 KiB of shared memory an SM has
     * (the kernel's tiles are at 1024-aligned bases plus 32 * k steps), with
     * the strides the kernel passes (A: LBO 16, B: LBO 8192, SBO 1024), and
     * others */
    static const uint32_t lbos[] = {16, 8192, 4096, 128}, sbos[] = {1024, 2048, 512};
    for (uint32_t addr = 0; addr < 228u * 1024u && problems < 8; addr += 16)
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 3; j++) {
                uint64_t d = ex_wgmma_desc(addr, lbos[i], sbos[j]);
                const char *what = NULL;
                uint64_t want = 0, got = 0;
                if ((got = field(d, 0, 13)) != (want = (addr & 0x3FFFF) >> 4)) what = "start address (bits 0-13)";
                else if ((got = field(d, 16, 29)) != (want = (lbos[i] & 0x3FFFF) >> 4)) what = "leading dimension byte offset (bits 16-29)";
                else if ((got = field(d, 32, 45)) != (want = (sbos[j] & 0x3FFFF) >> 4)) what = "stride dimension byte offset (bits 32-45)";
                else if ((got = field(d, 49, 51)) != (want = 0)) what = "base offset (bits 49-51)";
                else if ((got = field(d, 62, 63)) != (want = 1)) what = "swizzle mode (bits 62-63; 1 = 128-byte)";
                else if ((got = d & ~(0x3FFFull | 0x3FFFull << 16 | 0x3FFFull << 32 | 7ull << 49 |
                                      3ull << 62)) != (want = 0))
                    what = "bits outside the fields (14-15, 30-31, 46-48, 52-61)";
                if (what) {
                    snprintf(m, sizeof m, "ex_wgmma_desc(0x%x, %u, %u) = 0x%016llx: the %s holds "
                             "0x%llx, want 0x%llx", addr, lbos[i], sbos[j], (unsigned long long)d,
                             what, (unsigned long long)got, (unsigned long long)want);
                    problem(m);
                    i = 4;
                    break;
                }
            }
}
#else
#error "the exercise file does not say which CPU check judges it (#define EXERCISE_CPU_CHECK 1, 2 or 3)"
#endif

int main(void)
{
    printf("CPU check of %s (exercise for %s)\n", EXERCISE_FILE, EXERCISE_BASE);
    check();
    if (problems) {
        printf("SIM FAIL: %s%s\n", first, problems > 1 ? " (and more above)" : "");
        return 1;
    }
    printf("SIM PASS\n");
    return 0;
}
