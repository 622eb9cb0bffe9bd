#!/usr/bin/env python3
"""charts.py FILE...: the charts of each results.json, drawn with gnuplot as
SVG and PNG beside it (`make charts`; `make bench` calls it when gnuplot is
installed). Python 3 standard library only.

roofline.svg/.png: one point per variant of each sample's default run,
placed by arithmetic intensity (x, FLOP per byte) and achieved GFLOP/s (y),
labelled with the variant's name, coloured by sample. Ceilings:
  - memory bandwidth and FP32 from the device's attributes (deviceQuery's
    peak_memory_bandwidth_gbps and peak_fp32_gflops), and the dense TF32 and
    BF16 tensor-core peaks where the device table knows them;
  - the measured copy ceiling: the best cudaMemcpy device-to-device of the
    default runs (records with variant=memcpy_d2d or direction=d2d), as a
    second slope.
Where a record's work comes from: tools/roofline_work.tsv gives, per sample
(and optionally per key=value, e.g. type=float), the floating-point
operations and the DRAM bytes the algorithm must do, as expressions of the
record's own size keys (2*m*n*k; 12*n). The same count for every variant of
a sample: the chart compares variants of one algorithm at one intensity, as
GFLOP/s of a GEMM always counts 2mnk. Then
  x = flops / bytes,   y = flops / time_ms / 1e6.
A point is drawn only when the table's count agrees (within 1%) with the
sample's own figure (gbps = bytes / time, gflops = flops / time): a wrong
table line is refused, not drawn. Samples without a line (copies, launch
costs, integer work) are not on the roofline.

<sample>_shmoo.svg/.png: for each sample whose records carry bytes,
direction, memory and gbps (bandwidthTest), the run with the most such
records: bandwidth against transfer size, one line per direction and
memory kind, with each record's peak (peak=, peak_gbps=) as a horizontal line.
"""
import ast
import operator
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results as R  # noqa: E402

WORK_FILE = "tools/roofline_work.tsv"
W, H = 1200, 800                       # pixels, both terminals
LEFT, RIGHT, BOTTOM, TOP = 0.08, 0.97, 0.09, 0.92   # plot area, screen fractions
PLOT_W, PLOT_H = W * (RIGHT - LEFT), H * (TOP - BOTTOM)
FONT = "Helvetica,11"
LABEL_FONT_PT = 9
CHAR_W, LINE_H = 5.6, 12.0             # a 9-point label's character width and line height, pixels
COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2",
          "#17becf", "#7f7f7f", "#bcbd22")
POINT_TYPES = (7, 5, 9, 11, 13, 15)

# ---- the work of a record --------------------------------------------------------

_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
        ast.Div: operator.truediv, ast.Pow: operator.pow}


def evaluate(expr, rec):
    """An arithmetic expression over the record's numeric keys."""
    def ev(n):
        if isinstance(n, ast.Constant) and R.is_num(n.value):
            return n.value
        if isinstance(n, ast.Name):
            if not R.is_num(rec.get(n.id)):
                raise KeyError(n.id)
            return rec[n.id]
        if isinstance(n, ast.BinOp) and type(n.op) in _OPS:
            return _OPS[type(n.op)](ev(n.left), ev(n.right))
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            return -ev(n.operand)
        raise ValueError("%s: only numbers, keys, + - * / ** and parentheses" % expr)
    return ev(ast.parse(expr, mode="eval").body)


def load_work(root=R.ROOT):
    """Lines of tools/roofline_work.tsv: sample, when, flops, bytes, why."""
    rows = []
    path = os.path.join(root, WORK_FILE)
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            cells = line.split("\t")
            if len(cells) != 5:
                raise R.InputError("%s:%d: 5 tab-separated columns, want sample when flops bytes why"
                                 % (path, n))
            sample, when, flops, nbytes, why = cells
            cond = dict(c.split("=", 1) for c in when.split(",")) if when != "-" else {}
            for expr in (flops, nbytes):
                ast.parse(expr, mode="eval")      # a syntax error names the line now
            rows.append({"sample": sample, "when": cond, "flops": flops, "bytes": nbytes,
                         "why": why, "line": n})
    return rows


