#!/usr/bin/env python3
"""profile.py: `make profile`, the lab notebook of each sample (see docs/profiling.md).

    make profile SAMPLE=matrixMul VARIANT=smem_tile32 NOTE="tile 16 -> 32" [ARGS="--m=2048"]

runs that variant once at its benchmark size (the sample's default arguments, or
ARGS, plus --variant=VARIANT --reps=1) under Nsight Compute with the clocks left
alone (ncu --clock-control none), profiles only the kernels launched inside the
variant's NVTX range (ncu --nvtx --nvtx-include "<sample>/<variant>/"; time_gpu
pushes one range per '/'-part of its nvtx_name), and appends one row to
<sample folder>/NOTEBOOK.md: date, commit, dirty flag, GPU, ncu version, variant,
arguments, the note and a fixed metric set (tools/profile_metrics.tsv).

One run of a variant is every launch its run function makes. time_gpu calls it
WARMUPS times and then --reps times inside the range, so ncu profiles RUNS =
WARMUPS + 1 identical runs: the launches must split into RUNS equal sequences
(else the run fails: the timing layer changed, or a variant launches differently
each time). Each launch's metrics are the median over the runs; the row gives
the summed duration of one run and every other metric of its dominant launch
(the one with the largest share of the run's time), named in the kernel column.
ncu replays every launch with cold caches (its default --cache-control all), so
hit rates are those of a cold start, the same for every row.

Subcommands (all exit 2 with the reason where a GPU or ncu is needed and missing):
  check [--sample S]           no GPU or no ncu: exit 2; an unknown sample: exit 1
  variants S                   the variants a profile accepts (bin/S --help, less cpu)
  validate [--query-file F | --chip C]   the metric names against ncu --query-metrics
                               for this GPU, for chip C (gh100: no GPU needed), or in F
  run --sample S --variant V   profile and append a row (PROFILE_NOTE, PROFILE_ARGS)
  summarize --sample S --variant V CSV   the row a saved raw CSV gives (no GPU)
  diff --sample S [--variant V] the last two rows side by side, changes marked
  nvtx-check S... [--args A]   on the GPU: each variant's filter selects exactly the
                               launches that ran in its range, nothing else
Environment: NCU (the ncu to use), GIT_COMMIT and GIT_DIRTY (yes/no, a tree copy
without .git), PROFILE_TIMEOUT (seconds per ncu run, default 600).
"""
import csv
import datetime
import functools
import glob
import hashlib
import io
import os
import re
import shutil
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
METRICS_FILE = os.path.join(ROOT, "tools", "profile_metrics.tsv")
WORK = os.path.join(ROOT, "build", "profile")

# time_gpu's warm-ups (common/timing.c, timing_defaults: `c.warmups = 3`; a test
# compares the two) and the --reps a profile passes.
WARMUPS = 3
REPS = 1
RUNS = WARMUPS + REPS
WARP_SIZE = 32

# Where ncu lives when it is not on PATH (the CUDA toolkit's copy first).
NCU_GLOBS = ["/usr/local/cuda/bin/ncu", "/usr/local/cuda/nsight-compute-*/ncu",
             "/usr/local/cuda-*/bin/ncu", "/opt/nvidia/nsight-compute/*/ncu"]

NVTX_COLUMN = "Push/Pop_Range"
NOTEBOOK_TITLE = "# %s: lab notebook"


class ProfileError(Exception):
    """A run that cannot give a trustworthy row: exit 1 with the reason."""


class Unavailable(Exception):
    """No GPU or no ncu: exit 2 with the reason."""


# ---- the metric set ---------------------------------------------------------------------

def load_metrics(path=METRICS_FILE):
    """[(key, metric, unit class, meaning)] from the data file, in its order."""
    out = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.split("\t")
            if len(parts) != 4 or parts[2] not in ("time", "bytes", "%", "count"):
                raise ProfileError("%s:%d: want key<TAB>metric<TAB>time|bytes|%%|count<TAB>meaning"
                                   % (path, n))
            out.append(tuple(parts))
    keys = [m[0] for m in out]
    for need in ("duration", "occupancy", "registers", "smem_static", "smem_dynamic",
                 "bank_conflicts", "dram", "l1_hit", "l2_hit", "threads_per_inst", "grid", "block"):
        if need not in keys:
            raise ProfileError("%s: no metric for %s" % (path, need))
    if len(set(keys)) != len(keys) or not any(k.startswith("stall:") for k in keys):
        raise ProfileError("%s: keys must be unique and include stall:<reason> lines" % path)
    return out


def perfworks(metrics):
    """The names ncu --query-metrics lists (launch__* are ncu's own, not listed there)."""
    return [m[1] for m in metrics if not m[1].startswith("launch__")]


# ---- ncu's raw CSV page ----------------------------------------------------------------------

def parse_number(text):
    """A number as ncu prints it ('1,234,567', '12.50', '0'); None for 'n/a', '' and the like."""
    t = text.strip().replace(",", "")
    if not t:
        return None
    try:
        v = float(t)
    except ValueError:
        return None
    return v if v == v else None     # NaN is no value


TIME_SCALE = {"nsecond": 1e-6, "ns": 1e-6, "usecond": 1e-3, "us": 1e-3, "msecond": 1.0,
              "ms": 1.0, "second": 1e3, "s": 1e3}                      # to milliseconds
BYTE_SCALE = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "KB": 1e3, "MB": 1e6,
              "Kibyte": 1024, "Mibyte": 1024 ** 2, "KiB": 1024, "MiB": 1024 ** 2}


