/* bw_util.c: bandwidthTest's host-only parts (see bw_util.h). */
#include "bw_util.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>


/* ---- PCIe --------------------------------------------------------------- */

/* NVML, declared here (no nvml.h at build time): every call returns an
 * nvmlReturn_t, 0 = NVML_SUCCESS. */
typedef struct nvml_device_st *nvml_device;
typedef int (*nvml_init_fn)(void);
typedef int (*nvml_shutdown_fn)(void);
typedef int (*nvml_handle_str_fn)(const char *, nvml_device *);
typedef int (*nvml_uint_fn)(nvml_device, unsigned int *);

void pcie_query(const char *pci_bus_id, const char *uuid, pcie_link *out)
{
    memset(out, 0, sizeof *out);
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(out->why, sizeof out->why, "NVML not available (libnvidia-ml.so.1 not found)");
        return;
    }
    nvml_init_fn init = (nvml_init_fn)dlsym(lib, "nvmlInit_v2");
    nvml_shutdown_fn shutdown = (nvml_shutdown_fn)dlsym(lib, "nvmlShutdown");
    nvml_handle_str_fn by_bus = (nvml_handle_str_fn)dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2");
    nvml_handle_str_fn by_uuid = (nvml_handle_str_fn)dlsym(lib, "nvmlDeviceGetHandleByUUID");
    nvml_uint_fn max_gen = (nvml_uint_fn)dlsym(lib, "nvmlDeviceGetMaxPcieLinkGeneration");
    nvml_uint_fn max_width = (nvml_uint_fn)dlsym(lib, "nvmlDeviceGetMaxPcieLinkWidth");
    nvml_uint_fn cur_gen = (nvml_uint_fn)dlsym(lib, "nvmlDeviceGetCurrPcieLinkGeneration");
    nvml_uint_fn cur_width = (nvml_uint_fn)dlsym(lib, "nvmlDeviceGetCurrPcieLinkWidth");
    if (!init || !shutdown || !by_bus || !by_uuid || !max_gen || !max_width || !cur_gen ||
        !cur_width) {
        snprintf(out->why, sizeof out->why, "NVML lacks the PCIe link functions");
        dlclose(lib);
        return;
    }
    int rc = init();
    if (rc != 0) {
        snprintf(out->why, sizeof out->why, "nvmlInit failed (NVML error %d)", rc);
        dlclose(lib);
        return;
    }
    nvml_device dev = NULL;
    rc = (pci_bus_id && *pci_bus_id) ? by_bus(pci_bus_id, &dev) : -1;
    if (rc != 0 && uuid && *uuid) rc = by_uuid(uuid, &dev);
    if (rc != 0) {
        snprintf(out->why, sizeof out->why, "NVML does not know the device at %s / %s (error %d)",
                 pci_bus_id ? pci_bus_id : "?", uuid ? uuid : "?", rc);
    } else {
        unsigned mg = 0, mw = 0, cg = 0, cw = 0;
        if (max_gen(dev, &mg) == 0 && max_width(dev, &mw) == 0 && mg > 0 && mw > 0) {
            out->available = 1;
            out->max_gen = (int)mg;
            out->max_width = (int)mw;
            if (cur_gen(dev, &cg) == 0) out->cur_gen = (int)cg;
            if (cur_width(dev, &cw) == 0) out->cur_width = (int)cw;
        } else {
            snprintf(out->why, sizeof out->why,
                     "NVML reports no PCIe link for this device (e.g. NVLink-C2C attached)");
        }
    }
    shutdown();
    dlclose(lib);
}

/* ---- size plans --------------------------------------------------------- */

static void set_err(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
}

int bw_plan_sizes(bw_mode mode, long long quick_size, long long start, long long end,
                  long long inc, long long shmoo_max, long long *sizes, int cap, char *err,
                  size_t errlen)
{
    int n = 0;
    switch (mode) {
    case BW_MODE_QUICK:
        if (quick_size <= 0) {
            set_err(err, errlen, "--size=%lld: must be at least 1 byte", quick_size);
            return -1;
        }
        if (cap < 1) return -1;
        sizes[n++] = quick_size;
        return n;
    case BW_MODE_RANGE:
        if (start <= 0) {
            set_err(err, errlen, "--start=%lld: must be at least 1 byte", start);
            return -1;
        }
        if (end <= 0) {
            set_err(err, errlen, "--end=%lld: must be at least 1 byte", end);
            return -1;
        }
        if (inc <= 0) {
            set_err(err, errlen, "--increment=%lld: must be at least 1 byte", inc);
            return -1;
        }
        if (start > end) {
            set_err(err, errlen, "--start=%lld is larger than --end=%lld", start, end);
            return -1;
        }
        if ((end - start) / inc + 1 > cap) {
            set_err(err, errlen,
                    "--increment=%lld gives %lld sizes between --start and --end; at most %d",
                    inc, (end - start) / inc + 1, cap);
            return -1;
        }
        for (long long s = start; s <= end; s += inc) {
            sizes[n++] = s;
            if (s > end - inc) break;   /* no overflow past LLONG_MAX */
        }
        return n;
    case BW_MODE_SHMOO:
        if (shmoo_max < BW_SHMOO_MIN) {
            set_err(err, errlen, "shmoo: largest size %lld is below %lld bytes", shmoo_max,
                    BW_SHMOO_MIN);
            return -1;
        }
        for (long long s = BW_SHMOO_MIN; s <= shmoo_max && n < cap; s *= 2) sizes[n++] = s;
        return n;
    }
    set_err(err, errlen, "unknown mode %lld", (long long)mode);
    return -1;
}

