import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """Layer normalisation over the last dimension, then GELU (erf form)."""

    def __init__(self, features: int, eps: float):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.randn(features))
        self.bias = nn.Parameter(torch.randn(features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(F.layer_norm(x, (x.shape[-1],), self.weight, self.bias, self.eps))


batch_size = 4096
features = 4095
eps = 1e-5
kgate_second_shape = {"batch_size": 37}


def get_inputs():
    return [torch.randn(batch_size, features)]


def get_init_inputs():
    return [features, eps]
