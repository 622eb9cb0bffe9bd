#!/usr/bin/env python3
"""test_kb_runner.py: the pure logic of sandboxed/kgate_kb_runner.py (no
PyTorch needed): the command and reply encoding, SHOW's slice of an output
(off= len=: whole elements, within the output, else refused) and its
payload (a view of the host copy, written after the line in pieces),
KernelBench's allclose and tolerance, fast_p, the build's architectures
(an empty or malformed list refused before anything is imported). Run by
test_kb_gate.sh."""
import contextlib
import ctypes
import io
import math
import os
import sys
import tempfile
import threading
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


class Slice(unittest.TestCase):
    def test_whole_output_without_off_and_len(self):
        self.assertEqual(r.show_slice(40028, 4), (0, 10007))
        self.assertEqual(r.show_slice(0, 4), (0, 0))

    def test_byte_range_as_elements(self):
        self.assertEqual(r.show_slice(40028, 4, "0", "4096"), (0, 1024))
        self.assertEqual(r.show_slice(40028, 4, "36864", "3164"), (9216, 791))   # the last, short slice
        self.assertEqual(r.show_slice(40028, 4, "0", "0"), (0, 0))               # the description alone
        self.assertEqual(r.show_slice(40028, 4, "40028", "0"), (10007, 0))
        self.assertEqual(r.show_slice(16, 8, "8", "8"), (1, 1))
        big = 4096 * 393216 * 4                                                  # 6.4 GB: past any C int
        self.assertEqual(r.show_slice(big, 4, str(big - (64 << 20)), str(64 << 20)),
                         ((big - (64 << 20)) // 4, (64 << 20) // 4))

    def test_refused(self):
        for off, n in (("36864", "4096"),     # past the end
                       ("40032", "0"),        # starts past the end
                       ("40028", "4"),
                       ("-4", "8"), ("0", "-4"),
                       ("2", "4"), ("0", "6"),   # not whole elements
                       ("0", None), (None, "4"),
                       ("x", "4")):
            with self.assertRaises(ValueError, msg=(off, n)):
                r.show_slice(40028, 4, off, n)


class FakeCpuTensor:
    """What raw_bytes reads of a CPU tensor, over a ctypes buffer."""
    def __init__(self, values):
        self.buf = (ctypes.c_float * len(values))(*values)

    def numel(self):
        return len(self.buf)

    def element_size(self):
        return 4

    def data_ptr(self):
        return ctypes.addressof(self.buf)


class Payload(unittest.TestCase):
    def test_raw_bytes_is_a_view(self):
        t = FakeCpuTensor([1.0, 2.0, 3.0])
        v = r.raw_bytes(t)
        self.assertEqual(len(v), 12)
        self.assertEqual(bytes(v[4:8]), bytes(ctypes.c_float(2.0)))
        t.buf[1] = 5.0   # no copy: the view sees the tensor's memory
        self.assertEqual(bytes(v[4:8]), bytes(ctypes.c_float(5.0)))
        self.assertEqual(r.raw_bytes(FakeCpuTensor([])), b"")

    def test_reply_line_then_payload(self):
        rd, wr = os.pipe()
        runner = r.Runner.__new__(r.Runner)
        runner.wfd = wr
        data = bytes(range(256)) * (3 << 16)   # 48 MiB: pieces of 16 MiB
        got = []
        reader = threading.Thread(target=lambda: got.append(b"".join(iter(lambda: os.read(rd, 1 << 20), b""))))
        reader.start()
        runner.reply(True, [("dtype", "uint8"), ("shape", "[%d]" % len(data)), ("total", len(data))],
                     data=memoryview(data))
        os.close(wr)
        reader.join()
        os.close(rd)
        line = b"OK dtype=uint8 shape=[%d] total=%d bytes=%d\n" % (len(data), len(data), len(data))
        self.assertEqual(got[0][:len(line)], line)
        self.assertTrue(got[0][len(line):] == data)


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


class BuildArch(unittest.TestCase):
    def test_arch_list(self):
        self.assertEqual(r.arch_list("90"), "9.0")
        self.assertEqual(r.arch_list("90,100"), "9.0;10.0")
        self.assertEqual(r.arch_list("80,86,120"), "8.0;8.6;12.0")
        for bad in ("", ",", "90,", ",90", "9", "1000", "sm_90", "9.0", "90;100", " 90", "40", "\u0669\u0660"):
            self.assertIsNone(r.arch_list(bad), msg=repr(bad))

    def build(self, archs):
        """build() on a candidate that leaves a mark when imported: (status, output, marked)."""
        with tempfile.TemporaryDirectory() as d:
            cand = os.path.join(d, "cand.py")
            mark = os.path.join(d, "imported")
            with open(cand, "w") as f:
                f.write("open(%r, 'w').close()\n" % mark)
            out = io.StringIO()
            saved = os.environ.get("TORCH_CUDA_ARCH_LIST")
            os.environ.pop("TORCH_CUDA_ARCH_LIST", None)
            try:
                with contextlib.redirect_stdout(out):
                    rc = r.build(cand, os.path.join(d, "ext"), archs)
                env = os.environ.get("TORCH_CUDA_ARCH_LIST")
            finally:
                os.environ.pop("TORCH_CUDA_ARCH_LIST", None)
                if saved is not None:
                    os.environ["TORCH_CUDA_ARCH_LIST"] = saved
            return rc, out.getvalue(), os.path.exists(mark), env

    def test_empty_or_malformed_arch_is_the_gates_error(self):
        # TORCH_CUDA_ARCH_LIST="" would make PyTorch build for the visible GPUs
        # (none in the compile sandbox: IndexError, blamed on the candidate)
        for bad in ("", "sm_90", "90,"):
            rc, out, marked, env = self.build(bad)
            self.assertEqual(rc, 3, msg=repr(bad))
            self.assertTrue(out.startswith("KGATE_ENV_ERROR: no architecture to build for"), msg=out)
            self.assertNotIn("KGATE_BUILD_START", out)
            self.assertFalse(marked, msg="the candidate was imported with --arch=%r" % bad)
            self.assertIsNone(env, msg="TORCH_CUDA_ARCH_LIST set for --arch=%r" % bad)

    def test_good_arch_is_set_before_the_candidate(self):
        rc, out, marked, env = self.build("90,100")
        self.assertEqual(env, "9.0;10.0")
        try:
            import torch.utils.cpp_extension  # noqa: F401
        except Exception:   # no PyTorch here: the gate's error, still before the candidate
            self.assertEqual(rc, 3)
            self.assertIn("KGATE_ENV_ERROR: cannot import torch", out)
            self.assertFalse(marked)
            return
        self.assertIn("KGATE_BUILD_START: TORCH_CUDA_ARCH_LIST=9.0;10.0\n", out)
        self.assertTrue(marked)

    def test_main_passes_the_arch(self):
        seen = []
        orig = r.build
        r.build = lambda cand, extdir, archs: seen.append(archs) or 0
        try:
            r.main(["runner", "--build", "c.py", "ext", "--arch=90,100"])
            r.main(["runner", "--build", "c.py", "ext", "--arch="])
            r.main(["runner", "--build", "c.py", "ext"])
        finally:
            r.build = orig
        self.assertEqual(seen, ["90,100", "", "90"])


if __name__ == "__main__":
    unittest.main(verbosity=1)
