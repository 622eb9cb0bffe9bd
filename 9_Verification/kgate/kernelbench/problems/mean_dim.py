import torch
import torch.nn as nn


class Model(nn.Module):
    """Mean over one dimension (the first one here)."""

    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.mean(x, dim=self.dim)


dim0 = 1023
dim1 = 32
dim2 = 4095
reduce_dim = 0
kgate_second_shape = {"dim0": 77, "dim1": 3, "dim2": 513}


def get_inputs():
    return [torch.randn(dim0, dim1, dim2)]


def get_init_inputs():
    return [reduce_dim]
