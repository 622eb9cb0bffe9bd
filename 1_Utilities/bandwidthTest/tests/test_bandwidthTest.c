/* test_bandwidthTest.c: bandwidthTest's host-only parts: PCIe and HBM peak
 * arithmetic, the size plans, the verification pattern, and the
 * RESULT/JSON/CSV records. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "bw_util.h"
#include "check.h"
#include "device.h"
#include "json_valid.h"
#include "report.h"

static void hbm_peak_and_gbps(void **state)
{
    (void)state;
    /* H200: 3201 MHz x 2 x 6016 bits / 8 = 4814 GB/s (common/device.c) */
    double peak = peak_bandwidth_gbps(3201000, 6016);
    assert_float_equal(peak, 4814.3, 0.1);
    /* 1 GiB d2d in 0.512 ms, read + write counted: 4194 GB/s = 87.1 % */
    double g = bw_gbps(1ULL << 30, 1, 0.512, 1);
    assert_float_equal(g, 2.0 * 1073741824 / 0.512e6, 1e-6);
    assert_float_equal(bw_gbps(1 << 20, 64, 1.0, 0), 64.0 * 1048576 / 1e6, 1e-9);
    assert_float_equal(bw_gbps(1 << 20, 1, 0.0, 0), 0.0, 0);
}

static void size_plans(void **state)
{
    (void)state;
    long long s[BW_MAX_SIZES];
    char err[256];
    assert_int_equal(bw_plan_sizes(BW_MODE_QUICK, 256LL << 20, 0, 0, 0, 0, s, BW_MAX_SIZES, err, sizeof err), 1);
    assert_int_equal(s[0], 256LL << 20);
    int n = bw_plan_sizes(BW_MODE_SHMOO, 0, 0, 0, 0, BW_SHMOO_MAX, s, BW_MAX_SIZES, err, sizeof err);
    assert_int_equal(n, 21);                  /* 2^10 .. 2^30 */
    assert_int_equal(s[0], 1024);
    assert_int_equal(s[20], 1LL << 30);
    n = bw_plan_sizes(BW_MODE_SHMOO, 0, 0, 0, 0, 1 << 20, s, BW_MAX_SIZES, err, sizeof err);
    assert_int_equal(n, 11);
    n = bw_plan_sizes(BW_MODE_RANGE, 0, 1000, 5000, 1500, 0, s, BW_MAX_SIZES, err, sizeof err);
    assert_int_equal(n, 3);                   /* 1000 2500 4000 */
    assert_int_equal(s[2], 4000);
    n = bw_plan_sizes(BW_MODE_RANGE, 0, 7, 7, 1, 0, s, BW_MAX_SIZES, err, sizeof err);
    assert_int_equal(n, 1);
    /* the end is inclusive and a huge end does not overflow */
    n = bw_plan_sizes(BW_MODE_RANGE, 0, 1LL << 40, 1LL << 40, 1LL << 40, 0, s, BW_MAX_SIZES, err, sizeof err);
    assert_int_equal(n, 1);
    assert_int_equal(bw_plan_sizes(BW_MODE_RANGE, 0, 10, 5, 1, 0, s, BW_MAX_SIZES, err, sizeof err), -1);
    assert_non_null(strstr(err, "--start=10"));
    assert_int_equal(bw_plan_sizes(BW_MODE_RANGE, 0, 0, 5, 1, 0, s, BW_MAX_SIZES, err, sizeof err), -1);
    assert_non_null(strstr(err, "--start=0"));
    assert_int_equal(bw_plan_sizes(BW_MODE_RANGE, 0, 1, 5, 0, 0, s, BW_MAX_SIZES, err, sizeof err), -1);
    assert_non_null(strstr(err, "--increment=0"));
    assert_int_equal(bw_plan_sizes(BW_MODE_RANGE, 0, 1, 1 << 20, 1, 0, s, BW_MAX_SIZES, err, sizeof err), -1);
    assert_non_null(strstr(err, "at most 4096"));
    assert_int_equal(bw_plan_sizes(BW_MODE_QUICK, 0, 0, 0, 0, 0, s, BW_MAX_SIZES, err, sizeof err), -1);
    assert_non_null(strstr(err, "--size=0"));
}

static void batches_and_flush(void **state)
{
    (void)state;
    assert_int_equal(bw_batch_for(1024), 100);
    assert_int_equal(bw_batch_for(1 << 20), 64);
    assert_int_equal(bw_batch_for(256u << 20), 1);
    assert_int_equal(bw_batch_for(3), 100);
    assert_int_equal(bw_flush_bytes(0), (size_t)384 << 20);
    assert_int_equal(bw_flush_bytes(1 << 20), (size_t)32 << 20);
    assert_int_equal(bw_flush_bytes(32LL << 20), (size_t)48 << 20);
    assert_int_equal(bw_flush_bytes(4LL << 30), (size_t)1 << 30);
}

