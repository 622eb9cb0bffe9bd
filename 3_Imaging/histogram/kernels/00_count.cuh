/* kernels/00_count.cuh: counting into a private copy of the bins, the
 * helpers several steps share.
 *
 * A copy is BINS counters in shared memory, STRIDE apart: the counter of bin
 * b is at copy + b x STRIDE (in words for the atomicAdd form, in bytes for
 * the PTX form). STRIDE is 1 word (4 bytes) for one copy per block or per
 * warp; in the lane layout (steps 08 on) the copies are interleaved, copy c
 * at word c, so STRIDE is one word per copy (32 x groups words). */
#ifndef HIST_KERNELS_COUNT_CUH
#define HIST_KERNELS_COUNT_CUH

/* Steps 03 and 04: the 16 bytes of a vector, one atomicAdd each; byte k of
 * a 32-bit word is (w >> 8k) & 0xFF. */
template <int BINS, unsigned STRIDE_WORDS>
__device__ __forceinline__ void count_vector_atomic(unsigned *copy, uint4 v)
{
    const unsigned w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int k = 0; k < 4; k++)
            atomicAdd(&copy[bin_of<BINS>((w[i] >> (8 * k)) & 0xFFu) * STRIDE_WORDS], 1u);
}

/* Step 05 on: count the four bytes of a 32-bit word in this thread's copy,
 * whose first counter is at the 32-bit shared address `mine` (STRIDE bytes
 * between two bins). Each byte costs an extract (prmt: byte k to the
 * bottom), one multiply-add for its address and the atomic. The bin is
 * applied to all four bytes at once: for 64 bins the mask 0xFC keeps each
 * byte's top six bits in place, and (byte & 0xFC) = 4 x bin, so the scale
 * is a quarter of the stride. */
template <int BINS, unsigned STRIDE>
__device__ __forceinline__ void count_word(unsigned mine, unsigned w)
{
    constexpr unsigned scale = BINS == 256 ? STRIDE : STRIDE / 4u;
    const unsigned m = BINS == 256 ? w : w & 0xFCFCFCFCu;
    red_shared_add(mine + prmt<0x4440u>(m) * scale, 1u);
    red_shared_add(mine + prmt<0x4441u>(m) * scale, 1u);
    red_shared_add(mine + prmt<0x4442u>(m) * scale, 1u);
    red_shared_add(mine + prmt<0x4443u>(m) * scale, 1u);
}

template <int BINS, unsigned STRIDE>
__device__ __forceinline__ void count_vector(unsigned mine, uint4 v)
{
    count_word<BINS, STRIDE>(mine, v.x);
    count_word<BINS, STRIDE>(mine, v.y);
    count_word<BINS, STRIDE>(mine, v.z);
    count_word<BINS, STRIDE>(mine, v.w);
}

/* A byte outside the 16-byte vectors (at most 15 at each end of the input). */
template <int BINS, unsigned STRIDE>
__device__ __forceinline__ void count_byte(unsigned mine, unsigned byte)
{
    red_shared_add(mine + bin_of<BINS>(byte) * STRIDE, 1u);
}

/* Steps 10 and 11, packed 16-bit counters: bins p and p + BINS/2 share word
 * p x copies + c, as its low and high 16-bit halves: half the shared memory,
 * at the price of a flush (below) and two instructions per byte. Bin b's
 * half is the byte's top bit at either bin count (bin >= BINS/2 exactly when
 * byte >= 128), its pair is the byte's low seven bits (256 bins) or bits
 * 2..6 (64 bins); prmt with selector 0x44 (8+k)(8+k) turns the top bit of
 * byte k into 0xFFFF or 0, and one more makes the increment, 0x10000 or 1. */
template <int BINS, unsigned STRIDE>
__device__ __forceinline__ void count_word_packed(unsigned mine, unsigned w)
{
    constexpr unsigned scale = BINS == 256 ? STRIDE : STRIDE / 4u;
    const unsigned m = w & (BINS == 256 ? 0x7F7F7F7Fu : 0x7C7C7C7Cu);
    red_shared_add(mine + prmt<0x4440u>(m) * scale, prmt<0x4488u>(w) + 1u);
    red_shared_add(mine + prmt<0x4441u>(m) * scale, prmt<0x4499u>(w) + 1u);
    red_shared_add(mine + prmt<0x4442u>(m) * scale, prmt<0x44AAu>(w) + 1u);
    red_shared_add(mine + prmt<0x4443u>(m) * scale, prmt<0x44BBu>(w) + 1u);
}

template <int BINS, unsigned STRIDE>
__device__ __forceinline__ void count_vector_packed(unsigned mine, uint4 v)
{
    count_word_packed<BINS, STRIDE>(mine, v.x);
    count_word_packed<BINS, STRIDE>(mine, v.y);
    count_word_packed<BINS, STRIDE>(mine, v.z);
    count_word_packed<BINS, STRIDE>(mine, v.w);
}

/* Packed counters: move the 16-bit counters into the 32-bit accumulators
 * (acc, one per bin) and zero them. Called by the whole block, between
 * barriers: the first makes every count of the interval visible, the second
 * keeps any thread from counting again before its counters are zero. One
 * warp per row of words (bins p and p + BINS/2): its 32 x GROUPS copies are
 * consecutive words (a conflict-free read); each lane sums the halves of its
 * words, warp_sum adds the lanes up. */
template <int BINS, int GROUPS>
__device__ __forceinline__ void flush_packed(unsigned *copies, unsigned *acc)
{
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    __syncthreads();
    for (unsigned p = warp; p < BINS / 2; p += warps) {
        unsigned lo = 0, hi = 0;
#pragma unroll
        for (int g = 0; g < GROUPS; g++) {
            unsigned *c = &copies[p * (32u * GROUPS) + 32u * g + lane];
            const unsigned w = *c;
            *c = 0;
            lo += w & 0xFFFFu;
            hi += w >> 16;
        }
        lo = warp_sum(lo);
        hi = warp_sum(hi);
        if (lane == 0) {   /* pair p (bins p, p + BINS/2) is this warp's alone in this flush */
            acc[p] += lo;
            acc[p + BINS / 2] += hi;
        }
    }
    __syncthreads();
}

#endif /* HIST_KERNELS_COUNT_CUH */
