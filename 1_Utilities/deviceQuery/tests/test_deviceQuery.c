/* test_deviceQuery.c: deviceQuery's output from made-up devices: the JSON
 * parses with a strict validator, holds every field, says null/"unknown" for
 * an unknown architecture, escapes names; the text says the same. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "device.h"
#include "dq_info.h"
#include "json_valid.h"

/* An H200 as the runtime describes it. */
static dq_device fake_h200(int id)
{
    dq_device d;
    memset(&d, 0, sizeof d);
    d.id = id;
    snprintf(d.name, sizeof d.name, "NVIDIA H200");
    for (int i = 0; i < 16; i++) d.uuid[i] = (unsigned char)(0x10 * i + i);
    d.pci_domain = 0; d.pci_bus = 0x3b + id; d.pci_device = 0;
    d.cc_major = 9; d.cc_minor = 0;
    d.sm_count = 132;
    d.sm_clock_khz = 1980000; d.mem_clock_khz = 3201000; d.bus_width_bits = 6016;
    d.total_mem = 150754820096ULL;
    d.free_mem = 150000000000LL;
    d.l2_bytes = 62914560; d.persisting_l2_max = 82837504 / 2; d.access_policy_max_window = 134213632;
    d.const_mem = 65536; d.smem_per_block = 49152; d.smem_per_block_optin = 232448;
    d.smem_per_sm = 233472; d.smem_reserved_per_block = 1024;
    d.regs_per_block = 65536; d.regs_per_sm = 65536;
    d.max_threads_per_block = 1024; d.max_threads_per_sm = 2048; d.max_blocks_per_sm = 32;
    d.warp_size = 32;
    d.max_block[0] = 1024; d.max_block[1] = 1024; d.max_block[2] = 64;
    d.max_grid[0] = 2147483647; d.max_grid[1] = 65535; d.max_grid[2] = 65535;
    d.async_engines = 3; d.ecc = 1; d.compute_mode = 0; d.can_map_host = 1;
    d.unified_addressing = 1; d.managed_memory = 1; d.concurrent_managed = 1;
    d.memory_pools = 1; d.cooperative_launch = 1; d.cluster_launch = 1;
    d.numa_config = 0; d.numa_id = -1; d.host_numa_id = 0; d.mps_enabled = 0;
    return d;
}

static void check_json(const char *doc)
{
    char err[256];
    assert_non_null(doc);
    if (!json_valid(doc, strlen(doc), err, sizeof err)) fail_msg("invalid JSON: %s\n%s", err, doc);
    /* one line: a JSON-lines reader sees it as one record too */
    assert_null(strchr(doc, '\n'));
    assert_int_equal(json_lines_valid(doc, strlen(doc), err, sizeof err), 1);
}

static void uuid_and_pci_text(void **state)
{
    (void)state;
    dq_device d = fake_h200(0);
    char t[64];
    device_uuid_text(d.uuid, t, sizeof t);
    assert_string_equal(t, "GPU-00112233-4455-6677-8899-aabbccddeeff");
    dq_pci_text(&d, t, sizeof t);
    assert_string_equal(t, "0000:3b:00.0");
    /* 32-bit domains (VMD, virtualised buses) are not cut to 16 bits */
    d.pci_domain = 0x10000;
    dq_pci_text(&d, t, sizeof t);
    assert_string_equal(t, "10000:3b:00.0");
    d.pci_domain = 0x7fffabcd;
    dq_pci_text(&d, t, sizeof t);
    assert_string_equal(t, "7fffabcd:3b:00.0");
    d.pci_domain = -1;   /* the attribute could not be read */
    dq_pci_text(&d, t, sizeof t);
    assert_string_equal(t, "unknown");
    d = fake_h200(0);
    assert_string_equal(dq_compute_mode_text(0), "Default");
    assert_string_equal(dq_compute_mode_text(2), "Prohibited");
    assert_string_equal(dq_compute_mode_text(3), "Exclusive Process");
    assert_string_equal(dq_compute_mode_text(-1), "unknown");
    assert_string_equal(dq_compute_mode_text(7), "unknown");
}

