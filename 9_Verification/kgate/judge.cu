/* judge.cu: the judge's GPU side (judge.h). It never loads candidate code.
 *
 * Per session (one candidate), with the harness doing what it is told:
 *   0. the GPU's memory back at its baseline (the previous candidate's
 *      context gone; at most KG_GPU_WAIT_S, else SKIPPED);
 *   1. the arena: GPU memory of the judge's, made with the driver's virtual
 *      memory API and mapped by the harness (MAP, arena.cuh), room for up to
 *      64 calls' own inputs and output at the mid and the large size;
 *   2. before any candidate code is loaded: the reference timed at each
 *      size (cuBLAS, CUB or a kernel of the judge's, in its own context):
 *      batches of back-to-back calls, each on fresh inputs in its own arena
 *      buffers, after the L2 flush, CUDA events around them, 2 warm-up
 *      batches and the median of 5; then what a timed batch of the
 *      candidate costs beyond its calls (judge_host.c, kg_judge_calibrate_size)
 *      and, for a PyTorch candidate, the copy of its results the gate's
 *      contract adds;
 *   3. LOAD; small odd shapes (judge_host.c) against the CPU reference;
 *   4. mid size, then large: the checked call and the timed batches
 *      (judge_host.c, kg_judge_time_size), the judge's own clock for each,
 *      the GPU work around them here (refill, snapshot, verify);
 *   5. slower than 50% of the reference: L4; the large size only when the
 *      mid size passes.
 */
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>

#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cub/cub.cuh>

#include "arena.cuh"
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
    void *flush;                   /* twice the L2: written before every timed batch */
    size_t flush_bytes;
    size_t base_free, total;       /* the GPU's free memory when the judge was ready: the baseline */
    kg_vmm vmm;
} J;

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

/* The samples of the outputs of the checked calls: sample k of call sel[k % m]. */
typedef struct { int v[KG_MAX_BATCH]; } sel_list;

__global__ void k_snapshot(const char *base, size_t slot, size_t out_off, size_t out_words, sel_list sel, int m,
                           uint64_t seed, uint32_t n, uint32_t *dst)
{
    for (uint32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) {
        const uint32_t *o = (const uint32_t *)(base + (size_t)sel.v[k % m] * slot + out_off);
        dst[k] = o[kg_sample_index_dev(seed, k, out_words)];
    }
}

/* Pieces of a that differ from b, counted into *bad: 16 bytes at a time
 * where both start at a multiple of 16 (the arena's and the judge's own
 * buffers), else byte by byte (a guard zone right after an output of n
 * elements). */
__global__ void k_diff(const unsigned char *a, const unsigned char *b, size_t n, unsigned long long *bad)
{
    unsigned long long c = 0;
    size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x, stride = (size_t)gridDim.x * blockDim.x;
    size_t n16 = (((uintptr_t)a | (uintptr_t)b) % 16 == 0) ? n / 16 : 0;
    const uint4 *a4 = (const uint4 *)a, *b4 = (const uint4 *)b;
    for (size_t i = tid; i < n16; i += stride) {
        uint4 x = a4[i], y = b4[i];
        c += x.x != y.x || x.y != y.y || x.z != y.z || x.w != y.w;
    }
    for (size_t i = 16 * n16 + tid; i < n; i += stride) c += a[i] != b[i];
    if (c) atomicAdd(bad, c);
}

/* The guard zones after the outputs of calls [0, calls): 0xA5. */
__global__ void k_guards(char *base, size_t slot, size_t guard_off, int calls)
{
    for (int i = blockIdx.x; i < calls; i += gridDim.x)
        for (int k = threadIdx.x; k < KG_GUARD; k += blockDim.x) base[(size_t)i * slot + guard_off + k] = (char)0xA5;
}

/* The session's GPU state: the arena, the two sizes, the judge's private
 * buffers for checking (inputs regenerated, the reference's output, the
 * snapshots), CUB's scratch. */
typedef struct {
    CUmemGenericAllocationHandle h;
    int have_h, fd;
    CUdeviceptr arena;
    size_t arena_bytes;
    kg_size_run z[2];
    void *pin0, *pin1, *rout, *temp, *guard;
    size_t temp_bytes;
    uint32_t *snap, *snap2;
    unsigned long long *cnt;       /* [0] input bytes changed, [1] wrong elements, [2] first wrong, [3] guard */
    cudaEvent_t e0, e1;
    size_t free_at_load;           /* for the candidate's GPU memory limit */
} gpu_sess;

