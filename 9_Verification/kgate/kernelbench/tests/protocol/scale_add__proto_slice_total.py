# For tests/test_kb_gate.sh with kernelbench/tests/fake_runner.py: a correct
# model; the runner breaks the protocol (KGATE_PROTO: slice_total). Expected: L2.
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, a, b):
        return a * 2 + b
