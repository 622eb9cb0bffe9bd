/* cudaGraphs: a chain of N tiny kernels launched one by one on a stream,
 * then recorded once as a CUDA graph and replayed, and what each way costs
 * per kernel.
 *
 * What it teaches: a kernel launch from the host costs microseconds of CPU
 * and driver work, and a kernel that does a microsecond of work leaves the
 * GPU idle between launches. A graph describes the whole chain once; it is
 * instantiated (checked, and turned into a form the GPU front end can run)
 * once, then one cudaGraphLaunch replays all N kernels with the launch work
 * done ahead of time. Two ways to make the graph: stream capture (run the
 * same launch code between cudaStreamBeginCapture and cudaStreamEndCapture:
 * the launches are recorded, not run) and explicit nodes (cudaGraphAddKernelNode
 * with each node's parameters and its dependency). And two ways to change
 * an instantiated graph without instantiating it again: set one kernel
 * node's parameters in the executable graph (cudaGraphExecKernelNodeSetParams),
 * or capture the chain again with new parameters and update the executable
 * graph from it (cudaGraphExecUpdate), which works when the topology is the
 * same and is refused (the sample shows it) when it is not.
 *
 * What a replayed kernel costs: each node waits for the one before it to
 * finish (its blocks done, its stores visible), then the front end starts
 * it and its blocks are placed on SMs; that launch-and-dependency cost is
 * what a graph cannot remove. Two chains, launched alike, tell it apart
 * from what the kernels do:
 *   data   kernel k applies x = x * a_k + b_k to the array kernel k-1 wrote:
 *          its first load cannot be issued before the kernel starts and
 *          waits for a round trip to L2, on the critical path of every step
 *   store  kernel k writes row k of its own (a_k * i + b_k) and reads
 *          nothing: the launch and the dependency alone (the sample's target,
 *          at most 1 us per kernel in a replayed chain of 100 or more, is
 *          about this one)
 *
 * Build:  make -C 6_Advanced/cudaGraphs        (or `make cudaGraphs` at the top)
 * Run:    bin/cudaGraphs                       both chains of 1, 10, 100 and 1000 kernels
 *         bin/cudaGraphs --kernels=500 --n=4099
 *         bin/cudaGraphs --variant=graph_capture --reps=100
 *         bin/cudaGraphs --chain=data --n=200  the data chain on one block
 *         bin/cudaGraphs --quick               chains of 1, 10, 50, for compute-sanitizer
 * Variants (one table below drives checks, timing and --help), each on
 * both chains (RESULT key chain=data|store):
 *   cpu             the chain on the CPU, per step
 *   stream          N launches on a stream, back to back: the reference
 *   graph_capture   the chain recorded by stream capture, instantiated, replayed
 *   graph_explicit  the chain built node by node, instantiated, replayed
 * and two updates, checked and timed on the host (graph_explicit, graph_capture):
 *   node_set_params cudaGraphExecKernelNodeSetParams on one node of the executable graph
 *   exec_update     cudaGraphExecUpdate of the executable graph from a re-captured chain
 *
 * Measured: the whole chain between two CUDA events (N launches, or one
 * graph launch), median of --reps after 3 warm-ups, divided by N:
 * us_per_kernel. Building the graph (capture or nodes) and instantiating it
 * are host work done once, timed on the host and reported apart
 * (build_ms, instantiate_ms): time_ms does not include them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>

#include "check.h"
#include "cuda_check.h"
#include "device.h"
#include "options.h"
#include "report.h"
#include "timing.h"

#include "graph_chain.h"

/* ---- CPU reference ------------------------------------------------------
 * graph_chain.c: chain_cpu applies the steps in order on the host;
 * chain_params and chain_input give the seeded parameters and input. */

/* ---- kernels ------------------------------------------------------------ */

/* One step of the data chain: x = x * a + b on every element (unsigned,
 * wrapping). A microsecond of work at most: what is measured is the launch
 * around it, and the one thing the kernel cannot start without, x as the
 * kernel before it left it. */
__global__ void affine_step(unsigned int *x, int n, unsigned int a, unsigned int b)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * a + b;
}

/* One step of the store chain: row k of the array (its own n elements,
 * passed as `row`) gets a * col + b. The same launch shape and the same
 * stores as affine_step, but no load: nothing a kernel does waits for
 * memory another kernel wrote, so what is left between two kernels is the
 * launch and the dependency. */
__global__ void store_step(unsigned int *row, int n, unsigned int a, unsigned int b)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col < n) row[col] = a * (unsigned int)col + b;
}

/* ---- launchers ---------------------------------------------------------- */

