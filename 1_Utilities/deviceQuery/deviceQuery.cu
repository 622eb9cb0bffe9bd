/* deviceQuery: every property of every CUDA device, for people and scripts.
 *
 * What it teaches: where each number about a GPU comes from in the runtime
 * API. CUDA 13 removed the clock, compute-mode and watchdog fields from
 * cudaDeviceProp, so those come from cudaDeviceGetAttribute; the FP32 lanes
 * per SM come from the suite's table (common/device.c), which says "unknown"
 * for an architecture it does not know instead of guessing; the theoretical
 * peaks are computed from those (memory clock x 2 x bus width / 8, and
 * SMs x lanes x 2 x SM clock).
 *
 * Build:  make -C 1_Utilities/deviceQuery       (or `make deviceQuery` at the top)
 * Run:    bin/deviceQuery                       every device, text, peer-access matrix
 *         bin/deviceQuery --device=1            one device
 *         bin/deviceQuery --json                one JSON document on one line (for scripts;
 *                                               pretty-print with `python3 -m json.tool`)
 * --quick is accepted and changes nothing (the query is cheap); --reps and
 * --seed mean nothing here and are refused.
 * Uses only the runtime API. Without a GPU it exits 2 with the runtime's
 * reason (no driver loaded vs. no device).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>

#include "cuda_check.h"
#include "device.h"
#include "dq_info.h"
#include "options.h"
#include "report.h"

/* ---- querying ---------------------------------------------------------- */

static int g_attr_errors = 0;
static char g_first_attr_error[160] = "";

/* One attribute; an attribute this driver does not know becomes -1
 * ("unknown" in the output) and a note on stderr naming it, not a crash.
 * ATTR(cudaDevAttrX, dev) passes the attribute's name along. */
static int attr_named(enum cudaDeviceAttr a, const char *name, int dev)
{
    int v = 0;
    cudaError_t e = cudaDeviceGetAttribute(&v, a, dev);
    if (e != cudaSuccess) {
        fprintf(stderr, "deviceQuery: note: device %d: cudaDeviceGetAttribute(%s) failed: %s\n",
                dev, name, cudaGetErrorString(e));
        if (g_attr_errors++ == 0)
            snprintf(g_first_attr_error, sizeof g_first_attr_error, "%s on device %d: %s", name,
                     dev, cudaGetErrorString(e));
        return -1;
    }
    return v;
}
#define attr(a, dev) attr_named(a, #a, dev)

