# Computes the right answer, then zeroes its input in place (in one process,
# a reference that ran after it would see zeros). Expected: L2 (the inputs
# must come back unchanged).
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, a, b):
        out = a * 2 + b
        a.mul_(0)
        return out
