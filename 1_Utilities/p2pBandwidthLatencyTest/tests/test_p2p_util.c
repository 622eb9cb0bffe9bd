/* test_p2p_util.c: p2pBandwidthLatencyTest's host-only parts: the text
 * matrices, the RESULT/JSON/CSV records, the verification pattern, the
 * NVLink and PCIe arithmetic and the link decision. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "json_valid.h"
#include "p2p_util.h"
#include "device.h"
#include "report.h"

/* ---- matrices ------------------------------------------------------------ */

static void matrix_text_exact(void **state)
{
    (void)state;
    double v[4] = {2103.414, 390.126, 389.93, 2101.2};
    int st[4] = {CELL_OK, CELL_OK, CELL_FAIL, CELL_NA};
    char buf[1024];
    int n = p2p_format_matrix(buf, sizeof buf, "T", "D\\D", 2, NULL, 2, v, st, 2);
    const char *want = "T\n"
                       "       D\\D         0         1\n"
                       "         0   2103.41    390.13\n"
                       "         1      FAIL       n/a\n";
    assert_string_equal(buf, want);
    assert_int_equal(n, (int)strlen(want));
}

static void matrix_labels_and_none(void **state)
{
    (void)state;
    double v[6] = {1.5, 2.25, 3, 4, 5, 6};
    int st[6] = {CELL_OK, CELL_NONE, CELL_OK, CELL_OK, CELL_OK, CELL_OK};
    const char *labels[2] = {"h2d", "d2h"};
    char buf[1024];
    assert_true(p2p_format_matrix(buf, sizeof buf, "lat", "host", 2, labels, 3, v, st, 1) > 0);
    assert_non_null(strstr(buf, "      host         0         1         2\n"));
    assert_non_null(strstr(buf, "       h2d       1.5         -       3.0\n"));
    assert_non_null(strstr(buf, "       d2h       4.0       5.0       6.0\n"));
    /* NULL state: every cell a figure */
    assert_true(p2p_format_matrix(buf, sizeof buf, "x", "", 1, NULL, 1, v, NULL, 0) > 0);
    assert_non_null(strstr(buf, "         0         2\n"));   /* 1.5 rounds to 2 */
}

static void matrix_too_small(void **state)
{
    (void)state;
    double v[4] = {1, 2, 3, 4};
    char buf[40];
    assert_int_equal(p2p_format_matrix(buf, sizeof buf, "title", "D\\D", 2, NULL, 2, v, NULL, 2), -1);
    assert_true(strlen(buf) < sizeof buf);   /* still a terminated string */
    assert_int_equal(p2p_format_matrix(buf, 0, "t", "", 1, NULL, 1, v, NULL, 0), -1);
    /* exactly enough room: the length, and one byte less fails */
    char big[256];
    int n = p2p_format_matrix(big, sizeof big, "t", "", 1, NULL, 1, v, NULL, 0);
    assert_true(n > 0);
    char *exact = malloc((size_t)n + 1);
    assert_int_equal(p2p_format_matrix(exact, (size_t)n + 1, "t", "", 1, NULL, 1, v, NULL, 0), n);
    assert_int_equal(p2p_format_matrix(exact, (size_t)n, "t", "", 1, NULL, 1, v, NULL, 0), -1);
    free(exact);
}

/* ---- records ------------------------------------------------------------- */

static p2p_row bw_row(void)
{
    p2p_row row;
    memset(&row, 0, sizeof row);
    row.variant = "ce_uni_p2p_on";
    row.src = 0;
    row.dst = 1;
    row.bytes = 268435456;
    row.p2p = "on";
    row.ok = 1;
    row.time_ms = 0.75;
    row.gbps = p2p_gbps(row.bytes, 1, row.time_ms);
    row.peak_gbps = 450;
    row.peak_basis = "nvlink4_x18";
    row.batch = 1;
    row.samples = 20;
    row.timing = "events+spin";
    return row;
}

