import torch
import torch.nn as nn


class Model(nn.Module):
    """A linear layer then ReLU: relu(x W^T + b)."""

    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(out_features, in_features) * in_features ** -0.5)
        self.bias = nn.Parameter(torch.randn(out_features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(torch.addmm(self.bias, x, self.weight.t()))


batch_size = 1024
in_features = 2047
out_features = 4095
kgate_second_shape = {"batch_size": 37}


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
