#!/usr/bin/env python3
"""check_labels_gpu.py: measure the verdict of our own non-P0 candidates on a GPU,
KernelBench's way plus a second shape, to check labels.tsv.

    python3 tests/check_labels_gpu.py [--jobs=N] [--only=SUBSTRING] [--verdicts=PASS,L4] [--keep=DIR]

Needs PyTorch with CUDA and nvcc. This is not the gate: it runs candidates
without a sandbox, so it only ever runs OUR corpus's candidates, and never
one labelled P0 (those are the hostile ones; the gate's KernelBench mode
judges them). Each candidate runs in a child process of its own (a crash or
an illegal address ends only that child), its extension built first, N at a
time, in a scratch folder (TORCH_EXTENSIONS_DIR).

In the child, for the problem's module-level sizes and then its
kgate_second_shape: seed, build Model and ModelNew (seeded alike), 3 trials
of fresh inputs: the reference on a copy, the caching allocator filled with
NaN and freed, ModelNew on the inputs; the output must have the reference's
shape and dtype and pass allclose (1e-4 float32, 1e-2 float16/bfloat16), the
inputs must come back unchanged. Then both are timed at the module sizes
(CUDA events around each call, 5 warm-up calls, median of 20; TF32 off).
Verdict: L1 the build failed, L2 an exception or changed inputs, L3 wrong
shape, dtype or values, L4 under 0.5x of the reference, else PASS.

One line a candidate, then a summary:
    RESULT candidate=relu__vec4.py label=PASS got=PASS speedup=1.02 ref_ms=0.131 new_ms=0.128 detail=
    labels: 46 agree, 1 differ
Exit status: 0 when every measured verdict agrees with its label, 1 when one
differs, 2 without PyTorch or a GPU.
"""
import concurrent.futures
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
KB = os.path.dirname(HERE)


