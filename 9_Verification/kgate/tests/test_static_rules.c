/* test_static_rules.c: every static rule on a positive and a negative snippet,
 * good kernels for every task with no P0/P1 finding, and bad input that must
 * give a verdict, not a crash. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "kgate_static.h"

static kg_static_result scan(const char *src)
{
    kg_static_result r;
    assert_int_equal(kg_static_scan(src, "snippet", &r), 0);
    return r;
}

/* Number of findings of a rule (with severity sev, or any when sev < 0). */
static int count(const kg_static_result *r, const char *rule, int sev)
{
    int n = 0;
    for (int i = 0; i < r->n; i++)
        if (!strcmp(r->items[i].rule, rule) && (sev < 0 || (int)r->items[i].sev == sev)) n++;
    return n;
}

static void dump(const kg_static_result *r)
{
    for (int i = 0; i < r->n; i++)
        fprintf(stderr, "    P%d %s line %d: %s\n", r->items[i].sev, r->items[i].rule,
                r->items[i].line, r->items[i].message);
}

static void expect_rule(const char *src, const char *rule, int sev, int present, int must_parse)
{
    kg_static_result r = scan(src);
    if (!r.parsed && must_parse) fprintf(stderr, "    parse error: %s\n", r.parse_error);
    if (must_parse) assert_true(r.parsed);
    int n = count(&r, rule, sev);
    if ((n > 0) != present) {
        fprintf(stderr, "    expected %s %s; findings:\n", rule, present ? "present" : "absent");
        dump(&r);
    }
    assert_int_equal(n > 0, present);
    kg_static_free(&r);
}

static void expect(const char *src, const char *rule, int sev, int present)
{
    expect_rule(src, rule, sev, present, 1);
}

/* Expect no P0 or P1 finding at all (a good kernel must not be stopped). */
static void expect_clean(const char *src)
{
    kg_static_result r = scan(src);
    if (!r.parsed) fprintf(stderr, "    parse error: %s\n", r.parse_error);
    assert_true(r.parsed);
    if (kg_static_worst(&r) < 2) dump(&r);
    assert_true(kg_static_worst(&r) >= 2);
    assert_true(r.has_launch);
    kg_static_free(&r);
}

#define LAUNCH1(kernel, grid) \
    "extern \"C\" void launch(const float* x, float* y, int n, cudaStream_t stream) {\n" \
    "  " kernel "<<<" grid ", 256, 0, stream>>>(x, y, n);\n}\n"

/* ---- KG-IDX-THREADONLY -------------------------------------------------- */
static void test_threadonly(void **state)
{
    (void)state;
    const char *k = "__global__ void k(const float* x, float* y, int n) {\n"
                    "  int i = threadIdx.x;\n  if (i < n) y[i] = x[i];\n}\n";
    char src[1024];
    snprintf(src, sizeof src, "%s" LAUNCH1("k", "(n + 255) / 256"), k);
    expect(src, "KG-IDX-THREADONLY", KG_P1, 1);
    snprintf(src, sizeof src, "%s" LAUNCH1("k", "1"), k); /* one block: fine */
    expect(src, "KG-IDX-THREADONLY", -1, 0);
    snprintf(src, sizeof src, "%s" LAUNCH1("k", "dim3(1, 1)"), k);
    expect(src, "KG-IDX-THREADONLY", -1, 0);
    expect("__global__ void k(const float* x, float* y, int n) {\n"
           "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) y[i] = x[i];\n}\n"
           LAUNCH1("k", "(n + 255) / 256"), "KG-IDX-THREADONLY", -1, 0);
    /* atomics from every block into per-thread bins are intended */
    expect("__global__ void k(const float* x, float* y, int n) {\n"
           "  atomicAdd(&y[threadIdx.x], x[blockIdx.x]);\n}\n"
           LAUNCH1("k", "n"), "KG-IDX-THREADONLY", -1, 0);
}

/* ---- KG-BOUNDS-NOCHECK -------------------------------------------------- */
static void test_bounds(void **state)
{
    (void)state;
    expect("__global__ void k(const float* x, float* y, int n) {\n"
           "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  y[i] = 2.0f * x[i];\n}\n"
           LAUNCH1("k", "(n + 255) / 256"), "KG-BOUNDS-NOCHECK", KG_P1, 1);
    expect("__global__ void k(const float* x, float* y, int n) {\n"
           "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i >= n) return;\n"
           "  y[i] = 2.0f * x[i];\n}\n" LAUNCH1("k", "(n + 255) / 256"), "KG-BOUNDS-NOCHECK", -1, 0);
    expect("__global__ void k(const float* x, float* y, int n) {\n"
           "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
           "    y[i] = 2.0f * x[i];\n}\n" LAUNCH1("k", "264"), "KG-BOUNDS-NOCHECK", -1, 0);
    expect("__global__ void k(const float* x, float* y, int n) {\n"
           "  int i = min(blockIdx.x * blockDim.x + threadIdx.x, (unsigned)n - 1);\n  y[i] = x[i];\n}\n"
           LAUNCH1("k", "(n + 255) / 256"), "KG-BOUNDS-NOCHECK", -1, 0);
}

/* ---- KG-STATIC-GLOBAL --------------------------------------------------- */
static void test_static_global(void **state)
{
    (void)state;
    expect("static __global__ void k(float* y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x;"
           " if (i < n) y[i] = 0; }\n", "KG-STATIC-GLOBAL", KG_P2, 1);
    expect("__global__ void k(float* y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x;"
           " if (i < n) y[i] = 0; }\n", "KG-STATIC-GLOBAL", -1, 0);
    /* a static host helper is not a kernel */
    expect("static int helper(int n) { return n + 1; }\n", "KG-STATIC-GLOBAL", -1, 0);
}

