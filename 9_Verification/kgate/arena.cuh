/* arena.cuh: the GPU memory the judge shares with the harness (proto.h,
 * "the arena"), through the driver's virtual memory API: the judge creates
 * it (cuMemCreate) and exports it as a file descriptor, which travels to the
 * sandboxed harness with the MAP command; the harness imports and maps it.
 * A file descriptor crosses the sandbox's PID and IPC namespaces as any
 * descriptor does (on the H200: 12 GiB created in 0.1 ms, imported and
 * mapped in the harness in 0.5 ms; tests/gpu_vmm_probe.cu).
 *
 * The driver's functions are looked up through the runtime
 * (cudaGetDriverEntryPointByVersion), so neither program links libcuda and
 * both still start on a machine without a GPU driver (--dry-run, the tests).
 * Included by judge.cu and sandboxed/harness.cu. */
#ifndef KGATE_ARENA_CUH
#define KGATE_ARENA_CUH

#include <cuda.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    CUresult (*create)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *, unsigned long long);
    CUresult (*release)(CUmemGenericAllocationHandle);
    CUresult (*granularity)(size_t *, const CUmemAllocationProp *, CUmemAllocationGranularity_flags);
    CUresult (*export_fd)(void *, CUmemGenericAllocationHandle, CUmemAllocationHandleType, unsigned long long);
    CUresult (*import_fd)(CUmemGenericAllocationHandle *, void *, CUmemAllocationHandleType);
    CUresult (*reserve)(CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long);
    CUresult (*free_va)(CUdeviceptr, size_t);
    CUresult (*map)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long);
    CUresult (*unmap)(CUdeviceptr, size_t);
    CUresult (*set_access)(CUdeviceptr, size_t, const CUmemAccessDesc *, size_t);
    int ok;
} kg_vmm;

/* The entry points, once (after the context exists). 0, or -1 with what failed. */
static inline int kg_vmm_load(kg_vmm *v, const char **what)
{
    if (v->ok) return 0;
    struct { const char *name; void **fn; } t[] = {
        {"cuMemCreate", (void **)&v->create},
        {"cuMemRelease", (void **)&v->release},
        {"cuMemGetAllocationGranularity", (void **)&v->granularity},
        {"cuMemExportToShareableHandle", (void **)&v->export_fd},
        {"cuMemImportFromShareableHandle", (void **)&v->import_fd},
        {"cuMemAddressReserve", (void **)&v->reserve},
        {"cuMemAddressFree", (void **)&v->free_va},
        {"cuMemMap", (void **)&v->map},
        {"cuMemUnmap", (void **)&v->unmap},
        {"cuMemSetAccess", (void **)&v->set_access},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        cudaDriverEntryPointQueryResult q;
        if (cudaGetDriverEntryPointByVersion(t[i].name, t[i].fn, 12000, cudaEnableDefault, &q) != cudaSuccess ||
            q != cudaDriverEntryPointSuccess || !*t[i].fn) {
            if (what) *what = t[i].name;
            return -1;
        }
    }
    v->ok = 1;
    return 0;
}

static inline CUmemAllocationProp kg_vmm_prop(int device)
{
    CUmemAllocationProp p;
    memset(&p, 0, sizeof p);
    p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    p.location.id = device;
    p.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    return p;
}

/* Bytes rounded up to the allocation granularity of the device. */
static inline size_t kg_vmm_round(kg_vmm *v, int device, size_t bytes)
{
    CUmemAllocationProp p = kg_vmm_prop(device);
    size_t g = 0;
    if (v->granularity(&g, &p, CU_MEM_ALLOC_GRANULARITY_MINIMUM) != CUDA_SUCCESS || g == 0) g = (size_t)2 << 20;
    return (bytes + g - 1) / g * g;
}

/* Map an allocation handle at a fresh address, read-write for this device. */
static inline CUresult kg_vmm_map(kg_vmm *v, int device, CUmemGenericAllocationHandle h, size_t bytes, CUdeviceptr *out)
{
    CUdeviceptr p = 0;
    CUresult r = v->reserve(&p, bytes, 0, 0, 0);
    if (r != CUDA_SUCCESS) return r;
    r = v->map(p, bytes, 0, h, 0);
    if (r != CUDA_SUCCESS) {
        v->free_va(p, bytes);
        return r;
    }
    CUmemAccessDesc a;
    memset(&a, 0, sizeof a);
    a.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    a.location.id = device;
    a.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    r = v->set_access(p, bytes, &a, 1);
    if (r != CUDA_SUCCESS) {
        v->unmap(p, bytes);
        v->free_va(p, bytes);
        return r;
    }
    *out = p;
    return CUDA_SUCCESS;
}

static inline void kg_vmm_unmap(kg_vmm *v, CUdeviceptr p, size_t bytes)
{
    if (!p) return;
    v->unmap(p, bytes);
    v->free_va(p, bytes);
}

#endif