static gpu_sess *S(kg_judge *j) { return (gpu_sess *)j->gpu_ctx; }

static uint64_t slot_seed(uint64_t seed, int i) { return seed ^ (0x9e3779b97f4a7c15ULL * (uint64_t)(i + 1)); }

static char *slot_at(kg_judge *j, kg_size_run *z, int i)
{
    return (char *)S(j)->arena + z->arena_base + (size_t)i * z->L.slot;
}

/* The reference on inputs a, b into o, at the shape of z. */
static int ref_call(kg_judge *j, kg_shape sh, const void *a0, const void *b0, void *o0, void *temp,
                    size_t temp_bytes)
{
    const char *nm = j->t->name;
    cudaStream_t st = J.st;
    int blocks = J.sm * 8, n = (int)sh.d[0];
    const float *a = (const float *)a0, *b = (const float *)b0;
    float *o = (float *)o0;
    size_t tb = temp_bytes;
    if (!strcmp(nm, "vector_add")) ref_elementwise<0><<<blocks, 256, 0, st>>>(a, b, o, n);
    else if (!strcmp(nm, "relu")) ref_elementwise<1><<<blocks, 256, 0, st>>>(a, NULL, o, n);
    else if (!strcmp(nm, "tanh")) ref_elementwise<2><<<blocks, 256, 0, st>>>(a, NULL, o, n);
    else if (!strcmp(nm, "sum_reduce"))
        JG(cub::DeviceReduce::Sum(temp, tb, a, o, n, st));
    else if (!strcmp(nm, "histogram256"))
        JG(cub::DeviceHistogram::HistogramEven(temp, tb, (const unsigned char *)a0, (unsigned int *)o0, 257, 0,
                                               256, n, st));
    else if (!strcmp(nm, "softmax_rows")) {
        int rows = (int)sh.d[0];
        ref_softmax<<<(rows + 7) / 8, 256, 0, st>>>(a, o, rows, (int)sh.d[1]);
    } else if (!strcmp(nm, "transpose")) {
        int rows = (int)sh.d[0], cols = (int)sh.d[1];
        dim3 grid((cols + 31) / 32, (rows + 31) / 32);
        ref_transpose<<<grid, dim3(32, 8), 0, st>>>(a, o, rows, cols);
    } else if (!strcmp(nm, "sgemm")) {
        int M = (int)sh.d[0], N = (int)sh.d[1], K = (int)sh.d[2];
        const float one = 1.0f, zero = 0.0f;
        /* row-major C = A B is column-major C^T = B^T A^T */
        if (cublasSgemm(J.blas, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, b, N, a, K, &zero, o, N) !=
            CUBLAS_STATUS_SUCCESS) {
            j->m->judge_failed = 1;
            snprintf(j->m->detail, sizeof j->m->detail, "gate: the judge's cublasSgemm failed");
            return KG_V_L2;
        }
    } else if (!strcmp(nm, "blur3x3")) {
        int w = (int)sh.d[0], h = (int)sh.d[1];
        dim3 grid((w + 31) / 32, (h + 7) / 8);
        ref_blur<<<grid, dim3(32, 8), 0, st>>>(a, o, w, h, (int)sh.d[2]);
    }
    JG(cudaGetLastError());
    return -1;
}

/* CUB's scratch for the shape (0 for the others). */
static size_t temp_need(const kg_task *t, kg_shape s)
{
    size_t b = 0;
    if (!strcmp(t->name, "sum_reduce"))
        cub::DeviceReduce::Sum(NULL, b, (const float *)NULL, (float *)NULL, (int)s.d[0], J.st);
    else if (!strcmp(t->name, "histogram256"))
        cub::DeviceHistogram::HistogramEven(NULL, b, (const unsigned char *)NULL, (unsigned int *)NULL, 257, 0,
                                            256, (int)s.d[0], J.st);
    return b;
}

/* Fresh inputs of one call from its seed (the same kernel as the harness
 * used to run, so regenerating them gives the same bits). */
static void fill_inputs(kg_judge *j, kg_size_run *z, void *in0, void *in1, uint64_t seed)
{
    kg_sizes sz = kg_task_sizes(j->t, z->s);
    kg_fill_pools(j->t, z->s, in0, sz.in0, in1, sz.in1, seed, J.sm * 8, J.st);
}

