"""fake torch.cuda: one device, CPU clocks."""
import os
import time


def is_available():
    # a machine without a GPU: a file NO_CUDA beside this one (the sandbox clears the environment)
    return not os.path.exists(os.path.join(os.path.dirname(os.path.abspath(__file__)), "NO_CUDA"))


def device_count():
    return 1 if is_available() else 0


def get_device_capability(dev=None):
    # (9, 0), or what a file CAPABILITY beside this one says ("10.0": a test's other GPU)
    init()
    f = os.path.join(os.path.dirname(os.path.abspath(__file__)), "CAPABILITY")
    if os.path.exists(f):
        major, minor = open(f).read().strip().split(".")
        return int(major), int(minor)
    return 9, 0


def init():
    if not is_available():
        raise RuntimeError("Found no NVIDIA driver on your system")


def set_device(dev):
    init()


def get_device_name(dev=None):
    return "Fake GPU"


def synchronize(dev=None):
    pass


def empty_cache():
    pass


class Event:
    def __init__(self, enable_timing=False):
        self.t = None

    def record(self, stream=None):
        self.t = time.perf_counter()

    def elapsed_time(self, end):
        return (end.t - self.t) * 1e3
