"""A fake `torch` for the gate's CPU tests of the KernelBench mode
(tests/test_kb_gate.sh): just enough of PyTorch's surface for
sandboxed/kgate_kb_runner.py and the tiny problems and candidates under
kernelbench/tests/, computed in plain Python on the CPU. "cuda" tensors are
CPU memory marked as on the device; load_inline "builds" the Python lines
that follow `// PY:` in its CUDA source. Nothing here is a model of
PyTorch's numerics."""
import ctypes
import os
import random
import time

__version__ = "0.0+fake"


class version:
    cuda = "13.0"


class dtype:
    def __init__(self, name, ct, floating):
        self.name, self.ct, self.is_floating_point = name, ct, floating

    def __repr__(self):
        return "torch." + self.name

    __str__ = __repr__


float32 = dtype("float32", ctypes.c_float, True)
float64 = dtype("float64", ctypes.c_double, True)
int64 = dtype("int64", ctypes.c_int64, False)
uint8 = dtype("uint8", ctypes.c_uint8, False)


class device:
    def __init__(self, kind, index=None):
        if isinstance(kind, device):
            kind, index = kind.type, kind.index
        if ":" in kind:
            kind, index = kind.split(":")[0], int(kind.split(":")[1])
        self.type = kind
        self.index = (index or 0) if kind == "cuda" else None

    def __eq__(self, other):
        other = device(other) if isinstance(other, str) else other
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __repr__(self):
        return self.type if self.index is None else "%s:%d" % (self.type, self.index)

    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


_gen = random.Random(0)


def manual_seed(seed):
    _gen.seed(seed)


class Generator:
    def __init__(self, device="cpu"):
        self.r = random.Random(0)

    def manual_seed(self, seed):
        self.r.seed(seed)
        return self


def rand(*shape, generator=None, dtype=None, device="cpu"):
    g = generator.r if generator else _gen
    shape = _shape_of(shape)
    return _new([g.random() for _ in range(_prod(shape))], shape, dtype or float32, device)


def dot(a, b):
    return a._like([sum(x * y for x, y in zip(a._vals(), b._vals()))], shape=())


def stack(ts):
    vals = []
    for t in ts:
        vals += t._vals()
    return _new(vals, (len(ts),) + tuple(ts[0].shape), ts[0].dtype, ts[0].device)


def randint(low, high, size, generator=None, dtype=None, device="cpu"):
    g = generator.r if generator else _gen
    shape = tuple(size)
    return _new([g.randrange(low, high) for _ in range(_prod(shape))], shape, dtype or int64, device)


class UntypedStorage:
    def __init__(self, buf):
        self.buf = buf

    def data_ptr(self):
        return ctypes.addressof(self.buf)

    def nbytes(self):
        return ctypes.sizeof(self.buf)


def _shape_of(args):
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return tuple(args[0])
    return tuple(args)


def _prod(shape):
    n = 1
    for d in shape:
        n *= d
    return n