def unit_scale(kind, unit, metric):
    """The factor that brings a value in `unit` to the notebook's unit for `kind`."""
    u = unit.strip()
    if kind == "time":
        if u not in TIME_SCALE:
            raise ProfileError("%s: unit %r is not a time unit this tool knows" % (metric, u))
        return TIME_SCALE[u]
    if kind == "bytes":
        base = u.split("/")[0]        # 'byte/block'
        if base not in BYTE_SCALE:
            raise ProfileError("%s: unit %r is not a byte unit this tool knows" % (metric, u))
        return BYTE_SCALE[base]
    if kind == "%":
        if u != "%":
            raise ProfileError("%s: ncu printed it in %r, not %%: a ratio read as a percentage "
                               "would be off by 100x" % (metric, u or "no unit"))
        return 1.0
    return 1.0


def parse_raw_csv(text):
    """(header, units, rows) of ncu's `--csv --page raw` output. Lines before the header
    (==PROF== lines, the application's own output) are skipped; the header is the first
    CSV record whose fields include "ID" and "Kernel Name"; the next record holds the
    units. Fields are quoted and may hold commas ("(256, 1, 1)", "1,024")."""
    lines = text.splitlines()
    start = None
    for i, line in enumerate(lines):
        if '"Kernel Name"' in line or line.startswith("ID,"):
            try:
                fields = next(csv.reader([line]))
            except (csv.Error, StopIteration):
                continue
            if fields and fields[0] == "ID" and "Kernel Name" in fields:
                start = i
                break
    if start is None:
        raise ProfileError("no CSV header (\"ID\", ..., \"Kernel Name\", ...) in ncu's output")
    records = [r for r in csv.reader(io.StringIO("\n".join(lines[start:]) + "\n"))]
    header = records[0]
    if len(records) < 2 or len(records[1]) != len(header):
        raise ProfileError("ncu's CSV has no units row under its header")
    units, rows = records[1], []
    for n, r in enumerate(records[2:], 3):
        if not any(c.strip() for c in r):
            continue
        if len(r) != len(header):
            if r and r[0].startswith("=="):
                continue        # an ncu message after the table
            raise ProfileError("CSV record %d has %d fields, the header %d" % (n, len(r), len(header)))
        rows.append(r)
    return header, units, rows


def nvtx_stack(cell):
    """The push/pop range names of ncu's NVTX column, e.g.
    '4242  "<default domain>:matrixMul:none:...:none"  "<default domain>:naive:none:..."'
    -> ['matrixMul', 'naive']. Each entry is domain:range:PL_Type:PL_Value:CLR_Type:
    Color:Msg_Type:Msg (the column's own header), so the range is what is left after
    the domain and before the last six fields. None if the cell holds no entry."""
    entries = re.findall(r'"([^"]*)"', cell)
    if not entries:
        return None if cell.strip() and not cell.strip().isdigit() else []
    names = []
    for e in entries:
        if ":" not in e:
            return None
        rest = e.split(">:", 1)[1] if e.startswith("<") and ">:" in e else e.split(":", 1)[1]
        parts = rest.rsplit(":", 6)
        if len(parts) != 7:
            return None
        names.append(parts[0])
    return names


def short_kernel_name(name):
    """'void mm_smem<32>(int, float *)' -> 'mm_smem<32>'."""
    n = name.strip()
    if n.startswith("void "):
        n = n[5:]
    depth, cut = 0, len(n)
    for i, c in enumerate(n):
        if c in "<[":
            depth += 1
        elif c in ">]":
            depth -= 1
        elif c == "(" and depth == 0:
            cut = i
            break
    return n[:cut].strip()


class Launch:
    def __init__(self, ident, name, stack, values):
        self.ident, self.name, self.stack, self.values = ident, name, stack, values

    def signature(self):
        return (self.name, self.values.get("grid"), self.values.get("block"))


def launches_from_csv(text, metrics, required=True):
    """Every launch of the CSV with its values in the notebook's units. With required,
    a metric missing from the header or without a number in a row fails loudly."""
    header, units, rows = parse_raw_csv(text)
    col = {h: i for i, h in enumerate(header)}
    missing = [m[1] for m in metrics if m[1] not in col]
    if missing and required:
        raise ProfileError("ncu's CSV lacks %s: renamed in this ncu, or not collected? "
                           "(check tools/profile_metrics.tsv against `ncu --query-metrics`)"
                           % ", ".join(missing))
    nvtx = [i for i, h in enumerate(header) if NVTX_COLUMN in h]
    scale = {m[1]: unit_scale(m[2], units[col[m[1]]], m[1]) for m in metrics if m[1] in col}
    out = []
    for r in rows:
        values = {}
        for key, metric, _, _ in metrics:
            if metric not in col:
                continue
            v = parse_number(r[col[metric]])
            if v is None:
                if required:
                    raise ProfileError("launch %s (%s): %s has no value (%r)"
                                       % (r[col["ID"]], r[col["Kernel Name"]], metric, r[col[metric]]))
                continue
            values[key] = v * scale[metric]
        stack = nvtx_stack(r[nvtx[0]]) if nvtx else None
        out.append(Launch(r[col["ID"]], r[col["Kernel Name"]], stack, values))
    return out, bool(nvtx)


# ---- one profile: runs, the dominant launch, the row ------------------------------------------------

def split_runs(launches, runs=RUNS):
    """k, the launches of one run: the list must be `runs` repetitions of one sequence."""
    n = len(launches)
    if n == 0:
        raise ProfileError("ncu profiled no kernel launch")
    if n % runs:
        raise ProfileError("%d launches profiled, not a multiple of the %d runs time_gpu makes "
                           "(%d warm-ups + --reps=%d): did the timing layer change?"
                           % (n, runs, WARMUPS, REPS))
    k = n // runs
    for i in range(k, n):
        if launches[i].signature() != launches[i - k].signature():
            a, b = launches[i - k], launches[i]
            raise ProfileError("the %d runs did not launch the same kernels: launch %s is %s grid %s, "
                               "launch %s is %s grid %s" % (runs, a.ident, short_kernel_name(a.name),
                                                            a.values.get("grid"), b.ident,
                                                            short_kernel_name(b.name), b.values.get("grid")))
    return k


