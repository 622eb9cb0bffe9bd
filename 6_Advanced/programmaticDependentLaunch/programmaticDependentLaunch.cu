/* programmaticDependentLaunch: a chain of N small kernels, each reading what
 * the one before wrote, launched plainly, with programmatic dependent launch
 * (PDL), and as CUDA graphs with and without programmatic edges; what each
 * way costs per kernel.
 *
 * What it teaches: on one stream kernel k+1 starts only after kernel k has
 * finished and its stores are visible, so each kernel of a chain pays its
 * launch, then its prologue (the setup that needs nothing from kernel k),
 * then its body, one after the other. With PDL (compute capability 9.0) the
 * launch says kernel k+1 may start early (the launch attribute
 * cudaLaunchAttributeProgrammaticStreamSerialization), kernel k says when
 * (cudaTriggerProgrammaticLaunchCompletion, or implicitly as its blocks
 * exit), and kernel k+1 says where it must wait for kernel k's results
 * (cudaGridDependencySynchronize): the launch and the prologue of k+1
 * overlap kernel k. Captured into a CUDA graph, PDL launches become
 * programmatic edges, so a replayed graph keeps the overlap.
 *
 * Build:  make -C 6_Advanced/programmaticDependentLaunch   (or `make programmaticDependentLaunch`)
 * Run:    bin/programmaticDependentLaunch              chains of 10, 100, 1000; prologue 0 and 1024
 *         bin/programmaticDependentLaunch --kernels=500 --prologue=4096 --n=4099
 *         bin/programmaticDependentLaunch --kernels=100 --body=1024   a long body to hide behind
 *         bin/programmaticDependentLaunch --variant=graph_pdl --reps=100
 *         bin/programmaticDependentLaunch --quick      chains of 10 and 50, for compute-sanitizer
 * Variants (one table below drives checks, timing and --help); the kernels
 * are one file per step under kernels/:
 *   stream       01_plain.cuh        <<<>>> launches on a stream: the reference
 *   pdl_sync     02_pdl_sync.cuh     + launch attribute, wait before the first read of x
 *   pdl_trigger  03_pdl_trigger.cuh  + trigger at the top: the next kernel may start at once
 *   graph        01_plain.cuh        the stream chain captured into a graph, replayed
 *   graph_pdl    03_pdl_trigger.cuh  the pdl_trigger chain captured: programmatic edges
 *   graph_pdl_nodes  03_pdl_trigger.cuh  the same graph built node by node, edges added by hand
 *
 * Measured: the whole chain between two CUDA events (median of --reps after
 * 3 warm-ups), divided by N: us_per_kernel, the time each kernel adds to
 * the chain, its launch gap included. Graph capture and instantiation are
 * done once, before timing, and not counted.
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

/* ---- CPU reference ------------------------------------------------------
 * pdl_chain.c: pdl_chain_cpu applies the steps in order on the host;
 * pdl_params and pdl_input give the seeded constants and input. */
#include "pdl_chain.h"

/* ---- kernels: one file per step ------------------------------------------ */
#include "kernels/00_step.cuh"
#include "kernels/01_plain.cuh"
#include "kernels/02_pdl_sync.cuh"
#include "kernels/03_pdl_trigger.cuh"

typedef void (*step_kernel)(unsigned int *, int, const unsigned int *, const unsigned int *, int,
                            int, int);

/* ---- launchers ----------------------------------------------------------- */

typedef struct {
    unsigned int *x;             /* the array every kernel updates in place (guarded) */
    int n, block, grid;
    const unsigned int *d_a, *d_b;   /* device: the constants of every step */
    int kernels, iters, body;    /* chain length, prologue length, body length */
    step_kernel kernel;          /* the step's kernel */
    int pdl;                     /* launch with programmatic stream serialization */
    cudaGraphExec_t exec;        /* what the graph variants replay */
} chain_ctx;

