/* gpu_clocks.c: the SM clock and the clock-event reasons from NVML, loaded
 * with dlopen so that no program links against the driver's library. */
#define _GNU_SOURCE
#include "gpu_clocks.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <cuda_runtime_api.h>

/* The few NVML declarations we use (nvml.h): every call returns 0 on success. */
typedef void *nvml_device;
enum { NVML_CLOCK_SM = 1 };

static int (*nvml_init)(void);
static int (*nvml_by_bus_id)(const char *bus_id, nvml_device *dev);
static int (*nvml_clock)(nvml_device dev, int type, unsigned *mhz);
static int (*nvml_reasons)(nvml_device dev, unsigned long long *bits);

/* Load NVML once; 1 when every function above was found and NVML started. */
static int nvml_load(void)
{
    static int state = 0; /* 0 not tried, 1 loaded, -1 not there */
    if (state) return state > 0;
    state = -1;
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return 0;
    *(void **)&nvml_init = dlsym(lib, "nvmlInit_v2");
    *(void **)&nvml_by_bus_id = dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2");
    *(void **)&nvml_clock = dlsym(lib, "nvmlDeviceGetClockInfo");
    /* "clocks event reasons" since driver 535; "throttle reasons" before */
    *(void **)&nvml_reasons = dlsym(lib, "nvmlDeviceGetCurrentClocksEventReasons");
    if (!nvml_reasons) *(void **)&nvml_reasons = dlsym(lib, "nvmlDeviceGetCurrentClocksThrottleReasons");
    if (!nvml_init || !nvml_by_bus_id || !nvml_clock || !nvml_reasons || nvml_init() != 0) {
        dlclose(lib);
        return 0;
    }
    state = 1; /* kept loaded until exit */
    return 1;
}

struct gpu_clocks_dev {
    nvml_device dev;
};

#define CLOCKS_MAX_DEVICES 64
static gpu_clocks_dev devices[CLOCKS_MAX_DEVICES];

gpu_clocks_dev *gpu_clocks_open(int cuda_device)
{
    if (cuda_device < 0 || cuda_device >= CLOCKS_MAX_DEVICES || !nvml_load()) return NULL;
    gpu_clocks_dev *g = &devices[cuda_device];
    if (g->dev) return g;
    char bus_id[32];
    if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, cuda_device) != cudaSuccess) return NULL;
    if (nvml_by_bus_id(bus_id, &g->dev) != 0) {
        g->dev = NULL;
        return NULL;
    }
    return g;
}

void gpu_clocks_read(gpu_clocks_dev *g, gpu_clocks *c)
{
    memset(c, 0, sizeof *c);
    if (!g || !g->dev) return;
    if (nvml_clock(g->dev, NVML_CLOCK_SM, &c->sm_mhz) != 0) return;
    if (nvml_reasons(g->dev, &c->reasons) != 0) return;
    c->reasons &= ~1ULL; /* gpu_idle: the run has just ended, nothing more */
    c->ok = 1;
}

int gpu_clocks_reason_names(unsigned long long reasons, char *buf, size_t len)
{
    static const char *const names[] = {
        "gpu_idle",         "app_clocks",           "sw_power_cap",
        "hw_slowdown",      "sync_boost",           "sw_thermal",
        "hw_thermal",       "hw_power_brake",       "display_clocks",
    };
    const int known = (int)(sizeof names / sizeof names[0]);
    size_t used = 0;
    if (!len) return -1;
    buf[0] = '\0';
    if (!reasons) return snprintf(buf, len, "none") < (int)len ? 4 : -1;
    for (int b = 0; b < 64; b++) {
        if (!(reasons >> b & 1)) continue;
        char unknown[24];
        const char *name = names[b < known ? b : 0];
        if (b >= known) {
            snprintf(unknown, sizeof unknown, "0x%llx", 1ULL << b);
            name = unknown;
        }
        int w = snprintf(buf + used, len - used, "%s%s", used ? "+" : "", name);
        if (w < 0 || (size_t)w >= len - used) return -1;
        used += (size_t)w;
    }
    return (int)used;
}
