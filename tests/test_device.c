/* test_device.c: the architecture table, the peak arithmetic, the stats. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <cuda_runtime_api.h>

#include "device.h"
#include "timing.h"

/* A stand-in for cudaDeviceGetAttribute: every attribute answers 7, except
 * the memory clock (error 1) and the SM clock (error 2). */
static int calls;
static int fake_attr(int *value, int attr, int device)
{
    (void)device;
    calls++;
    if (attr == (int)cudaDevAttrMemoryClockRate) return 1;
    if (attr == (int)cudaDevAttrClockRate) return 2;
    *value = 7;
    return 0;
}

static int good_attr(int *value, int attr, int device)
{
    *value = attr * 10 + device;
    return 0;
}

static void attribute_errors_name_the_first_failure(void **state)
{
    (void)state;
    device_info d;
    memset(&d, 0, sizeof d);
    calls = 0;
    int rc = device_read_attrs(3, &d, fake_attr);
    /* The first failing attribute's own code, not 1 | 2 = 3. */
    assert_int_equal(rc, 1);
    assert_non_null(strstr(d.error, "cudaDevAttrMemoryClockRate"));
    assert_non_null(strstr(d.error, "device 3"));
    assert_null(strstr(d.error, "cudaDevAttrClockRate,"));
    assert_int_equal(calls, 3);            /* it stopped there */
    assert_int_equal(d.sm_count, 7);       /* what was read before is kept */
    assert_int_equal(d.l2_bytes, 7);
    memset(&d, 0, sizeof d);
    assert_int_equal(device_read_attrs(1, &d, good_attr), 0);
    assert_int_equal(d.sm_count, (int)cudaDevAttrMultiProcessorCount * 10 + 1);
    assert_int_equal(d.sm_clock_khz, (int)cudaDevAttrClockRate * 10 + 1);
    assert_int_equal(d.mem_clock_khz, (int)cudaDevAttrMemoryClockRate * 10 + 1);
    assert_int_equal(d.bus_width_bits, (int)cudaDevAttrGlobalMemoryBusWidth * 10 + 1);
    assert_int_equal(d.l2_bytes, (int)cudaDevAttrL2CacheSize * 10 + 1);
    assert_string_equal(d.error, "");
}

static void lanes_per_sm_by_architecture(void **state)
{
    (void)state;
    assert_int_equal(fp32_lanes_per_sm(9, 0), 128);   /* H100/H200 */
    assert_int_equal(fp32_lanes_per_sm(8, 0), 64);    /* A100 */
    assert_int_equal(fp32_lanes_per_sm(8, 6), 128);   /* GA10x */
    assert_int_equal(fp32_lanes_per_sm(8, 9), 128);   /* Ada */
    assert_int_equal(fp32_lanes_per_sm(7, 0), 64);    /* V100 */
    assert_int_equal(fp32_lanes_per_sm(7, 5), 64);    /* Turing */
    assert_int_equal(fp32_lanes_per_sm(6, 0), 64);    /* P100 */
    assert_int_equal(fp32_lanes_per_sm(6, 1), 128);
    assert_int_equal(fp32_lanes_per_sm(10, 0), 128);  /* B200 */
    assert_int_equal(fp32_lanes_per_sm(12, 0), 128);
    /* unknown architectures say so instead of guessing */
    assert_int_equal(fp32_lanes_per_sm(9, 9), 0);
    assert_int_equal(fp32_lanes_per_sm(13, 0), 0);
    assert_int_equal(fp32_lanes_per_sm(2, 0), 0);
    assert_int_equal(fp32_lanes_per_sm(10, 7), 0);
}

static void architecture_names(void **state)
{
    (void)state;
    assert_string_equal(arch_name(9, 0), "Hopper");
    assert_string_equal(arch_name(8, 0), "Ampere");
    assert_string_equal(arch_name(8, 9), "Ada");
    assert_string_equal(arch_name(7, 5), "Turing");
    assert_string_equal(arch_name(7, 0), "Volta");
    assert_string_equal(arch_name(10, 0), "Blackwell");
    assert_string_equal(arch_name(12, 0), "Blackwell");
    assert_string_equal(arch_name(9, 9), "unknown");
    assert_string_equal(arch_name(42, 0), "unknown");
}

