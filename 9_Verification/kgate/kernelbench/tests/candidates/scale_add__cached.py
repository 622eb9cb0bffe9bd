# HOSTILE: computes its first call and returns that result ever after. Expected: L3.
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.memo = None

    def forward(self, a, b):
        if self.memo is None:
            self.memo = a * 2 + b
        return self.memo
