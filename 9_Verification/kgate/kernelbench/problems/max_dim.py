import torch
import torch.nn as nn


class Model(nn.Module):
    """Maximum over one dimension (the last one here); the values, not the indices."""

    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.max(x, dim=self.dim).values


batch_size = 32
dim1 = 1023
dim2 = 4095
reduce_dim = -1
kgate_second_shape = {"batch_size": 3, "dim1": 77, "dim2": 513}


def get_inputs():
    return [torch.randn(batch_size, dim1, dim2)]


def get_init_inputs():
    return [reduce_dim]
