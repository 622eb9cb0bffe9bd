/* rules.c: the rule table and the policy profiles (rules.h). The order is
 * the order of README-static.md's rule reference. */
#include "rules.h"

#include <string.h>

static const kg_rule_info rules[] = {
    /* what the gate cannot read safely, and the candidate contract */
    {"KG-INCLUDE", 0, "gate", "include only the CUDA toolkit's and the system's headers, by a plain <name>"},
    {"KG-HIDDEN-CODE", 0, "gate", "remove compiler-specific #if blocks (__clang__, __NVCC__), #line and trigraphs: the gate must read what nvcc compiles"},
    {"KG-PARSE", 1, "gate", "write code clang parses too: fix the error the message names (the gate reads every candidate with clang as well as nvcc)"},
    {"KG-NO-LAUNCH", 1, "contract", "define extern \"C\" void launch(<task arguments>, cudaStream_t stream)"},
    {"KG-LAUNCH-LINKAGE", 1, "contract", "declare the launcher extern \"C\""},
    {"KG-LAUNCH-SIGNATURE", 1, "contract", "give launch() exactly the task's parameter types, in order, ending with cudaStream_t"},
    {"KG-EXTERNAL", 2, "contract", "none needed: a library-only answer is judged EXTERNAL when correct"},
    {"KG-HALF-HEADER", 2, "contract", "add #include <cuda_fp16.h>"},
    {"KG-BF16-HEADER", 2, "contract", "add #include <cuda_bf16.h>"},
    {"KG-STREAM-IGNORED", 1, "contract", "launch every kernel with <<<grid, block, shmem, stream>>> using the stream argument"},
    {"KG-STREAM-OTHER", 1, "contract", "put all work on the stream argument, not on a stream of your own"},
    {"KG-ASYNC-DEFAULT-STREAM", 1, "contract", "pass the stream argument to cudaMemcpyAsync / cudaMemsetAsync"},
    {"KG-LIB-STREAM-UNSET", 1, "contract", "call cublasSetStream(handle, stream) before cuBLAS calls; pass stream to CUB"},
    {"KG-LAUNCH-SYNC-COPY", 1, "contract", "use cudaMemcpyAsync / cudaMemsetAsync on the stream argument"},
    {"KG-LAUNCH-DEVICE-SYNC", 2, "contract", "do not synchronize in launch(): the caller orders work on the stream"},
    {"KG-LAUNCH-MALLOC", 2, "contract", "allocate scratch once (cached) or with cudaMallocAsync on the stream"},
    {"KG-CUBLAS-HANDLE-PER-CALL", 2, "contract", "create the cuBLAS handle once (a static) and reuse it"},
    {"KG-OUT-NOT-ZEROED", 1, "contract", "zero the accumulated output on the stream (cudaMemsetAsync) before the atomics"},
    {"KG-CONST-CAST-INPUT", 1, "contract", "never write an input: copy it to a scratch buffer first"},
    /* barriers and fences */
    {"KG-SYNC-DIVERGENT", 0, "sync", "move __syncthreads() out of the thread-dependent branch (guard the work, not the barrier)"},
    {"KG-SYNC-AFTER-EXIT", 1, "sync", "do not return before a __syncthreads(): guard the work instead of exiting"},
    {"KG-SYNC-MISSING", 1, "sync", "put __syncthreads() between writing shared memory and reading another thread's element"},
    {"KG-SYNC-REDUNDANT", 2, "sync", "drop the barrier: nothing after it reads shared memory"},
    {"KG-CG-GRID-SYNC", 1, "sync", "launch with cudaLaunchCooperativeKernel, or split the kernel in two"},
    {"KG-FENCE-MISSING", 1, "sync", "call __threadfence() before the atomic ticket that publishes the block's result"},
    /* warps */
    {"KG-SHFL-DIVERGENT", 1, "warp", "call the _sync intrinsic where the whole warp is active, or use __activemask()"},
    {"KG-SHFL-MASK-PARTIAL", 1, "warp", "use the mask of the lanes that execute the call (0xffffffff for a full warp)"},
    {"KG-SHFL-LEGACY", 0, "warp", "use the _sync form with a mask: __shfl_down_sync(0xffffffff, v, d)"},
    {"KG-SHFL-WIDTH", 1, "warp", "use a width of 1, 2, 4, 8, 16 or 32"},
    {"KG-WARP-DIVERGENCE", 2, "warp", "branch on warp-uniform values (threadIdx.x / 32) or use sequential addressing"},
    /* atomics */
    {"KG-ATOMIC-BLOCK-SCOPE", 1, "atomics", "use device-scope atomics (atomicAdd) for memory other blocks update"},
    {"KG-ATOMIC-RELAXED-SPIN", 1, "atomics", "poll with an acquire load (memory_order_acquire) or add __threadfence()"},
    {"KG-ATOMIC-SAME-ADDRESS", 2, "atomics", "reduce in the block first (shuffles, shared memory), then one atomic per block"},
    {"KG-ATOMIC-GLOBAL-HOT", 2, "atomics", "privatize: count in shared memory per block, then merge with one atomic per bin"},
    {"KG-ATOMIC-CAS-NO-LOOP", 1, "atomics", "retry atomicCAS in a loop until it returns the value you compared with"},
    /* shared memory */
    {"KG-DYN-SMEM-MISSING", 0, "smem", "pass the dynamic shared memory size as the third launch argument"},
    {"KG-DYN-SMEM-LIMIT", 0, "smem", "call cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) or use less"},
    {"KG-DYN-SMEM-SIZE", 1, "smem", "size dynamic shared memory as blockDim.x * sizeof(element) (what the kernel indexes)"},
    {"KG-STATIC-SMEM-LIMIT", 0, "smem", "use at most 48 KiB of static shared memory (or dynamic shared memory with the opt-in)"},
    {"KG-SMEM-ARRAY-BLOCK", 1, "smem", "size the shared array to the block (or launch fewer threads)"},
    {"KG-BANK-CONFLICT", 2, "smem", "pad the row (float t[32][33]) or use an odd stride"},
    {"KG-BANK-STRIDE-VAR", 2, "smem", "use sequential addressing: s[tid] += s[tid + stride] with stride halving"},
    /* indexing and bounds */
    {"KG-IDX-THREADONLY", 1, "index", "build the index from blockIdx.x * blockDim.x + threadIdx.x"},
    {"KG-IDX-NO-BLOCK", 2, "index", "build the global index from blockIdx.x * blockDim.x + threadIdx.x"},
    {"KG-BOUNDS-NOCHECK", 1, "index", "guard the store: if (i < n)"},
    {"KG-BOUNDS-OFF-BY-ONE", 1, "index", "compare with i < n: i <= n writes one past the end, i < n - 1 skips the last"},
    {"KG-GRID-NO-ROUNDUP", 1, "index", "round the grid up: (n + block - 1) / block, or loop with a grid stride"},
    {"KG-STRIDE-MISMATCH", 1, "index", "step a threadIdx.x-based loop by blockDim.x (the block's size)"},
    {"KG-GRID-STRIDE-BLOCK-ONLY", 1, "index", "step a grid-wide loop by blockDim.x * gridDim.x"},
    /* launch configuration */
    {"KG-BLOCK-TOO-LARGE", 0, "launch", "launch at most 1024 threads per block"},
    {"KG-LAUNCH-BOUNDS-EXCEEDED", 0, "launch", "launch no more threads per block than __launch_bounds__ allows"},
    {"KG-BLOCK-NOT-WARP-MULTIPLE", 2, "launch", "use a block size that is a multiple of 32"},
    {"KG-BLOCK-SMALL", 2, "launch", "use at least 64 threads per block (128-256 is typical)"},
    {"KG-LAUNCH-SERIAL", 2, "launch", "launch enough threads: one per element, or a grid-stride loop over several blocks"},
    {"KG-KERNEL-NO-POINTER", 1, "launch", "pass the output as a pointer parameter: a kernel without one writes nothing the caller sees"},
    /* loops and recursion */
    {"KG-LOOP-UNBOUNDED", 1, "loops", "give the loop a condition or a break"},
    {"KG-LOOP-NO-PROGRESS", 0, "loops", "advance the loop variable (i += stride): nothing in the body changes the condition"},
    {"KG-RECURSION", 1, "loops", "replace the recursion by a loop"},
    /* local arrays */
    {"KG-LOCAL-ARRAY-DYNAMIC", 2, "local", "index local arrays with compile-time constants (unrolled loops) to keep them in registers"},
    {"KG-LOCAL-ARRAY-DATA-INDEX", 1, "local", "bound the index before using it (idx < N) or use shared memory"},
    {"KG-LOCAL-ARRAY-LARGE", 2, "local", "keep per-thread arrays small (<= 1 KiB) or move them to shared memory"},
    /* host code in device code */
    {"KG-HOSTLIB-DEVICE", 0, "host-in-device", "use plain arrays, shared memory, CUB or the device math library instead"},
    {"KG-HOST-API-DEVICE", 0, "host-in-device", "call the CUDA runtime and cuBLAS from launch() (host code), not from a kernel"},
    {"KG-HOST-FN-DEVICE", 0, "host-in-device", "mark the helper __device__ (or __host__ __device__)"},
    {"KG-DEVICE-HEAP", 1, "host-in-device", "use shared memory, registers or a scratch buffer from launch()"},
    {"KG-DEVICE-PRINTF", 2, "host-in-device", "remove the debug printf"},
    {"KG-REMOVED-API", 0, "host-in-device", "use the current API (texture objects, cudaDeviceGetAttribute, ...)"},
    /* memory access */
    {"KG-STRIDED", 2, "memory", "map threadIdx.x to the fastest-varying (contiguous) index"},
    {"KG-TRANSPOSE-UNCOALESCED", 2, "memory", "transpose through a shared-memory tile (32x33) so reads and writes are coalesced"},
    {"KG-NO-RESTRICT", 2, "memory", "mark pointer parameters that never alias const T* __restrict__ / T* __restrict__"},
    {"KG-RESTRICT-ALIAS", 1, "memory", "drop __restrict__ or pass different buffers"},
    /* math */
    {"KG-FASTMATH", 1, "math", "use the accurate function, or state the precision intent in a comment"},
    {"KG-POW-SMALL", 2, "math", "write x * x (or sqrtf(x), 1.0f / x) instead of a general power"},
    {"KG-DOUBLE-MATH", 2, "math", "call the float function (expf, sqrtf, ...) on float data"},
    {"KG-DOUBLE-LITERAL", 2, "math", "write float literals with an f suffix (0.5f)"},
    {"KG-FLOAT-EQ", 2, "math", "compare floats with a tolerance, not ==, unless exact equality is intended"},
    /* style */
    {"KG-STATIC-GLOBAL", 2, "style", "drop `static` from the __global__ function"},
    /* PyTorch candidates */
    {"KG-TORCH-STREAM", 1, "pytorch", "launch on at::cuda::getCurrentCUDAStream()"},
    {"KG-TORCH-CONTIGUOUS", 1, "pytorch", "call .contiguous() (or check is_contiguous()) before data_ptr()"},
    {"KG-TORCH-CHECKS", 2, "pytorch", "TORCH_CHECK the device (is_cuda()) and dtype of every input"},
};