/* The chain as launches on a stream. Plain: <<<>>>. PDL: cudaLaunchKernelEx
 * with one attribute, programmaticStreamSerializationAllowed = 1, which lets
 * this kernel start before the previous kernel on the stream has finished
 * (it must then wait in cudaGridDependencySynchronize before reading what
 * that kernel wrote). Used as it is by the stream variants and, between
 * BeginCapture and EndCapture, to record the graphs. */
static void launch_chain(const chain_ctx *c, cudaStream_t s)
{
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t lc = {};
    lc.gridDim = dim3(c->grid);
    lc.blockDim = dim3(c->block);
    lc.dynamicSmemBytes = 0;
    lc.stream = s;
    lc.attrs = attr;
    lc.numAttrs = 1;
    for (int k = 0; k < c->kernels; k++) {
        if (c->pdl) {
            CUDA_CHECK(cudaLaunchKernelEx(&lc, c->kernel, c->x, c->n, c->d_a, c->d_b, k, c->iters,
                                          c->body));
        } else {
            c->kernel<<<c->grid, c->block, 0, s>>>(c->x, c->n, c->d_a, c->d_b, k, c->iters,
                                                   c->body);
            CHECK_LAUNCH();
        }
    }
}

static void run_stream(void *p, cudaStream_t s) { launch_chain((const chain_ctx *)p, s); }

/* The graph variants: one call replays the whole chain. */
static void run_graph(void *p, cudaStream_t s)
{
    CUDA_CHECK(cudaGraphLaunch(((const chain_ctx *)p)->exec, s));
}

/* The chain built node by node: N kernel nodes, then node k-1 -> node k
 * with edge data that makes the edge programmatic, from the port that
 * fires when every block of node k-1 has triggered (or exited). This is
 * what capturing PDL launches records; building it by hand is how a graph
 * that was not captured gets the same overlap. */
static cudaGraph_t build_chain_pdl(const chain_ctx *c)
{
    cudaGraph_t g;
    CUDA_CHECK(cudaGraphCreate(&g, 0));
    cudaGraphNode_t prev = NULL;
    for (int k = 0; k < c->kernels; k++) {
        unsigned int *x = c->x;
        int n = c->n, kk = k, iters = c->iters, body = c->body;
        const unsigned int *a = c->d_a, *b = c->d_b;
        void *args[7] = {&x, &n, &a, &b, &kk, &iters, &body};   /* copied when the node is added */
        cudaKernelNodeParams p = {};
        p.func = (void *)c->kernel;
        p.gridDim = dim3(c->grid);
        p.blockDim = dim3(c->block);
        p.kernelParams = args;
        cudaGraphNode_t node;
        CUDA_CHECK(cudaGraphAddKernelNode(&node, g, NULL, 0, &p));
        if (prev) {
            cudaGraphEdgeData e = {};
            e.type = cudaGraphDependencyTypeProgrammatic;
            e.from_port = cudaGraphKernelNodePortProgrammatic;
            CUDA_CHECK(cudaGraphAddDependencies(g, &prev, &node, &e, 1));
        }
        prev = node;
    }
    return g;
}

/* ---- variant table ------------------------------------------------------- */

enum { GRAPH_CAPTURE = 1, GRAPH_EXPLICIT = 2 };

typedef struct {
    const char *name;
    step_kernel kernel;
    int pdl;        /* launched with the PDL attribute */
    int graph;      /* 0: stream launches; GRAPH_CAPTURE or GRAPH_EXPLICIT, then replayed */
    const char *file;
    const char *what;
} variant;

static const variant variants[] = {
    {"stream", step_plain, 0, 0, "01_plain.cuh", "<<<>>> launches on a stream (reference)"},
    {"pdl_sync", step_pdl_sync, 1, 0, "02_pdl_sync.cuh",
     "PDL launch attribute; the kernel waits before its first read of x"},
    {"pdl_trigger", step_pdl_trigger, 1, 0, "03_pdl_trigger.cuh",
     "and triggers its successor's launch first thing"},
    {"graph", step_plain, 0, GRAPH_CAPTURE, "01_plain.cuh", "the stream chain captured into a graph, replayed"},
    {"graph_pdl", step_pdl_trigger, 1, GRAPH_CAPTURE, "03_pdl_trigger.cuh",
     "the pdl_trigger chain captured: programmatic edges, replayed"},
    {"graph_pdl_nodes", step_pdl_trigger, 1, GRAPH_EXPLICIT, "03_pdl_trigger.cuh",
     "the same graph built node by node, programmatic edges added by hand"},
};
#define N_VARIANTS ((int)(sizeof variants / sizeof variants[0]))

