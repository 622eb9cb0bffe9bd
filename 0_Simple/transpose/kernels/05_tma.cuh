/* Step 05: tma -- the one change from step 04: the tensor memory accelerator
 * (TMA, cp.async.bulk.tensor) moves the tiles between global and shared
 * memory instead of the threads, with the 128-byte swizzle instead of the
 * padding.
 *
 * A block owns 32 columns x TMA_ROWS = 128 rows of in (16 KiB). One thread
 * asks the TMA unit for that box; it lands in shared memory swizzled
 * (tma_layout.h: chunk k of row r at chunk k ^ (r % 8)) and its bytes are
 * counted on an mbarrier, which every thread waits on. The threads then
 * transpose shared memory to shared memory, 4 x 4 floats at a time (4
 * 16-byte loads, a transpose in registers, 4 16-byte stores), into the mirror
 * tile: 32 rows x 128 columns of out, kept as 4 swizzled boxes of 32 x 32.
 * One thread hands those 4 boxes to the TMA unit to store.
 *
 * Why it should help: the addresses, the bounds and the coalescing are the
 * TMA unit's work now: the threads issue no global loads or stores at all,
 * a box outside the matrix arrives as zeros and is clipped on the way out
 * (odd shapes need almost no bounds checks: see below), and each block keeps 16 KiB in flight
 * with a single instruction. Why the swizzle: TMA writes a box densely, so
 * there is no room for step 03's padding column; the swizzle spreads each
 * column of 16-byte chunks over all banks instead. Which 4 x 4 block each
 * thread takes is chosen so that each quarter-warp (the 8 threads a 16-byte
 * access is served for at once) touches 8 different chunk positions, both
 * when it reads the input box and when it writes the output boxes
 * (tests/test_transpose_cpu.c checks both, and that every element lands in
 * its place).
 * TMA needs the rows of both matrices to start 16 bytes apart (ld a multiple
 * of 4 floats: transpose_ld()) and the boxes 1024-byte aligned. One catch
 * the H200 showed us: a TMA store clips at the matrix's last column only in
 * whole 16-byte chunks, so where out's column count is not a multiple of 4
 * the box that holds the last column would also write the 1 to 3 padding
 * floats after it. That one box per block column is stored by the threads
 * (tma_box_by_threads() in tma_layout.h).
 * Measured on the H200 at 16384 x 16384 (results/H200/transpose.txt, commit 13f861f):
 * 0.5556 ms, 3865 GB/s, 91.29% of the copy: 1.11x step 04, the fastest
 * step, and over the sample's floor of 90%. 90.66% at 1048576 x 64
 * (results/H200/transpose__rows_1048576_cols_64.txt, commit 13f861f), but
 * 88.6% at 4097 x 3001, under the floor
 * (results/H200/transpose__rows_4097_cols_3001.txt, commit 13f861f). */
/* TMA_ROWS (128), TMA_THREADS (128), the swizzle and the thread-to-block
 * map: tma_layout.h. */
#define TMA_SMEM_BYTES (2 * TMA_IN_BYTES + 8 + 1024)  /* in, out, the mbarrier, alignment slack */
static_assert(TMA_ROWS % 32 == 0 && TMA_ROWS <= 256, "a TMA box is at most 256 rows");
static_assert(TMA_ROWS * 2 % TMA_THREADS == 0 && TMA_THREADS % 32 == 0,
              "every thread takes the same number of 4 x 4 blocks");
static_assert(TILE == TMA_BOX_COLS, "a 128-byte swizzled box row is 32 floats");

__global__ void __launch_bounds__(TMA_THREADS)
    transpose_tma(const __grid_constant__ CUtensorMap map_in, const __grid_constant__ CUtensorMap map_out,
                  float *__restrict__ out, int rows, int cols, size_t ld_out)
{
#if TR_HAVE_TMA
    extern __shared__ unsigned char smem_raw[];
    /* both boxes 1024-byte aligned (the swizzle pattern repeats every 1024 bytes) */
    const uint32_t raw = smem_addr(smem_raw);
    unsigned char *s_in = smem_raw + (((raw + 1023u) & ~1023u) - raw);
    unsigned char *s_out = s_in + TMA_IN_BYTES;
    const uint32_t bar = smem_addr(s_out + TMA_IN_BYTES);
    const int c0 = blockIdx.x * TILE;       /* first column of in = first row of out */
    const int r0 = blockIdx.y * TMA_ROWS;   /* first row of in = first column of out */

    if (threadIdx.x == 0) {
        mbar_init(bar, 1);
        mbar_arrive_expect_tx(bar, TMA_IN_BYTES);
        tma_load_2d(smem_addr(s_in), &map_in, bar, c0, r0);
    }
    __syncthreads();   /* nobody waits on the barrier before it is initialized */
    mbar_wait(bar, 0);

#pragma unroll
    for (int s = 0; s < TMA_ROUNDS; s++) {
        unsigned rb, cb;
        tma_block_of(threadIdx.x, s, &rb, &cb);
        float4 v[4];
#pragma unroll
        for (int i = 0; i < 4; i++) v[i] = *(const float4 *)(s_in + swz128_offset(4 * rb + i, cb));
        *(float4 *)(s_out + tma_out_offset(rb, cb, 0)) = make_float4(v[0].x, v[1].x, v[2].x, v[3].x);
        *(float4 *)(s_out + tma_out_offset(rb, cb, 1)) = make_float4(v[0].y, v[1].y, v[2].y, v[3].y);
        *(float4 *)(s_out + tma_out_offset(rb, cb, 2)) = make_float4(v[0].z, v[1].z, v[2].z, v[3].z);
        *(float4 *)(s_out + tma_out_offset(rb, cb, 3)) = make_float4(v[0].w, v[1].w, v[2].w, v[3].w);
    }
    fence_proxy_async_smem();   /* each thread's writes, before the TMA unit reads them */
    /* Every warp's writes, before thread 0 hands the boxes to TMA. Without
     * it the program still passed every check on our H200, and racecheck
     * does not see TMA's reads: a race that no test shows is still a race. */
    __syncthreads();
    if (threadIdx.x == 0) {
#pragma unroll
        for (int b = 0; b < TMA_OUT_BOXES; b++) {
            const int x0 = r0 + b * TILE;   /* the box's first column of out */
            if (x0 < rows && !tma_box_by_threads(rows, x0))
                tma_store_2d(&map_out, smem_addr(s_out + b * TMA_OUT_BOX_BYTES), x0, c0);
        }
        tma_store_commit_and_wait_read();
    }
    /* The one box (of the last column of blocks) that TMA would store with
     * 1 to 3 padding columns: the threads store it, element by element. */
#pragma unroll
    for (int b = 0; b < TMA_OUT_BOXES; b++) {
        const int x0 = r0 + b * TILE;
        if (!tma_box_by_threads(rows, x0)) continue;
        for (int e = threadIdx.x; e < TILE * TILE; e += TMA_THREADS) {
            const int j = e / TILE, i = e % TILE;   /* out-tile row, column */
            if (c0 + j < cols && x0 + i < rows)
                out[(size_t)(c0 + j) * ld_out + x0 + i] =
                    *(const float *)(s_out + b * TMA_OUT_BOX_BYTES + tma_out_elem_offset(j, i));
        }
    }
#endif
}
