/* hist_host.c: see hist_host.h. */
#include "hist_host.h"

#include <stdio.h>
#include <string.h>

#include "hist_common.h"

static const char *const input_names[HIST_N_INPUTS] = {"uniform", "skewed", "degenerate"};

const char *hist_input_name(int kind)
{
    return kind >= 0 && kind < HIST_N_INPUTS ? input_names[kind] : NULL;
}

int hist_cases(const char *input, const char *bins, hist_case *out, char *err, size_t errlen)
{
    int kinds[HIST_N_INPUTS], nk = 0, bin_list[2], nb = 0;
    if (input && strcmp(input, "all") == 0) {
        for (int k = 0; k < HIST_N_INPUTS; k++) kinds[nk++] = k;
    } else {
        for (int k = 0; k < HIST_N_INPUTS; k++)
            if (input && strcmp(input, input_names[k]) == 0) kinds[nk++] = k;
    }
    if (nk == 0) {
        snprintf(err, errlen, "--input=%s: not one of all|uniform|skewed|degenerate",
                 input ? input : "(none)");
        return -1;
    }
    if (bins && strcmp(bins, "256") == 0) bin_list[nb++] = 256;
    else if (bins && strcmp(bins, "64") == 0) bin_list[nb++] = 64;
    else if (bins && strcmp(bins, "both") == 0) {
        bin_list[nb++] = 256;
        bin_list[nb++] = 64;
    } else {
        snprintf(err, errlen, "--bins=%s: not one of 256|64|both", bins ? bins : "(none)");
        return -1;
    }
    int c = 0;
    for (int b = 0; b < nb; b++)
        for (int k = 0; k < nk; k++) {
            out[c].kind = kinds[k];
            out[c].bins = bin_list[b];
            c++;
        }
    return c;
}

int hist_check_plan(size_t n, hist_check *out)
{
    static const size_t sizes[] = {1, 3, 15, 16, 17, 1000, 4097, (1u << 20) + 5};
    const int n_sizes = (int)(sizeof sizes / sizeof sizes[0]);
    int c = 0;
    for (int s = 0; s < n_sizes; s++)
        if (sizes[s] < n) out[c++] = (hist_check){sizes[s], 0};
    for (int s = 0; s < n_sizes; s++) {
        if (sizes[s] > n) continue;
        if (sizes[s] == 17 || sizes[s] == 4097)
            for (size_t off = 1; off < 16; off++) out[c++] = (hist_check){sizes[s], off};
        else if (sizes[s] == (1u << 20) + 5)
            out[c++] = (hist_check){sizes[s], 9};
    }
    out[c++] = (hist_check){n, 0};
    return c;
}

unsigned long long hist_grid_blocks(size_t n, unsigned bytes_per_thread, unsigned block,
                                    unsigned long long max_blocks)
{
    unsigned long long per_block_round = (unsigned long long)bytes_per_thread * block;
    unsigned long long want = (n + per_block_round - 1) / per_block_round;
    unsigned long long grid = want < max_blocks ? want : max_blocks;
    unsigned long long floor_blocks = (n + HIST_MAX_BLOCK_BYTES - 1) / HIST_MAX_BLOCK_BYTES;
    if (grid < floor_blocks) grid = floor_blocks;
    return grid > 0 ? grid : 1;
}

unsigned long long hist_block_bytes_max(size_t n, unsigned long long grid, unsigned block,
                                        unsigned bytes_per_thread)
{
    unsigned long long per_round = grid * block * bytes_per_thread;
    unsigned long long rounds = (n + per_round - 1) / per_round;
    return rounds * block * bytes_per_thread;
}

int hist_carveout_percent(size_t smem_per_block, size_t reserved_per_block, unsigned blocks,
                          size_t smem_per_sm)
{
    if (smem_per_sm == 0) return 100;
    unsigned long long need = ((unsigned long long)smem_per_block + reserved_per_block) * blocks;
    unsigned long long pct = (need * 100 + smem_per_sm - 1) / smem_per_sm;
    return pct > 100 ? 100 : (int)pct;
}

unsigned hist_waves_grid(int sm_count)
{
    const unsigned sms = sm_count > 0 ? (unsigned)sm_count : 1u;
    return sms + sms / 4 + 1;
}

size_t hist_waves_n(int sm_count, unsigned block)
{
    return (size_t)hist_waves_grid(sm_count) * block * 16 + 5;
}