typedef struct {
    int kind;                 /* CHAIN_DATA or CHAIN_STORE (graph_chain.h) */
    unsigned int *x;          /* data: the array updated in place; store: the rows (guarded) */
    int n;                    /* elements of the array, or of each row */
    int block, grid;
    int kernels;              /* N, the chain length */
    const unsigned int *a, *b;   /* host: the N steps' parameters (first set) */
    cudaGraphExec_t exec;     /* what the replay variants launch */
} chain_ctx;

/* What kernel k of the chain writes: the one array (data), or row k of the
 * rows (store); and which kernel it is. */
static unsigned int *step_target(const chain_ctx *c, int k)
{
    return c->kind == CHAIN_STORE ? c->x + (size_t)k * c->n : c->x;
}

static void *step_kernel(const chain_ctx *c)
{
    return c->kind == CHAIN_STORE ? (void *)store_step : (void *)affine_step;
}

/* Elements a run of `kernels` kernels writes and the check compares. */
static size_t chain_used(const chain_ctx *c, int kernels)
{
    return c->kind == CHAIN_STORE ? (size_t)kernels * c->n : (size_t)c->n;
}

/* The chain as launches on a stream: N kernels, each checked. Used as it is
 * by the stream variant and, between BeginCapture and EndCapture, to record
 * the captured graph. */
static void launch_chain(const chain_ctx *c, const unsigned int *a, const unsigned int *b,
                         int kernels, cudaStream_t s)
{
    for (int k = 0; k < kernels; k++) {
        if (c->kind == CHAIN_STORE)
            store_step<<<c->grid, c->block, 0, s>>>(step_target(c, k), c->n, a[k], b[k]);
        else
            affine_step<<<c->grid, c->block, 0, s>>>(step_target(c, k), c->n, a[k], b[k]);
        CHECK_LAUNCH();
    }
}

static void run_stream(void *p, cudaStream_t s)
{
    const chain_ctx *c = (const chain_ctx *)p;
    launch_chain(c, c->a, c->b, c->kernels, s);
}

/* Both graph variants: one call replays the whole chain. */
static void run_graph(void *p, cudaStream_t s)
{
    const chain_ctx *c = (const chain_ctx *)p;
    CUDA_CHECK(cudaGraphLaunch(c->exec, s));
}

/* Stream capture: the same launch code, recorded into a graph instead of
 * run. Global mode: any call from this process that could make the capture
 * unsafe (a synchronous cudaMalloc, a legacy-stream copy) fails instead. */
static cudaGraph_t capture_chain(const chain_ctx *c, const unsigned int *a, const unsigned int *b,
                                 int kernels, cudaStream_t s)
{
    cudaGraph_t g;
    CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    launch_chain(c, a, b, kernels, s);
    CUDA_CHECK(cudaStreamEndCapture(s, &g));
    return g;
}

/* A kernel node's parameters: the function, the launch shape and a pointer
 * to each argument. The runtime copies the argument values when the node is
 * added or updated, so the storage only has to live through that call. Both
 * kernels take (array, n, a, b); node k's array is step_target(c, k). */
typedef struct {
    unsigned int *x;
    int n;
    unsigned int a, b;
    void *args[4];
} step_args;

static void step_node_params(step_args *s, const chain_ctx *c, int k, unsigned int a,
                             unsigned int b, cudaKernelNodeParams *p)
{
    s->x = step_target(c, k);
    s->n = c->n;
    s->a = a;
    s->b = b;
    s->args[0] = &s->x;
    s->args[1] = &s->n;
    s->args[2] = &s->a;
    s->args[3] = &s->b;
    *p = cudaKernelNodeParams{};
    p->func = step_kernel(c);
    p->gridDim = dim3(c->grid);
    p->blockDim = dim3(c->block);
    p->sharedMemBytes = 0;
    p->kernelParams = s->args;
    p->extra = NULL;
}

/* Explicit nodes: node k depends on node k-1 (node 0 on nothing), which is
 * what makes the graph run the steps in order. nodes[] receives the handles
 * (the update by cudaGraphExecKernelNodeSetParams names a node by its handle). */
static cudaGraph_t build_chain(const chain_ctx *c, int kernels, cudaGraphNode_t *nodes)
{
    cudaGraph_t g;
    CUDA_CHECK(cudaGraphCreate(&g, 0));
    for (int k = 0; k < kernels; k++) {
        step_args sa;
        cudaKernelNodeParams p;
        step_node_params(&sa, c, k, c->a[k], c->b[k], &p);
        size_t deps = k > 0 ? 1 : 0;
        CUDA_CHECK(cudaGraphAddKernelNode(&nodes[k], g, deps ? &nodes[k - 1] : NULL, deps, &p));
    }
    return g;
}

