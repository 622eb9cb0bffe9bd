#!/usr/bin/env python3
"""results.py: the suite's benchmark results, from the samples' output to
results.json, RESULTS.md, the README tables, `make compare` and `make run`'s
headline. Python 3 standard library only (the GPU machine has no registry).

  results.py convert DIR            DIR/*.txt (the run files bench.sh writes)
                                    -> DIR/results.json
  results.py report FILE [--check]  FILE (a results.json) -> RESULTS.md beside it
  results.py tables [--check] [FILE...]
                                    every sample README's table, between
                                    <!-- results:begin --> and <!-- results:end -->,
                                    from FILEs (default: every results/*/results.json)
  results.py compare A B [--threshold=PCT]
                                    ratio per sample, run and variant; exit 1 on a
                                    flagged regression
  results.py headline LOG           the headline of one sample's output (make run)

--check writes nothing and exits 1 when a committed file differs from what
results.json gives (the tests use it).

A run file (bench.sh writes one per sample and argument set) is the sample's
output between a header and a trailer:

  # gpu: NVIDIA H200            # driver: 580.159.04     # cuda: 13.0 (nvcc)
  # date: 2026-11-29T19:41:53Z  # commit: 10393d1        # dirty: no
  # command: make bench (bin/vectorAdd --n=1M)
  # clocks before: clocks.sm=1980 clocks.mem=3201 ...
  ...the sample's output: notes, RESULT lines or CSV rows, the PASS line...
  # clocks after: ...           # seconds: 5.8           # exit: 0

(`dirty`, the clocks and `seconds` are absent from files written before
they existed.) A run made by tools/bench_gpus.sh (BENCH_JOBS=N: several GPUs,
one sample on each at a time) has a header line `# ran on: device 1
(BENCH_JOBS=2: ...)`, kept as the run's `ran_on`; its workers' run files
land in one folder and `convert` makes one results.json of them all. Records are the RESULT lines (key=value; a value in double
quotes is a JSON string) and the rows of a CSV block whose header starts
`sample,variant,` (bandwidthTest --csv). `nan`/`inf` and empty CSV cells
become null. The size of a record is its keys between `variant` and
`status` (n; m n k; bytes direction memory ...), as the samples print them.

The figure of a record, the first of these it carries (not null):
  gflops (GFLOP/s), gbps (GB/s)                       higher is better
  us_per_<what> (microseconds per <what>)             lower is better
  overlap, speedup (x, against the same work in serial order)   higher
A record with none of them is judged by time_ms (lower is better).

The headline of a sample (make run's summary, RESULTS.md), from its
default run (no extra arguments). Each sample declares its case in
<folder>/headline (format below); the records considered are the PASS
records with a figure that carry every key=value of its `case:` (all of them
when the case matches none: a --quick run, other sizes), and of those
  1. the one of its `variant:`, if it names one;
  2. else a record that says headline=1, if the sample marks one;
  3. else, among records that are not the CPU baseline (variant=cpu), not
     the reference itself (variant = ref) and carry no role= key
     (role=context: matrixMul's TF32 cuBLAS; role=floor:
     streamOrderedAllocation's preallocated loop), the one with the highest
     pct_ref (pct_ref is "higher is better" for every sample: value over the
     reference's, or the reference's time over this one's);
  4. else (no reference measured) the best figure.
The summary names the headline's case (its size keys) and, for the keys of
`across:`, the range of the same variant over their other values (the other
inputs): "120.7% (input=degenerate) to 199.5% (input=uniform) of cub".

<folder>/headline, one `key: value` a line, # comments:
  case: input=uniform        key=value pairs the record carries (empty: any record)
  variant: NAME              optional: this variant, not the rule's pick
  across: input              optional: keys whose other values show the range
  why: ...                   required: why this case speaks for the sample

Exit status: 0 done; 1 a flagged regression (compare) or a committed file
that disagrees with results.json (--check); 2 a usage or input error (a
missing or unreadable file, a file that is not JSON or not a results
document), with a one-line message.
"""
import argparse
import ast
import collections
import csv
import glob
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMA = "cuda-samples-results/1"
BEGIN, END = "<!-- results:begin -->", "<!-- results:end -->"
NVIDIA_FILE = "results/nvidia_samples.tsv"

# ---- reading the samples' output -------------------------------------------

HEADER_KEYS = ("gpu", "driver", "cuda", "date", "commit", "dirty", "command", "ran on",
               "clocks before")
TRAILER_KEYS = ("clocks after", "seconds", "exit")
_META = re.compile(r"^# (%s): ?(.*)$" % "|".join(HEADER_KEYS + TRAILER_KEYS))
_TOKEN = re.compile(r'([A-Za-z_][A-Za-z0-9_.]*)=("(?:[^"\\]|\\.)*"|\S*)')
_INT = re.compile(r"-?\d+$")
_FLOAT = re.compile(r"-?(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?$")
_COMMAND = re.compile(r"^make bench \(bin/(\S+)\s*(.*?)\s*\)$")


def parse_value(text):
    """A RESULT value as JSON: number, string, or None for nan/inf."""
    if text.startswith('"'):
        return json.loads(text)   # the samples quote with JSON escapes (common/report.c)
    if text in ("nan", "-nan", "inf", "-inf", ""):
        return None
    if _INT.match(text):
        return int(text)
    if _FLOAT.match(text):
        return float(text)
    return text


