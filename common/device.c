/* device.c: device selection, header line, peaks and the no-GPU waiver. */
#include "device.h"
#include "report.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>

int fp32_lanes_per_sm(int major, int minor)
{
    switch (major) {
    case 3: return 192;                          /* Kepler */
    case 5: return 128;                          /* Maxwell */
    case 6: return minor == 0 ? 64 : 128;        /* Pascal: GP100 64, GP10x 128 */
    case 7: return 64;                           /* Volta, Turing */
    case 8: return minor == 0 ? 64 : 128;        /* Ampere: A100 64, GA10x 128; Ada 8.9 128 */
    case 9: return minor == 0 ? 128 : 0;         /* Hopper */
    case 10: return (minor == 0 || minor == 3) ? 128 : 0; /* Blackwell datacenter */
    case 11: return minor == 0 ? 128 : 0;        /* Blackwell (Thor) */
    case 12: return (minor == 0 || minor == 1) ? 128 : 0; /* Blackwell consumer / DGX Spark */
    default: return 0;
    }
}

const char *arch_name(int major, int minor)
{
    switch (major) {
    case 3: return "Kepler";
    case 5: return "Maxwell";
    case 6: return "Pascal";
    case 7: return (minor == 0 || minor == 2) ? "Volta" : (minor == 5 ? "Turing" : "unknown");
    case 8: return minor == 9 ? "Ada" : ((minor == 0 || minor == 6 || minor == 7 || minor == 8)
                                             ? "Ampere" : "unknown");
    case 9: return minor == 0 ? "Hopper" : "unknown";
    case 10: case 11: case 12: return fp32_lanes_per_sm(major, minor) ? "Blackwell" : "unknown";
    default: return "unknown";
    }
}

int tensor_flops_per_sm_clk(int major, int minor, tensor_type t)
{
    /* Dense (no sparsity) rates from NVIDIA's architecture whitepapers:
     * A100 312 TFLOP/s BF16 at 108 SMs x 1410 MHz = 2048 per SM per clock;
     * H100 SXM 989 TFLOP/s BF16 at 132 SMs x 1830 MHz = 4096. TF32 is half. */
    int bf16 = 0;
    if (major == 8 && minor == 0) bf16 = 2048;
    if (major == 9 && minor == 0) bf16 = 4096;
    return t == TENSOR_TF32 ? bf16 / 2 : bf16;
}

double peak_tensor_gflops(int sm_count, int major, int minor, tensor_type t, int sm_clock_khz)
{
    int per_clk = tensor_flops_per_sm_clk(major, minor, t);
    if (sm_count <= 0 || per_clk <= 0 || sm_clock_khz <= 0) return 0.0;
    return (double)sm_count * per_clk * sm_clock_khz * 1e3 / 1e9;
}

double peak_bandwidth_gbps(int mem_clock_khz, int bus_width_bits)
{
    if (mem_clock_khz <= 0 || bus_width_bits <= 0) return 0.0;
    return (double)mem_clock_khz * 1e3 * 2.0 * (bus_width_bits / 8.0) / 1e9;
}

double pcie_lane_gts(int gen)
{
    switch (gen) {
    case 1: return 2.5;
    case 2: return 5.0;
    case 3: return 8.0;
    case 4: return 16.0;
    case 5: return 32.0;
    case 6: return 64.0;
    default: return 0.0;
    }
}

double pcie_encoding(int gen)
{
    if (gen == 1 || gen == 2) return 8.0 / 10.0;
    if (gen >= 3 && gen <= 5) return 128.0 / 130.0;
    if (gen == 6) return 242.0 / 256.0;   /* FLIT mode: 242 payload bytes of 256 */
    return 0.0;
}

double pcie_peak_gbps(int gen, int width)
{
    if (width <= 0 || width > 32) return 0.0;
    return pcie_lane_gts(gen) * width * pcie_encoding(gen) / 8.0;
}