static void record_text_and_json(void **state)
{
    (void)state;
    report_init("p2pBandwidthLatencyTest", 0);
    p2p_row row = bw_row();
    result_rec r;
    p2p_fill_record(&r, &row);
    char buf[2048], err[200];
    assert_true(rec_format_text(&r, buf, sizeof buf) > 0);
    assert_string_equal(buf, "RESULT sample=p2pBandwidthLatencyTest variant=ce_uni_p2p_on src=0 "
                             "dst=1 bytes=268435456 status=PASS p2p=on time_ms=0.75 gbps=357.9 "
                             "pct_peak=79.54 peak_gbps=450 peak=nvlink4_x18 batch=1 samples=20 "
                             "timing=events+spin");
    assert_true(rec_format_json(&r, buf, sizeof buf) > 0);
    if (!json_valid(buf, strlen(buf), err, sizeof err)) fail_msg("%s: %s", err, buf);
    assert_non_null(strstr(buf, "\"src\":0,\"dst\":1,\"bytes\":268435456,\"status\":\"PASS\""));

    /* a failed transfer carries no figures */
    row.ok = 0;
    p2p_fill_record(&r, &row);
    assert_true(rec_format_text(&r, buf, sizeof buf) > 0);
    assert_non_null(strstr(buf, "status=FAIL p2p=on"));
    assert_null(strstr(buf, "gbps"));
    assert_null(strstr(buf, "time_ms"));

    /* the diagonal is context, not a headline */
    row = bw_row();
    row.dst = 0;
    p2p_fill_record(&r, &row);
    assert_true(rec_format_text(&r, buf, sizeof buf) > 0);
    assert_non_null(strstr(buf, "src=0 dst=0 bytes=268435456 status=PASS p2p=on role=context time_ms"));

    /* an unknown peak: no pct_peak, peak=unknown */
    row = bw_row();
    row.peak_gbps = 0;
    row.peak_basis = NULL;
    p2p_fill_record(&r, &row);
    assert_true(rec_format_text(&r, buf, sizeof buf) > 0);
    assert_null(strstr(buf, "pct_peak"));
    assert_non_null(strstr(buf, "peak=unknown"));
}

static void record_latency_and_host(void **state)
{
    (void)state;
    report_init("p2pBandwidthLatencyTest", 0);
    p2p_row row;
    memset(&row, 0, sizeof row);
    row.variant = "lat_h2d";
    row.src = -1;
    row.dst = 1;
    row.bytes = 8;
    row.p2p = "-";
    row.ok = 1;
    row.latency = 1;
    row.lat_us = 2.5;
    row.min_us = 2.25;
    row.time_ms = 0.0025;
    row.samples = 100;
    row.timing = "events+spin";
    result_rec r;
    p2p_fill_record(&r, &row);
    char buf[2048];
    assert_true(rec_format_text(&r, buf, sizeof buf) > 0);
    assert_string_equal(buf, "RESULT sample=p2pBandwidthLatencyTest variant=lat_h2d src=-1 dst=1 "
                             "bytes=8 status=PASS p2p=- time_ms=0.0025 lat_us=2.5 min_us=2.25 "
                             "samples=100 timing=events+spin");
    assert_null(strstr(buf, "gbps"));
}

static void csv_rows(void **state)
{
    (void)state;
    report_init("p2pBandwidthLatencyTest", 0);
    char h[1024], line[2048];
    assert_true(p2p_csv_header(h, sizeof h) > 0);
    assert_string_equal(h, "sample,variant,src,dst,bytes,status,p2p,time_ms,gbps,pct_peak,peak_gbps,"
                           "peak,lat_us,min_us,batch,samples,timing,type,via,links,rank,access,atomics");
    p2p_row row = bw_row();
    result_rec r;
    p2p_fill_record(&r, &row);
    assert_true(p2p_csv_format(&r, line, sizeof line) > 0);
    assert_string_equal(line, "p2pBandwidthLatencyTest,ce_uni_p2p_on,0,1,268435456,PASS,on,0.75,"
                              "357.9,79.54,450,nvlink4_x18,,,1,20,events+spin,,,,,,");
    /* the same number of columns as the header, for every row */
    int commas_h = 0, commas_l = 0;
    for (char *p = h; *p; p++) commas_h += *p == ',';
    for (char *p = line; *p; p++) commas_l += *p == ',';
    assert_int_equal(commas_h, commas_l);

    /* a link record; a value with a comma and a quote is quoted */
    rec_begin(&r, "link");
    rec_int(&r, "src", 1);
    rec_int(&r, "dst", 0);
    rec_str(&r, "status", "PASS");
    rec_str(&r, "type", "nvlink");
    rec_str(&r, "via", "a,\"b\"");
    rec_int(&r, "links", 18);
    assert_true(p2p_csv_format(&r, line, sizeof line) > 0);
    assert_string_equal(line, "p2pBandwidthLatencyTest,link,1,0,,PASS,,,,,,,,,,,,nvlink,\"a,\"\"b\"\"\",18,,,");

    /* too small */
    char tiny[10];
    assert_int_equal(p2p_csv_format(&r, tiny, sizeof tiny), -1);
    assert_int_equal(p2p_csv_header(tiny, sizeof tiny), -1);
}

