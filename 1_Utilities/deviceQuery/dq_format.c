/* dq_format.c: deviceQuery's text and JSON output, from one field table. */
#include "dq_info.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"

/* ---- the field table: one row per plain attribute, printed both ways ---- */

typedef enum {
    K_INT,        /* a count or a limit */
    K_BOOL,       /* yes / no */
    K_BYTES,      /* int or long long byte count, shown with KiB/MiB */
    K_LBYTES,     /* long long byte count */
    K_KHZ,        /* clock in kHz, shown in MHz */
    K_MODE,       /* compute mode */
    K_NUMA,       /* NUMA node id, -1 = none */
    K_NUMACFG     /* NUMA configuration */
} kind;

typedef struct {
    const char *key;    /* JSON key */
    const char *label;  /* text label */
    kind k;
    size_t off;
} field;

#define F(key, label, k, member) {key, label, k, offsetof(dq_device, member)}

/* Shown after the identity block (name, UUID, PCI, CC, SMs, lanes, peaks). */
static const field fields[] = {
    F("sm_clock_khz", "SM clock (peak)", K_KHZ, sm_clock_khz),
    F("memory_clock_khz", "Memory clock (peak)", K_KHZ, mem_clock_khz),
    F("memory_bus_width_bits", "Memory bus width (bits)", K_INT, bus_width_bits),
    F("l2_cache_bytes", "L2 cache", K_BYTES, l2_bytes),
    F("persisting_l2_max_bytes", "Persisting L2 max", K_BYTES, persisting_l2_max),
    F("access_policy_max_window_bytes", "Access policy max window", K_BYTES, access_policy_max_window),
    F("constant_memory_bytes", "Constant memory", K_LBYTES, const_mem),
    F("shared_mem_per_block_bytes", "Shared memory per block", K_LBYTES, smem_per_block),
    F("shared_mem_per_block_optin_bytes", "Shared memory per block (opt-in)", K_LBYTES, smem_per_block_optin),
    F("shared_mem_per_sm_bytes", "Shared memory per SM", K_LBYTES, smem_per_sm),
    F("shared_mem_reserved_per_block_bytes", "Shared memory reserved per block", K_LBYTES, smem_reserved_per_block),
    F("registers_per_block", "32-bit registers per block", K_INT, regs_per_block),
    F("registers_per_sm", "32-bit registers per SM", K_INT, regs_per_sm),
    F("max_threads_per_block", "Max threads per block", K_INT, max_threads_per_block),
    F("max_threads_per_sm", "Max threads per SM", K_INT, max_threads_per_sm),
    F("max_blocks_per_sm", "Max blocks per SM", K_INT, max_blocks_per_sm),
    F("warp_size", "Warp size", K_INT, warp_size),
    F("async_copy_engines", "Copy engines", K_INT, async_engines),
    F("concurrent_kernels", "Concurrent kernels", K_BOOL, concurrent_kernels),
    F("ecc_enabled", "ECC enabled", K_BOOL, ecc),
    F("compute_mode", "Compute mode", K_MODE, compute_mode),
    F("kernel_exec_timeout", "Kernel run time limit (watchdog)", K_BOOL, kernel_timeout),
    F("integrated", "Integrated GPU", K_BOOL, integrated),
    F("tcc_driver", "TCC driver (Windows)", K_BOOL, tcc_driver),
    F("can_map_host_memory", "Can map host memory", K_BOOL, can_map_host),
    F("unified_addressing", "Unified addressing (UVA)", K_BOOL, unified_addressing),
    F("managed_memory", "Managed memory", K_BOOL, managed_memory),
    F("concurrent_managed_access", "Concurrent managed access", K_BOOL, concurrent_managed),
    F("pageable_memory_access", "Pageable memory access", K_BOOL, pageable_access),
    F("pageable_access_uses_host_page_tables", "Pageable access via host page tables", K_BOOL, pageable_host_page_tables),
    F("direct_managed_access_from_host", "Direct managed access from host", K_BOOL, direct_managed_from_host),
    F("host_native_atomics", "Host native atomics", K_BOOL, host_native_atomics),
    F("host_register_supported", "cudaHostRegister supported", K_BOOL, host_register),
    F("memory_pools", "Memory pools (cudaMallocAsync)", K_BOOL, memory_pools),
    F("cooperative_launch", "Cooperative launch", K_BOOL, cooperative_launch),
    F("cluster_launch", "Thread block cluster launch", K_BOOL, cluster_launch),
    F("stream_priorities", "Stream priorities", K_BOOL, stream_priorities),
    F("compute_preemption", "Compute preemption", K_BOOL, compute_preemption),
    F("gpudirect_rdma", "GPUDirect RDMA", K_BOOL, gpudirect_rdma),
    F("ipc_events", "IPC events", K_BOOL, ipc_events),
    F("multi_gpu_board", "Multi-GPU board", K_BOOL, multi_gpu_board),
    F("multi_gpu_board_group_id", "Multi-GPU board group id", K_INT, multi_gpu_board_group),
    F("numa_config", "NUMA configuration", K_NUMACFG, numa_config),
    F("numa_id", "NUMA node of device memory", K_NUMA, numa_id),
    F("host_numa_id", "NUMA node of the host near it", K_NUMA, host_numa_id),
    F("mps_enabled", "MPS enabled", K_BOOL, mps_enabled),
};
#define N_FIELDS ((int)(sizeof fields / sizeof fields[0]))

