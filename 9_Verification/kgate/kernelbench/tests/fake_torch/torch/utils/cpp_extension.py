"""fake load_inline: the lines after `// PY:` in the CUDA source become a
Python module NAME.py in the build folder; `does_not_build` in the source is
a compile error; `// FAKE-COMPILE-SECONDS: S` makes the build take S seconds
(a compiler's time: tests of builds side by side)."""
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


def load_inline(name, cpp_sources=None, cuda_sources=None, functions=None, build_directory=None, **kw):
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