/* ---- KG-RECURSION ------------------------------------------------------- */
static void test_recursion(void **state)
{
    (void)state;
    expect("__device__ float fact(int n) { return n <= 1 ? 1.0f : n * fact(n - 1); }\n"
           "__global__ void k(float* y) { y[0] = fact(5); }\n", "KG-RECURSION", KG_P1, 1);
    expect("__device__ int odd(int n);\n"
           "__device__ int even(int n) { return n == 0 ? 1 : odd(n - 1); }\n"
           "__device__ int odd(int n) { return n == 0 ? 0 : even(n - 1); }\n"
           "__global__ void k(int* y) { y[0] = even(4); }\n", "KG-RECURSION", KG_P1, 1);
    expect("__device__ float sq(float v) { return v * v; }\n"
           "__device__ float quad(float v) { return sq(sq(v)); }\n"
           "__global__ void k(float* y) { y[0] = quad(2.0f); }\n", "KG-RECURSION", -1, 0);
    /* host recursion is not device code */
    expect("int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }\n", "KG-RECURSION", -1, 0);
}

/* ---- KG-LOOP-UNBOUNDED -------------------------------------------------- */
static void test_loop(void **state)
{
    (void)state;
    expect("__global__ void k(float* y) { for (;;) { y[0] += 1.0f; } }\n", "KG-LOOP-UNBOUNDED", KG_P1, 1);
    expect("__global__ void k(volatile int* f) { while (1) { f[1] = f[0]; } }\n", "KG-LOOP-UNBOUNDED", KG_P1, 1);
    expect("__global__ void k(int* f) { do { f[0]++; } while (true); }\n", "KG-LOOP-UNBOUNDED", KG_P1, 1);
    expect("__global__ void k(volatile int* f) { while (1) { if (f[0]) break; } }\n", "KG-LOOP-UNBOUNDED", -1, 0);
    expect("__global__ void k(volatile int* f) { for (;;) { if (f[0]) return; for (int i = 0; i < 4; i++) { if (i == 2) break; } } }\n",
           "KG-LOOP-UNBOUNDED", -1, 0);
    expect("__global__ void k(float* y, int n) { for (int i = 0; i < n; i++) y[0] += 1.0f; }\n", "KG-LOOP-UNBOUNDED", -1, 0);
    /* a host loop is not device code */
    expect("void spin(volatile int* f) { for (;;) { f[0] = 1; } }\n", "KG-LOOP-UNBOUNDED", -1, 0);
}

/* ---- KG-HOSTLIB-DEVICE, KG-DEVICE-PRINTF, KG-DEVICE-HEAP ---------------- */
static void test_hostlib(void **state)
{
    (void)state;
    /* clang itself reports some of these (host function in device code):
     * the rule must fire whether or not the parse had errors */
    expect_rule("#include <vector>\n__global__ void k(float* y) { std::vector<float> v(4); y[0] = v[0]; }\n",
               "KG-HOSTLIB-DEVICE", KG_P0, 1, 0);
    expect_rule("#include <iostream>\n__global__ void k(float* y) { std::cout << y[0]; }\n",
               "KG-HOSTLIB-DEVICE", KG_P0, 1, 0);
    expect_rule("#include <cstdio>\n__global__ void k(float* y) { fprintf(stderr, \"%f\", y[0]); }\n",
               "KG-HOSTLIB-DEVICE", KG_P0, 1, 0);
    expect("#include <vector>\nvoid host(std::vector<float>& v) { v.push_back(1.0f); }\n"
           "__global__ void k(float* y) { y[0] = 1.0f; }\n", "KG-HOSTLIB-DEVICE", -1, 0);
    expect("#include <cstdio>\n__global__ void k(float* y) { printf(\"%f\\n\", y[0]); }\n",
           "KG-DEVICE-PRINTF", KG_P2, 1);
    expect("#include <cstdio>\n__global__ void k(float* y) { y[0] = 1; }\nvoid h() { printf(\"hi\\n\"); }\n",
           "KG-DEVICE-PRINTF", -1, 0);
    expect("__global__ void k(float* y) { float* t = (float*)malloc(16); t[0] = 1; y[0] = t[0]; free(t); }\n",
           "KG-DEVICE-HEAP", KG_P1, 1);
    expect("__global__ void k(float* y) { float* t = new float[4]; t[0] = 1; y[0] = t[0]; delete[] t; }\n",
           "KG-DEVICE-HEAP", KG_P1, 1);
    expect("__global__ void k(float* y) { float t[4]; t[0] = 1; y[0] = t[0]; }\n", "KG-DEVICE-HEAP", -1, 0);
}

/* ---- KG-POW-SMALL ------------------------------------------------------- */
static void test_pow(void **state)
{
    (void)state;
    expect("__global__ void k(float* y) { y[0] = powf(y[0], 2); }\n", "KG-POW-SMALL", KG_P2, 1);
    expect("__global__ void k(float* y) { y[0] = powf(y[0], 2.0f); }\n", "KG-POW-SMALL", KG_P2, 1);
    expect("__global__ void k(double* y) { y[0] = pow(y[0], 3.0); }\n", "KG-POW-SMALL", KG_P2, 1);
    expect("__global__ void k(float* y, float e) { y[0] = powf(y[0], e); }\n", "KG-POW-SMALL", -1, 0);
    expect("__global__ void k(float* y) { y[0] = powf(y[0], 2.5f); }\n", "KG-POW-SMALL", -1, 0);
}

