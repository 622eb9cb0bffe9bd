#!/usr/bin/env python3
"""check_cuda.py: does each candidate's CUDA source compile? (no GPU, no PyTorch)

    python3 tests/check_cuda.py [--jobs=N] [CANDIDATE.py ...]   (default: every file in candidates/)

For each candidate, the strings given to load_inline (read from the AST, never
by running the file) are checked the way load_inline would use them:
- cuda_sources is compiled with `nvcc -c -arch=sm_90 -std=c++17` against the
  stand-in PyTorch headers in tests/stub/ (only the C++ API our candidates use);
- every name in functions=[...] must be declared in cpp_sources and defined
  in cuda_sources (load_inline binds each one from a generated file that sees
  only cpp_sources).
Then the outcome is compared with labels.tsv: a candidate labelled L1 (compile
error) must fail, every other one must compile. Prints one line a candidate
and "N passed, M failed"; exit 1 when any candidate disagrees with its label.
A candidate without load_inline strings (the static pass rejects it) is skipped.
"""
import ast
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
KB = os.path.dirname(HERE)


def module_strings(tree):
    """name -> string for module-level NAME = "..." (and + of such strings)."""
    out = {}

    def value(e):
        if isinstance(e, ast.Constant) and isinstance(e.value, str):
            return e.value
        if isinstance(e, ast.Name):
            return out.get(e.id)
        if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Add):
            a, b = value(e.left), value(e.right)
            return a + b if a is not None and b is not None else None
        if isinstance(e, (ast.List, ast.Tuple)):
            parts = [value(x) for x in e.elts]
            return "\n".join(parts) if all(p is not None for p in parts) else None
        return None
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            v = value(node.value)
            if v is not None:
                out[node.targets[0].id] = v
    return out, value


def extract(path):
    """[(name, cuda, cpp, functions)] for each load_inline call in the file."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), filename=path)
    strings, value = module_strings(tree)
    calls = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and (
                (isinstance(node.func, ast.Name) and node.func.id == "load_inline")
                or (isinstance(node.func, ast.Attribute) and node.func.attr == "load_inline")):
            kw = {k.arg: k.value for k in node.keywords}
            funcs = kw.get("functions")
            names = [value(x) for x in funcs.elts] if isinstance(funcs, (ast.List, ast.Tuple)) else []
            calls.append((value(kw["name"]) if "name" in kw else "?", value(kw.get("cuda_sources")) or "",
                          value(kw.get("cpp_sources")) or "", names))
    return calls


def check(path, workdir):
    """(ok, reason) for one candidate."""
    try:
        calls = extract(path)
    except SyntaxError as e:
        return False, f"python syntax error line {e.lineno}"
    if not calls:
        return None, "no load_inline call"
    for i, (name, cuda, cpp, funcs) in enumerate(calls):
        for fn in funcs:
            if fn is None or not re.search(r"\b%s\s*\(" % re.escape(fn), cpp):
                return False, f"{fn} is not declared in cpp_sources"
            if not re.search(r"\b%s\s*\([^;]*\)\s*\{" % re.escape(fn), cuda):
                return False, f"{fn} is not defined in cuda_sources"
        src = os.path.join(workdir, f"{os.path.basename(path)}.{i}.cu")
        with open(src, "w", encoding="utf-8") as f:
            f.write(cuda)
        cmd = ["nvcc", "-c", "-arch=sm_90", "-std=c++17", "-I", os.path.join(HERE, "stub"),
               src, "-o", src + ".o"]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            first = next((ln for ln in r.stderr.splitlines() if "error" in ln), r.stderr.strip()[:200])
            return False, "nvcc: " + first.replace(src, "cuda_sources")
    return True, "compiles"


def main(argv):
    jobs = 2
    files = []
    for a in argv[1:]:
        if a.startswith("--jobs="):
            jobs = int(a.split("=", 1)[1])
        else:
            files.append(a)
    for path in files:
        if not os.path.isfile(path):
            print(f"check_cuda: {path}: no such file", file=sys.stderr)
            return 2
    if shutil.which("nvcc") is None:
        print("check_cuda: nvcc is not on PATH", file=sys.stderr)
        return 2
    labels = {}
    with open(os.path.join(KB, "labels.tsv"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            cols = line.rstrip("\n").split("\t")
            labels[cols[0]] = cols[2]
    if not files:
        d = os.path.join(KB, "candidates")
        files = sorted(os.path.join(d, x) for x in os.listdir(d) if x.endswith(".py"))
    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix="kb_check_cuda.") as work, \
            concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(lambda p: (p, check(p, work)), files))
    for path, (ok, reason) in results:
        base = os.path.basename(path)
        want = labels.get(base)
        if ok is None:
            print(f"skip {base}: {reason}")
            continue
        good = (want == "L1") == (not ok)
        print(f"{'ok  ' if good else 'FAIL'} {base}: {reason} (label {want})")
        passed += good
        failed += not good
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