int bw_batch_for(size_t bytes)
{
    if (bytes == 0) return 1;
    size_t target = (size_t)64 << 20;
    size_t b = (target + bytes - 1) / bytes;
    if (b < 1) b = 1;
    if (b > 100) b = 100;
    return (int)b;
}

double bw_gbps(size_t bytes, int copies, double ms, int read_plus_write)
{
    if (ms <= 0) return 0.0;
    return (double)bytes * copies * (read_plus_write ? 2.0 : 1.0) / (ms * 1e6);
}

int bw_d2d_rotation(size_t bytes, long long l2_bytes)
{
    unsigned long long l2 = l2_bytes > 0 ? (unsigned long long)l2_bytes : 256ULL << 20;
    unsigned long long span = 4 * l2;
    if (bytes == 0 || bytes >= span) return 1;
    return (int)((span + bytes - 1) / bytes);
}

size_t bw_flush_bytes(long long llc_bytes)
{
    unsigned long long b = llc_bytes > 0 ? (unsigned long long)llc_bytes : 256ULL << 20;
    b = b + b / 2;
    if (b < (32ULL << 20)) b = 32ULL << 20;
    if (b > (1ULL << 30)) b = 1ULL << 30;
    return (size_t)b;
}

/* ---- results ------------------------------------------------------------ */

int bw_above_peak(const bw_row *row)
{
    return row->peak_gbps > 0 && row->gbps > row->peak_gbps;
}

void bw_fill_record(result_rec *r, const bw_row *row)
{
    rec_begin(r, row->variant);
    rec_int(r, "device", row->device);
    rec_int(r, "bytes", (long long)row->bytes);
    rec_str(r, "direction", row->direction);
    rec_str(r, "memory", row->memory);
    rec_str(r, "status", row->ok ? "PASS" : "FAIL");
    if (!row->ok) return;   /* a wrong copy is not a figure */
    rec_perf(r, row->time_ms, "gbps", row->gbps, row->peak_gbps, NULL, 0);
    if (row->peak_gbps > 0) rec_num(r, "peak_gbps", row->peak_gbps);
    rec_str(r, "peak", row->peak_basis ? row->peak_basis : "unknown");
    rec_str(r, "counted", row->counted);
    rec_int(r, "batch", row->batch);
    rec_int(r, "trials", row->trials);
    rec_str(r, "timing", row->timing);
    rec_int(r, "buffers", row->buffers > 0 ? row->buffers : 1);
}

static const char *const csv_cols[] = {
    "sample", "variant", "device", "bytes", "direction", "memory", "status", "time_ms",
    "gbps", "pct_peak", "peak_gbps", "peak", "counted", "batch", "trials", "timing", "buffers",
};
#define N_CSV ((int)(sizeof csv_cols / sizeof csv_cols[0]))

int bw_csv_header(char *buf, size_t len)
{
    size_t at = 0;
    if (len == 0) return -1;
    buf[0] = '\0';
    for (int i = 0; i < N_CSV; i++) {
        int n = snprintf(buf + at, len - at, "%s%s", i ? "," : "", csv_cols[i]);
        if (n < 0 || (size_t)n >= len - at) return -1;
        at += (size_t)n;
    }
    return (int)at;
}

static int csv_cell(char *buf, size_t len, size_t *at, const char *v)
{
    int quote = strpbrk(v, ",\"\r\n") != NULL;
    const char *s = v;
    if (quote) {
        if (*at + 1 >= len) return -1;
        buf[(*at)++] = '"';
    }
    for (; *s; s++) {
        int twice = quote && *s == '"';
        if (*at + 1 + twice >= len) return -1;
        if (twice) buf[(*at)++] = '"';
        buf[(*at)++] = *s;
    }
    if (quote) {
        if (*at + 1 >= len) return -1;
        buf[(*at)++] = '"';
    }
    buf[*at] = '\0';
    return 0;
}

int bw_csv_format(const result_rec *r, char *buf, size_t len)
{
    size_t at = 0;
    if (len == 0) return -1;
    buf[0] = '\0';
    for (int i = 0; i < N_CSV; i++) {
        if (i) {
            if (at + 1 >= len) return -1;
            buf[at++] = ',';
            buf[at] = '\0';
        }
        for (int k = 0; k < r->n; k++) {
            if (strcmp(r->f[k].key, csv_cols[i]) != 0) continue;
            if (r->f[k].type != REC_NULL && csv_cell(buf, len, &at, r->f[k].val) != 0) return -1;
            break;
        }
    }
    return (int)at;
}
