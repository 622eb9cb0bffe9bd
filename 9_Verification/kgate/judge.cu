/* judge.cu: the judge's GPU side (judge.h). It never loads candidate code.
 *
 * Per session (one candidate), with the harness doing what it is told:
 *   1. LOAD; three PINGs (the round trip that is not the candidate's);
 *   2. small odd shapes (judge_host.c): inputs and the CPU reference made
 *      here, outputs compared here;
 *   3. mid size: the same seeded inputs filled here and in the harness (one
 *      kernel, fill.cuh), in pools a little longer than n; the judge's own
 *      reference (cuBLAS, CUB or a kernel of its own, in its own context and
 *      memory, which the candidate cannot reach) is timed here with CUDA
 *      events: batches of back-to-back calls, 2 warm-up batches, the median
 *      of 5, each call on inputs at a fresh offset into the pools;
 *   4. CHECK: one candidate call on a poisoned output; its whole output and
 *      guard zone are copied out of the shared memory and compared on the
 *      judge's GPU with the reference;
 *   5. timed batches: the same shape, each call at a fresh random offset the
 *      judge picks (no two calls see the same inputs), random batch lengths;
 *      after each batch 65536 elements of the output, at indices the judge
 *      picks after the batch, are compared with the reference for the last
 *      call's inputs: a candidate that skips or caches calls fails. The
 *      harness's event time for a batch is bounded by the judge's own clock
 *      (more than the wall time: tampering; much less than the wall time
 *      minus a round trip: the judge's figure is used);
 *   6. slower than 50% of the reference: L4; the large size (4x) only when
 *      the mid size passes.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>

#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cub/cub.cuh>

#include "fill.cuh"
#include "judge.h"
#include "proto.h"
#include "sandbox.h"
#include "tasks.h"
#include "timing.h"

static struct {
    int device, sm, ready;
    cudaStream_t st;
    cublasHandle_t blas;
    uint64_t rng;                  /* the judge's own randomness: offsets, batch lengths, samples */
    void *flush;                   /* twice the L2: written before every timed batch */
    size_t flush_bytes;
} J;

static uint64_t jrand(void)
{
    uint64_t x = J.rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return J.rng = x;
}

static const char *err_name(int e) { return cudaGetErrorName((cudaError_t)e); }

/* A CUDA call of the judge itself failed: the session ends, the gate starts
 * a new judge. */
#define JG(call)                                                                         \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        if (e_ != cudaSuccess) {                                                         \
            j->m->judge_failed = 1;                                                      \
            snprintf(j->m->detail, sizeof j->m->detail, "gate: the judge's %s failed: %s", \
                     #call, cudaGetErrorName(e_));                                       \
            return KG_V_L2;                                                              \
        }                                                                                \
    } while (0)

/* ---- the judge's reference implementations ------------------------------ */

template <int OP>
__device__ __forceinline__ float ew(float a, float b)
{
    return OP == 0 ? a + b : OP == 1 ? fmaxf(a, 0.0f) : tanhf(a);
}

/* op 0: a + b, 1: relu, 2: tanhf. float4 grid-stride with a scalar tail (the
 * pools' offsets are multiples of 64 elements, so float4 stays aligned). */
template <int OP>
__global__ void ref_elementwise(const float *a, const float *b, float *c, int n)
{
    int stride = gridDim.x * blockDim.x, tid = blockIdx.x * blockDim.x + threadIdx.x;
    int n4 = n / 4;
    const float4 *a4 = (const float4 *)a, *b4 = (const float4 *)b;
    float4 *c4 = (float4 *)c;
    for (int i = tid; i < n4; i += stride) {
        float4 x = a4[i], y = OP == 0 ? b4[i] : x;
        c4[i] = make_float4(ew<OP>(x.x, y.x), ew<OP>(x.y, y.y), ew<OP>(x.z, y.z), ew<OP>(x.w, y.w));
    }
    for (int i = 4 * n4 + tid; i < n; i += stride) c[i] = ew<OP>(a[i], OP == 0 ? b[i] : 0.0f);
}

/* One warp per row: max, sum of exp(x - max), then the scaled exponentials. */
__global__ void ref_softmax(const float *x, float *y, int rows, int cols)
{
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
    if (warp >= rows) return;
    const float *r = x + (size_t)warp * cols;
    float *o = y + (size_t)warp * cols;
    float m = -INFINITY;
    for (int c = lane; c < cols; c += 32) m = fmaxf(m, r[c]);
    for (int s = 16; s > 0; s /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, s));
    float sum = 0.0f;
    for (int c = lane; c < cols; c += 32) sum += expf(r[c] - m);
    for (int s = 16; s > 0; s /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, s);
    float inv = 1.0f / sum;
    for (int c = lane; c < cols; c += 32) o[c] = expf(r[c] - m) * inv;
}

