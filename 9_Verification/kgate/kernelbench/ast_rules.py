#!/usr/bin/env python3
"""ast_rules.py: the static Python pass for KernelBench-format candidates.

    python3 ast_rules.py CANDIDATE.py [--json] [--problem=PROBLEM.py]

A candidate defines `class ModelNew(nn.Module)` whose forward must do its work
in CUDA kernels compiled by torch.utils.cpp_extension.load_inline. This pass
reads the candidate's Python AST (and the C++/CUDA source strings in it) and
names everything that lets a candidate look fast or correct without being so:
PyTorch compute standing in for the kernel, a reference Model in disguise,
try/except fallbacks, patched timers, threads and streams, lazy tensors,
caches and call counters, precision downgrades. It never imports or runs the
candidate. Standard library only.

Severity: P0 rejects the candidate; P1 asks a reviewer to look closely.
Exit status: 0 when no P0, 1 when a P0, 2 on bad input (unreadable file,
syntax error, bad arguments).

What ModelNew may do (anything else under torch.* is PyTorch compute):
  everywhere  torch.empty*/zeros*/ones*/full* (outputs),
              dtypes, torch.Size, torch.device, torch.no_grad, nn.Module,
              nn.Parameter and the containers, load_inline (its sources as
              literals) and calls into the compiled extension
  on tensors  shape reads (.shape .size() .numel() .dim() .stride() .dtype
              .device), views and layout (.view .reshape .contiguous .permute
              .transpose .t .unsqueeze .squeeze .flatten .expand .narrow),
              .to(device) / .cuda(), .new_empty / .new_zeros
  __init__    also creates parameters as the reference does: torch.randn,
              rand, ones, full, arange, nn.init.*, arithmetic on them; other
              torch ops there are P1 (KB-INIT-COMPUTE), never P0: __init__
              sees no input
Module-level code and every other function count as forward: they run in
the judged process too (a module-level copy of get_inputs/get_init_inputs
may draw random inputs; nothing else may call it).

The problem (--problem, or ../problems/<name before "__">.py next to a
candidate in candidates/) tells the pass the problem's dtype (fp16/bf16
arithmetic in an fp32 problem is a P0 precision downgrade) and its sizes
(literals equal to them are P1 KB-HARDCODED-SIZE).
"""
import ast
import json
import os
import re
import sys

# rule -> (severity, fix). Severity may be raised or lowered per finding
# only where the rule's text says so (KB-PRECISION).
RULES = {
    "KB-NO-MODELNEW": ("P0", "define class ModelNew(nn.Module) with a forward method"),
    "KB-INHERITS-MODEL": ("P0", "derive ModelNew from nn.Module only and never use the reference Model"),
    "KB-NO-EXTENSION": ("P0", "compile the kernel with load_inline and call it from forward"),
    "KB-NO-KERNEL": ("P0", "the CUDA source must define a __global__ kernel and launch it"),
    "KB-TORCH-COMPUTE": ("P0", "do the computation in your CUDA kernel; PyTorch may only allocate outputs and reshape views"),
    "KB-TENSOR-OPERATOR": ("P0", "arithmetic on tensors (+ - * / @ comparisons) is PyTorch compute: move it into the kernel"),
    "KB-CPP-TORCH-COMPUTE": ("P0", "in the C++ wrapper use torch::empty*/zeros* and raw pointers; ATen compute ops stand in for the kernel"),
    "KB-TRY-FALLBACK": ("P0", "remove try/except: a failure must surface, not fall back to another implementation"),
    "KB-TIMER-PATCH": ("P0", "never rebind timers (time.*, torch.cuda.Event, torch.cuda.synchronize)"),
    "KB-MONKEYPATCH": ("P0", "never assign to attributes of modules or classes you did not define"),
    "KB-GLOBAL-STATE": ("P0", "leave PyTorch's global settings (torch.backends.*, torch.set_*) alone: they change the reference too"),
    "KB-THREADS": ("P0", "do the work in forward on the calling thread; no threads or processes"),
    "KB-STREAMS": ("P0", "launch on PyTorch's current stream; no private streams or CUDA graphs"),
    "KB-CUDA-STREAM": ("P0", "launch on at::cuda::getCurrentCUDAStream(); no streams, graphs or host callbacks of your own"),
    "KB-CUDA-THREAD": ("P0", "no host threads in the C++ wrapper"),
    "KB-LAZY-TENSOR": ("P0", "return plain torch.Tensor objects computed inside forward"),
    "KB-FORWARD-STATE": ("P0", "forward must be a pure function of its inputs and parameters: no counters, caches or globals"),
    "KB-CUDA-STATE": ("P0", "no static or file-scope mutable host state (caches, call counters) in the C++ wrapper"),
    "KB-DATA-PTR": ("P0", "do not read tensor addresses or object ids in Python: nothing may be keyed by them"),
    "KB-INPUT-MUTATION": ("P0", "inputs are read-only: write results into a new output tensor"),
    "KB-RETURNS-INPUT": ("P0", "return a new output tensor, not an input or a view of one"),
    "KB-UNWRITTEN-OUTPUT": ("P0", "pass the output tensor to your kernel, which must write every element"),
    "KB-PRECISION": ("P0", "compute in the problem's dtype (fp32 problems: fp32 arithmetic, no fp16/bf16/TF32)"),
    "KB-RNG": ("P0", "do not seed or draw from PyTorch's generators outside __init__"),
    "KB-DYNAMIC-SOURCE": ("P0", "give load_inline its sources as string literals (or names bound once to them)"),
    "KB-BUILD-FLAGS": ("P0", "no build flags that bring in files or code the pass cannot read"),
    "KB-EXEC": ("P0", "no exec/eval/compile: the pass must see the code that runs"),
    "KB-DYNAMIC-IMPORT": ("P0", "import with plain import statements, by name"),
    "KB-DYNAMIC-ATTR": ("P0", "name attributes directly; getattr/setattr with computed names hides what runs"),
    "KB-ESCAPE": ("P0", "no introspection, files, processes or foreign-function modules"),
    "KB-OTHER-COMPUTE": ("P0", "compute in your CUDA kernel, not in another array or kernel library"),
    "KB-INIT-COMPUTE": ("P1", "PyTorch compute in __init__ is one-time setup; make sure it only prepares parameters"),
    "KB-NN-LAYER": ("P1", "an nn layer holds parameters only; forward must not call it"),
    "KB-CLOCK": ("P1", "a candidate has no reason to read clocks or synchronize"),
    "KB-CUDA-DEVICE-STATE": ("P1", "a mutable __device__ global persists across calls: make sure it is reset every call"),
    "KB-CUDA-CONST-CAST": ("P1", "inputs arrive as const pointers for a reason: never write through a cast"),
    "KB-CUDA-LIBRARY": ("P1", "a library call (cuBLAS, cuDNN, CUB, Thrust) is not your kernel: judged as a library candidate"),
    "KB-HARDCODED-SIZE": ("P1", "read sizes from the tensors; the judge may run other shapes"),
    "KB-IMPORT": ("P1", "a module outside torch, math, typing, os: look at what it does"),
}

TIMER_WORDS = ("perf_counter", "time", "monotonic", "process_time", "Event", "elapsed_time",
               "record", "synchronize", "Timer", "timeit", "default_timer", "thread_time")

# torch paths any code may use
TORCH_ALLOWED = {
    "torch", "torch.nn", "torch.nn.Module", "torch.nn.Parameter", "torch.nn.ParameterList",
    "torch.nn.ParameterDict", "torch.nn.ModuleList", "torch.nn.ModuleDict", "torch.nn.functional",
    "torch.Tensor", "torch.Size", "torch.dtype", "torch.device", "torch.no_grad", "torch.inference_mode",
    "torch.empty", "torch.empty_like", "torch.empty_strided", "torch.zeros", "torch.zeros_like",
    "torch.ones", "torch.ones_like", "torch.full", "torch.full_like", "torch.is_tensor", "torch.utils", "torch.utils.cpp_extension", "torch.utils.cpp_extension.load_inline",
    "torch.utils.cpp_extension.load", "torch.cuda", "torch.cuda.is_available", "torch.cuda.current_device",
    "torch.cuda.device_count", "torch.cuda.device", "torch.contiguous_format",
}
TORCH_DTYPES = {"float32", "float", "float64", "double", "int32", "int", "int64", "long", "int16",
                "int8", "uint8", "bool", "float16", "half", "bfloat16", "complex64"}
