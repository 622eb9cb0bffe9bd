"""fake torch.cuda: one device, CPU clocks."""
import os
import time


def is_available():
    # a machine without a GPU: a file NO_CUDA beside this one (the sandbox clears the environment)
    return not os.path.exists(os.path.join(os.path.dirname(os.path.abspath(__file__)), "NO_CUDA"))


def init():
    if not is_available():
        raise RuntimeError("Found no NVIDIA driver on your system")


def set_device(dev):
    init()


def get_device_name(dev=None):
    return "Fake GPU"


def synchronize(dev=None):
    pass


class Event:
    def __init__(self, enable_timing=False):
        self.t = None

    def record(self, stream=None):
        self.t = time.perf_counter()

    def elapsed_time(self, end):
        return (end.t - self.t) * 1e3