/* ---- KG-FASTMATH -------------------------------------------------------- */
static void test_fastmath(void **state)
{
    (void)state;
    expect("__global__ void k(float* y) {\n  y[0] = __expf(y[0]);\n}\n", "KG-FASTMATH", KG_P1, 1);
    expect("__global__ void k(float* y) {\n  y[0] = __fdividef(y[0], y[1]);\n}\n", "KG-FASTMATH", KG_P1, 1);
    expect("__global__ void k(float* y) {\n  y[0] = __saturatef(y[0]);\n}\n", "KG-FASTMATH", KG_P1, 1);
    expect("__global__ void k(float* y) {\n  // fast-math on purpose: __expf is within 2 ulp here\n"
           "  y[0] = __expf(y[0]);\n}\n", "KG-FASTMATH", -1, 0);
    expect("/* Uses approximate intrinsics: precision is fine for softmax. */\n"
           "__global__ void k(float* y) {\n  float a = y[0];\n  float b = a * 2.0f;\n  float c = b + 1.0f;\n"
           "  y[0] = __expf(c);\n}\n", "KG-FASTMATH", -1, 0);
    expect("__global__ void k(float* y) {\n  y[0] = expf(y[0]);\n}\n", "KG-FASTMATH", -1, 0);
}

/* ---- KG-STRIDED --------------------------------------------------------- */
static void test_strided(void **state)
{
    (void)state;
    expect("__global__ void k(const float* x, float* y, int n) {\n"
           "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) y[i * 2] = x[i];\n}\n",
           "KG-STRIDED", KG_P2, 1);
    expect("__global__ void k(const float* x, float* y, int rows, int cols) {\n"
           "  int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
           "  if (r < rows) for (int c = 0; c < cols; c++) y[r * cols + c] = x[r * cols + c];\n}\n",
           "KG-STRIDED", KG_P2, 1);
    expect("__global__ void k(const float* x, float* y, int rows, int cols) {\n"
           "  int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;\n"
           "  if (r < rows && c < cols) y[r * cols + c] = x[r * cols + c];\n}\n", "KG-STRIDED", -1, 0);
    expect("__global__ void k(const float* x, float* y, int n) {\n"
           "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) y[i] = x[i * 1];\n}\n",
           "KG-STRIDED", -1, 0);
}

/* ---- KG-BANK-CONFLICT --------------------------------------------------- */
static void test_bank(void **state)
{
    (void)state;
    expect("__global__ void k(float* y) {\n  __shared__ float t[32][32];\n"
           "  t[threadIdx.y][threadIdx.x] = y[threadIdx.x];\n  __syncthreads();\n"
           "  float s = 0; for (int j = 0; j < 32; j++) s += t[threadIdx.x][j];\n  y[threadIdx.x] = s;\n}\n",
           "KG-BANK-CONFLICT", KG_P2, 1);
    expect("__global__ void k(float* y) {\n  __shared__ float t[32][33];\n"
           "  t[threadIdx.y][threadIdx.x] = y[threadIdx.x];\n  __syncthreads();\n"
           "  float s = 0; for (int j = 0; j < 32; j++) s += t[threadIdx.x][j];\n  y[threadIdx.x] = s;\n}\n",
           "KG-BANK-CONFLICT", -1, 0);
    expect("__global__ void k(float* y) {\n  __shared__ float t[32][32];\n"
           "  t[threadIdx.y][threadIdx.x] = y[threadIdx.x];\n  __syncthreads();\n  y[threadIdx.x] = t[threadIdx.y][threadIdx.x];\n}\n",
           "KG-BANK-CONFLICT", -1, 0);
    expect("__global__ void k(float* y) {\n  __shared__ float s[512];\n  s[threadIdx.x * 2] = y[threadIdx.x];\n"
           "  __syncthreads();\n  y[threadIdx.x] = s[threadIdx.x];\n}\n", "KG-BANK-CONFLICT", KG_P2, 1);
    expect("__global__ void k(float* y) {\n  __shared__ float s[512];\n  s[threadIdx.x * 3] = y[threadIdx.x];\n"
           "  __syncthreads();\n  y[threadIdx.x] = s[threadIdx.x];\n}\n", "KG-BANK-CONFLICT", -1, 0);
}

/* ---- KG-SYNC-MISSING ---------------------------------------------------- */
static void test_sync_missing(void **state)
{
    (void)state;
    /* a plain write, then another thread's element read with no barrier */
    expect("__global__ void k(float* y) {\n  __shared__ float s[256];\n  s[threadIdx.x] = y[threadIdx.x];\n"
           "  y[threadIdx.x] = s[255 - threadIdx.x];\n}\n", "KG-SYNC-MISSING", KG_P1, 1);
    expect("__global__ void k(float* y) {\n  __shared__ float s[256];\n  s[threadIdx.x] = y[threadIdx.x];\n"
           "  __syncthreads();\n  y[threadIdx.x] = s[255 - threadIdx.x];\n}\n", "KG-SYNC-MISSING", -1, 0);
    /* an atomic reads too: bins zeroed, then counted into with no barrier
     * (racecheck does not pair the store with the atomic) */
    const char *zero = "__global__ void k(const unsigned char* d, unsigned* h, int n) {\n"
                       "  __shared__ unsigned b[256];\n"
                       "  for (int i = threadIdx.x; i < 256; i += blockDim.x) b[i] = 0;\n";
    const char *count = "  for (int i = threadIdx.x; i < n; i += blockDim.x) atomicAdd(&b[d[i]], 1u);\n"
                        "  __syncthreads();\n  if (threadIdx.x < 256) atomicAdd(&h[threadIdx.x], b[threadIdx.x]);\n}\n";
    char src[1024];
    snprintf(src, sizeof src, "%s%s", zero, count);
    expect(src, "KG-SYNC-MISSING", KG_P1, 1);
    snprintf(src, sizeof src, "%s  __syncthreads();\n%s", zero, count);
    expect(src, "KG-SYNC-MISSING", -1, 0);
    /* the thread's own element, and atomics after atomics: no race */
    expect("__global__ void k(float* y) {\n  __shared__ float s[256];\n  s[threadIdx.x] = 0;\n"
           "  atomicAdd(&s[threadIdx.x], y[threadIdx.x]);\n  atomicAdd(&s[threadIdx.x ^ 1], 1.0f);\n"
           "  atomicAdd(&s[threadIdx.x ^ 2], 1.0f);\n  __syncthreads();\n  y[threadIdx.x] = s[threadIdx.x];\n}\n",
           "KG-SYNC-MISSING", KG_P1, 1);
    expect("__global__ void k(float* y) {\n  __shared__ float s[256];\n  s[threadIdx.x] = 0;\n"
           "  atomicAdd(&s[threadIdx.x], y[threadIdx.x]);\n  __syncthreads();\n"
           "  atomicAdd(&s[threadIdx.x ^ 1], 1.0f);\n  atomicAdd(&s[threadIdx.x ^ 2], 1.0f);\n"
           "  __syncthreads();\n  y[threadIdx.x] = s[threadIdx.x];\n}\n", "KG-SYNC-MISSING", -1, 0);
}