static void query_device(int id, dq_device *d)
{
    struct cudaDeviceProp p;
    memset(d, 0, sizeof *d);
    CUDA_CHECK(cudaGetDeviceProperties(&p, id));
    d->id = id;
    snprintf(d->name, sizeof d->name, "%s", p.name);
    memcpy(d->uuid, p.uuid.bytes, 16);
    d->total_mem = p.totalGlobalMem;
    d->const_mem = (long long)p.totalConstMem;
    d->smem_per_block = (long long)p.sharedMemPerBlock;
    d->smem_per_block_optin = (long long)p.sharedMemPerBlockOptin;
    d->smem_per_sm = (long long)p.sharedMemPerMultiprocessor;
    d->smem_reserved_per_block = (long long)p.reservedSharedMemPerBlock;

    d->pci_domain = attr(cudaDevAttrPciDomainId, id);
    d->pci_bus = attr(cudaDevAttrPciBusId, id);
    d->pci_device = attr(cudaDevAttrPciDeviceId, id);
    d->cc_major = attr(cudaDevAttrComputeCapabilityMajor, id);
    d->cc_minor = attr(cudaDevAttrComputeCapabilityMinor, id);
    d->sm_count = attr(cudaDevAttrMultiProcessorCount, id);
    d->sm_clock_khz = attr(cudaDevAttrClockRate, id);
    d->mem_clock_khz = attr(cudaDevAttrMemoryClockRate, id);
    d->bus_width_bits = attr(cudaDevAttrGlobalMemoryBusWidth, id);
    d->l2_bytes = attr(cudaDevAttrL2CacheSize, id);
    d->persisting_l2_max = attr(cudaDevAttrMaxPersistingL2CacheSize, id);
    d->access_policy_max_window = attr(cudaDevAttrMaxAccessPolicyWindowSize, id);
    d->regs_per_block = attr(cudaDevAttrMaxRegistersPerBlock, id);
    d->regs_per_sm = attr(cudaDevAttrMaxRegistersPerMultiprocessor, id);
    d->max_threads_per_block = attr(cudaDevAttrMaxThreadsPerBlock, id);
    d->max_threads_per_sm = attr(cudaDevAttrMaxThreadsPerMultiProcessor, id);
    d->max_blocks_per_sm = attr(cudaDevAttrMaxBlocksPerMultiprocessor, id);
    d->warp_size = attr(cudaDevAttrWarpSize, id);
    d->max_block[0] = attr(cudaDevAttrMaxBlockDimX, id);
    d->max_block[1] = attr(cudaDevAttrMaxBlockDimY, id);
    d->max_block[2] = attr(cudaDevAttrMaxBlockDimZ, id);
    d->max_grid[0] = attr(cudaDevAttrMaxGridDimX, id);
    d->max_grid[1] = attr(cudaDevAttrMaxGridDimY, id);
    d->max_grid[2] = attr(cudaDevAttrMaxGridDimZ, id);
    d->async_engines = attr(cudaDevAttrAsyncEngineCount, id);
    d->concurrent_kernels = attr(cudaDevAttrConcurrentKernels, id);
    d->ecc = attr(cudaDevAttrEccEnabled, id);
    d->compute_mode = attr(cudaDevAttrComputeMode, id);
    d->kernel_timeout = attr(cudaDevAttrKernelExecTimeout, id);
    d->integrated = attr(cudaDevAttrIntegrated, id);
    d->tcc_driver = attr(cudaDevAttrTccDriver, id);
    d->can_map_host = attr(cudaDevAttrCanMapHostMemory, id);
    d->unified_addressing = attr(cudaDevAttrUnifiedAddressing, id);
    d->managed_memory = attr(cudaDevAttrManagedMemory, id);
    d->concurrent_managed = attr(cudaDevAttrConcurrentManagedAccess, id);
    d->pageable_access = attr(cudaDevAttrPageableMemoryAccess, id);
    d->pageable_host_page_tables = attr(cudaDevAttrPageableMemoryAccessUsesHostPageTables, id);
    d->direct_managed_from_host = attr(cudaDevAttrDirectManagedMemAccessFromHost, id);
    d->host_native_atomics = attr(cudaDevAttrHostNativeAtomicSupported, id);
    d->host_register = attr(cudaDevAttrHostRegisterSupported, id);
    d->memory_pools = attr(cudaDevAttrMemoryPoolsSupported, id);
    d->cooperative_launch = attr(cudaDevAttrCooperativeLaunch, id);
    d->cluster_launch = attr(cudaDevAttrClusterLaunch, id);
    d->stream_priorities = attr(cudaDevAttrStreamPrioritiesSupported, id);
    d->compute_preemption = attr(cudaDevAttrComputePreemptionSupported, id);
    d->gpudirect_rdma = attr(cudaDevAttrGPUDirectRDMASupported, id);
    d->ipc_events = attr(cudaDevAttrIpcEventSupport, id);
    d->multi_gpu_board = attr(cudaDevAttrIsMultiGpuBoard, id);
    d->multi_gpu_board_group = attr(cudaDevAttrMultiGpuBoardGroupID, id);
    d->numa_config = attr(cudaDevAttrNumaConfig, id);
    d->numa_id = attr(cudaDevAttrNumaId, id);
    d->host_numa_id = attr(cudaDevAttrHostNumaId, id);
    d->mps_enabled = attr(cudaDevAttrMpsEnabled, id);

    /* Free memory needs a context on the device. A device in Prohibited
     * compute mode (or fully taken in Exclusive Process mode) refuses one:
     * that is information, not a failure of this program. */
    d->free_mem = -1;
    size_t free_b = 0, total_b = 0;
    cudaError_t e = cudaSetDevice(id);
    if (e == cudaSuccess) e = cudaMemGetInfo(&free_b, &total_b);
    if (e == cudaSuccess) {
        d->free_mem = (long long)free_b;
    } else {
        fprintf(stderr, "deviceQuery: note: device %d: no context (%s): free memory unknown\n",
                id, cudaGetErrorString(e));
        cudaGetLastError();   /* clear it: the other queries do not depend on it */
    }
}

