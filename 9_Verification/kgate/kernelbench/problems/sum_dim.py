import torch
import torch.nn as nn


class Model(nn.Module):
    """Sum over one dimension (the middle one here), keeping it with size 1."""

    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sum(x, dim=self.dim, keepdim=True)


batch_size = 32
dim1 = 4095
dim2 = 1023
reduce_dim = 1
kgate_second_shape = {"batch_size": 3, "dim1": 513, "dim2": 77}


def get_inputs():
    # uniform [0, 1), as KernelBench's own sum (47_Sum_reduction_over_a_dimension): with
    # randn some of the 4095-term sums lie near 0, where allclose's 1e-4 is finer than
    # an honest float32 sum in another order (measured: 1 of 32736 elements off by 1.07e-4)
    return [torch.rand(batch_size, dim1, dim2)]


def get_init_inputs():
    return [reduce_dim]