def read_labels():
    rows = []
    with open(os.path.join(KB, "labels.tsv"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            cols = line.rstrip("\n").split("\t")
            rows.append((cols[0], cols[1], cols[2]))
    return rows


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# ---- the child: one candidate ----
def child(cand_file, problem_name, phase):
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    report = {"verdict": None, "detail": ""}
    try:
        cand = load(os.path.join(KB, "candidates", cand_file), "kb_cand")
    except Exception as e:  # the build (load_inline runs at import)
        return {"verdict": "L1", "detail": f"{type(e).__name__}: {str(e)[:300]}"}
    if phase == "build":
        return {"verdict": "built", "detail": ""}
    prob = load(os.path.join(KB, "problems", problem_name + ".py"), "kb_prob")
    tol = {torch.float32: 1e-4, torch.float16: 1e-2, torch.bfloat16: 1e-2}

    def fresh_models():
        torch.manual_seed(1000)
        ref = prob.Model(*prob.get_init_inputs()).cuda()
        torch.manual_seed(1000)
        new = cand.ModelNew(*prob.get_init_inputs()).cuda()
        return ref, new

    def poison_allocator():
        # the caching allocator keeps large blocks and small ones (up to 1 MiB,
        # carved from 2 MiB segments) apart: fill both kinds with NaN and free
        # them, so that an output element the kernel never writes reads NaN
        free, _ = torch.cuda.mem_get_info()
        large = torch.full((min(free // 4, 8 << 30) // 4,), float("nan"), device="cuda")
        small = [torch.full(((1 << 20) // 4 - 1024,), float("nan"), device="cuda") for _ in range(64)]
        del large, small

    def trials(label):
        ref, new = fresh_models()
        with torch.no_grad():
            for t in range(3):
                torch.manual_seed(2000 + t)
                inputs = [x.cuda() if isinstance(x, torch.Tensor) else x for x in prob.get_inputs()]
                copies = [x.clone() if isinstance(x, torch.Tensor) else x for x in inputs]
                want = ref(*[x.clone() if isinstance(x, torch.Tensor) else x for x in inputs])
                torch.cuda.synchronize()
                poison_allocator()
                try:
                    got = new(*inputs)
                    torch.cuda.synchronize()
                except Exception as e:
                    return "L2", f"{label} trial {t}: {type(e).__name__}: {str(e)[:200]}"
                if any(isinstance(a, torch.Tensor) and not torch.equal(a, b) for a, b in zip(inputs, copies)):
                    return "L2", f"{label} trial {t}: inputs changed"
                if type(got) is not torch.Tensor or got.shape != want.shape:
                    return "L3", f"{label} trial {t}: shape {tuple(getattr(got, 'shape', ()))} for {tuple(want.shape)}"
                if got.dtype != want.dtype:
                    return "L3", f"{label} trial {t}: dtype {got.dtype} for {want.dtype}"
                tl = tol[want.dtype]
                if not torch.allclose(got, want, atol=tl, rtol=tl):
                    diff = (got.float() - want.float()).abs()
                    return "L3", f"{label} trial {t}: max |diff| {float(diff.nan_to_num(float('inf')).max()):.3g}"
        return None, ""

    def time_model(model, inputs):
        with torch.no_grad():
            for _ in range(5):
                model(*inputs)
            torch.cuda.synchronize()
            times = []
            for _ in range(20):
                a = torch.cuda.Event(enable_timing=True)
                b = torch.cuda.Event(enable_timing=True)
                a.record()
                model(*inputs)
                b.record()
                torch.cuda.synchronize()
                times.append(a.elapsed_time(b))
        return statistics.median(times)

    try:
        verdict, detail = trials("module sizes")
        if verdict is None:
            ref, new = fresh_models()
            torch.manual_seed(3000)
            inputs = [x.cuda() if isinstance(x, torch.Tensor) else x for x in prob.get_inputs()]
            report["ref_ms"] = time_model(ref, inputs)
            report["new_ms"] = time_model(new, inputs)
            for key, value in getattr(prob, "kgate_second_shape", {}).items():
                setattr(prob, key, value)
            verdict, detail = trials("second shape")
        if verdict is None:
            speedup = report["ref_ms"] / report["new_ms"]
            report["speedup"] = speedup
            verdict = "L4" if speedup < 0.5 else "PASS"
    except Exception as e:
        verdict, detail = "L2", f"{type(e).__name__}: {str(e)[:200]}"
    report["verdict"] = verdict
    report["detail"] = detail
    return report


def run_child(python, cand, problem, phase, env, timeout):
    try:
        r = subprocess.run([python, os.path.abspath(__file__), "--child", cand, problem, phase],
                           capture_output=True, text=True, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"verdict": "L2" if phase == "run" else "L1", "detail": f"{phase} timed out after {timeout} s"}
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("{")]
    if not lines:
        tail = (r.stderr.strip().splitlines() or ["no output"])[-1]
        return {"verdict": "L2" if phase == "run" else "L1",
                "detail": f"child exit {r.returncode}: {tail[:200]}"}
    return json.loads(lines[-1])


def main(argv):
    if len(argv) == 5 and argv[1] == "--child":
        print(json.dumps(child(argv[2], argv[3], argv[4])), flush=True)
        return 0
    jobs, only, keep, verdicts = 4, "", None, None
    for a in argv[1:]:
        if a.startswith("--jobs="):
            jobs = int(a.split("=", 1)[1])
        elif a.startswith("--only="):
            only = a.split("=", 1)[1]
        elif a.startswith("--verdicts="):
            verdicts = set(a.split("=", 1)[1].split(","))
        elif a.startswith("--keep="):
            keep = a.split("=", 1)[1]
        else:
            print(f"check_labels_gpu: unknown argument {a}", file=sys.stderr)
            return 2
    try:
        import torch
    except ImportError:
        print("check_labels_gpu: PyTorch is not installed: WAIVED", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("check_labels_gpu: no CUDA device: WAIVED", file=sys.stderr)
        return 2
    rows = [r for r in read_labels() if r[2] != "P0" and only in r[0] and (verdicts is None or r[2] in verdicts)]
    scratch = keep or tempfile.mkdtemp(prefix="kb_labels.")
    env = dict(os.environ, TORCH_EXTENSIONS_DIR=os.path.join(scratch, "ext"),
               MAX_JOBS=str(max(1, (os.cpu_count() or 4) // jobs)))
    print(f"# device: {torch.cuda.get_device_name()}  torch {torch.__version__}  {len(rows)} candidates",
          flush=True)
    # build every extension first, several at a time (the compiler is the slow part)
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        built = dict(zip([r[0] for r in rows], pool.map(
            lambda r: run_child(sys.executable, r[0], r[1], "build", env, 600), rows)))
    agree = differ = 0
    for cand, problem, label in rows:
        rep = built[cand]
        if rep["verdict"] == "built":
            rep = run_child(sys.executable, cand, problem, "run", env, 300)
        got = rep["verdict"]
        same = got == label
        agree += same
        differ += not same
        print(f"RESULT candidate={cand} label={label} got={got} speedup={rep.get('speedup', 0):.3f} "
              f"ref_ms={rep.get('ref_ms', 0):.4f} new_ms={rep.get('new_ms', 0):.4f} "
              f"detail={rep['detail']}" + ("" if same else "  <-- differs"), flush=True)
    print(f"labels: {agree} agree, {differ} differ")
    if not keep:
        shutil.rmtree(scratch, ignore_errors=True)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