def parse_pairs(text):
    """key=value key="quoted value" ... -> an ordered dict."""
    return collections.OrderedDict((k, parse_value(v)) for k, v in _TOKEN.findall(text))


def parse_output(lines):
    """A sample's output -> (records, other lines). RESULT lines and the rows
    of a CSV block are records; every other line is kept as output."""
    records, other, header = [], [], None
    for line in lines:
        if line.startswith("RESULT "):
            records.append(parse_pairs(line[len("RESULT "):]))
            continue
        if line.startswith("sample,variant,"):
            header = next(csv.reader([line]))
            continue
        if header and not line.startswith("#"):
            row = next(csv.reader([line]), [])
            if len(row) == len(header):
                records.append(collections.OrderedDict(
                    (k, parse_value(v)) for k, v in zip(header, row)))
                continue
        other.append(line)
    return records, other


def parse_run_file(path):
    """One run file of bench.sh -> a run (dict), or None if the file is not
    a `make bench` run (make_run.txt, kgate's corpus run, an experiment)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    meta, start, end = {}, 0, len(lines)
    while start < end:
        m = _META.match(lines[start])
        if not m or m.group(1) in TRAILER_KEYS:
            break
        meta[m.group(1)] = m.group(2).strip()
        start += 1
    while end > start:
        m = _META.match(lines[end - 1])
        if not m or m.group(1) not in TRAILER_KEYS:
            break
        meta[m.group(1)] = m.group(2).strip()
        end -= 1
    cm = _COMMAND.match(meta.get("command", ""))
    if not cm:
        return None
    records, output = parse_output(lines[start:end])
    commit = meta.get("commit", "unknown")
    dirty = {"yes": True, "no": False}.get(meta.get("dirty"), None)
    if "+" in commit:                       # files before `# dirty:`: "abc123+uncommitted changes"
        commit, dirty = commit.split("+", 1)[0], True
    elif "dirty" not in meta and commit != "unknown":
        dirty = False                       # the old header said so only when dirty
    run = collections.OrderedDict()
    run["sample"] = cm.group(1)
    run["args"] = cm.group(2)
    run["command"] = ("bin/%s %s" % (cm.group(1), cm.group(2))).strip()
    run["file"] = os.path.basename(path)
    run["date"] = meta.get("date")
    run["commit"] = commit
    run["dirty"] = dirty
    if "ran on" in meta:                    # only runs of tools/bench_gpus.sh say where
        run["ran_on"] = meta["ran on"]
    run["exit"] = int(meta["exit"]) if _INT.match(meta.get("exit", "")) else None
    run["seconds"] = float(meta["seconds"]) if _FLOAT.match(meta.get("seconds", "")) else None
    run["clocks_before"] = parse_pairs(meta["clocks before"]) if "clocks before" in meta else None
    run["clocks_after"] = parse_pairs(meta["clocks after"]) if "clocks after" in meta else None
    run["records"] = records
    run["output"] = output
    run["_meta"] = meta
    return run


def sample_dirs(root):
    """{sample name: folder} for every sample folder N_Group/name/ (N = 0..8)."""
    found = {}
    for mk in sorted(glob.glob(os.path.join(root, "[0-8]_*", "*", "Makefile"))):
        d = os.path.dirname(mk)
        found.setdefault(os.path.basename(d), os.path.relpath(d, root))
    return found


def run_order(root):
    """Runs in the order of the sample folders, the default run first."""
    folders = sample_dirs(root)

    def key(run):
        return (folders.get(run["sample"], "~" + run["sample"]), run["args"] != "",
                run["date"] or "", run["file"])
    return key


def most_common(values):
    values = [v for v in values if v not in (None, "")]
    return collections.Counter(values).most_common(1)[0][0] if values else None


def convert(directory, root=ROOT):
    """Every run file in DIRECTORY (and its deviceQuery.json) -> one results document."""
    runs = [r for r in (parse_run_file(p) for p in sorted(glob.glob(os.path.join(directory, "*.txt"))))
            if r is not None]
    if not runs:
        raise InputError("no `make bench` run files in %s" % directory)
    runs.sort(key=run_order(root))
    metas = [r.pop("_meta") for r in runs]
    devices = []
    dq = os.path.join(directory, "deviceQuery.json")
    runtime = None
    if os.path.exists(dq):
        with open(dq) as f:
            doc = json.load(f)
        devices = doc.get("devices", [])
        runtime = doc.get("runtime_version")
    by_date = sorted(runs, key=lambda r: r["date"] or "")
    dirty = [r["dirty"] for r in runs]
    doc = collections.OrderedDict()
    doc["schema"] = SCHEMA
    doc["gpu"] = most_common(m.get("gpu") for m in metas)
    doc["gpu_dir"] = os.path.basename(os.path.normpath(directory))
    doc["driver"] = most_common(m.get("driver") for m in metas)
    doc["cuda_toolkit"] = most_common(m.get("cuda") for m in metas)
    doc["runtime"] = runtime
    doc["date_first"] = by_date[0]["date"]
    doc["date_last"] = by_date[-1]["date"]
    doc["commit"] = by_date[-1]["commit"]
    doc["commits"] = sorted(set(r["commit"] for r in runs))
    doc["dirty"] = True if True in dirty else (None if None in dirty else False)
    doc["command"] = "make bench"
    doc["clocks"] = collections.OrderedDict(
        [("before", by_date[0]["clocks_before"]), ("after", by_date[-1]["clocks_after"])])
    doc["devices"] = devices
    doc["runs"] = runs
    return doc


def dumps(doc):
    """results.json text: one line per record, so a diff shows what moved."""
    def block(obj, indent, inline_lists):
        pad = " " * indent
        items = list(obj.items())
        out = []
        for i, (k, v) in enumerate(items):
            comma = "," if i < len(items) - 1 else ""
            if k == "runs":
                out.append('%s"runs": [' % pad)
                for j, run in enumerate(v):
                    out.append(pad + " {")
                    out.extend(block(run, indent + 2, ("records", "output")))
                    out.append(pad + " }" + ("," if j < len(v) - 1 else ""))
                out.append(pad + "]" + comma)
            elif k in inline_lists or k == "devices":
                out.append("%s%s: [" % (pad, json.dumps(k)))
                for n, x in enumerate(v):
                    out.append(pad + " " + json.dumps(x) + ("," if n < len(v) - 1 else ""))
                out.append(pad + "]" + comma)
            else:
                out.append("%s%s: %s%s" % (pad, json.dumps(k), json.dumps(v), comma))
        return out
    return "\n".join(["{"] + block(doc, 1, ()) + ["}"]) + "\n"


class InputError(Exception):
    """A file the command needs is missing, unreadable or not what it should
    be: one line for the user, exit 2 (main)."""


def load(path):
    try:
        with open(path) as f:
            doc = json.load(f, object_pairs_hook=collections.OrderedDict)
    except OSError as e:
        raise InputError("%s: %s" % (path, e.strerror or e))
    except ValueError as e:
        raise InputError("%s: not JSON (%s)" % (path, e))
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise InputError("%s is not a %s document" % (path, SCHEMA))
    doc["_path"] = path
    return doc

# ---- what a record says ------------------------------------------------------


def fmt(v):
    """A value as the samples print it (no exponent, no trailing .0)."""
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        s = repr(v)
        if "e" in s or "E" in s:
            s = ("%.12f" % v).rstrip("0").rstrip(".")
        return s[:-2] if s.endswith(".0") else s
    return str(v)


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def figure(rec):
    """(key, value, unit text, higher_is_better) of the record's figure, or None."""
    for key, unit in (("gflops", "GFLOP/s"), ("gbps", "GB/s")):
        if is_num(rec.get(key)):
            return key, rec[key], unit, True
    for key, v in rec.items():
        if key.startswith("us_per_") and is_num(v):
            return key, v, "us/" + key[len("us_per_"):], False
    for key in ("overlap", "speedup"):
        if is_num(rec.get(key)):
            return key, rec[key], "x " + key, True
    return None


