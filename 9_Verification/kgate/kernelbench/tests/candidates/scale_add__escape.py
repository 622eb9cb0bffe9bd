# HOSTILE: writes outside its sandbox and starts a process at its first call. Expected: L2.
import subprocess
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, a, b):
        try:
            open("/etc/kgate_kb_pwned", "w").write("x")
        except OSError:
            pass
        try:
            subprocess.run(["/bin/true"])
        except OSError:
            pass
        return a * 2 + b