/* 32x32 tiles through shared memory, padded against bank conflicts. */
__global__ void ref_transpose(const float *in, float *out, int rows, int cols)
{
    __shared__ float tile[32][33];
    int c0 = blockIdx.x * 32, r0 = blockIdx.y * 32;
    for (int j = threadIdx.y; j < 32; j += 8) {
        int r = r0 + j, c = c0 + threadIdx.x;
        if (r < rows && c < cols) tile[j][threadIdx.x] = in[(size_t)r * cols + c];
    }
    __syncthreads();
    for (int j = threadIdx.y; j < 32; j += 8) {
        int orow = c0 + j, ocol = r0 + threadIdx.x;   /* out is cols x rows */
        if (orow < cols && ocol < rows) out[(size_t)orow * rows + ocol] = tile[threadIdx.x][j];
    }
}

/* One thread per pixel: mean of the in-image neighbours. */
__global__ void ref_blur(const float *in, float *out, int w, int h, int pitch)
{
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 8 + threadIdx.y;
    if (x >= w || y >= h) return;
    float s = 0.0f;
    int cnt = 0;
    for (int dy = -1; dy <= 1; dy++) {
        int yy = y + dy;
        if (yy < 0 || yy >= h) continue;
        for (int dx = -1; dx <= 1; dx++) {
            int xx = x + dx;
            if (xx < 0 || xx >= w) continue;
            s += in[(size_t)yy * pitch + xx];
            cnt++;
        }
    }
    out[(size_t)y * pitch + x] = s / cnt;
}

/* Count elements outside the profile's tolerance (the rule of kg_close). */
__global__ void k_compare(const float *got, const float *ref, size_t n, int exact, double abs_t,
                          double rel_t, double mag_term, long long width, long long pitch,
                          unsigned long long *bad, unsigned long long *first)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        if (pitch > 0 && (long long)(i % (size_t)pitch) >= width) continue;
        double g = got[i], r = ref[i];
        bool ok;
        if (exact) ok = __float_as_uint(got[i]) == __float_as_uint(ref[i]);
        else if (isnan(g) || isnan(r)) ok = false;
        else if (isinf(g) || isinf(r)) ok = g == r;
        else ok = fabs(g - r) <= abs_t + rel_t * fabs(r) + mag_term;
        if (!ok) {
            atomicAdd(bad, 1ULL);
            atomicMin(first, (unsigned long long)i);
        }
    }
}

typedef struct {
    kg_shape s;
    kg_sizes z;
    void *p0, *p1;                 /* input pools */
    size_t n0, n1, ob;
    void *out;                     /* the reference's output */
    void *cmp;                     /* the candidate's output, copied in (with guard) */
    uint32_t *samp;                /* gathered reference elements */
    unsigned long long *dbad;
    void *temp;
    size_t temp_bytes;
} size_ctx;

static void *at(void *p, size_t elems, size_t elem) { return p ? (char *)p + elems * elem : NULL; }

/* The reference on the inputs at (o0, o1) elements into the pools. */
static int ref_run(kg_judge *j, size_ctx *r, size_t o0, size_t o1)
{
    const char *nm = j->t->name;
    cudaStream_t st = J.st;
    int blocks = J.sm * 8, n = (int)r->s.d[0];
    const float *a = (const float *)at(r->p0, o0, r->z.in_elem), *b = (const float *)at(r->p1, o1, 4);
    float *o = (float *)r->out;
    if (!strcmp(nm, "vector_add")) ref_elementwise<0><<<blocks, 256, 0, st>>>(a, b, o, n);
    else if (!strcmp(nm, "relu")) ref_elementwise<1><<<blocks, 256, 0, st>>>(a, NULL, o, n);
    else if (!strcmp(nm, "tanh")) ref_elementwise<2><<<blocks, 256, 0, st>>>(a, NULL, o, n);
    else if (!strcmp(nm, "sum_reduce"))
        JG(cub::DeviceReduce::Sum(r->temp, r->temp_bytes, a, o, n, st));
    else if (!strcmp(nm, "histogram256"))
        JG(cub::DeviceHistogram::HistogramEven(r->temp, r->temp_bytes, (const unsigned char *)a,
                                               (unsigned int *)o, 257, 0, 256, n, st));
    else if (!strcmp(nm, "softmax_rows")) {
        int rows = (int)r->s.d[0];
        ref_softmax<<<(rows + 7) / 8, 256, 0, st>>>(a, o, rows, (int)r->s.d[1]);
    } else if (!strcmp(nm, "transpose")) {
        int rows = (int)r->s.d[0], cols = (int)r->s.d[1];
        dim3 grid((cols + 31) / 32, (rows + 31) / 32);
        ref_transpose<<<grid, dim3(32, 8), 0, st>>>(a, o, rows, cols);
    } else if (!strcmp(nm, "sgemm")) {
        int M = (int)r->s.d[0], N = (int)r->s.d[1], K = (int)r->s.d[2];
        const float one = 1.0f, zero = 0.0f;
        /* row-major C = A B is column-major C^T = B^T A^T */
        if (cublasSgemm(J.blas, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, b, N, a, K, &zero, o, N) !=
            CUBLAS_STATUS_SUCCESS) {
            j->m->judge_failed = 1;
            snprintf(j->m->detail, sizeof j->m->detail, "gate: the judge's cublasSgemm failed");
            return KG_V_L2;
        }
    } else if (!strcmp(nm, "blur3x3")) {
        int w = (int)r->s.d[0], h = (int)r->s.d[1];
        dim3 grid((w + 31) / 32, (h + 7) / 8);
        ref_blur<<<grid, dim3(32, 8), 0, st>>>(a, o, w, h, (int)r->s.d[2]);
    }
    JG(cudaGetLastError());
    return -1;
}

