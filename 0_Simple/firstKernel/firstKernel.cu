/* firstKernel: a first CUDA kernel, y = a*x + y (SAXPY), in one file to read in one sitting.
 * Thread t of block b handles element b*blockDim.x + t (docs/figures/thread_indexing.svg).
 *   make firstKernel && bin/firstKernel [--quick] [--variant=NAME]     (README.md: the lesson)
 * Exit status 0 PASS, 1 FAIL (a wrong result, a CUDA error, a bad argument), 2 WAIVED (no GPU). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cuda_check.h"

__global__ void saxpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;  /* which element is mine */
    if (i < n) y[i] = a * x[i] + y[i];              /* the last block runs past the end */
}

static void launch_saxpy(int n, float a, const float *x, float *y)
{
    int block = 256, grid = (n + block - 1) / block;  /* round up: every element gets a thread */
    saxpy<<<grid, block>>>(n, a, x, y);
}
#ifdef EXERCISE
#include EXERCISE /* make try SAMPLE=firstKernel EX=N: your kernel, run as the variant "exercise" */
#define EXERCISE_ROW {"exercise", exercise_launch},
#else
#define EXERCISE_ROW
#endif
static const struct { const char *name; void (*launch)(int, float, const float *, float *); } variants[] = {
    {"saxpy", launch_saxpy}, EXERCISE_ROW};
static const int nvar = sizeof variants / sizeof variants[0];

/* What the CPU says y[i] must be; past the end (i >= n) it must stay as it was. */
static float cpu_saxpy(int i, int n, const float *x, const float *y) { return i < n ? 2.0f * x[i] + y[i] : y[i]; }

int main(int argc, char **argv)
{
    const char *only = "all", *bad = NULL;
    int quick = 0, known = 0, ndev = 0, failed = 0;
    for (int k = 1; k < argc; k++) {  /* the command line; -h or --help anywhere wins */
        if (!strcmp(argv[k], "-h") || !strcmp(argv[k], "--help")) {
            printf("usage: firstKernel [-h|--help] [--quick] [--variant=NAME]: y = 2*x + y on the GPU, checked\n"
                   "on the CPU, timed; --quick: n = 100003, not 2^26+3; NAME: all|saxpy%s (default all)\n",
                   nvar > 1 ? "|exercise" : "");
            return 0;
        }
        if (!strcmp(argv[k], "--quick")) quick = 1;
        else if (!strncmp(argv[k], "--variant=", 10)) only = argv[k] + 10;
        else if (!bad) bad = argv[k];  /* anything else is refused, by name (after the loop: -h still wins) */
    }
    for (int v = -1; v < nvar; v++) known |= !strcmp(only, v < 0 ? "all" : variants[v].name);
    if (bad || !known) {
        fprintf(stderr, "firstKernel: error: bad argument '%s%s' (see --help)\n", bad ? "" : "--variant=", bad ? bad : only);
        printf("firstKernel: FAIL (bad argument)\n");
        return 1;
    }
    cudaError_t err = cudaGetDeviceCount(&ndev);
    if (err != cudaSuccess || ndev == 0) {
        printf("firstKernel: WAIVED (no CUDA device: %s)\n", err ? cudaGetErrorString(err) : "none found");
        return 2;
    }
    const int n = quick ? 100003 : (1 << 26) + 3, GUARD = 1024;  /* n is not a multiple of the block */
    size_t bytes = (n + GUARD) * sizeof(float);  /* GUARD elements past the end that nobody may write */
    float *hx = (float *)malloc(bytes), *hy = (float *)malloc(bytes), *out = (float *)malloc(bytes), *dx, *dy, ms;
    if (!hx || !hy || !out) { printf("firstKernel: FAIL (out of host memory)\n"); return 1; }
    srand(2026);  /* seeded inputs: small integers, so a*x + y is exact on the CPU and on the GPU */
    for (int i = 0; i < n + GUARD; i++) { hx[i] = rand() % 17 - 8; hy[i] = rand() % 17 - 8; }
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaMalloc(&dx, bytes)); CUDA_CHECK(cudaMalloc(&dy, bytes));
    CUDA_CHECK(cudaEventCreate(&start)); CUDA_CHECK(cudaEventCreate(&stop));
    for (int v = 0; v < nvar; v++) {
        if (strcmp(only, "all") && strcmp(only, variants[v].name)) continue;
        CUDA_CHECK(cudaMemcpy(dx, hx, bytes, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(dy, hy, bytes, cudaMemcpyHostToDevice));
        variants[v].launch(n, 2.0f, dx, dy);  /* a = 2 */
        CHECK_LAUNCH();
        memset(out, 0xFF, bytes);  /* NaN: an element that is never copied back cannot pass */
        CUDA_CHECK(cudaMemcpy(out, dy, bytes, cudaMemcpyDeviceToHost));
        int i = 0;  /* the CPU loop: stops at the first wrong element */
        while (i < n + GUARD && out[i] == cpu_saxpy(i, n, hx, hy)) i++;
        if (i < n + GUARD) {
            fprintf(stderr, "firstKernel: %s: y[%d] = %g, want %g%s\n", variants[v].name, i, out[i],
                    cpu_saxpy(i, n, hx, hy), i < n ? "" : " (past the end: nobody may write there)");
            printf("RESULT sample=firstKernel variant=%s n=%d status=FAIL\n", variants[v].name, n);
            failed = 1;
            continue;
        }
        CUDA_CHECK(cudaEventRecord(start));  /* 20 launches timed by events (the checked one warmed up) */
        for (int r = 0; r < 20; r++) variants[v].launch(n, 2.0f, dx, dy);
        CUDA_CHECK(cudaEventRecord(stop));
        CUDA_CHECK(cudaEventSynchronize(stop));
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        printf("RESULT sample=firstKernel variant=%s n=%d status=PASS time_ms=%.4f gbps=%.1f\n", variants[v].name,
               n, ms / 20, 12.0 * n / (ms / 20) / 1e6);  /* x and y read, y written: 12 bytes an element */
    }
    CUDA_CHECK(cudaEventDestroy(start)); CUDA_CHECK(cudaEventDestroy(stop));
    CUDA_CHECK(cudaFree(dx)); CUDA_CHECK(cudaFree(dy)); free(hx); free(hy); free(out);
    printf("firstKernel: %s\n", failed ? "FAIL" : "PASS");
    return failed;
}