/* Every timed batch, the reference's and the candidate's, starts from the
 * same cache state: the judge writes twice the L2's size last (the L2 is the
 * device's, so this evicts the harness's lines as well as its own). */
static int flush_l2(kg_judge *j)
{
    if (J.flush) JG(cudaMemsetAsync(J.flush, (int)(kg_judge_rand(j) & 0xff), J.flush_bytes, J.st));
    return -1;
}

/* kg_gpu_ops.refill */
static int op_refill(kg_judge *j, kg_size_run *z, int calls, uint64_t seed, int poison0)
{
    for (int i = 0; i < calls; i++) {
        char *at = slot_at(j, z, i);
        fill_inputs(j, z, at + z->L.in0, z->L.in1_bytes ? at + z->L.in1 : NULL, slot_seed(seed, i));
    }
    JG(cudaGetLastError());
    k_guards<<<calls, 256, 0, J.st>>>(slot_at(j, z, 0), z->L.slot, z->L.out + z->L.out_bytes, calls);
    if (poison0) JG(cudaMemsetAsync(slot_at(j, z, 0) + z->L.out, 0xFF, z->L.out_bytes, J.st));
    int v = flush_l2(j);
    if (v >= 0) return v;
    JG(cudaStreamSynchronize(J.st));
    return -1;
}

static int snap_into(kg_judge *j, kg_size_run *z, const int *sel, int m, uint64_t seed, uint32_t *dst)
{
    sel_list sl;
    memset(&sl, 0, sizeof sl);
    for (int i = 0; i < m && i < KG_MAX_BATCH; i++) sl.v[i] = sel[i];
    k_snapshot<<<64, 256, 0, J.st>>>(slot_at(j, z, 0), z->L.slot, z->L.out, z->L.out_bytes / 4, sl, m, seed,
                                     KG_SAMPLE, dst);
    JG(cudaGetLastError());
    JG(cudaStreamSynchronize(J.st));
    return -1;
}

/* kg_gpu_ops.snapshot: the moment the judge's clock stops */
static int op_snapshot(kg_judge *j, kg_size_run *z, const int *sel, int m, uint64_t seed)
{
    return snap_into(j, z, sel, m, seed, S(j)->snap);
}

