import torch
import torch.nn as nn


class Model(nn.Module):
    """RMS normalisation over the last dimension: x / sqrt(mean(x^2) + eps) * weight."""

    def __init__(self, features: int, eps: float):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.randn(features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        rms = torch.sqrt(torch.mean(x * x, dim=-1, keepdim=True) + self.eps)
        return x / rms * self.weight


batch_size = 2048
features = 8191
eps = 1e-6
kgate_second_shape = {"batch_size": 37}


def get_inputs():
    return [torch.randn(batch_size, features)]


def get_init_inputs():
    return [features, eps]