def work(sample, rec, table):
    """(flops, bytes) of a record from the first matching table line, or None."""
    for row in table:
        if row["sample"] != sample:
            continue
        if any(R.fmt(rec.get(k)) != v for k, v in row["when"].items()):
            continue
        try:
            return evaluate(row["flops"], rec), evaluate(row["bytes"], rec)
        except KeyError:
            return None
    return None

# ---- the roofline ----------------------------------------------------------------


def device_of(doc):
    for d in doc.get("devices") or []:
        if d.get("name") == doc["gpu"]:
            return d
    return None


def is_copy(rec):
    """A device-to-device cudaMemcpy: the copy ceiling, not a point."""
    return rec.get("variant") == "memcpy_d2d" or rec.get("direction") == "d2d"


def copy_ceiling(doc):
    """The best measured device-to-device copy of the default runs, or None."""
    best = None
    for run in doc["runs"]:
        if run["args"] != "":
            continue
        for r in run["records"]:
            if r.get("status") != "PASS" or not R.is_num(r.get("gbps")):
                continue
            if is_copy(r):
                if best is None or r["gbps"] > best["gbps"]:
                    best = {"gbps": r["gbps"], "sample": run["sample"],
                            "variant": r["variant"], "size": R.size_text(r)}
    return best


def roofline_data(doc, root=R.ROOT, warn=None):
    """Ceilings and points of the roofline (no drawing)."""
    table = load_work(root)
    dev = device_of(doc) or {}
    ceilings = []
    if R.is_num(dev.get("peak_memory_bandwidth_gbps")):
        ceilings.append(("bandwidth", dev["peak_memory_bandwidth_gbps"],
                         "memory peak %s GB/s (memory clock x 2 x bus width)"
                         % R.fmt(round(dev["peak_memory_bandwidth_gbps"]))))
    for key, name in (("peak_fp32_gflops", "FP32 peak"), ("peak_tf32_gflops", "TF32 tensor peak"),
                      ("peak_bf16_gflops", "BF16 tensor peak")):
        if R.is_num(dev.get(key)):
            ceilings.append(("compute", dev[key], "%s %s TFLOP/s" % (
                name, R.fmt(round(dev[key] / 1000, 1)))))
    copy = copy_ceiling(doc)
    if copy:
        ceilings.append(("copy", copy["gbps"], "measured copy %s GB/s (%s %s)" % (
            R.fmt(copy["gbps"]), copy["sample"], copy["variant"])))
    points = []
    for run in doc["runs"]:
        if run["args"] != "":
            continue
        for r in run["records"]:
            if (r.get("status") != "PASS" or r.get("variant") == "cpu" or is_copy(r)
                    or not R.is_num(r.get("time_ms"))):
                continue
            w = work(run["sample"], r, table)
            if w is None or w[0] <= 0 or w[1] <= 0:
                continue
            flops, nbytes = w
            secs = r["time_ms"] / 1e3
            own = [("gbps", nbytes / secs / 1e9), ("gflops", flops / secs / 1e9)]
            bad = [(k, v) for k, v in own if R.is_num(r.get(k)) and abs(v / r[k] - 1) > 0.01]
            if bad:
                if warn:
                    warn("roofline: %s/%s: tools/roofline_work.tsv gives %s %.4g, the sample "
                         "reports %s: not drawn" % (run["sample"], r["variant"], bad[0][0],
                                                   bad[0][1], R.fmt(r[bad[0][0]])))
                continue
            points.append({"sample": run["sample"], "variant": r["variant"],
                           "x": flops / nbytes, "y": flops / secs / 1e9})
    return {"ceilings": ceilings, "points": points}


def decade_range(lo, hi):
    import math
    return 10 ** math.floor(math.log10(lo)), 10 ** math.ceil(math.log10(hi))


def to_px(v, lo, hi, size):
    import math
    return (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo)) * size


