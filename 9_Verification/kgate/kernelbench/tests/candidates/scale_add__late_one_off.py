# HOSTILE: right for its first 7 calls (the correctness trials), then wrong by
# 0.5 in one element, the last but one, of every output: the batches' digests
# allow that much (their tolerance sums every element's), the call of each
# batch compared whole does not. Expected: L3 (batch 1, element N - 2).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, a, b):
        self.calls += 1
        out = a * 2 + b
        if self.calls <= 7:
            return out
        n = out.numel()
        return torch.cat([out[:n - 2], out[n - 2:n - 1] + 0.5, out[n - 1:]])
