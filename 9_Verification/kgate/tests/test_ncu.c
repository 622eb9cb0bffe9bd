/* test_ncu.c: Nsight Compute's raw CSV page (ncu.h), on a table written as
 * ncu 2025.3 prints it (--csv --page raw: a header row, a units row, one
 * row per kernel; ==PROF== lines around it). */
#define _GNU_SOURCE
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ncu.h"

static const char *table =
    "==PROF== Connected to process 4242 (/x/bin/kgate-harness)\n"
    "==PROF== Profiling \"relu_kernel\" - 0: 0%....50%....100% - 38 passes\n"
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\","
    "\"Grid Size\",\"Device\",\"CC\",\"dram__throughput.avg.pct_of_peak_sustained_elapsed\",\"gpu__time_duration.sum\","
    "\"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum\",\"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum\","
    "\"sm__warps_active.avg.pct_of_peak_sustained_active\",\"smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio\","
    "\"smsp__average_warp_latency_issue_stalled_selected.ratio\",\"smsp__average_warp_latency_issue_stalled_barrier.ratio\"\n"
    "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"%\",\"nsecond\",\"\",\"\",\"%\",\"\",\"\",\"\"\n"
    "\"0\",\"4242\",\"kgate-harness\",\"127.0.0.1\",\"kg_fill(float *, unsigned long)\",\"1\",\"13\",\"(256, 1, 1)\","
    "\"(1056, 1, 1)\",\"0\",\"9.0\",\"91.5\",\"12,345\",\"0\",\"0\",\"88.0\",\"3.1\",\"1.0\",\"0.2\"\n"
    "\"1\",\"4242\",\"kgate-harness\",\"127.0.0.1\",\"relu_kernel(const float *, float *, int)\",\"1\",\"13\",\"(256, 1, 1)\","
    "\"(65536, 1, 1)\",\"0\",\"9.0\",\"42.25\",\"76,543.5\",\"1,024\",\"16\",\"47.5\",\"12.75\",\"30.0\",\"4.5\"\n"
    "==PROF== Disconnected from process 4242\n";

static void test_parse(void **s)
{
    (void)s;
    kg_ncu k;
    assert_int_equal(kg_ncu_parse(table, &k), 0);
    assert_true(k.ok);
    /* the longest kernel of the range is the one reported */
    assert_non_null(strstr(k.kernel, "relu_kernel"));
    assert_true(fabs(k.duration_us - 76.5435) < 1e-6);   /* nanoseconds, thousands separators */
    assert_true(fabs(k.dram_pct - 42.25) < 1e-9);
    assert_true(fabs(k.occupancy_pct - 47.5) < 1e-9);
    assert_true(fabs(k.bank_conflicts - 1040) < 1e-9);
    /* the top stall, "selected" is not a stall */
    assert_string_equal(k.stall, "long_scoreboard");
    assert_true(fabs(k.stall_ratio - 12.75) < 1e-9);
}

static void test_missing_and_errors(void **s)
{
    (void)s;
    kg_ncu k;
    /* no table at all: the reason, not figures */
    assert_int_equal(kg_ncu_parse("==PROF== Connected\n==ERROR== ERR_NVGPUCTRPERM - The user does not have permission\n", &k), -1);
    assert_false(k.ok);
    assert_non_null(strstr(k.why, "ERR_NVGPUCTRPERM"));
    assert_int_equal(kg_ncu_parse("==WARNING== No kernels were profiled.\n", &k), -1);
    assert_non_null(strstr(k.why, "no"));
    assert_int_equal(kg_ncu_parse(NULL, &k), -1);
    /* a header without rows */
    const char *hdr = "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\"\n\"\",\"\",\"usecond\"\n";
    assert_int_equal(kg_ncu_parse(hdr, &k), -1);
    /* a metric the sections did not collect stays NaN; microseconds as given */
    const char *one = "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\"\n\"\",\"\",\"usecond\"\n"
                      "\"0\",\"k(float*)\",\"3.5\"\n";
    assert_int_equal(kg_ncu_parse(one, &k), 0);
    assert_true(fabs(k.duration_us - 3.5) < 1e-12);
    assert_true(isnan(k.dram_pct) && isnan(k.occupancy_pct) && isnan(k.bank_conflicts));
    /* a quoted field with a comma and a doubled quote inside */
    const char *q = "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\"\n\"\",\"\",\"msecond\"\n"
                    "\"0\",\"void k<float, 2>(\"\"a\"\")\",\"1.5\"\n";
    assert_int_equal(kg_ncu_parse(q, &k), 0);
    assert_string_equal(k.kernel, "void k<float, 2>(\"a\")");
    assert_true(fabs(k.duration_us - 1500) < 1e-9);
}

/* The real thing: ncu 2025.3.1 on the H200 (driver 580.159.04, 2026-11-30),
 * `ncu --clock-control none --csv --page raw --section SpeedOfLight --section
 * Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis_Tables -c 1
 * bin/vectorAdd --quick`: 951 columns, and the DRAM figure is named
 * gpu__dram_throughput. The first parser read 512 columns and the older name,
 * so the gate's first L4 explanations on the H200 said "DRAM nan%, occupancy
 * nan%". */
static void test_real_capture(void **s)
{
    (void)s;
    char path[1200];
    snprintf(path, sizeof path, "%s", __FILE__);   /* 9_Verification/kgate/tests/test_ncu.c */
    char *slash = strrchr(path, '/');
    snprintf(slash ? slash + 1 : path, sizeof path - (size_t)(slash ? slash + 1 - path : 0),
             "data/ncu_2025.3_h200_vectorAdd.csv");
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char text[1 << 20];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    assert_true(n > 10000);
    kg_ncu k;
    assert_int_equal(kg_ncu_parse(text, &k), 0);
    assert_non_null(strstr(k.kernel, "add_naive"));
    assert_true(fabs(k.duration_us - 2.112) < 1e-9);
    assert_true(fabs(k.dram_pct - 0.03) < 1e-9);        /* gpu__dram_throughput, column 224 */
    assert_true(fabs(k.occupancy_pct - 5.09) < 1e-9);   /* sm__warps_active, column 868 */
    assert_true(fabs(k.bank_conflicts - 0) < 1e-9);
    assert_string_equal(k.stall, "no_instruction");     /* 9.59, the largest but "selected" */
    assert_true(fabs(k.stall_ratio - 9.59) < 1e-9);
}

static void test_argv(void **s)
{
    (void)s;
    const char *argv[32];
    int n = kg_ncu_argv("/usr/local/cuda/bin/ncu", "kgate_cand/", argv, 32);
    assert_true(n > 10);
    assert_null(argv[n]);
    int clock = 0, nvtx = 0, raw = 0;
    for (int i = 0; i < n; i++) {
        if (!strcmp(argv[i], "--clock-control") && !strcmp(argv[i + 1], "none")) clock = 1;
        if (!strcmp(argv[i], "--nvtx-include") && !strcmp(argv[i + 1], "kgate_cand/")) nvtx = 1;
        if (!strcmp(argv[i], "--page") && !strcmp(argv[i + 1], "raw")) raw = 1;
    }
    assert_true(clock && nvtx && raw);
    /* too small an array: still terminated */
    assert_int_equal(kg_ncu_argv("ncu", "x/", argv, 3), 2);
    assert_null(argv[2]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_real_capture),
        cmocka_unit_test(test_missing_and_errors),
        cmocka_unit_test(test_argv),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