static long long field_value(const dq_device *d, const field *f)
{
    const char *p = (const char *)d + f->off;
    if (f->k == K_LBYTES) return *(const long long *)p;
    return *(const int *)p;
}

/* ---- small helpers ------------------------------------------------------ */

/* The PCI domain is 32 bits wide: Linux numbers VMD and some virtualised
 * buses from 0x10000 up, so it is printed in full (at least 4 digits), never
 * masked to 16. */
void dq_pci_text(const dq_device *d, char *buf, size_t len)
{
    if (d->pci_domain < 0 || d->pci_bus < 0 || d->pci_device < 0) {
        snprintf(buf, len, "unknown");
        return;
    }
    snprintf(buf, len, "%04x:%02x:%02x.0", (unsigned)d->pci_domain, (unsigned)d->pci_bus & 0xffu,
             (unsigned)d->pci_device & 0xffu);
}

const char *dq_compute_mode_text(int mode)
{
    switch (mode) {
    case 0: return "Default";                /* cudaComputeModeDefault */
    case 1: return "Exclusive Thread";       /* cudaComputeModeExclusive (deprecated) */
    case 2: return "Prohibited";             /* cudaComputeModeProhibited */
    case 3: return "Exclusive Process";      /* cudaComputeModeExclusiveProcess */
    default: return "unknown";
    }
}

static const char *numa_config_text(int c)
{
    switch (c) {
    case 0: return "none";                   /* cudaDeviceNumaConfigNone */
    case 1: return "NUMA node";              /* cudaDeviceNumaConfigNumaNode */
    default: return "unknown";
    }
}

int dq_is_mig(const dq_device *d) { return strstr(d->name, " MIG ") != NULL; }

/* ---- a growing string --------------------------------------------------- */

typedef struct {
    char *p;
    size_t len, cap;
    int oom;
} sbuf;

static void sb_vprintf(sbuf *b, const char *fmt, va_list ap)
{
    if (b->oom) return;
    for (;;) {
        va_list aq;
        va_copy(aq, ap);
        int n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, aq);
        va_end(aq);
        if (n < 0) { b->oom = 1; return; }
        if (b->p && b->len + (size_t)n < b->cap) { b->len += (size_t)n; return; }
        size_t cap = b->cap ? b->cap : 4096;
        while (cap <= b->len + (size_t)n) cap *= 2;
        char *q = (char *)realloc(b->p, cap);
        if (!q) { b->oom = 1; return; }
        b->p = q;
        b->cap = cap;
    }
}

static void sb_printf(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(b, fmt, ap);
    va_end(ap);
}

static void sb_json_string(sbuf *b, const char *s)
{
    sb_printf(b, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"') sb_printf(b, "\\\"");
        else if (c == '\\') sb_printf(b, "\\\\");
        else if (c < 0x20 || c == 0x7f) sb_printf(b, "\\u%04x", c);
        else if (c >= 0x80) sb_printf(b, "?");   /* device names are ASCII; never emit bad UTF-8 */
        else sb_printf(b, "%c", c);
    }
    sb_printf(b, "\"");
}

static void sb_json_num(sbuf *b, double v)
{
    char t[64];
    snprintf(t, sizeof t, "%.6g", v);
    sb_printf(b, "%s", t);
}