def in_range(stack, sample, variant):
    """The two outermost ranges are the sample's and, inside it, the variant's. Deeper
    ranges are the variant's own: a library it calls may push its own (CUB pushes
    "cub::DeviceReduce::Sum:..." inside reduction/cub: seen with ncu 2025.3.1 on the
    H200, 2026-11-30). Either listing order is accepted: the check does not depend on
    whether ncu lists the stack outermost or innermost first."""
    if not stack or len(stack) < 2:
        return False
    want = [sample, variant]
    return list(stack[:2]) == want or list(reversed(stack))[:2] == want


def check_stacks(launches, sample, variant):
    """Every launch ran inside <sample>/<variant> and nothing else (either order ncu lists
    the stack in). Returns how many launches had a readable stack."""
    read = 0
    for ln in launches:
        if ln.stack is None:
            continue
        read += 1
        if not in_range(ln.stack, sample, variant):
            raise ProfileError("launch %s (%s) ran in NVTX ranges %s, not %s/%s: the filter "
                               "selected a kernel outside the variant"
                               % (ln.ident, short_kernel_name(ln.name), "/".join(ln.stack) or "(none)",
                                  sample, variant))
    return read


def summarize(launches, metrics, runs=RUNS):
    """The notebook's metric cells of one run (a dict of column -> text) and the numbers
    behind them (a dict)."""
    k = split_runs(launches, runs)
    keys = [m[0] for m in metrics]
    pos = []                 # per launch of a run: key -> median over the runs
    for j in range(k):
        med = {}
        for key in keys:
            vals = [launches[r * k + j].values[key] for r in range(runs) if key in launches[r * k + j].values]
            if vals:
                med[key] = statistics.median(vals)
        pos.append(med)
    for j, p in enumerate(pos):
        if "duration" not in p:
            raise ProfileError("launch %d of a run has no duration" % j)
    total_ms = sum(p["duration"] for p in pos)
    top = max(range(k), key=lambda j: pos[j]["duration"])
    d = pos[top]

    def need(key):
        if key not in d:
            raise ProfileError("the dominant launch has no %s" % key)
        return d[key]

    stalls = [(key[6:], d[key]) for key in keys if key.startswith("stall:") and key in d]
    if not stalls:
        raise ProfileError("the dominant launch has no stall breakdown")
    reason, share = max(stalls, key=lambda s: s[1])
    name = short_kernel_name(launches[top].name)
    frac = pos[top]["duration"] / total_ms * 100 if total_ms > 0 else 100.0
    nums = {
        "ms/run": total_ms,
        "launches": k,
        "occupancy %": need("occupancy"),
        "regs": need("registers"),
        "smem B/block": need("smem_static") + need("smem_dynamic"),
        "bank conflicts": need("bank_conflicts"),
        "DRAM % peak": need("dram"),
        "L1 hit %": need("l1_hit"),
        "L2 hit %": need("l2_hit"),
        "warp eff. %": need("threads_per_inst") / WARP_SIZE * 100,
        "top stall": (reason, share),
        "kernel": name,
    }
    cells = {
        "ms/run": fmt_sig(total_ms, 4),
        "launches": "%d" % k,
        "occupancy %": "%.1f" % nums["occupancy %"],
        "regs": "%d" % round(nums["regs"]),
        "smem B/block": "%d" % round(nums["smem B/block"]),
        "bank conflicts": "%d" % round(nums["bank conflicts"]),
        "DRAM % peak": "%.1f" % nums["DRAM % peak"],
        "L1 hit %": "%.1f" % nums["L1 hit %"],
        "L2 hit %": "%.1f" % nums["L2 hit %"],
        "warp eff. %": "%.1f" % nums["warp eff. %"],
        "top stall": "%s %.1f%%" % (reason, share),
        "kernel": "`%s`" % name + ("" if k == 1 else " (%.0f%% of the run)" % frac),
    }
    return cells, nums


def fmt_sig(x, digits):
    """x with `digits` significant digits, never in exponent form."""
    if x == 0:
        return "0"
    mag = len(str(int(abs(x)))) if abs(x) >= 1 else 0
    if abs(x) < 1:
        s = "%.*g" % (digits, x)
        if "e" in s:
            s = "%.*f" % (digits + 3, x)
        return s
    return "%.*f" % (max(digits - mag, 0), x)


# ---- the notebook -------------------------------------------------------------------------------

META_COLUMNS = ["date (UTC)", "commit", "dirty", "GPU", "ncu", "variant", "args", "note"]
METRIC_COLUMNS = ["ms/run", "launches", "occupancy %", "regs", "smem B/block", "bank conflicts",
                  "DRAM % peak", "L1 hit %", "L2 hit %", "warp eff. %", "top stall", "kernel"]
COLUMNS = META_COLUMNS + METRIC_COLUMNS


