import torch
import torch.nn as nn


class Model(nn.Module):
    """C = A B with A of M x K and B of K x N, none a multiple of a tile."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B)


M = 1537
K = 2049
N = 1023
kgate_second_shape = {"M": 131, "K": 97, "N": 259}


def get_inputs():
    # uniform [0, 1), as KernelBench's own matmul problems (matmul_square.py says why)
    return [torch.rand(M, K), torch.rand(K, N)]


def get_init_inputs():
    return []
