# Correct but slow: 20 ms of host time in every call. Expected: L4.
import time
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, a, b):
        time.sleep(0.02)
        return a * 2 + b
