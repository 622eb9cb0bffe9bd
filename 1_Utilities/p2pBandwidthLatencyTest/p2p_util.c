/* p2p_util.c: p2pBandwidthLatencyTest's host-only parts (see p2p_util.h). */
#include "p2p_util.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "device.h"   /* pcie_peak_gbps */

/* ---- matrices ------------------------------------------------------------ */

/* Append to buf at *at; -1 once it no longer fits. */
static int put(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
    if (*at >= len) return -1;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *at, len - *at, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= len - *at) {
        buf[*at] = '\0';
        *at = len;
        return -1;
    }
    *at += (size_t)n;
    return 0;
}

#define CELL_W 10   /* every column, labels included, is this wide */

int p2p_format_matrix(char *buf, size_t len, const char *title, const char *corner, int rows,
                      const char *const *row_labels, int cols, const double *v, const int *state,
                      int decimals)
{
    size_t at = 0;
    if (len == 0) return -1;
    buf[0] = '\0';
    if (rows < 0 || cols < 0) return -1;
    if (put(buf, len, &at, "%s\n%*s", title, CELL_W, corner ? corner : "") < 0) return -1;
    for (int j = 0; j < cols; j++)
        if (put(buf, len, &at, "%*d", CELL_W, j) < 0) return -1;
    if (put(buf, len, &at, "\n") < 0) return -1;
    for (int i = 0; i < rows; i++) {
        int rc = row_labels ? put(buf, len, &at, "%*s", CELL_W, row_labels[i])
                            : put(buf, len, &at, "%*d", CELL_W, i);
        if (rc < 0) return -1;
        for (int j = 0; j < cols; j++) {
            int k = i * cols + j, s = state ? state[k] : CELL_OK;
            if (s == CELL_OK) rc = put(buf, len, &at, "%*.*f", CELL_W, decimals, v[k]);
            else rc = put(buf, len, &at, "%*s", CELL_W,
                          s == CELL_FAIL ? "FAIL" : s == CELL_NA ? "n/a" : "-");
            if (rc < 0) return -1;
        }
        if (put(buf, len, &at, "\n") < 0) return -1;
    }
    return (int)at;
}

/* ---- records ------------------------------------------------------------- */

static const char *const engine_names[] = {"ce", "sm_read", "sm_write"};

const char *p2p_engine_name(int engine)
{
    return engine >= 0 && engine < 3 ? engine_names[engine] : "?";
}

void p2p_variant_name(char *buf, size_t len, int engine, int bidir, int p2p_on)
{
    if (engine == 0)
        snprintf(buf, len, "ce_%s_p2p_%s", bidir ? "bi" : "uni", p2p_on ? "on" : "off");
    else
        snprintf(buf, len, "%s_%s", p2p_engine_name(engine), bidir ? "bi" : "uni");
}

double p2p_gbps(size_t bytes, int transfers, double ms)
{
    if (ms <= 0) return 0.0;
    return (double)bytes * transfers / (ms * 1e6);
}

int p2p_batch_for(size_t bytes)
{
    if (bytes == 0) return 1;
    size_t target = (size_t)64 << 20;
    size_t b = (target + bytes - 1) / bytes;
    if (b < 1) b = 1;
    if (b > 100) b = 100;
    return (int)b;
}

void p2p_fill_record(result_rec *r, const p2p_row *row)
{
    rec_begin(r, row->variant);
    rec_int(r, "src", row->src);
    rec_int(r, "dst", row->dst);
    rec_int(r, "bytes", (long long)row->bytes);
    rec_str(r, "status", row->ok ? "PASS" : "FAIL");
    if (row->p2p) rec_str(r, "p2p", row->p2p);
    /* a copy within one GPU is there for comparison: not the sample's
     * headline (tools/run_samples.sh skips rows with a role) */
    if (row->src == row->dst && row->src >= 0) rec_str(r, "role", "context");
    if (!row->ok) return;   /* a wrong transfer is not a figure */
    rec_num(r, "time_ms", row->time_ms);
    if (row->latency) {
        rec_num(r, "lat_us", row->lat_us);
        rec_num(r, "min_us", row->min_us);
    } else {
        rec_num(r, "gbps", row->gbps);
        if (row->peak_gbps > 0) {
            rec_num(r, "pct_peak", 100.0 * row->gbps / row->peak_gbps);
            rec_num(r, "peak_gbps", row->peak_gbps);
        }
        rec_str(r, "peak", row->peak_basis ? row->peak_basis : "unknown");
        rec_int(r, "batch", row->batch);
    }
    rec_int(r, "samples", row->samples);
    rec_str(r, "timing", row->timing ? row->timing : "events");
}