static void names_and_arithmetic(void **state)
{
    (void)state;
    char b[64];
    p2p_variant_name(b, sizeof b, 0, 0, 1);
    assert_string_equal(b, "ce_uni_p2p_on");
    p2p_variant_name(b, sizeof b, 0, 1, 0);
    assert_string_equal(b, "ce_bi_p2p_off");
    p2p_variant_name(b, sizeof b, 1, 0, 1);
    assert_string_equal(b, "sm_read_uni");
    p2p_variant_name(b, sizeof b, 2, 1, 1);
    assert_string_equal(b, "sm_write_bi");
    assert_string_equal(p2p_engine_name(7), "?");
    /* 256 MiB in 1 ms: 268.4 GB/s; both directions: twice the bytes */
    assert_float_equal(p2p_gbps(1 << 28, 1, 1.0), 268.435456, 1e-9);
    assert_float_equal(p2p_gbps(1 << 28, 2, 1.0), 536.870912, 1e-9);
    assert_float_equal(p2p_gbps(1 << 28, 1, 0.0), 0.0, 0);
    assert_int_equal(p2p_batch_for(256u << 20), 1);
    assert_int_equal(p2p_batch_for((1u << 20) + 13), 64);
    assert_int_equal(p2p_batch_for(8), 100);
    assert_int_equal(p2p_batch_for(0), 1);
}

/* ---- links --------------------------------------------------------------- */

static void link_rates(void **state)
{
    (void)state;
    assert_int_equal(nvlink_generation(9, 0), 4);
    assert_float_equal(nvlink_gbps_per_link(9, 0), 25.0, 0);   /* H200: 18 x 25 = 450 GB/s */
    assert_float_equal(nvlink_gbps_per_link(8, 0), 25.0, 0);
    assert_float_equal(nvlink_gbps_per_link(7, 0), 25.0, 0);
    assert_float_equal(nvlink_gbps_per_link(6, 0), 20.0, 0);
    assert_float_equal(nvlink_gbps_per_link(10, 0), 50.0, 0);
    assert_float_equal(nvlink_gbps_per_link(8, 6), 0.0, 0);    /* not in the table: unknown */
    assert_float_equal(nvlink_gbps_per_link(12, 0), 0.0, 0);
    /* the constant the inference uses is PCIe 5.0 x16 */
    assert_float_equal(P2P_PCIE5_X16_GBPS, pcie_peak_gbps(5, 16), 0.05);
}

static p2p_link_facts h200_facts(void)
{
    p2p_link_facts f;
    memset(&f, 0, sizeof f);
    f.access = 1;
    f.perf_rank = 0;
    f.atomics = 1;
    f.cc_major = 9;
    f.cc_minor = 0;
    f.nvml_nvlink_p2p = -1;
    return f;
}

static void classify_nvml(void **state)
{
    (void)state;
    p2p_link l;
    p2p_link_facts f = h200_facts();
    /* NVSwitch (HGX): no link ends at the peer, NVML says NVLink P2P */
    f.nvml = 1;
    f.nvml_nvlink_p2p = 1;
    f.links_src = 18;
    f.links_dst = 18;
    f.src_to_switch = 1;
    p2p_classify_link(&f, &l);
    assert_string_equal(l.type, "nvlink");
    assert_string_equal(l.via, "nvswitch");
    assert_int_equal(l.links, 18);
    assert_float_equal(l.peak_gbps, 450.0, 1e-9);
    assert_string_equal(l.peak_basis, "nvlink4_x18");
    /* the narrower GPU bounds the path */
    f.links_dst = 12;
    p2p_classify_link(&f, &l);
    assert_int_equal(l.links, 12);
    assert_float_equal(l.peak_gbps, 300.0, 1e-9);
    /* direct links (a bridge): counted to the peer */
    f = h200_facts();
    f.nvml = 1;
    f.nvml_nvlink_p2p = 0;   /* the count of direct links wins over the status */
    f.links_direct = 4;
    f.links_src = f.links_dst = 12;
    p2p_classify_link(&f, &l);
    assert_string_equal(l.type, "nvlink");
    assert_string_equal(l.via, "direct");
    assert_int_equal(l.links, 4);
    assert_float_equal(l.peak_gbps, 100.0, 1e-9);
    /* NVML: no NVLink; peer access over PCIe, the slower link's peak */
    f = h200_facts();
    f.nvml = 1;
    f.nvml_nvlink_p2p = 0;
    f.pcie_gen = 5;
    f.pcie_width = 16;
    f.measured_gbps = 400;   /* NVML's word wins over a figure */
    p2p_classify_link(&f, &l);
    assert_string_equal(l.type, "pcie");
    assert_string_equal(l.via, "direct");
    assert_string_equal(l.peak_basis, "pcie_gen5_x16");
    assert_float_equal(l.peak_gbps, pcie_peak_gbps(5, 16), 1e-12);
    f.access = 0;
    f.pcie_gen = 0;
    p2p_classify_link(&f, &l);
    assert_string_equal(l.via, "host");
    assert_float_equal(l.peak_gbps, 0.0, 0);
    assert_string_equal(l.peak_basis, "unknown");
    /* an architecture without a known NVLink rate: type known, peak not */
    f = h200_facts();
    f.cc_major = 12;
    f.nvml = 1;
    f.links_direct = 2;
    p2p_classify_link(&f, &l);
    assert_string_equal(l.type, "nvlink");
    assert_float_equal(l.peak_gbps, 0.0, 0);
    assert_string_equal(l.peak_basis, "unknown");
}