def figure_text(fig):
    key, v, unit, _ = fig
    return "%sx %s" % (fmt(v), key) if unit.startswith("x ") else "%s %s" % (fmt(v), unit)


def size_items(rec):
    """The size keys: those between variant and status."""
    keys = list(rec.keys())
    if "variant" not in keys or "status" not in keys:
        return []
    a, b = keys.index("variant"), keys.index("status")
    return [(k, rec[k]) for k in keys[a + 1:b]]


def size_text(rec):
    return " ".join("%s=%s" % (k, fmt(v)) for k, v in size_items(rec))


# ---- the headline ---------------------------------------------------------------

DECLARATION = "headline"
DECL_KEYS = ("case", "variant", "across", "why")


def parse_declaration(text, where="headline"):
    """The text of a <folder>/headline -> {"case": [(key, value)], "variant":
    str or None, "across": [key], "why": str}; InputError names the line."""
    found = {}
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition(":")
        key, value = key.strip(), value.strip()
        if not sep or key not in DECL_KEYS:
            raise InputError("%s:%d: want one of %s, then ':'" % (where, n, ", ".join(DECL_KEYS)))
        if key in found:
            raise InputError("%s:%d: '%s:' given twice" % (where, n, key))
        found[key] = (n, value)
    for key in ("case", "why"):
        if key not in found or (key == "why" and not found[key][1]):
            raise InputError("%s: needs a '%s:' line%s" % (where, key, " saying why" if key == "why" else ""))
    case = []
    for item in found["case"][1].split():
        k, sep, v = item.partition("=")
        if not sep or not k or not v:
            raise InputError("%s:%d: case: '%s' is not key=value" % (where, found["case"][0], item))
        case.append((k, v))
    variant = found.get("variant", (0, ""))[1] or None
    return {"case": case, "variant": variant, "across": found.get("across", (0, ""))[1].split(),
            "why": found["why"][1]}


def load_declaration(sample, root=ROOT):
    """The declaration of SAMPLE (None if its folder has no headline file)."""
    folder = sample_dirs(root).get(sample)
    if folder is None:
        return None
    path = os.path.join(root, folder, DECLARATION)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return parse_declaration(f.read(), os.path.relpath(path, root))


def matches(rec, pairs):
    return all(k in rec and fmt(rec[k]) == v for k, v in pairs)