static const char *const csv_cols[] = {
    "sample", "variant", "src", "dst", "bytes", "status", "p2p", "time_ms", "gbps",
    "pct_peak", "peak_gbps", "peak", "lat_us", "min_us", "batch", "samples", "timing",
    "type", "via", "links", "rank", "access", "atomics",
};
#define N_CSV ((int)(sizeof csv_cols / sizeof csv_cols[0]))

int p2p_csv_header(char *buf, size_t len)
{
    size_t at = 0;
    if (len == 0) return -1;
    buf[0] = '\0';
    for (int i = 0; i < N_CSV; i++)
        if (put(buf, len, &at, "%s%s", i ? "," : "", csv_cols[i]) < 0) return -1;
    return (int)at;
}

/* One cell, quoted when it holds a comma, a quote or a line break. */
static int csv_cell(char *buf, size_t len, size_t *at, const char *v)
{
    int quote = strpbrk(v, ",\"\r\n") != NULL;
    if (quote && put(buf, len, at, "\"") < 0) return -1;
    for (const char *s = v; *s; s++) {
        if (quote && *s == '"' && put(buf, len, at, "\"") < 0) return -1;
        if (put(buf, len, at, "%c", *s) < 0) return -1;
    }
    if (quote && put(buf, len, at, "\"") < 0) return -1;
    return 0;
}

int p2p_csv_format(const result_rec *r, char *buf, size_t len)
{
    size_t at = 0;
    if (len == 0) return -1;
    buf[0] = '\0';
    for (int i = 0; i < N_CSV; i++) {
        if (i && put(buf, len, &at, ",") < 0) return -1;
        for (int k = 0; k < r->n; k++) {
            if (strcmp(r->f[k].key, csv_cols[i]) != 0) continue;
            if (r->f[k].type != REC_NULL && csv_cell(buf, len, &at, r->f[k].val) < 0) return -1;
            break;
        }
    }
    return (int)at;
}

/* ---- links --------------------------------------------------------------- */

int nvlink_generation(int cc_major, int cc_minor)
{
    if (cc_major == 6 && cc_minor == 0) return 1;    /* P100 */
    if (cc_major == 7 && cc_minor == 0) return 2;    /* V100 */
    if (cc_major == 8 && cc_minor == 0) return 3;    /* A100 */
    if (cc_major == 9 && cc_minor == 0) return 4;    /* H100, H200 */
    if (cc_major == 10 && (cc_minor == 0 || cc_minor == 3)) return 5;   /* B200, B300 */
    return 0;
}

double nvlink_gbps_per_link(int cc_major, int cc_minor)
{
    switch (nvlink_generation(cc_major, cc_minor)) {
    case 1: return 20.0;
    case 2: case 3: case 4: return 25.0;
    case 5: return 50.0;
    default: return 0.0;
    }
}