LOW_PRECISION = {"torch.float16", "torch.half", "torch.bfloat16"}
# a copy of the problem's input makers may draw random tensors and compute
# on them; calling one from anywhere else is KB-RNG
INPUT_MAKERS = {"get_inputs", "get_init_inputs"}
INPUT_MAKER_RULES = {"KB-RNG", "KB-TORCH-COMPUTE", "KB-TENSOR-OPERATOR", "KB-PRECISION"}
# torch paths __init__ may use to build parameters as the reference does
TORCH_INIT_OK = {"torch.randn", "torch.rand", "torch.randint", "torch.ones", "torch.ones_like",
                 "torch.full", "torch.arange", "torch.linspace", "torch.tensor", "torch.eye"}
TORCH_RNG = {"torch.manual_seed", "torch.seed", "torch.initial_seed", "torch.get_rng_state",
             "torch.set_rng_state", "torch.Generator", "torch.rand", "torch.randn", "torch.randint",
             "torch.randperm", "torch.normal", "torch.bernoulli", "torch.multinomial", "torch.rand_like",
             "torch.randn_like", "torch.randint_like", "torch.poisson"}
NN_CONTAINERS = {"Module", "Parameter", "ParameterList", "ParameterDict", "ModuleList", "ModuleDict",
                 "init", "functional", "parameter"}

# imports by root module
THREAD_MODULES = {"threading", "_thread", "multiprocessing", "concurrent", "asyncio", "sched"}
ESCAPE_MODULES = {"subprocess", "socket", "ctypes", "cffi", "importlib", "builtins", "inspect", "gc",
                  "signal", "atexit", "marshal", "pickle", "dill", "types", "code", "codeop", "pty",
                  "shutil", "tempfile", "mmap", "pathlib", "io", "runpy", "traceback", "faulthandler",
                  "weakref", "copyreg", "posix", "resource", "urllib", "http", "requests"}
OTHER_COMPUTE = {"numpy", "cupy", "numba", "triton", "jax", "tensorflow", "scipy", "pycuda", "cuda",
                 "tilelang", "cutlass", "thunderkittens", "tvm"}
CLOCK_MODULES = {"time", "timeit"}
QUIET_MODULES = {"torch", "math", "typing", "os", "__future__", "warnings", "sys"}
SYS_ESCAPES = {"sys._getframe", "sys.modules", "sys.settrace", "sys.setprofile", "sys.exit",
               "sys._current_frames", "sys.meta_path", "sys.path_hooks", "sys.addaudithook",
               "sys.stdout", "sys.stderr", "sys.stdin"}
OS_QUIET = {"os", "os.environ", "os.path", "os.path.join", "os.path.dirname", "os.path.abspath",
            "os.getenv", "os.cpu_count"}

BUILTIN_EXEC = {"exec", "eval", "compile"}
BUILTIN_ESCAPE = {"open", "globals", "vars", "locals", "breakpoint", "input", "memoryview", "id"}
BUILTIN_REDUCE = {"sum", "max", "min", "abs", "pow", "round", "divmod", "any", "all", "sorted", "map",
                  "filter", "reversed"}
HOOKS = {"register_forward_hook", "register_forward_pre_hook", "register_full_backward_hook",
         "register_backward_hook", "register_module_forward_hook", "register_module_forward_pre_hook",
         "register_hook", "register_state_dict_pre_hook", "register_load_state_dict_post_hook"}
DUNDER_OK = {"__init__", "__name__", "__doc__", "__module__", "__qualname__"}

# tensor methods that read layout or make views (allowed in forward)
TENSOR_SCALAR_METHODS = {"size", "numel", "dim", "ndimension", "stride", "element_size", "is_contiguous",
                         "get_device", "nelement", "is_floating_point"}
TENSOR_VIEW_METHODS = {"view", "reshape", "contiguous", "permute", "transpose", "t", "unsqueeze",
                       "squeeze", "flatten", "expand", "expand_as", "narrow", "view_as", "reshape_as",
                       "unflatten", "movedim", "to", "cuda", "new_empty", "new_zeros", "detach",
                       "requires_grad_", "float", "unbind", "chunk", "split", "select"}
TENSOR_SCALAR_ATTRS = {"shape", "dtype", "device", "ndim", "is_cuda", "layout", "requires_grad"}
TENSOR_POINTER_ATTRS = {"data_ptr", "untyped_storage", "storage", "_cdata", "storage_offset",
                        "_base", "__cuda_array_interface__", "__dlpack__", "unsafe_data_ptr"}

# C++/CUDA source patterns
CPP_ALLOWED_CALLS = {"empty", "empty_like", "empty_strided", "zeros", "zeros_like", "ones", "ones_like", "full",
                     "full_like", "getCurrentCUDAStream",
                     "getDefaultCUDAStream", "TensorOptions", "device", "dtype", "kCUDA", "CUDAGuard",
                     "OptionalCUDAGuard", "DeviceGuard", "IntArrayRef", "ScalarType", "elementSize",
                     "typeMetaToScalarType", "current_device", "getCurrentDeviceProperties", "getDeviceProperties"}
CPP_COMPUTE_METHODS = ("mm|matmul|bmm|addmm|baddbmm|sum|mean|amax|amin|softmax|log_softmax|relu|gelu|exp|"
                       "add|mul|div|sub|pow|sqrt|rsqrt|clamp|clamp_min|cumsum|conv1d|conv2d|conv3d|"
                       "layer_norm|tanh|sigmoid|copy_|index_select|gather|scatter|masked_fill|where|"
                       "half|bfloat16|matmul_out|linear|max|min|norm|var|std|clone|neg|abs|square|to")
RE_CPP_NS_CALL = re.compile(r"\b(?:torch|at|c10)::((?:\w+::){0,6})(\w+)\s*(?:<[^<>;]{0,200}>)?\s*\(")
RE_CPP_METHOD = re.compile(r"[\w\)\]]\s*(?:\.|->)\s*(" + CPP_COMPUTE_METHODS + r")\s*\(")
RE_CUDA_STREAM = re.compile(r"\b(cudaStreamCreate\w*|getStreamFromPool|setCurrentCUDAStream|cudaGraph\w*|"
                            r"cudaStreamBeginCapture\w*|cudaLaunchHostFunc|cudaStreamAddCallback|"
                            r"cudaStreamWaitEvent|getStreamFromExternal|cudaSetDevice)\b")
RE_CUDA_THREAD = re.compile(r"(\bstd::(?:j?thread|async)\b|\bpthread_create\b|\bfork\s*\(\s*\)|\bstd::launch::async\b)")
RE_CUDA_STATIC = re.compile(r"\bstatic\s+(?!const\b|constexpr\b|inline\b|__\w+__|void\b|_)"
                            r"((?:[A-Za-z_][\w:]*(?:\s*<[^;{}()<>]{0,200}>)?[\s\*&]+){1,6})([A-Za-z_]\w*)\s*(=|;|\[|\{)")
RE_CUDA_MAP = re.compile(r"\bstd::(unordered_map|map|unordered_set|set)\s*<")
RE_CUDA_DEVICE_VAR = re.compile(r"\b__device__\s+(?!__\w+__|inline\b|const\b|constexpr\b)"
                                r"((?:[A-Za-z_][\w:]*[\s\*]+){1,6})([A-Za-z_]\w*)\s*(=|;|\[)")
RE_CUDA_CONST_CAST = re.compile(r"\bconst_cast\s*<")
RE_CUDA_LIBRARY = re.compile(r"\b(cublas\w*|cudnn\w*|cub::|thrust::|cutlass::|cute::)")
RE_CUDA_LOW_PRECISION = re.compile(r"(\b__half2?\b|\bhalf2?\b|\b__nv_bfloat162?\b|\bnv_bfloat162?\b|"
                                   r"\b__float2half\w*|\b__float22half\w*|\b__float2bfloat16\w*|\b__floats2half2\w*|"
                                   r"\bwmma::|\bmma\.sync\b|\btf32\b|\b__float_to_tf32\b|\bcvt\.rna\.tf32|"
                                   r"\bkHalf\b|\bkBFloat16\b|\bat::Half\b|\bat::BFloat16\b)")