/* The PCI address in JSON: a 32-bit domain in full, unknown parts null. */
static void json_pci_wide_domain_and_unknown(void **state)
{
    (void)state;
    dq_device d = fake_h200(0);
    d.pci_domain = 0x10000;
    dq_system s = {13000, 13000, 1, 1, &d, NULL};
    char *doc = dq_json(&s, "PASS");
    check_json(doc);
    assert_non_null(strstr(doc, "\"pci\":{\"domain\":65536,\"bus\":59,\"device\":0,"
                                "\"bus_id\":\"10000:3b:00.0\"}"));
    free(doc);
    d.pci_domain = -1;
    doc = dq_json(&s, "PASS");
    check_json(doc);
    assert_non_null(strstr(doc, "\"pci\":{\"domain\":null,\"bus\":59,\"device\":0,"
                                "\"bus_id\":\"unknown\"}"));
    free(doc);
}

static void json_one_h200_has_every_field(void **state)
{
    (void)state;
    dq_device d = fake_h200(0);
    dq_system s = {13000, 13000, 1, 1, &d, NULL};
    char *doc = dq_json(&s, "PASS");
    check_json(doc);
    const char *keys[] = {
        "\"name\":\"NVIDIA H200\"", "\"uuid\":\"GPU-00112233-", "\"bus_id\":\"0000:3b:00.0\"",
        "\"compute_capability\":\"9.0\"", "\"architecture\":\"Hopper\"", "\"sm_count\":132",
        "\"fp32_lanes_per_sm\":128", "\"sm_clock_khz\":1980000", "\"memory_clock_khz\":3201000",
        "\"memory_bus_width_bits\":6016", "\"total_memory_bytes\":150754820096",
        "\"peak_memory_bandwidth_gbps\":4814.", "\"peak_fp32_gflops\":66908.",
        "\"peak_tf32_gflops\":535265.3", "\"peak_bf16_gflops\":1070530.6",
        "\"l2_cache_bytes\":62914560", "\"persisting_l2_max_bytes\":",
        "\"shared_mem_per_block_bytes\":49152", "\"shared_mem_per_block_optin_bytes\":232448",
        "\"shared_mem_per_sm_bytes\":233472", "\"registers_per_block\":65536",
        "\"registers_per_sm\":65536", "\"max_threads_per_sm\":2048", "\"max_blocks_per_sm\":32",
        "\"warp_size\":32", "\"max_block_dims\":[1024,1024,64]",
        "\"max_grid_dims\":[2147483647,65535,65535]", "\"async_copy_engines\":3",
        "\"ecc_enabled\":true", "\"compute_mode\":\"Default\"", "\"unified_addressing\":true",
        "\"managed_memory\":true", "\"concurrent_managed_access\":true",
        "\"pageable_memory_access\":false", "\"memory_pools\":true", "\"cooperative_launch\":true",
        "\"cluster_launch\":true", "\"numa_id\":null", "\"host_numa_id\":0",
        "\"mps_enabled\":false", "\"mig_instance\":false", "\"driver_version\":\"13.0\"",
        "\"runtime_version\":\"13.0\"", "\"device_count\":1",
    };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!strstr(doc, keys[i])) fail_msg("missing %s in\n%s", keys[i], doc);
    assert_null(strstr(doc, "peer_access"));
    /* the status is the last key */
    const char *tail = "\"status\":\"PASS\"}";
    assert_string_equal(doc + strlen(doc) - strlen(tail), tail);
    free(doc);
}

