# Drops the last element (an off-by-one in the grid). Expected: L3.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, a, b):
        out = a * 2 + b
        return out[torch.tensor(list(range(out.numel() - 1)), dtype=torch.int64, device=out.device)]