def place_labels(points, obstacles=(), width=PLOT_W, height=PLOT_H):
    """Label boxes beside points, in pixels (origin bottom-left), none over
    another label, a point or an obstacle box. points: (px, py, text).
    Returns (x, y_centre, 'left'|'right', moved) per point."""
    marks = [(px - 4, py - 4, px + 4, py + 4) for px, py, _ in points]
    placed = list(obstacles)
    out = [None] * len(points)

    def free(box, own):
        x0, y0, x1, y1 = box
        if x0 < 0 or x1 > width or y0 < 0 or y1 > height:
            return False
        for j, m in enumerate(marks):
            if j != own and x0 < m[2] and m[0] < x1 and y0 < m[3] and m[1] < y1:
                return False
        return all(not (x0 < b[2] and b[0] < x1 and y0 < b[3] and b[1] < y1) for b in placed)

    for i in sorted(range(len(points)), key=lambda i: (-points[i][1], points[i][0])):
        px, py, text = points[i]
        w, h = len(text) * CHAR_W + 4, LINE_H
        choice = None
        for k in range(0, 80):
            for dy in ((0.0,) if k == 0 else (-k * h * 0.5, k * h * 0.5)):
                for side in ("left", "right"):   # text to the right of the point, or to its left
                    x0 = px + 7 if side == "left" else px - 7 - w
                    box = (x0, py + dy - h / 2, x0 + w, py + dy + h / 2)
                    if free(box, i):
                        choice = (box, side, dy)
                        break
                if choice:
                    break
            if choice:
                break
        if choice is None:                         # nowhere free: on its point, overlapping
            choice = ((px + 7, py - h / 2, px + 7 + w, py + h / 2), "left", 0.0)
        box, side, dy = choice
        placed.append(box)
        out[i] = (box[0] if side == "left" else box[2], py + dy, side, abs(dy) > h / 2)
    return out


def gp_string(s):
    return '"%s"' % s.replace("\\", "\\\\").replace('"', '\\"')


def terminals(stem):
    """gnuplot lines that draw the same plot as SVG, then PNG."""
    return [("set terminal svg size %d,%d noenhanced font %s background rgb 'white'" % (W, H, gp_string(FONT)),
             "set output %s" % gp_string(stem + ".svg")),
            ("set terminal pngcairo size %d,%d noenhanced font %s background rgb 'white'" % (W, H, gp_string(FONT)),
             "set output %s" % gp_string(stem + ".png"))]


def title_of(doc, what):
    return "%s: %s, driver %s, CUDA %s, commit %s%s, %s" % (
        what, doc["gpu"], doc["driver"], doc["cuda_toolkit"], doc["commit"],
        " (uncommitted changes)" if doc["dirty"] else "", (doc["date_last"] or "")[:10])


