#!/usr/bin/env python3
"""kgate-torch-build: PyTorch's side of the kernel gate (build/libexec/kgate/kgate-torch-build.py).

  kgate-torch-build.py --probe
      Run by the gate at start (no candidate involved): is PyTorch here, and
      what does building an extension need? Prints KEY=VALUE lines: ok,
      version, cuda, ninja, python_h, python, lib, include (repeated: the
      folders the static scan reads headers from), ro (repeated: the folders
      the sandboxes must see read-only), why (when ok=0).

  kgate-torch-build.py --build SRC OUTDIR [--arch=90,100]
      Run by the gate in the compile sandbox: builds SRC (the candidate and
      the gate's adapter) with torch.utils.cpp_extension.load_inline into a
      plain shared library OUTDIR/kgate_cand.so, and prints KGATE_SO=<path>.
      load_inline imports what it builds; here that import is replaced by
      returning the path, so the candidate's code never runs in the compile
      sandbox: only the harness loads it, in its own sandbox. Without ninja,
      which load_inline needs, the same compile and link commands (load_inline's
      include folders, flags and libraries, taken from cpp_extension) run
      directly. Exit 0 built, 1 the candidate does not build (the compiler's
      messages are on stderr), 3 this machine cannot build PyTorch extensions
      (KGATE_ENV_ERROR: why): the gate then says SKIPPED, not L1.
"""
import os
import subprocess
import sys
import sysconfig


def env_error(why):
    print("KGATE_ENV_ERROR: " + why, flush=True)
    sys.exit(3)


def import_cpp_extension():
    try:
        import torch  # noqa: F401
        import torch.utils.cpp_extension as ext
    except Exception as e:  # any failure to import is the machine's, not the candidate's
        env_error("cannot import torch: %s" % (str(e).splitlines()[0] if str(e) else type(e).__name__))
    return ext


def probe():
    ext = import_cpp_extension()
    import torch
    out = []
    out.append("version=%s" % torch.__version__)
    out.append("cuda=%s" % (torch.version.cuda or ""))
    out.append("ninja=%d" % (1 if ext.is_ninja_available() else 0))
    inc = sysconfig.get_paths().get("include", "")
    have_python_h = os.path.exists(os.path.join(inc, "Python.h"))
    out.append("python_h=%d" % (1 if have_python_h else 0))
    out.append("python=%s" % sys.executable)   # a venv is found from the path it is run by
    out.append("lib=%s" % ext.TORCH_LIB_PATH)
    try:
        includes = ext.include_paths(device_type="cuda")
    except TypeError:  # older PyTorch: include_paths(cuda=True)
        includes = ext.include_paths(cuda=True)
    for d in list(includes) + [inc]:
        if d and os.path.isdir(d):
            out.append("include=%s" % d)
    ro = {sys.prefix, sys.base_prefix, os.path.dirname(os.path.dirname(torch.__file__)), inc,
          os.path.dirname(os.path.realpath(sys.executable))}
    for d in sorted(x for x in ro if x and os.path.isdir(x)):
        out.append("ro=%s" % os.path.realpath(d))
    if not torch.version.cuda:
        out.append("ok=0")
        out.append("why=this PyTorch is built without CUDA (%s)" % torch.__version__)
    elif not have_python_h:
        out.append("ok=0")
        out.append("why=Python.h is missing (%s): PyTorch extensions need the Python headers" % inc)
    elif not hasattr(ext, "_import_module_from_library"):
        out.append("ok=0")
        out.append("why=this PyTorch's load_inline cannot build without importing the result")
    else:
        out.append("ok=1")
    print("\n".join(out), flush=True)


def arch_list(arg):
    archs = [a for a in arg.split(",") if a]
    # TORCH_CUDA_ARCH_LIST wants "9.0;10.0"
    return ";".join("%s.%s" % (a[:-1], a[-1]) for a in archs)


