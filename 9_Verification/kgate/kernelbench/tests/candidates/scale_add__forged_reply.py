# HOSTILE: answers for the runner: at load it writes replies of its own to
# the runner's reply pipe (fd 4), then a huge payload claim. Expected: L2.
import os
import torch.nn as nn

try:
    os.write(4, b"OK n=1\nOK bytes=999999999999\n")
except OSError:
    pass


class ModelNew(nn.Module):
    def forward(self, a, b):
        return a * 2 + b
