/* common_planted.h: what every planted program shares. Each program plants
 * exactly one bug, on the line marked "PLANTED: <kind>", and declares it in
 * sanitize.expect (a unit test checks the two agree). Without a GPU each
 * exits 2 with its WAIVED line. After the planted kernel a CUDA error is
 * reported but not fatal: under memcheck the tool may end the context, and
 * the program's job is only to run the bug, so it still exits 0. */
#ifndef PLANTED_COMMON_H
#define PLANTED_COMMON_H
#include <stdio.h>
#include <cuda_runtime.h>
#include "cuda_check.h"
#include "device.h"

static inline void planted_setup(const char *name)
{
    device_info dev;
    device_setup_or_exit(name, 0, 0, &dev);
}

/* Synchronize after the planted kernel; say what came back, never exit. */
static inline void planted_sync(const char *name)
{
    cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess) e = cudaGetLastError();
    printf("# %s: planted kernel finished: %s\n", name, cudaGetErrorString(e));
}

static inline int planted_done(const char *name)
{
    printf("%s: PASS (the bug ran; compute-sanitizer judges it)\n", name);
    return 0;
}
#endif
