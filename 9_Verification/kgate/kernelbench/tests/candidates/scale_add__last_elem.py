# Wrong in one element only, the last but one (an off-by-one in a tail
# loop), at every size. With outputs compared slice by slice it sits in the
# last slice: the gate must still find it, and name its index in the whole
# output. Expected: L3 (trial 1, element N - 2).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, a, b):
        out = a * 2 + b
        n = out.numel()
        return torch.cat([out[:n - 2], out[n - 2:n - 1] + 0.5, out[n - 1:]])
