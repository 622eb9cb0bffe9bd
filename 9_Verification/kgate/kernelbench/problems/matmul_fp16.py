import torch
import torch.nn as nn


class Model(nn.Module):
    """C = A B in half precision (A: M x K, B: K x N)."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B)


M = 4096
K = 4096
N = 4096
kgate_second_shape = {"M": 131, "K": 97, "N": 259}


def get_inputs():
    # scaled so that a dot product of K terms stays near 1
    scale = K ** -0.25
    return [(torch.randn(M, K) * scale).to(torch.float16),
            (torch.randn(K, N) * scale).to(torch.float16)]


def get_init_inputs():
    return []
