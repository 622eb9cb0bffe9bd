/* kernels/00_hopper.cuh: what the Hopper steps (2 to 5) share: the PTX of
 * mbarriers, TMA (cp.async.bulk.tensor), wgmma on e4m3 and setmaxnreg, the
 * stage layout TMA writes, the wgmma of one stage and the BF16 epilogue.
 *
 * Tiles: BM = 128 rows of A (two consumer warpgroups of 64 rows each), BK =
 * 128 (one 128-byte swizzle row of FP8: twice the K of a BF16 stage for the
 * same bytes), BN = 128 or 256 rows of B. A and B are both K-major, so a
 * stage is two boxes of the same kind: A's 128 rows x 128 bytes (16 KiB) and
 * B's BN rows x 128 bytes (16 or 32 KiB), each 1024-byte aligned so that the
 * swizzle pattern TMA writes is the one wgmma reads. */
template <int BN>
struct f8_cfg {
    static constexpr int A_BYTES = F8_BM * F8_BK;      /* 16 KiB */
    static constexpr int B_BYTES = BN * F8_BK;         /* 16 or 32 KiB */
    static constexpr int STAGE_BYTES = A_BYTES + B_BYTES; /* the expect-tx count */
    static_assert(BN <= 256, "a TMA box has at most 256 rows");
    static_assert(A_BYTES % 1024 == 0 && B_BYTES % 1024 == 0, "1024-byte aligned boxes");
};

#if F8_SM90A
/* descriptor strides (bytes): rows of 128 bytes, 8-row groups 1024 apart;
 * the leading offset is unused for a swizzled K-major operand */
constexpr uint32_t F8_SBO = 1024;
constexpr uint32_t F8_LBO = 16;

__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
/* arrive (count 1) and raise the phase's expected transaction bytes: the
 * phase completes when every arrival is in and the TMA copies signalling this
 * barrier have delivered exactly that many bytes */
__device__ __forceinline__ void mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
                 : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint32_t bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
__device__ __forceinline__ bool mbar_try_wait(uint32_t bar, uint32_t parity)
{
    uint32_t done;
    asm volatile("{\n.reg .pred p;\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                 "selp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(done)
                 : "r"(bar), "r"(parity)
                 : "memory");
    return done != 0;
}
__device__ __forceinline__ uint64_t globaltimer_ns()
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
/* Wait until the phase with this parity has completed. A wait longer than
 * F8_WATCHDOG_NS is a pipeline bug (a wrong parity or byte count, a missing
 * arrive): the thread traps and the sample reports FAIL instead of hanging. */
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity)
{
    if (mbar_try_wait(bar, parity)) return;
    uint64_t t0 = globaltimer_ns();
    while (!mbar_try_wait(bar, parity))
        if (globaltimer_ns() - t0 > F8_WATCHDOG_NS) __trap();
}
/* make the initialized barriers visible to the other threads and to the
 * async proxy (the TMA unit) before anyone uses them */
__device__ __forceinline__ void fence_barrier_init()
{
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}
__device__ __forceinline__ void tma_prefetch_map(const CUtensorMap *map)
{
    asm volatile("prefetch.tensormap [%0];\n" ::"l"((uint64_t)map) : "memory");
}
/* One TMA box: the box at element coordinates (c0 = k, c1 = row) into shared
 * memory at dst; its bytes are counted on bar. Elements outside the matrix
 * (rows past M or N, k past K) arrive as zeros and still count. */
__device__ __forceinline__ void tma_load_2d(uint32_t dst, const CUtensorMap *map, uint32_t bar,
                                            int c0, int c1)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%3, %4}], [%2];\n" ::"r"(dst),
                 "l"((uint64_t)map), "r"(bar), "r"(c0), "r"(c1)
                 : "memory");
}
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wgmma_wait() { asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory"); }
/* After wgmma_wait, tell the compiler the accumulators changed here, so no
 * read of them is moved above the wait. */
template <int R>
__device__ __forceinline__ void fence_acc(float (&d)[R])
{
#pragma unroll
    for (int i = 0; i < R; i++) asm volatile("" : "+f"(d[i])::"memory");
}
template <int R>
__device__ __forceinline__ void setmaxnreg_inc() { asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(R)); }
template <int R>
__device__ __forceinline__ void setmaxnreg_dec() { asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(R)); }