def in_case(records, decl):
    """The records of the declared case, or all of them if none matches it."""
    if not decl or not decl["case"]:
        return records
    hit = [r for r in records if matches(r, decl["case"])]
    return hit or records


def best(cands):
    """The highest pct_ref, else (no reference measured) the best figure."""
    with_ref = [r for r in cands if is_num(r.get("pct_ref"))]
    if with_ref:
        return max(with_ref, key=lambda r: r["pct_ref"])
    key = most_common(figure(r)[0] for r in cands)
    same = [r for r in cands if figure(r)[0] == key]
    if figure(same[0])[3]:
        return max(same, key=lambda r: figure(r)[1])
    return min(same, key=lambda r: figure(r)[1])


def headline(records, decl=None):
    """The record that speaks for a sample (the rule is in the module comment)."""
    passed = in_case([r for r in records if r.get("status") == "PASS" and figure(r)], decl)
    if decl and decl["variant"]:
        mine = [r for r in passed if r.get("variant") == decl["variant"]]
        if mine:
            return best(mine)
    for r in passed:
        if r.get("headline") in (1, "1", "yes", True):
            return r
    cands = [r for r in passed
             if r.get("variant") != "cpu" and r.get("variant") != r.get("ref") and "role" not in r]
    return best(cands) if cands else None


def ref_text(rec):
    if is_num(rec.get("pct_ref")) and rec.get("ref"):
        return "%s%% of %s" % (fmt(rec["pct_ref"]), rec["ref"])
    return ""


def headline_text(rec):
    if rec is None:
        return "-"
    t = "%s %s" % (rec["variant"], figure_text(figure(rec)))
    r = ref_text(rec)
    return t + (" (%s)" % r if r else "")


def case_text(rec):
    """The headline's case: its size keys ("n=536870912 input=uniform bins=256")."""
    return size_text(rec) if rec is not None else ""


def range_text(rec, records, decl):
    """The same variant over the other values of the declared `across:` keys,
    lowest to highest: "120.7% (input=degenerate) to 199.5% (input=uniform) of
    cub"; "" when there is no other value."""
    if rec is None or not decl or not decl["across"]:
        return ""
    fixed = [(k, fmt(v)) for k, v in size_items(rec) if k not in decl["across"]]
    same = [r for r in records if r.get("status") == "PASS" and r.get("variant") == rec["variant"]
            and figure(r) and "role" not in r and matches(r, fixed)]
    if len(same) < 2:
        return ""
    label = lambda r: " ".join("%s=%s" % (k, fmt(r.get(k))) for k in decl["across"])   # noqa: E731
    if is_num(rec.get("pct_ref")) and all(is_num(r.get("pct_ref")) for r in same):
        value = lambda r: r["pct_ref"]                                          # noqa: E731
        show = lambda r: "%s%% (%s, %s)" % (fmt(r["pct_ref"]), figure_text(figure(r)), label(r))   # noqa: E731
        tail = " of %s" % rec["ref"]
    else:
        better_high = figure(rec)[3]
        value = lambda r: figure(r)[1] if better_high else -figure(r)[1]        # noqa: E731
        show = lambda r: "%s (%s)" % (figure_text(figure(r)), label(r))        # noqa: E731
        tail = ""
    lo, hi = min(same, key=value), max(same, key=value)
    return "%s to %s%s, over %d %s values" % (show(lo), show(hi), tail, len(same), "/".join(decl["across"]))


def headline_lines(records, decl):
    """(headline text, "case ...; range ...") of a sample's records."""
    rec = headline(records, decl)
    detail = case_text(rec)
    rng = range_text(rec, records, decl)
    if rng:
        detail += "; %s" % rng
    return headline_text(rec), detail

# ---- NVIDIA's own samples, as context ----------------------------------------


def nvidia_figures(root=ROOT):
    """Rows of results/nvidia_samples.tsv: gpu, sample, nvidia_sample, size,
    value, unit (gbps or gflops), source, date."""
    rows = []
    path = os.path.join(root, NVIDIA_FILE)
    if not os.path.exists(path):
        return rows
    cols = ("gpu", "sample", "nvidia_sample", "size", "value", "unit", "source", "date")
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            cells = line.split("\t")
            if len(cells) != len(cols):
                raise InputError("%s:%d: %d tab-separated columns, want %d (%s)"
                                 % (path, n, len(cells), len(cols), " ".join(cols)))
            row = dict(zip(cols, cells))
            row["value"] = parse_value(row["value"])
            if not is_num(row["value"]) or row["unit"] not in ("gbps", "gflops"):
                raise InputError("%s:%d: value must be a number and unit gbps or gflops" % (path, n))
            rows.append(row)
    return rows

# ---- tables --------------------------------------------------------------------


SHOWN = ("sample", "variant", "status", "time_ms", "pct_peak", "ref", "pct_ref")


def md_cell(text):
    return str(text).replace("|", "\\|")


