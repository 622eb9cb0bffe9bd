// kgate-task: relu
// planted defect: HOSTILE (information flow: a file under /opt, through a
// PyTorch exception). The entry reads the first files it finds under /opt,
// also by other names of the same place (/proc/self/root/opt,
// /proc/1/root/opt) and through the mount table, and raises their text
// with TORCH_CHECK: a PyTorch candidate's exception is reported, and its
// message reaches the verdict's reason and the feedback (escaped). The
// sandbox binds no /opt, only the toolkit and the Python paths it needs:
// the message says nothing of the host's. L2.
#include <torch/extension.h>
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <string>

static void grab(const char* root, std::string& out)
{
    DIR* d = opendir(root);
    struct dirent* e;
    while (d && (e = readdir(d)) != NULL && out.size() < 300) {
        if (e->d_name[0] == '.') continue;
        char p[1024], buf[96] = "";
        snprintf(p, sizeof p, "%s/%s", root, e->d_name);
        FILE* f = fopen(p, "r");
        size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
        if (f) fclose(f);
        buf[n] = 0;
        out += std::string("OPT ") + p + "=" + buf + " | ";
    }
    if (d) closedir(d);
}

torch::Tensor forward(torch::Tensor x)
{
    std::string found;
    grab("/opt", found);
    grab("/proc/self/root/opt", found);
    grab("/proc/1/root/opt", found);
    FILE* m = fopen("/proc/self/mountinfo", "r");
    char line[512];
    while (m && fgets(line, sizeof line, m) && found.size() < 400)
        if (strstr(line, " /opt")) found += std::string("MNT ") + line;
    if (m) fclose(m);
    TORCH_CHECK(false, "OPTSCAN: ", found.empty() ? std::string("nothing under /opt") : found);
    return torch::relu(x);
}