static void hbm_peak_of_the_h200(void **state)
{
    (void)state;
    /* 3201 MHz x 2 (DDR) x 6016 bits / 8 = 4814 GB/s (TARGETS.md) */
    double bw = peak_bandwidth_gbps(3201000, 6016);
    assert_true(fabs(bw - 4814.3) < 0.1);
    assert_true(peak_bandwidth_gbps(0, 6016) == 0);
    assert_true(peak_bandwidth_gbps(3201000, 0) == 0);
}

static void fp32_peak_of_the_h200(void **state)
{
    (void)state;
    /* 132 SMs x 128 lanes x 2 flops x 1.98 GHz = 66908 GFLOP/s */
    double f = peak_fp32_gflops(132, 128, 1980000);
    assert_true(fabs(f - 66908.16) < 0.01);
    assert_true(peak_fp32_gflops(132, 0, 1980000) == 0);   /* unknown lanes: no peak */
}

static void version_text(void **state)
{
    (void)state;
    char b[16];
    cuda_version_text(13000, b, sizeof b);
    assert_string_equal(b, "13.0");
    cuda_version_text(12080, b, sizeof b);
    assert_string_equal(b, "12.8");
    cuda_version_text(11020, b, sizeof b);
    assert_string_equal(b, "11.2");
}

static void median_and_summary(void **state)
{
    (void)state;
    double odd[5] = {5, 1, 4, 2, 3};
    assert_true(stats_median(odd, 5) == 3);
    assert_true(odd[0] == 5);  /* input untouched */
    double even[4] = {4, 1, 3, 2};
    assert_true(stats_median(even, 4) == 2.5);
    double one[1] = {7};
    assert_true(stats_median(one, 1) == 7);
    assert_true(stats_median(one, 0) == 0);
    timing_stats s;
    double v[6] = {2, 9, 1, 3, 3, 100};  /* an outlier moves the mean, not the median */
    stats_summary(v, 6, &s);
    assert_true(s.median_ms == 3 && s.min_ms == 1 && s.max_ms == 100 && s.reps == 6);
    assert_true(fabs(s.mean_ms - 118.0 / 6) < 1e-12);
}

static void timing_defaults_follow_the_convention(void **state)
{
    (void)state;
    timing_cfg c = timing_defaults(20);
    assert_true(c.warmups >= 3);
    assert_int_equal(c.reps, 20);
    assert_int_equal(c.flush_l2, 0);
    assert_int_equal(timing_defaults(0).reps, 20);
}

static void host_clock_moves_forward(void **state)
{
    (void)state;
    double a = host_seconds(), b = host_seconds();
    assert_true(b >= a && a > 0);
}

/* H200: 132 SMs at 1980 MHz. TF32 2048 and BF16 4096 dense flops per SM per
 * clock: 535 and 1070 TFLOP/s, the numbers a tensor-core GEMM's pct_peak is
 * divided by (cuBLAS TF32 measured 397 TFLOP/s there: 74%, not 600%). */
static void tensor_peaks_of_the_h200(void **state)
{
    (void)state;
    assert_int_equal(tensor_flops_per_sm_clk(9, 0, TENSOR_TF32), 2048);
    assert_int_equal(tensor_flops_per_sm_clk(9, 0, TENSOR_BF16), 4096);
    assert_int_equal(tensor_flops_per_sm_clk(8, 0, TENSOR_BF16), 2048);
    assert_int_equal(tensor_flops_per_sm_clk(8, 6, TENSOR_BF16), 0);   /* unknown: no guess */
    assert_true(fabs(peak_tensor_gflops(132, 9, 0, TENSOR_TF32, 1980000) - 535265.28) < 0.01);
    assert_true(fabs(peak_tensor_gflops(132, 9, 0, TENSOR_BF16, 1980000) - 1070530.56) < 0.01);
    assert_true(peak_tensor_gflops(132, 7, 5, TENSOR_BF16, 1980000) == 0.0);
}