/* ---- options ------------------------------------------------------------- */

static long long opt_kernels = 0;
static long long opt_prologue = -1;
static long long opt_body = 1;
static long long opt_n = 1000;
static long long opt_block = 256;
static const char *opt_variant = "all";
static char variant_choices[256];
static char help_notes[1536];

static const opt_spec sample_opts[] = {
    OPT_INT_SPEC("kernels", "N", "chain length; 0 = the sweep 10, 100, 1000", &opt_kernels, 0,
                 10000),
    OPT_INT_SPEC("prologue", "ITERS",
                 "LCG steps of each kernel's prologue; -1 = both 0 and 1024", &opt_prologue, -1,
                 1 << 16),
    OPT_INT_SPEC("body", "STEPS",
                 "rounds of x = x * a + b in each kernel's body, after its wait", &opt_body, 1,
                 1 << 16),
    OPT_INT_SPEC("n", "N", "elements of the array every kernel updates", &opt_n, 1, 1LL << 24),
    OPT_INT_SPEC("block", "THREADS", "threads per block (multiple of 32)", &opt_block, 32, 1024),
    OPT_STRING_SPEC("variant", "NAME", "time one way (stream, the reference, always runs)",
                    &opt_variant, variant_choices),
};

static const opts_config cfg = {
    "programmaticDependentLaunch",
    "a chain of dependent small kernels: plain launches, PDL, graphs with programmatic edges",
    sample_opts, (int)(sizeof sample_opts / sizeof sample_opts[0]), help_notes, 0};

static void build_help_from_table(void)
{
    opts_join_choices(variant_choices, sizeof variant_choices, "all", &variants[0].name,
                      sizeof variants[0], N_VARIANTS);
    size_t h = (size_t)snprintf(help_notes, sizeof help_notes, "Variants (kernels/FILE):\n");
    for (int v = 0; v < N_VARIANTS; v++)
        h += (size_t)snprintf(help_notes + h, sizeof help_notes - h, "  %-16s %-19s %s\n",
                              variants[v].name, variants[v].file, variants[v].what);
    snprintf(help_notes + h, sizeof help_notes - h,
             "Kernel k of a chain runs its prologue (loads its two constants, then ITERS steps\n"
             "of an LCG: setup that needs nothing from kernel k-1), then its body: x = x * a_k\n"
             "+ b_k, --body times over, on the array kernel k-1 wrote. Every variant is\n"
             "checked exactly against the CPU before it is timed. There is no CPU baseline\n"
             "(--variant=cpu is refused).\n"
             "--quick: chains of 10 and 50 kernels, prologues 0 and 1024, 3 timed runs.");
}

/* ---- checks -------------------------------------------------------------- */

/* One checked run: x poisoned with its guard zone, reset from x0, the chain
 * run on s, x copied back into pinned host memory that was poisoned too,
 * then s synchronised and compared exactly with the CPU's chain. A kernel
 * that read x before kernel k-1's stores were visible computed from a stale
 * value: the bijective steps carry the error to the end. */
