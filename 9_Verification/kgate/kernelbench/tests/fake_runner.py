#!/usr/bin/env python3
"""A runner that breaks the protocol, for tests/test_kb_gate.sh: the real
runner (kgate_kb_runner.py, copied beside this file by the test), except that
once a candidate whose text holds `KGATE_PROTO: MODE` is loaded, its replies
misbehave. MODE:
  long_line     a reply line of 5000 bytes and no newline
  escape        a reply line with an escape sequence in it
  short_payload SHOW announces its bytes, sends half of them, then waits
  wrong_dtype   SHOW's dtype says float64 for a float32 output (the bytes: float32)
The gate must say L2 (a protocol violation, or no answer in time) for each,
never hang and never crash. With a file EMPTY_ARCH beside it, its build step
is given --arch= (no architecture), whatever the gate passed: the real
build() must refuse it as the gate's own failure."""
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
_load, _reply = real.Runner.load, real.Runner.reply


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
    if mode == "short_payload" and "shape" in names:
        line = real.encode_reply(True, fields, None, len(data))
        os.write(self.wfd, line + data[: len(data) // 2])
        time.sleep(60)
    if mode == "wrong_dtype" and "dtype" in names:
        fields = [(k, "float64" if k == "dtype" else v) for k, v in fields]
    return _reply(self, ok, fields, msg, data)


real.Runner.load, real.Runner.reply = load, reply
argv = sys.argv
if os.path.exists(os.path.join(here, "EMPTY_ARCH")):
    argv = [("--arch=" if a.startswith("--arch=") else a) for a in argv]
sys.exit(real.main(argv))
