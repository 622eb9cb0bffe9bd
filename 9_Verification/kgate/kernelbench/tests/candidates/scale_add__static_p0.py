# The static pass rejects it (the tests' rules flag KGATE_TEST_P0). Expected: P0.
import torch.nn as nn
KGATE_TEST_P0 = 1


class ModelNew(nn.Module):
    def forward(self, a, b):
        return a * 2 + b
