# Works in place on its input and returns it (KernelBench's in-place trap). Expected: L3.
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, a, b):
        return a.mul_(2).add_(b)