/* D2D copies under 4 x L2 rotate over enough pairs that every pair comes
 * back only after 4 x L2 of other data on each side. */
static void d2d_rotation_covers_four_l2(void **state)
{
    (void)state;
    const long long l2 = 60LL << 20;   /* the H200's 60 MiB */
    assert_int_equal(bw_d2d_rotation(16u << 20, l2), 15);       /* 16 MiB: 240 MiB / 16 */
    assert_int_equal(bw_d2d_rotation(1u << 20, l2), 240);
    assert_int_equal(bw_d2d_rotation(1024, l2), 245760);
    assert_int_equal(bw_d2d_rotation(100u << 20, l2), 3);       /* ceil(240 / 100) */
    assert_int_equal(bw_d2d_rotation(240u << 20, l2), 1);       /* 4 x L2 and up: one pair */
    assert_int_equal(bw_d2d_rotation(1u << 30, l2), 1);
    for (size_t b = 1000; b < (300u << 20); b = b * 3 + 7) {
        int k = bw_d2d_rotation(b, l2);
        assert_true(k >= 1);
        if (b < 4 * (size_t)l2) {
            assert_true((size_t)k * b >= 4 * (size_t)l2);         /* enough */
            assert_true((size_t)(k - 1) * b < 4 * (size_t)l2);    /* not more than needed */
        }
    }
    /* unknown L2: assume 256 MiB */
    assert_int_equal(bw_d2d_rotation(1u << 20, 0), 1024);
    assert_int_equal(bw_d2d_rotation(0, l2), 1);
}

/* What the rotated d2d copies leave behind, simulated on the host: the
 * source pattern runs on over `pairs` slots, the destination is poisoned,
 * each copy moves the first `len` bytes of its slot; afterwards every byte
 * of the destination is what bw_expected_byte says, and a copy to the wrong
 * place, a short copy or a slot skipped is seen. */
static void rotated_copies_leave_the_expected_bytes(void **state)
{
    (void)state;
    const size_t lens[] = {1000003, 4096, 13};
    for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
        size_t len = lens[k], slot = (len + 255) / 256 * 256, pairs = 7, span = pairs * slot;
        unsigned char *src = malloc(span), *dst = malloc(span);
        assert_non_null(src);
        assert_non_null(dst);
        byte_pattern_fill(src, span, 2026, 9);
        for (int plant = 0; plant < 4; plant++) {
            memset(dst, 0xFF, span);
            for (size_t p = 0; p < pairs; p++) {
                size_t off = p * slot, n = len;
                if (plant == 1 && p == 3) off += 8;           /* wrong place */
                if (plant == 2 && p == 5) n -= 1;             /* short copy */
                if (plant == 3 && p == 6) continue;           /* slot skipped */
                if (off + n > span) n = span - off;
                memcpy(dst + off, src + off, n);
            }
            size_t bad = 0;
            for (size_t j = 0; j < span; j++) bad += dst[j] != bw_expected_byte(j, slot, len, 2026, 9);
            if (plant == 0) assert_int_equal(bad, 0);
            else assert_true(bad > 0);
        }
        /* slot == len: plain pattern */
        for (size_t j = 0; j < 64; j++)
            assert_int_equal(bw_expected_byte(j, len, len, 2026, 9), byte_pattern_byte(2026, 9, j));
        free(src);
        free(dst);
    }
}

static bw_row sample_row(int ok, int d2d)
{
    bw_row r;
    memset(&r, 0, sizeof r);
    r.variant = d2d ? "d2d" : "h2d_pinned";
    r.device = 0;
    r.direction = d2d ? "d2d" : "h2d";
    r.memory = d2d ? "device" : "pinned";
    r.bytes = d2d ? (1u << 30) : (256u << 20);
    r.ok = ok;
    r.time_ms = d2d ? 0.512 : 4.86;
    r.gbps = d2d ? 4194.3 : 55.23;
    r.peak_gbps = d2d ? 4814.3 : pcie_peak_gbps(5, 16);
    r.peak_basis = d2d ? "hbm" : "pcie_gen5_x16";
    r.counted = d2d ? "read+write" : "once";
    r.batch = 1;
    r.trials = 20;
    r.timing = "events+spin";
    r.buffers = d2d ? 3 : 1;
    return r;
}