/* ---- KG-SYNC-DIVERGENT -------------------------------------------------- */
static void test_sync(void **state)
{
    (void)state;
    expect("__global__ void k(float* y) {\n  __shared__ float s[256];\n"
           "  if (threadIdx.x < 128) {\n    s[threadIdx.x] = y[threadIdx.x];\n    __syncthreads();\n  }\n}\n",
           "KG-SYNC-DIVERGENT", KG_P0, 1);
    expect("__global__ void k(const float* x, float* y, int n) {\n  __shared__ float s[256];\n"
           "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
           "  if (i < n) { s[threadIdx.x] = x[i]; __syncthreads(); y[i] = s[255 - threadIdx.x]; }\n}\n",
           "KG-SYNC-DIVERGENT", KG_P0, 1);
    expect("__global__ void k(const float* x, float* y, int n) {\n  __shared__ float s[256];\n"
           "  for (int i = threadIdx.x; i < n; i += blockDim.x) { s[threadIdx.x] = x[i]; __syncthreads(); }\n}\n",
           "KG-SYNC-DIVERGENT", KG_P0, 1);
    /* uniform conditions: block index, parameters, loop counters */
    expect("__global__ void k(const float* x, float* y, int n) {\n  __shared__ float s[256];\n"
           "  if (blockIdx.x * blockDim.x < n) { s[threadIdx.x] = x[threadIdx.x]; __syncthreads(); y[threadIdx.x] = s[0]; }\n}\n",
           "KG-SYNC-DIVERGENT", -1, 0);
    expect("__global__ void k(const float* x, float* y, int n) {\n  __shared__ float s[256];\n"
           "  unsigned t = threadIdx.x;\n  s[t] = x[blockIdx.x * blockDim.x + t];\n  __syncthreads();\n"
           "  for (unsigned st = blockDim.x / 2; st > 0; st >>= 1) {\n"
           "    if (t < st) s[t] += s[t + st];\n    __syncthreads();\n  }\n"
           "  if (t == 0) y[blockIdx.x] = s[0];\n}\n", "KG-SYNC-DIVERGENT", -1, 0);
    /* a flag in shared memory is uniform after the barrier */
    expect("__global__ void k(float* y) {\n  __shared__ int last;\n"
           "  if (threadIdx.x == 0) last = atomicAdd((int*)y, 1);\n  __syncthreads();\n"
           "  if (last == 7) { __syncthreads(); y[1] = 1; }\n}\n", "KG-SYNC-DIVERGENT", -1, 0);
}

/* Every spelling of a block barrier counts for KG-SYNC-DIVERGENT: the
 * cooperative-groups forms, named barriers, inline asm, and the candidate's
 * own helpers and lambdas that wait at one. Each case is a kernel with the
 * barrier under `if (t < 16)` (fires) and the same barrier uniform (must not). */
static void sync_case(const char *decls, const char *barrier, int divergent)
{
    char src[2048];
    snprintf(src, sizeof src,
             "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n%s\n"
             "__global__ void k(float* y, int n) {\n  cg::thread_block block = cg::this_thread_block();\n"
             "  int t = threadIdx.x, warp = t / 32;\n  (void)warp;\n  %s%s;\n  y[t] = 1.0f;\n}\n",
             decls, divergent ? "if (t < 16) " : "", barrier);
    expect(src, "KG-SYNC-DIVERGENT", KG_P0, divergent);
}