void p2p_classify_link(const p2p_link_facts *f, p2p_link *o)
{
    memset(o, 0, sizeof *o);
    snprintf(o->via, sizeof o->via, "-");
    snprintf(o->peak_basis, sizeof o->peak_basis, "unknown");
    if (f->same) {
        snprintf(o->type, sizeof o->type, "local");
        snprintf(o->how, sizeof o->how, "the same device");
        return;
    }
    double per_link = nvlink_gbps_per_link(f->cc_major, f->cc_minor);
    int gen = nvlink_generation(f->cc_major, f->cc_minor);
    if (f->nvml == 1 && (f->links_direct > 0 || f->nvml_nvlink_p2p == 1)) {
        snprintf(o->type, sizeof o->type, "nvlink");
        if (f->links_direct > 0) {
            snprintf(o->via, sizeof o->via, "direct");
            o->links = f->links_direct;
            snprintf(o->how, sizeof o->how, "NVML: %d active NVLink%s end at the peer",
                     o->links, o->links == 1 ? "" : "s");
        } else {
            /* Through NVSwitch every link of a GPU reaches every peer: the
             * narrower GPU's links bound the path. */
            snprintf(o->via, sizeof o->via, f->src_to_switch ? "nvswitch" : "indirect");
            o->links = f->links_src < f->links_dst ? f->links_src : f->links_dst;
            if (o->links < 0) o->links = 0;
            snprintf(o->how, sizeof o->how,
                     "NVML: NVLink P2P status OK, %d and %d active links%s", f->links_src,
                     f->links_dst, f->src_to_switch ? " to NVSwitch" : "");
        }
        if (per_link > 0 && o->links > 0) {
            o->peak_gbps = per_link * o->links;
            snprintf(o->peak_basis, sizeof o->peak_basis, "nvlink%d_x%d", gen, o->links);
        }
        return;
    }
    if (f->nvml == 1) {
        snprintf(o->type, sizeof o->type, "pcie");
        snprintf(o->via, sizeof o->via, f->access == 1 ? "direct" : "host");
        double pk = pcie_peak_gbps(f->pcie_gen, f->pcie_width);
        if (pk > 0) {
            o->peak_gbps = pk;
            snprintf(o->peak_basis, sizeof o->peak_basis, "pcie_gen%d_x%d", f->pcie_gen,
                     f->pcie_width);
        }
        snprintf(o->how, sizeof o->how, "NVML: no NVLink between them; %s",
                 f->access == 1 ? "peer access over PCIe" : "no peer access: copies staged through the host");
        return;
    }
    if (f->measured_gbps > P2P_PCIE5_X16_GBPS * 1.05) {
        snprintf(o->type, sizeof o->type, "nvlink");
        snprintf(o->how, sizeof o->how,
                 "no NVML; inferred: the measured %.1f GB/s is above PCIe 5.0 x16 (%.1f GB/s)",
                 f->measured_gbps, P2P_PCIE5_X16_GBPS);
        return;
    }
    snprintf(o->type, sizeof o->type, "unknown");
    if (f->measured_gbps > 0)
        snprintf(o->how, sizeof o->how,
                 "no NVML; the measured %.1f GB/s is within PCIe's range: NVLink or PCIe cannot "
                 "be told apart", f->measured_gbps);
    else
        snprintf(o->how, sizeof o->how, "no NVML and no P2P figure measured");
}

/* ---- NVML ------------------------------------------------------------------
 * Declared here (no nvml.h at build time). Every call returns an
 * nvmlReturn_t, 0 = NVML_SUCCESS. nvmlPciInfo_t as NVML 11/12 define it;
 * only domain, bus and device are read, and the buffer has room to spare. */
typedef struct nvml_device_st *nvml_device;
typedef struct {
    char bus_id_legacy[16];
    unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
    char bus_id[32];
    char spare[64];
} nvml_pci_info;

typedef int (*nvml_void_fn)(void);
typedef int (*nvml_handle_str_fn)(const char *, nvml_device *);
typedef int (*nvml_uint_fn)(nvml_device, unsigned *);
typedef int (*nvml_link_uint_fn)(nvml_device, unsigned, unsigned *);
typedef int (*nvml_link_pci_fn)(nvml_device, unsigned, nvml_pci_info *);
typedef int (*nvml_p2p_fn)(nvml_device, nvml_device, int, int *);
#define NVML_P2P_CAPS_INDEX_NVLINK 2
#define NVML_P2P_STATUS_OK 0
#define NVML_FEATURE_ENABLED 1