/* ---- options ----------------------------------------------------------- */

/* deviceQuery measures nothing: --reps and --seed mean nothing here and are
 * refused; --quick is accepted (every harness passes it) and changes nothing,
 * so it is not listed either. --device and --json say what they do here. */
static const opt_spec dq_opts[] = {
    OPT_COMMON_OMIT_SPEC("reps"),
    OPT_COMMON_OMIT_SPEC("seed"),
    OPT_COMMON_OMIT_SPEC("quick"),
    OPT_COMMON_TEXT_SPEC("device",
                         "device N alone, or all (the default): every device and the peer-access matrix"),
    OPT_COMMON_TEXT_SPEC("json", "print everything as one JSON document, on one line, instead of text"),
};

static const opts_config cfg = {
    "deviceQuery", "every property of every CUDA device, as text or one JSON document",
    dq_opts, (int)(sizeof dq_opts / sizeof dq_opts[0]),
    "Without --device (or with --device=all), every device is shown, then the peer-access\n"
    "matrix when there are several; --device=N shows device N alone. With --json, stdout holds\n"
    "that one JSON document and nothing else (its last key is \"status\"); notes and the\n"
    "closing line go to stderr. --quick is accepted and changes nothing: the query is cheap.",
    1};

int main(int argc, char **argv)
{
    common_opts o;
    opts_parse_or_exit(&cfg, argc, argv, &o);
    /* --device=N restricts the output; without it every device is shown */
    int one = o.device_given && !o.all_devices;

    report_init("deviceQuery", o.json);
    int count = device_count_or_waive("deviceQuery");
    if (one && o.device >= count) {
        /* report_fail + report_finish: with --json the closing line is JSON too */
        report_fail("--device=%d but this machine has %d CUDA device%s (0..%d)", o.device, count,
                    count == 1 ? "" : "s", count - 1);
        return report_finish();
    }

    dq_system sys;
    memset(&sys, 0, sizeof sys);
    CUDA_CHECK(cudaDriverGetVersion(&sys.driver_version));
    CUDA_CHECK(cudaRuntimeGetVersion(&sys.runtime_version));
    sys.device_count = count;
    sys.n = one ? 1 : count;
    dq_device *devs = (dq_device *)calloc((size_t)sys.n, sizeof *devs);
    int *peer = NULL;
    if (!devs) {
        report_fail("out of host memory");
        return report_finish();
    }
    for (int i = 0; i < sys.n; i++) query_device(one ? o.device : i, &devs[i]);
    sys.devs = devs;

    if (!one && count > 1) {
        peer = (int *)calloc((size_t)count * count, sizeof *peer);
        if (!peer) {
            report_fail("out of host memory");
            free(devs);
            return report_finish();
        }
        for (int i = 0; i < count; i++)
            for (int j = 0; j < count; j++)
                if (i != j) CUDA_CHECK(cudaDeviceCanAccessPeer(&peer[i * count + j], i, j));
        sys.peer = peer;
    }

    int rc = 0;
    if (o.json) {
        /* One JSON document, so no separate closing record: the status is
         * its last key. The closing line for people goes to stderr. */
        char *doc = dq_json(&sys, "PASS");
        if (!doc) {
            report_fail("out of host memory");
            rc = report_finish();
        } else {
            printf("%s\n", doc);
            fflush(stdout);
            fprintf(stderr, "deviceQuery: PASS\n");
            free(doc);
        }
    } else {
        dq_print_text(&sys, stdout);
        if (g_attr_errors)
            report_note("%d attribute%s could not be read (shown as unknown; see stderr); the "
                        "first: %s", g_attr_errors, g_attr_errors == 1 ? "" : "s",
                        g_first_attr_error);
        rc = report_finish();
    }
    free(peer);
    free(devs);
    return rc;
}