double peak_fp32_gflops(int sm_count, int lanes_per_sm, int sm_clock_khz)
{
    if (sm_count <= 0 || lanes_per_sm <= 0 || sm_clock_khz <= 0) return 0.0;
    return (double)sm_count * lanes_per_sm * 2.0 * sm_clock_khz * 1e3 / 1e9;
}

void cuda_version_text(int version, char *buf, size_t len)
{
    snprintf(buf, len, "%d.%d", version / 1000, (version % 1000) / 10);
}

static int runtime_attr(int *v, int a, int dev)
{
    return (int)cudaDeviceGetAttribute(v, (enum cudaDeviceAttr)a, dev);
}

/* The attributes of device_info, in the order they are read. */
typedef struct {
    enum cudaDeviceAttr attr;
    const char *name;
    size_t offset;
} attr_field;

#define ATTR_FIELD(a, field) {a, #a, offsetof(device_info, field)}
static const attr_field info_attrs[] = {
    ATTR_FIELD(cudaDevAttrMultiProcessorCount, sm_count),
    ATTR_FIELD(cudaDevAttrL2CacheSize, l2_bytes),
    ATTR_FIELD(cudaDevAttrMemoryClockRate, mem_clock_khz),
    ATTR_FIELD(cudaDevAttrGlobalMemoryBusWidth, bus_width_bits),
    ATTR_FIELD(cudaDevAttrClockRate, sm_clock_khz),
};

int device_read_attrs(int id, device_info *d, device_attr_fn get)
{
    for (size_t k = 0; k < sizeof info_attrs / sizeof info_attrs[0]; k++) {
        int v = 0;
        int e = get(&v, (int)info_attrs[k].attr, id);
        if (e != 0) {
            snprintf(d->error, sizeof d->error,
                     "cudaDeviceGetAttribute(%s, device %d) failed: %s (error %d)",
                     info_attrs[k].name, id, cudaGetErrorString((cudaError_t)e), e);
            return e;
        }
        *(int *)((char *)d + info_attrs[k].offset) = v;
    }
    return 0;
}

int device_query(int id, device_info *d)
{
    struct cudaDeviceProp p;
    memset(d, 0, sizeof *d);
    cudaError_t e = cudaGetDeviceProperties(&p, id);
    if (e != cudaSuccess) {
        snprintf(d->error, sizeof d->error, "cudaGetDeviceProperties(device %d) failed: %s", id,
                 cudaGetErrorString(e));
        return (int)e;
    }
    d->id = id;
    snprintf(d->name, sizeof d->name, "%s", p.name);
    d->cc_major = p.major;
    d->cc_minor = p.minor;
    d->total_mem = p.totalGlobalMem;
    int rc = device_read_attrs(id, d, runtime_attr);
    if (rc) return rc;
    if ((e = cudaDriverGetVersion(&d->driver_version)) != cudaSuccess) {
        snprintf(d->error, sizeof d->error, "cudaDriverGetVersion failed: %s", cudaGetErrorString(e));
        return (int)e;
    }
    if ((e = cudaRuntimeGetVersion(&d->runtime_version)) != cudaSuccess) {
        snprintf(d->error, sizeof d->error, "cudaRuntimeGetVersion failed: %s", cudaGetErrorString(e));
        return (int)e;
    }
    d->fp32_lanes_per_sm = fp32_lanes_per_sm(d->cc_major, d->cc_minor);
    d->peak_gbps = peak_bandwidth_gbps(d->mem_clock_khz, d->bus_width_bits);
    d->peak_gflops = peak_fp32_gflops(d->sm_count, d->fp32_lanes_per_sm, d->sm_clock_khz);
    d->peak_tf32_gflops = peak_tensor_gflops(d->sm_count, d->cc_major, d->cc_minor, TENSOR_TF32,
                                             d->sm_clock_khz);
    d->peak_bf16_gflops = peak_tensor_gflops(d->sm_count, d->cc_major, d->cc_minor, TENSOR_BF16,
                                             d->sm_clock_khz);
    return 0;
}