class Tensor:
    def __init__(self, buf, shape, dt, dev, transposed=False):
        self._buf, self.shape, self.dtype, self.device = buf, tuple(shape), dt, device(dev)
        self._t = transposed

    # -- what the runner reads --
    def numel(self):
        return _prod(self.shape)

    def element_size(self):
        return ctypes.sizeof(self.dtype.ct)

    def data_ptr(self):
        return ctypes.addressof(self._buf)

    def untyped_storage(self):
        return UntypedStorage(self._buf)

    def is_contiguous(self):
        return not self._t

    def stride(self):
        if len(self.shape) == 2 and self._t:
            return (1, self.shape[0])
        st, acc = [], 1
        for d in reversed(self.shape):
            st.insert(0, acc)
            acc *= d
        return tuple(st)

    def _vals(self):
        v = list(self._buf)
        if self._t:   # a transposed view of a [c, r] buffer, seen as [r, c]
            r, c = self.shape
            v = [v[j * r + i] for i in range(r) for j in range(c)]
        return v

    def _like(self, vals, shape=None, dt=None, dev=None):
        return _new(vals, self.shape if shape is None else shape, dt or self.dtype, dev or self.device)

    def cuda(self, device=None):
        return self._like(self._vals(), dev="cuda:0")

    def cpu(self):
        return self._like(self._vals(), dev="cpu")

    def to(self, dt):
        if isinstance(dt, (device, str)):
            return self._like(self._vals(), dev=dt)
        return self._like([float(x) if dt.is_floating_point else int(x) for x in self._vals()], dt=dt)

    def detach(self):
        return self

    def contiguous(self):
        return self if not self._t else self._like(self._vals())

    def reshape(self, *shape):
        shape = _shape_of(shape)
        if shape == (-1,):
            shape = (self.numel(),)
        if self._t:
            return self._like(self._vals(), shape=shape)
        return Tensor(self._buf, shape, self.dtype, self.device)

    def t(self):
        r, c = self.shape
        return Tensor(self._like(self._vals())._buf, (c, r), self.dtype, self.device, transposed=True)

    def __getitem__(self, idx):
        v = self._buf if not self._t else self._vals()   # a gather reads only what it needs
        if isinstance(idx, slice) and len(self.shape) == 1:  # a range of a flat view
            return self._like(list(v[idx]), shape=(len(range(*idx.indices(self.numel()))),))
        if isinstance(idx, int) and len(self.shape) == 2:  # a row
            c = self.shape[1]
            return self._like(list(v[idx * c:(idx + 1) * c]), shape=(c,))
        if isinstance(idx, Tensor):
            return self._like([v[int(i)] for i in idx._vals()], shape=idx.shape)
        raise TypeError("fake torch: index with a tensor")

    def _op(self, other, fn):
        ov = other._vals() if isinstance(other, Tensor) else [other] * self.numel()
        return self._like([fn(a, b) for a, b in zip(self._vals(), ov)])

    def __add__(self, o):
        return self._op(o, lambda a, b: a + b)

    __radd__ = __add__

    def __sub__(self, o):
        return self._op(o, lambda a, b: a - b)

    def __mul__(self, o):
        return self._op(o, lambda a, b: a * b)

    def abs(self):
        return self._like([abs(x) for x in self._vals()])

    def float(self):
        return self.to(float32)

    def double(self):
        return self.to(float64)

    def sum(self):
        return self._like([sum(self._vals())], shape=())

    def item(self):
        return self._vals()[0]

    def __mod__(self, o):
        return self._op(o, lambda a, b: a % b)

    __rmul__ = __mul__

    def _inplace(self, o, fn):
        r = self._op(o, fn)
        for i, x in enumerate(r._vals()):
            self._buf[i] = x
        return self

    def add_(self, o):
        return self._inplace(o, lambda a, b: a + b)

    def mul_(self, o):
        return self._inplace(o, lambda a, b: a * b)

    def view(self, dt):   # the same bytes seen as another dtype (a flat contiguous tensor)
        n = ctypes.sizeof(self._buf) // ctypes.sizeof(dt.ct)
        return Tensor((dt.ct * n).from_buffer(self._buf), (n,), dt, self.device)

    def copy_(self, src):
        for i, x in enumerate(src._vals()):
            self._buf[i] = x
        return self

    def __repr__(self):
        return "tensor(shape=%s, dtype=%s, device=%s)" % (self.shape, self.dtype, self.device)


def _new(vals, shape, dt, dev):
    buf = (dt.ct * max(1, len(vals)))()
    for i, x in enumerate(vals):
        buf[i] = x
    return Tensor(buf, shape, dt, dev)


def tensor(vals, dtype=float32, device="cpu"):
    if not isinstance(vals, (list, tuple)):
        return _new([vals], (), dtype, device)
    return _new(list(vals), (len(vals),), dtype, device)


def zeros(*shape, dtype=float32, device="cpu"):
    shape = _shape_of(shape)
    return _new([0] * _prod(shape), shape, dtype, device)


class _Unmade:
    """A tensor only filled and dropped: the runner's L2 flush (KernelBench's
    256 MiB of int64), whose bytes are never made here"""
    def __init__(self, n, dt):
        self.n, self.dt = n, dt

    def numel(self):
        return self.n

    def fill_(self, value):
        return self


def empty(*shape, dtype=float32, device="cpu"):
    if dtype is int64 and _prod(_shape_of(shape)) >= 1 << 20:   # the flush: never read
        return _Unmade(_prod(_shape_of(shape)), dtype)
    return zeros(*shape, dtype=dtype, device=device)


def full(shape, value, dtype=float32, device="cpu"):
    shape = _shape_of([shape])
    return _new([value] * _prod(shape), shape, dtype, device)


def randn(*shape, dtype=float32, device="cpu"):
    shape = _shape_of(shape)
    return _new([_gen.gauss(0, 1) for _ in range(_prod(shape))], shape, dtype, device)


def cat(ts):
    vals = []
    for t in ts:
        vals += t._vals()
    return _new(vals, (len(vals),), ts[0].dtype, ts[0].device)


def relu(x):
    return x._like([a if a > 0 else 0.0 for a in x._vals()])


class no_grad:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


from . import cuda  # noqa: E402
from . import nn  # noqa: E402