def build(src_path, outdir, archs):
    ext = import_cpp_extension()
    if not hasattr(ext, "_import_module_from_library"):
        env_error("this PyTorch's load_inline cannot build without importing the result")
    os.environ["TORCH_CUDA_ARCH_LIST"] = arch_list(archs)
    os.environ.setdefault("MAX_JOBS", "2")
    with open(src_path) as f:
        source = f.read()
    os.makedirs(outdir, exist_ok=True)
    name = "kgate_cand"
    so = os.path.join(outdir, name + ".so")
    cuda_flags = ["-O3", "-lineinfo", "-Xptxas", "-v"]
    # libtorch_python (Python's side) is not needed by a plain library:
    # --as-needed drops it; the rpath finds libtorch when the harness loads it
    ldflags = ["-Wl,--as-needed", "-Wl,-rpath," + ext.TORCH_LIB_PATH]
    cuda_home = ext.CUDA_HOME or os.environ.get("CUDA_HOME", "")
    if cuda_home:
        ldflags.append("-Wl,-rpath," + os.path.join(cuda_home, "lib64"))
    if ext.is_ninja_available():
        # load_inline, but it must not import what it built: the candidate's
        # code runs only in the harness's sandbox
        ext._import_module_from_library = lambda module_name, path, is_python_module: os.path.join(
            path, module_name + ".so")
        try:
            ext.load_inline(name=name, cpp_sources=[""], cuda_sources=[source], functions=None,
                            extra_cuda_cflags=cuda_flags, extra_ldflags=ldflags, build_directory=outdir,
                            verbose=True, is_python_module=False, no_implicit_headers=True)
        except Exception as e:
            msg = str(e)
            if "Error building extension" in msg or "error" in msg.lower():
                print(msg, file=sys.stderr)
                sys.exit(1)
            env_error("load_inline failed: %s" % (msg.splitlines()[0] if msg else type(e).__name__))
    else:
        # the commands load_inline would run, without ninja
        try:
            includes = ext.include_paths(device_type="cuda")
        except TypeError:
            includes = ext.include_paths(cuda=True)
        inc = sysconfig.get_paths().get("include", "")
        cu = os.path.join(outdir, "cuda.cu")
        with open(cu, "w") as f:
            f.write(source)
        nvcc = os.path.join(cuda_home, "bin", "nvcc") if cuda_home else "nvcc"
        cmd = [nvcc, "-DTORCH_EXTENSION_NAME=" + name, "-DTORCH_API_INCLUDE_EXTENSION_H"]
        for d in list(includes) + [inc]:
            cmd += ["-isystem", d]
        cmd += list(getattr(ext, "COMMON_NVCC_FLAGS", []))
        cmd += ext._get_cuda_arch_flags()
        cmd += ["--compiler-options", "-fPIC", "-std=c++17"] + cuda_flags
        cmd += ["-c", cu, "-o", os.path.join(outdir, "cuda.o")]
        print(" ".join(cmd), flush=True)
        if subprocess.call(cmd) != 0:
            sys.exit(1)
        libs = ext._prepare_ldflags(list(ldflags), True, False, False, False) if hasattr(ext, "_prepare_ldflags") \
            else ldflags + ["-L" + ext.TORCH_LIB_PATH, "-lc10", "-lc10_cuda", "-ltorch_cpu", "-ltorch_cuda",
                            "-ltorch", "-L" + os.path.join(cuda_home, "lib64"), "-lcudart"]
        link = [os.environ.get("CXX", "c++"), os.path.join(outdir, "cuda.o"), "-shared"] + libs + ["-o", so]
        print(" ".join(link), flush=True)
        if subprocess.call(link) != 0:
            sys.exit(1)
    if not os.path.exists(so):
        print("no %s after the build" % so, file=sys.stderr)
        sys.exit(1)
    print("KGATE_SO=%s" % so, flush=True)


def main(argv):
    if len(argv) >= 2 and argv[1] == "--probe":
        probe()
        return 0
    if len(argv) >= 4 and argv[1] == "--build":
        archs = "90"
        for a in argv[4:]:
            if a.startswith("--arch="):
                archs = a[7:]
        build(argv[2], argv[3], archs)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