static void records_text_json_csv(void **state)
{
    (void)state;
    report_init("bandwidthTest", 0);
    result_rec r;
    char buf[4096], err[256];
    bw_row row = sample_row(1, 0);
    bw_fill_record(&r, &row);
    assert_true(rec_format_text(&r, buf, sizeof buf) > 0);
    assert_non_null(strstr(buf, "RESULT sample=bandwidthTest variant=h2d_pinned device=0 bytes=268435456 "
                                "direction=h2d memory=pinned status=PASS time_ms=4.86 gbps=55.23 pct_peak=87.65"));
    assert_non_null(strstr(buf, "peak=pcie_gen5_x16 counted=once batch=1 trials=20 timing=events+spin "
                                "buffers=1"));
    assert_true(rec_format_json(&r, buf, sizeof buf) > 0);
    if (!json_valid(buf, strlen(buf), err, sizeof err)) fail_msg("%s: %s", err, buf);
    assert_non_null(strstr(buf, "\"gbps\":55.23"));

    row = sample_row(1, 1);
    bw_fill_record(&r, &row);
    assert_true(rec_format_json(&r, buf, sizeof buf) > 0);
    if (!json_valid(buf, strlen(buf), err, sizeof err)) fail_msg("%s: %s", err, buf);
    assert_non_null(strstr(buf, "\"counted\":\"read+write\""));
    assert_non_null(strstr(buf, "\"pct_peak\":87.12"));

    /* CSV: header and row have the same number of columns */
    char h[1024];
    assert_true(bw_csv_header(h, sizeof h) > 0);
    assert_string_equal(h, "sample,variant,device,bytes,direction,memory,status,time_ms,gbps,"
                           "pct_peak,peak_gbps,peak,counted,batch,trials,timing,buffers");
    assert_true(bw_csv_format(&r, buf, sizeof buf) > 0);
    assert_string_equal(buf, "bandwidthTest,d2d,0,1073741824,d2d,device,PASS,0.512,4194,87.12,"
                             "4814,hbm,read+write,1,20,events+spin,3");

    /* a FAIL has no figures, in every format; unknown peak leaves cells empty */
    row = sample_row(0, 0);
    bw_fill_record(&r, &row);
    assert_true(rec_format_text(&r, buf, sizeof buf) > 0);
    assert_null(strstr(buf, "gbps"));
    assert_non_null(strstr(buf, "status=FAIL"));
    assert_true(bw_csv_format(&r, buf, sizeof buf) > 0);
    assert_string_equal(buf, "bandwidthTest,h2d_pinned,0,268435456,h2d,pinned,FAIL,,,,,,,,,,");
    row = sample_row(1, 0);
    row.peak_gbps = 0;
    row.peak_basis = "unknown";
    bw_fill_record(&r, &row);
    assert_true(rec_format_text(&r, buf, sizeof buf) > 0);
    assert_null(strstr(buf, "pct_peak"));
    assert_true(bw_csv_format(&r, buf, sizeof buf) > 0);
    assert_non_null(strstr(buf, ",55.23,,,unknown,"));

    /* CSV quoting of awkward text */
    rec_begin(&r, "odd,\"name\"");
    assert_true(bw_csv_format(&r, buf, sizeof buf) > 0);
    assert_non_null(strstr(buf, "bandwidthTest,\"odd,\"\"name\"\"\","));
    assert_int_equal(bw_csv_format(&r, buf, 8), -1);
}

/* A figure above its physical limit is refused; at the limit it is not. */
static void above_peak_is_refused(void **state)
{
    (void)state;
    bw_row r = sample_row(1, 1);
    assert_int_equal(bw_above_peak(&r), 0);
    r.gbps = 5041.0;                      /* the L2-resident 16 MiB copy of the old shmoo */
    assert_int_equal(bw_above_peak(&r), 1);
    r.gbps = r.peak_gbps;
    assert_int_equal(bw_above_peak(&r), 0);
    r.peak_gbps = 0;                      /* unknown peak: nothing to compare with */
    r.gbps = 1e9;
    assert_int_equal(bw_above_peak(&r), 0);
}

static void nvml_absent_is_unknown(void **state)
{
    (void)state;
    pcie_link l;
    pcie_query("0000:3b:00.0", "GPU-00000000-0000-0000-0000-000000000000", &l);
    if (!l.available) assert_true(strlen(l.why) > 0);   /* no driver here: a reason, no crash */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hbm_peak_and_gbps),
        cmocka_unit_test(size_plans),
        cmocka_unit_test(batches_and_flush),
        cmocka_unit_test(records_text_json_csv),
        cmocka_unit_test(d2d_rotation_covers_four_l2),
        cmocka_unit_test(rotated_copies_leave_the_expected_bytes),
        cmocka_unit_test(above_peak_is_refused),
        cmocka_unit_test(nvml_absent_is_unknown),
    };
    return cmocka_run_group_tests_name("bandwidthTest", tests, NULL, NULL);
}