/* ---- JSON --------------------------------------------------------------- */

static void json_field(sbuf *b, const dq_device *d, const field *f)
{
    long long v = field_value(d, f);
    sb_printf(b, ",\"%s\":", f->key);
    switch (f->k) {
    case K_BOOL:
        if (v < 0) sb_printf(b, "null");
        else sb_printf(b, v ? "true" : "false");
        break;
    case K_MODE:
        sb_json_string(b, dq_compute_mode_text((int)v));
        break;
    case K_NUMACFG:
        sb_json_string(b, numa_config_text((int)v));
        break;
    default:   /* numbers; -1 (unknown, or no NUMA node) is null */
        if (v < 0) sb_printf(b, "null");
        else sb_printf(b, "%lld", v);
        break;
    }
}

static void json_device(sbuf *b, const dq_device *d)
{
    char t[64];
    sb_printf(b, "{\"id\":%d,\"name\":", d->id);
    sb_json_string(b, d->name);
    device_uuid_text(d->uuid, t, sizeof t);
    sb_printf(b, ",\"uuid\":\"%s\"", t);
    dq_pci_text(d, t, sizeof t);
    const int pci[3] = {d->pci_domain, d->pci_bus, d->pci_device};
    const char *pci_keys[3] = {"domain", "bus", "device"};
    sb_printf(b, ",\"pci\":{");
    for (int k = 0; k < 3; k++) {   /* -1 (unknown) is null */
        if (pci[k] < 0) sb_printf(b, "\"%s\":null,", pci_keys[k]);
        else sb_printf(b, "\"%s\":%d,", pci_keys[k], pci[k]);
    }
    sb_printf(b, "\"bus_id\":\"%s\"}", t);
    sb_printf(b, ",\"compute_capability\":\"%d.%d\",\"cc_major\":%d,\"cc_minor\":%d",
              d->cc_major, d->cc_minor, d->cc_major, d->cc_minor);
    sb_printf(b, ",\"architecture\":");
    sb_json_string(b, arch_name(d->cc_major, d->cc_minor));
    sb_printf(b, ",\"sm_count\":%d", d->sm_count);
    int lanes = fp32_lanes_per_sm(d->cc_major, d->cc_minor);
    if (lanes > 0) sb_printf(b, ",\"fp32_lanes_per_sm\":%d", lanes);
    else sb_printf(b, ",\"fp32_lanes_per_sm\":null");
    sb_printf(b, ",\"total_memory_bytes\":%llu", (unsigned long long)d->total_mem);
    if (d->free_mem >= 0) sb_printf(b, ",\"free_memory_bytes\":%lld", d->free_mem);
    else sb_printf(b, ",\"free_memory_bytes\":null");
    double bw = peak_bandwidth_gbps(d->mem_clock_khz, d->bus_width_bits);
    double fl = peak_fp32_gflops(d->sm_count, lanes, d->sm_clock_khz);
    sb_printf(b, ",\"peak_memory_bandwidth_gbps\":");
    if (bw > 0) sb_json_num(b, bw); else sb_printf(b, "null");
    sb_printf(b, ",\"peak_fp32_gflops\":");
    if (fl > 0) sb_json_num(b, fl); else sb_printf(b, "null");
    /* dense tensor-core rates (common/device.h); null where the table does not know the chip */
    double tf = peak_tensor_gflops(d->sm_count, d->cc_major, d->cc_minor, TENSOR_TF32, d->sm_clock_khz);
    double bf = peak_tensor_gflops(d->sm_count, d->cc_major, d->cc_minor, TENSOR_BF16, d->sm_clock_khz);
    sb_printf(b, ",\"peak_tf32_gflops\":");
    if (tf > 0) sb_printf(b, "%.1f", tf); else sb_printf(b, "null");   /* %.6g would go to 1e+06 */
    sb_printf(b, ",\"peak_bf16_gflops\":");
    if (bf > 0) sb_printf(b, "%.1f", bf); else sb_printf(b, "null");
    sb_printf(b, ",\"max_block_dims\":[%d,%d,%d],\"max_grid_dims\":[%d,%d,%d]", d->max_block[0],
              d->max_block[1], d->max_block[2], d->max_grid[0], d->max_grid[1], d->max_grid[2]);
    for (int i = 0; i < N_FIELDS; i++) json_field(b, d, &fields[i]);
    sb_printf(b, ",\"mig_instance\":%s}", dq_is_mig(d) ? "true" : "false");
}

