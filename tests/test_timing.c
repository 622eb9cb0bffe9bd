/* test_timing.c: the round-robin order of time_gpu_group, each variant's
 * statistics picked out of the runs in the order they ran, and the clock
 * fields of the RESULT line, the hold's length. (The CUDA part, events and host functions,
 * runs on the GPU only: every sample's timing uses it.) */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "gpu_clocks.h"
#include "report.h"
#include "timing.h"

/* Every repetition runs each variant exactly once, and over n repetitions
 * each variant goes first once: nobody always gets the first (coolest) slot. */
static void round_robin_rotates_the_first_variant(void **state)
{
    (void)state;
    const int n = 3;
    const int want[3][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}};
    for (int rep = 0; rep < 3; rep++)
        for (int k = 0; k < n; k++) assert_int_equal(timing_rr_variant(rep, k, n), want[rep][k]);
    assert_int_equal(timing_rr_variant(3, 0, n), 0); /* and round again */
    for (int n2 = 1; n2 <= 7; n2++) {
        int first[7] = {0};
        for (int rep = 0; rep < n2; rep++) {
            int seen[7] = {0};
            for (int k = 0; k < n2; k++) seen[timing_rr_variant(rep, k, n2)]++;
            for (int i = 0; i < n2; i++) assert_int_equal(seen[i], 1);
            first[timing_rr_variant(rep, 0, n2)]++;
        }
        for (int i = 0; i < n2; i++) assert_int_equal(first[i], 1);
    }
    assert_int_equal(timing_rr_variant(0, 0, 1), 0);
}

/* Runs recorded in run order; variant i's runs take 10*(i+1) ms plus the
 * repetition, so a run given to the wrong variant moves its median. */
static void each_variant_gets_the_median_of_its_own_runs(void **state)
{
    (void)state;
    enum { N = 3, REPS = 5 };
    timed_run runs[REPS * N];
    memset(runs, 0, sizeof runs);
    for (int rep = 0; rep < REPS; rep++)
        for (int k = 0; k < N; k++) {
            int i = timing_rr_variant(rep, k, N);
            timed_run *r = &runs[rep * N + k];
            r->ms = 10.0 * (i + 1) + rep;
            /* variant 1 reads its clocks, 2000 MHz less its repetition, and
             * is power-capped once; variant 2 reads them only twice */
            if (i == 1) r->clocks = (gpu_clocks){1, 2000u - rep, rep == 3 ? 4ULL : 0ULL};
            if (i == 2 && rep < 2) r->clocks = (gpu_clocks){1, 1980, 0};
        }
    timing_stats t[N];
    timing_group_summary(runs, N, REPS, t);
    for (int i = 0; i < N; i++) {
        assert_int_equal(t[i].reps, REPS);
        assert_true(t[i].median_ms == 10.0 * (i + 1) + 2);
        assert_true(t[i].min_ms == 10.0 * (i + 1));
        assert_true(t[i].max_ms == 10.0 * (i + 1) + 4);
    }
    assert_int_equal(t[0].clock_runs, 0);
    assert_int_equal(t[1].clock_runs, REPS);
    assert_true(t[1].sm_mhz == 1998);
    assert_int_equal(t[1].sm_mhz_min, 1996);
    assert_true(t[1].clock_reasons == 4);
    assert_int_equal(t[2].clock_runs, 2);
    assert_true(t[2].sm_mhz == 1980);
    assert_true(t[2].clock_reasons == 0);
}

static void reasons_are_named(void **state)
{
    (void)state;
    char buf[96];
    assert_int_equal(gpu_clocks_reason_names(0, buf, sizeof buf), 4);
    assert_string_equal(buf, "none");
    gpu_clocks_reason_names(0x4, buf, sizeof buf);
    assert_string_equal(buf, "sw_power_cap");
    gpu_clocks_reason_names(0x4 | 0x20 | 0x80, buf, sizeof buf);
    assert_string_equal(buf, "sw_power_cap+sw_thermal+hw_power_brake");
    gpu_clocks_reason_names(0x8 | 0x1000, buf, sizeof buf);
    assert_string_equal(buf, "hw_slowdown+0x1000");
    assert_int_equal(gpu_clocks_reason_names(0x4 | 0x20, buf, 8), -1);
    assert_int_equal(gpu_clocks_reason_names(0, buf, 4), -1);
}

static void clocks_go_on_the_result_line_only_when_read(void **state)
{
    (void)state;
    char line[512];
    result_rec r;
    timing_stats t;
    memset(&t, 0, sizeof t);
    rec_begin(&r, "naive");
    timing_rec_clocks(&r, &t);
    assert_true(rec_format_text(&r, line, sizeof line) > 0);
    assert_null(strstr(line, "sm_mhz"));
    assert_null(strstr(line, "throttle"));

    t.clock_runs = 20;
    t.sm_mhz = 1972;
    t.sm_mhz_min = 1965;
    t.clock_reasons = 0x4;
    rec_begin(&r, "naive");
    timing_rec_clocks(&r, &t);
    assert_true(rec_format_text(&r, line, sizeof line) > 0);
    assert_non_null(strstr(line, " sm_mhz=1972 sm_mhz_min=1965 throttle=sw_power_cap"));

    t.clock_reasons = 0;
    rec_begin(&r, "naive");
    timing_rec_clocks(&r, &t);
    rec_format_text(&r, line, sizeof line);
    assert_non_null(strstr(line, " throttle=none"));
}

/* Without the driver's library (this machine has no GPU driver), no clocks. */
static void no_nvml_no_clocks(void **state)
{
    (void)state;
    gpu_clocks c = {1, 5, 5};
    gpu_clocks_read(NULL, &c);
    assert_int_equal(c.ok, 0);
}

/* The hold outlasts twice the host's longest queueing time, starts at
 * 50 us, and a short one grows (doubles and more) up to its cap of 50 ms. */
static void the_hold_outlasts_the_host_and_has_a_cap(void **state)
{
    (void)state;
    assert_true(timing_hold_seconds(0.0) == TIMING_HOLD_MIN_S);
    assert_true(timing_hold_seconds(1e-3) >= 2e-3);                  /* twice the host's time */
    assert_true(timing_hold_seconds(1e-3) <= 2e-3 + TIMING_HOLD_MIN_S);
    assert_true(timing_hold_seconds(1.0) == TIMING_HOLD_MAX_S);      /* a hung host: 50 ms, not 2 s */
    double h = timing_hold_seconds(0.0);
    int grows = 0;
    while (h < TIMING_HOLD_MAX_S && grows < 100) {
        double next = timing_hold_seconds(h);
        assert_true(next >= 2 * h || next == TIMING_HOLD_MAX_S);
        h = next;
        grows++;
    }
    assert_true(h == TIMING_HOLD_MAX_S);
    assert_true(grows <= 10);                                         /* from 50 us to 50 ms: 10 doublings */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_robin_rotates_the_first_variant),
        cmocka_unit_test(each_variant_gets_the_median_of_its_own_runs),
        cmocka_unit_test(reasons_are_named),
        cmocka_unit_test(clocks_go_on_the_result_line_only_when_read),
        cmocka_unit_test(no_nvml_no_clocks),
        cmocka_unit_test(the_hold_outlasts_the_host_and_has_a_cap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
