# Raises in forward (a shape check that is wrong). Expected: L2.
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, a, b):
        raise RuntimeError("expected a 2-D input")
