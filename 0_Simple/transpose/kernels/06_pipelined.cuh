/* Step 06: pipelined -- the one change from step 05: a block no longer
 * lives for one tile. The grid has only as many blocks as fit on the GPU at
 * once; each walks the tiles blockIdx.x, blockIdx.x + gridDim.x, ... and
 * keeps the TMA loads of its next PIPE_STAGES - 1 tiles in flight while it
 * transposes one, in a ring of PIPE_STAGES input boxes, each with its own
 * mbarrier. Its output tiles alternate between two buffers, so the TMA
 * stores of one tile read shared memory while the next is transposed.
 *
 * Why it should help: in step 05 a block asks for its box, waits for it
 * (the whole HBM latency, with nothing else of its own in flight), transposes
 * it, stores it and exits; the bytes in flight per SM are those of the
 * blocks that happen to be waiting. Here every block always has
 * PIPE_STAGES - 1 or PIPE_STAGES boxes on their way (bytes in flight = rate
 * x latency is what streams HBM at full rate), and no time goes to
 * launching and retiring 65,536 short blocks.
 *
 * The bookkeeping, per tile k of this block (k = 0, 1, ...):
 *   stage s = k % PIPE_STAGES: its input box and mbarrier; the barrier
 *     completes once per use, so tile k waits for its phase k / PIPE_STAGES,
 *     whose parity is (k / PIPE_STAGES) & 1;
 *   output buffer k % 2: last used by tile k - 2, whose TMA stores must have
 *     read it (cp.async.bulk.wait_group.read 1: all but the newest group);
 *   after the transpose and a barrier (every thread has read box s), thread
 *     0 stores tile k and refills box s with tile k + PIPE_STAGES.
 * tma_layout.h's pipe_* functions hold this arithmetic; the CPU tests walk
 * it (tests/test_transpose_cpu.c).
 * Measured on the H200 at 16384 x 16384 (results/H200/transpose.txt, commit 13f861f):
 * 0.5794 ms, 3706 GB/s, 87.52% of the copy: 0.96x step 05. It did NOT
 * help, and was slower at the other two shapes too, in the same two
 * files as step 05's figures: 86.27% at 4097 x 3001 and 87.6% at
 * 1048576 x 64, against step 05's 88.6% and 90.66%. A hypothesis, not
 * profiled: step 05's blocks already overlap (by our arithmetic 6 fit on
 * an SM, each with its box in flight), so the ring adds few loads in
 * flight (at most 8 boxes per SM instead of 6), while 2 blocks per SM
 * give the transpose a third of the threads, and every tile waits on
 * thread 0's serial work (the README's deep dive). */
/* PIPE_STAGES (4 input boxes of 16 KiB in the ring) and PIPE_OUT_BUFS (2
 * output tiles: one being stored, one being written): tma_layout.h. */
#define PIPE_SMEM_BYTES ((PIPE_STAGES + PIPE_OUT_BUFS) * TMA_IN_BYTES + 8 * PIPE_STAGES + 1024)

