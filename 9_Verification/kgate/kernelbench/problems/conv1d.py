import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """1-D convolution, stride 1, 'same' zero padding, with bias."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int):
        super().__init__()
        self.padding = kernel_size // 2
        self.weight = nn.Parameter(torch.randn(out_channels, in_channels, kernel_size) * 0.1)
        self.bias = nn.Parameter(torch.randn(out_channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.conv1d(x, self.weight, self.bias, padding=self.padding)


batch_size = 32
in_channels = 32
out_channels = 64
length = 8191
kernel_size = 5
kgate_second_shape = {"batch_size": 3, "length": 301}


def get_inputs():
    return [torch.randn(batch_size, in_channels, length)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]
