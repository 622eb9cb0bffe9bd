#!/usr/bin/env bash
# test_torch_build.sh: the PyTorch build driver (sandboxed/kgate_torch_build.py)
# against a fake `torch` package, so it runs where PyTorch is absent:
#   - --probe reports what the gate needs (ok, version, ninja, include, ro);
#   - --build calls load_inline as a plain library (is_python_module=False,
#     no implicit headers, --as-needed, the architectures in
#     TORCH_CUDA_ARCH_LIST) and never imports what it built;
#   - without ninja it runs the compile and link itself (a real nvcc build of
#     a small source);
#   - a machine without a usable PyTorch is exit 3 with KGATE_ENV_ERROR (the
#     gate says SKIPPED), a candidate that does not build is exit 1 (L1).
# Needs python3 (and nvcc for the ninja-less build). Ends with "N passed, M failed".
set -u
cd "$(dirname "$0")/../../.."
drv=9_Verification/kgate/sandboxed/kgate_torch_build.py
passed=0
failed=0
ok()  { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v python3 > /dev/null || { bad "python3 is needed"; echo "$passed passed, $failed failed"; exit 1; }

fake=$tmp/fake
mkdir -p "$fake/torch/utils" "$fake/include/torch" "$tmp/lib"
cat > "$fake/torch/__init__.py" <<'EOF'
import os
if os.environ.get("FAKE_TORCH_BROKEN"):
    raise ImportError("libtorch_cuda.so: cannot open shared object file")
__version__ = "2.11.0+fake"
class version:
    cuda = "13.0"
EOF
: > "$fake/torch/utils/__init__.py"
cat > "$fake/torch/utils/cpp_extension.py" <<EOF
import json, os, subprocess
TORCH_LIB_PATH = "$tmp/lib"
CUDA_HOME = os.environ.get("FAKE_CUDA_HOME", "/usr/local/cuda")
COMMON_NVCC_FLAGS = ["-D__CUDA_NO_HALF_OPERATORS__"]
def is_ninja_available():
    return not os.environ.get("FAKE_NO_NINJA")
def include_paths(device_type="cpu"):
    return ["$fake/include", CUDA_HOME + "/include"]
def _get_cuda_arch_flags():
    return ["-gencode=arch=compute_%s,code=sm_%s" % (a.replace(".", ""), a.replace(".", ""))
            for a in os.environ["TORCH_CUDA_ARCH_LIST"].split(";")]
def _prepare_ldflags(extra, with_cuda, with_sycl, verbose, is_standalone):
    return extra + ["-L" + TORCH_LIB_PATH]
def _import_module_from_library(name, path, is_python_module):
    open(os.path.join(path, "IMPORTED"), "w").write("the candidate's code ran in the build")
    return None
def load_inline(name, cpp_sources, cuda_sources=None, functions=None, extra_cuda_cflags=None,
                extra_ldflags=None, build_directory=None, verbose=False, is_python_module=True,
                no_implicit_headers=False, **kw):
    rec = dict(name=name, functions=functions, is_python_module=is_python_module,
               no_implicit_headers=no_implicit_headers, extra_ldflags=extra_ldflags,
               extra_cuda_cflags=extra_cuda_cflags, arch=os.environ.get("TORCH_CUDA_ARCH_LIST"),
               source_has_candidate="candidate_marker" in "".join(cuda_sources or []))
    json.dump(rec, open(os.environ["FAKE_RECORD"], "w"))
    if "does_not_build" in "".join(cuda_sources or []):
        raise RuntimeError("Error building extension 'kgate_cand': cuda.cu(3): error: identifier undefined")
    open(os.path.join(build_directory, name + ".so"), "w").write("not really a library")
    return _import_module_from_library(name, build_directory, is_python_module)
EOF
run() { PYTHONPATH="$fake" PYTHONDONTWRITEBYTECODE=1 FAKE_RECORD="$tmp/rec.json" python3 "$drv" "$@"; }

# --probe
run --probe > "$tmp/probe" 2>&1
for k in "version=2.11.0+fake" "cuda=13.0" "ninja=1" "include=$fake/include" "ro="; do
    grep -q -- "^$k" "$tmp/probe" && ok || bad "--probe lacks $k: $(cat "$tmp/probe")"
done
# ok=1 where Python.h is present, else ok=0 with the reason
grep -q "^why=" "$tmp/probe" || grep -q "^ok=1" "$tmp/probe" && ok || bad "--probe gives neither ok=1 nor a reason"

# --build with load_inline
echo "// candidate_marker" > "$tmp/cand.cu"
run --build "$tmp/cand.cu" "$tmp/out" --arch=90,100 > "$tmp/b1" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q "^KGATE_SO=$tmp/out/kgate_cand.so" "$tmp/b1" && ok || bad "--build: exit $rc: $(cat "$tmp/b1")"
[ ! -e "$tmp/out/IMPORTED" ] && ok || bad "the driver let load_inline import what it built"
python3 - "$tmp/rec.json" <<'EOF' && ok || bad "load_inline was called wrongly: $(cat "$tmp/rec.json")"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["is_python_module"] is False, r
assert r["no_implicit_headers"] is True, r
assert r["functions"] is None, r
assert r["arch"] == "9.0;10.0", r
assert "-Wl,--as-needed" in r["extra_ldflags"], r
assert any(f.startswith("-Wl,-rpath,") for f in r["extra_ldflags"]), r
assert "-Xptxas" in r["extra_cuda_cflags"] and "-O3" in r["extra_cuda_cflags"], r
assert r["source_has_candidate"], r
EOF

# a candidate that does not build: exit 1 (L1), the compiler's message on stderr
echo "does_not_build" > "$tmp/bad.cu"
run --build "$tmp/bad.cu" "$tmp/out2" > "$tmp/b2" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "error: identifier undefined" "$tmp/b2" && ok || bad "a failed build: exit $rc: $(cat "$tmp/b2")"

# no usable PyTorch: exit 3, KGATE_ENV_ERROR (SKIPPED, not L1)
FAKE_TORCH_BROKEN=1 run --build "$tmp/cand.cu" "$tmp/out3" > "$tmp/b3" 2>&1
rc=$?
[ $rc -eq 3 ] && grep -q "^KGATE_ENV_ERROR: cannot import torch" "$tmp/b3" && ok || bad "broken torch: exit $rc: $(cat "$tmp/b3")"
FAKE_TORCH_BROKEN=1 run --probe > "$tmp/p3" 2>&1
[ $? -eq 3 ] && grep -q "^KGATE_ENV_ERROR" "$tmp/p3" && ok || bad "broken torch --probe: $(cat "$tmp/p3")"
run --nonsense > "$tmp/b4" 2>&1
[ $? -eq 2 ] && ok || bad "a bad argument was not refused"

# without ninja: the compile and link commands run directly (a real nvcc build)
if command -v nvcc > /dev/null; then
    cuda_home=$(cd "$(dirname "$(command -v nvcc)")/.." && pwd)
    cat > "$tmp/plain.cu" <<'EOF'
extern "C" __global__ void k(float* y) { y[threadIdx.x] = 1.0f; }
extern "C" void launch(float* y, cudaStream_t s) { k<<<1, 32, 0, s>>>(y); }
EOF
    FAKE_NO_NINJA=1 FAKE_CUDA_HOME="$cuda_home" run --build "$tmp/plain.cu" "$tmp/out5" --arch=90 > "$tmp/b5" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && [ -s "$tmp/out5/kgate_cand.so" ] && nm -D "$tmp/out5/kgate_cand.so" | grep -q " T launch"; then ok
    else bad "the ninja-less build: exit $rc: $(tail -5 "$tmp/b5")"; fi
    grep -q -- "-gencode=arch=compute_90,code=sm_90" "$tmp/b5" && ok || bad "the ninja-less build did not use the architecture flags"
    [ ! -e "$tmp/out5/IMPORTED" ] && ok || bad "the ninja-less build imported"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