RE_CUDA_CLOCK = re.compile(r"\b(cudaEventRecord|cudaEventElapsedTime|cudaDeviceSynchronize|clock64|"
                           r"std::chrono|gettimeofday|clock_gettime)\b")
RE_CPP_PYTHON = re.compile(r"(\bpy::module_?\b|\bpybind11::module_?\b|\bpy::eval\w*|\bpy::exec\b|"
                           r"\bpy::globals\b|\bPyRun_\w+|\bPyImport_\w+|\bPyEval_\w+)")
RE_CPP_ESCAPE = re.compile(r"\b(dlopen|dlsym|system|popen|execv\w*|execl\w*|fopen|open|std::ifstream|"
                           r"std::ofstream|std::fstream|mmap|ptrace|kill)\s*\(")
RE_CPP_LOOKS = re.compile(r"(#\s*include|__global__|torch::|<<<|extern\s+\"C\")")


def strip_c_comments(text):
    """Blank out // and /* */ comments and keep every newline, so offsets map to lines."""
    out = []
    i, n = 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(c if c == "\n" else " " for c in text[i:j]))
            i = j
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def is_pow2(v):
    return v > 0 and (v & (v - 1)) == 0


class Problem:
    """What the pass needs from the problem: its dtype and its module-level sizes."""

    def __init__(self, path):
        self.path = path
        self.dtype = None
        self.sizes = {}
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), filename=path)
        for node in tree.body:
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    names = [t] if isinstance(t, ast.Name) else (t.elts if isinstance(t, ast.Tuple) else [])
                    vals = [node.value] if isinstance(t, ast.Name) else (
                        node.value.elts if isinstance(node.value, ast.Tuple) else [])
                    for nm, v in zip(names, vals):
                        if isinstance(nm, ast.Name) and isinstance(v, ast.Constant) \
                                and type(v.value) is int:
                            self.sizes[nm.id] = v.value
            if isinstance(node, ast.FunctionDef) and node.name == "get_inputs":
                text = ast.dump(node)
                if "'float16'" in text or "'half'" in text:
                    self.dtype = "fp16"
                elif "'bfloat16'" in text:
                    self.dtype = "bf16"
                else:
                    self.dtype = "fp32"


def find_problem(candidate):
    """candidates/PROB__x.py -> problems/PROB.py next to it, when it exists."""
    base = os.path.basename(candidate)
    if "__" not in base:
        return None
    prob = base.split("__", 1)[0] + ".py"
    path = os.path.join(os.path.dirname(os.path.abspath(candidate)), "..", "problems", prob)
    return os.path.normpath(path) if os.path.isfile(path) else None


