"""fake load_inline: the lines after `// PY:` in the CUDA source become a
Python module NAME.py in the build folder; `does_not_build` in the source is
a compile error; `// FAKE-COMPILE-SECONDS: S` makes the build take S seconds
(a compiler's time: tests of builds side by side). The architectures come
from TORCH_CUDA_ARCH_LIST, as PyTorch's: it is printed (the build's log), and
unset or empty, PyTorch's own fails as it does in the gate's compile sandbox,
which has no GPU to take them from (IndexError: list index out of range)."""
import importlib.util
import os
import time


def _build_dir(name):
    return os.path.join(os.environ.get("TORCH_EXTENSIONS_DIR", "/tmp/torch_extensions"), name)


def _import_module_from_library(module_name, path, is_python_module=True):
    spec = importlib.util.spec_from_file_location(module_name, os.path.join(path, module_name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _cuda_arch_flags():
    archs = os.environ.get("TORCH_CUDA_ARCH_LIST", "")
    print("fake load_inline: TORCH_CUDA_ARCH_LIST=%s" % archs, flush=True)
    arch_list = [a for a in archs.replace(" ", ";").split(";") if a]
    if not arch_list:
        arch_list = []   # PyTorch: the visible GPUs' capabilities; none in the compile sandbox
        arch_list[-1] += "+PTX"
    return ["-gencode=arch=compute_%s,code=sm_%s" % ((a.replace(".", ""),) * 2) for a in arch_list]


def load_inline(name, cpp_sources=None, cuda_sources=None, functions=None, build_directory=None, **kw):
    _cuda_arch_flags()
    src = "".join(cuda_sources or []) if isinstance(cuda_sources, (list, tuple)) else (cuda_sources or "")
    if "does_not_build" in src:
        raise RuntimeError("Error building extension '%s': cuda.cu(3): error: identifier \"x\" is undefined" % name)
    for l in src.splitlines():
        if "// FAKE-COMPILE-SECONDS:" in l:
            time.sleep(float(l.split(":", 1)[1]))
    d = build_directory or _build_dir(name)
    os.makedirs(d, exist_ok=True)
    lines = [l.split("// PY:", 1)[1][1:] for l in src.splitlines() if "// PY:" in l]
    with open(os.path.join(d, name + ".py"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return _import_module_from_library(name, d, True)


load = load_inline
