/* kernels/00_mma_sync.cuh: what steps 2 to 7 share: the PTX of the warp-level
 * tensor-core path (ldmatrix, mma.sync, cp.async) and the block tile they all
 * use: 128x128, 8 warps in 2 x 4, each warp 64x32 = 4 x 4 tiles of m16n8k16.
 *
 * How a stage of A and B is laid out in shared memory is the one thing steps
 * 2 to 4 change, so the helpers below take the layout as a type L:
 *   L::BK                 K per stage (32 or 64)
 *   L::A_BYTES, B_BYTES   bytes of A's 128 x BK tile and B's BK x 128 tile;
 *                         a stage is A's tile, then B's
 *   L::a_off(r, c)        byte offset of 16-byte chunk c (k = 8c .. 8c+7) of
 *                         row r of A's tile
 *   L::b_off(k, c)        byte offset of chunk c (n = 8c .. 8c+7) of row k of
 *                         B's tile, from the start of B's tile
 * Step 2 defines the padded layout (mm_padded<BK>), step 4 the swizzled one
 * (mm_swizzled), step 7 the one TMA writes (mm_tma_boxes). */

constexpr int MM_BM = 128, MM_BN = 128, MM_THREADS = 256;

#if TC_SM80
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], uint32_t addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}
/* d += a * b for one m16n8k16 tile: a row-major 16x16, b "col" (k-pairs per
 * register) 16x8, d FP32. */
__device__ __forceinline__ void mma_16816(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2])
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* 16-byte cp.async, zero-filled when !ok (src-size 0; src then points at the
 * matrix base, a valid address). */
__device__ __forceinline__ void cp_async16(uint32_t dst, const void *src, bool ok)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
                 "r"(ok ? 16 : 0)
                 : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }

/* One K-step of A (128 x BK) and B (BK x 128) into a stage, through registers:
 * 16-byte chunks, BK/16 of A and BK/16 of B per thread; a warp's 32 chunks
 * are whole rows of A (or 2 rows of B): coalesced loads. */
template <class L, bool VEC>
__device__ __forceinline__ void mm_load_stage(uint8_t *st, const uint16_t *__restrict__ A,
                                              const uint16_t *__restrict__ B, int M, int N,
                                              int K, int m0, int n0, int k0)
{
    constexpr int A_ROW_CHUNKS = L::BK / 8, B_ROW_CHUNKS = MM_BN / 8;
    static_assert(MM_BM * A_ROW_CHUNKS % MM_THREADS == 0 && L::BK * B_ROW_CHUNKS % MM_THREADS == 0,
                  "every thread loads the same number of chunks");
#pragma unroll
    for (int i = 0; i < MM_BM * A_ROW_CHUNKS / MM_THREADS; i++) {
        int idx = threadIdx.x + i * MM_THREADS, r = idx / A_ROW_CHUNKS, c = idx % A_ROW_CHUNKS;
        *(uint4 *)(st + L::a_off(r, c)) = load_chunk<VEC>(A, M, K, m0 + r, k0 + c * 8);
    }
#pragma unroll
    for (int i = 0; i < L::BK * B_ROW_CHUNKS / MM_THREADS; i++) {
        int idx = threadIdx.x + i * MM_THREADS, k = idx / B_ROW_CHUNKS, c = idx % B_ROW_CHUNKS;
        *(uint4 *)(st + L::A_BYTES + L::b_off(k, c)) = load_chunk<VEC>(B, K, N, k0 + k, n0 + c * 8);
    }
}