/* kg_gpu_ops.verify: the checked calls in full, off the clock */
static int op_verify(kg_judge *j, kg_size_run *z, uint64_t seed, const int *sel, int m, uint64_t sseed, int batch)
{
    gpu_sess *g = S(j);
    char *d = j->m->detail;
    size_t dl = sizeof j->m->detail;
    /* the GPU memory the candidate keeps: kg_gpu_limit at most (judge.h) */
    size_t fr = 0, tot = 0;
    if (cudaMemGetInfo(&fr, &tot) == cudaSuccess && g->free_at_load > fr &&
        g->free_at_load - fr > kg_gpu_limit(J.total)) {
        snprintf(d, dl, "GPU memory: kept %.1f GiB of the GPU's memory at the %s size, more than its limit of %.1f "
                 "GiB beyond what it held when loaded (memory a candidate keeps is taken from the judge and "
                 "the next candidate)", (double)(g->free_at_load - fr) / 1073741824.0, z->which,
                 (double)kg_gpu_limit(J.total) / 1073741824.0);
        return KG_V_L2;
    }
    cudaGetLastError();
    const kg_profile *p = kg_profile_of(j->t->prof);
    kg_sizes sz = kg_task_sizes(j->t, z->s);
    long long width = j->t->sig == KG_SIG_BLUR ? z->s.d[0] : 0, pitch = j->t->sig == KG_SIG_BLUR ? z->s.d[2] : 0;
    char where[200];
    for (int c = 0; c < m; c++) {
        int i = sel[c];
        char *at = slot_at(j, z, i);
        if (batch == 0) snprintf(where, sizeof where, "the %s size %s", z->which, z->shp);
        else snprintf(where, sizeof where, "the %s size %.80s (timed batch %d, call %d of %d)", z->which, z->shp,
                      batch, i + 1, z->calls);
        fill_inputs(j, z, g->pin0, g->pin1, slot_seed(seed, i));
        unsigned long long init[4] = {0, 0, ~0ULL, 0}, res[4];
        JG(cudaMemcpyAsync(g->cnt, init, sizeof init, cudaMemcpyHostToDevice, J.st));
        k_diff<<<J.sm * 4, 256, 0, J.st>>>((const unsigned char *)g->pin0, (const unsigned char *)at + z->L.in0,
                                           z->L.in0_bytes, g->cnt);
        if (z->L.in1_bytes)
            k_diff<<<J.sm * 4, 256, 0, J.st>>>((const unsigned char *)g->pin1, (const unsigned char *)at + z->L.in1,
                                               z->L.in1_bytes, g->cnt);
        int v = ref_call(j, z->s, g->pin0, g->pin1, g->rout, g->temp, g->temp_bytes);
        if (v >= 0) return v;
        k_compare<<<J.sm * 4, 256, 0, J.st>>>((const float *)(at + z->L.out), (const float *)g->rout, sz.out,
                                              p->kind == KG_PROF_INT, p->abs, p->rel,
                                              p->mag_rel * kg_mag_estimate(j->t, z->s), width, pitch, g->cnt + 1,
                                              g->cnt + 2);
        k_diff<<<1, 256, 0, J.st>>>((const unsigned char *)g->guard,
                                    (const unsigned char *)at + z->L.out + z->L.out_bytes, KG_GUARD, g->cnt + 3);
        JG(cudaGetLastError());
        JG(cudaMemcpyAsync(res, g->cnt, sizeof res, cudaMemcpyDeviceToHost, J.st));
        JG(cudaStreamSynchronize(J.st));
        if (res[0]) {
            snprintf(d, dl, "modified its (const) input at %s", where);
            return KG_V_L3;
        }
        if (res[1]) {
            size_t first = (size_t)res[2];
            kg_mismatches mm;
            memset(&mm, 0, sizeof mm);
            uint32_t gw = 0, rw = 0;
            if (first < sz.out &&
                cudaMemcpy(&gw, at + z->L.out + first * 4, 4, cudaMemcpyDeviceToHost) == cudaSuccess &&
                cudaMemcpy(&rw, (char *)g->rout + first * 4, 4, cudaMemcpyDeviceToHost) == cudaSuccess) {
                float gf, rf;
                memcpy(&gf, &gw, 4);
                memcpy(&rf, &rw, 4);
                int exact = p->kind == KG_PROF_INT;
                mm.m[0].index = (long long)first;
                mm.m[0].expected = exact ? (double)rw : (double)rf;
                mm.m[0].got = exact ? (double)gw : (double)gf;
                mm.n = 1;
            }
            char shp[96];
            if (batch == 0) snprintf(shp, sizeof shp, "%.90s", z->shp);
            else snprintf(shp, sizeof shp, "%.60s (timed batch %d)", z->shp, batch);
            kg_judge_mismatches(j, shp, (size_t)res[1], sz.out, &mm);
            if (batch == 0)
                snprintf(d, dl, "wrong result at %s: %llu of %zu elements differ from the reference (first at %zu)",
                         where, res[1], sz.out, first);
            else
                snprintf(d, dl, "wrong result at %.150s: %llu of %zu elements differ from the reference for that "
                         "call's inputs (first at %zu): calls skipped or results reused?", where, res[1], sz.out,
                         first);
            return KG_V_L3;
        }
        if (res[3]) {
            snprintf(d, dl, "wrote past the end of the output at %s", where);
            return KG_V_L3;
        }
    }
    /* last: the sampled elements must be what the snapshot read when the
     * harness answered (work still running then shows as a change) */
    int v = snap_into(j, z, sel, m, sseed, g->snap2);
    if (v >= 0) return v;
    unsigned long long zero = 0, changed = 0;
    JG(cudaMemcpyAsync(g->cnt, &zero, sizeof zero, cudaMemcpyHostToDevice, J.st));
    k_diff<<<J.sm, 256, 0, J.st>>>((const unsigned char *)g->snap, (const unsigned char *)g->snap2,
                                   (size_t)KG_SAMPLE * 4, g->cnt);
    JG(cudaGetLastError());
    JG(cudaMemcpyAsync(&changed, g->cnt, sizeof changed, cudaMemcpyDeviceToHost, J.st));
    JG(cudaStreamSynchronize(J.st));
    if (changed) {
        snprintf(d, dl, "outputs still changing after its answer at the %s size %s%s: work still running when "
                 "the harness said the %s was done (another stream, a thread, or an early answer)", z->which,
                 z->shp, batch ? " (a timed batch)" : "", batch ? "batch" : "call");
        return KG_V_L3;
    }
    return -1;
}