int kg_rule_count(void) { return (int)(sizeof rules / sizeof rules[0]); }
const kg_rule_info *kg_rule_at(int i) { return (i >= 0 && i < kg_rule_count()) ? &rules[i] : 0; }

int kg_rule_index(const char *id)
{
    for (int i = 0; id && i < kg_rule_count(); i++)
        if (strcmp(rules[i].id, id) == 0) return i;
    return -1;
}

static const char *const policy_names[KG_POLICY_COUNT] = {"default", "published", "strict", "lenient"};

static const char *const policy_summaries[KG_POLICY_COUNT] = {
    "only certain defects reject statically (P0); P1 asks the dynamic track to look closely",
    "the published gate's P0 list: also device printf, recursion, static __global__, an index "
    "from threadIdx without blockIdx/blockDim, host library calls in __host__ __device__ code",
    "published, and every P1 rejects: fastest and most suspicious, good kernels with a flagged "
    "pattern are lost",
    "only what the gate cannot read safely rejects statically; every other defect must show "
    "in the dynamic track (slower, and defects the tests do not trigger pass)",
};

const char *kg_policy_name(int p) { return p >= 0 && p < KG_POLICY_COUNT ? policy_names[p] : "?"; }
const char *kg_policy_summary(int p) { return p >= 0 && p < KG_POLICY_COUNT ? policy_summaries[p] : "?"; }

