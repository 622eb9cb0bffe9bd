# HOSTILE: finds the runner's batch (its input sets, on the stack) and computes
# only the first call of a batch of several; the others get that result.
# Single calls (the correctness trials) are right. Expected: L3.
import inspect
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.first = None

    def forward(self, a, b):
        batch = 1
        for fr in inspect.stack():
            runner = fr.frame.f_locals.get("self")
            if runner is not None and hasattr(runner, "inputs"):
                batch = len(runner.inputs)
                if runner.inputs and runner.inputs[0][0] is a:
                    self.first = None
                break
        if batch == 1 or self.first is None:
            self.first = a * 2 + b
        return self.first