static const kg_gpu_ops gpu_ops = {op_refill, op_snapshot, op_verify};

/* calls per batch: enough for about 2 ms of the reference's work (10 to
 * KG_MAX_BATCH), so what a batch costs beyond its calls is a small part of
 * it; calls over 0.5 ms: 5 ms of work (down to 1 call). */
static int batch_calls(double one_ms)
{
    if (one_ms > 0.5) {
        int calls = (int)(5.0 / one_ms);
        return calls < 1 ? 1 : calls > 10 ? 10 : calls;
    }
    int calls = one_ms > 0 ? (int)ceil(2.0 / one_ms) : KG_MAX_BATCH;
    return calls < 10 ? 10 : calls > KG_MAX_BATCH ? KG_MAX_BATCH : calls;
}

/* The reference's batch of `calls` calls, each on its own fresh inputs and
 * output, after the L2 flush: CUDA events around the calls; ms per call. */
static int ref_batch(kg_judge *j, kg_size_run *z, int calls, double *ms)
{
    gpu_sess *g = S(j);
    int v = op_refill(j, z, calls, kg_judge_rand(j), 0);
    if (v >= 0) return v;
    JG(cudaEventRecord(g->e0, J.st));
    for (int i = 0; i < calls; i++) {
        char *at = slot_at(j, z, i);
        v = ref_call(j, z->s, at + z->L.in0, z->L.in1_bytes ? at + z->L.in1 : NULL, at + z->L.out, g->temp,
                     g->temp_bytes);
        if (v >= 0) return v;
    }
    JG(cudaEventRecord(g->e1, J.st));
    JG(cudaEventSynchronize(g->e1));
    float f = 0;
    JG(cudaEventElapsedTime(&f, g->e0, g->e1));
    *ms = f / calls;
    return -1;
}

/* Before LOAD: the reference's time per call at z (and the batch length). */
static int ref_time(kg_judge *j, kg_size_run *z)
{
    kg_judge_stage(j, "timing the reference at the %s size %s", z->which, z->shp);
    double one = 0, tmp = 0, rv[5];
    /* one call, warm (the first call of a library sets itself up: cuBLAS took
     * several ms on the H200, and a batch sized from that was too short) */
    int v = ref_batch(j, z, 1, &tmp);
    if (v >= 0 || (v = ref_batch(j, z, 1, &one)) >= 0) return v;
    z->ref_one_ms = std::min(one, tmp);
    one = z->ref_one_ms;
    z->calls = std::min(batch_calls(one), z->slots);
    for (int b = 0; b < 7; b++) {
        if ((v = ref_batch(j, z, z->calls, b < 2 ? &tmp : &rv[b - 2])) >= 0) return v;
    }
    std::sort(rv, rv + 5);
    z->ref_ms = rv[2];
    return -1;
}

/* Before LOAD, for a PyTorch candidate: what copying `calls` results into
 * the gate's outputs costs (PyTorch returns a new tensor; the adapter copies
 * it, which the reference never does): the judge's own copies, each from a
 * buffer it has just written (as the candidate's result is), less the
 * writes alone. Median of 3 each. */
static int copy_time(kg_judge *j, kg_size_run *z)
{
    gpu_sess *g = S(j);
    double with[3], alone[3];
    for (int pass = 0; pass < 2; pass++)
        for (int r = 0; r < 3; r++) {
            int v = op_refill(j, z, z->calls, kg_judge_rand(j), 0);
            if (v >= 0) return v;
            JG(cudaEventRecord(g->e0, J.st));
            for (int i = 0; i < z->calls; i++) {
                JG(cudaMemsetAsync(g->rout, i & 0xff, z->L.out_bytes, J.st));
                if (pass == 0)
                    JG(cudaMemcpyAsync(slot_at(j, z, i) + z->L.out, g->rout, z->L.out_bytes, cudaMemcpyDeviceToDevice,
                                       J.st));
            }
            JG(cudaEventRecord(g->e1, J.st));
            JG(cudaEventSynchronize(g->e1));
            float f = 0;
            JG(cudaEventElapsedTime(&f, g->e0, g->e1));
            (pass == 0 ? with : alone)[r] = f;
        }
    std::sort(with, with + 3);
    std::sort(alone, alone + 3);
    z->copy_ms = with[1] > alone[1] ? with[1] - alone[1] : 0.0;
    return -1;
}