int kg_policy_parse(const char *s)
{
    for (int p = 0; s && p < KG_POLICY_COUNT; p++)
        if (strcmp(s, policy_names[p]) == 0) return p;
    return -1;
}

/* The published gate's P0 list, as rules of this gate. */
static int published_p0(const char *id)
{
    static const char *const list[] = {"KG-DEVICE-PRINTF", "KG-RECURSION", "KG-STATIC-GLOBAL",
                                       "KG-IDX-THREADONLY", "KG-IDX-NO-BLOCK", "KG-HOSTLIB-DEVICE",
                                       "KG-HOST-API-DEVICE", 0};
    for (int i = 0; list[i]; i++)
        if (strcmp(list[i], id) == 0) return 1;
    return 0;
}

int kg_policy_sev(int p, int rule, int sev)
{
    const kg_rule_info *r = kg_rule_at(rule);
    if (!r || sev < 0 || sev > 2) return sev;
    switch (p) {
    case KG_POLICY_PUBLISHED:
        return published_p0(r->id) ? 0 : sev;
    case KG_POLICY_STRICT:
        return published_p0(r->id) || sev <= 1 ? 0 : sev;
    case KG_POLICY_LENIENT:
        if (!strcmp(r->family, "gate") && sev == 0) return 0;   /* KG-INCLUDE, KG-HIDDEN-CODE */
        return sev == 0 ? 1 : sev;
    default:
        return sev;
    }
}