static void free_size(size_ctx *r)
{
    void *p[] = {r->p0, r->p1, r->out, r->cmp, r->samp, r->dbad, r->temp};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
        if (p[i]) cudaFree(p[i]);
    memset(r, 0, sizeof *r);
}

/* calls per batch: enough for about 2 ms of work (10 to KG_MAX_BATCH), so the
 * per-batch costs of the separate judge (the command's round trip, the GPU's
 * switch from the judge's context to the harness's) are a small part of a
 * batch; calls over 0.5 ms: 5 ms of work (down to 1 call). Measured on the
 * H200 with batches of 10 calls: a float4 ReLU at 16.8M elements (37 us a
 * call) read 71% of the same kernel in the judge's process. */
static int batch_calls(double one_ms)
{
    if (one_ms > 0.5) {
        int calls = (int)(5.0 / one_ms);
        return calls < 1 ? 1 : calls > 10 ? 10 : calls;
    }
    int calls = one_ms > 0 ? (int)ceil(2.0 / one_ms) : KG_MAX_BATCH;
    return calls < 10 ? 10 : calls > KG_MAX_BATCH ? KG_MAX_BATCH : calls;
}

/* distinct random pool offsets for n calls */
static void pick_offsets(uint32_t n, uint64_t *o0, uint64_t *o1)
{
    int used[KG_POOL_SLOTS] = {0};
    for (uint32_t i = 0; i < n; i++) {
        int k;
        do k = (int)(jrand() % KG_POOL_SLOTS); while (used[k]);
        used[k] = 1;
        o0[i] = (uint64_t)k * KG_POOL_STEP;
        o1[i] = (uint64_t)(jrand() % KG_POOL_SLOTS) * KG_POOL_STEP;
    }
}

/* The reference's batch: calls back to back at fresh offsets, CUDA events
 * around them; the time per call in ms. */
static int ref_batch(kg_judge *j, size_ctx *r, int calls, cudaEvent_t e0, cudaEvent_t e1, double *ms)
{
    uint64_t o0[KG_MAX_BATCH], o1[KG_MAX_BATCH];
    pick_offsets((uint32_t)calls, o0, o1);
    JG(cudaEventRecord(e0, J.st));
    for (int i = 0; i < calls; i++) {
        int v = ref_run(j, r, o0[i], o1[i]);
        if (v >= 0) return v;
    }
    JG(cudaEventRecord(e1, J.st));
    JG(cudaEventSynchronize(e1));
    float f = 0;
    JG(cudaEventElapsedTime(&f, e0, e1));
    *ms = f / calls;
    return -1;
}

/* Every timed batch, the reference's and the candidate's, starts from the
 * same cache state: the judge writes twice the L2's size first (the L2 is
 * the device's, so this evicts the harness's lines as well as its own). */
static int flush_l2(kg_judge *j)
{
    if (!J.flush) return -1;
    JG(cudaMemsetAsync(J.flush, (int)(jrand() & 0xff), J.flush_bytes, J.st));
    JG(cudaStreamSynchronize(J.st));
    return -1;
}

static int compare_full(kg_judge *j, size_ctx *r, size_t *bad, size_t *first)
{
    const kg_profile *p = kg_profile_of(j->t->prof);
    unsigned long long init[2] = {0, ~0ULL}, res[2];
    JG(cudaMemcpy(r->dbad, init, sizeof init, cudaMemcpyHostToDevice));
    long long width = j->t->sig == KG_SIG_BLUR ? r->s.d[0] : 0;
    long long pitch = j->t->sig == KG_SIG_BLUR ? r->s.d[2] : 0;
    k_compare<<<J.sm * 4, 256, 0, J.st>>>((const float *)r->cmp, (const float *)r->out, r->z.out,
                                          p->kind == KG_PROF_INT, p->abs, p->rel,
                                          p->mag_rel * kg_mag_estimate(j->t, r->s), width, pitch,
                                          r->dbad, r->dbad + 1);
    JG(cudaGetLastError());
    JG(cudaStreamSynchronize(J.st));
    JG(cudaMemcpy(res, r->dbad, sizeof res, cudaMemcpyDeviceToHost));
    *bad = (size_t)res[0];
    *first = (size_t)res[1];
    return -1;
}

