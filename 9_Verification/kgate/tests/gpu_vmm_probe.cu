/* gpu_vmm_probe.cu: what the judge's shared buffers rest on, tried on a GPU
 * machine (not part of `make test`: it needs a GPU and bubblewrap).
 *
 *   nvcc -O2 -arch=sm_90 tests/gpu_vmm_probe.cu -lcuda -o /tmp/vmm_probe
 *   /tmp/vmm_probe BWRAP GiB
 *
 * 1. Device memory made with cuMemCreate (POSIX file descriptor handle) in
 *    this process, passed as an fd to a child in a bubblewrap sandbox with
 *    new PID, IPC, network and UTS namespaces and an 8 GiB RLIMIT_DATA (the
 *    harness's): can the child import, map and write it, and what does each
 *    step cost? Does a legacy cudaIpc handle work across the namespaces?
 * 2. Time-slicing: while the child's context runs a 300 ms kernel, how long
 *    does a 20 ms kernel of this process take?
 * 3. After the child exits, how long until the free memory is back?
 * 4. A hog takes all free memory; can another process create a context,
 *    and can it retry once the hog is gone (runtime and driver API)?
 * Prints one "probe:" line per finding. */
#include <cuda.h>
#include <cuda_runtime.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

#define CK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char *s_ = ""; cuGetErrorName(r_, &s_); \
    printf("probe: FAIL %s: %s (line %d)\n", #x, s_, __LINE__); fflush(stdout); exit(1); } } while (0)

__global__ void k_pattern(uint32_t *p, size_t n, uint32_t salt)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = (uint32_t)i ^ salt;
}

__global__ void k_check(const uint32_t *p, size_t n, uint32_t salt, unsigned long long *bad)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        if (p[i] != ((uint32_t)i ^ salt)) atomicAdd(bad, 1ULL);
}

__global__ void k_spin(unsigned long long ns)
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); while (t - t0 < ns);
}

static void vm(const char *who)
{
    FILE *f = fopen("/proc/self/status", "r");
    char l[256];
    while (f && fgets(l, sizeof l, f))
        if (!strncmp(l, "VmSize", 6) || !strncmp(l, "VmData", 6) || !strncmp(l, "VmRSS", 5)) {
            l[strcspn(l, "\n")] = 0;
            printf("probe: %s %s\n", who, l);
        }
    if (f) fclose(f);
}