def records_table(records, context=()):
    """A Markdown table of records (and NVIDIA context rows); columns that
    are empty in every row are left out."""
    head = ["variant", "size", "status", "time (ms, median)", "result", "% of peak",
            "vs reference", "details"]
    rows = []
    for r in records:
        fig = figure(r)
        sizes = set(k for k, _ in size_items(r))
        skip = set(SHOWN) | sizes | ({fig[0]} if fig else set())
        details = " ".join("%s=%s" % (k, fmt(v)) for k, v in r.items() if k not in skip)
        rows.append(["`%s`" % r.get("variant", "?"), size_text(r), fmt(r.get("status")),
                     fmt(r["time_ms"]) if "time_ms" in r else "",
                     figure_text(fig) if fig else "",
                     fmt(r["pct_peak"]) if "pct_peak" in r else "", ref_text(r), details])
    for c in context:
        unit = "GFLOP/s" if c["unit"] == "gflops" else "GB/s"
        rows.append(["NVIDIA's `%s` (context)" % c["nvidia_sample"], c["size"], "", "",
                     "%s %s" % (fmt(c["value"]), unit), "", "",
                     "%s, %s" % (c["source"], c["date"])])
    keep = [i for i in range(len(head)) if i == 0 or any(row[i] for row in rows)]
    out = ["| " + " | ".join(head[i] for i in keep) + " |",
           "|" + "---|" * len(keep)]
    for row in rows:
        out.append("| " + " | ".join(md_cell(row[i]) for i in keep) + " |")
    return out


def run_summary(run):
    """One paragraph for a run too long for a table (check sizes, a shmoo)."""
    recs = run["records"]
    status = collections.Counter(fmt(r.get("status")) for r in recs)
    variants = []
    for r in recs:
        if r.get("variant") not in variants:
            variants.append(r.get("variant"))
    sizes = collections.OrderedDict()
    for r in recs:
        for k, v in size_items(r):
            sizes.setdefault(k, [])
            if v not in sizes[k]:
                sizes[k].append(v)
    parts = []
    for k, vals in sizes.items():
        if len(vals) <= 12:
            parts.append("%s = %s" % (k, ", ".join(fmt(v) for v in vals)))
        else:
            nums = [v for v in vals if is_num(v)]
            span = " from %s to %s" % (fmt(min(nums)), fmt(max(nums))) if nums else ""
            parts.append("%s: %d values%s" % (k, len(vals), span))
    text = "%d records (%s); variants %s" % (
        len(recs), ", ".join("%d %s" % (n, s) for s, n in sorted(status.items())),
        ", ".join("`%s`" % v for v in variants))
    if parts:
        text += "; " + "; ".join(parts)
    return text + ". Every record is in results.json."


def run_provenance(run):
    bits = [run["date"] or "date unknown", "commit " + run["commit"] +
            {True: " (uncommitted changes)", None: " (tree state unknown)", False: ""}[run["dirty"]]]
    if run.get("seconds") is not None:
        bits.append("%s s" % fmt(run["seconds"]))
    bits.append("exit %s" % fmt(run["exit"]))
    if run.get("ran_on"):
        bits.append("ran on " + run["ran_on"])
    return ", ".join(bits)


def run_body(run, context=(), long_run=40):
    """A run as Markdown lines: a table, a summary, or its output."""
    if not run["records"]:
        return ["```"] + run["output"] + ["```"]
    if len(run["records"]) > long_run:
        return [run_summary(run)]
    return records_table(run["records"], context)


def default_run(doc, sample):
    for run in doc["runs"]:
        if run["sample"] == sample and run["args"] == "":
            return run
    return None


def context_rows(doc, sample, nvidia):
    return [c for c in nvidia if c["gpu"] == doc["gpu"] and c["sample"] == sample]


def readme_section(docs, sample, readme_dir, root, nvidia):
    """What goes between the markers of SAMPLE's README: per GPU, its default run."""
    out = []
    for doc in docs:
        run = default_run(doc, sample)
        if run is None:
            continue
        rel = os.path.relpath(os.path.join(root, os.path.dirname(doc["_rel"])), readme_dir)
        if out:
            out.append("")
        out.append("Measured on the %s by `make bench` (`%s`): driver %s, CUDA %s, %s. "
                   "Generated from [results.json](%s/results.json) by `tools/results_table.sh`; "
                   "do not edit." % (doc["gpu"], run["command"], doc["driver"], doc["cuda_toolkit"],
                                     run_provenance(run), rel))
        out.append("")
        out.extend(run_body(run, context_rows(doc, sample, nvidia)))
        others = [r for r in doc["runs"] if r["sample"] == sample and r["args"] != ""]
        if others:
            out.append("")
            out.append("Further runs (`bench.args`): %s, in [RESULTS.md](%s/RESULTS.md#%s)." % (
                ", ".join("`%s`" % r["args"] for r in others), rel, sample.lower()))
    return out


def replace_between_markers(text, lines):
    a, b = text.find(BEGIN), text.find(END)
    if a < 0 or b < a:
        return None
    body = "\n".join(lines)
    return text[:a + len(BEGIN)] + "\n" + (body + "\n" if body else "") + text[b:]


def load_docs(paths, root):
    docs = []
    for p in paths:
        doc = load(p)
        doc["_rel"] = os.path.relpath(os.path.abspath(p), root)
        docs.append(doc)
    return docs


