# HOSTILE: takes over the runner it shares its process with. For a batch, its
# RUN answers at once and the calls (50 ms each) are made only when the gate
# asks for the outputs' digests, as if that came after the clock stopped.
# Single calls (the correctness trials) are made as asked. Expected: L4 (the
# gate's clock runs until the digests arrive).
import gc
import time
import torch.nn as nn

_runner = None
for _o in gc.get_objects():
    if type(_o).__name__ == "Runner":
        _runner = _o
for _o in gc.get_objects():
    if isinstance(_o, dict) and "RUN" in _o and "DIGEST" in _o and _runner is not None:
        _run, _digest = _o["RUN"], _o["DIGEST"]

        def _lazy_run(a, _run=_run):
            if len(_runner.inputs) > 1 and a.get("null") != "1":
                _runner.outs = []
                return [("n", len(_runner.inputs))]
            return _run(a)

        def _late_digest(a, _digest=_digest):
            if not _runner.outs and len(_runner.inputs) > 1:
                _runner.outs = [_runner.model(*inp) for inp in _runner.inputs]
            return _digest(a)

        _o["RUN"], _o["DIGEST"] = _lazy_run, _late_digest


class ModelNew(nn.Module):
    def forward(self, a, b):
        time.sleep(0.05)
        return a * 2 + b
