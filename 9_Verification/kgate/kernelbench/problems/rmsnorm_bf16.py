import torch
import torch.nn as nn


class Model(nn.Module):
    """RMS normalisation over the last dimension of bfloat16 data, with a bfloat16 weight."""

    def __init__(self, features: int, eps: float):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.randn(features).to(torch.bfloat16))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        rms = torch.sqrt(torch.mean(x.float() * x.float(), dim=-1, keepdim=True) + self.eps)
        return (x.float() / rms * self.weight.float()).to(torch.bfloat16)


batch_size = 4096
features = 8191
eps = 1e-6
kgate_second_shape = {"batch_size": 37}


def get_inputs():
    return [torch.randn(batch_size, features, dtype=torch.bfloat16)]


def get_init_inputs():
    return [features, eps]