def tables(paths, root=ROOT, check=False):
    """Regenerate (or, with check, verify) every sample README's results table."""
    if not paths:
        paths = sorted(glob.glob(os.path.join(root, "results", "*", "results.json")))
    docs = load_docs(paths, root)
    nvidia = nvidia_figures(root)
    stale = []
    for sample, folder in sorted(sample_dirs(root).items()):
        readme = os.path.join(root, folder, "README.md")
        if not os.path.exists(readme):
            continue
        with open(readme) as f:
            text = f.read()
        new = replace_between_markers(
            text, readme_section(docs, sample, os.path.join(root, folder), root, nvidia))
        if new is None or new == text:
            continue
        stale.append(os.path.relpath(readme, root))
        if not check:
            with open(readme, "w") as f:
                f.write(new)
            print("results table updated: %s" % os.path.relpath(readme, root))
    if check:
        for s in stale:
            print("results: %s: the table disagrees with results.json "
                  "(run tools/results_table.sh)" % s)
        return 1 if stale else 0
    return 0

# ---- RESULTS.md -------------------------------------------------------------


def clocks_text(clocks):
    if not clocks:
        return "not recorded"
    return ", ".join("%s %s" % (k, fmt(v)) for k, v in clocks.items())


def seconds_text(runs):
    secs = [r.get("seconds") for r in runs]
    if None in secs:
        return "time per run not recorded"
    return "%s s in all" % fmt(round(sum(secs), 1))


def device_text(doc):
    for d in doc.get("devices") or []:
        if d.get("name") == doc["gpu"]:
            peaks = []
            for key, unit in (("peak_memory_bandwidth_gbps", "GB/s memory"),
                              ("peak_fp32_gflops", "GFLOP/s FP32"),
                              ("peak_tf32_gflops", "GFLOP/s TF32 tensor"),
                              ("peak_bf16_gflops", "GFLOP/s BF16 tensor")):
                if is_num(d.get(key)):
                    peaks.append("%s %s" % (fmt(d[key]), unit))
            return ("CC %s (%s), %s SMs, SM clock %s MHz, memory clock %s MHz, bus %s bits; "
                    "theoretical peaks: %s" % (
                        d.get("compute_capability"), d.get("architecture"), d.get("sm_count"),
                        fmt(d["sm_clock_khz"] / 1000) if is_num(d.get("sm_clock_khz")) else "?",
                        fmt(d["memory_clock_khz"] / 1000) if is_num(d.get("memory_clock_khz")) else "?",
                        d.get("memory_bus_width_bits"), ", ".join(peaks) or "unknown"))
    return "not recorded (no deviceQuery.json)"


# Which charts a document has is a question about its records, answered here;
# tools/charts.py draws them (it imports this module, never the other way).
SHMOO_KEYS = ("bytes", "direction", "memory", "gbps")


def shmoo_runs(doc):
    """{sample: its run with the most shmoo records (at least 2 sizes)}: the
    records that carry bytes, direction, memory and gbps (bandwidthTest)."""
    best = {}
    for run in doc["runs"]:
        recs = [r for r in run["records"] if r.get("status") == "PASS"
                and all(r.get(k) is not None for k in SHMOO_KEYS)]
        if len(set(r["bytes"] for r in recs)) < 2:
            continue
        if run["sample"] not in best or len(recs) > len(best[run["sample"]][1]):
            best[run["sample"]] = (run, recs)
    return best


def chart_stems(doc):
    """The file stems tools/charts.py draws for a document: roofline, then <sample>_shmoo."""
    return ["roofline"] + ["%s_shmoo" % s for s in sorted(shmoo_runs(doc))]


def parallel_rows(runs):
    """A row saying how many runs tools/bench_gpus.sh made (several GPUs), if any."""
    n = sum(1 for r in runs if r.get("ran_on"))
    if not n:
        return []
    return ["| several GPUs | %d of %d runs made by `BENCH_JOBS=N make bench` (each run's "
            "`ran on` says where); one made \"at once\" with others on other GPUs shared the "
            "host's CPU, memory and PCIe with them, so compare its CPU baseline and host copies "
            "with a `BENCH_JOBS=1` run |" % (n, len(runs))]