def notebook_header(sample, metrics):
    """The text above the table: what each column is and which ncu metric gives it."""
    m = {k: name for k, name, _, _ in metrics}
    stalls = [k[6:] for k, _, _, _ in metrics if k.startswith("stall:")]
    stall_metric = next(name for k, name, _, _ in metrics if k.startswith("stall:"))
    stall_pattern = stall_metric.replace(stalls[0], "<reason>")
    lines = [
        NOTEBOOK_TITLE % sample,
        "",
        "Written by `make profile` (tools/profile.py); never edit a row by hand. Each row is one",
        "variant run once at the arguments shown (the sample's defaults when empty) plus",
        "`--variant=<variant> --reps=%d` under Nsight Compute, clocks left alone" % REPS,
        "(`ncu --clock-control none`), with only the kernels launched inside the variant's NVTX",
        "range profiled (`--nvtx --nvtx-include \"%s/<variant>/\"`). Add one with" % sample,
        "",
        "    make profile SAMPLE=%s VARIANT=<variant> NOTE=\"what you changed\"" % sample,
        "",
        "and compare the last two rows with `make profile-diff SAMPLE=%s` (VARIANT= picks the" % sample,
        "last two rows of one variant). A run is every launch the variant makes once; time_gpu",
        "runs it %d times in the range (%d warm-ups, one timed), each launch's metrics are the"
        % (RUNS, WARMUPS),
        "median over those runs, and the metric columns after `ms/run` and `launches` are those",
        "of the run's dominant launch (its largest share of the time), named in `kernel`. ncu",
        "replays each launch with cold caches, so hit rates are those of a cold start.",
        "",
        "Columns (the ncu metric behind each; the list is tools/profile_metrics.tsv):",
        "",
        "- `date (UTC)`, `commit`, `dirty` (uncommitted changes outside *.md and results/),",
        "  `GPU`, `ncu` (its version), `variant`, `args`, `note`: what was run, where, and why.",
        "- `ms/run`: GPU time of one run, the durations of its launches summed (`%s`)." % m["duration"],
        "- `launches`: kernel launches in one run.",
        "- `occupancy %%`: achieved occupancy (`%s`)." % m["occupancy"],
        "- `regs`: registers per thread (`%s`)." % m["registers"],
        "- `smem B/block`: shared memory per block, static + dynamic (`%s` + `%s`)."
        % (m["smem_static"], m["smem_dynamic"]),
        "- `bank conflicts`: shared-memory bank conflicts of the launch (`%s`)." % m["bank_conflicts"],
        "- `DRAM %% peak`: DRAM throughput, %% of peak (`%s`)." % m["dram"],
        "- `L1 hit %%`, `L2 hit %%`: sector hit rates (`%s`, `%s`)." % (m["l1_hit"], m["l2_hit"]),
        "- `warp eff. %%`: warp execution efficiency, active threads per executed warp instruction"
        " / %d (`%s`)." % (WARP_SIZE, m["threads_per_inst"]),
        "- `top stall`: the largest share of active warp cycles stalled on one reason",
        "  (`%s`, reasons: %s)." % (stall_pattern, ", ".join(stalls)),
        "- `kernel`: the dominant launch, with its share of the run's time when there are several.",
        "",
    ]
    return "\n".join(lines)


def table_header():
    return "| " + " | ".join(COLUMNS) + " |\n" + "|" + "---|" * len(COLUMNS) + "\n"


def cell_text(s):
    """A value made safe for one Markdown table cell."""
    s = " ".join(str(s).split())
    return s.replace("|", "\\|")


def format_row(values):
    missing = [c for c in COLUMNS if c not in values]
    if missing:
        raise ProfileError("row lacks " + ", ".join(missing))
    return "| " + " | ".join(cell_text(values[c]) for c in COLUMNS) + " |\n"


def split_cells(line):
    """The cells of a Markdown table line, unescaping \\|."""
    s = line.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|") and not s.endswith("\\|"):
        s = s[:-1]
    cells, cur, i = [], "", 0
    while i < len(s):
        if s[i] == "\\" and i + 1 < len(s) and s[i + 1] == "|":
            cur += "|"
            i += 2
            continue
        if s[i] == "|":
            cells.append(cur.strip())
            cur = ""
        else:
            cur += s[i]
        i += 1
    cells.append(cur.strip())
    return cells


def read_notebook(path):
    """(columns, rows as dicts) of a notebook's table."""
    with open(path) as f:
        lines = f.read().splitlines()
    cols, rows = None, []
    for i, line in enumerate(lines):
        if not line.startswith("|"):
            continue
        cells = split_cells(line)
        if cols is None:
            if i + 1 < len(lines) and re.match(r"^\|(\s*:?-+:?\s*\|)+\s*$", lines[i + 1]):
                cols = cells
            continue
        if all(re.fullmatch(r":?-+:?", c) for c in cells):
            continue
        if len(cells) != len(cols):
            raise ProfileError("%s: a row has %d cells, the table %d" % (path, len(cells), len(cols)))
        rows.append(dict(zip(cols, cells)))
    return cols, rows


def append_row(path, sample, metrics, values):
    """Append one row; create the notebook (header and table head) when it is missing."""
    line = format_row(values)
    if not os.path.exists(path):
        with open(path, "w") as f:
            f.write(notebook_header(sample, metrics) + "\n" + table_header() + line)
        return
    cols, _ = read_notebook(path)
    if cols != COLUMNS:
        raise ProfileError("%s has the columns %s, this tool writes %s: move the old notebook "
                           "aside (NOTEBOOK-old.md) and profile again" % (path, cols, COLUMNS))
    with open(path) as f:
        text = f.read()
    with open(path, "a") as f:
        if not text.endswith("\n"):
            f.write("\n")
        f.write(line)


# ---- comparing two rows --------------------------------------------------------------------------

def split_number(cell):
    """('text around', number) of a cell such as '13.78', 'long_scoreboard 61.2%', or None."""
    c = cell.strip()
    m = re.fullmatch(r"-?[0-9][0-9,]*(\.[0-9]+)?", c)
    if m:
        return "", float(c.replace(",", ""))
    m = re.fullmatch(r"(.*?\S)\s+(-?[0-9]+(\.[0-9]+)?)%?", c)
    if m:
        return m.group(1), float(m.group(2))
    return None


