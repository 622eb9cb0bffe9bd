import torch
import torch.nn as nn


class Model(nn.Module):
    """C = A B for square N x N matrices."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B)


N = 2048
kgate_second_shape = {"N": 333}


def get_inputs():
    # uniform [0, 1), as KernelBench's own matmul problems: with randn the
    # products cancel, some outputs lie near 0, and there allclose's 1e-4 is
    # finer than the rounding of an honest float32 kernel summing in another
    # order than cuBLAS (measured: 14 of 1.5 million elements at K = 2049)
    return [torch.rand(N, N), torch.rand(N, N)]


def get_init_inputs():
    return []