void p2p_nvml_query(int n, const int *domain, const int *bus, const int *device,
                    p2p_nvml_info *out)
{
    memset(out, 0, sizeof *out);
    memset(out->nvlink_p2p, -1, sizeof out->nvlink_p2p);
    if (n > P2P_MAX_GPUS) n = P2P_MAX_GPUS;
    out->n = n;
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(out->why, sizeof out->why, "NVML not available (libnvidia-ml.so.1 not found)");
        return;
    }
    nvml_void_fn init = (nvml_void_fn)dlsym(lib, "nvmlInit_v2");
    nvml_void_fn shutdown = (nvml_void_fn)dlsym(lib, "nvmlShutdown");
    nvml_handle_str_fn by_bus = (nvml_handle_str_fn)dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2");
    nvml_link_uint_fn state = (nvml_link_uint_fn)dlsym(lib, "nvmlDeviceGetNvLinkState");
    nvml_link_uint_fn version = (nvml_link_uint_fn)dlsym(lib, "nvmlDeviceGetNvLinkVersion");
    nvml_link_uint_fn remote_type =
        (nvml_link_uint_fn)dlsym(lib, "nvmlDeviceGetNvLinkRemoteDeviceType");
    nvml_link_pci_fn remote_pci = (nvml_link_pci_fn)dlsym(lib, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
    nvml_p2p_fn p2p = (nvml_p2p_fn)dlsym(lib, "nvmlDeviceGetP2PStatus");
    nvml_uint_fn max_gen = (nvml_uint_fn)dlsym(lib, "nvmlDeviceGetMaxPcieLinkGeneration");
    nvml_uint_fn max_width = (nvml_uint_fn)dlsym(lib, "nvmlDeviceGetMaxPcieLinkWidth");
    if (!init || !shutdown || !by_bus) {
        snprintf(out->why, sizeof out->why, "NVML lacks nvmlInit_v2 / nvmlDeviceGetHandleByPciBusId_v2");
        dlclose(lib);
        return;
    }
    int rc = init();
    if (rc != 0) {
        snprintf(out->why, sizeof out->why, "nvmlInit failed (NVML error %d)", rc);
        dlclose(lib);
        return;
    }
    out->available = 1;
    nvml_device h[P2P_MAX_GPUS];
    for (int i = 0; i < n; i++) {
        p2p_nvml_gpu *g = &out->gpu[i];
        char id[32];
        snprintf(id, sizeof id, "%04x:%02x:%02x.0", (unsigned)domain[i], (unsigned)bus[i],
                 (unsigned)device[i]);
        h[i] = NULL;
        g->nvlink_version = -1;
        if (by_bus(id, &h[i]) != 0) continue;
        g->found = 1;
        unsigned v = 0;
        if (max_gen && max_gen(h[i], &v) == 0) g->pcie_gen = (int)v;
        if (max_width && max_width(h[i], &v) == 0) g->pcie_width = (int)v;
        for (unsigned l = 0; state && l < P2P_MAX_LINKS; l++) {
            unsigned on = 0;
            g->remote_kind[l] = -1;
            if (state(h[i], l, &on) != 0) break;   /* past the device's last link */
            if (on != NVML_FEATURE_ENABLED) continue;
            g->link_active[l] = 1;
            g->links_active++;
            unsigned ver = 0;
            if (g->nvlink_version < 0 && version && version(h[i], l, &ver) == 0)
                g->nvlink_version = (int)ver;
            unsigned t = 0;
            if (remote_type && remote_type(h[i], l, &t) == 0)
                g->remote_kind[l] = t == 0 ? 0 : t == 1 ? 1 : t == 2 ? 2 : -1;
            nvml_pci_info pci;
            memset(&pci, 0, sizeof pci);
            if (remote_pci && remote_pci(h[i], l, &pci) == 0) {
                g->remote_domain[l] = pci.domain;
                g->remote_bus[l] = pci.bus;
                g->remote_device[l] = pci.device;
            }
        }
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            int st = -1;
            if (i == j || !p2p || !out->gpu[i].found || !out->gpu[j].found) continue;
            if (p2p(h[i], h[j], NVML_P2P_CAPS_INDEX_NVLINK, &st) == 0)
                out->nvlink_p2p[i][j] = st == NVML_P2P_STATUS_OK ? 1 : 0;
        }
    shutdown();
    dlclose(lib);
}

int p2p_links_to(const p2p_nvml_gpu *g, unsigned domain, unsigned bus, unsigned device)
{
    int k = 0;
    for (int l = 0; l < P2P_MAX_LINKS; l++)
        if (g->link_active[l] && g->remote_kind[l] != 2 && g->remote_domain[l] == domain &&
            g->remote_bus[l] == bus && g->remote_device[l] == device)
            k++;
    return k;
}

int p2p_links_to_switch(const p2p_nvml_gpu *g)
{
    for (int l = 0; l < P2P_MAX_LINKS; l++)
        if (g->link_active[l] && g->remote_kind[l] == 2) return 1;
    return 0;
}