def roofline_script(doc, data, stem):
    """The gnuplot script of the roofline (draws stem.svg and stem.png)."""
    pts, ceil = data["points"], data["ceilings"]
    slopes = [v for k, v, _ in ceil if k in ("bandwidth", "copy")]
    peaks = [v for k, v, _ in ceil if k == "compute"]
    bw_max = max(slopes) if slopes else None
    xs = [p["x"] for p in pts] or [0.1]
    ys = [p["y"] for p in pts] or [1.0]
    ridge = [pk / bw_max for pk in peaks] if bw_max else []
    xlo, xhi = decade_range(min(xs + [0.1]) / 2, max(xs + ridge + [10.0]) * 2)
    ylo, yhi = decade_range(min(ys) / 2, max(ys + peaks + [10.0]) * 1.5)
    L = ["# roofline: drawn by tools/charts.py from %s" % doc.get("_rel", "results.json"),
         "set lmargin at screen %g; set rmargin at screen %g" % (LEFT, RIGHT),
         "set bmargin at screen %g; set tmargin at screen %g" % (BOTTOM, TOP),
         "set logscale xy", "set xrange [%g:%g]; set yrange [%g:%g]" % (xlo, xhi, ylo, yhi),
         "set format x '%g'; set format y '%g'",
         "set xlabel 'arithmetic intensity (FLOP per byte of DRAM traffic the algorithm must do)'",
         "set ylabel 'GFLOP/s achieved'",
         "set title %s" % gp_string(title_of(doc, "Roofline")),
         "set grid xtics ytics mxtics mytics lc rgb '#e0e0e0'",
         "set key top left Left reverse box opaque samplen 3 spacing 1.1 font ',10'",
         "set samples 2000"]
    plots = []
    styles = {"bandwidth": "lw 2.5 lc rgb '#000000'", "copy": "lw 2 dt 2 lc rgb '#666666'"}
    peak_styles = ["lw 2.5 lc rgb '#8b0000'", "lw 2 dt 4 lc rgb '#8b0000'", "lw 2 dt 3 lc rgb '#8b0000'"]
    top = max(peaks) if peaks else yhi
    pi = 0
    for kind, v, label in ceil:
        if kind in ("bandwidth", "copy"):
            plots.append("(%r*x <= %r ? %r*x : 1/0) with lines %s title %s"
                         % (v, top, v, styles[kind], gp_string(label)))
        else:
            start = v / bw_max if bw_max else xlo
            plots.append("(x >= %r ? %r : 1/0) with lines %s title %s"
                         % (start, v, peak_styles[min(pi, 2)], gp_string(label)))
            pi += 1
    samples = []
    for p in pts:
        if p["sample"] not in samples:
            samples.append(p["sample"])
    # labels: placed in pixels around the points, kept clear of the key (top left)
    titles = [label for _, _, label in ceil] + samples
    key_box = (0, PLOT_H - len(titles) * 15 - 16, max(len(t) for t in titles) * 6.5 + 70, PLOT_H) \
        if titles else (0, PLOT_H, 0, PLOT_H)
    px = [(to_px(p["x"], xlo, xhi, PLOT_W), to_px(p["y"], ylo, yhi, PLOT_H), p["variant"]) for p in pts]
    spots = place_labels(px, [key_box])
    for n, (p, (lx, ly, side, moved)) in enumerate(zip(px, spots)):
        color = COLORS[samples.index(pts[n]["sample"]) % len(COLORS)]
        L.append("set label %d %s at graph %.5f,%.5f %s font ',%d' textcolor rgb '%s'" % (
            n + 1, gp_string(p[2]), lx / PLOT_W, ly / PLOT_H, side, LABEL_FONT_PT, color))
        if moved:
            L.append("set arrow %d from graph %.5f,%.5f to graph %.5f,%.5f nohead lw 0.5 lc rgb '%s'" % (
                n + 1, p[0] / PLOT_W, p[1] / PLOT_H, (lx - 2 if side == "left" else lx + 2) / PLOT_W,
                ly / PLOT_H, color))
    for i, s in enumerate(samples):
        L.append("$%s << EOD" % ("S%d" % i))
        for p in pts:
            if p["sample"] == s:
                L.append("%.6g %.6g" % (p["x"], p["y"]))
        L.append("EOD")
        plots.append("$S%d using 1:2 with points pt %d ps 1.3 lc rgb '%s' title %s" % (
            i, POINT_TYPES[i % len(POINT_TYPES)], COLORS[i % len(COLORS)], gp_string(s)))
    if not plots:
        plots.append("1/0 notitle")
    for term, out in terminals(stem):
        L += [term, out, "plot " + ", \\\n     ".join(plots)]
    L.append("unset output")
    return "\n".join(L) + "\n"

# ---- the shmoo ---------------------------------------------------------------------

def size_label(b):
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= scale:
            return "%s %s" % (R.fmt(b / scale), unit)
    return "%d B" % b