static void json_unknown_arch_is_null_and_unknown(void **state)
{
    (void)state;
    dq_device d = fake_h200(0);
    d.cc_major = 42; d.cc_minor = 7;
    d.compute_mode = -1;       /* attribute the driver could not report */
    d.ecc = -1;
    d.free_mem = -1;
    d.mem_clock_khz = -1;
    dq_system s = {13000, 13000, 1, 1, &d, NULL};
    char *doc = dq_json(&s, "PASS");
    check_json(doc);
    assert_non_null(strstr(doc, "\"architecture\":\"unknown\""));
    assert_non_null(strstr(doc, "\"fp32_lanes_per_sm\":null"));
    assert_non_null(strstr(doc, "\"peak_fp32_gflops\":null"));
    assert_non_null(strstr(doc, "\"peak_tf32_gflops\":null"));
    assert_non_null(strstr(doc, "\"peak_bf16_gflops\":null"));
    assert_non_null(strstr(doc, "\"peak_memory_bandwidth_gbps\":null"));
    assert_non_null(strstr(doc, "\"memory_clock_khz\":null"));
    assert_non_null(strstr(doc, "\"compute_mode\":\"unknown\""));
    assert_non_null(strstr(doc, "\"ecc_enabled\":null"));
    assert_non_null(strstr(doc, "\"free_memory_bytes\":null"));
    free(doc);
}

static void json_escapes_names_and_peer_matrix(void **state)
{
    (void)state;
    dq_device d[3] = {fake_h200(0), fake_h200(1), fake_h200(2)};
    snprintf(d[1].name, sizeof d[1].name, "Odd \"quoted\" \\ name\twith\x01 controls \xc3\xa9");
    snprintf(d[2].name, sizeof d[2].name, "NVIDIA H200 MIG 1g.18gb");
    int peer[9] = {0, 1, 0, 1, 0, 1, 0, 1, 0};
    dq_system s = {13000, 12090, 3, 3, d, peer};
    char *doc = dq_json(&s, "PASS");
    check_json(doc);
    assert_non_null(strstr(doc, "\"peer_access\":[[null,true,false],[true,null,true],[false,true,null]]"));
    assert_non_null(strstr(doc, "\"runtime_version\":\"12.9\""));
    assert_non_null(strstr(doc, "\"mig_instance\":true"));
    free(doc);
}

static char *text_of(const dq_system *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    dq_print_text(s, f);
    fclose(f);
    return buf;
}

static void text_has_every_label(void **state)
{
    (void)state;
    dq_device d[2] = {fake_h200(0), fake_h200(1)};
    d[1].cc_major = 42;
    int peer[4] = {0, 1, 1, 0};
    dq_system s = {13000, 13000, 2, 2, d, peer};
    char *t = text_of(&s);
    const char *labels[] = {
        "Device 0: NVIDIA H200", "UUID", "GPU-00112233-4455-6677-8899-aabbccddeeff",
        "0000:3b:00.0", "9.0 (Hopper)", "Multiprocessors (SMs)", "128 (16896 in all)",
        "unknown (compute capability 42.0 is not in the table)", "1980 MHz", "3201 MHz",
        "4814.3 GB/s", "66908.2 GFLOP/s", "535265.3 GFLOP/s TF32, 1070530.6 GFLOP/s BF16",
        "unknown for this architecture", "L2 cache", "Persisting L2 max",
        "Shared memory per block (opt-in)", "Shared memory per SM", "32-bit registers per block",
        "32-bit registers per SM", "Max threads per SM", "Max blocks per SM", "Warp size",
        "1024 x 1024 x 64", "2147483647 x 65535 x 65535", "Copy engines", "ECC enabled",
        "Compute mode", "Default", "Unified addressing", "Managed memory",
        "Concurrent managed access", "Pageable memory access", "Memory pools",
        "Cooperative launch", "Thread block cluster launch", "NUMA node of device memory",
        "MPS enabled", "MIG instance", "Peer access", "CUDA driver version 13.0",
    };
    for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++)
        if (!strstr(t, labels[i])) fail_msg("missing '%s' in\n%s", labels[i], t);
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(uuid_and_pci_text),
        cmocka_unit_test(json_one_h200_has_every_field),
        cmocka_unit_test(json_pci_wide_domain_and_unknown),
        cmocka_unit_test(json_unknown_arch_is_null_and_unknown),
        cmocka_unit_test(json_escapes_names_and_peer_matrix),
        cmocka_unit_test(text_has_every_label),
    };
    return cmocka_run_group_tests_name("deviceQuery", tests, NULL, NULL);
}