def diff_rows(a, b, cols):
    """Lines comparing two rows: a '*' marks a changed cell; B/A for numbers."""
    width = max(len(c) for c in cols)
    wa = max([len(a.get(c, "")) for c in cols] + [5])
    wb = max([len(b.get(c, "")) for c in cols] + [5])
    out = []
    for c in cols:
        va, vb = a.get(c, ""), b.get(c, "")
        mark, ratio = " ", ""
        if va != vb:
            mark = "*"
            na, nb = split_number(va), split_number(vb)
            if na and nb and na[0] == nb[0] and na[1] != 0:
                ratio = "  x%.3g" % (nb[1] / na[1])
        out.append(("%s %-*s  %-*s  %-*s%s" % (mark, width, c, wa, va, wb, vb, ratio)).rstrip())
    return out


# ---- the machine: GPU, ncu, git --------------------------------------------------------------------

def gpu_names():
    """The GPUs nvidia-smi lists ([] if none or no nvidia-smi)."""
    try:
        p = subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           universal_newlines=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return []
    return [l for l in p.stdout.splitlines() if l.startswith("GPU ")]


@functools.lru_cache(maxsize=None)
def gpu_name(index=0):
    try:
        p = subprocess.run(["nvidia-smi", "-i", str(index), "--query-gpu=name", "--format=csv,noheader"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, universal_newlines=True,
                           timeout=60)
        name = p.stdout.strip().splitlines()[0] if p.returncode == 0 and p.stdout.strip() else "unknown"
    except (OSError, subprocess.TimeoutExpired):
        name = "unknown"
    return re.sub(r"^NVIDIA ", "", name)


def find_ncu():
    """The ncu to use: $NCU, else PATH, else the usual install places (PROFILE_NCU_GLOBS,
    ':'-separated, replaces that list). Raises Unavailable."""
    env = os.environ.get("NCU")
    if env:
        if os.path.isfile(env) and os.access(env, os.X_OK):
            return env
        raise Unavailable("NCU=%s is not an executable file" % env)
    p = shutil.which("ncu")
    if p:
        return p
    globs = os.environ.get("PROFILE_NCU_GLOBS")
    globs = [g for g in globs.split(":") if g] if globs is not None else NCU_GLOBS
    for g in globs:
        found = sorted(f for f in glob.glob(g) if os.access(f, os.X_OK))
        if found:
            return found[-1]
    raise Unavailable("Nsight Compute (ncu) not found: not on PATH, not in %s (set NCU=/path/to/ncu)"
                      % ", ".join(globs or ["(no search paths)"]))


def require_gpu_and_ncu():
    if not gpu_names():
        raise Unavailable("no CUDA device visible (nvidia-smi lists none): nothing to profile")
    return find_ncu()


@functools.lru_cache(maxsize=None)
def ncu_version(ncu):
    try:
        p = subprocess.run([ncu, "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise ProfileError("%s --version: %s" % (ncu, e))
    m = re.search(r"Version\s+([0-9][0-9.]*)", p.stdout)
    return m.group(1) if m else "unknown"


def git_commit():
    c = os.environ.get("GIT_COMMIT")
    if c:
        return c
    try:
        p = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, universal_newlines=True)
        return p.stdout.strip() if p.returncode == 0 and p.stdout.strip() else "unknown"
    except OSError:
        return "unknown"


def git_dirty():
    """yes/no/unknown: uncommitted changes outside results/ and the Markdown files (the
    notebooks themselves), as tools/bench.sh decides."""
    d = os.environ.get("GIT_DIRTY")
    if d:
        return d
    try:
        p = subprocess.run(["git", "status", "--porcelain", "--", ".", ":(exclude)results", ":(exclude)*.md"],
                           cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           universal_newlines=True)
    except OSError:
        return "unknown"
    if p.returncode != 0:
        return "unknown"
    return "yes" if p.stdout.strip() else "no"


# ---- samples and their variants --------------------------------------------------------------------

def sample_folder(sample):
    found = [os.path.dirname(p) for p in glob.glob(os.path.join(ROOT, "[0-8]_*", sample, "Makefile"))]
    if not found:
        names = sorted(os.path.basename(os.path.dirname(p))
                       for p in glob.glob(os.path.join(ROOT, "[0-8]_*", "*", "Makefile")))
        raise ProfileError("no sample named %r (samples: %s)" % (sample, " ".join(names)))
    return found[0]


def variants_from_help(text):
    """The variant names of a sample's --help: the lines of its "Variants:" block
    ('  name   what it does'), or the names on the "Variants:" line itself."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if not line.startswith("Variants:"):
            continue
        rest = line[len("Variants:"):].strip()
        if rest:
            return [w.strip(".,") for w in rest.split() if w.strip(".,")]
        out = []
        for l in lines[i + 1:]:
            m = re.match(r"^  ([A-Za-z0-9_]+)(\s{2,}|\s*$)", l)
            if not m:
                break
            out.append(m.group(1))
        return out
    return []


def sample_binary(sample):
    sample_folder(sample)
    b = os.path.join(ROOT, "bin", sample)
    if not os.access(b, os.X_OK):
        raise ProfileError("bin/%s is not built (make %s)" % (sample, sample))
    return b


def kernel_variants(sample):
    """The variants a profile accepts: those --help lists, less the CPU baseline."""
    b = sample_binary(sample)
    p = subprocess.run([b, "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, timeout=60)
    names = [v for v in variants_from_help(p.stdout) if v != "cpu"]
    if p.returncode != 0 or not names:
        raise ProfileError("bin/%s --help lists no variants (exit %d)" % (sample, p.returncode))
    return names


# ---- metric names against ncu's own list ---------------------------------------------------------------

NAME_RE = re.compile(r"^[A-Za-z0-9_.]*[a-z0-9]__[A-Za-z0-9_.]+$")


def parse_query_metrics(text):
    """The metric names of `ncu --query-metrics` output (either mode): the first word of each
    table line; wrapped description lines start with blanks and are skipped. Names ncu
    warned about ("either invalid or don't have suffixes") come back as a second set."""
    names, invalid, in_warning = set(), set(), False
    for line in text.splitlines():
        if "either invalid or don't have suffixes" in line:
            in_warning = True
            continue
        if not line.strip() or line[0].isspace():
            continue
        word = line.split()[0]
        if in_warning and NAME_RE.match(word) and len(line.split()) == 1:
            invalid.add(word)
            continue
        in_warning = False
        if NAME_RE.match(word):
            names.add(word)
    return names, invalid


def validate_names(metrics, suffix_listing, base_listing=None):
    """(missing, extra stall reasons): the perfworks metrics the suffix listing lacks, and
    the stall reasons the base listing knows that the metric set does not collect."""
    known, _ = parse_query_metrics(suffix_listing)
    if not known:
        raise ProfileError("ncu --query-metrics printed no metric names:\n" + suffix_listing[-2000:])
    missing = [m for m in perfworks(metrics) if m not in known]
    extra = []
    if base_listing is not None:
        base, _ = parse_query_metrics(base_listing)
        stalls = [(k[6:], name) for k, name, _, _ in metrics if k.startswith("stall:")]
        ours = {r for r, _ in stalls}
        reason, name = stalls[0]
        family = name.split(".")[0]             # the base name, with the reason in it
        left, right = family.split(reason, 1)
        rx = re.compile("^" + re.escape(left) + "([a-z0-9_]+)" + re.escape(right) + "$")
        for n in sorted(base):
            m = rx.match(n)
            if m and m.group(1) not in ours and m.group(1) != "selected":
                extra.append(m.group(1))
    return missing, extra


def run_query(ncu, args):
    try:
        p = subprocess.run([ncu] + args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise ProfileError("%s %s: %s" % (ncu, " ".join(args), e))
    return p.stdout


def validate_on_machine(ncu, metrics, device=0, quiet=False, chip=None):
    """Check the metric names with this ncu for this GPU (or for `chip`, e.g. gh100, which
    needs no GPU), once per ncu version, GPU and metric list (remembered in build/profile/)."""
    names = perfworks(metrics)
    target = chip or gpu_name(device)
    key = hashlib.sha1(("\n".join(names) + ncu_version(ncu) + target).encode()).hexdigest()[:16]
    stamp = os.path.join(WORK, "metrics_checked_%s" % key)
    if os.path.exists(stamp):
        return
    bases = sorted({n.split(".")[0] for n in names})
    where = ["--chips", chip] if chip else ["--devices", str(device)]
    suffix = run_query(ncu, ["--query-metrics-mode", "suffix", "--metrics", ",".join(bases)] + where)
    base = run_query(ncu, ["--query-metrics"] + where)
    missing, extra = validate_names(metrics, suffix, base)
    if missing:
        raise ProfileError("this ncu (%s) does not know %s on %s: renamed? fix "
                           "tools/profile_metrics.tsv (ncu --query-metrics-mode suffix --metrics "
                           "<base> lists the names)" % (ncu_version(ncu), ", ".join(missing), target))
    if extra and not quiet:
        print("profile: note: ncu knows stall reasons the notebook does not collect: %s"
              % ", ".join(extra))
    os.makedirs(WORK, exist_ok=True)
    with open(stamp, "w") as f:
        f.write("\n".join(names) + "\n")


# ---- running ncu ------------------------------------------------------------------------------------

def device_of(args):
    for a in args:
        m = re.match(r"^--device=(\d+)$", a)
        if m:
            return int(m.group(1))
    return 0


def profile_launches(ncu, sample, args, metrics, tag, nvtx_include=None, log_to=None):
    """Run bin/<sample> args under ncu with the given metrics (and NVTX filter); return
    (launches, had NVTX column, passes per launch or None, seconds, csv path)."""
    os.makedirs(WORK, exist_ok=True)
    rep = os.path.join(WORK, tag)
    log = os.path.join(WORK, tag + ".log")
    csv_path = os.path.join(WORK, tag + ".csv")
    for old in (rep + ".ncu-rep", csv_path):     # a stale report must not stand in for this run
        if os.path.exists(old):
            os.remove(old)
    cmd = [ncu, "--clock-control", "none", "--nvtx"]
    if nvtx_include is not None:
        cmd += ["--nvtx-include", nvtx_include]
    cmd += ["--metrics", ",".join(m[1] for m in metrics), "--export", rep, "--force-overwrite",
            sample_binary(sample)] + args
    start = datetime.datetime.now()
    timeout = int(os.environ.get("PROFILE_TIMEOUT", "600"))
    with open(log, "w") as f:
        f.write("$ " + " ".join(cmd) + "\n")
        f.flush()
        try:
            p = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, timeout=timeout, cwd=ROOT)
        except subprocess.TimeoutExpired:
            raise ProfileError("ncu ran past %d s (PROFILE_TIMEOUT); log: %s" % (timeout, log))
    seconds = (datetime.datetime.now() - start).total_seconds()
    with open(log) as f:
        text = f.read()
    errors = [l for l in text.splitlines() if l.startswith("==ERROR==")]
    verdict = [l for l in text.splitlines() if re.match(r"^%s: (PASS|FAIL|WAIVED)" % re.escape(sample), l)]
    if p.returncode != 0 or errors or not verdict or not verdict[-1].startswith(sample + ": PASS"):
        tail = "\n".join(text.splitlines()[-15:])
        raise ProfileError("the profiled run did not PASS (ncu exit %d)%s; log %s ends:\n%s"
                           % (p.returncode, ": " + errors[0] if errors else "", log, tail))
    if not os.path.exists(rep + ".ncu-rep"):
        if "No kernels were profiled" in text:
            return [], False, None, seconds, csv_path
        raise ProfileError("ncu wrote no report %s.ncu-rep; log: %s" % (rep, log))
    imp = [ncu, "--import", rep + ".ncu-rep", "--csv", "--page", "raw", "--print-units", "base"]
    q = subprocess.run(imp, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                       timeout=timeout)
    with open(csv_path, "w") as f:
        f.write(q.stdout)
    if q.returncode != 0:
        raise ProfileError("%s failed (%d): %s" % (" ".join(imp), q.returncode, q.stderr.strip()[-500:]))
    if not q.stdout.strip():
        return [], False, None, seconds, csv_path
    launches, has_nvtx = launches_from_csv(q.stdout, metrics)
    header, _, rows = parse_raw_csv(q.stdout)
    passes = None
    if "profiler__replayer_passes" in header:
        i = header.index("profiler__replayer_passes")
        vals = [parse_number(r[i]) for r in rows]
        passes = max(v for v in vals if v is not None) if any(v is not None for v in vals) else None
    if log_to:
        log_to.write("ncu: %d launches profiled%s in %.1f s; log %s\n"
                     % (len(launches), ", up to %d passes each" % passes if passes else "", seconds,
                        os.path.relpath(log, ROOT)))
    return launches, has_nvtx, passes, seconds, csv_path


def check_args(args):
    for a in args:
        if re.match(r"^--(variant|reps)(=|$)", a):
            raise ProfileError("%s: make profile sets --variant and --reps itself" % a)


def row_values(sample, variant, args, note, cells, gpu, ncu_ver):
    v = {
        "date (UTC)": datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M"),
        "commit": git_commit(),
        "dirty": git_dirty(),
        "GPU": gpu,
        "ncu": ncu_ver,
        "variant": variant,
        "args": " ".join(args),
        "note": note,
    }
    v.update(cells)
    return v


def cmd_run(sample, variant, args, note, out=sys.stdout):
    metrics = load_metrics()
    ncu = require_gpu_and_ncu()
    folder = sample_folder(sample)
    check_args(args)
    names = kernel_variants(sample)
    if variant not in names:
        raise ProfileError("%s has no variant %r that launches kernels (variants: %s)"
                           % (sample, variant, " ".join(names)))
    device = device_of(args)
    validate_on_machine(ncu, metrics, device)
    full = args + ["--variant=%s" % variant, "--reps=%d" % REPS]
    out.write("profile: %s/%s: ncu --clock-control none --nvtx --nvtx-include \"%s/%s/\" bin/%s %s\n"
              % (sample, variant, sample, variant, sample, " ".join(full)))
    launches, _, _, _, csv_path = profile_launches(ncu, sample, full, metrics, "%s__%s" % (sample, variant),
                                                   nvtx_include="%s/%s/" % (sample, variant), log_to=out)
    if not launches:
        raise ProfileError("ncu profiled no kernel in the NVTX range %s/%s/: does %s launch kernels "
                           "(a cudaMemcpy is not a kernel)? log: build/profile/%s__%s.log"
                           % (sample, variant, variant, sample, variant))
    read = check_stacks(launches, sample, variant)
    if read == 0:
        out.write("profile: note: ncu's CSV shows no NVTX stacks; the filter's selection is not "
                  "re-checked here (tools/profile.py nvtx-check does that)\n")
    cells, _ = summarize(launches, metrics)
    values = row_values(sample, variant, args, note, cells, gpu_name(device), ncu_version(ncu))
    path = os.path.join(folder, "NOTEBOOK.md")
    append_row(path, sample, metrics, values)
    for c in METRIC_COLUMNS:
        out.write("  %-15s %s\n" % (c, cells[c]))
    out.write("profile: appended to %s (raw CSV %s, report %s.ncu-rep for the Nsight Compute GUI)\n"
              % (os.path.relpath(path, ROOT), os.path.relpath(csv_path, ROOT),
                 os.path.relpath(csv_path[:-4], ROOT)))


# ---- the NVTX filter check (GPU) -------------------------------------------------------------------------

def nvtx_check(sample, args, out=sys.stdout):
    """Show on the GPU that --nvtx-include "<sample>/<variant>/" selects exactly the launches
    made inside that variant's range. The truth comes from one unfiltered run of the whole
    sample (every variant, the checks, the references; one cheap metric): ncu's NVTX column
    says in which ranges each launch ran. Then, for each variant, a filtered run of the same
    whole sample (so every other variant's kernels run too and could leak in) must select
    the very launches (kernel, grid, block, in order) its range held, nothing else and
    nothing fewer. Two controls: a filter naming no range selects nothing, and "<sample>/"
    selects every variant's launches together. Returns (passed, failed)."""
    metrics = [m for m in load_metrics() if m[0] in ("duration", "grid", "block")]
    ncu = require_gpu_and_ncu()
    names = kernel_variants(sample)
    base = args + ["--reps=%d" % REPS]
    passed, failed = 0, 0

    def verdict(ok, text):
        nonlocal passed, failed
        out.write("%s %s: %s\n" % ("ok  " if ok else "FAIL", sample, text))
        if ok:
            passed += 1
        else:
            failed += 1

    allrun, has_nvtx, _, secs, _ = profile_launches(ncu, sample, base, metrics, "%s__nvtx_all" % sample)
    if not has_nvtx:
        verdict(False, "ncu's CSV has no NVTX stack column: launches cannot be attributed")
        return passed, failed
    if any(l.stack is None for l in allrun):
        verdict(False, "unreadable NVTX stack cell(s), e.g. launch %s" % next(l.ident for l in allrun if l.stack is None))
        return passed, failed
    truth = {v: [l.signature() for l in allrun if in_range(l.stack, sample, v)] for v in names}
    outside = [l for l in allrun if sample not in l.stack]
    verdict(len(outside) > 0 and len(allrun) > sum(len(t) for t in truth.values()),
            "unfiltered run: %d launches, %d outside every variant range (checks, setup), %.0f s"
            % (len(allrun), len(outside), secs))
    for v in names:
        got, _, _, secs, _ = profile_launches(ncu, sample, base, metrics, "%s__nvtx_%s" % (sample, v),
                                              nvtx_include="%s/%s/" % (sample, v))
        sigs = [l.signature() for l in got]
        if not truth[v]:
            verdict(not got, "%s launches no kernel in its range; the filter selected %d" % (v, len(got)))
            continue
        bad = [l for l in got if l.stack is not None and not in_range(l.stack, sample, v)]
        ok = sigs == truth[v] and not bad and len(got) % RUNS == 0
        kinds = sorted({short_kernel_name(s[0]) for s in sigs})
        verdict(ok, "--nvtx-include \"%s/%s/\" selected %d launches (%s), the variant's range held %d%s (%.0f s)"
                % (sample, v, len(got), ", ".join(kinds) or "none", len(truth[v]),
                   "" if not bad else "; launch %s ran in %s" % (bad[0].ident, "/".join(bad[0].stack)), secs))
    got, _, _, _, _ = profile_launches(ncu, sample, base, metrics, "%s__nvtx_none" % sample,
                                       nvtx_include="%s/no_such_variant/" % sample)
    verdict(not got, "a filter naming no range selected %d launches (want 0)" % len(got))
    got, _, _, _, _ = profile_launches(ncu, sample, base, metrics, "%s__nvtx_sample" % sample,
                                       nvtx_include="%s/" % sample)
    inside = [l.signature() for l in allrun if sample in l.stack]
    verdict([l.signature() for l in got] == inside,
            "--nvtx-include \"%s/\" selected %d launches, every variant's together %d"
            % (sample, len(got), len(inside)))
    return passed, failed


# ---- the command line ---------------------------------------------------------------------------------

def opt(argv, name, default=None):
    for a in argv:
        if a.startswith("--%s=" % name):
            return a.split("=", 1)[1]
    return default


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    cmd, rest = argv[0], argv[1:]
    try:
        if cmd == "check":
            require_gpu_and_ncu()
            if opt(rest, "sample"):
                sample_folder(opt(rest, "sample"))
            return 0
        if cmd == "variants":
            for v in kernel_variants(rest[0]):
                print(v)
            return 0
        if cmd == "validate":
            metrics = load_metrics()
            qf = opt(rest, "query-file")
            if qf:
                with open(qf) as f:
                    missing, _ = validate_names(metrics, f.read())
                if missing:
                    raise ProfileError("%s lacks %s" % (qf, ", ".join(missing)))
                print("profile: all %d metric names are in %s" % (len(perfworks(metrics)), qf))
                return 0
            chip = opt(rest, "chip")
            ncu = find_ncu() if chip else require_gpu_and_ncu()
            for f in glob.glob(os.path.join(WORK, "metrics_checked_*")):
                os.remove(f)
            validate_on_machine(ncu, metrics, chip=chip)
            print("profile: ncu %s knows all %d metric names on %s"
                  % (ncu_version(ncu), len(perfworks(metrics)), chip or gpu_name()))
            return 0
        if cmd == "run":
            sample, variant = opt(rest, "sample"), opt(rest, "variant")
            if not sample or not variant:
                raise ProfileError("usage: make profile SAMPLE=name VARIANT=name [NOTE=...] [ARGS=...]")
            args = os.environ.get("PROFILE_ARGS", opt(rest, "args", "")).split()
            note = os.environ.get("PROFILE_NOTE", opt(rest, "note", ""))
            cmd_run(sample, variant, args, note)
            return 0
        if cmd == "summarize":
            sample, variant = opt(rest, "sample"), opt(rest, "variant")
            files = [a for a in rest if not a.startswith("--")]
            if not sample or not variant or len(files) != 1:
                raise ProfileError("usage: profile.py summarize --sample=S --variant=V FILE.csv")
            metrics = load_metrics()
            with open(files[0]) as f:
                launches, _ = launches_from_csv(f.read(), metrics)
            check_stacks(launches, sample, variant)
            cells, _ = summarize(launches, metrics)
            for c in METRIC_COLUMNS:
                print("%-15s %s" % (c, cells[c]))
            return 0
        if cmd == "diff":
            sample, variant = opt(rest, "sample"), opt(rest, "variant")
            if not sample:
                raise ProfileError("usage: make profile-diff SAMPLE=name [VARIANT=name]")
            path = os.path.join(sample_folder(sample), "NOTEBOOK.md")
            if not os.path.exists(path):
                raise ProfileError("%s has no notebook yet (make profile SAMPLE=%s VARIANT=...)"
                                   % (sample, sample))
            cols, rows = read_notebook(path)
            numbered = [(i + 1, r) for i, r in enumerate(rows) if not variant or r.get("variant") == variant]
            if len(numbered) < 2:
                raise ProfileError("%s has %d row(s)%s: a diff needs two"
                                   % (os.path.relpath(path, ROOT), len(numbered),
                                      " of variant %s" % variant if variant else ""))
            (ia, a), (ib, b) = numbered[-2], numbered[-1]
            print("%s: row %d against row %d (* changed; xN = row %d / row %d)"
                  % (os.path.relpath(path, ROOT), ia, ib, ib, ia))
            print("\n".join(diff_rows(a, b, cols)))
            return 0
        if cmd == "nvtx-check":
            samples = [a for a in rest if not a.startswith("--")]
            args = opt(rest, "args", "--quick").split()
            passed = failed = 0
            for s in samples:
                p, f = nvtx_check(s, args)
                passed, failed = passed + p, failed + f
            print("nvtx-check: %d passed, %d failed" % (passed, failed))
            return 1 if failed or not passed else 0
        raise ProfileError("unknown subcommand %r (see profile.py --help)" % cmd)
    except Unavailable as e:
        print("profile: %s" % e)
        return 2
    except ProfileError as e:
        print("profile: error: %s" % e)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