/* ---- variant table ------------------------------------------------------ */

typedef enum { WAY_STREAM, WAY_CAPTURE, WAY_EXPLICIT } way_kind;

typedef struct {
    const char *name;
    timed_fn run;
    way_kind way;
    const char *what;
} variant;

static const variant variants[] = {
    {"stream", run_stream, WAY_STREAM, "N launches on a stream, back to back (reference)"},
    {"graph_capture", run_graph, WAY_CAPTURE, "stream capture, instantiate once, replay"},
    {"graph_explicit", run_graph, WAY_EXPLICIT, "explicit kernel nodes, instantiate once, replay"},
};
#define N_VARIANTS ((int)(sizeof variants / sizeof variants[0]))

/* ---- options ------------------------------------------------------------ */

static long long opt_kernels = 0;
static long long opt_n = 1000;
static long long opt_block = 256;
static const char *opt_chain = "both";
static const char *opt_variant = "all";
static char variant_choices[256];
static char help_notes[1536];

static const opt_spec sample_opts[] = {
    OPT_INT_SPEC("kernels", "N", "chain length; 0 = the sweep 1, 10, 100, 1000", &opt_kernels, 0,
                 10000),
    OPT_INT_SPEC("n", "N", "elements of the array every kernel updates", &opt_n, 1, 1LL << 24),
    OPT_INT_SPEC("block", "THREADS", "threads per block (multiple of 32)", &opt_block, 32, 1024),
    OPT_STRING_SPEC("chain", "KIND",
                    "data: each kernel reads what the one before wrote; store: each writes its own row",
                    &opt_chain, "both|data|store"),
    OPT_STRING_SPEC("variant", "NAME", "time one way (stream, the reference, always runs)",
                    &opt_variant, variant_choices),
};

static const opts_config cfg = {
    "cudaGraphs", "a chain of N tiny kernels: stream launches vs a CUDA graph replayed",
    sample_opts, (int)(sizeof sample_opts / sizeof sample_opts[0]), help_notes, 0};

static void build_help_from_table(void)
{
    opts_join_choices(variant_choices, sizeof variant_choices, "all|cpu", &variants[0].name,
                      sizeof variants[0], N_VARIANTS);
    size_t h = (size_t)snprintf(help_notes, sizeof help_notes, "Variants:\n  %-16s %s\n", "cpu",
                                "the chain on the CPU, per step");
    for (int v = 0; v < N_VARIANTS; v++)
        h += (size_t)snprintf(help_notes + h, sizeof help_notes - h, "  %-16s %s\n",
                              variants[v].name, variants[v].what);
    snprintf(help_notes + h, sizeof help_notes - h,
             "Updates (checked, host-timed): node_set_params (with graph_explicit), exec_update\n"
             "(with graph_capture), and an update refused because the topology changed.\n"
             "Chains (each variant runs both unless --chain says): data, kernel k applies x = x *\n"
             "a_k + b_k to the array the kernel before it wrote; store, kernel k writes row k,\n"
             "a_k * i + b_k, and reads nothing (same grid and block). The store chain's\n"
             "us_per_kernel is the launch and dependency cost; the data chain adds the wait for\n"
             "the previous kernel's data.\n"
             "--quick: chains of 1, 10 and 50 kernels, 3 timed runs.");
}

/* ---- checks ------------------------------------------------------------- */

/* One checked run: the array (the data chain's x, or the store chain's N
 * rows) poisoned with its guard zone, x reset from x0 (data), the way run
 * on s, the array copied back into pinned host memory that was poisoned
 * too, then s synchronised and compared exactly with the CPU's chain. The
 * copy back is asynchronous (pinned memory): without the synchronisation
 * the host would compare whatever the copy had not yet overwritten. A row
 * the store chain did not write stays poisoned and fails. */