static void classify_without_nvml(void **state)
{
    (void)state;
    p2p_link l;
    p2p_link_facts f = h200_facts();
    f.measured_gbps = 380;
    p2p_classify_link(&f, &l);
    assert_string_equal(l.type, "nvlink");
    assert_non_null(strstr(l.how, "inferred"));
    assert_float_equal(l.peak_gbps, 0.0, 0);   /* the count of links is unknown */
    f.measured_gbps = 60;   /* PCIe range: cannot tell */
    p2p_classify_link(&f, &l);
    assert_string_equal(l.type, "unknown");
    f.measured_gbps = 63.0 * 1.05;   /* at the threshold: not above it */
    p2p_classify_link(&f, &l);
    assert_string_equal(l.type, "unknown");
    f.measured_gbps = 0;
    p2p_classify_link(&f, &l);
    assert_string_equal(l.type, "unknown");
    assert_non_null(strstr(l.how, "no P2P figure"));
    f.same = 1;
    p2p_classify_link(&f, &l);
    assert_string_equal(l.type, "local");
}

static void nvml_link_counting(void **state)
{
    (void)state;
    p2p_nvml_gpu gpu;
    memset(&gpu, 0, sizeof gpu);
    /* links 0-3 to GPU 0000:1b:00, 4-5 to an NVSwitch, 6 inactive */
    for (int l = 0; l < 7; l++) {
        gpu.link_active[l] = l < 6;
        gpu.remote_kind[l] = l < 4 ? 0 : 2;
        gpu.remote_domain[l] = 0;
        gpu.remote_bus[l] = l < 4 ? 0x1b : 0x80;
        gpu.remote_device[l] = 0;
    }
    gpu.remote_bus[6] = 0x1b;   /* inactive: not counted */
    assert_int_equal(p2p_links_to(&gpu, 0, 0x1b, 0), 4);
    assert_int_equal(p2p_links_to(&gpu, 0, 0x1c, 0), 0);
    assert_int_equal(p2p_links_to(&gpu, 1, 0x1b, 0), 0);
    assert_int_equal(p2p_links_to(&gpu, 0, 0x80, 0), 0);   /* a switch is not the peer */
    assert_int_equal(p2p_links_to_switch(&gpu), 1);
    gpu.link_active[4] = gpu.link_active[5] = 0;
    assert_int_equal(p2p_links_to_switch(&gpu), 0);
}

static void nvml_query_without_gpu(void **state)
{
    (void)state;
    /* here (no driver, or NVML without these GPUs) the query must fail
     * softly: not available, or available with the GPUs not found */
    int dom[2] = {0, 0}, bus[2] = {0x1b, 0x1c}, dev[2] = {0, 0};
    p2p_nvml_info *info = malloc(sizeof *info);
    p2p_nvml_query(2, dom, bus, dev, info);
    if (!info->available) assert_true(strlen(info->why) > 0);
    assert_int_equal(info->n, 2);
    assert_int_equal(info->nvlink_p2p[0][1], info->gpu[0].found && info->gpu[1].found
                                                 ? info->nvlink_p2p[0][1] : -1);
    free(info);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(matrix_text_exact),
        cmocka_unit_test(matrix_labels_and_none),
        cmocka_unit_test(matrix_too_small),
        cmocka_unit_test(record_text_and_json),
        cmocka_unit_test(record_latency_and_host),
        cmocka_unit_test(csv_rows),
        cmocka_unit_test(names_and_arithmetic),
        cmocka_unit_test(link_rates),
        cmocka_unit_test(classify_nvml),
        cmocka_unit_test(classify_without_nvml),
        cmocka_unit_test(nvml_link_counting),
        cmocka_unit_test(nvml_query_without_gpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