char *dq_json(const dq_system *s, const char *status)
{
    sbuf b = {NULL, 0, 0, 0};
    char drv[16], rt[16];
    cuda_version_text(s->driver_version, drv, sizeof drv);
    cuda_version_text(s->runtime_version, rt, sizeof rt);
    sb_printf(&b, "{\"sample\":\"deviceQuery\",\"driver_version\":\"%s\",\"runtime_version\":\"%s\","
                  "\"driver_version_int\":%d,\"runtime_version_int\":%d,\"device_count\":%d,"
                  "\"devices\":[",
              drv, rt, s->driver_version, s->runtime_version, s->device_count);
    for (int i = 0; i < s->n; i++) {
        if (i) sb_printf(&b, ",");
        json_device(&b, &s->devs[i]);
    }
    sb_printf(&b, "]");
    if (s->peer) {
        /* rows: accessing device; columns: device whose memory is accessed;
         * null on the diagonal (a device always reaches its own memory). */
        sb_printf(&b, ",\"peer_access\":[");
        for (int i = 0; i < s->device_count; i++) {
            sb_printf(&b, "%s[", i ? "," : "");
            for (int j = 0; j < s->device_count; j++) {
                int v = s->peer[i * s->device_count + j];
                sb_printf(&b, "%s%s", j ? "," : "", i == j ? "null" : (v ? "true" : "false"));
            }
            sb_printf(&b, "]");
        }
        sb_printf(&b, "]");
    }
    sb_printf(&b, ",\"status\":");
    sb_json_string(&b, status ? status : "PASS");
    sb_printf(&b, "}");
    if (b.oom) {
        free(b.p);
        return NULL;
    }
    return b.p;
}

/* ---- text --------------------------------------------------------------- */

static void text_bytes(FILE *f, const char *label, long long v)
{
    if (v < 0) { fprintf(f, "  %-40s unknown\n", label); return; }
    if (v >= (1LL << 30))
        fprintf(f, "  %-40s %lld bytes (%.2f GiB)\n", label, v, v / 1073741824.0);
    else if (v >= (1LL << 20))
        fprintf(f, "  %-40s %lld bytes (%.2f MiB)\n", label, v, v / 1048576.0);
    else if (v >= 1024)
        fprintf(f, "  %-40s %lld bytes (%.2f KiB)\n", label, v, v / 1024.0);
    else
        fprintf(f, "  %-40s %lld bytes\n", label, v);
}

static void text_field(FILE *f, const dq_device *d, const field *fd)
{
    long long v = field_value(d, fd);
    const char *l = fd->label;
    switch (fd->k) {
    case K_INT:
        if (v < 0) fprintf(f, "  %-40s unknown\n", l);
        else fprintf(f, "  %-40s %lld\n", l, v);
        break;
    case K_BOOL:
        fprintf(f, "  %-40s %s\n", l, v < 0 ? "unknown" : (v ? "yes" : "no"));
        break;
    case K_BYTES:
    case K_LBYTES:
        text_bytes(f, l, v);
        break;
    case K_KHZ:
        if (v <= 0) fprintf(f, "  %-40s unknown\n", l);
        else fprintf(f, "  %-40s %.0f MHz\n", l, v / 1000.0);
        break;
    case K_MODE:
        fprintf(f, "  %-40s %s\n", l, dq_compute_mode_text((int)v));
        break;
    case K_NUMA:
        if (v < 0) fprintf(f, "  %-40s none\n", l);
        else fprintf(f, "  %-40s %lld\n", l, v);
        break;
    case K_NUMACFG:
        fprintf(f, "  %-40s %s\n", l, numa_config_text((int)v));
        break;
    }
}