/* wgmma.mma_async m64n128k32, FP32 += e4m3 x e4m3, both operands from shared
 * memory and K-major (FP8 wgmma has no transposed form). scale_d = 0
 * overwrites d (D = A*B); the two immediate 1s keep A and B positive. */
__device__ __forceinline__ void wgmma_m64n128k32_e4m3(float (&d)[64], uint64_t desc_a, uint64_t desc_b,
                                                     int scale_d)
{
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31,"
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47,"
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
        "}, %64, %65, p, 1, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "l"(desc_a), "l"(desc_b), "r"(scale_d));
}

/* wgmma.mma_async m64n256k32, FP32 += e4m3 x e4m3, both operands from shared
 * memory and K-major (FP8 wgmma has no transposed form). scale_d = 0
 * overwrites d (D = A*B); the two immediate 1s keep A and B positive. */
__device__ __forceinline__ void wgmma_m64n256k32_e4m3(float (&d)[128], uint64_t desc_a, uint64_t desc_b,
                                                     int scale_d)
{
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31,"
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47,"
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63,"
        "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79,"
        "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95,"
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111,"
        "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
        "}, %128, %129, p, 1, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
          "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
          "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
          "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
          "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
          "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
          "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
          "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "l"(desc_a), "l"(desc_b), "r"(scale_d));
}

template <int BN>
__device__ __forceinline__ void wgmma_tile(float (&d)[BN / 2], uint64_t da, uint64_t db, int scale_d)
{
    if constexpr (BN == 256)
        wgmma_m64n256k32_e4m3(d, da, db, scale_d);
    else
        wgmma_m64n128k32_e4m3(d, da, db, scale_d);
}

/* The 4 wgmma of one stage (BK = 128 = 4 x 32) for the warpgroup's 64 rows
 * of A (a_rows: their first 128-byte row) and all BN rows of B. Both operands
 * are K-major with 128-byte rows, so stepping 32 elements along K is a start
 * address 32 bytes further for both (the swizzle is a function of the
 * address within the 1024-byte aligned box, so the hardware finds the chunks
 * where TMA put them). */
template <int BN>
__device__ __forceinline__ void f8_mma_stage(float (&d)[BN / 2], uint32_t a_rows, uint32_t b_rows,
                                             int first)
{
#pragma unroll
    for (int kk = 0; kk < F8_BK / 32; kk++) {
        uint64_t da = fp8_wgmma_desc(a_rows + kk * 32, F8_LBO, F8_SBO);
        uint64_t db = fp8_wgmma_desc(b_rows + kk * 32, F8_LBO, F8_SBO);
        wgmma_tile<BN>(d, da, db, (first && kk == 0) ? 0 : 1);
    }
}
#endif /* F8_SM90A */

/* The warpgroup's 64 x BN accumulators, times scale, to D as BF16: element i
 * of thread (warp w, lane l) is row 16w + l/4 + 8*((i/2)%2), column 8*(i/4) +
 * 2*(l%4) + i%2. When N is even, each (even column) pair is one aligned
 * 4-byte store; otherwise the two are stored one by one. */
template <int BN>
__device__ __forceinline__ void f8_store(__nv_bfloat16 *__restrict__ D, int M, int N, int row0,
                                         int n0, int warp, int lane, const float (&d)[BN / 2],
                                         float scale)
{
    const int r = row0 + warp * 16 + lane / 4;
#pragma unroll
    for (int j = 0; j < BN / 8; j++) {
        const int col = n0 + j * 8 + (lane % 4) * 2;
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const int row = r + 8 * h;
            if (row >= M || col >= N) continue;
            const float x = d[4 * j + 2 * h] * scale, y = d[4 * j + 2 * h + 1] * scale;
            __nv_bfloat16 *p = D + (size_t)row * N + col;
            if ((N & 1) == 0) {
                *(__nv_bfloat162 *)p = __floats2bfloat162_rn(x, y);
            } else {
                p[0] = __float2bfloat16_rn(x);
                if (col + 1 < N) p[1] = __float2bfloat16_rn(y);
            }
        }
    }
}