/* The same with cp.async (N % 8 == 0 and K % 8 == 0: a chunk is all in or all out). */
template <class L>
__device__ __forceinline__ void mm_load_stage_async(uint32_t st, const uint16_t *__restrict__ A,
                                                    const uint16_t *__restrict__ B, int M, int N,
                                                    int K, int m0, int n0, int k0)
{
    constexpr int A_ROW_CHUNKS = L::BK / 8, B_ROW_CHUNKS = MM_BN / 8;
#pragma unroll
    for (int i = 0; i < MM_BM * A_ROW_CHUNKS / MM_THREADS; i++) {
        int idx = threadIdx.x + i * MM_THREADS, r = idx / A_ROW_CHUNKS, c = idx % A_ROW_CHUNKS;
        int row = m0 + r, col = k0 + c * 8;
        bool ok = row < M && col < K;
        cp_async16(st + L::a_off(r, c), ok ? A + (size_t)row * K + col : A, ok);
    }
#pragma unroll
    for (int i = 0; i < L::BK * B_ROW_CHUNKS / MM_THREADS; i++) {
        int idx = threadIdx.x + i * MM_THREADS, k = idx / B_ROW_CHUNKS, c = idx % B_ROW_CHUNKS;
        int row = k0 + k, col = n0 + c * 8;
        bool ok = row < K && col < N;
        cp_async16(st + L::A_BYTES + L::b_off(k, c), ok ? B + (size_t)row * N + col : B, ok);
    }
}

/* Multiply one stage into the warp's 64x32 accumulators: per 16 of K, four
 * ldmatrix.x4 give A's four 16x16 fragments (lanes 0-15 address rows 0-15 at
 * k 0-7, lanes 16-31 the same rows at k 8-15: the order of a0..a3), two
 * ldmatrix.x4.trans give B's four 16x8 fragments (B is stored k-major, the
 * .trans hands each thread two consecutive k of one column), then 16 mma. */
template <class L>
__device__ __forceinline__ void mm_compute_stage(uint32_t st, int wm_, int wn_, int lane,
                                                 float (&acc)[4][4][4])
{
    static_assert(L::BK % 16 == 0, "mma.sync m16n8k16 takes K in steps of 16");
#pragma unroll
    for (int ks = 0; ks < L::BK / 16; ks++) {
        uint32_t af[4][4], bfr[4][2];
#pragma unroll
        for (int i = 0; i < 4; i++) {
            int r = wm_ * 64 + i * 16 + lane % 16, chunk = ks * 2 + lane / 16;
            ldmatrix_x4(af[i], st + L::a_off(r, chunk));
        }
#pragma unroll
        for (int jj = 0; jj < 2; jj++) {
            int k = ks * 16 + lane % 16, chunk = (wn_ * 32 + jj * 16) / 8 + lane / 16;
            uint32_t t[4];
            ldmatrix_x4_trans(t, st + L::A_BYTES + L::b_off(k, chunk));
            bfr[2 * jj][0] = t[0];     /* k 0-7,  n 0-7  */
            bfr[2 * jj][1] = t[1];     /* k 8-15, n 0-7  */
            bfr[2 * jj + 1][0] = t[2]; /* k 0-7,  n 8-15 */
            bfr[2 * jj + 1][1] = t[3]; /* k 8-15, n 8-15 */
        }
#pragma unroll
        for (int i = 0; i < 4; i++)
#pragma unroll
            for (int j = 0; j < 4; j++) mma_16816(acc[i][j], af[i], bfr[j]);
    }
}

/* m16n8 accumulators: c0, c1 at (row lane/4, columns 2*(lane%4) + 0, 1), c2, c3
 * eight rows below. VEC (N % 8 == 0): the pair is 8-byte aligned and both or
 * neither are in range, one float2 store. */
template <bool VEC>
__device__ __forceinline__ void mm_store(float *__restrict__ C, int M, int N, int m0, int n0,
                                         int wm_, int wn_, int lane, const float (&acc)[4][4][4])
{
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++) {
            int col = n0 + wn_ * 32 + j * 8 + (lane % 4) * 2;
#pragma unroll
            for (int h = 0; h < 2; h++) {
                int row = m0 + wm_ * 64 + i * 16 + lane / 4 + h * 8;
                if (row >= M || col >= N) continue;
                float *p = C + (size_t)row * N + col;
                if (VEC) {
                    *(float2 *)p = make_float2(acc[i][j][2 * h], acc[i][j][2 * h + 1]);
                } else {
                    p[0] = acc[i][j][2 * h];
                    if (col + 1 < N) p[1] = acc[i][j][2 * h + 1];
                }
            }
        }
}
#endif /* TC_SM80 */