class Checker:
    def __init__(self, source, filename, problem=None):
        self.source = source
        self.filename = filename
        self.problem = problem
        self.tree = ast.parse(source, filename=filename)
        self.findings = {}
        self.aliases = {}          # local name -> dotted path ("torch.matmul")
        self.module_names = set()  # names bound at module level
        self.ext_names = set()     # names bound to a load_inline result
        self.ext_attrs = set()     # self.<attr> bound to an extension
        self.self_tensors = set()  # self.<attr> holding tensors
        self.self_layers = set()   # self.<attr> holding nn layers
        self.self_scalars = set()
        self.ext_calls = 0
        self.nodes = list(ast.walk(self.tree))   # every node, walked once
        for node in self.nodes:
            for child in ast.iter_child_nodes(node):
                child.parent = node

    # ---- findings ----
    def in_input_maker(self, node):
        """Inside a module-level get_inputs/get_init_inputs (a copy of the problem's,
        which candidates often carry): the judge never calls it."""
        top = self.top_function(node) if not isinstance(node, ast.FunctionDef) else node
        return top is not None and top.name in INPUT_MAKERS and top in self.tree.body

    def add(self, rule, node_or_line, reason, severity=None):
        if not isinstance(node_or_line, int) and rule in INPUT_MAKER_RULES and self.in_input_maker(node_or_line):
            return
        line = node_or_line if isinstance(node_or_line, int) else getattr(node_or_line, "lineno", 0)
        sev = severity or RULES[rule][0]
        key = (rule, line)
        if key in self.findings and self.findings[key]["severity"] <= sev:
            return
        self.findings[key] = {"rule": rule, "severity": sev, "line": line, "reason": reason,
                              "fix": RULES[rule][1]}

    # ---- names ----
    def resolve(self, node):
        """The dotted path a Name/Attribute/getattr(...) refers to, if it starts at an import."""
        if isinstance(node, ast.Name):
            return self.aliases.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self.resolve(node.value)
            return base + "." + node.attr if base else None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr" \
                and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) \
                and isinstance(node.args[1].value, str):
            base = self.resolve(node.args[0])
            return base + "." + node.args[1].value if base else None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "__import__" \
                and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            name = node.args[0].value
            fromlist = [k for k in node.keywords if k.arg == "fromlist"] or node.args[3:4]
            return name if fromlist else name.split(".")[0]
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) \
                and isinstance(node.slice.value, str):
            v = node.value
            if isinstance(v, ast.Attribute) and v.attr == "__dict__":
                base = self.resolve(v.value)
                return base + "." + node.slice.value if base else None
        return None

    def collect_aliases(self):
        for node in self.nodes:
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname:
                        self.aliases[a.asname] = a.name
                    else:
                        root = a.name.split(".")[0]
                        self.aliases[root] = root
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for a in node.names:
                    if a.name != "*":
                        self.aliases[a.asname or a.name] = node.module + "." + a.name
        for _ in range(4):  # x = torch; mm = x.matmul; f = getattr(x, "mm") ...
            for node in self.nodes:
                if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                    path = self.resolve(node.value)
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    for t in targets:
                        if path and isinstance(t, ast.Name):
                            self.aliases[t.id] = path
                elif isinstance(node, ast.NamedExpr):
                    path = self.resolve(node.value)
                    if path:
                        self.aliases[node.target.id] = path
        for node in self.tree.body:
            for t in self.bound_names(node):
                self.module_names.add(t)

    @staticmethod
    def bound_names(node):
        out = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.append(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        out.append(n.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for a in node.names:
                out.append((a.asname or a.name).split(".")[0])
        return out

    # ---- scopes ----
    def in_init(self, node):
        p = node
        while p is not None:
            if isinstance(p, ast.FunctionDef) and p.name == "__init__":
                q = getattr(p, "parent", None)
                return isinstance(q, ast.ClassDef) and q.name == "ModelNew"
            p = getattr(p, "parent", None)
        return False

    def top_function(self, node):
        """The outermost function around node (a nested def belongs to its parent's body)."""
        top = None
        p = getattr(node, "parent", None)
        while p is not None:
            if isinstance(p, (ast.FunctionDef, ast.AsyncFunctionDef)):
                top = p
            p = getattr(p, "parent", None)
        return top

    # ---- tensor taint ----
    def tensor_names(self, fn):
        """Names in fn that hold tensors: its parameters (unless annotated or defaulted
        as scalars) and what is computed from them."""
        names = set()
        scalar_ann = {"int", "float", "bool", "str"}
        for sub in ast.walk(fn):
            if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                args = sub.args
                params = args.posonlyargs + args.args + args.kwonlyargs
                defaults = [None] * (len(args.posonlyargs + args.args) - len(args.defaults)) + list(args.defaults) \
                    + list(args.kw_defaults)
                for a, d in zip(params, defaults):
                    if a.arg in ("self", "cls"):
                        continue
                    ann = a.annotation.id if isinstance(getattr(a, "annotation", None), ast.Name) else None
                    if ann in scalar_ann or (isinstance(d, ast.Constant) and d.value is not None):
                        continue
                    names.add(a.arg)
                for a in (args.vararg, args.kwarg):
                    if a is not None:
                        names.add(a.arg)
        subs = list(ast.walk(fn))
        for _ in range(4):
            for sub in subs:
                pairs = []
                if isinstance(sub, ast.Assign):
                    pairs = [(t, sub.value) for t in sub.targets]
                elif isinstance(sub, (ast.AnnAssign, ast.AugAssign)) and sub.value is not None:
                    pairs = [(sub.target, sub.value)]
                elif isinstance(sub, (ast.For, ast.comprehension)):
                    pairs = [(sub.target, sub.iter)]
                elif isinstance(sub, ast.withitem) and sub.optional_vars is not None:
                    pairs = [(sub.optional_vars, sub.context_expr)]
                elif isinstance(sub, ast.NamedExpr):
                    pairs = [(sub.target, sub.value)]
                for t, v in pairs:
                    if self.is_tensor(v, names):
                        for n in ast.walk(t):
                            if isinstance(n, ast.Name):
                                names.add(n.id)
        return names

    def is_ext_call(self, call):
        f = call.func
        while isinstance(f, ast.Attribute):
            if isinstance(f.value, ast.Name) and f.value.id == "self" and f.attr in self.ext_attrs:
                return True
            f = f.value
        return isinstance(f, ast.Name) and f.id in self.ext_names

    def is_tensor(self, e, names):
        if isinstance(e, ast.Name):
            return e.id in names
        if isinstance(e, ast.Starred):
            return self.is_tensor(e.value, names)
        if isinstance(e, ast.Attribute):
            if e.attr in TENSOR_SCALAR_ATTRS:
                return False
            if isinstance(e.value, ast.Name) and e.value.id == "self":
                return e.attr in self.self_tensors or e.attr in self.self_layers
            return self.is_tensor(e.value, names)
        if isinstance(e, ast.Subscript):
            return self.is_tensor(e.value, names)
        if isinstance(e, (ast.Tuple, ast.List)):
            return any(self.is_tensor(x, names) for x in e.elts)
        if isinstance(e, ast.BinOp):
            return self.is_tensor(e.left, names) or self.is_tensor(e.right, names)
        if isinstance(e, ast.UnaryOp):
            return self.is_tensor(e.operand, names)
        if isinstance(e, ast.IfExp):
            return self.is_tensor(e.body, names) or self.is_tensor(e.orelse, names)
        if isinstance(e, ast.Call):
            path = self.resolve(e.func)
            if path:
                return path.startswith("torch.") and path not in ("torch.Size", "torch.device", "torch.is_tensor")
            if self.is_ext_call(e):
                return True
            # what a call of our own returns is a tensor when a tensor goes in:
            # helper(x), self.helper(x), (lambda t: t)(x)
            args_tensor = any(self.is_tensor(a, names) for a in e.args) \
                or any(self.is_tensor(k.value, names) for k in e.keywords)
            if isinstance(e.func, ast.Attribute):
                if e.func.attr in TENSOR_SCALAR_METHODS or e.func.attr in ("item", "tolist", "data_ptr"):
                    return False
                return self.is_tensor(e.func.value, names) or args_tensor
            if isinstance(e.func, ast.Name) and e.func.id in ("int", "float", "len", "bool", "str", "range",
                                                              "isinstance", "type", "print", "repr", "hash"):
                return False
            return args_tensor
        if isinstance(e, ast.Dict):
            return any(v is not None and self.is_tensor(v, names) for v in e.values)
        if isinstance(e, (ast.Set, ast.ListComp, ast.GeneratorExp, ast.SetComp)):
            return any(self.is_tensor(x, names) for x in ast.iter_child_nodes(e) if isinstance(x, ast.expr))
        if isinstance(e, ast.DictComp):
            return self.is_tensor(e.value, names)
        if isinstance(e, ast.NamedExpr):
            return self.is_tensor(e.value, names)
        return False

    # ---- the passes ----
    def run(self):
        self.collect_aliases()
        self.check_imports()
        self.check_model_new()
        self.check_references()
        self.check_assignments()
        self.check_forward_bodies()
        self.check_cpp_sources()
        self.check_hardcoded_python()
        return sorted(self.findings.values(), key=lambda f: (f["line"], f["rule"]))

    def check_imports(self):
        for node in self.nodes:
            mods = []
            if isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    self.add("KB-DYNAMIC-IMPORT", node, "relative import: the pass cannot follow it")
                    continue
                mods = [node.module or ""]
                if any(a.name == "*" for a in node.names):
                    self.add("KB-DYNAMIC-IMPORT", node, f"from {node.module} import *: names the pass cannot follow")
            for m in mods:
                root = m.split(".")[0]
                if root in THREAD_MODULES:
                    self.add("KB-THREADS", node, f"imports {m}: work on another thread or process")
                elif root in ESCAPE_MODULES:
                    self.add("KB-ESCAPE", node, f"imports {m}: introspection, files or processes")
                elif root in OTHER_COMPUTE:
                    self.add("KB-OTHER-COMPUTE", node, f"imports {m}: compute outside the candidate's CUDA kernel")
                elif root in CLOCK_MODULES:
                    self.add("KB-CLOCK", node, f"imports {m}: a candidate has no use for clocks")
                elif root not in QUIET_MODULES:
                    self.add("KB-IMPORT", node, f"imports {m}")

    def check_model_new(self):
        classes = [n for n in self.tree.body if isinstance(n, ast.ClassDef) and n.name == "ModelNew"]
        if not classes:
            self.add("KB-NO-MODELNEW", 1, "no module-level class ModelNew")
            return
        cls = classes[-1]
        for node in self.nodes:
            if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    if any(isinstance(n, ast.Name) and n.id == "ModelNew" for n in ast.walk(t)):
                        self.add("KB-INHERITS-MODEL", node, "rebinds the name ModelNew")
        for b in cls.bases:
            if self.resolve(b) != "torch.nn.Module":
                self.add("KB-INHERITS-MODEL", cls, f"ModelNew derives from {ast.unparse(b)}, not nn.Module")
        for k in cls.keywords:
            self.add("KB-INHERITS-MODEL", cls, f"ModelNew's class statement passes {k.arg}=")
        methods = {f.name: f for f in cls.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
        if "forward" not in methods:
            self.add("KB-NO-MODELNEW", cls, "ModelNew has no forward method")
        for stmt in cls.body:
            if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and not isinstance(getattr(stmt, "value", None),
                                                                                  ast.Constant):
                self.add("KB-FORWARD-STATE", stmt, "class-level attribute: shared between instances and calls")
        for node in self.nodes:
            if isinstance(node, ast.Name) and node.id == "Model" and isinstance(node.ctx, ast.Load):
                self.add("KB-INHERITS-MODEL", node, "refers to the reference Model")
            if isinstance(node, ast.ClassDef) and node.name == "Model":
                self.add("KB-INHERITS-MODEL", node, "defines a class named Model: a copy of the reference?", "P1")
            if isinstance(node, ast.ClassDef):
                for b in node.bases:
                    p = self.resolve(b)
                    if p and (p == "torch.Tensor" or p.endswith(".Tensor")):
                        self.add("KB-LAZY-TENSOR", node, f"class {node.name} subclasses torch.Tensor")
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in (
                    "__torch_function__", "__torch_dispatch__"):
                self.add("KB-LAZY-TENSOR", node, f"defines {node.name}: tensors that compute later")
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in (
                    "__getattr__", "__getattribute__", "__del__", "__array__"):
                self.add("KB-LAZY-TENSOR", node, f"defines {node.name}: an object that acts when touched", "P1")
            if isinstance(node, (ast.Try,) + ((ast.TryStar,) if hasattr(ast, "TryStar") else ())):
                if node.handlers:
                    self.add("KB-TRY-FALLBACK", node, "try/except: a failure can fall back to other code")
        # what __init__ binds on self: extensions, tensors, layers, scalars
        for node in self.nodes:
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                v = node.value
                vpath = self.resolve(v.func) if isinstance(v, ast.Call) else None
                is_ext = (vpath in ("torch.utils.cpp_extension.load_inline", "torch.utils.cpp_extension.load")) \
                    or (isinstance(v, ast.Name) and v.id in self.ext_names)
                for t in targets:
                    if isinstance(t, ast.Name) and is_ext:
                        self.ext_names.add(t.id)
                    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                        if is_ext:
                            self.ext_attrs.add(t.attr)
                        elif vpath and vpath.startswith("torch.nn.") and vpath.split(".")[2] not in NN_CONTAINERS:
                            self.self_layers.add(t.attr)
                        elif vpath and vpath.startswith("torch."):
                            self.self_tensors.add(t.attr)
                        elif isinstance(v, (ast.Constant, ast.Name, ast.BinOp, ast.UnaryOp)):
                            self.self_scalars.add(t.attr)
                        else:
                            self.self_tensors.add(t.attr)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr in ("register_buffer", "register_parameter") and node.args \
                    and isinstance(node.args[0], ast.Constant):
                self.self_tensors.add(str(node.args[0].value))
        # a second round: ext = mod; self.ext = ext
        for node in self.nodes:
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id in self.ext_names:
                for t in node.targets:
                    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                        self.ext_attrs.add(t.attr)
                        self.self_tensors.discard(t.attr)
                        self.self_scalars.discard(t.attr)
        self.self_tensors -= self.ext_attrs
        builds = [n for n in self.nodes if isinstance(n, ast.Call) and self.resolve(n.func) in (
            "torch.utils.cpp_extension.load_inline", "torch.utils.cpp_extension.load")]
        if not builds:
            self.add("KB-NO-EXTENSION", 1, "nothing is compiled with load_inline or load")
        else:
            runtime_calls = [n for n in self.nodes
                             if isinstance(n, ast.Call) and self.is_ext_call(n) and not self.in_init(n)]
            if not runtime_calls:
                self.add("KB-NO-EXTENSION", builds[0], "the compiled extension is never called")

    def classify_torch(self, path, node):
        """Rule for a reference to a torch path outside the allowed set, or None."""
        if path in TORCH_ALLOWED:
            return None
        parts = path.split(".")
        if len(parts) == 2 and parts[1] in TORCH_DTYPES:
            if path in LOW_PRECISION:
                return ("KB-PRECISION", f"{path}: a low-precision dtype")
            return None
        if path.startswith(("torch.cuda.Stream", "torch.cuda.stream", "torch.cuda.set_stream",
                            "torch.cuda.ExternalStream", "torch.cuda.graph", "torch.cuda.CUDAGraph",
                            "torch.cuda.graphs", "torch.cuda.make_graphed_callables", "torch.cuda.StreamContext",
                            "torch.cuda.streams", "torch.Stream", "torch.cuda.current_stream",
                            "torch.cuda.default_stream", "torch.cuda.set_sync_debug_mode")):
            return ("KB-STREAMS", f"{path}: work or capture outside PyTorch's current stream")
        if path.startswith(("torch.cuda.Event", "torch.cuda.synchronize", "torch.Event",
                            "torch.cuda.Event.elapsed_time", "torch.utils.benchmark")):
            return ("KB-CLOCK", f"{path}: timing or host synchronisation")
        if path in TORCH_RNG or path.startswith(("torch.random", "torch.cuda.manual_seed", "torch.cuda.seed",
                                                 "torch.cuda.get_rng_state", "torch.cuda.set_rng_state",
                                                 "torch.cuda.random")):
            if self.in_init(node) and path in TORCH_INIT_OK:
                return None
            return ("KB-RNG", f"{path}: seeds or draws from PyTorch's generators")
        if path.startswith(("torch.backends", "torch.set_", "torch.use_deterministic_algorithms",
                            "torch.cuda.set_", "torch.cuda.memory", "torch.cuda.empty_cache",
                            "torch.cuda.caching_allocator", "torch.cuda.set_per_process_memory_fraction",
                            "torch.autograd.set_", "torch.overrides", "torch.library")):
            return ("KB-GLOBAL-STATE", f"{path}: PyTorch's global state, which the reference shares")
        if path.startswith(("torch.Tensor._make_subclass", "torch.Tensor.__new__", "torch.Tensor.as_subclass",
                            "torch.Tensor._make_wrapper_subclass", "torch._C._TensorBase")):
            return ("KB-LAZY-TENSOR", f"{path}: builds tensor objects of its own kind")
        if path.startswith("torch.Tensor."):
            return ("KB-TORCH-COMPUTE", f"{path}: a PyTorch tensor method used as a function")
        if path.startswith("torch.nn.init") and self.in_init(node):
            return None
        if path.startswith("torch.nn.") and parts[2] not in NN_CONTAINERS:
            if self.in_init(node):
                return ("KB-NN-LAYER", f"{path}: a PyTorch layer in __init__")
            return ("KB-TORCH-COMPUTE", f"{path}: a PyTorch layer or functional op")
        if path.startswith("torch.utils.cpp_extension."):
            return None
        if self.in_init(node):
            if path in TORCH_INIT_OK:
                return None
            return ("KB-INIT-COMPUTE", f"{path} in __init__")
        if path.startswith(("torch.compile", "torch.jit", "torch._dynamo", "torch._inductor", "torch.fx")):
            return ("KB-TORCH-COMPUTE", f"{path}: PyTorch's compiler generates the kernel, not you")
        if path.startswith(("torch.ops", "torch._")):
            return ("KB-TORCH-COMPUTE", f"{path}: PyTorch's operators reached through its internals")
        return ("KB-TORCH-COMPUTE", f"{path}: a PyTorch compute op")

    def check_references(self):
        for node in self.nodes:
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in INPUT_MAKERS \
                    and not self.in_input_maker(node):
                self.add("KB-RNG", node, f"uses {node.id}: draws the judge's kind of inputs itself")
            # builtins by name (not shadowed by an import)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in self.aliases:
                if node.id in BUILTIN_EXEC:
                    self.add("KB-EXEC", node, f"{node.id}: code the pass cannot see")
                elif node.id == "__import__":
                    self.add("KB-DYNAMIC-IMPORT", node, "__import__: a module chosen at run time")
                elif node.id in BUILTIN_ESCAPE:
                    rule = "KB-DATA-PTR" if node.id == "id" else "KB-ESCAPE"
                    self.add(rule, node, f"{node.id}(): reads objects, files or addresses behind the pass's back")
                elif node.id in ("__builtins__", "__loader__", "__spec__"):
                    self.add("KB-ESCAPE", node, f"{node.id}: the interpreter's own tables")
                elif node.id in ("setattr", "delattr"):
                    call = node.parent if isinstance(node.parent, ast.Call) else None
                    target = call.args[0] if call is not None and call.args else None
                    if not (isinstance(target, ast.Name) and target.id == "self" and self.in_init(node)):
                        where = ast.unparse(target) if target is not None else "?"
                        self.add("KB-MONKEYPATCH" if not (isinstance(target, ast.Name) and target.id == "self")
                                 else "KB-FORWARD-STATE", node, f"{node.id} on {where}")
                elif node.id == "getattr":
                    call = node.parent if isinstance(node.parent, ast.Call) else None
                    if call is None or len(call.args) < 2 or not (
                            isinstance(call.args[1], ast.Constant) and isinstance(call.args[1].value, str)):
                        self.add("KB-DYNAMIC-ATTR", node, "getattr with a name computed at run time")
            if isinstance(node, ast.Attribute):
                if node.attr.startswith("__") and node.attr.endswith("__") and node.attr not in DUNDER_OK:
                    self.add("KB-ESCAPE", node, f".{node.attr}: the object model's internals")
                if node.attr in HOOKS:
                    self.add("KB-ESCAPE", node, f".{node.attr}: a hook can replace what forward returns")
                if node.attr in ("f_back", "f_locals", "f_globals", "gi_frame", "tb_frame", "cr_frame"):
                    self.add("KB-ESCAPE", node, f".{node.attr}: another frame's variables")
                if node.attr in TENSOR_POINTER_ATTRS and self.resolve(node) is None:
                    self.add("KB-DATA-PTR", node, f".{node.attr}: a tensor's address or storage in Python")
            if not isinstance(node, (ast.Name, ast.Attribute, ast.Call, ast.Subscript)):
                continue
            parent = getattr(node, "parent", None)
            if isinstance(parent, ast.Attribute) and parent.value is node:
                continue  # only the longest chain
            if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id == "getattr"):
                continue
            if isinstance(node, ast.Subscript) and not (isinstance(node.value, ast.Attribute)
                                                        and node.value.attr == "__dict__"):
                continue
            if isinstance(getattr(node, "ctx", None), (ast.Store, ast.Del)):
                continue
            if isinstance(parent, (ast.Import, ast.ImportFrom, ast.alias)):
                continue
            path = self.resolve(node)
            if not path:
                continue
            root = path.split(".")[0]
            if root == "torch":
                hit = self.classify_torch(path, node)
                if hit:
                    self.add(hit[0], node, hit[1])
            elif root in CLOCK_MODULES:
                self.add("KB-CLOCK", node, f"{path}: reads a clock")
            elif root == "sys" and any(path == s or path.startswith(s + ".") for s in SYS_ESCAPES):
                self.add("KB-ESCAPE", node, f"{path}: the interpreter's frames or module table")
            elif root == "os" and path not in OS_QUIET and not path.startswith("os.environ"):
                self.add("KB-ESCAPE", node, f"{path}: the operating system from a candidate")
            elif root == "contextlib" and path.endswith("suppress"):
                self.add("KB-TRY-FALLBACK", node, "contextlib.suppress swallows failures")
            elif root == "operator":
                self.add("KB-TENSOR-OPERATOR", node, f"{path}: operators reached as functions")
            elif root == "functools" and path.split(".")[-1] in ("cache", "lru_cache", "cached_property"):
                self.add("KB-FORWARD-STATE", node, f"{path}: a cache of earlier calls' results")

    def check_assignments(self):
        for node in self.nodes:
            targets = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                targets = [node.target]
            elif isinstance(node, ast.Delete):
                targets = node.targets
            for t in targets:
                for sub in self.flat_targets(t):
                    self.check_store(sub, node)
            if isinstance(node, (ast.Global, ast.Nonlocal)):
                self.add("KB-FORWARD-STATE", node, f"{type(node).__name__.lower()} {', '.join(node.names)}: "
                         "state that outlives a call")

    @classmethod
    def flat_targets(cls, t):
        if isinstance(t, (ast.Tuple, ast.List)):
            return [x for e in t.elts for x in cls.flat_targets(e)]
        if isinstance(t, ast.Starred):
            return cls.flat_targets(t.value)
        return [t]

    def check_store(self, t, stmt):
        if isinstance(t, ast.Attribute):
            path = self.resolve(t.value)
            if path:
                full = path + "." + t.attr
                if any(w in full.split(".") for w in TIMER_WORDS) or path.split(".")[0] in CLOCK_MODULES:
                    self.add("KB-TIMER-PATCH", stmt, f"assigns {full}: a patched timer")
                elif full.startswith("torch.backends") or full.startswith("os.environ"):
                    if full.startswith("os.environ"):
                        return
                    self.add("KB-GLOBAL-STATE", stmt, f"assigns {full}: PyTorch's global settings")
                else:
                    self.add("KB-MONKEYPATCH", stmt, f"assigns {full}: patches a module")
                return
            base = t.value
            while isinstance(base, (ast.Attribute, ast.Subscript)):
                base = base.value
            if isinstance(base, ast.Name) and base.id == "self":
                if not self.in_init(stmt):
                    self.add("KB-FORWARD-STATE", stmt, f"stores {ast.unparse(t)} outside __init__: "
                             "state kept between calls")
            elif isinstance(base, ast.Name) and base.id in self.module_names and self.top_function(stmt):
                self.add("KB-FORWARD-STATE", stmt, f"stores {ast.unparse(t)}: module-level state changed by a call")
        elif isinstance(t, ast.Subscript):
            v = t.value
            if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id in ("vars", "globals"):
                self.add("KB-MONKEYPATCH", stmt, "assigns through vars()/globals()")
                return
            if isinstance(v, ast.Attribute) and v.attr == "__dict__":
                self.add("KB-MONKEYPATCH", stmt, "assigns through __dict__")
                return
            path = self.resolve(v)
            if path and path.startswith("sys.modules"):
                self.add("KB-MONKEYPATCH", stmt, "replaces an entry of sys.modules")
                return
            if path and path.startswith("os.environ"):
                return
            base = v
            while isinstance(base, (ast.Attribute, ast.Subscript)):
                base = base.value
            if isinstance(base, ast.Name) and base.id == "self" and not self.in_init(stmt):
                self.add("KB-FORWARD-STATE", stmt, f"stores into {ast.unparse(v)} outside __init__")
            elif isinstance(base, ast.Name) and base.id in self.module_names and self.top_function(stmt) \
                    and base.id not in self.local_names(self.top_function(stmt)):
                self.add("KB-FORWARD-STATE", stmt, f"stores into module-level {base.id}: state kept between calls")

    def local_names(self, fn):
        cache = self.__dict__.setdefault("_locals", {})
        if id(fn) not in cache:
            out = {a.arg for a in fn.args.args + fn.args.kwonlyargs + fn.args.posonlyargs}
            for n in ast.walk(fn):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                    out.add(n.id)
            cache[id(fn)] = out
        return cache[id(fn)]

    def runtime_functions(self):
        """Every function outside ModelNew.__init__ (module-level helpers, methods, lambdas at
        module level), outermost only."""
        out = []
        for node in self.nodes:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) \
                    and self.top_function(node) is None and not self.in_init(node):
                if isinstance(node, ast.Lambda) and self.top_function(node) is not None:
                    continue
                out.append(node)
        return out

    def check_forward_bodies(self):
        cls = [n for n in self.tree.body if isinstance(n, ast.ClassDef) and n.name == "ModelNew"]
        forward = None
        if cls:
            forward = next((f for f in cls[-1].body if isinstance(f, ast.FunctionDef) and f.name == "forward"), None)
        for fn in self.runtime_functions():
            names = self.tensor_names(fn)
            params = set()
            if not isinstance(fn, ast.Lambda):
                params = {a.arg for a in fn.args.args + fn.args.posonlyargs + fn.args.kwonlyargs} - {"self"}
            mutable_params = params & names
            for node in ast.walk(fn):
                self.check_expr(node, names, mutable_params)
            if fn is forward:
                self.check_outputs(fn, names, params)
        # module-level statements run in the judged process too
        top = [st for st in self.tree.body
               if not isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
        names = set()
        for _ in range(4):
            for st in top:
                for sub in ast.walk(st):
                    if isinstance(sub, ast.Assign) and self.is_tensor(sub.value, names):
                        for t in sub.targets:
                            names.update(n.id for n in ast.walk(t) if isinstance(n, ast.Name))
        for st in top:
            for node in ast.walk(st):
                if self.top_function(node) is None:
                    self.check_expr(node, names, set())

    def check_expr(self, node, names, params):
        if isinstance(node, ast.BinOp) and (self.is_tensor(node.left, names) or self.is_tensor(node.right, names)):
            self.add("KB-TENSOR-OPERATOR", node, f"`{ast.unparse(node)[:60]}` computes on tensors in PyTorch")
        elif isinstance(node, ast.UnaryOp) and not isinstance(node.op, ast.Not) \
                and self.is_tensor(node.operand, names):
            self.add("KB-TENSOR-OPERATOR", node, f"`{ast.unparse(node)[:60]}` computes on a tensor in PyTorch")
        elif isinstance(node, ast.Compare) and any(self.is_tensor(x, names)
                                                   for x in [node.left] + node.comparators) \
                and not all(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in node.ops):
            self.add("KB-TENSOR-OPERATOR", node, f"`{ast.unparse(node)[:60]}` compares tensors in PyTorch")
        elif isinstance(node, ast.AugAssign) and self.is_tensor(node.target, names):
            self.add("KB-TENSOR-OPERATOR", node, f"`{ast.unparse(node)[:60]}` updates a tensor in PyTorch")
            if isinstance(node.target, ast.Name) and node.target.id in params:
                self.add("KB-INPUT-MUTATION", node, f"updates the input {node.target.id} in place")
        elif isinstance(node, (ast.Assign,)):
            for t in node.targets:
                base = t
                while isinstance(base, (ast.Subscript, ast.Attribute)):
                    base = base.value
                if t is not base and isinstance(base, ast.Name) and base.id in params:
                    self.add("KB-INPUT-MUTATION", node, f"writes into the input {base.id}")
                elif isinstance(t, ast.Subscript) and self.is_tensor(t.value, names):
                    self.add("KB-TENSOR-OPERATOR", node, f"`{ast.unparse(t)[:60]} = ...` fills or copies "
                             "into a tensor in PyTorch")
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) \
                and self.is_tensor(node.value, names) and self.is_tensor(node.slice, names):
            self.add("KB-TENSOR-OPERATOR", node, f"`{ast.unparse(node)[:60]}` indexes a tensor with a tensor "
                     "(a PyTorch gather)")
        elif isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Name) and f.id in BUILTIN_REDUCE and any(self.is_tensor(a, names) for a in node.args):
                self.add("KB-TENSOR-OPERATOR", node, f"{f.id}() over a tensor computes in PyTorch")
            if isinstance(f, ast.Attribute) and self.resolve(f) is None and not self.is_ext_call(node):
                recv = f.value
                if isinstance(recv, ast.Name) and recv.id == "self" and f.attr in self.self_layers:
                    self.add("KB-TORCH-COMPUTE", node, f"calls the PyTorch layer self.{f.attr}")
                elif isinstance(recv, ast.Attribute) and isinstance(recv.value, ast.Name) \
                        and recv.value.id == "self" and recv.attr in self.self_layers:
                    self.add("KB-TORCH-COMPUTE", node, f"calls self.{recv.attr}.{f.attr}")
                elif self.is_tensor(recv, names):
                    m = f.attr
                    base = recv
                    while isinstance(base, (ast.Attribute, ast.Subscript, ast.Call)):
                        base = base.func if isinstance(base, ast.Call) else base.value
                    if m.endswith("_") and not m.endswith("__") and isinstance(base, ast.Name) and base.id in params:
                        self.add("KB-INPUT-MUTATION", node, f".{m}() changes the input {base.id} in place")
                    if m in ("half", "bfloat16") or (m in ("to", "type") and any(
                            self.resolve(a) in LOW_PRECISION for a in node.args + [k.value for k in node.keywords])):
                        self.add("KB-PRECISION", node, f".{m}(...) converts to a low-precision dtype")
                    elif m in TENSOR_POINTER_ATTRS:
                        pass  # reported as KB-DATA-PTR
                    elif m not in TENSOR_SCALAR_METHODS and m not in TENSOR_VIEW_METHODS \
                            and m not in ("item", "tolist", "requires_grad_"):
                        self.add("KB-TORCH-COMPUTE", node, f".{m}(): a PyTorch method on a tensor or PyTorch object")
            elif isinstance(f, ast.Name) and f.id == "self":
                self.add("KB-FORWARD-STATE", node, "calls the module itself from its own code")

    def check_outputs(self, fn, names, params):
        made_empty = {}
        passed = set()
        for node in ast.walk(fn):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                p = self.resolve(node.value.func)
                is_alloc = p in ("torch.empty", "torch.empty_like", "torch.empty_strided") or (
                    isinstance(node.value.func, ast.Attribute) and node.value.func.attr == "new_empty")
                for t in node.targets:
                    if isinstance(t, ast.Name) and is_alloc:
                        made_empty[t.id] = node
            if isinstance(node, ast.Call) and (self.is_ext_call(node) or (
                    isinstance(node.func, ast.Name) and node.func.id not in self.aliases)
                    or (isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name)
                        and node.func.value.id == "self")):
                for a in list(node.args) + [k.value for k in node.keywords]:
                    for n in ast.walk(a):
                        if isinstance(n, ast.Name):
                            passed.add(n.id)
        for node in ast.walk(fn):
            if not isinstance(node, ast.Return) or node.value is None:
                continue
            vals = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
            for v in vals:
                base = v
                while isinstance(base, ast.Call) and isinstance(base.func, ast.Attribute) \
                        and base.func.attr in TENSOR_VIEW_METHODS:
                    base = base.func.value
                while isinstance(base, ast.Subscript):
                    base = base.value
                if isinstance(base, ast.Name) and base.id in params:
                    self.add("KB-RETURNS-INPUT", node, f"returns the input {base.id} (or a view of it)")
                if isinstance(base, ast.Name) and base.id in made_empty and base.id not in passed:
                    self.add("KB-UNWRITTEN-OUTPUT", node, f"returns {base.id}, an uninitialised tensor "
                             "no kernel was given: it holds whatever the allocator's memory held")
                if isinstance(base, ast.Call) and self.resolve(base.func) in (
                        "torch.empty", "torch.empty_like", "torch.empty_strided", "torch.zeros", "torch.zeros_like"):
                    self.add("KB-UNWRITTEN-OUTPUT", node, "returns a freshly allocated tensor no kernel wrote")

    # ---- C++/CUDA sources ----
    def string_value(self, e, depth=0):
        """(text, first line) of an expression made of string literals: literals,
        names bound once to such, +, implicit concatenation, lists (joined by
        newlines as load_inline does), f-strings without fields, "".join([...]);
        None when it is computed at run time."""
        if depth > 50:
            return None
        if isinstance(e, ast.Constant) and isinstance(e.value, str):
            return e.value, e.lineno
        if isinstance(e, ast.Name):
            binds = self.bindings.get(e.id, [])
            return self.string_value(binds[0], depth + 1) if len(binds) == 1 else None
        if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Add):
            a, b = self.string_value(e.left, depth + 1), self.string_value(e.right, depth + 1)
            return (a[0] + b[0], a[1]) if a and b else None
        if isinstance(e, (ast.List, ast.Tuple)):
            parts = [self.string_value(x, depth + 1) for x in e.elts]
            if not parts or not all(parts):
                return None if parts else ("", e.lineno)
            return "\n".join(p[0] for p in parts), parts[0][1]
        if isinstance(e, ast.JoinedStr) and all(isinstance(v, ast.Constant) for v in e.values):
            return "".join(str(v.value) for v in e.values), e.lineno
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr == "join" \
                and isinstance(e.func.value, ast.Constant) and isinstance(e.func.value.value, str) \
                and len(e.args) == 1 and not e.keywords:
            parts = self.string_value(e.args[0], depth + 1)
            if parts and isinstance(e.args[0], (ast.List, ast.Tuple)):
                items = [self.string_value(x, depth + 1)[0] for x in e.args[0].elts]
                return e.func.value.value.join(items), parts[1]
        return None

    def cpp_sources(self):
        """(python line, text) for every C++/CUDA source: what each load_inline call
        compiles, resolved whole, and every other string literal that looks like
        C++/CUDA."""
        out = []
        self.bindings = {}
        for node in self.nodes:
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            # a tuple target binds a part we do not follow: count it, unresolvable
                            self.bindings.setdefault(n.id, []).append(node.value if t is n else None)
            elif isinstance(node, (ast.AugAssign, ast.For, ast.NamedExpr)):
                for n in ast.walk(node.target):
                    if isinstance(n, ast.Name):
                        self.bindings.setdefault(n.id, []).extend([None, None])
        for node in self.nodes:
            if not isinstance(node, ast.Call):
                continue
            path = self.resolve(node.func)
            if path == "torch.utils.cpp_extension.load":
                self.add("KB-ESCAPE", node, "cpp_extension.load compiles files the pass cannot read: use load_inline")
            if path != "torch.utils.cpp_extension.load_inline":
                continue
            if any(k.arg is None for k in node.keywords) or any(isinstance(a, ast.Starred) for a in node.args):
                self.add("KB-DYNAMIC-SOURCE", node, "load_inline(**...) or (*...): arguments the pass cannot read")
            args = {k.arg: k.value for k in node.keywords if k.arg}
            for i, key in enumerate(("name", "cpp_sources", "cuda_sources", "functions")):
                if i < len(node.args) and key not in args:
                    args[key] = node.args[i]
            for key in ("cpp_sources", "cuda_sources"):
                if key not in args:
                    continue
                got = self.string_value(args[key])
                if got is None:
                    self.add("KB-DYNAMIC-SOURCE", args[key], f"{key} is computed at run time: the pass cannot read it")
                else:
                    out.append((got[1], got[0]))
            for key in ("extra_cflags", "extra_cuda_cflags", "extra_ldflags", "extra_include_paths",
                        "build_directory", "sources"):
                if key not in args:
                    continue
                v = args[key]
                if isinstance(v, ast.Constant) and v.value is None:
                    continue
                got = self.string_value(v)
                if got is None:
                    self.add("KB-BUILD-FLAGS", v, f"{key} is computed at run time")
                    continue
                for flag in got[0].split("\n"):
                    f = flag.strip()
                    if key in ("extra_include_paths", "build_directory", "sources") and f:
                        self.add("KB-BUILD-FLAGS", v, f"{key}={f!r}: files outside the candidate")
                    elif f.startswith(("-include", "--pre-include", "-imacros", "@", "--options-file",
                                       "-I", "-isystem", "-L", "-Wl", "-Xlinker", "-B", "--compiler-bindir",
                                       "-ccbin", "-x", "-D", "-U", "-Xcompiler")):
                        self.add("KB-BUILD-FLAGS", v, f"{key} flag {f!r}: code or files the pass cannot read")
        for node in self.nodes:
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and RE_CPP_LOOKS.search(node.value):
                if isinstance(getattr(node, "parent", None), ast.Expr):
                    continue  # a docstring or a bare string statement: never compiled
                out.append((node.lineno, node.value))
        return out

    def check_cpp_sources(self):
        sources = self.cpp_sources()
        has_kernel = has_launch = has_library = False
        dtype = self.problem.dtype if self.problem else None
        for line0, raw in sources:
            text = strip_c_comments(raw)

            def at(m):
                return line0 + text.count("\n", 0, m.start())
            if "__global__" in text:
                has_kernel = True
            if "<<<" in text or "cudaLaunchKernel" in text:
                has_launch = True
            for m in RE_CUDA_LIBRARY.finditer(text):
                has_library = True
                self.add("KB-CUDA-LIBRARY", at(m), f"{m.group(1)} in the CUDA source")
            for m in RE_CUDA_STREAM.finditer(text):
                self.add("KB-CUDA-STREAM", at(m), f"{m.group(1)} in the CUDA source")
            for m in RE_CUDA_THREAD.finditer(text):
                self.add("KB-CUDA-THREAD", at(m), f"{m.group(1)} in the C++ source")
            for m in RE_CUDA_STATIC.finditer(text):
                self.add("KB-CUDA-STATE", at(m), f"static variable {m.group(2)}: kept between calls")
            for m in RE_CUDA_MAP.finditer(text):
                self.add("KB-CUDA-STATE", at(m), f"std::{m.group(1)}: a cache in the C++ wrapper")
            for m in RE_CUDA_DEVICE_VAR.finditer(text):
                self.add("KB-CUDA-DEVICE-STATE", at(m), f"__device__ variable {m.group(2)}")
            for m in RE_CUDA_CONST_CAST.finditer(text):
                self.add("KB-CUDA-CONST-CAST", at(m), "const_cast: writes through a pointer marked const")
            for m in RE_CUDA_CLOCK.finditer(text):
                self.add("KB-CLOCK", at(m), f"{m.group(1)} in the CUDA source")
            for m in RE_CPP_PYTHON.finditer(text):
                self.add("KB-EXEC", at(m), f"{m.group(1)}: Python run from the C++ source")
            for m in RE_CPP_ESCAPE.finditer(text):
                self.add("KB-ESCAPE", at(m), f"{m.group(1)}(): files, libraries or processes from the C++ source")
            for m in RE_CPP_NS_CALL.finditer(text):
                name = m.group(2)
                if name not in CPP_ALLOWED_CALLS and not name.startswith(("k", "TORCH", "Tensor")):
                    self.add("KB-CPP-TORCH-COMPUTE", at(m), f"{m.group(0).rstrip('(').strip()}: an ATen op")
            for m in RE_CPP_METHOD.finditer(text):
                self.add("KB-CPP-TORCH-COMPUTE", at(m), f".{m.group(1)}(): an ATen op on a tensor")
            for m in RE_CUDA_LOW_PRECISION.finditer(text):
                if dtype == "fp32":
                    self.add("KB-PRECISION", at(m), f"{m.group(1)} in an fp32 problem's kernel")
                elif dtype is None:
                    self.add("KB-PRECISION", at(m), f"{m.group(1)}: low precision (the problem's dtype "
                             "is unknown: give --problem)", "P1")
            if self.problem:
                for name, val in self.problem.sizes.items():
                    if val >= 100 and not is_pow2(val):
                        for m in re.finditer(r"(?<![\w.])%d(?![\w.])" % val, text):
                            self.add("KB-HARDCODED-SIZE", at(m), f"{val} (the problem's {name}) in the CUDA source")
        if sources and not has_library and not (has_kernel and has_launch):
            self.add("KB-NO-KERNEL", sources[0][0], "the CUDA source " + (
                "defines no __global__ kernel" if not has_kernel else "never launches its kernel"))
        if not sources and not any(f["rule"] == "KB-NO-EXTENSION" for f in self.findings.values()):
            self.add("KB-NO-KERNEL", 1, "no C++/CUDA source string in the file")
        # precision in Python when the problem is not fp32 is the problem's own dtype
        if dtype in ("fp16", "bf16"):
            for k in [k for k, f in self.findings.items() if f["rule"] == "KB-PRECISION"]:
                del self.findings[k]

    def check_hardcoded_python(self):
        if not self.problem:
            return
        sizes = {v: k for k, v in self.problem.sizes.items() if v >= 100 and not is_pow2(v)}
        for node in self.nodes:
            if isinstance(node, ast.Constant) and type(node.value) is int and node.value in sizes:
                self.add("KB-HARDCODED-SIZE", node, f"{node.value} (the problem's {sizes[node.value]})")