static void text_device(FILE *f, const dq_device *d)
{
    char t[64];
    fprintf(f, "Device %d: %s\n", d->id, d->name);
    device_uuid_text(d->uuid, t, sizeof t);
    fprintf(f, "  %-40s %s\n", "UUID", t);
    dq_pci_text(d, t, sizeof t);
    fprintf(f, "  %-40s %s (domain %d, bus %d, device %d)\n", "PCI bus id", t, d->pci_domain,
            d->pci_bus, d->pci_device);
    fprintf(f, "  %-40s %d.%d (%s)\n", "Compute capability", d->cc_major, d->cc_minor,
            arch_name(d->cc_major, d->cc_minor));
    fprintf(f, "  %-40s %d\n", "Multiprocessors (SMs)", d->sm_count);
    int lanes = fp32_lanes_per_sm(d->cc_major, d->cc_minor);
    if (lanes > 0)
        fprintf(f, "  %-40s %d (%d in all)\n", "FP32 lanes per SM", lanes, lanes * d->sm_count);
    else
        fprintf(f, "  %-40s unknown (compute capability %d.%d is not in the table)\n",
                "FP32 lanes per SM", d->cc_major, d->cc_minor);
    text_bytes(f, "Total global memory", (long long)d->total_mem);
    if (d->free_mem >= 0) text_bytes(f, "Free global memory (now)", d->free_mem);
    else fprintf(f, "  %-40s unknown (no context on this device)\n", "Free global memory (now)");
    double bw = peak_bandwidth_gbps(d->mem_clock_khz, d->bus_width_bits);
    double fl = peak_fp32_gflops(d->sm_count, lanes, d->sm_clock_khz);
    if (bw > 0)
        fprintf(f, "  %-40s %.1f GB/s (memory clock x 2 x bus width / 8)\n",
                "Peak memory bandwidth (theoretical)", bw);
    else
        fprintf(f, "  %-40s unknown\n", "Peak memory bandwidth (theoretical)");
    if (fl > 0)
        fprintf(f, "  %-40s %.1f GFLOP/s (SMs x lanes x 2 x SM clock)\n",
                "Peak FP32 (theoretical)", fl);
    else
        fprintf(f, "  %-40s unknown\n", "Peak FP32 (theoretical)");
    double tf = peak_tensor_gflops(d->sm_count, d->cc_major, d->cc_minor, TENSOR_TF32, d->sm_clock_khz);
    double bf = peak_tensor_gflops(d->sm_count, d->cc_major, d->cc_minor, TENSOR_BF16, d->sm_clock_khz);
    if (tf > 0)
        fprintf(f, "  %-40s %.1f GFLOP/s TF32, %.1f GFLOP/s BF16 (dense, SMs x per-SM rate x clock)\n",
                "Peak tensor cores (theoretical)", tf, bf);
    else
        fprintf(f, "  %-40s unknown for this architecture\n", "Peak tensor cores (theoretical)");
    fprintf(f, "  %-40s %d x %d x %d\n", "Max block dimensions", d->max_block[0], d->max_block[1],
            d->max_block[2]);
    fprintf(f, "  %-40s %d x %d x %d\n", "Max grid dimensions", d->max_grid[0], d->max_grid[1],
            d->max_grid[2]);
    for (int i = 0; i < N_FIELDS; i++) text_field(f, d, &fields[i]);
    fprintf(f, "  %-40s %s\n", "MIG instance (from the device name)", dq_is_mig(d) ? "yes" : "no");
}

void dq_print_text(const dq_system *s, FILE *f)
{
    char drv[16], rt[16];
    cuda_version_text(s->driver_version, drv, sizeof drv);
    cuda_version_text(s->runtime_version, rt, sizeof rt);
    fprintf(f, "CUDA driver version %s (%d), runtime version %s (%d)\n", drv, s->driver_version,
            rt, s->runtime_version);
    fprintf(f, "%d CUDA device%s in this system%s\n\n", s->device_count,
            s->device_count == 1 ? "" : "s",
            s->n < s->device_count ? " (showing the one asked for)" : "");
    for (int i = 0; i < s->n; i++) {
        text_device(f, &s->devs[i]);
        fputc('\n', f);
    }
    if (s->peer) {
        fprintf(f, "Peer access (row device can access column device's memory):\n      ");
        for (int j = 0; j < s->device_count; j++) fprintf(f, " %4d", j);
        fputc('\n', f);
        for (int i = 0; i < s->device_count; i++) {
            fprintf(f, "  %4d", i);
            for (int j = 0; j < s->device_count; j++)
                fprintf(f, " %4s", i == j ? "-" : (s->peer[i * s->device_count + j] ? "yes" : "no"));
            fputc('\n', f);
        }
        fputc('\n', f);
    }
}