static void free_sess(gpu_sess *g)
{
    void *p[] = {g->pin0, g->pin1, g->rout, g->temp, g->guard, g->snap, g->snap2, g->cnt};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
        if (p[i]) cudaFree(p[i]);
    if (g->e0) cudaEventDestroy(g->e0);
    if (g->e1) cudaEventDestroy(g->e1);
    if (g->arena) kg_vmm_unmap(&J.vmm, g->arena, g->arena_bytes);
    if (g->have_h) J.vmm.release(g->h);
    if (g->fd >= 0) close(g->fd);
    memset(g, 0, sizeof *g);
    g->fd = -1;
}

/* The sizes, the arena and the judge's own buffers. Each size gets up to
 * KG_MAX_BATCH calls' buffers within 16 GiB or a quarter of the baseline's
 * free memory; the two sizes share the arena (one after the other). A
 * failure here is the machine's, not the candidate's: SKIPPED. */
static int setup(kg_judge *j, gpu_sess *g, int no_timing)
{
    const kg_task *t = j->t;
    kg_shape sh[2] = {t->mid, t->large};
    size_t cap = std::min((size_t)16 << 30, J.base_free / 4), need = 0, in0 = 0, in1 = 0, out = 0;
    for (int k = 0; k < 2; k++) {
        kg_size_run *z = &g->z[k];
        memset(z, 0, sizeof *z);
        z->s = sh[k];
        z->is_large = k;
        snprintf(z->which, sizeof z->which, "%s", k ? "large" : "mid");
        kg_shape_text(t, sh[k], z->shp, sizeof z->shp);
        z->L = kg_slot_layout_of(t, sh[k]);
        z->slots = no_timing ? 1 : (int)std::max((size_t)1, std::min((size_t)KG_MAX_BATCH, cap / z->L.slot));
        need = std::max(need, (size_t)z->slots * z->L.slot);
        in0 = std::max(in0, z->L.in0_bytes);
        in1 = std::max(in1, z->L.in1_bytes);
        out = std::max(out, z->L.out_bytes);
        g->temp_bytes = std::max(g->temp_bytes, temp_need(t, sh[k]));
    }
    const char *what = NULL;
    char *d = j->m->detail;
    size_t dl = sizeof j->m->detail;
    if (kg_vmm_load(&J.vmm, &what) != 0) {
        snprintf(d, dl, "gate: the driver has no %s (the judge's shared buffers need it)", what);
        return KG_V_SKIPPED;
    }
    g->arena_bytes = kg_vmm_round(&J.vmm, J.device, need);
    CUmemAllocationProp prop = kg_vmm_prop(J.device);
    CUresult r = J.vmm.create(&g->h, g->arena_bytes, &prop, 0);
    if (r == CUDA_SUCCESS) {
        g->have_h = 1;
        r = J.vmm.export_fd(&g->fd, g->h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
    }
    if (r == CUDA_SUCCESS) r = kg_vmm_map(&J.vmm, J.device, g->h, g->arena_bytes, &g->arena);
    if (r != CUDA_SUCCESS) {
        snprintf(d, dl, "gate: the judge could not make its %.1f GiB of shared buffers (driver error %d)",
                 (double)g->arena_bytes / 1073741824.0, (int)r);
        return KG_V_SKIPPED;
    }
    cudaError_t e = cudaMalloc(&g->pin0, in0 + KG_GUARD);
    if (e == cudaSuccess && in1) e = cudaMalloc(&g->pin1, in1 + KG_GUARD);
    if (e == cudaSuccess) e = cudaMalloc(&g->rout, out + KG_GUARD);
    if (e == cudaSuccess && g->temp_bytes) e = cudaMalloc(&g->temp, g->temp_bytes);
    if (e == cudaSuccess) e = cudaMalloc(&g->guard, KG_GUARD);
    if (e == cudaSuccess) e = cudaMalloc((void **)&g->snap, (size_t)KG_SAMPLE * 4);
    if (e == cudaSuccess) e = cudaMalloc((void **)&g->snap2, (size_t)KG_SAMPLE * 4);
    if (e == cudaSuccess) e = cudaMalloc((void **)&g->cnt, 4 * sizeof(unsigned long long));
    if (e == cudaSuccess) e = cudaMemset(g->guard, 0xA5, KG_GUARD);
    if (e == cudaSuccess) e = cudaEventCreate(&g->e0);
    if (e == cudaSuccess) e = cudaEventCreate(&g->e1);
    if (e != cudaSuccess) {
        cudaGetLastError();
        snprintf(d, dl, "gate: the judge could not allocate its own buffers: %s", cudaGetErrorName(e));
        return KG_V_SKIPPED;
    }
    return -1;
}

/* Before the session: the GPU's memory back at the baseline, so that the
 * previous candidate's context (a hog, a hang) is gone. */
static int gpu_memory_back(kg_judge *j)
{
    double t0 = kg_now();
    size_t want = J.base_free - kg_gpu_slack(J.base_free), fr = 0, tot = 0;
    for (;;) {
        if (cudaMemGetInfo(&fr, &tot) != cudaSuccess) {
            cudaGetLastError();
            break;
        }
        if (fr >= want) {
            j->m->gpu_wait_s = kg_now() - t0;
            return -1;
        }
        if (kg_now() - t0 > KG_GPU_WAIT_S) break;
        usleep(1000);
    }
    j->m->gpu_wait_s = kg_now() - t0;
    snprintf(j->m->detail, sizeof j->m->detail, "gate: the GPU's memory did not come back after the previous "
             "candidate: %.1f GiB free after %.0f s, %.1f GiB when the judge started", (double)fr / 1073741824.0,
             KG_GPU_WAIT_S, (double)J.base_free / 1073741824.0);
    return KG_V_SKIPPED;
}

static int session(kg_judge *j, const kg_session_req *q)
{
    int v;
    if (q->dry) {
        if ((v = kg_judge_load(j)) >= 0) return v;
        if ((v = kg_judge_dry(j)) >= 0) return v;
        snprintf(j->m->detail, sizeof j->m->detail,
                 "loaded and called once in the sandbox (dry run without a GPU: nothing checked)");
        return KG_V_STATIC_OK;
    }
    if (!J.ready) {
        j->m->judge_failed = 1;
        snprintf(j->m->detail, sizeof j->m->detail, "gate: the judge has no CUDA context");
        return KG_V_L2;
    }
    kg_judge_stage(j, "waiting for the GPU's memory (the previous candidate's)");
    if ((v = gpu_memory_back(j)) >= 0) return v;
    /* the session's deadline counts from here */
    j->deadline = kg_now() + q->timeout_s;
    gpu_sess *g = S(j);
    kg_judge_stage(j, "making the gate's buffers");
    if ((v = setup(j, g, q->no_timing)) >= 0) return v;
    if ((v = kg_judge_map(j, g->fd, g->arena_bytes)) >= 0) return v;
    int sizes = q->no_timing ? 1 : 2;
    /* before any candidate code: the reference, what a batch costs, the copy */
    for (int k = 0; k < sizes && !q->no_timing; k++) {
        kg_size_run *z = &g->z[k];
        if ((v = ref_time(j, z)) >= 0) return v;
        if ((v = kg_judge_calibrate_size(j, z)) >= 0) return v;
        if (j->torch && (v = copy_time(j, z)) >= 0) return v;
    }
    if (q->no_timing) g->z[0].calls = 1;
    size_t tot = 0;
    if (cudaMemGetInfo(&g->free_at_load, &tot) != cudaSuccess) {
        cudaGetLastError();
        g->free_at_load = 0;
    }
    if ((v = kg_judge_load(j)) >= 0) return v;
    if ((v = kg_judge_ping(j)) >= 0) return v;
    for (int i = 0; i < j->t->n_small; i++)
        if ((v = kg_judge_small(j, i, q->seed)) >= 0) return v;
    for (int k = 0; k < sizes; k++) {
        kg_size_run *z = &g->z[k];
        if ((v = kg_judge_time_size(j, z, q->no_timing)) >= 0) return v;
        j->m->shapes_checked++;
        if (q->no_timing) break;
        if (k == 0) {
            j->m->cand_ms_mid = z->cand_ms;
            j->m->ref_ms_mid = z->ref_ms;
            j->m->rep_ms_mid = z->rep_ms;
            j->m->allow_ms = z->allow_ms;
        } else {
            j->m->cand_ms_large = z->cand_ms;
            j->m->ref_ms_large = z->ref_ms;
            j->m->rep_ms_large = z->rep_ms;
        }
        j->m->timed_batches += z->timed;
        j->m->wall_batches += z->timed;   /* every figure is the judge's clock */
        if (z->cand_ms > 2.0 * z->ref_ms) {
            snprintf(j->m->detail, sizeof j->m->detail,
                     "too slow at the %s size %s: %.4g ms vs %.4g ms for the reference (%s): %.1f%% of its speed, "
                     "the floor is 50%%", z->which, z->shp, z->cand_ms, z->ref_ms, j->t->ref_name,
                     100.0 * z->ref_ms / z->cand_ms);
            return KG_V_L4;
        }
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
    /* a harness that stops reading gives EPIPE (it is lost), never a signal */
    signal(SIGPIPE, SIG_IGN);
    uint64_t rng = 0;
    if (getrandom(&rng, sizeof rng, 0) != (ssize_t)sizeof rng || rng == 0) rng = 0x9e3779b97f4a7c15ULL ^ (uint64_t)getpid();
    if (!dry) {
        /* spin, do not sleep, while waiting for the GPU: the judge's clock
         * then stops when the work is done, not when this process wakes */
        cudaError_t e = cudaSetDevice(device);
        if (e == cudaSuccess && cudaSetDeviceFlags(cudaDeviceScheduleSpin) != cudaSuccess) cudaGetLastError();
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
            if (cudaMemGetInfo(&J.base_free, &J.total) == cudaSuccess) J.ready = 1;
        }
        cudaGetLastError();
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
        gpu_sess g;
        memset(&g, 0, sizeof g);
        g.fd = -1;
        j.m = &m;
        j.sock = sock;
        j.cmd_fd = fds[0];
        j.rep_fd = fds[1];
        j.shm_fd = fds[2];
        j.err_name = err_name;
        j.gpu = &gpu_ops;
        j.gpu_ctx = &g;
        j.spin_s = 0.25;
        rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
        j.rng = rng ? rng : 1;
        double t0 = kg_now();
        struct stat st;
        int v;
        if (rr != 0 || q.magic != KG_SESSION_MAGIC || !kg_task_at(q.task) || fds[2] < 0 ||
            !(q.timeout_s > 0 && q.timeout_s < 1e5) || fstat(fds[2], &st) != 0 || st.st_size <= 0) {
            m.judge_failed = 1;
            snprintf(m.detail, sizeof m.detail, "gate: a malformed session request");
            v = KG_V_L2;
        } else if (!kg_shm_sealed(fds[2], kg_shm_bytes(kg_task_at(q.task)))) {
            /* the gate made it; an unsealed one could be shrunk under a reader */
            m.judge_failed = 1;
            snprintf(m.detail, sizeof m.detail, "gate: the small-shape memory is not sealed against resizing");
            v = KG_V_L2;
        } else {
            j.t = kg_task_at(q.task);
            j.task = q.task;
            j.torch = q.torch != 0;
            j.shm_bytes = (size_t)st.st_size;
            j.deadline = t0 + q.timeout_s;
            v = session(&j, &q);
        }
        for (int i = 0; i < 3; i++)
            if (fds[i] >= 0) close(fds[i]);
        if (J.ready) {
            cudaDeviceSynchronize();
            free_sess(&g);
            cudaGetLastError();
        }
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
    kg_sizes z = kg_task_sizes(t, t->mid);
    void *a = NULL, *b = NULL, *o = NULL, *temp = NULL;
    size_t tb = temp_need(t, t->mid);
    if (cudaMalloc(&a, z.in0 * z.in_elem) != cudaSuccess || (z.in1 && cudaMalloc(&b, z.in1 * 4) != cudaSuccess) ||
        cudaMalloc(&o, z.out * z.out_elem + KG_GUARD) != cudaSuccess || (tb && cudaMalloc(&temp, tb) != cudaSuccess))
        return 2;
    kg_fill_pools(t, t->mid, a, z.in0, b, z.in1, seed, J.sm * 8, J.st);
    if (ref_call(&j, t->mid, a, b, o, temp, tb) >= 0) return 1;   /* warm-up */
    cudaStreamSynchronize(J.st);
    nvtx_push("kgate_ref");
    int v = ref_call(&j, t->mid, a, b, o, temp, tb);
    cudaError_t e = cudaStreamSynchronize(J.st);
    nvtx_pop();
    cudaFree(a);
    if (b) cudaFree(b);
    cudaFree(o);
    if (temp) cudaFree(temp);
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
