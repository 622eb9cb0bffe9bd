/* fp8Gemm: D = scale_a * scale_b * A * B^T on the tensor cores in FP8 (e4m3
 * inputs, FP32 accumulation, BF16 output), from a plain FP32 kernel to a
 * warp-specialized persistent TMA + wgmma pipeline in 5 steps, each changing
 * one thing, each checked against the CPU and timed against cuBLASLt FP8 in
 * the same run.
 *
 * What it teaches: what changes when a Hopper GEMM goes from BF16 to FP8:
 * both operands must be K-major (wgmma has no transposed FP8 form), a 128-byte
 * swizzle row holds 128 values of K instead of 64, one wgmma covers k = 32,
 * the per-tensor scales are applied once in the epilogue, and the checks must
 * know how exact FP8 arithmetic is (products exact, sums in a reduced-
 * precision accumulator, the output rounded to BF16).
 *
 * The steps' kernels are in kernels/NN_<variant>.cuh, in teaching order, each
 * opening with the one change from the step before and why it should help;
 * kernels/00_hopper.cuh holds what the Hopper steps share.
 *   1 simt_fp32            FP8 decoded to FP32 in shared memory, CUDA-core FMAs
 *   2 wgmma_tma            TMA into a 4-stage mbarrier ring, wgmma m64n128k32 e4m3
 *   3 wgmma_ws             a producer warpgroup (setmaxnreg), two consumers
 *   4 wgmma_ws_128x256     64x256 per consumer (m64n256k32)
 *   5 wgmma_ws_persistent  one block per SM looping over tiles
 *
 * Layout: A is M x K, B is N x K, both row-major e4m3 bytes (K-major); D is
 * M x N row-major BF16. scale_a and scale_b are floats in device memory, as
 * cuBLASLt takes them. The reference, cublaslt, is cublasLtMatmul with e4m3 A
 * and B in the TN layout cuBLASLt's FP8 path requires, FP32 compute, the
 * scale pointers set and a BF16 D, with fast accumulation (the tensor cores'
 * own accumulator, as our kernels use); cublaslt_default (cuBLASLt's default,
 * which promotes partial sums to FP32 on the CUDA cores) is timed beside it.
 *
 * Build:  make -C 6_Advanced/fp8Gemm      (or `make fp8Gemm`); with SMS
 *         containing 90 the Hopper kernels are built for sm_90a (the build says so)
 * Run:    bin/fp8Gemm                     8192^3, every variant and cuBLASLt
 *         bin/fp8Gemm --quick             small shapes: smoke tests, sanitizers
 *         bin/fp8Gemm --variant=wgmma_ws --quick
 *         bin/fp8Gemm --m=6000 --n=5000 --k=4000
 *
 * Sizes: any M, N, K from 1 to 32768. Tiles that stick out of the matrix load
 * zeros (predicated loads, TMA's out-of-bounds fill) and store nothing outside
 * D. K not a multiple of 16: the TMA variants cannot read A and B (a tensor
 * map's row stride, K bytes, must be a multiple of 16). Asking for one of them
 * at such a K is refused with an error before any CUDA call (pad K with zero
 * columns in A and B: the product is the same); with --variant=all they
 * report WAIVED at that shape and still run their checks at the shapes that
 * allow them. cuBLASLt is asked for up to 8 algorithms at every shape and the
 * first that accepts a trial call is used; where none does it is skipped
 * there (at the main shape a note gives its statuses and error message).
 *
 * Checks (fp8_host.h has the bound): every variant against the CPU (double,
 * on the same e4m3 values) at small shapes that are not multiples of any
 * tile, with integer inputs in {-2..2} (exact: equal bits after the one BF16
 * rounding) and with uniform inputs rounded to e4m3 (statistical:
 * |d - r| <= 2^-8 |r| + 8 sqrt(K) 2^-14 rms(r)); the persistent variant also
 * on a grid of 2 blocks. Then at the main shape, after the timing, one more
 * run of each variant against the CPU at 4096 sampled elements (its max and
 * rms error are reported, in units of rms(r)) and in full against cuBLASLt.
 * A poisoned guard zone follows D; a kernel stuck at an mbarrier wait traps.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cuda.h>          /* CUtensorMap and its enums only: nothing links libcuda */
#include <cudaTypedefs.h>  /* PFN_cuTensorMapEncodeTiled, found at run time */
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cublasLt.h>

#include "check.h"
#include "cuda_check.h"
#include "device.h"
#include "options.h"
#include "report.h"
#include "rng.h"
#include "timing.h"

#include "fp8_host.h"

#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))

/* wgmma and setmaxnreg exist for sm_90a alone; the Hopper kernels are empty in
 * every other pass, and probe_arch tells the host which one runs. */
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define F8_SM90A 1
#else
#define F8_SM90A 0
#endif

#ifndef F8_WATCHDOG_NS
#define F8_WATCHDOG_NS 10000000000ULL
#endif

#define F8_BM 128     /* rows of A per block tile */
#define F8_BK 128     /* K per stage: one 128-byte swizzle row of e4m3 */
#define F8_GROUP_M 16 /* tile rows per group of the tile order */
#define F8_SCALE_SLOT 64 /* floats between scale_a and scale_b in device memory: 256 bytes */