static void test_sync_spellings(void **state)
{
    (void)state;
    static const struct { const char *decls, *barrier; } cases[] = {
        {"", "block.sync()"},
        {"", "cg::this_thread_block().sync()"},
        {"", "cg::sync(block)"},
        {"", "{ auto& b = block; b.sync(); }"},
        {"", "{ cg::thread_group g = block; g.sync(); }"},
        {"", "block.barrier_wait(block.barrier_arrive())"},
        {"", "__syncthreads_count(t > 3)"},
        {"", "__barrier_sync(0)"},
        {"", "asm volatile(\"bar.sync 0;\")"},
        {"", "asm volatile(\"barrier.sync.aligned 0;\" ::: \"memory\")"},
        {"", "asm volatile(\"bar.red.popc.u32 %0, 0, 1;\" : \"=r\"(n))"},
        {"#define BAR \"bar\" \".sync 0;\"", "asm volatile(BAR)"},
        {"__device__ void my_barrier() { __syncthreads(); }", "my_barrier()"},
        {"__device__ void twice() { cg::this_thread_block().sync(); }\n__device__ void outer() { twice(); }",
         "outer()"},
        {"template <typename G> __device__ void gsync(G g) { g.sync(); }", "gsync(block)"},
        {"", "[&]() { __syncthreads(); }()"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sync_case(cases[i].decls, cases[i].barrier, 1);
        sync_case(cases[i].decls, cases[i].barrier, 0);
    }
    /* a helper whose argument decides whether it reaches its barrier */
    const char *helper = "__device__ void maybe(bool b) { if (b) __syncthreads(); }\n";
    char src[1024];
    snprintf(src, sizeof src, "%s__global__ void k(float* y, int n) {\n  maybe(threadIdx.x < 8);\n  y[0] = 1;\n}\n", helper);
    expect(src, "KG-SYNC-DIVERGENT", KG_P0, 1);
    snprintf(src, sizeof src, "%s__global__ void k(float* y, int n) {\n  maybe(n > 8);\n  y[0] = 1;\n}\n", helper);
    expect(src, "KG-SYNC-DIVERGENT", -1, 0);
    /* a loop bound from a parameter: blockDim is uniform, threadIdx is not */
    const char *reduce = "__device__ void tree(float* s, int m) {\n"
                         "  for (int k = m / 2; k > 0; k >>= 1) { if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k]; "
                         "__syncthreads(); }\n}\n";
    snprintf(src, sizeof src, "%s__global__ void k(float* y) {\n  __shared__ float s[256];\n  tree(s, blockDim.x);\n}\n", reduce);
    expect(src, "KG-SYNC-DIVERGENT", -1, 0);
    snprintf(src, sizeof src, "%s__global__ void k(float* y) {\n  __shared__ float s[256];\n  tree(s, threadIdx.x);\n}\n", reduce);
    expect(src, "KG-SYNC-DIVERGENT", KG_P0, 1);
    /* a lambda's own branch around its barrier */
    expect("__global__ void k(float* y) {\n  int t = threadIdx.x;\n"
           "  auto f = [&]() { if (t < 16) __syncthreads(); };\n  f();\n  y[t] = 0;\n}\n",
           "KG-SYNC-DIVERGENT", KG_P0, 1);
    /* a named barrier with a thread count: whole warps may skip it */
    sync_case("", "if (warp < 4) asm volatile(\"bar.sync 1, 128;\")", 0);
    /* a tile of a warp is not the block's barrier; a grid's is skipped by whole blocks too */
    sync_case("", "if (warp == 0) cg::tiled_partition<32>(block).sync()", 0);
    expect("#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
           "__global__ void k(float* y) {\n  cg::grid_group g = cg::this_grid();\n"
           "  if (blockIdx.x > 0) g.sync();\n  y[0] = 1;\n}\n", "KG-SYNC-DIVERGENT", KG_P0, 1);
    /* the candidate's own struct with a sync() method is no barrier */
    sync_case("struct Q { __device__ void sync() {} };", "Q().sync()", 0);
    {
        char s2[1024];
        snprintf(s2, sizeof s2, "#include <cooperative_groups.h>\nstruct Q { __device__ void sync() {} };\n"
                 "__global__ void k(float* y) {\n  if (threadIdx.x < 16) Q().sync();\n  y[0] = 1;\n}\n");
        expect(s2, "KG-SYNC-DIVERGENT", -1, 0);
    }
}

/* ---- KG-HALF-HEADER ----------------------------------------------------- */
static void test_half(void **state)
{
    (void)state;
    const char *src = "__global__ void k(const __half* x, float* y, int n) {\n"
                      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                      "  if (i < n) y[i] = __half2float(x[i]);\n}\n";
    kg_static_result r = scan(src);
    assert_true(r.parsed);
    assert_true(r.needs_half_header);
    assert_int_equal(count(&r, "KG-HALF-HEADER", KG_P2), 1);
    assert_true(kg_static_worst(&r) >= 1); /* not rejected */
    char *fixed = kg_static_fixed_source(src, &r);
    assert_non_null(fixed);
    assert_true(strncmp(fixed, "#include <cuda_fp16.h>\n#line 1\n", 31) == 0);
    assert_non_null(strstr(fixed, "__half2float"));
    free(fixed);
    kg_static_free(&r);

    const char *ok = "#include <cuda_fp16.h>\n__global__ void k(const __half* x, float* y) {\n"
                     "  y[0] = __half2float(x[0]);\n}\n";
    r = scan(ok);
    assert_true(r.parsed);
    assert_false(r.needs_half_header);
    fixed = kg_static_fixed_source(ok, &r);
    assert_string_equal(fixed, ok);
    free(fixed);
    kg_static_free(&r);
    /* a variable named half is not a half type */
    expect("__global__ void k(float* y, int n) { int half = n / 2; y[0] = half; }\n", "KG-HALF-HEADER", -1, 0);
}

/* ---- KG-EXTERNAL -------------------------------------------------------- */
static void test_external(void **state)
{
    (void)state;
    const char *lib = "#include <cublas_v2.h>\n"
                      "extern \"C\" void launch(const float* A, const float* B, float* C, int M, int N, int K,\n"
                      "                       cudaStream_t stream) {\n"
                      "  static cublasHandle_t h; if (!h) cublasCreate(&h);\n  cublasSetStream(h, stream);\n"
                      "  const float one = 1.0f, zero = 0.0f;\n"
                      "  cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, N, A, K, &zero, C, N);\n}\n";
    kg_static_result r = scan(lib);
    assert_true(r.parsed);
    assert_true(r.is_external);
    assert_int_equal(r.n_kernels, 0);
    assert_true(r.has_launch);
    kg_static_free(&r);
    r = scan("#include <cublas_v2.h>\n__global__ void scale(float* c, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] *= 2; }\n"
             "extern \"C\" void launch(float* c, int n, cudaStream_t s) { cublasHandle_t h; cublasCreate(&h); scale<<<(n + 255) / 256, 256, 0, s>>>(c, n); }\n");
    assert_true(r.parsed);
    assert_false(r.is_external);
    assert_int_equal(r.n_kernels, 1);
    kg_static_free(&r);
}

/* ---- KG-STREAM-IGNORED, KG-NO-LAUNCH, KG-LAUNCH-LINKAGE ----------------- */
static void test_launch(void **state)
{
    (void)state;
    const char *k = "__global__ void k(const float* x, float* y, int n) {\n"
                    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) y[i] = x[i];\n}\n";
    char src[1024];
    snprintf(src, sizeof src, "%sextern \"C\" void launch(const float* x, float* y, int n, cudaStream_t stream) {\n"
             "  k<<<(n + 255) / 256, 256>>>(x, y, n);\n}\n", k);
    expect(src, "KG-STREAM-IGNORED", KG_P1, 1);
    snprintf(src, sizeof src, "%sextern \"C\" void launch(const float* x, float* y, int n, cudaStream_t stream) {\n"
             "  k<<<(n + 255) / 256, 256, 0, 0>>>(x, y, n);\n}\n", k);
    expect(src, "KG-STREAM-IGNORED", KG_P1, 1);
    snprintf(src, sizeof src, "%s" LAUNCH1("k", "(n + 255) / 256"), k);
    expect(src, "KG-STREAM-IGNORED", -1, 0);
    expect(src, "KG-NO-LAUNCH", -1, 0);
    expect(k, "KG-NO-LAUNCH", KG_P1, 1);
    snprintf(src, sizeof src, "%svoid launch(const float* x, float* y, int n, cudaStream_t stream) {\n"
             "  k<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);\n}\n", k);
    kg_static_result r = scan(src);
    assert_false(r.has_launch);
    assert_int_equal(count(&r, "KG-LAUNCH-LINKAGE", KG_P1), 1);
    kg_static_free(&r);
    snprintf(src, sizeof src, "%s" LAUNCH1("k", "(n + 255) / 256"), k);
    r = scan(src);
    assert_true(r.has_launch);
    assert_int_equal(r.n_kernels, 1);
    assert_false(r.is_external);
    kg_static_free(&r);
}