__global__ void __launch_bounds__(TMA_THREADS)
    transpose_pipelined(const __grid_constant__ CUtensorMap map_in,
                        const __grid_constant__ CUtensorMap map_out, float *__restrict__ out,
                        int rows, int cols, size_t ld_out)
{
#if TR_HAVE_TMA
    extern __shared__ unsigned char smem_raw[];
    const uint32_t raw = smem_addr(smem_raw);
    unsigned char *s_in = smem_raw + (((raw + 1023u) & ~1023u) - raw);   /* PIPE_STAGES boxes */
    unsigned char *s_out = s_in + PIPE_STAGES * TMA_IN_BYTES;             /* PIPE_OUT_BUFS tiles */
    const uint32_t bar0 = smem_addr(s_out + PIPE_OUT_BUFS * TMA_IN_BYTES); /* 8 bytes per stage */
    const int tiles_x = (cols + TILE - 1) / TILE;   /* tile t: columns (t % tiles_x) * 32 .. */
    const int n_tiles = tiles_x * ((rows + TMA_ROWS - 1) / TMA_ROWS);   /* .. rows (t / tiles_x) * 128 .. */

    if (threadIdx.x == 0) {   /* the ring's first PIPE_STAGES loads */
        for (int s = 0; s < PIPE_STAGES; s++) mbar_init(bar0 + 8 * s, 1);
        for (int s = 0; s < PIPE_STAGES; s++) {
            const int t = pipe_tile(blockIdx.x, gridDim.x, s);
            if (t >= n_tiles) break;
            mbar_arrive_expect_tx(bar0 + 8 * s, TMA_IN_BYTES);
            tma_load_2d(smem_addr(s_in + s * TMA_IN_BYTES), &map_in, bar0 + 8 * s,
                        (t % tiles_x) * TILE, (t / tiles_x) * TMA_ROWS);
        }
    }
    for (int k = 0;; k++) {
        const int t = pipe_tile(blockIdx.x, gridDim.x, k);
        if (t >= n_tiles) break;
        const int s = pipe_stage(k);
        unsigned char *in_box = s_in + s * TMA_IN_BYTES;
        unsigned char *out_tile = s_out + pipe_out_buf(k) * TMA_IN_BYTES;
        const int c0 = (t % tiles_x) * TILE, r0 = (t / tiles_x) * TMA_ROWS;

        /* out_tile's stores of two tiles ago have read it (and, the first
         * time, the barriers are initialized) before anyone writes it */
        if (threadIdx.x == 0) tma_store_wait_read<PIPE_OUT_BUFS - 1>();
        __syncthreads();
        mbar_wait(bar0 + 8 * s, pipe_parity(k));

#pragma unroll
        for (int round = 0; round < TMA_ROUNDS; round++) {   /* step 05's transpose */
            unsigned rb, cb;
            tma_block_of(threadIdx.x, round, &rb, &cb);
            float4 v[4];
#pragma unroll
            for (int i = 0; i < 4; i++) v[i] = *(const float4 *)(in_box + swz128_offset(4 * rb + i, cb));
            *(float4 *)(out_tile + tma_out_offset(rb, cb, 0)) = make_float4(v[0].x, v[1].x, v[2].x, v[3].x);
            *(float4 *)(out_tile + tma_out_offset(rb, cb, 1)) = make_float4(v[0].y, v[1].y, v[2].y, v[3].y);
            *(float4 *)(out_tile + tma_out_offset(rb, cb, 2)) = make_float4(v[0].z, v[1].z, v[2].z, v[3].z);
            *(float4 *)(out_tile + tma_out_offset(rb, cb, 3)) = make_float4(v[0].w, v[1].w, v[2].w, v[3].w);
        }
        fence_proxy_async_smem();   /* each thread's writes, before the TMA unit reads them */
        __syncthreads();            /* ... and every thread is done with in_box */

        if (threadIdx.x == 0) {
#pragma unroll
            for (int b = 0; b < TMA_OUT_BOXES; b++) {
                const int x0 = r0 + b * TILE;
                if (x0 < rows && !tma_box_by_threads(rows, x0))
                    tma_store_2d(&map_out, smem_addr(out_tile + b * TMA_OUT_BOX_BYTES), x0, c0);
            }
            tma_store_commit();
            const int tn = pipe_tile(blockIdx.x, gridDim.x, k + PIPE_STAGES);   /* refill box s */
            if (tn < n_tiles) {
                mbar_arrive_expect_tx(bar0 + 8 * s, TMA_IN_BYTES);
                tma_load_2d(smem_addr(in_box), &map_in, bar0 + 8 * s, (tn % tiles_x) * TILE,
                            (tn / tiles_x) * TMA_ROWS);
            }
        }
#pragma unroll
        for (int b = 0; b < TMA_OUT_BOXES; b++) {   /* step 05's edge box, by the threads */
            const int x0 = r0 + b * TILE;
            if (!tma_box_by_threads(rows, x0)) continue;
            for (int e = threadIdx.x; e < TILE * TILE; e += TMA_THREADS) {
                const int j = e / TILE, i = e % TILE;
                if (c0 + j < cols && x0 + i < rows)
                    out[(size_t)(c0 + j) * ld_out + x0 + i] =
                        *(const float *)(out_tile + b * TMA_OUT_BOX_BYTES + tma_out_elem_offset(j, i));
            }
        }
    }
    /* the last stores have read shared memory before the block exits */
    if (threadIdx.x == 0) tma_store_wait_read<0>();
#endif
}
