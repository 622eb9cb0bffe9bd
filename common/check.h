/* check.h: compare results against a reference, and poison outputs first.
 *
 * Floats: an element passes when |got - ref| <= abs_tol + rel_tol * |ref|.
 *   - NaN in `got` never passes (not even against a NaN reference: a
 *     reference that is NaN is a broken test, and fails too).
 *   - +inf/-inf pass only against the same infinity.
 *   - Denormals are ordinary small numbers: they pass through abs_tol.
 * Integers must match exactly.
 * Each check prints, to stderr, the first few mismatches (index, expected,
 * got) and the largest absolute and relative errors, and returns the number
 * of mismatching elements (0 = pass).
 *
 * Tolerances belong to the sample and are written next to its check, scaled
 * with the length of the reduction behind each element; tol_sum_rel() gives
 * the usual scale for a float sum of n terms.
 *
 * Poisoning: every output is filled with 0xFF bytes before a checked run.
 * As float that is NaN, as an integer 0xFFFFFFFF, so an element the kernel
 * never wrote fails the check instead of passing on stale data.
 *
 * Guard zones: comparing [0, n) cannot see a write past the end (a kernel
 * without its `if (i < n)` passes every compare). So every device output is
 * allocated with CHECK_GUARD_BYTES to spare, and a checked run at any size
 * n poisons [0, n + guard) and afterwards requires [n, n + guard) to still
 * hold 0xFF bytes:
 *
 *   float *d_c = (float *)guarded_malloc(cap * sizeof(float));  // cap >= every n checked
 *   poison_guarded(d_c, n * sizeof(float));       // before the checked run
 *   ... run, copy back, compare [0, n) ...
 *   bad += check_guard("naive(n=1000) c", d_c, n * sizeof(float));
 *   guarded_free(d_c);
 *
 * 64 KiB covers the overrun of a whole 1024-thread block of 16-byte stores,
 * and a tile of 128 rows of a matrix writes its first stray row right after
 * the end. Samples whose outputs are pitched (images) also check the padding
 * columns themselves: those are inside the allocation, not after it.
 * Host-only C.
 */
#ifndef COMMON_CHECK_H
#define COMMON_CHECK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CHECK_MAX_REPORTED 5

/* 1 if got is within tolerance of ref, 0 otherwise (NaN never). */
int close_enough(double got, double ref, double abs_tol, double rel_tol);

size_t check_close_f32(const char *what, const float *got, const float *ref, size_t n,
                       double abs_tol, double rel_tol);
/* float results against a double-precision reference */
size_t check_close_f32_f64(const char *what, const float *got, const double *ref, size_t n,
                           double abs_tol, double rel_tol);
size_t check_close_f64(const char *what, const double *got, const double *ref, size_t n,
                       double abs_tol, double rel_tol);

size_t check_exact_u32(const char *what, const unsigned int *got, const unsigned int *ref,
                       size_t n);
size_t check_exact_i32(const char *what, const int *got, const int *ref, size_t n);
size_t check_exact_i64(const char *what, const long long *got, const long long *ref, size_t n);

/* Relative tolerance for a float32 sum of n terms accumulated in a tree or in
 * order: a few ulps times log2(n) for pairwise, sqrt(n) for random rounding.
 * Returns 8 * FLT_EPSILON * sqrt(n), at least 1e-6. */
double tol_sum_rel(double n);

/* Fill host or device memory with 0xFF bytes (NaN as float). */
void poison_host(void *p, size_t bytes);
void poison_device(void *d_p, size_t bytes);   /* exits 1 on a CUDA error */

/* Guard zones (see above). All exit 1 on a CUDA error. */
#define CHECK_GUARD_BYTES ((size_t)65536)
/* cudaMalloc of bytes + CHECK_GUARD_BYTES, the guard poisoned. */
void *guarded_malloc(size_t bytes);
void guarded_free(void *d_p);
/* 0xFF over [0, used_bytes + CHECK_GUARD_BYTES) of a guarded_malloc buffer
 * (used_bytes must not exceed the bytes it was allocated with). */
void poison_guarded(void *d_p, size_t used_bytes);
/* Copy [used_bytes, used_bytes + guard) back; returns the number of bytes
 * that are no longer 0xFF (0 = nothing was written past the end), printing
 * the first offsets past the end that changed. */
size_t check_guard(const char *what, const void *d_p, size_t used_bytes);
/* The same test on host memory already copied back (exposed for the tests). */
size_t check_guard_host(const char *what, const unsigned char *guard, size_t len);

/* ---- the byte pattern of copy checks ----------------------------------
 * Byte j of a buffer is byte (j % 8) (little-endian) of rng_hash(seed,
 * stream, j / 8) (rng.h): the same function on the host and the device, so
 * either side can write it and either side can check a copy of it, at any
 * size and offset (bandwidthTest, p2pBandwidthLatencyTest). */
void byte_pattern_fill(void *buf, size_t bytes, uint64_t seed, uint64_t stream);
/* Number of bytes that differ; the first few are printed to stderr under `what`. */
size_t byte_pattern_check(const char *what, const void *buf, size_t bytes, uint64_t seed,
                          uint64_t stream);
/* The expected byte at offset j. */
unsigned char byte_pattern_byte(uint64_t seed, uint64_t stream, size_t j);

#ifdef __cplusplus
}
#endif
#endif /* COMMON_CHECK_H */
