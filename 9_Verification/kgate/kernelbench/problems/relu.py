import torch
import torch.nn as nn


class Model(nn.Module):
    """ReLU of a 2-D tensor, elementwise."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)


batch_size = 4096
dim = 16383
# a second shape the judge may bind before calling get_inputs again
kgate_second_shape = {"batch_size": 37, "dim": 1003}


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