def report(doc, root=ROOT):
    """RESULTS.md for one results document."""
    nvidia = nvidia_figures(root)
    dirty = {True: "yes", False: "no", None: "unknown"}[doc["dirty"]]
    out = ["# Benchmark results: %s" % doc["gpu"], "",
           "Generated by `tools/results.py report` from [results.json](results.json), "
           "which `make bench` writes; do not edit.", "",
           "| | |", "|---|---|",
           "| GPU | %s: %s |" % (doc["gpu"], device_text(doc)),
           "| driver | %s |" % doc["driver"],
           "| CUDA | toolkit (nvcc) %s, runtime %s |" % (doc["cuda_toolkit"], doc["runtime"] or "not recorded"),
           "| dates | %s to %s |" % (doc["date_first"], doc["date_last"]),
           "| commit | %s (all commits: %s); uncommitted changes: %s |" % (
               doc["commit"], ", ".join(doc["commits"]), dirty),
           "| command | `%s` (each run's own command below) |" % doc["command"],
           "| runs | %d runs, %d records, %s |" % (
               len(doc["runs"]), sum(len(r["records"]) for r in doc["runs"]), seconds_text(doc["runs"])),
           ] + parallel_rows(doc["runs"]) + [
           "| clocks before | %s |" % md_cell(clocks_text(doc["clocks"]["before"])),
           "| clocks after | %s |" % md_cell(clocks_text(doc["clocks"]["after"])),
           "", "## Headlines", "",
           "Each sample's case is declared in its folder's `headline` file (the rule is in "
           "`tools/results.py`); the range is the same variant over the sample's other inputs.", "",
           "| sample | headline | case | range | NVIDIA's own sample on this GPU |",
           "|---|---|---|---|---|"]
    samples = []
    for run in doc["runs"]:
        if run["sample"] not in samples:
            samples.append(run["sample"])
    for s in samples:
        run = default_run(doc, s)
        decl = load_declaration(s, root)
        rec = headline(run["records"], decl) if run else None
        rng = range_text(rec, run["records"], decl) if run else ""
        ctx = "; ".join("`%s` %s %s %s" % (c["nvidia_sample"], c["size"], fmt(c["value"]),
                                            "GFLOP/s" if c["unit"] == "gflops" else "GB/s")
                        for c in context_rows(doc, s, nvidia))
        out.append("| [%s](#%s) | %s | %s | %s | %s |" % (
            s, s.lower(), md_cell(headline_text(rec)), md_cell(case_text(rec) or "-"),
            md_cell(rng or "-"), md_cell(ctx or "-")))
    out += ["", "## Charts", ""]
    for stem in chart_stems(doc):
        out.append("![%s](%s.svg)" % (stem, stem))
        out.append("")
    out.append("Drawn by `tools/charts.py` (`make charts`) from results.json; PNG beside each SVG.")
    for s in samples:
        out += ["", "## %s" % s]
        for run in [r for r in doc["runs"] if r["sample"] == s]:
            out += ["", "`%s`: %s" % (run["command"], run_provenance(run)), ""]
            ctx = context_rows(doc, s, nvidia) if run["args"] == "" else ()
            out += run_body(run, ctx)
    return "\n".join(out) + "\n"


def write_or_check(path, text, check):
    old = open(path).read() if os.path.exists(path) else None
    if check:
        if old != text:
            print("results: %s disagrees with results.json (run tools/results.py report)" % path)
            return 1
        return 0
    if old != text:
        with open(path, "w") as f:
            f.write(text)
        print("written: %s" % path)
    return 0

# ---- compare ----------------------------------------------------------------


def record_keys(doc):
    """{(sample, args, variant, size): record} (a repeated key gets #2, #3 ...)."""
    out = collections.OrderedDict()
    for run in doc["runs"]:
        for r in run["records"]:
            key = (run["sample"], run["args"], r.get("variant", "?"), size_text(r))
            k, n = key, 1
            while k in out:
                n += 1
                k = key[:3] + ("%s #%d" % (key[3], n),)
            out[k] = r
    return out


def performance(rec):
    """(value, label, higher_is_better) to compare, or None."""
    fig = figure(rec)
    if fig:
        return fig[1], fig[2], fig[3]
    if is_num(rec.get("time_ms")):
        return rec["time_ms"], "ms", False
    return None


def compare(a, b, threshold):
    """Print the comparison; return the number of flagged regressions."""
    ka, kb = record_keys(a), record_keys(b)
    t = threshold / 100.0
    print("compare: A = %s (%s, driver %s, commit %s%s)" % (
        a["_path"], a["gpu"], a["driver"], a["commit"], ", dirty" if a["dirty"] else ""))
    print("         B = %s (%s, driver %s, commit %s%s)" % (
        b["_path"], b["gpu"], b["driver"], b["commit"], ", dirty" if b["dirty"] else ""))
    print("ratio = B's performance / A's (above 1: B is better; for times and us/... figures "
          "A / B); flagged beyond +-%s%%" % fmt(threshold))
    rows, regressions, better, worse, same = [], 0, 0, 0, 0
    for key, ra in ka.items():
        rb = kb.get(key)
        if rb is None:
            continue
        sample, args, variant, size = key
        pa, pb = performance(ra), performance(rb)
        sa, sb = ra.get("status"), rb.get("status")
        ratio, flag = None, ""
        if sa == "PASS" and sb not in ("PASS", None):
            flag = "REGRESSION (status %s)" % sb
            regressions += 1
        elif pa and pb and pa[1] == pb[1] and pa[0] and pb[0]:
            ratio = pb[0] / pa[0] if pa[2] else pa[0] / pb[0]
            if abs(ratio - 1) > t:
                if ratio > 1:
                    flag, better = "faster", better + 1
                elif variant == "cpu":
                    flag = "slower (CPU baseline: not gated)"
                else:
                    flag, worse, regressions = "REGRESSION", worse + 1, regressions + 1
            else:
                same += 1
        if ratio is None and not flag:
            continue   # a check record: same status, nothing timed
        rows.append((sample + (" " + args if args else ""), variant, size,
                     "%s %s" % (fmt(pa[0]), pa[1]) if pa else fmt(sa),
                     "%s %s" % (fmt(pb[0]), pb[1]) if pb else fmt(sb),
                     "%.3f" % ratio if ratio is not None else "-", flag))
    head = ("run", "variant", "size", "A", "B", "ratio", "flag")
    widths = [min(max([len(h)] + [len(r[i]) for r in rows]), 48) for i, h in enumerate(head)]
    for r in [head] + rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    only_a = [k for k in ka if k not in kb]
    only_b = [k for k in kb if k not in ka]
    for name, keys in (("only in A", only_a), ("only in B", only_b)):
        if keys:
            print("%s (%d): %s" % (name, len(keys), ", ".join(
                "%s/%s%s" % (k[0], k[2], " " + k[3] if k[3] else "") for k in keys[:20])
                + (" ..." if len(keys) > 20 else "")))
    print("compare: %d compared, %d within %s%%, %d faster, %d slower; %d flagged regression%s"
          % (same + better + worse, same, fmt(threshold), better, worse, regressions,
             "" if regressions == 1 else "s"))
    return regressions