def shmoo_script(doc, run, recs, stem):
    series = []
    for r in recs:
        k = (r["direction"], r["memory"])
        if k not in series:
            series.append(k)
    peaks = []
    for r in recs:
        if R.is_num(r.get("peak_gbps")) and (r.get("peak"), r["peak_gbps"]) not in peaks:
            peaks.append((r.get("peak"), r["peak_gbps"]))
    sizes = sorted(set(r["bytes"] for r in recs))
    gb = [r["gbps"] for r in recs] + [v for _, v in peaks]
    ylo, yhi = decade_range(max(min(gb), 1e-3) / 1.5, max(gb) * 1.5)
    tics, b = [], 1
    while b <= sizes[-1] * 4:
        if sizes[0] / 4 <= b:
            tics.append(b)
        b *= 4
    L = ["# %s shmoo: drawn by tools/charts.py from %s (%s)" % (
            run["sample"], doc.get("_rel", "results.json"), run["command"]),
         "set lmargin at screen %g; set rmargin at screen %g" % (LEFT, RIGHT),
         "set bmargin at screen %g; set tmargin at screen %g" % (BOTTOM, TOP),
         "set logscale x 2; set logscale y",
         "set xrange [%g:%g]; set yrange [%g:%g]" % (sizes[0] / 1.5, sizes[-1] * 1.5, ylo, yhi),
         "set xtics (%s)" % ", ".join("%s %d" % (gp_string(size_label(t)), t) for t in tics),
         "set format y '%g'",
         "set xlabel 'transfer size (bytes per copy)'", "set ylabel 'GB/s'",
         "set title %s" % gp_string(title_of(doc, "%s (%s)" % (run["sample"], run["command"]))),
         "set grid xtics ytics mytics lc rgb '#e0e0e0'",
         "set key bottom right box opaque font ',10'"]
    plots = []
    for i, (direction, memory) in enumerate(series):
        L.append("$D%d << EOD" % i)
        for r in sorted((r for r in recs if (r["direction"], r["memory"]) == (direction, memory)),
                        key=lambda r: r["bytes"]):
            L.append("%d %.6g" % (r["bytes"], r["gbps"]))
        L.append("EOD")
        plots.append("$D%d using 1:2 with linespoints pt %d ps 0.9 lw 2 lc rgb '%s' title %s" % (
            i, POINT_TYPES[i % len(POINT_TYPES)], COLORS[i % len(COLORS)],
            gp_string("%s, %s memory" % (direction, memory))))
    for name, v in peaks:
        plots.append("%r with lines dt 2 lw 1.5 lc rgb '#555555' title %s" % (
            v, gp_string("peak %s: %s GB/s" % (name, R.fmt(v)))))
    for term, out in terminals(stem):
        L += [term, out, "plot " + ", \\\n     ".join(plots)]
    L.append("unset output")
    return "\n".join(L) + "\n"

# ---- drawing -----------------------------------------------------------------------


def scripts(doc, root=R.ROOT, warn=None):
    """{stem: gnuplot script} for a document."""
    out = {"roofline": roofline_script(doc, roofline_data(doc, root, warn), "roofline")}
    for sample, (run, recs) in sorted(R.shmoo_runs(doc).items()):
        stem = "%s_shmoo" % sample
        out[stem] = shmoo_script(doc, run, recs, stem)
    return out


def draw(path, root=R.ROOT, keep=None):
    """Draw every chart of one results.json beside it; returns 0 or 1."""
    doc = R.load(path)
    doc["_rel"] = os.path.relpath(os.path.abspath(path), root)
    outdir = os.path.dirname(os.path.abspath(path))
    status = 0
    for stem, text in scripts(doc, root, warn=lambda m: print(m, file=sys.stderr)).items():
        with tempfile.NamedTemporaryFile("w", suffix=".gp", delete=False) as f:
            f.write(text)
            gp = f.name
        if keep:
            os.makedirs(keep, exist_ok=True)
            with open(os.path.join(keep, stem + ".gp"), "w") as f:
                f.write(text)
        p = subprocess.run(["gnuplot", gp], cwd=outdir, stderr=subprocess.PIPE,
                           universal_newlines=True)
        os.unlink(gp)
        if p.returncode != 0:
            print("charts: gnuplot failed on %s:\n%s" % (stem, p.stderr), file=sys.stderr)
            status = 1
            continue
        print("chart: %s/%s.svg and .png" % (os.path.relpath(outdir, root), stem))
    return status


def main(argv):
    import argparse
    p = argparse.ArgumentParser(prog="charts.py", description="roofline and shmoo charts "
                                "(exit 0 drawn, 1 gnuplot failed on a chart, 2 usage or input "
                                "error: no gnuplot, a missing or unreadable results.json)")
    p.add_argument("files", nargs="+", help="results.json files")
    p.add_argument("--root", default=R.ROOT)
    p.add_argument("--keep-scripts", metavar="DIR", help="also save the gnuplot scripts in DIR")
    args = p.parse_args(argv)
    if not shutil.which("gnuplot"):
        print("charts: gnuplot is not installed (Debian package gnuplot-nox; make charts installs "
              "it where it can): no chart drawn", file=sys.stderr)
        return 2
    status = 0
    try:
        for f in args.files:
            status |= draw(f, args.root, args.keep_scripts)
    except R.InputError as e:
        print("charts: %s" % e, file=sys.stderr)
        return 2
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
