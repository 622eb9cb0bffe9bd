import torch
import torch.nn as nn


class Model(nn.Module):
    """Inclusive prefix sum along one dimension (the last one here)."""

    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cumsum(x, dim=self.dim)


batch_size = 256
length = 32767
scan_dim = 1
kgate_second_shape = {"batch_size": 7, "length": 1001}


def get_inputs():
    # uniform in [0, 1): the running sums stay far from zero, so a relative
    # tolerance means something
    return [torch.rand(batch_size, length)]


def get_init_inputs():
    return [scan_dim]
