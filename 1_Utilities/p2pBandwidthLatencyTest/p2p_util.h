/* p2p_util.h: p2pBandwidthLatencyTest's host-only parts, unit-tested on the
 * CPU: the text matrices, the RESULT/JSON record and its CSV form, the
 * verification pattern, the link classification (NVLink or PCIe, and the
 * peak it implies) and the NVML query behind it (loaded at run time).
 */
#ifndef P2P_UTIL_H
#define P2P_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "report.h"

#ifdef __cplusplus
extern "C" {
#endif

#define P2P_MAX_GPUS 64
#define P2P_MAX_LINKS 18   /* NVML_NVLINK_MAX_LINKS in NVML 12 */

/* ---- matrices ------------------------------------------------------------ */

/* What a cell of a matrix holds. */
enum { CELL_NONE = 0,   /* not measured here (bidirectional diagonal): "-" */
       CELL_OK,         /* a verified figure */
       CELL_FAIL,       /* the transfer was wrong: "FAIL", never a figure */
       CELL_NA };       /* impossible here (an SM copy without peer access): "n/a" */

/* A table as text, one line per row, every line ending in '\n':
 *
 *   <title>
 *      D\D         0         1
 *        0   2103.41    390.12
 *        1    389.93   2101.20
 *
 * rows x cols values, row-major; state[i] says how cell i is shown (NULL:
 * all CELL_OK). row_labels NULL numbers the rows 0, 1, ...; corner is the
 * text above the row labels. Returns the length, or -1 if buf is too small. */
int p2p_format_matrix(char *buf, size_t len, const char *title, const char *corner, int rows,
                      const char *const *row_labels, int cols, const double *v, const int *state,
                      int decimals);

/* ---- records ------------------------------------------------------------- */

typedef struct {
    const char *variant;    /* ce_uni_p2p_on, sm_read_bi, lat_ce_p2p_off, lat_h2d, ... */
    int src, dst;           /* device ids; -1 is the host */
    size_t bytes;           /* per transfer */
    const char *p2p;        /* "on", "off", "unavailable" (enabled but no peer access), "-" */
    int ok;                 /* verified; 0: FAIL and no figures */
    int latency;            /* 1: a latency row (lat_us, min_us), 0: bandwidth (gbps) */
    double time_ms;         /* median per transfer (per pair of transfers when bidirectional) */
    double gbps;            /* bytes moved / time, 1e9 bytes per GB (both directions when bi) */
    double peak_gbps;       /* of the link; 0: unknown */
    const char *peak_basis; /* "nvlink4_x18", "pcie_gen5_x16", "hbm", "unknown" */
    double lat_us, min_us;  /* latency rows */
    int batch;              /* transfers per timed trial (bandwidth) */
    int samples;            /* trials (bandwidth) or timed copies (latency) */
    const char *timing;     /* "events+spin" or "events" */
} p2p_row;

/* The RESULT / JSON record of a row (report.h), fixed keys first:
 * variant src dst bytes, then status, then the figures. A diagonal row
 * (src == dst, a copy within one GPU) carries role=context. */
void p2p_fill_record(result_rec *r, const p2p_row *row);

/* CSV: a header line and one line per record, the columns in a fixed order
 * (a record's missing keys are empty cells; RFC 4180 quoting). No newline.
 * Return the length, or -1 if the buffer is too small. */
int p2p_csv_header(char *buf, size_t len);
int p2p_csv_format(const result_rec *r, char *buf, size_t len);

/* Variant names: "<engine>_<uni|bi>[_p2p_on|_p2p_off]" for bandwidth
 * (the SM engines exist only with peer access, so they carry no suffix). */
const char *p2p_engine_name(int engine);    /* 0 ce, 1 sm_read, 2 sm_write */
void p2p_variant_name(char *buf, size_t len, int engine, int bidir, int p2p_on);

/* GB/s of `transfers` transfers of `bytes` each in `ms` milliseconds. */
double p2p_gbps(size_t bytes, int transfers, double ms);

/* Transfers per timed trial: about 64 MiB moved per trial, 1 to 100. */
int p2p_batch_for(size_t bytes);

/* ---- links --------------------------------------------------------------- */

/* NVLink data rate per link and direction, GB/s, from the compute
 * capability (the generation of NVLink the GPU has): 6.0 NVLink1 20;
 * 7.0 NVLink2, 8.0 NVLink3, 9.0 NVLink4 25; 10.x NVLink5 50. 0 if unknown
 * (no NVLink, or an architecture this table does not know). */
double nvlink_gbps_per_link(int cc_major, int cc_minor);
/* NVLink generation for those compute capabilities; 0 if unknown. */
int nvlink_generation(int cc_major, int cc_minor);
/* PCIe 5.0 x16, the fastest link a GPU of this generation has over PCIe:
 * a measured peer copy above it (by 5%) cannot have used PCIe. */
#define P2P_PCIE5_X16_GBPS 63.0

/* What is known about the path between two GPUs. -1 means unknown. */
typedef struct {
    int same;              /* the same device (the diagonal) */
    int access;            /* cudaDeviceCanAccessPeer */
    int perf_rank;         /* cudaDevP2PAttrPerformanceRank (lower is better) */
    int atomics;           /* cudaDevP2PAttrNativeAtomicSupported */
    int nvml;              /* 1: NVML answered for both GPUs */
    int nvml_nvlink_p2p;   /* nvmlDeviceGetP2PStatus(NVLINK) == OK: 1, else 0; -1 unknown */
    int links_direct;      /* active NVLinks of src whose far end is dst */
    int links_src, links_dst;   /* active NVLinks of each GPU in all */
    int src_to_switch;     /* src has active links to an NVSwitch */
    int pcie_gen, pcie_width;   /* the slower of the two GPUs' PCIe links; 0 unknown */
    int cc_major, cc_minor;
    double measured_gbps;  /* copy engine, unidirectional, P2P on; 0: not measured */
} p2p_link_facts;

typedef struct {
    char type[16];         /* "local", "nvlink", "pcie", "unknown" */
    char via[16];          /* "direct", "nvswitch", "host" (staged), "-" */
    int links;             /* NVLinks on the path (per direction), 0 if not NVLink */
    double peak_gbps;      /* per direction; 0 unknown */
    char peak_basis[32];   /* "nvlink4_x18", "pcie_gen5_x16", "unknown" */
    char how[192];         /* how it was decided, in words */
} p2p_link;

/* The decision (README.md, "How the link type is decided"):
 * 1. NVML (when it answers): an active NVLink whose far end is the peer, or
 *    NVML's NVLink P2P status OK, means NVLink (links to the peer, else
 *    through NVSwitch with the smaller of the two GPUs' link counts);
 *    otherwise peer access goes over PCIe (peak: the slower PCIe link).
 * 2. Without NVML, the measured figure: a P2P copy faster than PCIe 5.0 x16
 *    (+5%) is NVLink; slower cannot be told apart ("unknown"). */
void p2p_classify_link(const p2p_link_facts *f, p2p_link *out);

/* ---- NVML (dlopen("libnvidia-ml.so.1"), never linked) -------------------- */

typedef struct {
    int found;                        /* NVML knows this GPU */
    int links_active;
    int nvlink_version;               /* NVML's raw value for the first active link, -1 */
    int link_active[P2P_MAX_LINKS];
    int remote_kind[P2P_MAX_LINKS];   /* 0 GPU, 1 NPU, 2 NVSwitch, -1 unknown */
    unsigned remote_domain[P2P_MAX_LINKS], remote_bus[P2P_MAX_LINKS],
        remote_device[P2P_MAX_LINKS];
    int pcie_gen, pcie_width;         /* maximum; 0 unknown */
} p2p_nvml_gpu;

typedef struct {
    int available;                    /* 1: NVML initialised */
    char why[192];                    /* when not: the reason */
    int n;
    p2p_nvml_gpu gpu[P2P_MAX_GPUS];
    signed char nvlink_p2p[P2P_MAX_GPUS][P2P_MAX_GPUS];   /* 1 OK, 0 not, -1 unknown */
} p2p_nvml_info;

/* Query the n GPUs, each named by its PCI domain, bus and device numbers
 * (cudaDevAttrPci*; NVML ignores CUDA_VISIBLE_DEVICES, the bus id does not). */
void p2p_nvml_query(int n, const int *domain, const int *bus, const int *device,
                    p2p_nvml_info *out);

/* Active links of g whose far end is the PCI device domain:bus:device. */
int p2p_links_to(const p2p_nvml_gpu *g, unsigned domain, unsigned bus, unsigned device);
/* 1 if g has an active link to an NVSwitch. */
int p2p_links_to_switch(const p2p_nvml_gpu *g);

#ifdef __cplusplus
}
#endif
#endif /* P2P_UTIL_H */