#define CUBLASLT_CHECK(call)                                                              \
    do {                                                                                  \
        cublasStatus_t st_ = (call);                                                      \
        if (st_ != CUBLAS_STATUS_SUCCESS) {                                               \
            fprintf(stderr, "cuBLASLt error at %s:%d: %s failed: status %d\n", __FILE__,  \
                    __LINE__, #call, (int)st_);                                           \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

/* ---- kernels ---------------------------------------------------------------- */

__global__ void probe_arch(int *out)
{
#ifdef __CUDA_ARCH__
    out[0] = F8_SM90A;
    out[1] = __CUDA_ARCH__;
#endif
}

/* The 32-bit shared-memory address of a generic pointer into shared memory:
 * the form mbarrier, TMA and the wgmma descriptors take. */
__device__ __forceinline__ uint32_t smem_u32(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

#include "kernels/00_hopper.cuh"
#include "kernels/01_simt_fp32.cuh"
#include "kernels/02_wgmma_tma.cuh"
#include "kernels/03_wgmma_ws.cuh"
#include "kernels/04_wgmma_ws_128x256.cuh"
#include "kernels/05_wgmma_ws_persistent.cuh"

/* ---- launchers ------------------------------------------------------------ */

typedef struct {
    int M, N, K;
    const uint8_t *A, *B; /* e4m3 bytes, M x K and N x K, row-major */
    __nv_bfloat16 *D;
    const float *scale_a, *scale_b; /* device */
    CUtensorMap tmA, tmB128, tmB256; /* built when the TMA variants can run */
    int sm_count;
    int grid_limit; /* persistent kernel: 0 = one block per SM */
    /* cuBLASLt: the plan for this shape, one per accumulation mode */
    cublasLtHandle_t lt;
    cublasLtMatmulDesc_t op[2];
    cublasLtMatrixLayout_t la, lb, ld;
    cublasLtMatmulAlgo_t algo[2];
    int lt_ok[2];
    int lt_pick[2];     /* which of the heuristic's candidates runs (0 = its first) */
    int lt_count[2];    /* how many candidates the heuristic offered */
    char lt_why[2][400]; /* why there is none: statuses and cuBLASLt's own log */
    void *workspace;
    size_t workspace_bytes;
} gemm_ctx;

/* Row-major D (M x N) is column-major D^T (N x M) = B A^T: cuBLASLt's "A" is
 * our B (K x N column-major, transposed: op(A) = B, N x K), its "B" is our A
 * (K x M column-major, not transposed), m = N, n = M, k = K: the TN layout.
 * So its A scale is our scale_b and its B scale our scale_a. */
static void run_lt(gemm_ctx *x, int mode, cudaStream_t s)
{
    const float one = 1.0f, zero = 0.0f;
    CUBLASLT_CHECK(cublasLtMatmul(x->lt, x->op[mode], &one, x->B, x->la, x->A, x->lb, &zero, x->D,
                                  x->ld, x->D, x->ld, &x->algo[mode], x->workspace,
                                  x->workspace_bytes, s));
}
static void run_cublaslt(void *p, cudaStream_t s) { run_lt((gemm_ctx *)p, 0, s); }
static void run_cublaslt_default(void *p, cudaStream_t s) { run_lt((gemm_ctx *)p, 1, s); }

/* Step 1. */
static void run_simt_fp32(void *p, cudaStream_t s)
{
    gemm_ctx *x = (gemm_ctx *)p;
    dim3 grid(CEIL_DIV(x->N, S1_BN), CEIL_DIV(x->M, S1_BM));
    gemm_simt_fp32<<<grid, 256, 0, s>>>(x->A, x->B, x->D, x->M, x->N, x->K, x->scale_a, x->scale_b);
    CHECK_LAUNCH();
}

/* Over 48 KiB of dynamic shared memory needs an opt-in per kernel. */
static void allow_smem(const void *kernel, size_t bytes)
{
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
}

/* Dynamic shared memory of a TMA kernel: the stages plus 1 KiB, so the kernel
 * can round its base up to the 1024-byte alignment the swizzle needs. */
template <int BN>
static size_t f8_smem_bytes(int stages)
{
    return (size_t)stages * f8_cfg<BN>::STAGE_BYTES + 1024;
}

static int tma_tiles(const gemm_ctx *x, int bn) { return CEIL_DIV(x->M, F8_BM) * CEIL_DIV(x->N, bn); }

/* Step 2. */
#define S2_STAGES 4
static void run_wgmma_tma(void *p, cudaStream_t s)
{
    gemm_ctx *x = (gemm_ctx *)p;
    const size_t smem = f8_smem_bytes<128>(S2_STAGES);
    static int opted_in = 0;
    if (!opted_in) {
        allow_smem((const void *)gemm_wgmma_tma<S2_STAGES>, smem);
        opted_in = 1;
    }
    gemm_wgmma_tma<S2_STAGES><<<tma_tiles(x, 128), 256, smem, s>>>(x->tmA, x->tmB128, x->D, x->M,
                                                                   x->N, x->K, x->scale_a, x->scale_b);
    CHECK_LAUNCH();
}

/* Steps 3 to 5: 384 threads, one block per tile, or one per SM (grid_limit
 * in the checks) when CFG::PERSISTENT. */
template <class CFG>
static void run_wgmma_ws(void *p, cudaStream_t s)
{
    gemm_ctx *x = (gemm_ctx *)p;
    const size_t smem = f8_smem_bytes<CFG::BN>(CFG::STAGES);
    static int opted_in = 0;
    if (!opted_in) {
        allow_smem((const void *)gemm_wgmma_ws<CFG::BN, CFG::STAGES, CFG::PERSISTENT>, smem);
        opted_in = 1;
    }
    int grid = tma_tiles(x, CFG::BN);
    if (CFG::PERSISTENT) {
        int limit = x->grid_limit > 0 ? x->grid_limit : x->sm_count;
        if (grid > limit) grid = limit;
    }
    gemm_wgmma_ws<CFG::BN, CFG::STAGES, CFG::PERSISTENT><<<grid, 384, smem, s>>>(
        x->tmA, CFG::BN == 256 ? x->tmB256 : x->tmB128, x->D, x->M, x->N, x->K, x->scale_a,
        x->scale_b);
    CHECK_LAUNCH();
}

/* ---- variant table -------------------------------------------------------- */

enum { KIND_LIB = 0, KIND_SIMT = 1, KIND_HOPPER = 2 };
typedef struct {
    const char *name;
    timed_fn run;
    int kind;       /* KIND_LIB: cuBLASLt (lt_mode says which); KIND_HOPPER: sm_90a and K % 16 == 0 */
    int lt_mode;    /* cuBLASLt: 0 fast accumulation, 1 default */
    int is_ref;     /* the reference: pct_ref is against it */
    int persistent; /* also checked on a 2-block grid (every block loops) */
    const char *what; /* the one change from the row before */
} variant;

static const variant variants[] = {
    {"cublaslt", run_cublaslt, KIND_LIB, 0, 1, 0,
     "cublasLtMatmul, e4m3 TN, FP32 compute, fast accumulation, BF16 D: the reference"},
    {"cublaslt_default", run_cublaslt_default, KIND_LIB, 1, 0, 0,
     "the same with cuBLASLt's default accumulation (partial sums promoted to FP32)"},
    {"simt_fp32", run_simt_fp32, KIND_SIMT, 0, 0, 0,
     "FP8 decoded to FP32 in shared memory, FP32 FMAs on the CUDA cores"},
    {"wgmma_tma", run_wgmma_tma, KIND_HOPPER, 0, 0, 0,
     "TMA into a 4-stage mbarrier ring, wgmma m64n128k32 e4m3 (sm_90a)"},
    {"wgmma_ws", run_wgmma_ws<wgmma_ws_cfg>, KIND_HOPPER, 0, 0, 0,
     "a producer warpgroup feeds the ring (setmaxnreg), two consumers"},
    {"wgmma_ws_128x256", run_wgmma_ws<wgmma_ws_128x256_cfg>, KIND_HOPPER, 0, 0, 0,
     "64x256 per consumer (m64n256k32)"},
    {"wgmma_ws_persistent", run_wgmma_ws<wgmma_ws_persistent_cfg>, KIND_HOPPER, 0, 0, 1,
     "one block per SM looping over tiles"},
};
#define N_VARIANTS ((int)(sizeof variants / sizeof variants[0]))

/* ---- options ----------------------------------------------------------- */

static long long opt_m = 8192, opt_n = 8192, opt_k = 8192;
static const char *opt_variant = "all";
static char variant_choices[512];
static char help_notes[2048];

static const opt_spec sample_opts[] = {
    OPT_INT_SPEC("m", "M", "rows of A and D", &opt_m, 1, 32768),
    OPT_INT_SPEC("n", "N", "rows of B (columns of D)", &opt_n, 1, 32768),
    OPT_INT_SPEC("k", "K", "columns of A and B (the TMA variants need a multiple of 16)", &opt_k, 1,
                 32768),
    OPT_STRING_SPEC("variant", "NAME", "run one variant (the reference always runs)", &opt_variant,
                    variant_choices),
};

static void build_help_from_table(void)
{
    opts_join_choices(variant_choices, sizeof variant_choices, "all", &variants[0].name,
                      sizeof variants[0], N_VARIANTS);
    size_t h = (size_t)snprintf(help_notes, sizeof help_notes, "Variants:\n");
    for (int v = 0; v < N_VARIANTS; v++)
        h += (size_t)snprintf(help_notes + h, sizeof help_notes - h, "  %-20s %s\n",
                              variants[v].name, variants[v].what);
    snprintf(help_notes + h, sizeof help_notes - h,
             "--quick: M=257 N=264 K=208 and the small checks only. K not a multiple of 16: the "
             "wgmma variants cannot run (TMA), --variant=<one of them> is refused.\n");
}

/* ---- the state of a run ----------------------------------------------------- */

typedef struct {
    gemm_ctx ctx;
    int hopper; /* the sm_90a kernels are built and this is a CC 9.0 GPU */
    int arch;
    PFN_cuTensorMapEncodeTiled_v12000 encode;
    uint8_t *d_A, *d_B;
    __nv_bfloat16 *d_D, *d_Dref;
    float *d_scales;
    uint8_t *h_A, *h_B;
    uint16_t *h_out, *h_lt;
    double *h_ref;
    size_t cap_d; /* elements of D the buffers hold */
    uint64_t seed;
} run_state;

static int wanted[N_VARIANTS], ok_v[N_VARIANTS];

static void sync_or_fail(const char *what)
{
    cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess) return;
    report_fail("%s: the kernel failed: %s (%s). The wgmma kernels trap after %.0f s stuck at "
                "an mbarrier wait: a pipeline bug (a phase, an expect-tx byte count, a missing "
                "arrive) shows up this way.",
                what, cudaGetErrorString(e), cudaGetErrorName(e), F8_WATCHDOG_NS / 1e9);
    exit(report_finish());
}

/* A's and B's tensor maps: K-major e4m3 boxes of 128 bytes (k) x box_rows,
 * 128-byte swizzle, zeros outside the matrix. */
static void make_map(run_state *b, CUtensorMap *map, const uint8_t *ptr, int rows, int K, int box_rows)
{
    cuuint64_t dims[2] = {(cuuint64_t)K, (cuuint64_t)rows};
    cuuint64_t strides[1] = {(cuuint64_t)K};
    cuuint32_t box[2] = {F8_BK, (cuuint32_t)box_rows};
    cuuint32_t elem_strides[2] = {1, 1};
    CUresult r = b->encode(map, CU_TENSOR_MAP_DATA_TYPE_UINT8, 2, (void *)ptr, dims, strides, box,
                           elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                           CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        report_fail("cuTensorMapEncodeTiled(%d x %d bytes, box %d x %d) failed: CUresult %d", rows,
                    K, box_rows, F8_BK, (int)r);
        exit(report_finish());
    }
}

static void lt_release(gemm_ctx *x)
{
    if (x->la) cublasLtMatrixLayoutDestroy(x->la);
    if (x->lb) cublasLtMatrixLayoutDestroy(x->lb);
    if (x->ld) cublasLtMatrixLayoutDestroy(x->ld);
    x->la = x->lb = x->ld = NULL;
    x->lt_ok[0] = x->lt_ok[1] = 0;
}

/* cuBLASLt's error messages (level 1 of its logger), caught while a plan is
 * made, so a shape it refuses is reported with its reason. */
static char lt_log[300];
static void lt_logger(int level, const char *fn, const char *msg)
{
    (void)level;
    snprintf(lt_log, sizeof lt_log, "%s: %s", fn ? fn : "?", msg ? msg : "");
    for (char *c = lt_log; *c; c++)
        if (*c == '\n' || *c == '\r') *c = ' ';
}

/* cuBLASLt's plan for this shape: layouts and, per mode, the first of its
 * heuristic's candidates (best first) that accepts a trial call; lt_ok[mode]
 * = 0 where none does, lt_why[mode] says why (the heuristic's status, the
 * trials' statuses, cuBLASLt's last error message). */
#define LT_CANDIDATES 8
static void lt_prepare(gemm_ctx *x)
{
    lt_release(x);
    const int M = x->M, N = x->N, K = x->K;
    CUBLASLT_CHECK(cublasLtMatrixLayoutCreate(&x->la, CUDA_R_8F_E4M3, K, N, K));
    CUBLASLT_CHECK(cublasLtMatrixLayoutCreate(&x->lb, CUDA_R_8F_E4M3, K, M, K));
    CUBLASLT_CHECK(cublasLtMatrixLayoutCreate(&x->ld, CUDA_R_16BF, N, M, N));
    cublasLtMatmulPreference_t pref;
    CUBLASLT_CHECK(cublasLtMatmulPreferenceCreate(&pref));
    uint64_t ws = x->workspace_bytes;
    CUBLASLT_CHECK(cublasLtMatmulPreferenceSetAttribute(
        pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
    /* errors only, and only while planning; to our callback alone: its file
     * output (stdout by default) would break --json's stdout */
    static FILE *lt_sink = NULL;
    if (!lt_sink) lt_sink = fopen("/dev/null", "w");
    cublasLtLoggerSetFile(lt_sink ? lt_sink : stderr);
    cublasLtLoggerSetCallback(lt_logger);
    cublasLtLoggerSetLevel(1);
    for (int mode = 0; mode < 2; mode++) {
        cublasLtMatmulHeuristicResult_t res[LT_CANDIDATES];
        int n = 0;
        lt_log[0] = 0;
        x->lt_pick[mode] = -1;
        cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(x->lt, x->op[mode], x->la, x->lb, x->ld,
                                                           x->ld, pref, LT_CANDIDATES, res, &n);
        x->lt_count[mode] = st == CUBLAS_STATUS_SUCCESS ? n : 0;
        size_t w = (size_t)snprintf(x->lt_why[mode], sizeof x->lt_why[mode],
                                    "heuristic status %d, %d candidates", (int)st, n);
        if (st != CUBLAS_STATUS_SUCCESS) n = 0;
        /* a trial call of each in turn: a candidate may still refuse the
         * pointers (alignment) or the shape; the first that runs is kept */
        for (int c = 0; c < n && x->lt_pick[mode] < 0; c++) {
            if (res[c].state != CUBLAS_STATUS_SUCCESS || res[c].workspaceSize > x->workspace_bytes)
                continue;
            /* a split K whose partial sums are added in the output type (BF16,
             * 8 bits) is another computation than ours and would fail the
             * exact checks: skipped */
            uint32_t red = CUBLASLT_REDUCTION_SCHEME_NONE;
            cublasLtMatmulAlgoConfigGetAttribute(&res[c].algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME,
                                                 &red, sizeof red, NULL);
            if (red == CUBLASLT_REDUCTION_SCHEME_INPLACE || red == CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE) {
                if (w < sizeof x->lt_why[mode])
                    w += (size_t)snprintf(x->lt_why[mode] + w, sizeof x->lt_why[mode] - w,
                                          "%s candidate %d: partial sums in BF16, skipped",
                                          c ? "," : ";", c);
                continue;
            }
            const float one = 1.0f, zero = 0.0f;
            st = cublasLtMatmul(x->lt, x->op[mode], &one, x->B, x->la, x->A, x->lb, &zero, x->D,
                                x->ld, x->D, x->ld, &res[c].algo, x->workspace, x->workspace_bytes, 0);
            if (st == CUBLAS_STATUS_SUCCESS) {
                x->algo[mode] = res[c].algo;
                x->lt_pick[mode] = c;
            } else {
                /* a launch it could not make leaves a (non-sticky) error that
                 * our next launch check would take for its own */
                const cudaError_t ce = cudaGetLastError();
                if (w < sizeof x->lt_why[mode])
                    w += (size_t)snprintf(x->lt_why[mode] + w, sizeof x->lt_why[mode] - w,
                                          "%s candidate %d: status %d%s%s", c ? "," : ";", c,
                                          (int)st, ce != cudaSuccess ? ", CUDA " : "",
                                          ce != cudaSuccess ? cudaGetErrorName(ce) : "");
            }
        }
        x->lt_ok[mode] = x->lt_pick[mode] >= 0;
        if (lt_log[0] && w < sizeof x->lt_why[mode])
            snprintf(x->lt_why[mode] + w, sizeof x->lt_why[mode] - w, "; cuBLASLt says %s", lt_log);
    }
    cublasLtLoggerSetLevel(0);
    cublasLtMatmulPreferenceDestroy(pref);
}

/* Which kernel of cuBLASLt an algorithm is: its configuration ids (tile,
 * stages and cluster shape say whether it is a Hopper TMA kernel). */
static void lt_algo_name(const cublasLtMatmulAlgo_t *algo, char *out, size_t len)
{
    int32_t id = -1;
    uint32_t tile = 0, stages = 0;
    uint16_t cluster = 0;
    cublasLtMatmulAlgoConfigGetAttribute(algo, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof id, NULL);
    cublasLtMatmulAlgoConfigGetAttribute(algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile, NULL);
    cublasLtMatmulAlgoConfigGetAttribute(algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages, sizeof stages,
                                         NULL);
    cublasLtMatmulAlgoConfigGetAttribute(algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, &cluster,
                                         sizeof cluster, NULL);
    snprintf(out, len, "algorithm id %d, tile id %u, stages id %u, cluster shape id %u", (int)id,
             tile, stages, (unsigned)cluster);
}

/* Point the context at a problem: shape, tensor maps (when the TMA variants
 * can run), cuBLASLt's plan. */
static void set_problem(run_state *b, int M, int N, int K)
{
    gemm_ctx *x = &b->ctx;
    x->M = M;
    x->N = N;
    x->K = K;
    x->A = b->d_A;
    x->B = b->d_B;
    x->D = b->d_D;
    char why[300];
    if (b->hopper && fp8_tma_shape_ok(K, why, sizeof why)) {
        make_map(b, &x->tmA, b->d_A, M, K, F8_BM);
        make_map(b, &x->tmB128, b->d_B, N, K, 128);
        make_map(b, &x->tmB256, b->d_B, N, K, 256);
    }
    lt_prepare(x);
}

/* Can variant v run on this device at the context's shape? 0 with a reason. */
static int runnable(const run_state *b, const variant *v, const char **reason)
{
    char why[300];
    if (v->kind == KIND_LIB && !b->ctx.lt_ok[v->lt_mode]) {
        *reason = "cublaslt_has_no_algorithm_for_this_shape"; /* lt_why[] says why */
        return 0;
    }
    if (v->kind == KIND_HOPPER && !b->hopper) {
        *reason = "needs_sm90a";
        return 0;
    }
    if (v->kind == KIND_HOPPER && !fp8_tma_shape_ok(b->ctx.K, why, sizeof why)) {
        *reason = "tma_needs_k_multiple_of_16";
        return 0;
    }
    return 1;
}

/* Upload A and B (already in h_A, h_B) and the scales. */
static void upload(run_state *b, int M, int N, int K, float sa, float sb)
{
    CUDA_CHECK(cudaMemcpy(b->d_A, b->h_A, (size_t)M * K, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(b->d_B, b->h_B, (size_t)N * K, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(b->d_scales, &sa, sizeof sa, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(b->d_scales + F8_SCALE_SLOT, &sb, sizeof sb, cudaMemcpyHostToDevice));
}

/* Run variant v into the poisoned, guarded D and copy D back; the guard's
 * mismatches are returned. */
static size_t run_into_host(run_state *b, const variant *v, const char *what)
{
    const size_t bytes = (size_t)b->ctx.M * b->ctx.N * 2;
    poison_guarded(b->d_D, bytes);
    v->run(&b->ctx, 0);
    sync_or_fail(what);
    CUDA_CHECK(cudaMemcpy(b->h_out, b->d_D, bytes, cudaMemcpyDeviceToHost));
    return check_guard(what, b->d_D, bytes);
}

typedef struct {
    int M, N, K;
} shape;

/* Every wanted variant at one small shape, integer and real inputs, against
 * the CPU in double. */
static void check_small(run_state *b, const shape *p, fp8_data kind)
{
    const int M = p->M, N = p->N, K = p->K, exact = kind == FP8_DATA_INT;
    /* integer inputs: scales whose product is 2, powers of two, so the result
     * stays exact, and a kernel that drops either scale is off by 2x or more */
    const float sa = exact ? 0.5f : 1.5f, sb = exact ? 4.0f : 0.75f;
    fp8_fill(b->h_A, M, K, kind, b->seed, RNG_STREAM_A);
    fp8_fill(b->h_B, N, K, kind, b->seed, RNG_STREAM_B);
    upload(b, M, N, K, sa, sb);
    fp8_gemm_ref(M, N, K, b->h_A, b->h_B, (double)sa * sb, b->h_ref);
    const double rms = fp8_rms(b->h_ref, (size_t)M * N);
    set_problem(b, M, N, K);
    for (int v = 0; v < N_VARIANTS; v++) {
        const char *reason;
        if (!wanted[v] || !runnable(b, &variants[v], &reason)) continue;
        for (int pass = 0; pass < (variants[v].persistent ? 2 : 1); pass++) {
            b->ctx.grid_limit = pass ? 2 : 0;
            char what[200];
            snprintf(what, sizeof what, "%s(%dx%dx%d, %s%s)", variants[v].name, M, N, K,
                     fp8_data_name(kind), pass ? ", 2 blocks" : "");
            size_t bad = run_into_host(b, &variants[v], what);
            bad += fp8_compare(what, b->h_out, b->h_ref, NULL, (size_t)M * N, N, K, exact, rms, NULL);
            if (bad) ok_v[v] = 0;
        }
        b->ctx.grid_limit = 0;
    }
}

/* ---- timing ---------------------------------------------------------------- */

/* The one place that times: t[v] for every v with timed[v], all at the
 * context's shape, round robin (common/timing.h: every variant's warm-ups,
 * then each repetition runs every variant once, a different one first each
 * time), so each has the median of its own runs and all of them, cuBLASLt
 * with them, share the GPU's clocks. */
static void time_variants(gemm_ctx *x, const int *timed, int reps, timing_stats *t)
{
    timed_variant group[N_VARIANTS];
    timing_stats times[N_VARIANTS];
    char ranges[N_VARIANTS][64];
    int slot[N_VARIANTS], n_timed = 0;
    for (int v = 0; v < N_VARIANTS; v++) {
        slot[v] = -1;
        if (!timed[v]) continue;
        snprintf(ranges[v], sizeof ranges[v], "fp8Gemm/%s", variants[v].name);
        group[n_timed] = (timed_variant){variants[v].run, x, ranges[v]};
        slot[v] = n_timed++;
    }
    if (n_timed == 0) return;
    timing_cfg tc = timing_defaults(reps);
    time_gpu_group(group, n_timed, &tc, times);
    sync_or_fail("the timed runs");
    for (int v = 0; v < N_VARIANTS; v++)
        if (slot[v] >= 0) t[v] = times[slot[v]];
}

/* ---- main ------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    build_help_from_table();
    const opts_config cfg = {
        "fp8Gemm",
        "D = sa sb A B^T, FP8 e4m3 in, FP32 accumulate, BF16 out: FP32 SIMT to warp-specialized "
        "wgmma, against cuBLASLt",
        sample_opts, (int)(sizeof sample_opts / sizeof sample_opts[0]), help_notes, 0};
    common_opts o;
    opts_parse_or_exit(&cfg, argc, argv, &o);

    int M = (int)opt_m, N = (int)opt_n, K = (int)opt_k;
    if (o.quick) {
        M = 257;
        N = 264;
        K = 208;
    }
    int explicit_v = -1;
    for (int v = 0; v < N_VARIANTS; v++)
        if (!strcmp(opt_variant, variants[v].name)) explicit_v = v;
    char tma_why[300] = "";
    const int main_tma_ok = fp8_tma_shape_ok(K, tma_why, sizeof tma_why);
    if (explicit_v >= 0 && variants[explicit_v].kind == KIND_HOPPER && !main_tma_ok) {
        fprintf(stderr, "fp8Gemm: error: --variant=%s %s\n", opt_variant, tma_why);
        printf("fp8Gemm: FAIL (bad argument)\n");
        return 1;
    }
    int reps = (o.quick && o.reps == OPTS_DEFAULT_REPS) ? 3 : o.reps;

    /* Small shapes against the CPU, none a multiple of any tile; K a multiple
     * of 16 except in the first two (the wgmma variants waive there). */
    static const shape shapes[] = {
        {1, 1, 1},      {33, 65, 129},    /* K odd: simt_fp32 and the library only */
        {1, 8, 16},     {130, 257, 64},   {129, 136, 48}, {257, 264, 208},
        {136, 264, 1040}, /* 9 K-steps of 128: each stage of a 4-stage ring reused */
        {555, 777, 336},  /* --quick stops here (8) */
        {1000, 1000, 1008},
        {2100, 2200, 144}, /* 17 x 9 tiles of 128x256: more than one wave of 132 SMs */
    };
    const int n_shapes = o.quick ? 8 : (int)(sizeof shapes / sizeof shapes[0]);

    size_t maxA = (size_t)M * K, maxB = (size_t)N * K, maxD = (size_t)M * N, small_d = 0;
    for (int i = 0; i < n_shapes; i++) {
        const shape *p = &shapes[i];
        if ((size_t)p->M * p->K > maxA) maxA = (size_t)p->M * p->K;
        if ((size_t)p->N * p->K > maxB) maxB = (size_t)p->N * p->K;
        if ((size_t)p->M * p->N > maxD) maxD = (size_t)p->M * p->N;
        if ((size_t)p->M * p->N > small_d) small_d = (size_t)p->M * p->N;
    }
    for (int v = 0; v < N_VARIANTS; v++) {
        wanted[v] = variants[v].is_ref || !strcmp(opt_variant, "all") ||
                    !strcmp(opt_variant, variants[v].name);
        ok_v[v] = 1;
    }

    report_init("fp8Gemm", o.json);
    device_info dev;
    device_setup_or_exit("fp8Gemm", o.device, o.json, &dev);

    run_state b;
    memset(&b, 0, sizeof b);
    b.seed = o.seed;
    b.cap_d = maxD;
    {
        int *d_probe, probe[2] = {0, 0};
        CUDA_CHECK(cudaMalloc(&d_probe, sizeof probe));
        CUDA_CHECK(cudaMemset(d_probe, 0, sizeof probe));
        probe_arch<<<1, 1>>>(d_probe);
        CHECK_LAUNCH();
        CUDA_CHECK(cudaMemcpy(probe, d_probe, sizeof probe, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaFree(d_probe));
        b.hopper = probe[0] == 1 && dev.cc_major == 9 && dev.cc_minor == 0;
        b.arch = probe[1];
    }
    if (b.hopper) {
        void *fn = NULL;
        cudaDriverEntryPointQueryResult q;
        CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000,
                                                    cudaEnableDefault, &q));
        if (q != cudaDriverEntryPointSuccess || !fn) {
            report_fail("cuTensorMapEncodeTiled not found in the driver (query result %d)", (int)q);
            return report_finish();
        }
        b.encode = (PFN_cuTensorMapEncodeTiled_v12000)fn;
    }
    report_note("M=%d N=%d K=%d; A (M x K) and B (N x K) e4m3, K-major; D BF16 row-major; seed "
                "%llu; timed with uniform inputs in [-1,1) rounded to e4m3, scales 1.5 and 0.75",
                M, N, K, (unsigned long long)o.seed);
    report_note("sm_90a kernels (wgmma, TMA): %s",
                b.hopper ? "built and running"
                         : (dev.cc_major == 9 && dev.cc_minor == 0
                                ? "NOT in this build (SMS without 90): the wgmma variants waive"
                                : "need a CC 9.0 GPU: the wgmma variants waive"));
    report_note("bound: integer inputs exact; real inputs |d - r| <= 2^-8 |r| + %g sqrt(K) 2^-14 "
                "rms(r) (BF16 rounding + the FP8 tensor cores' reduced-precision accumulator)",
                FP8_STAT_C);
    if (!main_tma_ok) report_note("the wgmma variants %s: they are WAIVED at this shape", tma_why);

    b.h_A = (uint8_t *)malloc(maxA);
    b.h_B = (uint8_t *)malloc(maxB);
    b.h_out = (uint16_t *)malloc(maxD * 2);
    b.h_lt = (uint16_t *)malloc(maxD * 2);
    b.h_ref = (double *)malloc((small_d > 4096 ? small_d : 4096) * sizeof(double));
    if (!b.h_A || !b.h_B || !b.h_out || !b.h_lt || !b.h_ref) {
        report_fail("cannot allocate host memory for %dx%dx%d", M, N, K);
        return report_finish();
    }
    CUDA_CHECK(cudaMalloc(&b.d_A, maxA));
    CUDA_CHECK(cudaMalloc(&b.d_B, maxB));
    /* each scale in a 256-byte slot of its own, aligned as a cudaMalloc'd
     * buffer is: cuBLASLt's pointers are then aligned as any library expects */
    CUDA_CHECK(cudaMalloc(&b.d_scales, 2 * F8_SCALE_SLOT * sizeof(float)));
    CUDA_CHECK(cudaMemset(b.d_scales, 0, 2 * F8_SCALE_SLOT * sizeof(float)));
    b.d_D = (__nv_bfloat16 *)guarded_malloc(maxD * 2); /* the output: a guard zone follows it */
    poison_guarded(b.d_D, maxD * 2); /* written before cuBLASLt's first trial call sees it as C */
    gemm_ctx *x = &b.ctx;
    x->scale_a = b.d_scales;
    x->scale_b = b.d_scales + F8_SCALE_SLOT;
    x->sm_count = dev.sm_count;
    x->workspace_bytes = 32u << 20;
    CUDA_CHECK(cudaMalloc(&x->workspace, x->workspace_bytes));
    CUDA_CHECK(cudaMemset(x->workspace, 0, x->workspace_bytes)); /* initcheck: nothing unwritten is read */
    CUBLASLT_CHECK(cublasLtCreate(&x->lt));
    for (int mode = 0; mode < 2; mode++) {
        CUBLASLT_CHECK(cublasLtMatmulDescCreate(&x->op[mode], CUBLAS_COMPUTE_32F, CUDA_R_32F));
        const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
        CUBLASLT_CHECK(cublasLtMatmulDescSetAttribute(x->op[mode], CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
        CUBLASLT_CHECK(cublasLtMatmulDescSetAttribute(x->op[mode], CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
        const float *lt_a_scale = x->scale_b, *lt_b_scale = x->scale_a; /* see run_lt */
        CUBLASLT_CHECK(cublasLtMatmulDescSetAttribute(x->op[mode], CUBLASLT_MATMUL_DESC_A_SCALE_POINTER,
                                                      &lt_a_scale, sizeof lt_a_scale));
        CUBLASLT_CHECK(cublasLtMatmulDescSetAttribute(x->op[mode], CUBLASLT_MATMUL_DESC_B_SCALE_POINTER,
                                                      &lt_b_scale, sizeof lt_b_scale));
        const int8_t fast = mode == 0;
        CUBLASLT_CHECK(cublasLtMatmulDescSetAttribute(x->op[mode], CUBLASLT_MATMUL_DESC_FAST_ACCUM,
                                                      &fast, sizeof fast));
    }

    /* 1. Small shapes against the CPU. */
    for (int i = 0; i < n_shapes; i++) {
        check_small(&b, &shapes[i], FP8_DATA_INT);
        check_small(&b, &shapes[i], FP8_DATA_REAL);
    }

    /* 2. At the main shape, on real inputs: time every variant that passed
     * the small shapes (time_variants), then check one more run of each, into
     * a poisoned D (what it does not write fails), against the CPU at
     * sampled elements and against cuBLASLt's result in full; cuBLASLt is
     * timed round robin with them, so every pct_ref is from this run. */
    const float sa = 1.5f, sb = 0.75f;
    fp8_fill(b.h_A, M, K, FP8_DATA_REAL, b.seed, RNG_STREAM_C);
    fp8_fill(b.h_B, N, K, FP8_DATA_REAL, b.seed, RNG_STREAM_D);
    upload(&b, M, N, K, sa, sb);
    set_problem(&b, M, N, K);
    for (int v = 0; v < N_VARIANTS; v++) { /* why cuBLASLt is not its usual self here */
        if (variants[v].kind != KIND_LIB || !wanted[v]) continue;
        const int mode = variants[v].lt_mode;
        const char *acc = mode ? "default" : "fast";
        if (!x->lt_ok[mode]) {
            report_note("cuBLASLt (%s accumulation) has no algorithm for %dx%dx%d: %s", acc, M, N, K,
                        x->lt_why[mode]);
            continue;
        }
        char name[160];
        lt_algo_name(&x->algo[mode], name, sizeof name);
        report_note("cuBLASLt (%s accumulation) runs %s: its heuristic's choice %d of %d", acc, name,
                    x->lt_pick[mode] + 1, x->lt_count[mode]);
        if (x->lt_pick[mode] > 0) /* a weaker reference than cuBLASLt's best: say so */
            report_note("cuBLASLt (%s accumulation): its first choices refused the call or were skipped (%s)", acc,
                        x->lt_why[mode]);
    }
    const size_t nd = (size_t)M * N, main_bytes = nd * 2;
    enum { NSAMPLES = 4096 };
    static size_t idx[NSAMPLES];
    for (int s = 0; s < NSAMPLES; s++) {
        /* the four corners, then random elements */
        const size_t corner[4] = {0, (size_t)N - 1, (size_t)(M - 1) * N, nd - 1};
        idx[s] = s < 4 ? corner[s] : (size_t)(rng_hash(b.seed, RNG_STREAM_C + 100, s) % nd);
        b.h_ref[s] = fp8_dot_ref(K, b.h_A, b.h_B, (int)(idx[s] / N), (int)(idx[s] % N), (double)sa * sb);
    }
    const double rms = fp8_rms(b.h_ref, NSAMPLES);
    int have_lt = 0;
    double ref_gflops = 0;
    const double peak = (dev.cc_major == 9 && dev.cc_minor == 0) ? 2.0 * dev.peak_bf16_gflops : 0.0;
    timing_stats t[N_VARIANTS];
    int timed[N_VARIANTS];
    memset(t, 0, sizeof t);
    for (int v = 0; v < N_VARIANTS; v++) {
        const char *reason;
        timed[v] = wanted[v] && ok_v[v] && runnable(&b, &variants[v], &reason);
    }
    time_variants(x, timed, reps, t);
    result_rec r;
    for (int v = 0; v < N_VARIANTS; v++) {
        const variant *var = &variants[v];
        if (!wanted[v]) continue;
        rec_begin(&r, var->name);
        rec_int(&r, "m", M);
        rec_int(&r, "n", N);
        rec_int(&r, "k", K);
        const char *reason;
        if (!ok_v[v]) { /* failed a small shape: FAIL even where the main shape waives it */
            rec_str(&r, "status", "FAIL");
            rec_emit(&r);
            continue;
        }
        if (!timed[v]) {
            runnable(&b, var, &reason);
            rec_str(&r, "status", "WAIVED");
            rec_str(&r, "reason", reason);
            rec_emit(&r);
            continue;
        }
        char what[160];
        snprintf(what, sizeof what, "%s(%dx%dx%d, real, one run after the timing)", var->name, M, N,
                 K);
        size_t bad = run_into_host(&b, var, what);
        fp8_err e;
        bad += fp8_compare(what, b.h_out, b.h_ref, idx, NSAMPLES, N, K, 0, rms, &e);
        if (var->is_ref && bad == 0) {
            memcpy(b.h_lt, b.h_out, main_bytes);
            have_lt = 1;
        } else if (have_lt) {
            snprintf(what, sizeof what, "%s(%dx%dx%d, real, against cublaslt, every element)",
                     var->name, M, N, K);
            bad += fp8_compare_bf16(what, b.h_out, b.h_lt, nd, N, K, rms);
        }
        if (bad) {
            fprintf(stderr, "%s: timed %.4f ms (%.1f TFLOP/s), but its output failed the checks above "
                    "(max error %.3g rms(D), err_z %.3g)\n", var->name, t[v].median_ms,
                    fp8_gflops(M, N, K, t[v].median_ms) / 1e3, e.max_abs / rms, e.max_z);
            ok_v[v] = 0;
            rec_str(&r, "status", "FAIL");
            rec_emit(&r);
            continue;
        }
        const double gflops = fp8_gflops(M, N, K, t[v].median_ms);
        if (var->is_ref) ref_gflops = gflops;
        rec_str(&r, "status", "PASS");
        /* pct_peak against the dense FP8 tensor-core rate (twice BF16 on Hopper) */
        rec_perf(&r, t[v].median_ms, "gflops", gflops, peak, "cublaslt", ref_gflops);
        rec_num(&r, "min_ms", t[v].min_ms);
        rec_num(&r, "err_max", e.max_abs / rms); /* against the CPU, in units of rms(D) */
        rec_num(&r, "err_rms", e.rms / rms);
        rec_num(&r, "err_z", e.max_z); /* in units of sqrt(K) 2^-14 rms(D) */
        timing_rec_clocks(&r, &t[v]);
        rec_emit(&r);
    }

    lt_release(x);
    for (int mode = 0; mode < 2; mode++) cublasLtMatmulDescDestroy(x->op[mode]);
    cublasLtDestroy(x->lt);
    CUDA_CHECK(cudaFree(x->workspace));
    CUDA_CHECK(cudaFree(b.d_A));
    CUDA_CHECK(cudaFree(b.d_B));
    CUDA_CHECK(cudaFree(b.d_scales));
    guarded_free(b.d_D);
    free(b.h_A);
    free(b.h_B);
    free(b.h_out);
    free(b.h_lt);
    free(b.h_ref);
    return report_finish();
}
