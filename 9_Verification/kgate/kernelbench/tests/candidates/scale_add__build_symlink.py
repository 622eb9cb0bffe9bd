# HOSTILE, harmless to its verdict: while it is built (its scratch folder is
# writable then) it replaces the problem file beside it by a link to a host
# path, hoping the gate writes the problem there when it copies it in again.
# The gate removes what it finds and never follows a link. Expected: PASS.
import os
import sys
import torch.nn as nn

try:
    if "--build" in sys.argv:   # the build, not the run (its scratch is read-only there)
        os.unlink("/scratch/problem.py")
        os.symlink("/tmp/kgate_kb_symlink_victim", "/scratch/problem.py")
except OSError:
    pass


class ModelNew(nn.Module):
    def forward(self, a, b):
        return a * 2 + b