/* The sampled check after a timed batch: the reference for the last call's
 * inputs, gathered at the indices the judge chose, against the candidate's
 * elements the harness copied into the shared memory. */
static int sample_check(kg_judge *j, size_ctx *r, uint64_t o0, uint64_t o1, int batch,
                        const char *which, const char *shp)
{
    uint32_t n = r->z.out < KG_SAMPLE ? (uint32_t)r->z.out : KG_SAMPLE;
    uint64_t seed = jrand();
    kg_cmd c;
    kg_rep rep;
    memset(&c, 0, sizeof c);
    c.op = KG_OP_FETCH_SAMPLE;
    c.task = j->task;
    for (int d = 0; d < 3; d++) c.d[d] = r->s.d[d];
    c.seed = seed;
    c.n_sample = n;
    if (kg_judge_call(j, &c, &rep, NULL) != 0) return KG_V_L2;
    if (rep.status != KG_ST_OK) return kg_judge_status_verdict(j, &rep);
    uint32_t *got = (uint32_t *)malloc((size_t)n * 4), *want = (uint32_t *)malloc((size_t)n * 4);
    if (!got || !want) {
        free(got);
        free(want);
        snprintf(j->m->detail, sizeof j->m->detail, "gate: out of memory");
        return KG_V_L2;
    }
    memcpy(got, j->shm, (size_t)n * 4);   /* one read */
    int v = ref_run(j, r, o0, o1);
    if (v < 0) {
        kg_gather_sample<<<64, 256, 0, J.st>>>((const uint32_t *)r->out, r->ob / 4, seed, n, r->samp);
        cudaError_t e = cudaGetLastError();
        if (e == cudaSuccess) e = cudaMemcpyAsync(want, r->samp, (size_t)n * 4, cudaMemcpyDeviceToHost, J.st);
        if (e == cudaSuccess) e = cudaStreamSynchronize(J.st);
        if (e != cudaSuccess) {
            j->m->judge_failed = 1;
            snprintf(j->m->detail, sizeof j->m->detail, "gate: the judge's sampled check failed: %s",
                     cudaGetErrorName(e));
            v = KG_V_L2;
        }
    }
    if (v < 0) {
        const kg_profile *p = kg_profile_of(j->t->prof);
        double mag = kg_mag_estimate(j->t, r->s);
        size_t bad = 0, first = 0;
        kg_mismatches mm;
        memset(&mm, 0, sizeof mm);
        for (uint32_t k = 0; k < n; k++) {
            size_t idx = kg_sample_index(seed, k, r->ob / 4);
            if (!kg_out_checked(j->t, r->s, idx)) continue;
            int ok;
            float g = 0, w = 0;
            if (p->kind == KG_PROF_INT) ok = got[k] == want[k];
            else {
                memcpy(&g, &got[k], 4);
                memcpy(&w, &want[k], 4);
                ok = kg_close(p, g, w, mag);
            }
            if (!ok) {
                if (bad++ == 0) first = idx;
                if (mm.n < KG_MAX_MISMATCH) {
                    mm.m[mm.n].index = (long long)idx;
                    mm.m[mm.n].expected = p->kind == KG_PROF_INT ? (double)want[k] : (double)w;
                    mm.m[mm.n].got = p->kind == KG_PROF_INT ? (double)got[k] : (double)g;
                    mm.n++;
                }
            }
        }
        if (bad) {
            char where[96];
            snprintf(where, sizeof where, "%.40s size %.50s (timed batch %d)", which, shp, batch + 1);
            kg_judge_mismatches(j, where, bad, n, &mm);
            snprintf(j->m->detail, sizeof j->m->detail,
                     "wrong result after timed batch %d at the %s size %s: %zu of %u sampled elements "
                     "differ from the reference for the last call's inputs (first at %zu): calls "
                     "skipped or results reused?", batch + 1, which, shp, bad, n, first);
            v = KG_V_L3;
        }
    }
    free(got);
    free(want);
    return v;
}

static int simple(kg_judge *j, int op, size_ctx *r, uint64_t seed, kg_rep *rep, double *wall)
{
    kg_cmd c;
    memset(&c, 0, sizeof c);
    c.op = (uint32_t)op;
    c.task = j->task;
    for (int d = 0; d < 3; d++) c.d[d] = r ? r->s.d[d] : 0;
    c.seed = seed;
    if (kg_judge_call(j, &c, rep, wall) != 0) return KG_V_L2;
    if (rep->status != KG_ST_OK) return kg_judge_status_verdict(j, rep);
    return -1;
}