def main(argv):
    args = [a for a in argv[1:]]
    as_json = False
    problem_path = None
    files = []
    for a in args:
        if a == "--json":
            as_json = True
        elif a.startswith("--problem="):
            problem_path = a.split("=", 1)[1]
            if not problem_path:
                print("ast_rules: --problem= needs a file", file=sys.stderr)
                return 2
        elif a in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        elif a.startswith("-"):
            print(f"ast_rules: unknown option {a} (usage: ast_rules.py FILE.py [--json] [--problem=P.py])",
                  file=sys.stderr)
            return 2
        else:
            files.append(a)
    if len(files) != 1:
        print("ast_rules: give exactly one candidate file (usage: ast_rules.py FILE.py [--json] "
              "[--problem=P.py])", file=sys.stderr)
        return 2
    path = files[0]
    try:
        with open(path, "rb") as f:
            raw = f.read(4 * 1024 * 1024 + 1)
    except OSError as e:
        print(f"ast_rules: {path}: cannot read: {e.strerror}", file=sys.stderr)
        return 2
    if len(raw) > 4 * 1024 * 1024:
        print(f"ast_rules: {path}: larger than 4 MiB: not a candidate", file=sys.stderr)
        return 2
    try:
        source = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        print(f"ast_rules: {path}: not UTF-8 (byte {e.start})", file=sys.stderr)
        return 2
    problem = None
    problem_path = problem_path or find_problem(path)
    if problem_path:
        try:
            problem = Problem(problem_path)
        except (OSError, SyntaxError, ValueError) as e:
            print(f"ast_rules: problem {problem_path}: cannot read: {e}", file=sys.stderr)
            return 2
    try:
        checker = Checker(source, path, problem)
    except (SyntaxError, ValueError) as e:
        line = getattr(e, "lineno", None)
        print(f"ast_rules: {path}:{line or '?'}: syntax error: {getattr(e, 'msg', e)}", file=sys.stderr)
        return 2
    except RecursionError:
        print(f"ast_rules: {path}: nested too deeply to parse", file=sys.stderr)
        return 2
    try:
        findings = checker.run()
    except RecursionError:
        print(f"ast_rules: {path}: nested too deeply to check", file=sys.stderr)
        return 2
    p0 = sum(f["severity"] == "P0" for f in findings)
    p1 = len(findings) - p0
    if as_json:
        print(json.dumps({"file": path, "problem": problem.path if problem else None,
                          "dtype": problem.dtype if problem else None, "p0": p0, "p1": p1,
                          "findings": findings}, indent=1))
    else:
        for f in findings:
            print(f"{path}:{f['line']}: {f['severity']} {f['rule']}: {f['reason']} (fix: {f['fix']})")
        print(f"{path}: {p0} P0, {p1} P1" + (" (rejected)" if p0 else ""))
    return 1 if p0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
