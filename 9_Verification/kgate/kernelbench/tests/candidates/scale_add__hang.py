# HOSTILE: never returns from its first call. Expected: L2 (the gate's deadline).
import time
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, a, b):
        while True:
            time.sleep(1)
