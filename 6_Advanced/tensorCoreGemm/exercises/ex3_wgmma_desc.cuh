/* Exercise 3: the wgmma shared-memory descriptor (step 10).
 *
 * wgmma.mma_async reads its operands A and B from shared memory through
 * 64-bit matrix descriptors. Step 10 (wgmma_tma) makes them with tc_wgmma_desc
 * (tc_layout.h); make them yourself, from the PTX ISA's "Matrix Descriptor
 * Format" (section wgmma, "Shared Memory Matrix Layout"):
 *   bits  0-13  matrix start address, encoded
 *   bits 16-29  leading dimension byte offset (LBO), encoded
 *   bits 32-45  stride dimension byte offset (SBO), encoded
 *   bits 49-51  matrix base offset (0 here: every tile is 1024-byte aligned)
 *   bits 62-63  swizzle mode: 0 none, 1 128-byte, 2 64-byte, 3 32-byte
 * and every other bit 0; "encoded" is (x & 0x3FFFF) >> 4. The tiles are
 * stored under the 128-byte swizzle (TMA wrote them so).
 *
 * Check it:  make try SAMPLE=tensorCoreGemm EX=3
 * (on the GPU, an H200: the sample's checks and your speed against step 10:
 * a wrong field gives wrong products, not a crash; without one:
 * tests/cpu_sim/run.sh decodes your descriptors field by field). Hints:
 * exercises/README.md. */
#define EXERCISE_BASE "wgmma_tma"
#define EXERCISE_WHAT "exercise 3: your wgmma descriptors in step 10"
#define EXERCISE_CPU_CHECK 3 /* which check tests/cpu_sim/check_exercise.c runs */

/* ---- your code ---------------------------------------------------------------
 * The descriptor of a 128-byte-swizzled operand at shared-memory byte address
 * smem_addr, with the given LBO and SBO in bytes. */
TC_HD uint64_t ex_wgmma_desc(uint32_t smem_addr, uint32_t lbo_bytes, uint32_t sbo_bytes)
{
    (void)smem_addr;
    (void)lbo_bytes;
    (void)sbo_bytes;
    return 0; /* address 0, no strides, no swizzle: wgmma reads the wrong bytes */
}
/* ---- end of your code ------------------------------------------------------ */

#ifdef __CUDACC__
struct ex3_desc {
    static __device__ __forceinline__ uint64_t make(uint32_t addr, uint32_t lbo, uint32_t sbo)
    {
        return ex_wgmma_desc(addr, lbo, sbo);
    }
};
#define EXERCISE_RUN run_wgmma_tma<wgmma_tma_cfg, ex3_desc>
#define EXERCISE_HOPPER 1
#endif
