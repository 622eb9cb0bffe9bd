# Special-cases the benchmark's size: right at the problem's module-level N,
# zeros at any other (KernelBench's own check, at that size only, accepts it).
# Expected: L3 (the problem's second sizes).
import torch
import torch.nn as nn

BENCH_N = 10007 if torch.__version__.endswith("+fake") else (1 << 24) + 3


class ModelNew(nn.Module):
    def forward(self, a, b):
        out = a * 2 + b
        return out if out.numel() == BENCH_N else out * 0