static int gpu_size(kg_judge *j, kg_shape s, int is_large, unsigned long long seed, int no_timing)
{
    const kg_task *t = j->t;
    size_ctx r;
    memset(&r, 0, sizeof r);
    r.s = s;
    r.z = kg_task_sizes(t, s);
    r.n0 = kg_pool_elems(r.z.in0);
    r.n1 = r.z.in1 ? kg_pool_elems(r.z.in1) : 0;
    r.ob = r.z.out * r.z.out_elem;
    char shp[96];
    kg_shape_text(t, s, shp, sizeof shp);
    const char *which = is_large ? "large" : "mid";
    int v = -1;
    kg_rep rep;
    double wall;
    cudaEvent_t e0 = NULL, e1 = NULL;
    kg_judge_stage(j, "preparing the %s size %s", which, shp);
#define STEP(x) do { v = (x); if (v >= 0) goto done; } while (0)
#define JGS(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { j->m->judge_failed = 1; \
    snprintf(j->m->detail, sizeof j->m->detail, "gate: the judge's %s failed: %s", #call, \
             cudaGetErrorName(e_)); v = KG_V_L2; goto done; } } while (0)
    JGS(cudaMalloc(&r.p0, r.n0 * r.z.in_elem));
    if (r.n1) JGS(cudaMalloc(&r.p1, r.n1 * 4));
    JGS(cudaMalloc(&r.out, r.ob + KG_GUARD));
    JGS(cudaMalloc(&r.cmp, r.ob + KG_GUARD));
    JGS(cudaMalloc((void **)&r.samp, (size_t)KG_SAMPLE * 4));
    JGS(cudaMalloc((void **)&r.dbad, 2 * sizeof(unsigned long long)));
    JGS(cudaEventCreate(&e0));
    JGS(cudaEventCreate(&e1));
    kg_fill_pools(t, s, r.p0, r.n0, r.p1, r.n1, seed, J.sm * 8, J.st);
    JGS(cudaGetLastError());
    if (!strcmp(t->name, "sum_reduce"))
        JGS(cub::DeviceReduce::Sum(NULL, r.temp_bytes, (const float *)r.p0, (float *)r.out, (int)s.d[0], J.st));
    else if (!strcmp(t->name, "histogram256"))
        JGS(cub::DeviceHistogram::HistogramEven(NULL, r.temp_bytes, (const unsigned char *)r.p0,
                                                (unsigned int *)r.out, 257, 0, 256, (int)s.d[0], J.st));
    if (r.temp_bytes) JGS(cudaMalloc(&r.temp, r.temp_bytes));
    JGS(cudaStreamSynchronize(J.st));
    STEP(simple(j, KG_OP_PREPARE, &r, seed, &rep, NULL));

    {
        double ref_ms = 0, one = 0;
        int ref_calls = 10;
        if (!no_timing) {
            /* one call (the batch length), then a warm-up batch */
            kg_judge_stage(j, "warming up the reference at the %s size %s", which, shp);
            double tmp;
            STEP(ref_batch(j, &r, 1, e0, e1, &one));
            ref_calls = batch_calls(one);
            STEP(ref_batch(j, &r, ref_calls, e0, e1, &tmp));
        }
        /* the checked call: the whole output against the reference at offset 0 */
        kg_judge_stage(j, "checking the %s size %s", which, shp);
        STEP(ref_run(j, &r, 0, 0));
        JGS(cudaStreamSynchronize(J.st));
        STEP(simple(j, KG_OP_CHECK, &r, 0, &rep, &wall));
        double beat;
        STEP(kg_judge_bound(j, rep.ms, wall, &beat));
        /* the whole output through the shared memory: a cost of the separate
         * judge (the copy out of the harness, the copy into the judge) */
        double t0 = kg_now();
        STEP(simple(j, KG_OP_FETCH_FULL, &r, 0, &rep, NULL));
        JGS(cudaMemcpy(r.cmp, j->shm, r.ob + KG_GUARD, cudaMemcpyHostToDevice));   /* one read */
        j->t_io += kg_now() - t0;
        size_t bad, first;
        STEP(compare_full(j, &r, &bad, &first));
        if (bad) {
            /* the first wrong element, for the feedback */
            kg_mismatches mm;
            memset(&mm, 0, sizeof mm);
            uint32_t gw = 0, rw = 0;
            if (first < r.z.out && cudaMemcpy(&gw, (char *)r.cmp + first * 4, 4, cudaMemcpyDeviceToHost) == cudaSuccess &&
                cudaMemcpy(&rw, (char *)r.out + first * 4, 4, cudaMemcpyDeviceToHost) == cudaSuccess) {
                float gf, rf;
                memcpy(&gf, &gw, 4);
                memcpy(&rf, &rw, 4);
                int exact = kg_profile_of(t->prof)->kind == KG_PROF_INT;
                mm.m[0].index = (long long)first;
                mm.m[0].expected = exact ? (double)rw : (double)rf;
                mm.m[0].got = exact ? (double)gw : (double)gf;
                mm.n = 1;
            }
            kg_judge_mismatches(j, shp, bad, r.z.out, &mm);
            snprintf(j->m->detail, sizeof j->m->detail, "wrong result at the %s size %s: %zu of %zu "
                     "elements differ from the reference (first at %zu)", which, shp, bad, r.z.out, first);
            v = KG_V_L3;
            goto done;
        }
        unsigned char guard[KG_GUARD], pat[KG_GUARD];
        memset(pat, 0xA5, KG_GUARD);
        JGS(cudaMemcpy(guard, (char *)r.cmp + r.ob, KG_GUARD, cudaMemcpyDeviceToHost));
        if (memcmp(guard, pat, KG_GUARD) != 0) {
            snprintf(j->m->detail, sizeof j->m->detail, "wrote past the end of the output at the %s "
                     "size %s", which, shp);
            v = KG_V_L3;
            goto done;
        }
        if (!no_timing) {
            /* The candidate and the reference timed alike (README.md, "Timing"):
             * in turns, each batch after an L2 flush, the same number of calls
             * at fresh offsets, CUDA events around each batch in its own
             * process, 2 warm-up turns and the median of 5; the candidate's
             * event time bounded by the judge's clock (kg_judge_bound for each
             * batch, kg_judge_per_call over the 5) and its output checked after
             * every batch. */
            kg_judge_stage(j, "timing the candidate and the reference at the %s size %s", which, shp);
            double cand_ms = beat;
            int calls = std::min(ref_calls, batch_calls(beat));
            /* a candidate over 20x slower than the reference and over 20 ms a
             * call is judged on the checked call alone */
            int full = beat < 20.0 * one || beat < 20.0;
            double per[5], rv[5], rp[5];
            int wall_before = j->m->wall_batches;
            for (int b = 0; b < 7; b++) {
                kg_cmd c;
                memset(&c, 0, sizeof c);
                c.op = KG_OP_BATCH;
                c.task = j->task;
                for (int d = 0; d < 3; d++) c.d[d] = s.d[d];
                /* a batch length the candidate cannot predict */
                c.n_calls = full ? (uint32_t)(calls - (int)(jrand() % (uint64_t)(calls / 4 + 1))) : (uint32_t)ref_calls;
                double rb;
                STEP(flush_l2(j));
                STEP(ref_batch(j, &r, (int)c.n_calls, e0, e1, &rb));
                if (b >= 2) rv[b - 2] = rb;
                if (!full) continue;
                pick_offsets(c.n_calls, c.off0, c.off1);
                STEP(flush_l2(j));
                if (kg_judge_call(j, &c, &rep, &wall) != 0) { v = KG_V_L2; goto done; }
                if (rep.status != KG_ST_OK) { v = kg_judge_status_verdict(j, &rep); goto done; }
                double judged;
                STEP(kg_judge_bound(j, rep.ms, wall, &judged));
                j->m->timed_batches++;
                if (judged != (double)rep.ms) j->m->wall_batches++;
                if (b >= 2) per[b - 2] = judged / c.n_calls;
                if (b >= 2) rp[b - 2] = (double)rep.ms / c.n_calls;
                STEP(sample_check(j, &r, c.off0[c.n_calls - 1], c.off1[c.n_calls - 1], b, which, shp));
            }
            std::sort(rv, rv + 5);
            ref_ms = rv[2];
            if (full) {
                cand_ms = kg_judge_per_call(per, rp, 5);
                std::sort(rp, rp + 5);
                /* the note "judge's clock in N of M batches" only where it decided */
                if (cand_ms <= rp[2]) j->m->wall_batches = wall_before;
                if (is_large) j->m->rep_ms_large = rp[2];
                else j->m->rep_ms_mid = rp[2];
            }
            if (is_large) { j->m->cand_ms_large = cand_ms; j->m->ref_ms_large = ref_ms; }
            else { j->m->cand_ms_mid = cand_ms; j->m->ref_ms_mid = ref_ms; }
            if (cand_ms > 2.0 * ref_ms) {
                snprintf(j->m->detail, sizeof j->m->detail,
                         "too slow at the %s size %s: %.4g ms vs %.4g ms for the reference (%s): %.1f%% "
                         "of its speed, the floor is 50%%", which, shp, cand_ms, ref_ms, t->ref_name,
                         100.0 * ref_ms / cand_ms);
                v = KG_V_L4;
                goto done;
            }
        }
        STEP(simple(j, KG_OP_RELEASE, NULL, 0, &rep, NULL));
    }
