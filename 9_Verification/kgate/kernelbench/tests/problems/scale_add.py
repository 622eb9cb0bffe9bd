# A tiny KernelBench-format problem for the gate's own tests (kgate
# --kernelbench): out = 2 a + b on vectors. The size is not a multiple of any
# block size. Under the tests' fake torch (fake_torch/, CPU only) it is small.
# kgate_second_shape: the sizes a judge binds for a second shape (get_inputs
# reads N when called), as the kbcorpus problems do.
import torch
import torch.nn as nn

N = 10007 if torch.__version__.endswith("+fake") else (1 << 24) + 3
kgate_second_shape = {"N": 1001}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return a * 2 + b


def get_inputs():
    return [torch.randn(N), torch.randn(N)]


def get_init_inputs():
    return []
