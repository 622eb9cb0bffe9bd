/* dq_info.h: what deviceQuery knows about a device, as a plain struct, and
 * the two ways it prints it (text for people, one JSON document for scripts).
 *
 * deviceQuery.cu fills the structs from the runtime API; dq_format.c prints
 * them. Keeping the printing in host-only C means a unit test can feed a
 * made-up device (an unknown architecture, a name with quotes, two devices
 * with a peer matrix) and validate the JSON with a strict parser.
 *
 * Conventions: an attribute the runtime could not report is -1 and prints as
 * "unknown" (JSON null). Clocks are in kHz as the runtime gives them.
 */
#ifndef DQ_INFO_H
#define DQ_INFO_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int id;
    char name[256];
    unsigned char uuid[16];
    int pci_domain, pci_bus, pci_device;
    int cc_major, cc_minor;
    int sm_count;
    int sm_clock_khz, mem_clock_khz, bus_width_bits;
    size_t total_mem;
    long long free_mem;             /* -1: no context could be created */
    int l2_bytes, persisting_l2_max, access_policy_max_window;
    long long const_mem, smem_per_block, smem_per_block_optin, smem_per_sm, smem_reserved_per_block;
    int regs_per_block, regs_per_sm;
    int max_threads_per_block, max_threads_per_sm, max_blocks_per_sm, warp_size;
    int max_block[3], max_grid[3];
    int async_engines;
    int ecc, compute_mode, kernel_timeout, integrated, tcc_driver, can_map_host;
    int concurrent_kernels, stream_priorities, compute_preemption;
    int unified_addressing, managed_memory, concurrent_managed, pageable_access;
    int pageable_host_page_tables, direct_managed_from_host, host_native_atomics;
    int memory_pools, cooperative_launch, cluster_launch, gpudirect_rdma, host_register;
    int ipc_events, multi_gpu_board, multi_gpu_board_group;
    int numa_config, numa_id, host_numa_id, mps_enabled;
} dq_device;

typedef struct {
    int driver_version, runtime_version;   /* 13000 = 13.0 */
    int device_count;                      /* devices in the system */
    int n;                                 /* devices described in devs */
    const dq_device *devs;
    /* device_count x device_count, or NULL (one device, or --device=N):
     * peer[i * device_count + j] = 1 if device i can access device j's memory. */
    const int *peer;
} dq_system;

/* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (the form nvidia-smi prints). */
/* "0000:3b:00.0"; a domain above 0xffff in full ("10000:01:00.0");
 * "unknown" when the runtime could not say. */
void dq_pci_text(const dq_device *d, char *buf, size_t len);
/* "Default", "Prohibited", "Exclusive Process", ... or "unknown". */
const char *dq_compute_mode_text(int mode);
/* 1 if the device is a MIG instance: the runtime says so only in its name. */
int dq_is_mig(const dq_device *d);

/* The whole system as one JSON document on one line, ending with
 * "status":<status>. Returns a malloc'd string (free it), NULL if out of memory. */
char *dq_json(const dq_system *s, const char *status);

/* The same content for people. */
void dq_print_text(const dq_system *s, FILE *f);

#ifdef __cplusplus
}
#endif
#endif /* DQ_INFO_H */
