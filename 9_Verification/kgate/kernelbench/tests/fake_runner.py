#!/usr/bin/env python3
"""A runner that breaks the protocol, for tests/test_kb_gate.sh: the real
runner (kgate_kb_runner.py, copied beside this file by the test), except that
once a candidate whose text holds `KGATE_PROTO: MODE` is loaded, its replies
misbehave. MODE:
  long_line     a reply line of 5000 bytes and no newline
  escape        a reply line with an escape sequence in it
  short_payload SHOW announces its bytes, sends half of them, then waits
  wrong_dtype   SHOW's dtype says float64 for a float32 output (the bytes: float32)
  slice_total   SHOW's slices after the first (off > 0) say total= one element
                more than their shape holds
  slice_shape   SHOW's slices after the first say a shape one element longer,
                total= to match (a description that changes between slices)
The gate must say L2 (a protocol violation, or no answer in time) for each,
never hang and never crash. With a file EMPTY_ARCH beside it, its build step
is given --arch= (no architecture), whatever the gate passed: the real
build() must refuse it as the gate's own failure. With a file ORDER_LOG
beside it, every runner (the reference's too) writes a line to its log for
each PREP, RUN, SHOW and KBTIME it answers (`kgate-order: VERB T ARGS`, T its
wall clock; a PREP's ARGS end with live=N, the device tensors alive as it
starts), each torch.cuda.synchronize (`kgate-order: SYNC T`), and inside
KBTIME each call of the model (`kgate-order: CALL T input=ID`, ID naming the
input set it got) and each tensor made by torch.empty (`kgate-order: EMPTY T
numel=N`): the order the two runners ran in."""
import gc
import importlib.util
import os
import re
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("kgate_kb_runner", os.path.join(here, "kgate_kb_runner.py"))
real = importlib.util.module_from_spec(spec)
spec.loader.exec_module(real)

mode = None
_load, _reply, _show = real.Runner.load, real.Runner.reply, real.Runner.show
order_log = os.path.exists(os.path.join(here, "ORDER_LOG"))


def load(self, a):
    global mode
    r = _load(self, a)
    if "cand" in a:
        m = re.search(r"KGATE_PROTO: (\w+)", open(a["cand"]).read())
        mode = m.group(1) if m else None
    return r


def reply(self, ok, fields=None, msg=None, data=None):
    names = [k for k, _ in (fields or [])]
    if mode == "long_line" and data is not None:
        os.write(self.wfd, b"OK " + b"A" * 5000)
        time.sleep(60)
    if mode == "escape" and "n" in names:
        os.write(self.wfd, b"OK n=1 note=\x1b[2J\n")
        return
    if mode == "short_payload" and "shape" in names and len(data):
        line = real.encode_reply(True, fields, None, len(data))
        os.write(self.wfd, line + bytes(data[: len(data) // 2]))
        time.sleep(60)
    if mode == "wrong_dtype" and "dtype" in names:
        fields = [(k, "float64" if k == "dtype" else v) for k, v in fields]
    return _reply(self, ok, fields, msg, data)


def show(self, a):
    fields, data = _show(self, a)
    if int(a.get("off", "0")) > 0 and mode in ("slice_total", "slice_shape"):
        f = dict(fields)
        n = int(f["shape"].strip("[]"))
        total = int(f["total"]) + int(f["total"]) // n
        if mode == "slice_shape":
            f["shape"] = "[%d]" % (n + 1)
        f["total"] = total
        fields = list(f.items())
    return fields, data


def live_tensors():
    """live=N: the device tensors alive (distinct buffers): what the caching
    allocator must hold"""
    import torch
    gc.collect()
    return "live=%d" % len({id(o._buf) for o in gc.get_objects() if type(o) is torch.Tensor and o.device.type == "cuda"})


def traced(verb, fn, extra=None):
    """the verb's line, then the verb; extra(): a field more at the line's end"""
    def call(self, a):
        fields = ["%s=%s" % kv for kv in sorted(a.items())] + ([extra()] if extra else [])
        sys.stderr.write("kgate-order: %s %.6f %s\n" % (verb, time.time(), " ".join(fields)))
        sys.stderr.flush()
        return fn(self, a)
    return call


def traced_kbtime(fn):
    """KBTIME, with a line for each call of the model (`CALL T input=ID`, ID
    naming the input set it got) and for each tensor made empty (`EMPTY T
    numel=N`: the L2 flush)"""
    def kbtime(self, a):
        model, empty = self.model, self.torch.empty
        def logged(*inp):
            sys.stderr.write("kgate-order: CALL %.6f input=%d\n" % (time.time(), id(inp[0]) if inp else 0))
            return model(*inp)
        def made(*shape, **kw):
            x = empty(*shape, **kw)
            sys.stderr.write("kgate-order: EMPTY %.6f numel=%d\n" % (time.time(), x.numel()))
            return x
        self.model, self.torch.empty = logged, made
        try:
            return fn(self, a)
        finally:
            self.model, self.torch.empty = model, empty
    return kbtime


def traced_sync(fn):
    def sync(*a, **k):
        sys.stderr.write("kgate-order: SYNC %.6f\n" % time.time())
        return fn(*a, **k)
    return sync


real.Runner.load, real.Runner.reply, real.Runner.show = load, reply, show
if order_log:
    for verb in ("run", "show"):
        setattr(real.Runner, verb, traced(verb.upper(), getattr(real.Runner, verb)))
    real.Runner.prep = traced("PREP", real.Runner.prep, live_tensors)
    real.Runner.kbtime = traced("KBTIME", traced_kbtime(real.Runner.kbtime))
    import torch.cuda   # the fake's: each synchronize a line too
    torch.cuda.synchronize = traced_sync(torch.cuda.synchronize)
argv = sys.argv
if os.path.exists(os.path.join(here, "EMPTY_ARCH")):
    argv = [("--arch=" if a.startswith("--arch=") else a) for a in argv]
sys.exit(real.main(argv))
