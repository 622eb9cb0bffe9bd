/* Exercise 1: the swizzle that replaces the padding (step 3 -> step 4).
 *
 * Step 3 (mma_ldmatrix_pad64) pads every row of its shared-memory tiles by 16
 * bytes so that the 8 rows an ldmatrix phase reads start in different banks.
 * Store the tiles without padding instead (rows of 128 bytes: 8 chunks of 16
 * bytes), and decide where each chunk goes inside its row so that
 *   - no two chunks of a row land in the same place (each row is a
 *     permutation of its 8 chunks), and
 *   - chunk c of 8 consecutive rows (rows 8q .. 8q+7: what one ldmatrix phase
 *     reads) lands in 8 different places (then they are in 8 different groups
 *     of 4 banks, and the read takes one pass instead of 8).
 * Write ex_swizzle below. The kernel stores and reads both A's and B's tiles
 * through it (B's rows are 256 bytes: each 128-byte half is placed alike).
 *
 * Check it:  make try SAMPLE=tensorCoreGemm EX=1
 * (on the GPU: the sample's checks and your speed against step 3; without
 * one: tests/cpu_sim/run.sh checks the two rules above). Hints and what to
 * observe: exercises/README.md. */
#define EXERCISE_BASE "mma_ldmatrix_pad64"
#define EXERCISE_WHAT "exercise 1: your swizzle instead of step 3's padding"
#define EXERCISE_CPU_CHECK 1 /* which check tests/cpu_sim/check_exercise.c runs */

/* ---- your code ---------------------------------------------------------------
 * The place (0..7) of 16-byte chunk `chunk` (0..7) in row `row` of a tile. */
TC_HD uint32_t ex_swizzle(uint32_t row, uint32_t chunk)
{
    (void)row;
    (void)chunk;
    return 0; /* every chunk of a row in place 0: they overwrite each other */
}
/* ---- end of your code ------------------------------------------------------ */

#ifdef __CUDACC__
/* Step 3's tiles without the padding, placed by ex_swizzle. */
struct ex1_layout {
    static constexpr int BK = 64;
    static constexpr int A_BYTES = MM_BM * BK * 2, B_BYTES = BK * MM_BN * 2;
    static __device__ __forceinline__ uint32_t a_off(int r, int chunk)
    {
        return (uint32_t)r * 128u + ex_swizzle((uint32_t)r, (uint32_t)chunk) * 16u;
    }
    /* chunk 0..15: its 128-byte half is chunk & ~7, and ex_swizzle places it
     * inside the half. An XOR joins the two (for a place below 8 it is the
     * same as adding): written so, the reference answer compiles to exactly
     * step 4's kernel (tests/test_exercise_code.sh); as half * 128 + place * 16 it
     * compiled to other code, slower on the H200 (exercises/README.md). */
    static __device__ __forceinline__ uint32_t b_off(int k, int chunk)
    {
        return (uint32_t)k * 256u + (((uint32_t)chunk & ~7u) ^ ex_swizzle((uint32_t)k, (uint32_t)chunk & 7u)) * 16u;
    }
};
#define EXERCISE_RUN run_mma_ldmatrix<ex1_layout>
#define EXERCISE_HOPPER 0
#endif