/* ---- good kernels for every task: no P0/P1 -------------------------------- */
static void test_good_kernels(void **state)
{
    (void)state;
    /* vector_add */
    expect_clean("__global__ void add(const float* a, const float* b, float* c, int n) {\n"
                 "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) c[i] = a[i] + b[i];\n}\n"
                 "extern \"C\" void launch(const float* a, const float* b, float* c, int n, cudaStream_t stream) {\n"
                 "  add<<<(n + 255) / 256, 256, 0, stream>>>(a, b, c, n);\n}\n");
    /* relu, grid-stride with float4 */
    expect_clean("__global__ void relu(const float* __restrict__ x, float* __restrict__ y, int n) {\n"
                 "  int stride = blockDim.x * gridDim.x;\n"
                 "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) y[i] = fmaxf(x[i], 0.0f);\n}\n"
                 "extern \"C\" void launch(const float* x, float* y, int n, cudaStream_t stream) {\n"
                 "  int blocks = (n + 255) / 256; if (blocks > 1056) blocks = 1056;\n"
                 "  relu<<<blocks, 256, 0, stream>>>(x, y, n);\n}\n");
    /* sum_reduce: shared-memory tree, atomic per block, output zeroed first */
    expect_clean("__global__ void zero(float* out) { out[0] = 0.0f; }\n"
                 "__global__ void reduce(const float* x, float* out, int n) {\n"
                 "  __shared__ float s[256];\n  unsigned t = threadIdx.x;\n  float v = 0.0f;\n"
                 "  for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x) v += x[i];\n"
                 "  s[t] = v;\n  __syncthreads();\n"
                 "  for (unsigned st = blockDim.x / 2; st > 0; st >>= 1) {\n    if (t < st) s[t] += s[t + st];\n    __syncthreads();\n  }\n"
                 "  if (t == 0) atomicAdd(out, s[0]);\n}\n"
                 "extern \"C\" void launch(const float* x, float* out, int n, cudaStream_t stream) {\n"
                 "  zero<<<1, 1, 0, stream>>>(out);\n  reduce<<<264, 256, 0, stream>>>(x, out, n);\n}\n");
    /* softmax_rows: one block per row, warp shuffles */
    expect_clean("__device__ float warp_max(float v) { for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o)); return v; }\n"
                 "__device__ float warp_sum(float v) { for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o); return v; }\n"
                 "__global__ void softmax(const float* x, float* y, int rows, int cols) {\n"
                 "  int row = blockIdx.x;\n  if (row >= rows) return;\n  const float* xr = x + (size_t)row * cols;\n  float* yr = y + (size_t)row * cols;\n"
                 "  float m = -INFINITY;\n  for (int c = threadIdx.x; c < cols; c += 32) m = fmaxf(m, xr[c]);\n  m = warp_max(m);\n"
                 "  float s = 0.0f;\n  for (int c = threadIdx.x; c < cols; c += 32) s += expf(xr[c] - m);\n  s = warp_sum(s);\n"
                 "  for (int c = threadIdx.x; c < cols; c += 32) yr[c] = expf(xr[c] - m) / s;\n}\n"
                 "extern \"C\" void launch(const float* x, float* y, int rows, int cols, cudaStream_t stream) {\n"
                 "  softmax<<<rows, 32, 0, stream>>>(x, y, rows, cols);\n}\n");
    /* transpose: padded shared tile */
    expect_clean("#define TILE 32\n__global__ void transpose(const float* in, float* out, int rows, int cols) {\n"
                 "  __shared__ float tile[TILE][TILE + 1];\n"
                 "  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;\n"
                 "  if (x < cols && y < rows) tile[threadIdx.y][threadIdx.x] = in[(size_t)y * cols + x];\n"
                 "  __syncthreads();\n"
                 "  x = blockIdx.y * TILE + threadIdx.x; y = blockIdx.x * TILE + threadIdx.y;\n"
                 "  if (x < rows && y < cols) out[(size_t)y * rows + x] = tile[threadIdx.x][threadIdx.y];\n}\n"
                 "extern \"C\" void launch(const float* in, float* out, int rows, int cols, cudaStream_t stream) {\n"
                 "  dim3 block(TILE, TILE), grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);\n"
                 "  transpose<<<grid, block, 0, stream>>>(in, out, rows, cols);\n}\n");
    /* sgemm: shared tiles, uniform loop with barriers */
    expect_clean("template <int T>\n__global__ void sgemm(const float* A, const float* B, float* C, int M, int N, int K) {\n"
                 "  __shared__ float As[T][T], Bs[T][T];\n"
                 "  int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;\n  float acc = 0.0f;\n"
                 "  for (int k0 = 0; k0 < K; k0 += T) {\n"
                 "    As[threadIdx.y][threadIdx.x] = (row < M && k0 + threadIdx.x < K) ? A[(size_t)row * K + k0 + threadIdx.x] : 0.0f;\n"
                 "    Bs[threadIdx.y][threadIdx.x] = (col < N && k0 + threadIdx.y < K) ? B[(size_t)(k0 + threadIdx.y) * N + col] : 0.0f;\n"
                 "    __syncthreads();\n"
                 "    for (int k = 0; k < T; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];\n"
                 "    __syncthreads();\n  }\n"
                 "  if (row < M && col < N) C[(size_t)row * N + col] = acc;\n}\n"
                 "extern \"C\" void launch(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {\n"
                 "  dim3 block(16, 16), grid((N + 15) / 16, (M + 15) / 16);\n"
                 "  sgemm<16><<<grid, block, 0, stream>>>(A, B, C, M, N, K);\n}\n");
    /* histogram256: per-block shared bins, zeroed by the candidate */
    expect_clean("__global__ void hist(const unsigned char* data, unsigned int* h, int n) {\n"
                 "  __shared__ unsigned int s[256];\n"
                 "  for (int b = threadIdx.x; b < 256; b += blockDim.x) s[b] = 0;\n  __syncthreads();\n"
                 "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) atomicAdd(&s[data[i]], 1u);\n"
                 "  __syncthreads();\n"
                 "  for (int b = threadIdx.x; b < 256; b += blockDim.x) atomicAdd(&h[b], s[b]);\n}\n"
                 "extern \"C\" void launch(const unsigned char* data, unsigned int* h, int n, cudaStream_t stream) {\n"
                 "  cudaMemsetAsync(h, 0, 256 * sizeof(unsigned int), stream);\n"
                 "  hist<<<264, 256, 0, stream>>>(data, h, n);\n}\n");
    /* blur3x3 */
    expect_clean("__global__ void blur(const float* in, float* out, int w, int h, int pitch) {\n"
                 "  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;\n"
                 "  if (x >= w || y >= h) return;\n  float s = 0.0f; int c = 0;\n"
                 "  for (int dy = -1; dy <= 1; ++dy) for (int dx = -1; dx <= 1; ++dx) {\n"
                 "    int xx = x + dx, yy = y + dy;\n"
                 "    if (xx >= 0 && xx < w && yy >= 0 && yy < h) { s += in[yy * pitch + xx]; ++c; }\n  }\n"
                 "  out[y * pitch + x] = s / c;\n}\n"
                 "extern \"C\" void launch(const float* in, float* out, int w, int h, int pitch, cudaStream_t stream) {\n"
                 "  dim3 b(32, 8), g((w + 31) / 32, (h + 7) / 8);\n  blur<<<g, b, 0, stream>>>(in, out, w, h, pitch);\n}\n");
    /* tanh with a stated fast-math intent */
    expect_clean("// tanh via __expf: fast-math on purpose, the task's tolerance is rel 1e-2\n"
                 "__global__ void t(const float* x, float* y, int n) {\n"
                 "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                 "  if (i < n) { float e = __expf(2.0f * x[i]); y[i] = 1.0f - 2.0f / (e + 1.0f); }\n}\n"
                 "extern \"C\" void launch(const float* x, float* y, int n, cudaStream_t stream) {\n"
                 "  t<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);\n}\n");
}

