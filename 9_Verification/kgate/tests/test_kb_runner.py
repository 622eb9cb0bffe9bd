#!/usr/bin/env python3
"""test_kb_runner.py: the pure logic of sandboxed/kgate_kb_runner.py (no
PyTorch needed): the command and reply encoding,
KernelBench's allclose and tolerance, fast_p. Run by test_kb_gate.sh."""
import math
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sandboxed"))
import kgate_kb_runner as r  # noqa: E402


class Protocol(unittest.TestCase):
    def test_parse_command(self):
        self.assertEqual(r.parse_command("PREP seeds=1,2,3\n"), ("PREP", {"seeds": "1,2,3"}))
        self.assertEqual(r.parse_command("QUIT"), ("QUIT", {}))

    def test_parse_command_refuses(self):
        for bad in ("", "prep seeds=1", "PREP seeds", "PREP =1", "1 a=b"):
            with self.assertRaises(ValueError, msg=bad):
                r.parse_command(bad)

    def test_reply_line(self):
        self.assertEqual(r.encode_reply(True, [("n", 3)]), b"OK n=3\n")
        self.assertEqual(r.encode_reply(True, [("dtype", "float32")], nbytes=8), b"OK dtype=float32 bytes=8\n")
        self.assertEqual(r.encode_reply(False, [("stage", "run")], msg="boom"), b"ERR stage=run msg=boom\n")

    def test_message_is_one_printable_line(self):
        line = r.encode_reply(False, [("stage", "run")], msg="a\nOK forged\x1b[2J\u202e")
        self.assertEqual(line.count(b"\n"), 1)
        self.assertTrue(all(32 <= c < 127 for c in line[:-1]))
        self.assertIn(b"\\x0a", line)


class Allclose(unittest.TestCase):
    def test_within_tolerance_scaled_by_the_candidate(self):
        # torch.allclose(ref, got): |ref - got| <= atol + rtol * |got|
        self.assertTrue(r.allclose([100.0], [100.0 + 0.0101], 1e-4, 1e-4)[0])
        self.assertFalse(r.allclose([100.0], [100.0 + 0.0102], 1e-4, 1e-4)[0])

    def test_nan_never_passes_inf_matches_itself(self):
        self.assertEqual(r.allclose([1.0, float("nan")], [1.0, float("nan")], 1e-4, 1e-4), (False, 1))
        self.assertTrue(r.allclose([math.inf], [math.inf], 1e-4, 1e-4)[0])
        self.assertFalse(r.allclose([math.inf], [-math.inf], 1e-4, 1e-4)[0])
        self.assertFalse(r.allclose([1.0], [1.0, 2.0], 1e-4, 1e-4)[0])

    def test_tolerance_by_dtype(self):
        self.assertEqual(r.tolerance("float32"), 1e-4)
        self.assertEqual(r.tolerance("float16"), 1e-2)
        self.assertEqual(r.tolerance("bfloat16"), 1e-2)
        self.assertEqual(r.tolerance("int64"), 0.0)


class Scores(unittest.TestCase):
    def test_fast_p(self):
        correct = [True, True, False, True]
        speedup = [1.2, 2.0, 9.0, 0.9]
        self.assertAlmostEqual(r.fast_p(correct, speedup, 1.0), 2 / 4)
        self.assertAlmostEqual(r.fast_p(correct, speedup, 1.5), 1 / 4)
        self.assertAlmostEqual(r.fast_p(correct, speedup, 0.0), 3 / 4)
        self.assertEqual(r.fast_p([], [], 1.0), 0.0)


if __name__ == "__main__":
    unittest.main(verbosity=1)
