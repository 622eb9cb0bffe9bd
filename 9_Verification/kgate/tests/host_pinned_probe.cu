/* host_pinned_probe.cu: does host memory that the GPU driver allocates for a
 * process show where the gate's memory watcher looks (RssAnon + RssShmem of
 * /proc/self/status), and does the harness's RLIMIT_DATA bound it? Tried on
 * a GPU machine (not part of `make test`: it needs a GPU).
 *
 *   nvcc -O2 -arch=sm_90 tests/host_pinned_probe.cu -o /tmp/pinned_probe
 *   /tmp/pinned_probe          (then: prlimit --data=1073741824 /tmp/pinned_probe)
 *
 * For cudaMallocHost, cudaHostAlloc (mapped) and cudaMallocManaged touched
 * on the host, 2 GiB each: one "probe:" line with what the allocation did
 * and the resident counters before and after. A counter that does not grow
 * by about 2 GiB is memory the watcher cannot see (README.md, "Safety"). */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long long kb_of(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long long v = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, strlen(key))) v = atoll(line + strlen(key));
    if (f) fclose(f);
    return v;
}

static void show(const char *what, cudaError_t e, long long a0, long long s0, long long f0)
{
    printf("probe: %-28s %-24s RssAnon %+.2f GiB, RssShmem %+.2f GiB, RssFile %+.2f GiB\n", what,
           cudaGetErrorName(e), (kb_of("RssAnon:") - a0) / 1048576.0, (kb_of("RssShmem:") - s0) / 1048576.0,
           (kb_of("RssFile:") - f0) / 1048576.0);
}

int main(void)
{
    const size_t n = (size_t)2 << 30;
    if (cudaFree(0) != cudaSuccess) { printf("probe: no CUDA context\n"); return 2; }
    for (int k = 0; k < 3; k++) {
        long long a0 = kb_of("RssAnon:"), s0 = kb_of("RssShmem:"), f0 = kb_of("RssFile:");
        char *p = NULL;
        cudaError_t e;
        const char *what;
        if (k == 0) { what = "cudaMallocHost 2 GiB"; e = cudaMallocHost((void **)&p, n); }
        else if (k == 1) { what = "cudaHostAlloc mapped 2 GiB"; e = cudaHostAlloc((void **)&p, n, cudaHostAllocMapped); }
        else { what = "cudaMallocManaged 2 GiB"; e = cudaMallocManaged((void **)&p, n); }
        if (e == cudaSuccess) memset(p, 1, n);   /* every page touched on the host */
        show(what, e, a0, s0, f0);
        cudaGetLastError();
        if (e == cudaSuccess) (k == 2 ? cudaFree(p) : cudaFreeHost(p));
    }
    return 0;
}
