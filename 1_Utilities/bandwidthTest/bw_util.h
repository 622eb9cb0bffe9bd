/* bw_util.h: bandwidthTest's host-only parts, unit-tested on the CPU:
 * the PCIe peak arithmetic and the NVML link query (loaded at run time),
 * the size plans of the three modes, the copy-verification pattern, and
 * the result record with its CSV form.
 */
#ifndef BW_UTIL_H
#define BW_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "report.h"
#include "rng.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- PCIe (the peaks: pcie_peak_gbps in common/device.h) ----------------- */

typedef struct {
    int available;            /* 1: NVML answered */
    int max_gen, max_width;   /* what the device and system can train to */
    int cur_gen, cur_width;   /* now (an idle GPU may train down) */
    char why[192];            /* when not available: the reason */
} pcie_link;

/* Ask NVML (dlopen("libnvidia-ml.so.1"), never linked at build time) for
 * the link of the GPU with this PCI bus id ("0000:3b:00.0"), else this
 * UUID ("GPU-..."). Fills out->why and leaves available = 0 when NVML is
 * absent or does not know the device. */
void pcie_query(const char *pci_bus_id, const char *uuid, pcie_link *out);

/* ---- size plans --------------------------------------------------------- */

typedef enum { BW_MODE_QUICK, BW_MODE_RANGE, BW_MODE_SHMOO } bw_mode;

#define BW_MAX_SIZES 4096
#define BW_SHMOO_MIN (1LL << 10)   /* 1 KiB */
#define BW_SHMOO_MAX (1LL << 30)   /* 1 GiB */

/* The sizes of a mode, in bytes, ascending:
 *   quick: { quick_size }
 *   range: start, start + inc, ... <= end
 *   shmoo: 1 KiB, 2 KiB, 4 KiB, ... <= shmoo_max (1 GiB normally)
 * Returns how many, or -1 with a message naming the option in err. */
int bw_plan_sizes(bw_mode mode, long long quick_size, long long start, long long end,
                  long long inc, long long shmoo_max, long long *sizes, int cap, char *err,
                  size_t errlen);

/* Copies per timed trial: enough that one trial moves about 64 MiB, between
 * 1 and 100, so small copies are not timed one at a time. */
int bw_batch_for(size_t bytes);

/* GB/s (1e9 bytes/s) of `copies` copies of `bytes` in `ms` milliseconds;
 * read_plus_write counts every byte twice (device-to-device). */
double bw_gbps(size_t bytes, int copies, double ms, int read_plus_write);

/* Device-to-device copies small enough to live in the L2 would measure the
 * L2, not HBM, if the same source and destination were copied again and
 * again (5041 GB/s at 16 MiB on the H200, 104.7% of its HBM peak:
 * results/H200/stale/bandwidthTest__mode_shmoo_csv.txt, commit 10393d1). So the
 * timed copies of `bytes` rotate over this many source/destination pairs,
 * laid end to end, so that a pair is used again only after every other pair
 * (at least 4 x l2_bytes of other data on each side) went through the cache:
 * ceil(4 l2 / bytes), and 1 (no rotation) from 4 x L2 up. l2_bytes <= 0
 * (unknown) counts as 256 MiB, more than any GPU's L2 so far. */
int bw_d2d_rotation(size_t bytes, long long l2_bytes);

/* Bytes of the buffer that evicts the CPU caches: 1.5 x the last-level cache
 * (llc_bytes, 0 if unknown -> 256 MiB assumed), at least 32 MiB, at most 1 GiB. */
size_t bw_flush_bytes(long long llc_bytes);

/* the verification pattern: byte_pattern_* in common/check.h */

/* The byte expected at offset j of a destination of slots `slot` bytes
 * apart, each holding the pattern (at its offset in the whole buffer) in its
 * first `len` bytes and poison (0xFF) in the rest; slot == len: the pattern
 * everywhere. This is what the rotated d2d copies must leave behind: the
 * source pattern runs on over all the slots, and each copy moves the first
 * `len` bytes of one slot to the same place in the destination. Host and
 * device (the check kernel uses it). */
RNG_HD unsigned char bw_expected_byte(size_t j, size_t slot, size_t len, uint64_t seed,
                                      uint64_t stream)
{
    if (slot != len && j % slot >= len) return 0xFF;
    return (unsigned char)(rng_hash(seed, stream, j / 8) >> (8 * (j % 8)));
}

/* ---- results ------------------------------------------------------------ */

typedef struct {
    const char *variant;     /* h2d_pinned, d2h_wc, d2d, ... */
    int device;
    const char *direction;   /* h2d, d2h, d2d */
    const char *memory;      /* pinned, pageable, wc, device */
    size_t bytes;            /* per copy */
    int ok;                  /* verified; 0: FAIL and no figures */
    double time_ms;          /* median per copy */
    double gbps;
    double peak_gbps;        /* 0: unknown */
    const char *peak_basis;  /* "hbm", "pcie_gen5_x16", "unknown" */
    const char *counted;     /* "once" or "read+write" */
    int batch;               /* copies per timed trial */
    int buffers;             /* source/destination pairs the timed copies rotate over (1: one) */
    int trials;
    const char *timing;      /* "events+spin", "events", "host_timer+cache_flush" */
} bw_row;

/* A figure above its physical limit is a wrong measurement (a cache, a
 * timing error), never a result: 1 if row->gbps exceeds a known peak. */
int bw_above_peak(const bw_row *row);

/* The RESULT / JSON record of a row (report.h; fixed keys first). */
void bw_fill_record(result_rec *r, const bw_row *row);

/* CSV: a header line and one line per record (no newline; RFC 4180
 * quoting). Return the length, or -1 if the buffer is too small. */
int bw_csv_header(char *buf, size_t len);
int bw_csv_format(const result_rec *r, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* BW_UTIL_H */