# ---- command line -------------------------------------------------------------


def main(argv=None):
    p = argparse.ArgumentParser(prog="results.py", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("convert", help="run files -> DIR/results.json")
    c.add_argument("dir")
    c.add_argument("--out")
    r = sub.add_parser("report", help="results.json -> RESULTS.md beside it")
    r.add_argument("file")
    r.add_argument("--check", action="store_true")
    t = sub.add_parser("tables", help="sample READMEs' tables from results.json files")
    t.add_argument("files", nargs="*")
    t.add_argument("--check", action="store_true")
    t.add_argument("--root", default=ROOT)
    m = sub.add_parser("compare", help="A against B, ratio per record")
    m.add_argument("a")
    m.add_argument("b")
    m.add_argument("--threshold", type=float, default=5.0, help="percent (default 5)")
    h = sub.add_parser("headline", help="the headline of one sample's output: two lines, "
                       "the headline and its case (with the range over the other inputs)")
    h.add_argument("log")
    d = sub.add_parser("declarations", help="check every sample's headline file")
    for q in (c, r, h, d):
        q.add_argument("--root", default=ROOT)
    args = p.parse_args(argv)
    try:
        return run_command(p, args)
    except InputError as e:
        print("results: %s" % e, file=sys.stderr)
        return 2


def run_command(p, args):
    if args.cmd == "convert":
        doc = convert(args.dir, args.root)
        out = args.out or os.path.join(args.dir, "results.json")
        with open(out, "w") as f:
            f.write(dumps(doc))
        print("results: %s (%d runs, %d records)" % (
            out, len(doc["runs"]), sum(len(r["records"]) for r in doc["runs"])))
        return 0
    if args.cmd == "report":
        doc = load(args.file)
        return write_or_check(os.path.join(os.path.dirname(args.file), "RESULTS.md"),
                              report(doc, args.root), args.check)
    if args.cmd == "tables":
        return tables(args.files, args.root, args.check)
    if args.cmd == "compare":
        if args.threshold < 0:
            p.error("--threshold must be >= 0")
        return 1 if compare(load(args.a), load(args.b), args.threshold) else 0
    if args.cmd == "headline":
        try:
            with open(args.log, errors="replace") as f:
                records, _ = parse_output(f.read().splitlines())
        except OSError as e:
            raise InputError("%s: %s" % (args.log, e.strerror or e))
        sample = most_common(r.get("sample") for r in records)
        text, detail = headline_lines(records, load_declaration(sample, args.root) if sample else None)
        print(text)
        print(detail)
        return 0
    if args.cmd == "declarations":
        return check_declarations(args.root)
    return 2


def check_declarations(root=ROOT):
    """Every sample folder has a headline file that parses, and in each
    committed results.json the declared case and variant name a PASS record
    of the sample's default run. Prints each problem; 1 if any."""
    problems = []
    decls = {}
    for sample, folder in sorted(sample_dirs(root).items()):
        if folder.startswith("8_Debugging" + os.sep):
            continue                        # case studies: no headline, not in make run or bench
        try:
            decls[sample] = load_declaration(sample, root)
        except InputError as e:
            problems.append(str(e))
            continue
        if decls[sample] is None:
            problems.append("%s/%s: missing (every sample declares its headline's case)"
                            % (folder, DECLARATION))
    for path in sorted(glob.glob(os.path.join(root, "results", "*", "results.json"))):
        doc = load(path)
        for sample, decl in sorted(decls.items()):
            run = default_run(doc, sample)
            if decl is None or run is None:
                continue
            passed = [r for r in run["records"] if r.get("status") == "PASS" and figure(r)]
            where = "%s/%s" % (sample_dirs(root)[sample], DECLARATION)
            hit = [r for r in passed if matches(r, decl["case"])]
            if decl["case"] and not hit:
                problems.append("%s: case %s matches no PASS record of %s's default run in %s" % (
                    where, " ".join("%s=%s" % kv for kv in decl["case"]), sample,
                    os.path.relpath(path, root)))
            elif decl["variant"] and not any(r.get("variant") == decl["variant"] for r in hit):
                problems.append("%s: variant %s has no PASS record in the case in %s" % (
                    where, decl["variant"], os.path.relpath(path, root)))
            for k in decl["across"]:
                if not any(k in r for r in passed):
                    problems.append("%s: across %s: no record of %s carries that key in %s" % (
                        where, k, sample, os.path.relpath(path, root)))
    for msg in problems:
        print("results: %s" % msg)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