static int check_run(const char *what, timed_fn run, chain_ctx *c, const unsigned int *d_x0,
                     unsigned int *h_out, const unsigned int *h_want, cudaStream_t s)
{
    const size_t elems = chain_used(c, c->kernels);
    const size_t bytes = elems * sizeof(unsigned int);
    /* cudaMemset on the legacy stream; s is a blocking stream, so what
     * follows on s waits for it. */
    poison_guarded(c->x, bytes);
    if (c->kind == CHAIN_DATA)
        CUDA_CHECK(cudaMemcpyAsync(c->x, d_x0, bytes, cudaMemcpyDeviceToDevice, s));
    run(c, s);
    poison_host(h_out, bytes);
    CUDA_CHECK(cudaMemcpyAsync(h_out, c->x, bytes, cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    size_t bad = check_exact_u32(what, h_out, h_want, elems);
    bad += check_guard(what, c->x, bytes);
    return bad == 0;
}

/* The CPU's answer for a chain of `kernels` steps with parameters a, b:
 * the data chain from x0, or the store chain's rows. */
static void chain_expected(const chain_ctx *c, const unsigned int *h_x0, const unsigned int *a,
                           const unsigned int *b, int kernels, unsigned int *out)
{
    if (c->kind == CHAIN_STORE) {
        chain_store_cpu(out, (size_t)c->n, a, b, kernels);
    } else {
        memcpy(out, h_x0, (size_t)c->n * sizeof(unsigned int));
        chain_cpu(out, (size_t)c->n, a, b, kernels);
    }
}

/* The graph must be the chain it was meant to be: N kernel nodes, each
 * depending on the one before (graph_chain.c says why a result check alone
 * is not enough). */
static int check_shape(const char *what, cudaGraph_t g, int kernels)
{
    size_t nn = 0, ne = 0;
    CUDA_CHECK(cudaGraphGetNodes(g, NULL, &nn));
    CUDA_CHECK(cudaGraphGetEdges(g, NULL, NULL, NULL, &ne));
    cudaGraphNode_t *nodes = (cudaGraphNode_t *)malloc((nn + 1) * sizeof *nodes);
    cudaGraphNode_t *from = (cudaGraphNode_t *)malloc((ne + 1) * sizeof *from);
    cudaGraphNode_t *to = (cudaGraphNode_t *)malloc((ne + 1) * sizeof *to);
    if (!nodes || !from || !to) {
        fprintf(stderr, "cudaGraphs: out of host memory\n");
        exit(1);
    }
    CUDA_CHECK(cudaGraphGetNodes(g, nodes, &nn));
    /* With arrays but a count of 0 (a chain of one kernel has no edge) the
     * runtime answers cudaErrorInvalidValue (CUDA 13.0 on the H200): ask only
     * when there is something to fill. */
    if (ne > 0) CUDA_CHECK(cudaGraphGetEdges(g, from, to, NULL, &ne));
    char why[160] = "";
    int ok = chain_shape_check((const void *const *)nodes, nn, (const void *const *)from,
                               (const void *const *)to, ne, (size_t)kernels, why, sizeof why) == 0;
    for (size_t i = 0; ok && i < nn; i++) {
        cudaGraphNodeType t;
        CUDA_CHECK(cudaGraphNodeGetType(nodes[i], &t));
        if (t != cudaGraphNodeTypeKernel) {
            snprintf(why, sizeof why, "node %zu is not a kernel node (type %d)", i, (int)t);
            ok = 0;
        }
    }
    if (!ok) fprintf(stderr, "cudaGraphs: %s: not a chain of %d kernels: %s\n", what, kernels, why);
    free(nodes);
    free(from);
    free(to);
    return ok;
}

/* ---- main --------------------------------------------------------------- */

static void fail_arg(const char *msg)
{
    fprintf(stderr, "cudaGraphs: error: %s\n", msg);
    printf("cudaGraphs: FAIL (bad argument)\n");
    exit(1);
}

static double ms_since(double t0) { return (host_seconds() - t0) * 1e3; }

/* The reference's time over this variant's, as a percentage: 600 means
 * six times as many kernels per second as the stream. */
static void rec_vs_ref(result_rec *r, const char *ref, double ref_ms, double ms)
{
    if (ref_ms > 0 && ms > 0) {
        rec_str(r, "ref", ref);
        rec_num(r, "pct_ref", 100.0 * ref_ms / ms);
    }
}

/* Most elements of the array a run may need (1 GiB of 32-bit values): the
 * store chain's rows are N x n. */
#define MAX_ARRAY_ELEMS ((size_t)1 << 28)

int main(int argc, char **argv)
{
    common_opts o;
    build_help_from_table();
    opts_parse_or_exit(&cfg, argc, argv, &o);
    if (opt_block % 32 != 0) {
        char msg[96];
        snprintf(msg, sizeof msg, "--block=%lld: must be a multiple of 32", opt_block);
        fail_arg(msg);
    }
    int sweep[4];
    const int n_sweep = chain_sweep(opt_kernels, o.quick, sweep);
    const int max_k = sweep[n_sweep - 1];
    const int n = (int)opt_n;
    int kinds[2];
    const int n_kinds = chain_kinds(opt_chain, kinds);
    if (n_kinds < 0) fail_arg("--chain: must be both, data or store");
    /* The array: the largest any selected chain needs (the store chain: a
     * row of n per kernel of the longest chain, and one more). */
    size_t cap = 0;
    for (int ki = 0; ki < n_kinds; ki++) {
        const size_t e = chain_array_elems(kinds[ki], max_k, (size_t)n, MAX_ARRAY_ELEMS);
        if (e == 0) {
            char msg[256];
            snprintf(msg, sizeof msg, "--n=%d with chains of up to %d kernels: the store chain "
                     "needs a row of n per kernel, %.3g GB, over 1 GiB: a smaller --n or "
                     "--kernels, or --chain=data", n, max_k,
                     ((double)max_k + 1) * n * sizeof(unsigned int) / 1e9);
            fail_arg(msg);
        }
        if (e > cap) cap = e;
    }
    const size_t bytes = (size_t)n * sizeof(unsigned int);     /* the data chain's x */
    const size_t cap_bytes = cap * sizeof(unsigned int);
    const int reps = (o.quick && o.reps == OPTS_DEFAULT_REPS) ? 3 : o.reps;
    const int run_capture = opts_variant_runs(opt_variant, "graph_capture", 0);
    const int run_explicit = opts_variant_runs(opt_variant, "graph_explicit", 0);

    report_init("cudaGraphs", o.json);
    device_info dev;
    device_setup_or_exit("cudaGraphs", o.device, o.json, &dev);

    /* Parameters for the longest chain (and one more step, for the refused
     * update), both sets; the input; the CPU's answers. */
    unsigned int *a0 = (unsigned int *)malloc((size_t)(max_k + 1) * sizeof(unsigned int));
    unsigned int *b0 = (unsigned int *)malloc((size_t)(max_k + 1) * sizeof(unsigned int));
    unsigned int *a1 = (unsigned int *)malloc((size_t)(max_k + 1) * sizeof(unsigned int));
    unsigned int *b1 = (unsigned int *)malloc((size_t)(max_k + 1) * sizeof(unsigned int));
    unsigned int *h_x0 = (unsigned int *)malloc(bytes);
    unsigned int *h_want = (unsigned int *)malloc(cap_bytes);
    unsigned int *h_cpu = (unsigned int *)malloc(cap_bytes);
    unsigned int *a_upd = (unsigned int *)malloc((size_t)(max_k + 1) * sizeof(unsigned int));
    unsigned int *b_upd = (unsigned int *)malloc((size_t)(max_k + 1) * sizeof(unsigned int));
    cudaGraphNode_t *nodes = (cudaGraphNode_t *)malloc((size_t)max_k * sizeof(cudaGraphNode_t));
    double *cpu_ms = (double *)malloc((size_t)reps * sizeof(double));
    double *host_us = (double *)malloc(200 * sizeof(double));
    if (!a0 || !b0 || !a1 || !b1 || !h_x0 || !h_want || !h_cpu || !a_upd || !b_upd || !nodes ||
        !cpu_ms || !host_us) {
        report_fail("out of host memory");
        return report_finish();
    }
    chain_params(o.seed, CHAIN_SET_FIRST, max_k + 1, a0, b0);
    chain_params(o.seed, CHAIN_SET_SECOND, max_k + 1, a1, b1);
    chain_input(o.seed, h_x0, (size_t)n);

    /* A blocking stream (not cudaStreamNonBlocking): the checks' cudaMemset
     * and cudaMemcpy on the legacy stream are ordered with it. */
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s));
    unsigned int *d_x0, *h_out;
    CUDA_CHECK(cudaMalloc(&d_x0, bytes));
    CUDA_CHECK(cudaMemcpy(d_x0, h_x0, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMallocHost(&h_out, cap_bytes));

    chain_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.x = (unsigned int *)guarded_malloc(cap_bytes);
    ctx.n = n;
    ctx.block = (int)opt_block;
    ctx.grid = (n + ctx.block - 1) / ctx.block;
    ctx.a = a0;
    ctx.b = b0;
    report_note("n=%d elements (%d blocks of %d), chains of %d to %d kernels; time_ms = the whole "
                "chain between two events (median of %d), us_per_kernel = time_ms / N; build and "
                "instantiate are host times, not in time_ms", n, ctx.grid, ctx.block, sweep[0],
                max_k, reps);
    report_note("chain=data: kernel k applies x = x * a_k + b_k to the array, reading what kernel "
                "k-1 wrote; chain=store: kernel k writes a_k * i + b_k into row k of its own and "
                "reads nothing. Same grid, block and stores: the difference is the load");

    /* Slowest graph replay per kernel at N >= 100, per chain (0: not measured). */
    double worst_graph_us_100[2] = {0, 0};
    for (int ki = 0; ki < n_kinds; ki++) {
        ctx.kind = kinds[ki];
        const char *chain = chain_kind_name(ctx.kind);
        for (int si = 0; si < n_sweep; si++) {
            const int kernels = sweep[si];
            ctx.kernels = kernels;
            const size_t want_bytes = chain_used(&ctx, kernels) * sizeof(unsigned int);
            char what[128];
            result_rec r;

            /* The CPU: the expected values, and the chain timed per step. */
            for (int i = 0; i < reps; i++) {
                if (ctx.kind == CHAIN_DATA) memcpy(h_cpu, h_x0, bytes);   /* not timed */
                double t0 = host_seconds();
                if (ctx.kind == CHAIN_DATA) chain_cpu(h_cpu, (size_t)n, a0, b0, kernels);
                else chain_store_cpu(h_cpu, (size_t)n, a0, b0, kernels);
                cpu_ms[i] = ms_since(t0);
            }
            memcpy(h_want, h_cpu, want_bytes);
            double cpu_med = stats_median(cpu_ms, reps);
            if (opts_variant_runs_cpu(opt_variant)) {
                rec_begin(&r, "cpu");
                rec_str(&r, "chain", chain);
                rec_int(&r, "kernels", kernels);
                rec_int(&r, "n", n);
                rec_str(&r, "status", "PASS");
                rec_num(&r, "time_ms", cpu_med);
                rec_num(&r, "us_per_kernel", cpu_med * 1e3 / kernels);
                rec_emit(&r);
            }

            double stream_ms = 0, explicit_inst_ms = 0;
            cudaGraph_t g_cap = NULL, g_exp = NULL;
            cudaGraphExec_t e_cap = NULL, e_exp = NULL;
            /* Build and check every way first; each keeps its own context
             * (the executable graph it replays). */
            chain_ctx vctx[N_VARIANTS];
            double build_ms[N_VARIANTS], inst_ms[N_VARIANTS];
            int ok[N_VARIANTS], chosen[N_VARIANTS];
            for (int v = 0; v < N_VARIANTS; v++) {
                const variant *var = &variants[v];
                chosen[v] = !((var->way == WAY_CAPTURE && !run_capture) ||
                              (var->way == WAY_EXPLICIT && !run_explicit));
                if (!chosen[v]) continue;
                build_ms[v] = inst_ms[v] = 0;
                ok[v] = 1;
                ctx.exec = NULL;
                if (var->way != WAY_STREAM) {
                    double t0 = host_seconds();
                    cudaGraph_t g = var->way == WAY_CAPTURE ? capture_chain(&ctx, a0, b0, kernels, s)
                                                            : build_chain(&ctx, kernels, nodes);
                    build_ms[v] = ms_since(t0);
                    snprintf(what, sizeof what, "%s(%s, N=%d) graph", var->name, chain, kernels);
                    ok[v] &= check_shape(what, g, kernels);
                    t0 = host_seconds();
                    CUDA_CHECK(cudaGraphInstantiate(&ctx.exec, g, 0));
                    inst_ms[v] = ms_since(t0);
                    if (var->way == WAY_CAPTURE) { g_cap = g; e_cap = ctx.exec; }
                    else { g_exp = g; e_exp = ctx.exec; explicit_inst_ms = inst_ms[v]; }
                }
                snprintf(what, sizeof what, "%s(%s, N=%d) x", var->name, chain, kernels);
                ok[v] &= check_run(what, var->run, &ctx, d_x0, h_out, h_want, s);
                vctx[v] = ctx;
            }

            /* The ways that passed, the stream with them, timed round robin
             * (common/timing.h): pct_ref is from the same run, at the same
             * clocks. */
            timed_variant group[N_VARIANTS];
            timing_stats times[N_VARIANTS];
            char ranges[N_VARIANTS][64];
            int slot[N_VARIANTS], n_group = 0;
            for (int v = 0; v < N_VARIANTS; v++) {
                slot[v] = -1;
                if (!chosen[v] || !ok[v]) continue;
                snprintf(ranges[v], sizeof ranges[v], "cudaGraphs/%s", variants[v].name);
                /* with_launches: a chain's time includes the host's launches,
                 * which is what a graph takes away (timing.h) */
                group[n_group] = (timed_variant){variants[v].run, &vctx[v], ranges[v], 0, NULL, 1};
                slot[v] = n_group++;
            }
            if (n_group > 0) {
                timing_cfg tc = timing_defaults(reps);
                tc.stream = s;
                time_gpu_group(group, n_group, &tc, times);
            }
            for (int v = 0; v < N_VARIANTS; v++)
                if (variants[v].way == WAY_STREAM && slot[v] >= 0)
                    stream_ms = times[slot[v]].median_ms;

            for (int v = 0; v < N_VARIANTS; v++) {
                const variant *var = &variants[v];
                if (!chosen[v]) continue;
                rec_begin(&r, var->name);
                rec_str(&r, "chain", chain);
                rec_int(&r, "kernels", kernels);
                rec_int(&r, "n", n);
                if (!ok[v]) {
                    rec_str(&r, "status", "FAIL");
                    rec_emit(&r);
                    continue;
                }
                const timing_stats *t = &times[slot[v]];
                double us = t->median_ms * 1e3 / kernels;
                rec_str(&r, "status", "PASS");
                rec_num(&r, "time_ms", t->median_ms);
                rec_num(&r, "us_per_kernel", us);
                if (var->way != WAY_STREAM) {
                    rec_vs_ref(&r, "stream", stream_ms, t->median_ms);
                    rec_num(&r, "build_ms", build_ms[v]);
                    rec_num(&r, "instantiate_ms", inst_ms[v]);
                    long long be = graph_breakeven_replays(build_ms[v] + inst_ms[v], stream_ms,
                                                           t->median_ms);
                    if (be >= 0) rec_int(&r, "breakeven_replays", be);
                    if (kernels >= 100 && us > worst_graph_us_100[ctx.kind])
                        worst_graph_us_100[ctx.kind] = us;
                }
                rec_num(&r, "min_ms", t->min_ms);
                timing_rec_clocks(&r, t);
                rec_emit(&r);
            }

            /* Update 1: one node of the executable graph gets new parameters
             * (step k_upd of the second set); nothing is instantiated again.
             * Timed as the median of 200 calls alternating between the two
             * parameter sets, ending on the new one, then checked. */
            if (e_exp) {
                const int k_upd = kernels / 2;
                const unsigned int upd_a = a1[k_upd], upd_b = b1[k_upd];
                step_args sa;
                cudaKernelNodeParams p_new, p_old;
                step_node_params(&sa, &ctx, k_upd, upd_a, upd_b, &p_new);
                step_args sb;
                step_node_params(&sb, &ctx, k_upd, a0[k_upd], b0[k_upd], &p_old);
                for (int i = 0; i < 200; i++) {
                    double t0 = host_seconds();
                    CUDA_CHECK(cudaGraphExecKernelNodeSetParams(e_exp, nodes[k_upd],
                                                                i % 2 ? &p_new : &p_old));
                    host_us[i] = ms_since(t0) * 1e3;
                }
                /* The expected values: the first set with step k_upd replaced. */
                memcpy(a_upd, a0, (size_t)kernels * sizeof(unsigned int));
                memcpy(b_upd, b0, (size_t)kernels * sizeof(unsigned int));
                a_upd[k_upd] = a1[k_upd];
                b_upd[k_upd] = b1[k_upd];
                chain_expected(&ctx, h_x0, a_upd, b_upd, kernels, h_cpu);
                ctx.exec = e_exp;
                snprintf(what, sizeof what, "node_set_params(%s, N=%d, node %d) x", chain, kernels,
                         k_upd);
                int ok = check_run(what, run_graph, &ctx, d_x0, h_out, h_cpu, s);
                rec_begin(&r, "node_set_params");
                rec_str(&r, "chain", chain);
                rec_int(&r, "kernels", kernels);
                rec_int(&r, "n", n);
                rec_str(&r, "status", ok ? "PASS" : "FAIL");
                rec_num(&r, "update_us", stats_median(host_us, 200));
                rec_num(&r, "instantiate_us", explicit_inst_ms * 1e3);
                rec_emit(&r);
            }

            /* Update 2: capture the chain again with the second parameter set
             * and update the executable graph from it (same topology: accepted).
             * Timed: 20 updates alternating between the two captured graphs,
             * ending on the second, against 5 fresh instantiations of it. */
            if (e_cap) {
                double t0 = host_seconds();
                cudaGraph_t g2 = capture_chain(&ctx, a1, b1, kernels, s);
                double capture_us = ms_since(t0) * 1e3;
                snprintf(what, sizeof what, "exec_update(%s, N=%d) re-captured graph", chain,
                         kernels);
                int ok = check_shape(what, g2, kernels);
                for (int i = 0; i < 20; i++) {
                    cudaGraphExecUpdateResultInfo info;
                    memset(&info, 0, sizeof info);
                    t0 = host_seconds();
                    cudaError_t ue = cudaGraphExecUpdate(e_cap, i % 2 ? g2 : g_cap, &info);
                    host_us[i] = ms_since(t0) * 1e3;
                    if (ue != cudaSuccess || info.result != cudaGraphExecUpdateSuccess) {
                        report_fail("exec_update(%s, N=%d): cudaGraphExecUpdate refused a graph of "
                                    "the same topology: %s (result %d)", chain, kernels,
                                    cudaGetErrorString(ue), (int)info.result);
                        ok = 0;
                        break;
                    }
                }
                double update_us = stats_median(host_us, 20);
                for (int i = 0; i < 5; i++) {
                    cudaGraphExec_t e2;
                    t0 = host_seconds();
                    CUDA_CHECK(cudaGraphInstantiate(&e2, g2, 0));
                    host_us[i] = ms_since(t0) * 1e3;
                    CUDA_CHECK(cudaGraphExecDestroy(e2));
                }
                double reinst_us = stats_median(host_us, 5);
                chain_expected(&ctx, h_x0, a1, b1, kernels, h_cpu);
                ctx.exec = e_cap;
                snprintf(what, sizeof what, "exec_update(%s, N=%d) x", chain, kernels);
                ok &= check_run(what, run_graph, &ctx, d_x0, h_out, h_cpu, s);
                rec_begin(&r, "exec_update");
                rec_str(&r, "chain", chain);
                rec_int(&r, "kernels", kernels);
                rec_int(&r, "n", n);
                rec_str(&r, "status", ok ? "PASS" : "FAIL");
                rec_num(&r, "update_us", update_us);
                rec_num(&r, "capture_us", capture_us);
                rec_num(&r, "reinstantiate_us", reinst_us);
                rec_emit(&r);

                /* And the update that must be refused: one kernel more is a
                 * different topology. The error is the answer, not a failure:
                 * shown as a note, cleared, and the program goes on. Once, on
                 * the first chain at the longest N. */
                if (si == n_sweep - 1 && ki == 0) {
                    cudaGraph_t g3 = capture_chain(&ctx, a1, b1, kernels + 1, s);
                    cudaGraphExecUpdateResultInfo info;
                    memset(&info, 0, sizeof info);
                    cudaError_t ue = cudaGraphExecUpdate(e_cap, g3, &info);
                    (void)cudaGetLastError();
                    if (ue == cudaErrorGraphExecUpdateFailure)
                        report_note("exec_update from a chain of %d kernels into one of %d: "
                                    "refused as it must be (%s, result %d%s): a new topology "
                                    "needs a new cudaGraphInstantiate", kernels + 1, kernels,
                                    cudaGetErrorName(ue), (int)info.result,
                                    info.result == cudaGraphExecUpdateErrorTopologyChanged
                                        ? " = cudaGraphExecUpdateErrorTopologyChanged" : "");
                    else
                        report_fail("exec_update with one kernel more: expected "
                                    "cudaErrorGraphExecUpdateFailure, got %s (result %d)",
                                    cudaGetErrorName(ue), (int)info.result);
                    CUDA_CHECK(cudaGraphDestroy(g3));
                }
                CUDA_CHECK(cudaGraphDestroy(g2));
            }
            if (e_cap) CUDA_CHECK(cudaGraphExecDestroy(e_cap));
            if (e_exp) CUDA_CHECK(cudaGraphExecDestroy(e_exp));
            if (g_cap) CUDA_CHECK(cudaGraphDestroy(g_cap));
            if (g_exp) CUDA_CHECK(cudaGraphDestroy(g_exp));
        }
    }
    /* What the graph replays measured, against the sample's target (at
     * most 1 us per kernel for chains of 100 or more): the store chain
     * is the launch and dependency cost alone; the data chain adds, to every
     * kernel, a load that cannot start before the kernel does and must wait
     * for the previous kernel's stores to come back from L2. */
    const double us_store = worst_graph_us_100[CHAIN_STORE], us_data = worst_graph_us_100[CHAIN_DATA];
    if (us_store > 0)
        report_note("graph replay at N >= 100, chain=store (no kernel reads what another wrote: "
                    "the launch and the dependency): at most %.3g us per kernel (the "
                    "target: at most 1 us)", us_store);
    if (us_data > 0)
        report_note("graph replay at N >= 100, chain=data (each kernel first loads what the one "
                    "before it wrote): at most %.3g us per kernel%s", us_data,
                    us_store > 0 ? "" : " (--chain=store measures the launch alone)");
    if (us_store > 0 && us_data > 0)
        report_note("the data chain's load costs %.2g us per kernel: it cannot be issued before "
                    "its kernel starts, and it waits for a round trip to L2 for the values the "
                    "kernel before it stored", us_data - us_store);

    CUDA_CHECK(cudaStreamDestroy(s));
    guarded_free(ctx.x);
    CUDA_CHECK(cudaFree(d_x0));
    CUDA_CHECK(cudaFreeHost(h_out));
    free(a0);
    free(b0);
    free(a1);
    free(b1);
    free(h_x0);
    free(h_want);
    free(h_cpu);
    free(a_upd);
    free(b_upd);
    free(nodes);
    free(cpu_ms);
    free(host_us);
    return report_finish();
}
