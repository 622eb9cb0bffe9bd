/* device.h: pick the device, describe it in one line, know its peaks, waive
 * politely when there is none.
 *
 *   device_info dev;
 *   device_setup_or_exit("vectorAdd", opts.device, &dev);
 *       no device / no driver  -> "vectorAdd: WAIVED (no CUDA device: <why>)", exit 2
 *       --device out of range  -> error naming it, exit 1
 *       otherwise prints "# device 0: NVIDIA H200, CC 9.0 (Hopper), ..." and
 *       fills dev.peak_gbps and dev.peak_gflops for pct_peak.
 *
 * Peaks come from cudaDeviceGetAttribute (CUDA 13 removed the clock fields of
 * cudaDeviceProp):
 *   bandwidth = memory clock x 2 (double data rate) x bus width / 8
 *   FP32      = SMs x FP32 lanes per SM x 2 (an FMA is two flops) x SM clock
 * The lanes-per-SM table knows each architecture by compute capability and
 * says "unknown" (0) rather than guessing for one it does not know.
 * Tensor cores have peaks of their own, and a percentage of peak must use
 * the peak of the units that did the work (a TF32 GEMM against the FP32
 * peak reads 600%):
 *   TF32 / BF16 = SMs x dense tensor flops per SM per clock x SM clock
 * with 2048 / 4096 flops per SM per clock on Hopper (CC 9.0: 1024 / 2048 on
 * the A100, CC 8.0); other architectures say unknown (0).
 * Host-only C; the pure functions are unit-tested on the CPU.
 */
#ifndef COMMON_DEVICE_H
#define COMMON_DEVICE_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int id;
    char name[256];
    int cc_major, cc_minor;
    int sm_count;
    size_t total_mem;
    int l2_bytes;
    int mem_clock_khz;       /* peak memory clock */
    int bus_width_bits;
    int sm_clock_khz;        /* peak SM clock */
    int driver_version;      /* e.g. 13000 */
    int runtime_version;
    int fp32_lanes_per_sm;   /* 0: unknown architecture */
    double peak_gbps;        /* theoretical DRAM bandwidth, 1e9 bytes/s */
    double peak_gflops;      /* theoretical FP32 rate; 0 when lanes unknown */
    double peak_tf32_gflops; /* dense TF32 tensor-core rate; 0 when unknown */
    double peak_bf16_gflops; /* dense BF16/FP16 tensor-core rate (FP32 accumulate); 0 when unknown */
    char error[192];         /* after a failed query: the call that failed and why */
} device_info;

/* FP32 lanes (CUDA cores) per SM for a compute capability; 0 if unknown. */
int fp32_lanes_per_sm(int cc_major, int cc_minor);
/* Architecture name ("Hopper", ...) or "unknown". */
const char *arch_name(int cc_major, int cc_minor);
/* Dense tensor-core flops per SM per clock for TF32 and for BF16 inputs
 * with FP32 accumulation; 0 if unknown. */
typedef enum { TENSOR_TF32 = 0, TENSOR_BF16 = 1 } tensor_type;
int tensor_flops_per_sm_clk(int cc_major, int cc_minor, tensor_type t);
/* GFLOP/s of the tensor cores; 0 if unknown. */
double peak_tensor_gflops(int sm_count, int cc_major, int cc_minor, tensor_type t,
                          int sm_clock_khz);
/* GB/s from a memory clock in kHz and a bus width in bits (double data rate). */
double peak_bandwidth_gbps(int mem_clock_khz, int bus_width_bits);
/* PCIe, one direction (bandwidthTest's and p2pBandwidthLatencyTest's peak).
 * Per-lane signalling rate in GT/s for PCIe generation 1..6; 0 if unknown. */
double pcie_lane_gts(int gen);
/* Line-code efficiency: 8b/10b for gen 1-2, 128b/130b for gen 3-5,
 * 242/256 for gen 6 (FLIT mode); 0 if unknown. */
double pcie_encoding(int gen);
/* Theoretical bandwidth of a link in one direction, 1e9 bytes/s:
 * GT/s x lanes x efficiency / 8. 0 when gen or width is unknown. */
double pcie_peak_gbps(int gen, int width);
/* GFLOP/s FP32 from SMs, lanes per SM and an SM clock in kHz; 0 if lanes is 0. */
double peak_fp32_gflops(int sm_count, int lanes_per_sm, int sm_clock_khz);
/* "13.0" from 13000. */
void cuda_version_text(int version, char *buf, size_t len);

/* Query device `id` into *out. Returns 0, or the CUDA error code (as int) of
 * the first call that failed, with out->error naming it: e.g.
 * "cudaDeviceGetAttribute(cudaDevAttrClockRate, device 0) failed: ...". */
int device_query(int id, device_info *out);

/* The attribute reads of device_query, through `get` (cudaDeviceGetAttribute
 * there; a stand-in in the tests): sm_count, l2_bytes, mem_clock_khz,
 * bus_width_bits, sm_clock_khz, in that order. Stops at the first attribute
 * that fails and returns its error code, never a mix of several (codes ORed
 * together mean nothing), with out->error naming the attribute. */
typedef int (*device_attr_fn)(int *value, int attr, int device);
int device_read_attrs(int id, device_info *out, device_attr_fn get);

/* Print the one-line header ("# device 0: ...") to the given stream. */
void device_print_header(const device_info *d, FILE *f);

/* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as nvidia-smi and NVML write it. */
void device_uuid_text(const unsigned char uuid[16], char *buf, size_t len);

/* The WAIVED line and exit 2, with the runtime's reason. */
void device_waive(const char *sample, const char *reason);

/* Count devices, or waive (exit 2) when the runtime has none / no driver. */
int device_count_or_waive(const char *sample);

/* Select device `id` after checking it exists; waive if there are no
 * devices, exit 1 if id is out of range. Prints the header line to stdout
 * (stderr when quiet_stdout is set, so --json output stays pure JSON). */
void device_setup_or_exit(const char *sample, int id, int quiet_stdout, device_info *out);

#ifdef __cplusplus
}
#endif
#endif /* COMMON_DEVICE_H */
