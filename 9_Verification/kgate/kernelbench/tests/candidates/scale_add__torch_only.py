# Honest, PyTorch operations only (no extension): KernelBench accepts it. Expected: PASS.
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return b + a * 2
