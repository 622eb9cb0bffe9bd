# Correct but slow: 50 ms of host time in every call. Expected: L4.
import time
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, a, b):
        time.sleep(0.05)
        return a * 2 + b
