/* gpu_clocks.h: the GPU's SM clock and its clock-event (throttle) reasons,
 * read from NVML, the driver's management library, so every timing can say
 * at what clock it ran and whether the GPU was holding its clock down.
 *
 *   gpu_clocks_dev *g = gpu_clocks_open(cuda_device);  // NULL: no NVML here
 *   gpu_clocks c;
 *   gpu_clocks_read(g, &c);         // c.sm_mhz = 1980, c.reasons = 0
 *   char why[96];
 *   gpu_clocks_reason_names(c.reasons, why, sizeof why);  // "none", "sw_power_cap", ...
 *
 * NVML is loaded at run time (dlopen of libnvidia-ml.so.1, which comes with
 * the driver), so nothing links against it: where it is missing, or does not
 * know the device, gpu_clocks_open returns NULL and the RESULT lines leave
 * the clock fields out. The reasons are NVML's bits (nvml.h,
 * nvmlClocksEventReason*); "gpu_idle" is dropped, since we read the clocks
 * the moment a run ends, when the GPU may have nothing queued.
 * Host-only C; gpu_clocks_read may be called from a CUDA host function
 * (it makes no CUDA call).
 */
#ifndef COMMON_GPU_CLOCKS_H
#define COMMON_GPU_CLOCKS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int ok;                      /* 1: both values were read */
    unsigned sm_mhz;             /* the SM clock, MHz */
    unsigned long long reasons;  /* NVML clock-event reason bits, gpu_idle cleared */
} gpu_clocks;

typedef struct gpu_clocks_dev gpu_clocks_dev;

/* The NVML device behind CUDA device `cuda_device` (matched by PCI bus id,
 * so CUDA_VISIBLE_DEVICES is honoured), or NULL when NVML is not there. */
gpu_clocks_dev *gpu_clocks_open(int cuda_device);

/* Read the clocks now; c->ok = 0 when g is NULL or NVML fails. */
void gpu_clocks_read(gpu_clocks_dev *g, gpu_clocks *c);

/* The reasons as names joined by '+' ("sw_power_cap+hw_slowdown"), "none"
 * for 0, an unknown bit as "0x...". Returns the length, or -1 when buf is
 * too small (buf then holds as much as fits). */
int gpu_clocks_reason_names(unsigned long long reasons, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* COMMON_GPU_CLOCKS_H */