/* ---- bad input: a verdict, not a crash ------------------------------------ */
/* The include policy, read as the compilers read the text. */
static void test_include_policy(void **state)
{
    (void)state;
    char why[300];
    int line;
    const char *refused[] = {
        "#include \"/dev/stdin\"\n",
        "#include </dev/zero>\n",
        "  #  include \"../../etc/passwd\"\n",
        "#define F \"/dev/zero\"\n#include F\n",            /* computed */
        "?\?=include </dev/zero>\n",                        /* trigraph # */
        "%:include </dev/zero>\n",                          /* digraph # */
        "#inc\\\nlude </etc/shadow>\n",                    /* line splice */
        "#include_next <stdio.h>\n",
        "#import <stdio.h>\n",
        "#embed \"x.bin\"\n",
        "/* a comment */ #include \"/etc/hosts\"\n",
        "#include <~/x.h>\n",
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        if (!kg_include_check(refused[i], why, sizeof why, &line))
            fail_msg("not refused: %s", refused[i]);
        assert_true(strlen(why) > 10);
        assert_true(line >= 1);
    }
    const char *fine[] = {
        "#include <cuda_runtime.h>\n#include <cub/cub.cuh>\n#include \"cuda_fp16.h\"\n",
        "// #include \"/dev/stdin\"\nint x;\n",                 /* in a comment */
        "/*\n#include </dev/zero>\n*/\nint x;\n",               /* in a block comment */
        "const char *s = \"#include </dev/zero>\";\n",          /* in a string */
        "int a = 1; // ?\?/\n",                                 /* trigraph in a comment */
    };
    for (size_t i = 0; i < sizeof fine / sizeof fine[0]; i++)
        if (kg_include_check(fine[i], why, sizeof why, &line)) fail_msg("refused: %s (%s)", fine[i], why);
    /* the scan applies it first: a P0, and nothing was parsed */
    kg_static_result r = scan("#include \"/dev/stdin\"\n__global__ void k() {}\n");
    assert_int_equal(count(&r, "KG-INCLUDE", KG_P0), 1);
    assert_int_equal(r.parsed, 0);
    kg_static_free(&r);
    /* the line of a spliced directive is where it starts */
    assert_int_equal(kg_include_check("int a;\n#inc\\\nlude </x>\n", why, sizeof why, &line), 1);
    assert_int_equal(line, 2);
}

