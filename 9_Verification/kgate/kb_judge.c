/* kb_judge.c: the judge of one KernelBench pair (kbgate.c's steps 2 and 3,
 * its header says how): the reference's and the candidate's runners driven
 * command by command, KernelBench's trials compared slice by slice, and the
 * judge's clock (timed batches, digests, the allowance and the charge).
 * Every reply of the candidate's runner is a claim: parsed as hostile text
 * (kb_core.c), checked against the reference's, never trusted for a time. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kg_report.h"
#include "kb_internal.h"

typedef struct {
    kb_runner *r;
    char err[300];
    int stage_err;             /* the runner answered ERR (its message in err) */
    int timed_out;             /* no answer before the command's deadline */
    int second;                /* PREP at the problem's second sizes (kgate_second_shape) */
    double timeout_s;
    char stage[16];
} kb_side;

/* A command and its reply; -1 on a protocol failure or an ERR reply (err says which). */
static int kb_do(kb_side *s, double timeout, kb_reply *rep, char **data, long long max_bytes, const char *fmt, ...)
{
    char line[KB_LINE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    s->stage_err = s->timed_out = 0;
    s->timeout_s = timeout;
    if (kb_send(s->r, "%s", line) != 0) { snprintf(s->err, sizeof s->err, "the runner is gone (its command pipe closed)"); return -1; }
    errno = 0;
    if (kb_recv(s->r, kg_now() + timeout, rep, data, max_bytes, s->err, sizeof s->err) != 0) {
        if (errno == ETIMEDOUT) {
            s->timed_out = 1;
            s->r->hung = 1;
            snprintf(s->err, sizeof s->err, "no answer within %.0f s (a hang, or too slow to judge)", timeout);
        }
        return -1;
    }
    if (!rep->ok) {
        s->stage_err = 1;
        snprintf(s->stage, sizeof s->stage, "%.15s", kb_field(rep, "stage") ? kb_field(rep, "stage") : "?");
        char m[320];
        kg_text_escape(rep->msg, 300, m, sizeof m);
        snprintf(s->err, sizeof s->err, "%.290s", m);
        if (data && *data) { free(*data); *data = NULL; }
        return -1;
    }
    return 0;
}

static unsigned long long kb_rng_state;

void kb_seed(unsigned long long seed)
{
    kb_rng_state = seed * 0x2545F4914F6CDD1Dull + 1;
}

static unsigned long long kb_rand(void)
{
    unsigned long long z = (kb_rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (z ^ (z >> 31)) & ((1ull << 62) - 1);
}

/* An output as SHOW describes it: dtype, shape, its size in bytes. */
typedef struct {
    int dtype;
    kb_shape shape;
    long long nbytes;
} kb_meta;

/* The slice size outputs are compared by: KB_CHUNK, or KGATE_KB_CHUNK=BYTES
 * (1 to KB_MAX_BYTES; for the tests, whose outputs are a few KB: a small
 * slice makes one span several). */
static long long kb_chunk(void)
{
    const char *e = getenv("KGATE_KB_CHUNK");
    char *end;
    long long c = e && *e ? strtoll(e, &end, 10) : 0;
    return e && *e && !*end && c >= 1 && c <= (long long)KB_MAX_BYTES ? c : KB_CHUNK;
}

/* SHOW k=K off=OFF len=LEN: bytes [off, off + len) of call k's output (len
 * 0: its description only; k < 0: the output KEEP kept as number -k - 1).
 * want_dt >= 0: the dtype the runner must find (the candidate's, the
 * reference's dtype). The reply's dtype, shape and
 * total must agree with one another, with `same` (the description this
 * output had before: a runner's answers about one output never change) and
 * its bytes be exactly the slice; else a protocol violation. data: the
 * slice (the caller frees it). */
static int kb_show(kb_side *s, int k, int want_dt, long long off, long long len, const kb_meta *same, kb_meta *m,
                   char **data)
{
    kb_reply rep;
    char dt[40] = "";
    long long total;
    if (want_dt >= 0) snprintf(dt, sizeof dt, " dtype=%s", kb_dtype_name(want_dt));
    /* 10 s, and the bytes at 50 MB/s at least (a pipe moves GB/s) */
    double timeout = 10 + (double)len / 50e6;
    char which[32];
    snprintf(which, sizeof which, k < 0 ? "kept=%d" : "k=%d", k < 0 ? -k - 1 : k);
    if (kb_do(s, timeout, &rep, data, len, "SHOW %s%s off=%lld len=%lld", which, dt, off, len) != 0) return -1;
    m->dtype = kb_dtype_parse(kb_field(&rep, "dtype") ? kb_field(&rep, "dtype") : "");
    if (m->dtype < 0 || kb_shape_parse(kb_field(&rep, "shape"), &m->shape) != 0 ||
        kb_field_ll(&rep, "total", 0, 1LL << 50, &total) != 0 ||
        (long long)kb_dtype_size(m->dtype) * m->shape.numel != total) {
        snprintf(s->err, sizeof s->err, "SHOW: its dtype, shape and bytes do not agree");
    } else if (same && (m->dtype != same->dtype || !kb_shape_equal(&m->shape, &same->shape) || total != same->nbytes)) {
        char a[120], b[120];
        kb_shape_str(&same->shape, a, sizeof a);
        kb_shape_str(&m->shape, b, sizeof b);
        snprintf(s->err, sizeof s->err, "SHOW: the output changed between its slices (%s %.60s, %lld bytes; at "
                 "byte %lld: %s %.60s, %lld bytes)", kb_dtype_name(same->dtype), a, same->nbytes, off,
                 kb_dtype_name(m->dtype), b, total);
    } else if (rep.nbytes != len || (len && !*data)) {
        snprintf(s->err, sizeof s->err, "SHOW: %lld bytes for a slice of %lld", rep.nbytes, len);
    } else {
        m->nbytes = total;
        return 0;
    }
    free(*data);
    *data = NULL;
    return -1;
}

/* Compare the candidate's output of call kc with the reference's of call kr,
 * both still held by their runners, slice by slice (the gate holds two
 * slices, never a whole output): shapes and dtypes equal, then KernelBench's
 * allclose on every element. 0 equal, 1 not (the reason in why), -1 the
 * reference's runner failed (ref->err), -2 the candidate's (cand->err). */
static int kb_compare(kb_side *ref, int kr, kb_side *cand, int kc, const char *where, char *why, size_t len)
{
    kb_meta rm, cm, m;
    char *rd = NULL, *cd = NULL;
    if (kb_show(ref, kr, -1, 0, 0, NULL, &rm, &rd) != 0) return -1;
    free(rd);
    if (kb_show(cand, kc, rm.dtype, 0, 0, NULL, &cm, &cd) != 0) return -2;
    free(cd);
    char a[120], b[120];
    kb_shape_str(&rm.shape, a, sizeof a);
    kb_shape_str(&cm.shape, b, sizeof b);
    if (!kb_shape_equal(&rm.shape, &cm.shape)) {
        snprintf(why, len, "%s: output shape %s, the reference's %s", where, b, a);
        return 1;
    }
    if (rm.dtype != cm.dtype) {
        snprintf(why, len, "%s: output dtype %s, the reference's %s", where, kb_dtype_name(cm.dtype),
                 kb_dtype_name(rm.dtype));
        return 1;
    }
    size_t es = kb_dtype_size(rm.dtype);
    long long step = kb_slice_bytes(kb_chunk(), es);
    double tol = kb_tolerance(rm.dtype);
    kb_cmp c;
    kb_cmp_init(&c);
    for (long long off = 0; off < rm.nbytes; off += step) {
        long long n = rm.nbytes - off < step ? rm.nbytes - off : step;
        if (kb_show(ref, kr, -1, off, n, &rm, &m, &rd) != 0) return -1;
        if (kb_show(cand, kc, rm.dtype, off, n, &cm, &m, &cd) != 0) { free(rd); return -2; }
        kb_allclose_slice(&c, rd, cd, rm.dtype, n / (long long)es, off / (long long)es, tol);
        free(rd);
        free(cd);
    }
    if (!c.bad) return 0;
    snprintf(why, len, "%s: %lld of %lld elements differ (allclose atol=rtol=%g); first: element %lld: expected %.6g got %.6g",
             where, c.bad, rm.shape.numel, tol, c.first, c.want, c.got);
    return 1;
}

/* One call on one input set (a correctness trial, or a checked call's
 * seed again): its output stays in the runner for kb_compare. */
static int kb_trial(kb_side *s, unsigned long long seed, long long poison, double timeout, long long *inbytes)
{
    kb_reply rep;
    if (kb_do(s, 120, &rep, NULL, 0, "PREP seeds=%llu%s", seed, s->second ? " second=1" : "") != 0) return -1;
    if (inbytes && kb_field_ll(&rep, "inbytes", 0, 1LL << 42, inbytes) != 0) {
        snprintf(s->err, sizeof s->err, "PREP: no inbytes= the gate accepts");
        return -1;
    }
    return kb_do(s, timeout, &rep, NULL, 0, "RUN poison=%lld", poison);
}

/* DIGEST: every call's output dotted with the seed's random vector (abs: of
 * its magnitudes). out: k doubles, or NULL. */
static int kb_digests(kb_side *s, int k, unsigned long long seed, int abs_, double timeout, double *out)
{
    kb_reply rep;
    char *d = NULL;
    if (kb_do(s, timeout, &rep, &d, (long long)k * 8, "DIGEST seed=%llu%s", seed, abs_ ? " abs=1" : "") != 0) return -1;
    if (!d || rep.nbytes != (long long)k * 8) {
        free(d);
        snprintf(s->err, sizeof s->err, "DIGEST: %lld bytes, %d expected", rep.nbytes, k * 8);
        return -1;
    }
    if (out) memcpy(out, d, (size_t)k * 8);
    free(d);
    return 0;
}

/* A candidate's digest against the reference's: within what KernelBench's
 * allclose allows every element (tol times the magnitudes, the vector's
 * weights are below 1), plus float32 rounding of the dot products. */
static int kb_digest_close(double ref, double ref_abs, double got, double tol, long long numel)
{
    if (!isfinite(ref) || !isfinite(got)) return ref == got;
    double bound = tol * (2.0 * ref_abs + 0.5 * (double)numel) * 1.01 + 1e-5 * (ref_abs + fabs(ref)) + 1e-30;
    return fabs(got - ref) <= bound;
}

/* The digest of the trial's inputs after the call (INSUM): sums and sums of
 * squares, float64. 0, or -1 (the runner failed). */
static int kb_insum(kb_side *s, char *buf, size_t len)
{
    kb_reply rep;
    if (kb_do(s, 60, &rep, NULL, 0, "INSUM") != 0) return -1;
    snprintf(buf, len, "%s", kb_field(&rep, "sums") ? kb_field(&rep, "sums") : "");
    return 0;
}

/* Two digests agree: the same number of inputs, each sum within 1e-9 relative. */
static int kb_insum_equal(const char *a, const char *b)
{
    for (;;) {
        char *ea, *eb;
        double x = strtod(a, &ea), y = strtod(b, &eb);
        if (ea == a || eb == b) return *a == *b;
        if (!(fabs(x - y) <= 1e-9 * (fabs(x) + fabs(y)) + 1e-300 || x == y)) return 0;
        a = ea + (*ea == ':' || *ea == ',');
        b = eb + (*eb == ':' || *eb == ',');
        if (!*a || !*b) return !*a && !*b;
    }
}

/* The GPU's memory as the probe saw it (bytes; 0: not known; kbgate.c sets it). */
long long kb_gpu_mem;

/* What one runner's timed batch may hold in inputs and outputs: 8 GiB, or a
 * sixteenth of the GPU's memory on a smaller one (each runner holds about
 * twice that while PREP makes the next inputs, and two runners are alive),
 * 2 GiB when the probe did not say. */
static long long kb_batch_bytes(void)
{
    const char *e = getenv("KGATE_KB_BATCH_BYTES");   /* the tests' smaller cap */
    if (e && atoll(e) > 0) return atoll(e);
    long long cap = kb_gpu_mem > 0 ? kb_gpu_mem / 16 : (2LL << 30);
    return cap > (8LL << 30) ? (8LL << 30) : cap;
}

/* A timed batch: PREP off the clock (its time returned in *prep_ms; seeds
 * NULL: none), then RUN (null: RUN null=1, the null calls) and DIGEST on
 * the clock. digests: K doubles (NULL: not kept). */
static int kb_batch(kb_side *s, const unsigned long long *seeds, int k, int null, unsigned long long dseed,
                    double timeout, double *prep_ms, double *interval_ms, double *digests)
{
    char list[KB_MAX_CALLS * 21 + 8];
    size_t l = 0;
    list[0] = 0;
    for (int i = 0; i < k && seeds; i++) l += (size_t)snprintf(list + l, sizeof list - l, "%s%llu", i ? "," : "", seeds[i]);
    kb_reply rep;
    double t0 = kg_now();
    if (seeds && kb_do(s, 120, &rep, NULL, 0, "PREP seeds=%s", list) != 0) return -1;
    double t1 = kg_now();
    if (kb_do(s, timeout, &rep, NULL, 0, "RUN%s", null ? " null=1" : "") != 0) return -1;
    if (kb_digests(s, k, dseed, 0, timeout, digests) != 0) return -1;
    double t2 = kg_now();
    if (prep_ms) *prep_ms = (t1 - t0) * 1e3;
    *interval_ms = (t2 - t1) * 1e3;
    return 0;
}

/* The least interval of n timed batches of k calls on fresh inputs (the
 * batches that size K); 0, or -1 (the runner failed). */
static int kb_least_batch(kb_side *s, int k, int n, double timeout, double *ms)
{
    unsigned long long sk[KB_MAX_CALLS];
    *ms = INFINITY;
    for (int w = 0; w < n; w++) {
        double iv;
        for (int i = 0; i < k; i++) sk[i] = kb_rand();
        if (kb_batch(s, sk, k, 0, kb_rand(), timeout, NULL, &iv, NULL) != 0) return -1;
        if (iv < *ms) *ms = iv;
    }
    return 0;
}

/* The clock's allowance in a runner: the least of n null batches of k
 * calls (CAL: null outputs of the real output's size and dtype; keep: the
 * buffers KEEP copies the checked calls into, made now); each: every null
 * batch's interval (NULL: not kept); prep (NULL: none): each null batch
 * prepares k input sets first (fresh seeds; the runner imports the problem
 * for them), and prep[c] is how long each took.
 * 0, or -1 (the runner failed). */
static int kb_allowance(kb_side *s, int k, int n, int keep, const kb_meta *out, double timeout, double *ms,
                        double *each, double *prep)
{
    unsigned long long seeds[KB_MAX_CALLS];
    kb_reply rep;
    if (kb_do(s, 60, &rep, NULL, 0, "CAL n=%d numel=%lld dtype=%s keep=%d%s", k, out->shape.numel,
              kb_dtype_name(out->dtype), keep, prep ? " problem=/scratch/problem.py" : "") != 0)
        return -1;
    *ms = INFINITY;
    for (int c = 0; c < n; c++) {
        double iv;
        for (int i = 0; prep && i < k; i++) seeds[i] = kb_rand();
        if (kb_batch(s, prep ? seeds : NULL, k, 1, kb_rand(), timeout, prep ? &prep[c] : NULL, &iv, NULL) != 0)
            return -1;
        if (iv < *ms) *ms = iv;
        if (each) each[c] = iv;
    }
    return 0;
}

/* KernelBench's own figure (for information; its cuda_event method, an L2
 * flush before each call): its 104 calls may take up to 5 times the
 * reference's time each, plus 10 s. -1 when it did not come. */
static double kb_kbtime(kb_side *s, double ref_ms)
{
    kb_reply rep;
    double ms, timeout = 10 + (isfinite(ref_ms) ? 104 * 5 * ref_ms / 1e3 : 60);
    if (kb_do(s, timeout, &rep, NULL, 0, "KBTIME warmup=3 trials=100") != 0 || kb_field_ms(&rep, "mean_ms", &ms) != 0)
        return -1;
    return ms;
}

/* The verdict of a runner's failure: the candidate's (L2 run, L3 output) or,
 * for the reference, the gate's (SKIPPED). */
static void kb_fail(kb_result *res, const kb_side *s, int is_cand, const char *what)
{
    if (!is_cand) {
        res->verdict = KG_V_SKIPPED;
        res->skipped_gate = 1;
        snprintf(res->reason, sizeof res->reason, "gate: the reference (the problem's Model) failed at %s: %s", what, s->err);
        return;
    }
    res->verdict = s->stage_err && !strcmp(s->stage, "output") ? KG_V_L3 : KG_V_L2;
    snprintf(res->reason, sizeof res->reason, "%s: %s%s", what, s->stage_err || s->timed_out ? "" : "protocol violation: ",
             s->err);
}

/* Steps 2 and 3 for one pair (the build has run; res has no verdict yet). */
void kb_judge(kg_gate *g, kb_result *res, kb_ref *rs, kb_runner *cr)
{
    kb_side ref = {.r = &rs->r}, cand = {.r = cr};
    kb_reply rep;
    double tmo = g->o->timeout;
    enum { NT = KB_TRIALS + KB_TRIALS2 };
    unsigned long long tseed[NT];
    for (int t = 0; t < NT; t++) tseed[t] = kb_rand();
    kb_meta like[2];           /* the reference's output at the problem's sizes and its second ones */
    memset(like, 0, sizeof like);
    int n_tr = KB_TRIALS;
    static double dig_r[KB_BATCHES][KB_MAX_CALLS], abs_r[KB_BATCHES][KB_MAX_CALLS], dig_c[KB_MAX_CALLS];
    unsigned long long seeds[KB_BATCHES][KB_MAX_CALLS], sseed[KB_BATCHES];
    double prep_r[KB_BATCHES], int_r[KB_BATCHES], prep_c, int_c;

    /* the candidate's runner has its context before the reference is timed: its
     * start-up (PyTorch's import, CUDA's context) overlaps no timed batch; none
     * of the candidate's code has run in it yet (that is LOAD, later) */
    if (kb_do(&cand, 180, &rep, NULL, 0, "HELLO") != 0) {
        /* the machine's problem (no GPU, PyTorch broken), never the candidate's: none of its code ran there */
        res->verdict = KG_V_SKIPPED;
        res->skipped_gate = 1;
        snprintf(res->reason, sizeof res->reason, "gate: the candidate's runner failed at start, before "
                 "loading the candidate: %s", cand.err);
        return;
    }
    /* the reference: its model once per runner (the problem's first candidate
     * that gets here), then for every candidate its outputs on this
     * candidate's trial inputs and its batches (fresh seeds, timed now) */
    if (!rs->loaded) {
        if (kb_do(&ref, 180, &rep, NULL, 0, "HELLO") != 0) { kb_fail(res, &ref, 0, "start"); return; }
        static int said;
        if (!said++) {   /* once: what the runners run on (the reference's word: trusted code) */
            char t[200], d[200];
            kg_text_escape(kb_field(&rep, "torch") ? kb_field(&rep, "torch") : "?", 60, t, sizeof t);
            kg_text_escape(kb_field(&rep, "device") ? kb_field(&rep, "device") : "?", 60, d, sizeof d);
            printf("# kernelbench: the runners: PyTorch %s on %s\n", t, d);
        }
        rs->init_seed = kb_rand();
        if (kb_do(&ref, 300, &rep, NULL, 0, "LOAD problem=/scratch/problem.py seed=%llu", rs->init_seed) != 0) {
            kb_fail(res, &ref, 0, "load");
            return;
        }
        long long second = 0;
        rs->second = kb_field_ll(&rep, "second", 0, 1, &second) == 0 && second;
        rs->loaded = 1;
    }
    unsigned long long init_seed = rs->init_seed;
    if (rs->second) n_tr += KB_TRIALS2;
    /* what the candidate's runner is told before its trials (the poison's
     * size, the dtype its output must have) and the batch length rest on:
     * the reference's output described, at each of the problem's sizes (its
     * values are compared in the trials, both runners holding theirs) */
    long long inbytes = 0;
    for (int z = 0; z < 1 + rs->second; z++) {
        kb_meta m;
        char *none = NULL;
        ref.second = z;
        if (kb_trial(&ref, tseed[z ? KB_TRIALS : 0], 0, tmo, z ? NULL : &inbytes) != 0 ||
            kb_show(&ref, 0, -1, 0, 0, NULL, &m, &none) != 0) {
            kb_fail(res, &ref, 0, "a correctness trial");
            return;
        }
        free(none);
        like[z] = m;
    }
    ref.second = 0;
    /* the batch length: about 8 ms of the reference's work (a host's jitter of
     * a tenth of a millisecond stays about 1% of it), at least 4 calls, within
     * the batch's memory (kb_batch_bytes) of inputs and outputs; one call's
     * time net of a batch's fixed cost (the least of two batches of one call,
     * less the least of three null ones), then looked at again below */
    double one, null1;
    /* the timed sections (the reference's, the candidate's null batches, its
     * timed ones) run with every build held (kbgate.c says why); kb_gpu_part
     * lets them go whichever way this returns */
    int hold = !g->o->no_timing;
    if (hold) kb_builds_hold(1);
    if (kb_least_batch(&ref, 1, 2, tmo, &one) != 0) { kb_fail(res, &ref, 0, "a call"); return; }
    if (kb_allowance(&ref, 1, 3, 0, &like[0], tmo, &null1, NULL, NULL) != 0) { kb_fail(res, &ref, 0, "calibration"); return; }
    long long per = inbytes + like[0].nbytes, cap = kb_batch_bytes();
    int k = kb_batch_calls(one, null1, per, cap);
    res->one_ms = one;
    res->null1_ms = null1;
    /* a second look, at k calls: the batch of one holds the batch's first-call
     * cost as well as the call (measured, its parts not separated: the host's
     * first launch, a GPU out of idle, perhaps more),
     * which sized the corpus's batches on the H200 at 1.6 to 5.5 ms of the
     * reference's work, not 8 (conv2d_relu_scale's at 9 calls: a batch of one
     * took 0.96 ms net, a call in a batch 0.15 to 0.18). From the two, a
     * call's own time (kb_call_ms) sizes the batches */
    if (k > 1) {
        double ivk, nullk;
        if (kb_least_batch(&ref, k, 2, tmo, &ivk) != 0) { kb_fail(res, &ref, 0, "a batch"); return; }
        if (kb_allowance(&ref, k, 2, 0, &like[0], tmo, &nullk, NULL, NULL) != 0) {
            kb_fail(res, &ref, 0, "calibration");
            return;
        }
        res->probe_calls = k;
        res->probe_ms = ivk;
        res->probe_null_ms = nullk;
        k = kb_batch_calls(kb_call_ms(one - null1, ivk - nullk, k), 0, per, cap);
    }
    res->calls = k;
    if (kb_allowance(&ref, k, KB_CAL, 0, &like[0], tmo, &res->allow_r_ms, res->null_r_ms, NULL) != 0) {
        kb_fail(res, &ref, 0, "calibration");
        return;
    }
    res->ref_ms = INFINITY;
    for (int b = 0; b < KB_BATCHES; b++) {
        for (int i = 0; i < k; i++) seeds[b][i] = kb_rand();
        sseed[b] = kb_rand();
        if (kb_batch(&ref, seeds[b], k, 0, sseed[b], tmo, &prep_r[b], &int_r[b], dig_r[b]) != 0 ||
            kb_digests(&ref, k, sseed[b], 1, tmo, abs_r[b]) != 0) {   /* the magnitudes, off the clock */
            kb_fail(res, &ref, 0, "a timed batch");
            return;
        }
        double ms = kb_batch_ms(int_r[b], res->allow_r_ms, 0, k);
        if (b >= KB_WARMUP && ms < res->ref_ms) res->ref_ms = ms;
        res->int_r_ms[b] = int_r[b];
        res->bprep_r_ms[b] = prep_r[b];
    }
    res->kb_ref_ms = kb_kbtime(&ref, 4 * res->ref_ms);
    kb_builds_hold(0);

    /* the candidate: before any of its code is loaded, the allowance, how
     * long its runner takes to prepare a batch's inputs (one of the charge's
     * two bases, below: the median of the null batches after the first two,
     * whose preparations grow PyTorch's memory pool), and the buffers its
     * checked calls are copied into (when they all fit the batch's memory:
     * otherwise each is compared at once). The reference's preparation alone
     * is not enough: on the H200 one problem's reference prepared a batch in
     * 2.4 ms and the candidate's runner, with no candidate code in PREP, in
     * 4.5 ms, every batch */
    int defer = (long long)KB_CHECKED * like[0].nbytes <= cap;
    if (hold) kb_builds_hold(1);
    if (kb_allowance(&cand, k, KB_CAL, defer ? KB_CHECKED : 0, &like[0], tmo, &res->allow_c_ms, res->null_c_ms,
                     res->prep_null_c_ms) != 0) {
        kb_fail(res, &cand, 1, "calibration");
        return;
    }
    double base[KB_CAL];
    memcpy(base, res->prep_null_c_ms + 2, (KB_CAL - 2) * sizeof base[0]);
    res->prep_base_ms = kb_median(base, KB_CAL - 2);
    /* the candidate's allowance is never above the reference's runner's: both
     * null, both before any of the candidate's code ran; on the H200 a fresh
     * candidate's runner took 0.69 ms for the null batch the reference's took
     * in 0.44 (mean_dim, 16 calls: 0.015 ms a call, 12% of its figure) */
    if (res->allow_r_ms < res->allow_c_ms) res->allow_c_ms = res->allow_r_ms;
    kb_builds_hold(0);
    if (kb_do(&cand, 300, &rep, NULL, 0, "LOAD problem=/scratch/problem.py cand=/scratch/cand.py ext=/scratch/ext seed=%llu",
              init_seed) != 0) {
        kb_fail(res, &cand, 1, "load");
        return;
    }
    /* KernelBench's 5 trials, both orders (even trials run the reference
     * first, odd ones the candidate), then 2 at the problem's second sizes;
     * each compared while both runners hold their outputs; after each call
     * the inputs must be as the reference's are after its call */
    for (int t = 0; t < n_tr; t++) {
        char rsum[512], csum[512], what[80], why[500];
        cand.second = ref.second = t >= KB_TRIALS;
        snprintf(what, sizeof what, "trial %d%s", t + 1, t >= KB_TRIALS ? " (the problem's second sizes)" : "");
        for (int side = 0; side < 2; side++) {
            if ((side == t % 2) && (kb_trial(&ref, tseed[t], 0, tmo, NULL) != 0 || kb_insum(&ref, rsum, sizeof rsum) != 0)) {
                kb_fail(res, &ref, 0, "a correctness trial");
                return;
            }
            if ((side != t % 2) && (kb_trial(&cand, tseed[t], like[ref.second].nbytes, tmo, NULL) != 0 ||
                                    kb_insum(&cand, csum, sizeof csum) != 0)) {
                kb_fail(res, &cand, 1, what);
                return;
            }
        }
        int bad = kb_compare(&ref, 0, &cand, 0, what, why, sizeof why);
        if (bad < 0) {
            kb_fail(res, bad == -1 ? &ref : &cand, bad == -2, bad == -1 ? "a correctness trial" : what);
            return;
        }
        if (bad) {
            res->verdict = KG_V_L3;
            snprintf(res->reason, sizeof res->reason, "wrong result: %s", why);
            return;
        }
        if (!kb_insum_equal(rsum, csum)) {
            char a[200], b[200];
            kg_text_escape(csum, 90, a, sizeof a);
            kg_text_escape(rsum, 90, b, sizeof b);
            res->verdict = KG_V_L2;
            snprintf(res->reason, sizeof res->reason, "%s: the call changed its inputs (their sums and sums of "
                     "squares after the call: %s; the reference's: %s)", what, a, b);
            return;
        }
        if (t == KB_TRIALS - 1) res->correct = 1;   /* KernelBench's own check passed */
    }
    cand.second = ref.second = 0;
    if (g->o->no_timing) { res->verdict = KG_V_PASS; return; }

    /* the candidate's batches: the same inputs, its digests against the reference's.
     * They run back to back, as the reference's did: each batch's checked call
     * is copied (KEEP, into a buffer CAL made) and compared after the last one.
     * A GPU left idle while a call is compared (a fraction of a second) is
     * slower in the next batch: on the H200, a batch of about 1 ms took 10%
     * (relu) and 36% (sum_dim) longer after half a second idle, by the
     * medians. Where the kept calls would not fit the batch's memory, each is
     * compared at once. */
    res->cand_ms = INFINITY;
    double tol = kb_tolerance(like[0].dtype);
    kb_builds_hold(1);
    /* the batches whose drawn call is compared whole: KB_CHECKED of them,
     * drawn now (the candidate learns which only when it is asked to KEEP) */
    int jsel[KB_BATCHES], checked[KB_BATCHES], order[KB_BATCHES], kept_of[KB_CHECKED], n_kept = 0;
    for (int b = 0; b < KB_BATCHES; b++) order[b] = b;
    for (int b = 0; b < KB_BATCHES; b++) {   /* a Fisher-Yates shuffle; its first KB_CHECKED */
        int j = b + (int)(kb_rand() % (unsigned)(KB_BATCHES - b)), t = order[b];
        order[b] = order[j];
        order[j] = t;
    }
    for (int b = 0; b < KB_BATCHES; b++) checked[order[b]] = b < KB_CHECKED;
    for (int b = 0; b < KB_BATCHES; b++) {
        if (kb_batch(&cand, seeds[b], k, 0, sseed[b], tmo, &prep_c, &int_c, dig_c) != 0) {
            char what[40];
            snprintf(what, sizeof what, "timed batch %d", b + 1);
            kb_fail(res, &cand, 1, what);
            return;
        }
        int off = -1, n_off = 0;
        for (int i = 0; i < k; i++)
            if (!kb_digest_close(dig_r[b][i], abs_r[b][i], dig_c[i], tol, like[0].shape.numel)) {
                if (off < 0) off = i;
                n_off++;
            }
        if (off >= 0) {
            res->verdict = KG_V_L3;
            snprintf(res->reason, sizeof res->reason, "batch %d: at its answer, the outputs of %d of its %d calls "
                     "were not the reference's (call %d: a weighted sum of every element %.9g, the reference's "
                     "%.9g): work not finished by its answer, or calls skipped", b + 1, n_off, k, off + 1,
                     dig_c[off], dig_r[b][off]);
            return;
        }
        res->int_c_ms[b] = int_c;
        res->bprep_c_ms[b] = prep_c;
        /* the base: the larger of the runner's own preparation before the
         * candidate's code was loaded and the reference's of the same inputs
         * in the same place. On the H200 honest candidates' runners prepared
         * their timed batches in 0.67 to 1.79 times what they took before
         * (why, we have not found: the null batches leave the GPU idle, the
         * timed ones do not); rmsnorm's candidate runner took 6.9 ms before
         * its code was loaded and 9.5 to 11 ms after, its reference's 10 to
         * 15 ms, and its figure charged for that was 0.69 of KernelBench's */
        double charge = kb_charge(prep_c, res->prep_base_ms, prep_r[b]);
        double ms = kb_batch_ms(int_c, res->allow_c_ms, charge, k);
        if (b >= KB_WARMUP && ms < res->cand_ms) {
            res->cand_ms = ms;
            res->charge_ms = charge;
            res->prep_c_ms = prep_c;
            res->prep_rb_ms = prep_r[b];
        }
        /* a checked batch: one of its calls, drawn now, compared whole (off
         * the clock): the candidate holds its output (kept, or the batch's);
         * the reference makes that call's again, and the two are compared
         * slice by slice */
        jsel[b] = (int)(kb_rand() % (unsigned)k);
        if (checked[b] && defer) {
            if (kb_do(&cand, 60, &rep, NULL, 0, "KEEP k=%d dtype=%s", jsel[b], kb_dtype_name(like[0].dtype)) != 0) {
                kb_fail(res, &cand, 1, "KEEP");
                return;
            }
            kept_of[n_kept++] = b;
        }
        /* the checked calls compared now: this batch's, or (defer) all kept ones after the last batch */
        int now[KB_BATCHES], n_now = 0;
        if (!defer && checked[b]) now[n_now++] = b;
        for (int x = 0; defer && b == KB_BATCHES - 1 && x < n_kept; x++) now[n_now++] = kept_of[x];
        for (int x = 0; x < n_now; x++) {
            int c = now[x];
            if (kb_trial(&ref, seeds[c][jsel[c]], 0, tmo, NULL) != 0) { kb_fail(res, &ref, 0, "a checked call"); return; }
            char where[60], why[500];
            snprintf(where, sizeof where, "batch %d, call %d", c + 1, jsel[c] + 1);
            int wrong = kb_compare(&ref, 0, &cand, defer ? -x - 1 : jsel[c], where, why, sizeof why);
            if (wrong < 0) { kb_fail(res, wrong == -1 ? &ref : &cand, wrong == -2, "a checked call"); return; }
            if (wrong) {
                res->verdict = KG_V_L3;
                snprintf(res->reason, sizeof res->reason, "wrong result: %s", why);
                return;
            }
        }
    }
    res->kb_cand_ms = kb_kbtime(&cand, res->ref_ms);
    kb_builds_hold(0);
    res->speedup = res->cand_ms > 0 ? res->ref_ms / res->cand_ms : 0;
    res->kb_speedup = res->kb_cand_ms > 0 && res->kb_ref_ms > 0 ? res->kb_ref_ms / res->kb_cand_ms : 0;
    if (res->speedup < KB_FLOOR) {
        res->verdict = KG_V_L4;
        snprintf(res->reason, sizeof res->reason, "too slow: %.4f ms a call against the reference's %.4f ms "
                 "(speedup %.3f, the floor is %.2f)", res->cand_ms, res->ref_ms, res->speedup, KB_FLOOR);
    } else {
        res->verdict = KG_V_PASS;
    }
}