static int check_run(const char *what, timed_fn run, chain_ctx *c, const unsigned int *d_x0,
                     unsigned int *h_out, const unsigned int *h_want, cudaStream_t s)
{
    const size_t bytes = (size_t)c->n * sizeof(unsigned int);
    poison_guarded(c->x, bytes);   /* legacy stream; s is a blocking stream */
    CUDA_CHECK(cudaMemcpyAsync(c->x, d_x0, bytes, cudaMemcpyDeviceToDevice, s));
    run(c, s);
    poison_host(h_out, bytes);
    CUDA_CHECK(cudaMemcpyAsync(h_out, c->x, bytes, cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    size_t bad = check_exact_u32(what, h_out, h_want, (size_t)c->n);
    bad += check_guard(what, c->x, bytes);
    return bad == 0;
}

/* A captured chain must be N kernel nodes and N-1 edges, every edge of the
 * type the launches ask for: programmatic for PDL launches (the replayed
 * graph then overlaps kernels as the stream did), default for plain ones. */
static int check_graph(const char *what, cudaGraph_t g, int kernels, int pdl)
{
    size_t nn = 0, ne = 0;
    CUDA_CHECK(cudaGraphGetNodes(g, NULL, &nn));
    CUDA_CHECK(cudaGraphGetEdges(g, NULL, NULL, NULL, &ne));
    if (nn != (size_t)kernels || ne + 1 != (size_t)kernels) {
        fprintf(stderr, "programmaticDependentLaunch: %s: %zu nodes and %zu edges, want %d and %d\n",
                what, nn, ne, kernels, kernels - 1);
        return 0;
    }
    if (ne == 0) return 1;   /* the runtime refuses arrays with a count of 0 */
    cudaGraphNode_t *from = (cudaGraphNode_t *)malloc(ne * sizeof *from);
    cudaGraphNode_t *to = (cudaGraphNode_t *)malloc(ne * sizeof *to);
    cudaGraphEdgeData *ed = (cudaGraphEdgeData *)malloc(ne * sizeof *ed);
    if (!from || !to || !ed) {
        fprintf(stderr, "programmaticDependentLaunch: out of host memory\n");
        exit(1);
    }
    CUDA_CHECK(cudaGraphGetEdges(g, from, to, ed, &ne));
    const int want = pdl ? cudaGraphDependencyTypeProgrammatic : cudaGraphDependencyTypeDefault;
    size_t wrong = 0;
    for (size_t e = 0; e < ne; e++) wrong += ed[e].type != want;
    if (wrong)
        fprintf(stderr, "programmaticDependentLaunch: %s: %zu of %zu edges are not %s (edge 0: "
                "type %d, from port %d)\n", what, wrong, ne, pdl ? "programmatic" : "default",
                (int)ed[0].type, (int)ed[0].from_port);
    else if (pdl)
        report_note("%s: %zu programmatic edges (from port %d = %s)", what, ne,
                    (int)ed[0].from_port,
                    ed[0].from_port == cudaGraphKernelNodePortProgrammatic
                        ? "cudaGraphKernelNodePortProgrammatic: the trigger"
                        : "not the trigger's port");
    free(from);
    free(to);
    free(ed);
    return wrong == 0;
}

/* ---- main ---------------------------------------------------------------- */

static void fail_arg(const char *msg)
{
    fprintf(stderr, "programmaticDependentLaunch: error: %s\n", msg);
    printf("programmaticDependentLaunch: FAIL (bad argument)\n");
    exit(1);
}

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
    int sweep[3], prologues[2];
    const int n_sweep = pdl_sweep(opt_kernels, o.quick, sweep);
    const int n_prol = pdl_prologues(opt_prologue, prologues);
    const int max_k = sweep[n_sweep - 1];
    const int n = (int)opt_n;
    const size_t bytes = (size_t)n * sizeof(unsigned int);
    const int reps = (o.quick && o.reps == OPTS_DEFAULT_REPS) ? 3 : o.reps;

    report_init("programmaticDependentLaunch", o.json);
    device_info dev;
    device_setup_or_exit("programmaticDependentLaunch", o.device, o.json, &dev);
    if (dev.cc_major < 9) {
        char why[128];
        snprintf(why, sizeof why, "programmatic dependent launch needs compute capability 9.0, "
                 "this GPU has %d.%d", dev.cc_major, dev.cc_minor);
        device_waive("programmaticDependentLaunch", why);
    }

    unsigned int *h_a = (unsigned int *)malloc((size_t)max_k * sizeof(unsigned int));
    unsigned int *h_b = (unsigned int *)malloc((size_t)max_k * sizeof(unsigned int));
    unsigned int *h_x0 = (unsigned int *)malloc(bytes);
    unsigned int *h_want = (unsigned int *)malloc(bytes);
    if (!h_a || !h_b || !h_x0 || !h_want) {
        report_fail("out of host memory");
        return report_finish();
    }
    pdl_params(o.seed, max_k, h_a, h_b);
    pdl_input(o.seed, h_x0, (size_t)n);

    /* A blocking stream (not cudaStreamNonBlocking): the checks' cudaMemset
     * on the legacy stream is ordered with it. */
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s));
    unsigned int *d_x0, *d_a, *d_b, *h_out;
    CUDA_CHECK(cudaMalloc(&d_x0, bytes));
    CUDA_CHECK(cudaMalloc(&d_a, (size_t)max_k * sizeof(unsigned int)));
    CUDA_CHECK(cudaMalloc(&d_b, (size_t)max_k * sizeof(unsigned int)));
    CUDA_CHECK(cudaMemcpy(d_x0, h_x0, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_a, h_a, (size_t)max_k * sizeof(unsigned int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b, h_b, (size_t)max_k * sizeof(unsigned int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMallocHost(&h_out, bytes));

    chain_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.x = (unsigned int *)guarded_malloc(bytes);
    ctx.n = n;
    ctx.block = (int)opt_block;
    ctx.grid = (n + ctx.block - 1) / ctx.block;
    ctx.d_a = d_a;
    ctx.d_b = d_b;
    ctx.body = (int)opt_body;
    report_note("n=%d elements (%d blocks of %d), a body of %d round(s), chains of %d to %d "
                "kernels; time_ms = the whole chain between two events (median of %d), "
                "us_per_kernel = time_ms / N; graph capture and instantiation are not in time_ms",
                n, ctx.grid, ctx.block, ctx.body, sweep[0], max_k, reps);

    /* us_per_kernel of every variant, prologue and chain length (0: not
     * measured), for the closing note on how much of the prologue overlaps. */
    double us_at[2][3][N_VARIANTS];
    memset(us_at, 0, sizeof us_at);
    for (int pi = 0; pi < n_prol; pi++) {
        ctx.iters = prologues[pi];
        for (int si = 0; si < n_sweep; si++) {
            const int kernels = sweep[si];
            ctx.kernels = kernels;
            memcpy(h_want, h_x0, bytes);
            pdl_chain_cpu(h_want, (size_t)n, h_a, h_b, kernels, ctx.iters, ctx.body);

            /* Build and check every variant first; each keeps its own
             * context (its kernel, its launch setting, the graph it replays). */
            chain_ctx vctx[N_VARIANTS];
            cudaGraph_t graphs[N_VARIANTS];
            int ok[N_VARIANTS], chosen[N_VARIANTS];
            for (int v = 0; v < N_VARIANTS; v++) {
                const variant *var = &variants[v];
                graphs[v] = NULL;
                chosen[v] = opts_variant_runs(opt_variant, var->name, v == 0);
                if (!chosen[v]) continue;
                ctx.kernel = var->kernel;
                ctx.pdl = var->pdl;
                char what[128];
                snprintf(what, sizeof what, "%s(N=%d, prologue=%d)", var->name, kernels, ctx.iters);
                ok[v] = 1;
                cudaGraph_t g = NULL;
                ctx.exec = NULL;
                if (var->graph == GRAPH_CAPTURE) {
                    CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
                    launch_chain(&ctx, s);
                    CUDA_CHECK(cudaStreamEndCapture(s, &g));
                } else if (var->graph == GRAPH_EXPLICIT) {
                    g = build_chain_pdl(&ctx);
                }
                if (g) {
                    /* the edges the kernel was written for, not the ones the
                     * launch asked for: a kernel that waits for its
                     * predecessor (02, 03) belongs on programmatic edges */
                    ok[v] &= check_graph(what, g, kernels, var->kernel != step_plain);
                    CUDA_CHECK(cudaGraphInstantiate(&ctx.exec, g, 0));
                }
                ok[v] &= check_run(what, var->graph ? run_graph : run_stream, &ctx, d_x0, h_out,
                                   h_want, s);
                graphs[v] = g;
                vctx[v] = ctx;
            }

            /* The variants that passed, the stream chain with them, timed
             * round robin (common/timing.h): pct_ref is from the same run, at
             * the same clocks. */
            timed_variant group[N_VARIANTS];
            timing_stats times[N_VARIANTS];
            char ranges[N_VARIANTS][80];
            int slot[N_VARIANTS], n_group = 0;
            for (int v = 0; v < N_VARIANTS; v++) {
                slot[v] = -1;
                if (!chosen[v] || !ok[v]) continue;
                snprintf(ranges[v], sizeof ranges[v], "programmaticDependentLaunch/%s",
                         variants[v].name);
                /* with_launches: a chain's time includes the host's launches (timing.h) */
                group[n_group] = (timed_variant){variants[v].graph ? run_graph : run_stream,
                                                 &vctx[v], ranges[v], 0, NULL, 1};
                slot[v] = n_group++;
            }
            if (n_group > 0) {
                timing_cfg tc = timing_defaults(reps);
                tc.stream = s;
                time_gpu_group(group, n_group, &tc, times);
            }
            const double stream_us = slot[0] >= 0 ? times[slot[0]].median_ms * 1e3 / kernels : 0;

            for (int v = 0; v < N_VARIANTS; v++) {
                const variant *var = &variants[v];
                if (!chosen[v]) continue;
                result_rec r;
                rec_begin(&r, var->name);
                rec_int(&r, "kernels", kernels);
                rec_int(&r, "prologue", ctx.iters);
                rec_int(&r, "body", ctx.body);
                rec_int(&r, "n", n);
                if (!ok[v]) {
                    rec_str(&r, "status", "FAIL");
                    rec_emit(&r);
                } else {
                    const timing_stats *t = &times[slot[v]];
                    const double us = t->median_ms * 1e3 / kernels;
                    us_at[pi][si][v] = us;
                    rec_str(&r, "status", "PASS");
                    rec_num(&r, "time_ms", t->median_ms);
                    rec_num(&r, "us_per_kernel", us);
                    if (v != 0 && stream_us > 0) {
                        rec_str(&r, "ref", "stream");
                        rec_num(&r, "pct_ref", 100.0 * stream_us / us);
                        rec_num(&r, "saved_us_per_kernel", stream_us - us);
                    }
                    rec_num(&r, "min_ms", t->min_ms);
                    timing_rec_clocks(&r, t);
                    rec_emit(&r);
                }
                if (vctx[v].exec) CUDA_CHECK(cudaGraphExecDestroy(vctx[v].exec));
                if (graphs[v]) CUDA_CHECK(cudaGraphDestroy(graphs[v]));
            }
        }
    }

    /* Where the overlap shows: what the longer prologue adds per kernel to
     * each variant, against what it adds to the stream chain (where nothing
     * overlaps it), at the longest chain. */
    if (n_prol == 2 && us_at[0][n_sweep - 1][0] > 0 && us_at[1][n_sweep - 1][0] > 0) {
        const double *lo = us_at[0][n_sweep - 1], *hi = us_at[1][n_sweep - 1];
        const double added_stream = hi[0] - lo[0];
        report_note("N=%d: the prologue of %d LCG steps adds %.3g us per kernel to stream "
                    "(nothing overlaps it there)", max_k, prologues[1], added_stream);
        for (int v = 1; v < N_VARIANTS; v++)
            if (lo[v] > 0 && hi[v] > 0 && added_stream > 0)
                report_note("N=%d: it adds %.3g us per kernel to %s: %.0f%% of it hidden behind "
                            "the kernel before", max_k, hi[v] - lo[v], variants[v].name,
                            100.0 * (1.0 - (hi[v] - lo[v]) / added_stream));
    }

    CUDA_CHECK(cudaStreamDestroy(s));
    guarded_free(ctx.x);
    CUDA_CHECK(cudaFree(d_x0));
    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFreeHost(h_out));
    free(h_a);
    free(h_b);
    free(h_x0);
    free(h_want);
    return report_finish();
}