done:
#undef STEP
#undef JGS
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    free_size(&r);
    return v;
}

static int session(kg_judge *j, const kg_session_req *q)
{
    int v;
    /* the round-trip allowance, while no candidate code is in the harness */
    if (!q->dry && J.ready && !q->no_timing && (v = kg_judge_calibrate(j)) >= 0) return v;
    v = kg_judge_load(j);
    if (v >= 0) return v;
    if (q->dry) {
        v = kg_judge_dry(j);
        if (v >= 0) return v;
        snprintf(j->m->detail, sizeof j->m->detail,
                 "loaded and called once in the sandbox (dry run without a GPU: nothing checked)");
        return KG_V_STATIC_OK;
    }
    if (!J.ready) {
        j->m->judge_failed = 1;
        snprintf(j->m->detail, sizeof j->m->detail, "gate: the judge has no CUDA context");
        return KG_V_L2;
    }
    if ((v = kg_judge_ping(j)) >= 0) return v;
    for (int i = 0; i < j->t->n_small; i++)
        if ((v = kg_judge_small(j, i, q->seed)) >= 0) return v;
    if ((v = gpu_size(j, j->t->mid, 0, q->seed + 77, q->no_timing)) >= 0) return v;
    j->m->shapes_checked++;
    if (!q->no_timing) {
        if ((v = gpu_size(j, j->t->large, 1, q->seed + 78, 0)) >= 0) return v;
        j->m->shapes_checked++;
    }
    snprintf(j->m->detail, sizeof j->m->detail, "all %d shapes correct%s", j->m->shapes_checked,
             q->no_timing ? " (not timed)" : ", within 50% of the reference");
    return KG_V_PASS;
}