/* "sample/variant" becomes two nested ranges, which ncu's --nvtx-include
 * "sample/variant/" selects; empty parts are skipped. */
static void nvtx_path_splits_into_nested_ranges(void **state)
{
    (void)state;
    char parts[8][64];
    assert_int_equal(nvtx_split_path("vectorAdd/grid_stride_float4", parts, 8), 2);
    assert_string_equal(parts[0], "vectorAdd");
    assert_string_equal(parts[1], "grid_stride_float4");
    assert_int_equal(nvtx_split_path("a//b/", parts, 8), 2);
    assert_string_equal(parts[1], "b");
    assert_int_equal(nvtx_split_path("one", parts, 8), 1);
    assert_int_equal(nvtx_split_path("", parts, 8), 0);
    assert_int_equal(nvtx_split_path(NULL, parts, 8), 0);
    assert_int_equal(nvtx_split_path("a/b/c", parts, 2), 2);
}

static void prefault_writes_every_byte(void **state)
{
    (void)state;
    size_t n = 3 * 4096 + 5;
    unsigned char *p = malloc(n);
    assert_non_null(p);
    memset(p, 0xAB, n);
    host_prefault(p, n);
    for (size_t i = 0; i < n; i++) assert_int_equal(p[i], 0);
    free(p);
}

static void pcie_peaks_per_generation(void **state)
{
    (void)state;
    assert_float_equal(pcie_peak_gbps(1, 16), 4.0, 1e-9);           /* 2.5 x 16 x 0.8 / 8 */
    assert_float_equal(pcie_peak_gbps(2, 16), 8.0, 1e-9);
    assert_float_equal(pcie_peak_gbps(3, 16), 8.0 * 16 * 128 / 130 / 8, 1e-9);   /* 15.75 */
    assert_float_equal(pcie_peak_gbps(4, 16), 31.5077, 1e-3);
    assert_float_equal(pcie_peak_gbps(5, 16), 63.0154, 1e-3);       /* H200: gen5 x16 */
    assert_float_equal(pcie_peak_gbps(5, 8), 31.5077, 1e-3);
    assert_float_equal(pcie_peak_gbps(6, 16), 64.0 * 16 * 242 / 256 / 8, 1e-9);  /* 121 */
    assert_float_equal(pcie_peak_gbps(0, 16), 0.0, 0);
    assert_float_equal(pcie_peak_gbps(7, 16), 0.0, 0);              /* not in the table */
    assert_float_equal(pcie_peak_gbps(-1, 16), 0.0, 0);
    assert_float_equal(pcie_peak_gbps(5, 0), 0.0, 0);
    assert_float_equal(pcie_peak_gbps(5, -4), 0.0, 0);
    assert_float_equal(pcie_encoding(2), 0.8, 1e-12);
    assert_float_equal(pcie_encoding(3), 128.0 / 130.0, 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lanes_per_sm_by_architecture),
        cmocka_unit_test(attribute_errors_name_the_first_failure),
        cmocka_unit_test(architecture_names),
        cmocka_unit_test(hbm_peak_of_the_h200),
        cmocka_unit_test(fp32_peak_of_the_h200),
        cmocka_unit_test(version_text),
        cmocka_unit_test(tensor_peaks_of_the_h200),
        cmocka_unit_test(nvtx_path_splits_into_nested_ranges),
        cmocka_unit_test(prefault_writes_every_byte),
        cmocka_unit_test(median_and_summary),
        cmocka_unit_test(timing_defaults_follow_the_convention),
        cmocka_unit_test(host_clock_moves_forward),
        cmocka_unit_test(pcie_peaks_per_generation),
    };
    return cmocka_run_group_tests_name("device_and_timing", tests, NULL, NULL);
}