/* ---- the sandboxed child: fd 3 commands in, fd 4 words out, fd 5 the allocation */
static int child_main(void)
{
    struct rlimit rl = {8ULL << 30, 8ULL << 30};
    setrlimit(RLIMIT_DATA, &rl);
    double t0 = now();
    CK(cuInit(0));
    CUdevice dev;
    CK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    printf("probe: child context in %.3f s (pid in its namespace %d)\n", now() - t0, (int)getpid());
    size_t bytes = 0;
    if (read(3, &bytes, sizeof bytes) != sizeof bytes) return 2;
    cudaIpcMemHandle_t ih;
    if (read(3, &ih, sizeof ih) != sizeof ih) return 2;
    void *ip = NULL;
    cudaError_t ie = cudaIpcOpenMemHandle(&ip, ih, cudaIpcMemLazyEnablePeerAccess);
    printf("probe: legacy cudaIpcOpenMemHandle across PID/IPC namespaces: %s\n", cudaGetErrorName(ie));
    if (ie == cudaSuccess) {
        unsigned long long *db, hb = 0;
        cudaMalloc(&db, 8);
        cudaMemset(db, 0, 8);
        k_check<<<264, 256>>>((uint32_t *)ip, (64u << 20) / 4, 0x77u, db);
        cudaMemcpy(&hb, db, 8, cudaMemcpyDeviceToHost);
        printf("probe: legacy IPC buffer read in the child: %llu mismatches\n", hb);
        cudaIpcCloseMemHandle(ip);
    }
    cudaGetLastError();
    double a = now();
    CUmemGenericAllocationHandle h;
    CK(cuMemImportFromShareableHandle(&h, (void *)(uintptr_t)5, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    double b = now();
    CUdeviceptr p;
    CK(cuMemAddressReserve(&p, bytes, 0, 0, 0));
    CK(cuMemMap(p, bytes, 0, h, 0));
    double c = now();
    CUmemAccessDesc ad;
    memset(&ad, 0, sizeof ad);
    ad.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    ad.location.id = 0;
    ad.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CK(cuMemSetAccess(p, bytes, &ad, 1));
    double d = now();
    printf("probe: child import %.2f ms, reserve+map %.2f ms, set access %.2f ms for %.1f GiB\n",
           1e3 * (b - a), 1e3 * (c - b), 1e3 * (d - c), bytes / 1073741824.0);
    vm("child after map");
    unsigned long long *db, hb = 0;
    cudaMalloc(&db, 8);
    cudaMemset(db, 0, 8);
    size_t n = bytes / 4;
    k_check<<<264 * 4, 256>>>((const uint32_t *)p, n, 0x5a5a5a5au, db);
    cudaMemcpy(&hb, db, 8, cudaMemcpyDeviceToHost);
    printf("probe: child reads the parent's pattern: %llu mismatches of %zu words\n", hb, n);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    cudaEventRecord(e0);
    k_pattern<<<264 * 4, 256>>>((uint32_t *)p, n, 0xc0ffee00u);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    printf("probe: child writes the whole buffer in %.3f ms (%.0f GB/s): %s\n", ms, bytes / (ms * 1e6),
           cudaGetErrorName(cudaGetLastError()));
    char w = 'd';
    if (write(4, &w, 1) != 1) return 2;
    /* time-slicing: spin 300 ms, tell the parent right after the launch */
    if (read(3, &w, 1) != 1) return 2;
    k_spin<<<132, 128>>>(300000000ULL);
    w = 's';
    if (write(4, &w, 1) != 1) return 2;
    cudaDeviceSynchronize();
    if (read(3, &w, 1) != 1) return 0;   /* the parent says exit */
    return 0;
}

/* ---- a hog: all free memory, then wait */
static int hog_main(void)
{
    cudaFree(0);
    size_t total = 0;
    for (size_t chunk = 4ULL << 30; chunk >= (2u << 20); chunk /= 2) {
        void *p;
        while (cudaMalloc(&p, chunk) == cudaSuccess) total += chunk;
        cudaGetLastError();
    }
    size_t fr = 0, tot = 0;
    cudaMemGetInfo(&fr, &tot);
    printf("probe: hog holds %.2f GiB, free now %.1f MiB\n", total / 1073741824.0, fr / 1048576.0);
    fflush(stdout);
    char w = 'h';
    if (write(4, &w, 1) != 1) return 2;
    if (read(3, &w, 1) != 1) return 0;
    return 0;
}

/* ---- a process that starts while the hog holds the memory */
static int late_main(int driver)
{
    char w;
    if (driver) {
        CUresult r = cuInit(0);
        CUdevice dev;
        CUcontext ctx;
        if (r == CUDA_SUCCESS) r = cuDeviceGet(&dev, 0);
        if (r == CUDA_SUCCESS) r = cuDevicePrimaryCtxRetain(&ctx, dev);
        const char *s = "";
        cuGetErrorName(r, &s);
        printf("probe: driver context under the hog: %s\n", s);
        fflush(stdout);
        w = 'l';
        if (write(4, &w, 1) != 1 || read(3, &w, 1) != 1) return 2;
        if (r != CUDA_SUCCESS) {
            cuDevicePrimaryCtxRelease(dev);
            r = cuDevicePrimaryCtxRetain(&ctx, dev);
        }
        if (r == CUDA_SUCCESS) r = cuCtxSetCurrent(ctx);
        void *p = NULL;
        cudaError_t e = r == CUDA_SUCCESS ? cudaMalloc(&p, 1 << 20) : cudaErrorUnknown;
        cuGetErrorName(r, &s);
        printf("probe: driver context retried after the hog: %s, then cudaMalloc: %s\n", s, cudaGetErrorName(e));
    } else {
        cudaError_t e = cudaFree(0);
        printf("probe: runtime context under the hog: %s\n", cudaGetErrorName(e));
        fflush(stdout);
        w = 'l';
        if (write(4, &w, 1) != 1 || read(3, &w, 1) != 1) return 2;
        cudaGetLastError();
        e = cudaFree(0);
        void *p = NULL;
        cudaError_t e2 = cudaMalloc(&p, 1 << 20);
        printf("probe: runtime context retried after the hog: %s, then cudaMalloc: %s\n", cudaGetErrorName(e),
               cudaGetErrorName(e2));
        if (e != cudaSuccess) {
            cudaDeviceReset();
            cudaGetLastError();
            e = cudaFree(0);
            printf("probe: ... after cudaDeviceReset: %s\n", cudaGetErrorName(e));
        }
    }
    fflush(stdout);
    return 0;
}

typedef struct { pid_t pid; int cmd, rep; } kid;

static kid spawn(const char *self, const char *bwrap, const char *mode, int shm_fd)
{
    int c[2], r[2];
    if (pipe(c) || pipe(r)) exit(1);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(c[0], 3);
        dup2(r[1], 4);
        if (shm_fd >= 0) dup2(shm_fd, 5);
        for (int fd = 6; fd < 1024; fd++) close(fd);
        if (bwrap && *bwrap) {
            execl(bwrap, bwrap, "--ro-bind", "/", "/", "--dev-bind", "/dev", "/dev", "--proc", "/proc",
                  "--tmpfs", "/tmp", "--unshare-pid", "--unshare-ipc", "--unshare-net", "--unshare-uts",
                  "--die-with-parent", "--new-session", "--", self, mode, (char *)NULL);
        } else {
            execl(self, self, mode, (char *)NULL);
        }
        _exit(127);
    }
    close(c[0]);
    close(r[1]);
    kid k = {pid, c[1], r[0]};
    return k;
}

static size_t free_mem(void)
{
    size_t f = 0, t = 0;
    cuMemGetInfo(&f, &t);
    return f;
}

/* wait until free >= target; seconds taken (or -1 after 20 s) */
static double wait_free(size_t target)
{
    double t0 = now();
    while (now() - t0 < 20) {
        if (free_mem() >= target) return now() - t0;
        usleep(1000);
    }
    return -1;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc >= 2 && !strcmp(argv[1], "child")) return child_main();
    if (argc >= 2 && !strcmp(argv[1], "hog")) return hog_main();
    if (argc >= 2 && !strcmp(argv[1], "late_rt")) return late_main(0);
    if (argc >= 2 && !strcmp(argv[1], "late_drv")) return late_main(1);
    const char *bwrap = argc >= 2 ? argv[1] : "";
    double gib = argc >= 3 ? atof(argv[2]) : 12;
    char self[4096];
    ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
    if (sl <= 0) return 1;
    self[sl] = 0;
    signal(SIGPIPE, SIG_IGN);

    CK(cuInit(0));
    CUdevice dev;
    CK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    size_t base = free_mem();
    printf("probe: parent free at start %.2f GiB\n", base / 1073741824.0);

    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    size_t gran = 0;
    CK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    size_t bytes = ((size_t)(gib * 1073741824.0) + gran - 1) / gran * gran;
    double t0 = now();
    CUmemGenericAllocationHandle h;
    CK(cuMemCreate(&h, bytes, &prop, 0));
    double t1 = now();
    int fd = -1;
    CK(cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    double t2 = now();
    CUdeviceptr p;
    CK(cuMemAddressReserve(&p, bytes, 0, 0, 0));
    CK(cuMemMap(p, bytes, 0, h, 0));
    CUmemAccessDesc ad;
    memset(&ad, 0, sizeof ad);
    ad.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    ad.location.id = 0;
    ad.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CK(cuMemSetAccess(p, bytes, &ad, 1));
    double t3 = now();
    printf("probe: parent cuMemCreate %.2f ms, export %.2f ms, reserve+map+access %.2f ms for %.1f GiB (granularity %zu)\n",
           1e3 * (t1 - t0), 1e3 * (t2 - t1), 1e3 * (t3 - t2), bytes / 1073741824.0, gran);
    k_pattern<<<264 * 4, 256>>>((uint32_t *)p, bytes / 4, 0x5a5a5a5au);
    void *legacy = NULL;
    cudaMalloc(&legacy, 64u << 20);
    k_pattern<<<264, 256>>>((uint32_t *)legacy, (64u << 20) / 4, 0x77u);
    cudaDeviceSynchronize();
    cudaIpcMemHandle_t ih;
    cudaError_t ie = cudaIpcGetMemHandle(&ih, legacy);
    printf("probe: cudaIpcGetMemHandle: %s\n", cudaGetErrorName(ie));
    size_t before_child = free_mem();

    kid k = spawn(self, bwrap, "child", fd);
    if (write(k.cmd, &bytes, sizeof bytes) != sizeof bytes || write(k.cmd, &ih, sizeof ih) != sizeof ih) return 1;
    char w;
    if (read(k.rep, &w, 1) != 1) { printf("probe: FAIL the child ended early\n"); return 1; }
    unsigned long long *db, hb = 0;
    cudaMalloc(&db, 8);
    cudaMemset(db, 0, 8);
    k_check<<<264 * 4, 256>>>((const uint32_t *)p, bytes / 4, 0xc0ffee00u, db);
    cudaMemcpy(&hb, db, 8, cudaMemcpyDeviceToHost);
    printf("probe: parent reads the child's writes: %llu mismatches of %zu words\n", hb, bytes / 4);

    /* time-slicing */
    w = 'g';
    if (write(k.cmd, &w, 1) != 1 || read(k.rep, &w, 1) != 1) return 1;
    usleep(5000);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    double s0 = now();
    cudaEventRecord(e0);
    k_spin<<<1, 1>>>(20000000ULL);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    double s1 = now();
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    printf("probe: a 20 ms kernel while the child's 300 ms kernel runs: wall %.2f ms, events %.2f ms\n",
           1e3 * (s1 - s0), ms);
    s0 = now();
    cudaEventRecord(e0);
    k_spin<<<1, 1>>>(20000000ULL);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    s1 = now();
    cudaEventElapsedTime(&ms, e0, e1);
    printf("probe: ... and again right after: wall %.2f ms, events %.2f ms\n", 1e3 * (s1 - s0), ms);
    w = 'x';
    if (write(k.cmd, &w, 1) != 1) return 1;
    int st;
    double x0 = now();
    waitpid(k.pid, &st, 0);
    double x1 = now();
    double back = wait_free(before_child - (64u << 20));
    printf("probe: child exit status %d; waitpid %.3f s; free memory back within 64 MiB after %.3f s more\n",
           WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st), x1 - x0, back);
    close(k.cmd);
    close(k.rep);

    /* a second import of the same fd by a fresh child: the per-session cost */
    kid k2 = spawn(self, bwrap, "child", fd);
    if (write(k2.cmd, &bytes, sizeof bytes) != sizeof bytes || write(k2.cmd, &ih, sizeof ih) != sizeof ih) return 1;
    if (read(k2.rep, &w, 1) != 1) printf("probe: FAIL the second child ended early\n");
    w = 'g';
    if (write(k2.cmd, &w, 1) != 1 || read(k2.rep, &w, 1) != 1) return 1;
    w = 'x';
    if (write(k2.cmd, &w, 1) != 1) return 1;
    waitpid(k2.pid, &st, 0);
    wait_free(before_child - (64u << 20));

    /* the hog */
    cuMemUnmap(p, bytes);
    cuMemRelease(h);
    close(fd);
    cudaFree(legacy);
    size_t f0 = free_mem();
    kid hg = spawn(self, "", "hog", -1);
    if (read(hg.rep, &w, 1) != 1) { printf("probe: FAIL the hog ended early\n"); return 1; }
    kid l1 = spawn(self, "", "late_rt", -1);
    kid l2 = spawn(self, "", "late_drv", -1);
    if (read(l1.rep, &w, 1) != 1 || read(l2.rep, &w, 1) != 1) printf("probe: a late process ended early\n");
    size_t fh = free_mem();
    w = 'x';
    if (write(hg.cmd, &w, 1) != 1) return 1;
    x0 = now();
    waitpid(hg.pid, &st, 0);
    x1 = now();
    back = wait_free(f0 - (1ULL << 30));
    printf("probe: free with the hog %.1f MiB; hog exit %.3f s; free back within 1 GiB of %.2f GiB after %.3f s more\n",
           fh / 1048576.0, x1 - x0, f0 / 1073741824.0, back);
    if (write(l1.cmd, &w, 1) != 1 || write(l2.cmd, &w, 1) != 1) return 1;
    waitpid(l1.pid, &st, 0);
    waitpid(l2.pid, &st, 0);
    printf("probe: done\n");
    return 0;
}