static int recv_session(int sock, kg_session_req *q, int fds[3])
{
    char cbuf[CMSG_SPACE(3 * sizeof(int))];
    struct iovec io = {q, sizeof *q};
    struct msghdr mh;
    memset(&mh, 0, sizeof mh);
    mh.msg_iov = &io;
    mh.msg_iovlen = 1;
    mh.msg_control = cbuf;
    mh.msg_controllen = sizeof cbuf;
    fds[0] = fds[1] = fds[2] = -1;
    ssize_t n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
    if (n <= 0) return -1;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
            c->cmsg_len == CMSG_LEN(3 * sizeof(int)))
            memcpy(fds, CMSG_DATA(c), 3 * sizeof(int));
    return n == (ssize_t)sizeof *q ? 0 : 1;
}

extern "C" void kg_judge_main(int sock, int device, int dry)
{
    memset(&J, 0, sizeof J);
    J.device = device;
    if (getrandom(&J.rng, sizeof J.rng, 0) != (ssize_t)sizeof J.rng || J.rng == 0) J.rng = 0x9e3779b97f4a7c15ULL ^ (uint64_t)getpid();
    if (!dry) {
        cudaError_t e = cudaSetDevice(device);
        if (e == cudaSuccess) e = cudaFree(0);
        if (e == cudaSuccess) e = cudaDeviceGetAttribute(&J.sm, cudaDevAttrMultiProcessorCount, device);
        if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&J.st, cudaStreamNonBlocking);
        int l2 = 0;
        if (e == cudaSuccess && cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device) == cudaSuccess && l2 > 0) {
            J.flush_bytes = 2 * (size_t)l2;
            if (cudaMalloc(&J.flush, J.flush_bytes) != cudaSuccess) {
                J.flush = NULL;   /* timing without the flush: both sides alike still */
                cudaGetLastError();
            }
        }
        if (e == cudaSuccess && cublasCreate(&J.blas) == CUBLAS_STATUS_SUCCESS) {
            cublasSetMathMode(J.blas, CUBLAS_PEDANTIC_MATH);
            cublasSetStream(J.blas, J.st);
            J.ready = 1;
        }
    }
    for (;;) {
        kg_session_req q;
        int fds[3];
        int rr = recv_session(sock, &q, fds);
        if (rr < 0) break;
        kg_judge_msg m;
        memset(&m, 0, sizeof m);
        m.magic = KG_JUDGE_MAGIC;
        kg_judge j;
        memset(&j, 0, sizeof j);
        j.m = &m;
        j.sock = sock;
        j.cmd_fd = fds[0];
        j.rep_fd = fds[1];
        j.err_name = err_name;
        j.before_batch = flush_l2;
        double t0 = kg_now();
        struct stat st;
        int v;
        if (rr != 0 || q.magic != KG_SESSION_MAGIC || !kg_task_at(q.task) || fds[2] < 0 ||
            !(q.timeout_s > 0 && q.timeout_s < 1e5) || fstat(fds[2], &st) != 0 || st.st_size <= 0) {
            m.judge_failed = 1;
            snprintf(m.detail, sizeof m.detail, "gate: a malformed session request");
            v = KG_V_L2;
        } else {
            j.t = kg_task_at(q.task);
            j.task = q.task;
            j.shm_bytes = (size_t)st.st_size;
            j.shm = (unsigned char *)mmap(NULL, j.shm_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fds[2], 0);
            j.deadline = t0 + q.timeout_s;
            if (j.shm == MAP_FAILED) {
                j.shm = NULL;
                m.judge_failed = 1;
                snprintf(m.detail, sizeof m.detail, "gate: cannot map the shared memory");
                v = KG_V_L2;
            } else {
                v = session(&j, &q);
                munmap(j.shm, j.shm_bytes);
            }
        }
        for (int i = 0; i < 3; i++)
            if (fds[i] >= 0) close(fds[i]);
        if (J.ready) cudaDeviceSynchronize();
        m.final = 1;
        m.verdict = v;
        m.t_io = j.t_io;
        m.t_session = kg_now() - t0;
        ssize_t w = send(sock, &m, sizeof m, MSG_NOSIGNAL);
        (void)w;
        if (m.judge_failed) break;   /* a context in doubt: the gate starts a new judge */
    }
    if (J.blas) cublasDestroy(J.blas);
    _exit(0);
}