void device_uuid_text(const unsigned char u[16], char *buf, size_t len)
{
    snprintf(buf, len,
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
             u[13], u[14], u[15]);
}

void device_print_header(const device_info *d, FILE *f)
{
    char drv[16], rt[16];
    cuda_version_text(d->driver_version, drv, sizeof drv);
    cuda_version_text(d->runtime_version, rt, sizeof rt);
    fprintf(f, "# device %d: %s, CC %d.%d (%s), %d SMs, %.1f GiB, L2 %.0f MiB, "
               "driver CUDA %s, runtime %s, peak %.0f GB/s",
            d->id, d->name, d->cc_major, d->cc_minor, arch_name(d->cc_major, d->cc_minor),
            d->sm_count, d->total_mem / 1073741824.0, d->l2_bytes / 1048576.0, drv, rt,
            d->peak_gbps);
    if (d->peak_gflops > 0)
        fprintf(f, ", %.1f TFLOP/s FP32\n", d->peak_gflops / 1e3);
    else
        fprintf(f, ", FP32 peak unknown\n");
}

void device_waive(const char *sample, const char *reason)
{
    fflush(stdout);
    if (report_json()) {
        /* --json: the closing line is a JSON record like report_finish()'s */
        result_rec r;
        char line[512];
        r.n = 0;
        rec_str(&r, "sample", sample);
        rec_str(&r, "status", "WAIVED");
        rec_str(&r, "reason", reason);
        if (rec_format_json(&r, line, sizeof line) > 0) printf("%s\n", line);
    } else {
        printf("%s: WAIVED (%s)\n", sample, reason);
    }
    fflush(stdout);
    exit(2);
}

/* A FAIL before any record: the text closing line, or under --json a JSON
 * record like report_finish()'s, so stdout stays JSON lines only. Exits 1. */
static void device_fail_exit(const char *sample, const char *why)
{
    fflush(stdout);
    if (report_json()) {
        result_rec r;
        char line[512];
        r.n = 0;
        rec_str(&r, "sample", sample);
        rec_str(&r, "status", "FAIL");
        rec_str(&r, "reason", why);
        if (rec_format_json(&r, line, sizeof line) > 0) printf("%s\n", line);
    } else {
        printf("%s: FAIL (%s)\n", sample, why);
    }
    fflush(stdout);
    exit(1);
}

int device_count_or_waive(const char *sample)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        /* Tell "no driver" from "driver but no device": the runtime's text
         * for a missing driver ("driver version is insufficient") misleads. */
        int driver = 0;
        char why[320];
        cudaDriverGetVersion(&driver);
        if (driver == 0)
            snprintf(why, sizeof why, "no CUDA device: no NVIDIA driver loaded (runtime says: %s)",
                     cudaGetErrorString(e));
        else
            snprintf(why, sizeof why, "no CUDA device: %s",
                     e != cudaSuccess ? cudaGetErrorString(e) : "the runtime reports 0 devices");
        device_waive(sample, why);
    }
    return count;
}

void device_setup_or_exit(const char *sample, int id, int quiet_stdout, device_info *out)
{
    int count = device_count_or_waive(sample);
    if (id < 0 || id >= count) {
        fprintf(stderr, "%s: error: --device=%d but this machine has %d CUDA device%s (0..%d)\n",
                sample, id, count, count == 1 ? "" : "s", count - 1);
        device_fail_exit(sample, "bad argument");
    }
    cudaError_t e = cudaSetDevice(id);
    int rc = (int)e;
    if (e == cudaSuccess) rc = device_query(id, out);
    else snprintf(out->error, sizeof out->error, "cudaSetDevice(%d) failed: %s", id,
                  cudaGetErrorString(e));
    if (rc != 0) {
        fprintf(stderr, "%s: error: cannot use device %d: %s\n", sample, id, out->error);
        char why[64];
        snprintf(why, sizeof why, "device %d unusable", id);
        device_fail_exit(sample, why);
    }
    device_print_header(out, quiet_stdout ? stderr : stdout);
}
