# HOSTILE: finds the runner (the candidate shares its process) and wraps its
# input preparation, which is off the clock, so that preparing each input
# set also computes its answer, with 100 ms of work per set; its calls then
# return the answers at once. Expected: L4 (the gate charges what its
# preparation took beyond the reference's for the same inputs).
import gc
import time
import torch.nn as nn

_answers = []


def _wrap(orig):
    def get_inputs():
        a, b = orig()
        time.sleep(0.1)
        _answers.append((a, a * 2 + b))
        del _answers[:-256]
        return [a, b]
    return get_inputs


for _obj in gc.get_objects():
    if type(_obj).__name__ == "Runner" and getattr(_obj, "get_inputs", None):
        _obj.get_inputs = _wrap(_obj.get_inputs)


class ModelNew(nn.Module):
    def forward(self, a, b):
        for src, ans in _answers:
            # the runner moves the inputs to the device: the same values, maybe a new tensor
            if src is a or src.data_ptr() == a.data_ptr():
                return ans.cuda()
        return a * 2 + b