/* Code nvcc compiles that clang does not see: refused; device-side code
 * under __CUDA_ARCH__ is scanned by a device-mode parse instead. */
static void test_hidden_code(void **state)
{
    (void)state;
    const char *evade =
        "__global__ void k(float *y, int n) {\n"
        "  __shared__ float s[64];\n"
        "  s[threadIdx.x] = 1.f;\n"
        "#ifndef __clang__\n"
        "  if (threadIdx.x < 16) __syncthreads();\n"
        "#endif\n"
        "  if (threadIdx.x < n) y[threadIdx.x] = s[threadIdx.x];\n"
        "}\n"
        "extern \"C\" void launch(float *y, int n, cudaStream_t st) { k<<<1, 64, 0, st>>>(y, n); }\n";
    expect(evade, "KG-HIDDEN-CODE", KG_P0, 1);
    const char *nvcc_only =
        "__global__ void k(float *y) {\n"
        "#ifdef __NVCC__\n"
        "  y[0] = 2.f;\n"
        "#endif\n"
        "}\n";
    expect(nvcc_only, "KG-HIDDEN-CODE", KG_P0, 1);
    /* legitimate arch-dependent code: no P0, and the device side is scanned */
    const char *arch =
        "__global__ void k(const float *x, float *y, int n) {\n"
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "#if __CUDA_ARCH__ >= 800\n"
        "  if (i < n) y[i] = fmaxf(x[i], 0.f);\n"
        "#else\n"
        "  if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;\n"
        "#endif\n"
        "}\n"
        "extern \"C\" void launch(const float *x, float *y, int n, cudaStream_t st) {\n"
        "  k<<<(n + 255) / 256, 256, 0, st>>>(x, y, n); }\n";
    expect_clean(arch);
    const char *arch_bad =
        "__global__ void k(float *y, int n) {\n"
        "  __shared__ float s[64];\n"
        "  s[threadIdx.x] = 1.f;\n"
        "#ifdef __CUDA_ARCH__\n"
        "  if (threadIdx.x < 16) __syncthreads();\n"
        "#endif\n"
        "  if (threadIdx.x < n) y[threadIdx.x] = s[threadIdx.x];\n"
        "}\n";
    expect(arch_bad, "KG-SYNC-DIVERGENT", KG_P0, 1);   /* found by the device-side parse */
    expect(arch_bad, "KG-HIDDEN-CODE", KG_P0, 0);
    /* #if 0 is skipped by nvcc too: nothing hidden */
    expect("__global__ void k(float *y) {\n#if 0\n  y[0] = 1.f;\n#endif\n}\n", "KG-HIDDEN-CODE", -1, 0);
}

static void test_bad_input(void **state)
{
    (void)state;
    kg_static_result r = scan("this is not C at all {{{ ;\n");
    assert_false(r.parsed);
    assert_true(strlen(r.parse_error) > 0);
    assert_int_equal(count(&r, "KG-PARSE", KG_P1), 1);
    kg_static_free(&r);

    r = scan("");
    assert_true(r.parsed);          /* an empty translation unit is valid C++ ... */
    assert_int_equal(r.n_kernels, 0);
    assert_false(r.has_launch);     /* ... but there is nothing to call */
    assert_int_equal(count(&r, "KG-NO-LAUNCH", KG_P1), 1);
    kg_static_free(&r);

    /* binary junk handed straight to the scanner */
    char junk[4097];
    unsigned s = 12345u;
    for (size_t i = 0; i < sizeof junk - 1; i++) { s = s * 1103515245u + 12345u; junk[i] = (char)(1 + (s >> 16) % 255u); }
    junk[sizeof junk - 1] = '\0';
    r = scan(junk);
    assert_false(r.parsed);
    kg_static_free(&r);

    /* 10 MB handed straight to the scanner (kg_load_candidate would refuse it) */
    size_t n = 10u << 20;
    char *big = malloc(n + 1);
    assert_non_null(big);
    for (size_t i = 0; i < n; i++) big[i] = (i % 64 == 63) ? '\n' : 'a';
    big[n] = '\0';
    r = scan(big);
    assert_false(r.parsed);
    kg_static_free(&r);
    free(big);

    /* unbalanced braces, a kernel cut off in the middle */
    r = scan("__global__ void k(float* y, int n) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) {\n");
    assert_false(r.parsed);
    kg_static_free(&r);

    assert_int_equal(kg_static_scan(NULL, "x", &r), -1);
    kg_static_free(&r);
    kg_static_free(NULL);
    assert_int_equal(kg_static_worst(NULL), 3);
    assert_null(kg_static_fixed_source(NULL, NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threadonly),
        cmocka_unit_test(test_bounds),
        cmocka_unit_test(test_static_global),
        cmocka_unit_test(test_recursion),
        cmocka_unit_test(test_loop),
        cmocka_unit_test(test_hostlib),
        cmocka_unit_test(test_pow),
        cmocka_unit_test(test_fastmath),
        cmocka_unit_test(test_strided),
        cmocka_unit_test(test_bank),
        cmocka_unit_test(test_sync_missing),
        cmocka_unit_test(test_sync),
        cmocka_unit_test(test_sync_spellings),
        cmocka_unit_test(test_half),
        cmocka_unit_test(test_external),
        cmocka_unit_test(test_launch),
        cmocka_unit_test(test_good_kernels),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_include_policy),
        cmocka_unit_test(test_hidden_code),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