/* bin/kgate --profile-reference=TASK: the judge's reference at the task's
 * mid size, once to warm up and once inside the NVTX range "kgate_ref", for
 * Nsight Compute (an L4 verdict explained). The gate's own code: it runs
 * under ncu without a sandbox. */
extern "C" int kg_profile_reference(int task, int device, unsigned long long seed)
{
    const kg_task *t = kg_task_at(task);
    if (!t) return 2;
    memset(&J, 0, sizeof J);
    J.device = device;
    if (cudaSetDevice(device) != cudaSuccess || cudaFree(0) != cudaSuccess ||
        cudaDeviceGetAttribute(&J.sm, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
        cudaStreamCreateWithFlags(&J.st, cudaStreamNonBlocking) != cudaSuccess ||
        cublasCreate(&J.blas) != CUBLAS_STATUS_SUCCESS)
        return 2;
    cublasSetMathMode(J.blas, CUBLAS_PEDANTIC_MATH);
    cublasSetStream(J.blas, J.st);
    kg_judge_msg m;
    memset(&m, 0, sizeof m);
    kg_judge j;
    memset(&j, 0, sizeof j);
    j.m = &m;
    j.t = t;
    j.task = task;
    j.sock = -1;
    size_ctx r;
    memset(&r, 0, sizeof r);
    r.s = t->mid;
    r.z = kg_task_sizes(t, r.s);
    r.n0 = kg_pool_elems(r.z.in0);
    r.n1 = r.z.in1 ? kg_pool_elems(r.z.in1) : 0;
    r.ob = r.z.out * r.z.out_elem;
    if (cudaMalloc(&r.p0, r.n0 * r.z.in_elem) != cudaSuccess || (r.n1 && cudaMalloc(&r.p1, r.n1 * 4) != cudaSuccess) ||
        cudaMalloc(&r.out, r.ob + KG_GUARD) != cudaSuccess)
        return 2;
    kg_fill_pools(t, r.s, r.p0, r.n0, r.p1, r.n1, seed, J.sm * 8, J.st);
    if (!strcmp(t->name, "sum_reduce"))
        cub::DeviceReduce::Sum(NULL, r.temp_bytes, (const float *)r.p0, (float *)r.out, (int)r.s.d[0], J.st);
    else if (!strcmp(t->name, "histogram256"))
        cub::DeviceHistogram::HistogramEven(NULL, r.temp_bytes, (const unsigned char *)r.p0, (unsigned int *)r.out,
                                            257, 0, 256, (int)r.s.d[0], J.st);
    if (r.temp_bytes && cudaMalloc(&r.temp, r.temp_bytes) != cudaSuccess) return 2;
    if (ref_run(&j, &r, 0, 0) >= 0) return 1;   /* warm-up */
    cudaStreamSynchronize(J.st);
    nvtx_push("kgate_ref");
    int v = ref_run(&j, &r, 0, 0);
    cudaError_t e = cudaStreamSynchronize(J.st);
    nvtx_pop();
    free_size(&r);
    cublasDestroy(J.blas);
    return v >= 0 || e != cudaSuccess ? 1 : 0;
}

extern "C" void kg_probe_main(int device, int fd)
{
    kg_probe_msg p;
    memset(&p, 0, sizeof p);
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    p.count = e == cudaSuccess ? n : 0;
    if (e != cudaSuccess || n == 0) {
        snprintf(p.reason, sizeof p.reason, "no CUDA device: %s",
                 e != cudaSuccess ? cudaGetErrorString(e) : "none found");
    } else if (device >= n) {
        snprintf(p.reason, sizeof p.reason, "--device=%d: only %d device(s)", device, n);
    } else {
        cudaDeviceProp prop;
        if (cudaGetDeviceProperties(&prop, device) == cudaSuccess) {
            p.ok = 1;
            p.cc_major = prop.major;
            p.cc_minor = prop.minor;
            p.sm_count = prop.multiProcessorCount;
            snprintf(p.name, sizeof p.name, "%.120s", prop.name);
        } else {
            snprintf(p.reason, sizeof p.reason, "cannot query device %d", device);
        }
    }
    ssize_t w = write(fd, &p, sizeof p);
    (void)w;
}
