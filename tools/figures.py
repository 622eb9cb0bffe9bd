#!/usr/bin/env python3
"""figures.py: the teaching diagrams of docs/figures/, drawn as SVG by this
script (Python's standard library only), so that each picture is text kept in
the repository and changes by review like code.

  python3 tools/figures.py            write every figure into docs/figures/
  python3 tools/figures.py --check    write nothing; exit 1 when a committed
                                      figure differs from what this script draws,
                                      is missing, or is not drawn here (make test)
  python3 tools/figures.py --out=DIR  write them into DIR instead

`make figures` runs the first form. The figures (the lessons link them):
  thread_indexing.svg        blocks, threads and the bounds check (firstKernel)
  smem_tiling.svg            matrixMul's shared-memory tiles
  reduction_tree.svg         a block's tree in shared memory, a warp's shuffles
  privatized_histogram.svg   per-block copies in shared memory, merged once
  pitch_roi.svg              width, pitch and a region of interest (blur)
  graph_replay.svg           stream launches against one graph launch (cudaGraphs)
  tc_datapath.svg            global -> shared -> registers -> tensor cores, by step (tensorCoreGemm)
  grid_stride.svg            one thread per element against a grid-stride loop of float4s (vectorAdd)
  last_block.svg             partials, fence, ticket: the last block sums (threadFenceReduction)
  stream_overlap.svg         kernels and copies on several streams (concurrentKernels)
  grid_sync.svg              a kernel boundary against grid.sync() (cooperativeGroups)
  pool_threshold.svg         cudaMalloc, a pool that releases, a pool that keeps (streamOrderedAllocation)
  peer_paths.svg             staged through the host or peer to peer (p2pBandwidthLatencyTest)
  pdl_overlap.svg            plain launches against programmatic dependent launch (programmaticDependentLaunch)
The output is deterministic (no dates, fixed number formatting), so --check
compares bytes. Diagrams only: no measured figure is drawn here (those come
from results/ through tools/charts.py).
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "docs", "figures")

# colours: one meaning each, the same in every figure
INK = "#1f2937"       # text and outlines
MUTED = "#6b7280"     # secondary text
THREAD = "#dbeafe"    # a thread, a lane, a live element
THREAD_EDGE = "#2563eb"
IDLE = "#f3f4f6"      # a thread with nothing to do
BAD = "#fee2e2"       # what must not happen (out of bounds, contention)
BAD_EDGE = "#dc2626"
SHARED = "#dcfce7"    # shared memory
SHARED_EDGE = "#16a34a"
GLOBAL = "#fef3c7"    # global memory
GLOBAL_EDGE = "#d97706"
CPU = "#ede9fe"       # host work
CPU_EDGE = "#7c3aed"
FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"
MONO = "DejaVu Sans Mono, Menlo, Consolas, monospace"


def num(v):
    """A coordinate as text: at most two decimals, no trailing zeros."""
    s = "%.2f" % v
    s = s.rstrip("0").rstrip(".")
    return "0" if s == "-0" else s


def esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class Svg:
    def __init__(self, w, h, title):
        self.w, self.h, self.title, self.items = w, h, title, []

    def rect(self, x, y, w, h, fill="#ffffff", stroke=INK, sw=1, rx=2, dash=None):
        d = ' stroke-dasharray="%s"' % dash if dash else ""
        self.items.append('<rect x="%s" y="%s" width="%s" height="%s" rx="%s" fill="%s" stroke="%s" '
                          'stroke-width="%s"%s/>' % (num(x), num(y), num(w), num(h), num(rx), fill, stroke,
                                                     num(sw), d))

    def heading(self, title, subtitle):
        """Every figure's first two lines: its title in bold, then one muted line."""
        self.text(20, 28, title, size=16, weight="bold")
        self.text(20, 48, subtitle, size=12, fill=MUTED)

    def text(self, x, y, s, size=13, anchor="start", weight="normal", fill=INK, mono=False, italic=False):
        style = ' font-style="italic"' if italic else ""
        self.items.append('<text x="%s" y="%s" font-family="%s" font-size="%s" text-anchor="%s" '
                          'font-weight="%s" fill="%s"%s>%s</text>'
                          % (num(x), num(y), MONO if mono else FONT, num(size), anchor, weight, fill,
                             style, esc(s)))

    def line(self, x1, y1, x2, y2, stroke=INK, sw=1.2, arrow=False, dash=None):
        d = ' stroke-dasharray="%s"' % dash if dash else ""
        m = ' marker-end="url(#arrow)"' if arrow else ""
        self.items.append('<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="%s"%s%s/>'
                          % (num(x1), num(y1), num(x2), num(y2), stroke, num(sw), d, m))

    def path(self, d, stroke=INK, sw=1.2, fill="none", arrow=False, dash=None):
        m = ' marker-end="url(#arrow)"' if arrow else ""
        ds = ' stroke-dasharray="%s"' % dash if dash else ""
        self.items.append('<path d="%s" stroke="%s" stroke-width="%s" fill="%s"%s%s/>'
                          % (d, stroke, num(sw), fill, ds, m))

    def brace(self, x1, x2, y, label, size=12, below=True, color=INK):
        """A bracket from x1 to x2 at y with a label under (or over) it."""
        t = 6 if below else -6
        self.path("M%s %s V%s H%s V%s" % (num(x1), num(y), num(y + t), num(x2), num(y)), stroke=color)
        self.text((x1 + x2) / 2, y + (t + 14 if below else t - 5), label, size=size, anchor="middle", fill=color)

    def render(self):
        head = ('<svg xmlns="http://www.w3.org/2000/svg" xml:space="preserve" width="%d" height="%d" viewBox="0 0 %d %d">\n'
                '<title>%s</title>\n'
                '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
                'markerHeight="7" orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z" fill="%s"/>'
                '</marker></defs>\n'
                '<rect x="0" y="0" width="%d" height="%d" fill="#ffffff"/>\n'
                % (self.w, self.h, self.w, self.h, esc(self.title), INK, self.w, self.h))
        return head + "\n".join(self.items) + "\n</svg>\n"


# ---- thread and block indexing (firstKernel) -----------------------------------

def thread_indexing():
    block, nblocks, n = 8, 4, 29
    cw, x0, gap = 19, 120, 14
    s = Svg(780, 340, "Thread and block indexing: i = blockIdx.x * blockDim.x + threadIdx.x")
    s.heading("Each thread finds its element: i = blockIdx.x * blockDim.x + threadIdx.x",
              "A grid of %d blocks of blockDim.x = %d threads for n = %d elements. The grid is rounded "
              "up to whole blocks," % (nblocks, block, n))
    s.text(20, 64, "so the last block has %d threads with no element." % (nblocks * block - n), size=12,
           fill=MUTED)
    s.text(x0 - 12, 120, "threadIdx.x", size=12, anchor="end", mono=True)
    ay = 210
    s.text(x0 - 12, ay + 15, "y[i]", size=12, anchor="end", mono=True)
    s.text(x0 - 12, ay + 31, "global memory", size=10, anchor="end", fill=MUTED)
    for b in range(nblocks):
        bx = x0 + b * (block * cw + gap)
        s.rect(bx - 4, 80, block * cw + 6, 54, fill="#ffffff", stroke=MUTED, dash="4 3", rx=4)
        s.text(bx + block * cw / 2, 97, "blockIdx.x = %d" % b, size=12, anchor="middle", weight="bold")
        for t in range(block):
            i = b * block + t
            live = i < n
            s.rect(bx + t * cw, 105, cw - 2, 22, fill=THREAD if live else BAD,
                   stroke=THREAD_EDGE if live else BAD_EDGE)
            s.text(bx + t * cw + (cw - 2) / 2, 120, str(t), size=10, anchor="middle", mono=True)
            s.rect(bx + t * cw, ay, cw - 2, 22, fill=GLOBAL if live else "#ffffff",
                   stroke=GLOBAL_EDGE if live else BAD_EDGE, dash=None if live else "3 2")
            s.text(bx + t * cw + (cw - 2) / 2, ay + 15, str(i), size=9, anchor="middle", mono=True,
                   fill=INK if live else BAD_EDGE)
            if t in (0, block - 1) or not live:
                s.line(bx + t * cw + (cw - 2) / 2, 129, bx + t * cw + (cw - 2) / 2, ay - 2,
                       stroke=THREAD_EDGE if live else BAD_EDGE, sw=0.9, arrow=True,
                       dash=None if live else "3 2")
    lastx = x0 + (nblocks - 1) * (block * cw + gap)
    endx = lastx + (n - (nblocks - 1) * block) * cw
    s.brace(x0, endx - 2, ay + 30, "n = %d elements: i = 0 .. n-1" % n, size=11)
    s.text(lastx + block * cw, ay + 50, "i >= n: past the end", size=11, anchor="end", fill=BAD_EDGE,
           weight="bold")
    ex_b, ex_t = 2, 5
    s.text(20, 296, "Thread %d of block %d: i = %d * %d + %d = %d." % (ex_t, ex_b, ex_b, block, ex_t,
                                                                       ex_b * block + ex_t), size=12)
    s.text(760, 296, "grid = (n + blockDim.x - 1) / blockDim.x = %d" % nblocks, size=12, anchor="end",
           mono=True)
    s.text(20, 322, "if (i < n) y[i] = a * x[i] + y[i];", size=13, mono=True)
    s.text(310, 322, "the bounds check: threads past the end write nothing", size=12, fill=MUTED)
    return s


# ---- matrixMul: shared-memory tiling --------------------------------------------

def smem_tiling():
    s = Svg(800, 420, "Shared-memory tiling: C = A * B, one block per tile of C")
    s.heading("Shared-memory tiling: one block computes one tile of C",
              "Each element of A and B the block needs comes from global memory once per block, and "
              "then TILE times")
    s.text(20, 64, "from shared memory: TILE times less global traffic than one thread per output reading "
           "its own row and column.", size=12, fill=MUTED)
    T = 26          # one tile, in pixels
    ax, ay, aw, ah = 40, 220, 4 * T, 5 * T
    bx, by, bw, bh = 180, 100, 6 * T, 4 * T
    cx, cy = bx, ay
    s.text(bx, by - 8, "B (K x N)", size=13, weight="bold")
    s.text(ax + aw / 2, ay + ah + 18, "A (M x K)", size=13, anchor="middle", weight="bold")
    s.text(cx + bw / 2, cy + ah + 18, "C (M x N)", size=13, anchor="middle", weight="bold")
    for (x, y, w, h) in ((ax, ay, aw, ah), (bx, by, bw, bh), (cx, cy, bw, ah)):
        s.rect(x, y, w, h, fill="#ffffff")
    ti, tj, k = 2, 3, 1   # the block's tile row and column, and the current step
    for kk in range(4):
        now = kk == k
        s.rect(ax + kk * T, ay + ti * T, T, T, fill=SHARED if now else GLOBAL,
               stroke=SHARED_EDGE if now else GLOBAL_EDGE, sw=2 if now else 1, rx=0)
        s.rect(bx + tj * T, by + kk * T, T, T, fill=SHARED if now else GLOBAL,
               stroke=SHARED_EDGE if now else GLOBAL_EDGE, sw=2 if now else 1, rx=0)
    s.text(ax + k * T + T / 2, ay + ti * T + T / 2 + 4, "k", size=11, anchor="middle", weight="bold",
           fill=SHARED_EDGE)
    s.text(bx + tj * T + T / 2, by + k * T + T / 2 + 4, "k", size=11, anchor="middle", weight="bold",
           fill=SHARED_EDGE)
    s.rect(cx + tj * T, cy + ti * T, T, T, fill=THREAD, stroke=THREAD_EDGE, sw=2, rx=0)
    s.text(cx + tj * T + T / 2, cy + ti * T + T / 2 + 4, "C", size=11, anchor="middle", weight="bold",
           fill=THREAD_EDGE)
    s.line(ax + aw + 4, ay + ti * T + T / 2, cx + tj * T - 4, cy + ti * T + T / 2, stroke=MUTED,
           dash="4 3", arrow=True)
    s.line(bx + tj * T + T / 2, by + bh + 4, cx + tj * T + T / 2, cy + ti * T - 4, stroke=MUTED,
           dash="4 3", arrow=True)
    s.text(40, 394, "yellow: A's row panel and B's column panel, walked", size=11, fill=MUTED)
    s.text(40, 410, "a tile at a time; green: step k's tiles", size=11, fill=MUTED)
    # shared memory and the loop
    px = 420
    s.rect(px, 84, 360, 110, fill=SHARED, stroke=SHARED_EDGE, rx=6)
    s.text(px + 12, 104, "shared memory of the block, step k", size=12, weight="bold", fill=SHARED_EDGE)
    for j, (nm, what) in enumerate((("As", "A's tile k"), ("Bs", "B's tile k"))):
        x = px + 16 + j * 175
        s.rect(x, 116, 60, 60, fill="#ffffff", stroke=SHARED_EDGE, sw=2)
        s.text(x + 30, 151, nm, size=14, anchor="middle", mono=True)
        s.text(x + 68, 142, "= " + what, size=11)
        s.text(x + 68, 158, "TILE x TILE", size=10, fill=MUTED)
    code = [
        "for (k = 0; k < K / TILE; k++) {",
        "    As[ty][tx] = A[row][k*TILE + tx];",
        "    Bs[ty][tx] = B[k*TILE + ty][col];",
        "    __syncthreads();  // both tiles loaded",
        "    for (j = 0; j < TILE; j++)",
        "        sum += As[ty][j] * Bs[j][tx];",
        "    __syncthreads();  // done reading them",
        "}",
        "C[row][col] = sum;   // thread (tx, ty)",
    ]
    for n, line in enumerate(code):
        s.text(px, 222 + n * 17, line, size=11.5, mono=True)
    s.text(px, 396, "One thread per element of C's tile; each loads one", size=11, fill=MUTED)
    s.text(px, 410, "element of As and of Bs per step.", size=11, fill=MUTED)
    return s


# ---- reduction: the tree in shared memory, the shuffles in a warp --------------------

def reduction_tree():
    s = Svg(840, 470, "Reduction: a tree in shared memory, then shuffles inside a warp")
    s.heading("Reduction: halve the active threads at each step",
              "Across a block the partial sums meet in shared memory, with a barrier per step; inside "
              "a warp they move between registers.")
    n = 16
    cw, x0, y0, dy = 20, 30, 100, 52
    s.text(x0, 76, "a block: shared memory, sequential addressing", size=12, weight="bold", fill=SHARED_EDGE)
    levels = [n]
    while levels[-1] > 1:
        levels.append(levels[-1] // 2)
    for L, width in enumerate(levels):
        y = y0 + L * dy
        for i in range(n):
            live = i < width
            s.rect(x0 + i * cw, y, cw - 3, 20, fill=SHARED if live else IDLE,
                   stroke=SHARED_EDGE if live else "#d1d5db")
        if L + 1 < len(levels):
            half = width // 2
            for i in range(half):
                xa = x0 + (i + half) * cw + (cw - 3) / 2
                xb = x0 + i * cw + (cw - 3) / 2
                s.line(xa, y + 21, xb + 2, y + dy - 2, stroke=THREAD_EDGE, sw=0.9, arrow=True)
                s.line(xb, y + 21, xb, y + dy - 2, stroke=THREAD_EDGE, sw=0.9)
            s.text(x0 + n * cw + 8, y + dy / 2 + 8, "s = %d" % half, size=11, mono=True)
            s.text(x0 + n * cw + 8, y + dy / 2 + 22, "__syncthreads()", size=10, mono=True, fill=MUTED)
    yb = y0 + (len(levels) - 1) * dy + 44
    s.text(x0, yb, "for (s = blockDim.x/2; s > 0; s >>= 1) {", size=11.5, mono=True)
    s.text(x0, yb + 16, "    if (tid < s) sm[tid] += sm[tid + s];", size=11.5, mono=True)
    s.text(x0, yb + 32, "    __syncthreads();", size=11.5, mono=True)
    s.text(x0, yb + 48, "}", size=11.5, mono=True)
    s.text(x0, yb + 68, "The active threads are always the first ones, so whole warps retire,", size=11,
           fill=MUTED)
    s.text(x0, yb + 82, "and neighbouring threads read neighbouring words: no bank conflicts.", size=11,
           fill=MUTED)
    lanes = 8
    lw, rx0, ry0 = 32, 500, 100
    s.text(rx0, 76, "a warp: registers, __shfl_down_sync", size=12, weight="bold", fill=THREAD_EDGE)
    s.text(rx0, 92, "(8 of its 32 lanes shown)", size=11, fill=MUTED)
    offs = [4, 2, 1]
    for L in range(len(offs) + 1):
        y = ry0 + 8 + L * 70
        for i in range(lanes):
            active = L == 0 or i < lanes >> L
            s.rect(rx0 + i * lw, y, lw - 6, 24, fill=THREAD if active else IDLE,
                   stroke=THREAD_EDGE if active else "#d1d5db")
            if L == 0:
                s.text(rx0 + i * lw + (lw - 6) / 2, y + 16, "v%d" % i, size=10, anchor="middle", mono=True)
        if L < len(offs):
            off = offs[L]
            for i in range(lanes >> (L + 1)):
                xa = rx0 + (i + off) * lw + (lw - 6) / 2
                xb = rx0 + i * lw + (lw - 6) / 2
                s.line(xa, y + 25, xb + 3, y + 68, stroke=THREAD_EDGE, sw=0.9, arrow=True)
                s.line(xb, y + 25, xb, y + 68, stroke=THREAD_EDGE, sw=0.9)
            s.text(rx0 + lanes * lw + 6, y + 50, "offset %d" % off, size=11, mono=True)
    yb = ry0 + 8 + 3 * 70 + 42
    s.text(rx0, yb, "lane 0 holds the warp's sum", size=11, fill=THREAD_EDGE, weight="bold")
    s.text(rx0, yb + 20, "for (o = 16; o > 0; o >>= 1)", size=11.5, mono=True)
    s.text(rx0, yb + 36, "    v += __shfl_down_sync(~0u, v, o);", size=11.5, mono=True)
    s.text(rx0, yb + 56, "No shared memory and no __syncthreads: the", size=11, fill=MUTED)
    s.text(rx0, yb + 70, "warp's lanes exchange registers in one step.", size=11, fill=MUTED)
    return s


# ---- histogram: privatized copies in shared memory ------------------------------------

def privatized_histogram():
    s = Svg(800, 430, "Privatized histogram: per-block copies in shared memory, merged once")
    s.heading("Privatized histogram: count into the block's own copy, merge once",
              "8 bins shown; the sample counts bytes into 256 (or 64).")
    s.text(20, 74, "input bytes (global memory), split among the blocks", size=12, weight="bold")
    nb, bw = 3, 230
    vals = [7, 2, 7, 7, 0, 5, 2, 7, 3, 7, 1, 7, 4, 2, 7, 6, 7, 0, 2, 7, 5, 7, 3, 7]
    per = len(vals) // nb
    cwid = (bw - 36) / 8
    for b in range(nb):
        x = 20 + b * (bw + 20)
        for j in range(per):
            s.rect(x + j * (bw / per), 82, bw / per - 2, 22, fill=GLOBAL, stroke=GLOBAL_EDGE)
            s.text(x + j * (bw / per) + (bw / per - 2) / 2, 98, str(vals[b * per + j]), size=11,
                   anchor="middle", mono=True)
        s.rect(x, 128, bw, 150, fill="#ffffff", stroke=MUTED, dash="4 3", rx=6)
        s.text(x + 10, 146, "block %d" % b, size=12, weight="bold")
        s.text(x + 10, 164, "atomicAdd(&priv[byte], 1)", size=11, mono=True, fill=SHARED_EDGE)
        s.rect(x + 10, 174, bw - 20, 94, fill=SHARED, stroke=SHARED_EDGE, rx=4)
        s.text(x + 16, 188, "priv[8]: shared memory", size=10, fill=SHARED_EDGE)
        counts = [0] * 8
        for v in vals[b * per:(b + 1) * per]:
            counts[v] += 1
        for k in range(8):
            h = counts[k] * 12
            s.rect(x + 18 + k * cwid, 248 - h, cwid - 4, max(h, 0.5), fill=THREAD, stroke=THREAD_EDGE, rx=0)
            s.text(x + 18 + k * cwid + (cwid - 4) / 2, 262, str(k), size=9, anchor="middle", mono=True,
                   fill=MUTED)
        s.line(x + bw / 2, 105, x + bw / 2, 126, stroke=GLOBAL_EDGE, arrow=True)
        s.line(x + bw / 2, 280, 220 + (b - 1) * 70, 318, stroke=SHARED_EDGE, arrow=True)
    s.rect(40, 320, 360, 74, fill=GLOBAL, stroke=GLOBAL_EDGE, rx=4)
    s.text(50, 336, "hist[8]: global memory", size=10, fill=GLOBAL_EDGE)
    total = [0] * 8
    for v in vals:
        total[v] += 1
    gw = 340 / 8
    for k in range(8):
        h = total[k] * 3.5
        s.rect(50 + k * gw, 376 - h, gw - 8, h, fill=THREAD, stroke=THREAD_EDGE, rx=0)
        s.text(50 + k * gw + (gw - 8) / 2, 389, str(k), size=9, anchor="middle", mono=True, fill=MUTED)
    s.text(430, 336, "after __syncthreads(), each block adds its copy:", size=11)
    s.text(430, 354, "atomicAdd(&hist[k], priv[k])", size=11.5, mono=True)
    s.text(430, 372, "one atomic per bin per block, not per byte", size=11, fill=MUTED)
    s.text(20, 420, "Without the copies every byte is an atomic on global memory, and equal bytes (here: "
           "the many 7s) queue on one counter.", size=12, fill=BAD_EDGE)
    return s


# ---- blur: width, pitch and a region of interest ----------------------------------------

def pitch_roi():
    s = Svg(800, 390, "Pitch, width and a region of interest")
    s.heading("A pitched image and a region of interest (ROI)",
              "Rows start pitch bytes apart, not width * 4: the allocation pads each row. The ROI is a "
              "window at (x0, y0).")
    cw, ch = 24, 24
    cols, pad, rows = 14, 4, 8
    x0, y0 = 70, 96
    rx, ry, rw, rh = 3, 2, 7, 4      # the ROI: x0, y0, width, height in pixels
    for r in range(rows):
        for c in range(cols + pad):
            inside = c < cols
            roi = rx <= c < rx + rw and ry <= r < ry + rh
            fill = THREAD if roi else (GLOBAL if inside else IDLE)
            stroke = THREAD_EDGE if roi else (GLOBAL_EDGE if inside else "#d1d5db")
            s.rect(x0 + c * cw, y0 + r * ch, cw - 2, ch - 2, fill=fill, stroke=stroke, sw=0.8, rx=1)
    s.rect(x0 + rx * cw - 2, y0 + ry * ch - 2, rw * cw + 2, rh * ch + 2, fill="none", stroke=THREAD_EDGE,
           sw=2.2, rx=2)
    s.rect(x0 + (rx + 2) * cw + 4, y0 + (ry + 1) * ch + 6, 3 * cw - 10, ch * 2 - 14, fill="#ffffff",
           stroke=THREAD_EDGE, rx=3)
    s.text(x0 + (rx + 3.5) * cw - 3, y0 + (ry + 2) * ch + 3, "ROI", size=13, anchor="middle",
           weight="bold", fill=THREAD_EDGE)
    s.brace(x0, x0 + cols * cw - 2, y0 + rows * ch + 4, "image width: the pixels of a row")
    s.brace(x0, x0 + (cols + pad) * cw - 2, y0 + rows * ch + 36,
            "pitch: the bytes from one row's start to the next (cudaMallocPitch picks it)", color=GLOBAL_EDGE)
    s.text(x0 + cols * cw + pad * cw / 2, y0 - 8, "padding", size=11, anchor="middle", fill=MUTED)
    s.brace(x0 + rx * cw, x0 + (rx + rw) * cw - 2, y0 - 6, "ROI width", below=False, color=THREAD_EDGE)
    s.brace(x0, x0 + rx * cw - 4, y0 - 6, "x0", below=False, color=THREAD_EDGE)
    for r in range(rows):
        s.text(x0 - 8, y0 + r * ch + 16, "row %d" % r, size=10, anchor="end", fill=MUTED, mono=True)
    s.text(8, y0 + ry * ch + 10, "y0", size=11, fill=THREAD_EDGE, weight="bold")
    s.path("M%s %s H%s" % (num(8), num(y0 + ry * ch - 1), num(x0 - 2)), stroke=THREAD_EDGE, dash="3 2")
    tx = 540
    lines = [
        ("row y of the image starts at byte", False),
        ("y * pitch", True),
        ("", False),
        ("pixel (x, y) of the ROI is at byte", False),
        ("(y0 + y) * pitch + (x0 + x) * 4", True),
        ("", False),
        ("in C, with a float *img:", False),
        ("((float *)((char *)img", True),
        ("    + (y0 + y) * pitch))[x0 + x]", True),
        ("", False),
        ("(y0 + y) * width * 4 is wrong: it", False),
        ("drops the padding of every row above", False),
        ("(8_Debugging/blurPitch is that bug)", False),
    ]
    for n, (t, mono) in enumerate(lines):
        s.text(tx, y0 + 4 + n * 16, t, size=11.5, mono=mono,
               fill=INK if mono else (BAD_EDGE if n >= 10 else MUTED))
    return s


# ---- cudaGraphs: stream launches against a graph launch ----------------------------------

def graph_replay():
    s = Svg(800, 336, "Graph replay against stream launches")
    s.heading("Many tiny kernels: launched one by one, or replayed as one graph",
              "Schematic, not to scale: the measured times are in 6_Advanced/cudaGraphs/README.md.")
    k = 6
    lx = 150

    def lanes(y, title):
        s.text(20, y - 10, title, size=13, weight="bold")
        s.text(lx - 10, y + 18, "CPU", size=12, anchor="end", fill=CPU_EDGE)
        s.text(lx - 10, y + 58, "GPU", size=12, anchor="end", fill=THREAD_EDGE)
        s.line(lx, y + 36, 780, y + 36, stroke="#e5e7eb")

    # stream launches
    y = 90
    lanes(y, "stream launches: the CPU pays for every launch, the GPU waits in between")
    launch_w, kern_w, lat = 52, 26, 30
    for i in range(k):
        cx = lx + i * (launch_w + 4)
        s.rect(cx, y + 4, launch_w, 24, fill=CPU, stroke=CPU_EDGE)
        s.text(cx + launch_w / 2, y + 20, "launch", size=10, anchor="middle")
        gx = cx + lat + launch_w - 20
        s.rect(gx, y + 44, kern_w, 24, fill=THREAD, stroke=THREAD_EDGE)
        s.text(gx + kern_w / 2, y + 60, "k%d" % i, size=10, anchor="middle", mono=True)
        s.line(cx + launch_w / 2, y + 29, gx + kern_w / 2, y + 42, stroke=MUTED, sw=0.8, arrow=True)
    s.text(lx + k * (launch_w + 4) + 12, y + 20, "kernel<<<...>>>() x %d" % k, size=11, mono=True)
    s.text(lx + k * (launch_w + 4) + 48, y + 60, "the GPU idles between kernels", size=11, fill=BAD_EDGE)
    # graph
    y = 210
    lanes(y, "graph: captured once, then one cudaGraphLaunch replays every kernel")
    s.rect(lx, y + 4, 70, 24, fill=CPU, stroke=CPU_EDGE)
    s.text(lx + 35, y + 20, "1 launch", size=10, anchor="middle")
    gx = lx + 70 + 10
    for i in range(k):
        s.rect(gx + i * (kern_w + 3), y + 44, kern_w, 24, fill=THREAD, stroke=THREAD_EDGE)
        s.text(gx + i * (kern_w + 3) + kern_w / 2, y + 60, "k%d" % i, size=10, anchor="middle", mono=True)
    s.line(lx + 35, y + 29, gx + kern_w / 2, y + 42, stroke=MUTED, sw=0.8, arrow=True)
    s.text(gx + k * (kern_w + 3) + 12, y + 60, "back to back: the work submitted as one", size=11,
           fill=SHARED_EDGE)
    s.text(lx + 90, y + 20, "cudaGraphLaunch(exec, stream)", size=11, mono=True)
    s.line(lx, 300, 400, 300, stroke=MUTED, arrow=True)
    s.text(410, 304, "time", size=11, fill=MUTED)
    s.text(20, 322, "cudaStreamBeginCapture ... cudaStreamEndCapture records the launches once; "
           "cudaGraphInstantiate makes them replayable.", size=12, fill=MUTED)
    return s


# ---- the tensor-core data path (tensorCoreGemm) ------------------------------

def tc_datapath():
    """Global memory -> shared memory -> registers -> tensor cores, for the
    four groups of tensorCoreGemm's steps, and what each one removes."""
    s = Svg(1040, 560, "tensorCoreGemm: the data path from global memory to the tensor cores, step by step")
    s.heading("Feeding the tensor cores: global memory -> shared memory -> (registers) -> tensor cores",
              "Each row is a group of steps; an arrow is one hop of A and B, labelled with the "
              "instruction that makes it and who issues it.")
    # the columns: where the operands are
    cols = [("global memory", "A, B in BF16 (via L2)", GLOBAL, GLOBAL_EDGE),
            ("registers", "a thread's 16-byte chunk", THREAD, THREAD_EDGE),
            ("shared memory", "a ring of stages", SHARED, SHARED_EDGE),
            ("registers", "fragments of A and B", THREAD, THREAD_EDGE),
            ("tensor cores", "FP32 sums in registers", CPU, CPU_EDGE)]
    xs = [150, 327, 504, 681, 858]
    w = 160
    for (name, sub, fill, edge), x in zip(cols, xs):
        s.rect(x, 66, w, 44, fill=fill, stroke=edge, rx=5)
        s.text(x + w / 2, 85, name, size=13, anchor="middle", weight="bold")
        s.text(x + w / 2, 101, sub, size=10, anchor="middle", fill=MUTED)
        s.line(x + w / 2, 112, x + w / 2, 512, stroke=edge, sw=0.8, dash="3 4")

    def hop(row_y, c1, c2, label, subs=(), color=INK):
        x1, x2 = xs[c1] + w / 2 + 6, xs[c2] + w / 2 - 6
        s.line(x1, row_y, x2, row_y, stroke=color, sw=2, arrow=True)
        s.text((x1 + x2) / 2, row_y - 7, label, size=11, anchor="middle", mono=True, fill=color)
        for k, sub in enumerate(subs):
            s.text((x1 + x2) / 2, row_y + 15 + 14 * k, sub, size=10, anchor="middle", fill=MUTED)

    rows = [(150, "steps 1-4", "wmma,", "mma_ldmatrix*"),
            (245, "steps 5-6", "mma_cpasync*", ""),
            (340, "step 7", "mma_tma", ""),
            (435, "steps 8-16", "wgmma_tma*,", "wgmma_ws_*")]
    for y, steps, n1, n2 in rows:
        s.rect(12, y - 30, 1016, 84, fill="none", stroke=MUTED, sw=0.6, rx=6, dash="2 3")
        s.text(22, y - 10, steps, size=12, weight="bold")
        s.text(22, y + 6, n1, size=10, fill=MUTED, mono=True)
        s.text(22, y + 20, n2, size=10, fill=MUTED, mono=True)
    # steps 1-4: through registers both ways, one barrier per step
    hop(150, 0, 1, "ld.global.v4", ("every thread,", "its own addresses"))
    hop(150, 1, 2, "st.shared", ("then __syncthreads",))
    hop(150, 2, 3, "ldmatrix", ("padded, then", "swizzled rows"))
    hop(150, 3, 4, "mma.sync", ("m16n8k16,", "one warp"))
    # steps 5-6: cp.async skips the registers, the ring overlaps loads and math
    hop(245, 0, 2, "cp.async (16 bytes)", ("every thread, no register hop;", "2 or 3 stages in flight"))
    hop(245, 2, 3, "ldmatrix")
    hop(245, 3, 4, "mma.sync")
    # step 7: TMA
    hop(340, 0, 2, "cp.async.bulk.tensor (TMA)", ("one thread, a whole box; swizzle and", "bounds in hardware; bytes on an mbarrier"),
        color=THREAD_EDGE)
    hop(340, 2, 3, "ldmatrix")
    hop(340, 3, 4, "mma.sync")
    # steps 8-16: TMA and wgmma
    hop(435, 0, 2, "TMA", ("a producer warpgroup from step 12;", "full/empty mbarriers from step 11"),
        color=THREAD_EDGE)
    hop(435, 2, 4, "wgmma.mma_async (m64nNk16)", ("a warpgroup; A and B read from shared memory by descriptor:",
                                                  "no ldmatrix, no operand registers; the next group queued"),
        color=THREAD_EDGE)
    s.text(20, 530, "What each group removes: cp.async, the register hop and the wait for each load; TMA, "
           "the per-thread copies and their addresses; wgmma, the fragment loads", size=11)
    s.text(20, 546, "and mma.sync's rate; mbarriers and a producer warpgroup, the block-wide barrier; "
           "setmaxnreg, the producer's unused registers (for 64 x 256 per consumer).", size=11)
    return s


# ---- vectorAdd: one thread per element against a grid-stride loop of float4s ------------

def grid_stride():
    s = Svg(820, 380, "One thread per element against a grid-stride loop of 16-byte loads")
    s.heading("From one thread per element to a grid-stride loop of float4s",
              "n = 26 elements. Schematic: on the GPU the blocks have 256 threads and the grid-stride "
              "grid fills every SM once.")
    n, cw, x0 = 26, 21, 110
    # naive: one thread per element, blocks of 8, the grid rounded up
    y = 96
    s.text(20, y - 16, "naive: one thread per element, blocks of 8 threads", size=13, weight="bold")
    s.text(x0 - 10, y + 16, "c[i]", size=12, anchor="end", mono=True)
    for i in range(32):
        live = i < n
        s.rect(x0 + i * cw, y, cw - 2, 22, fill=THREAD if live else BAD,
               stroke=THREAD_EDGE if live else BAD_EDGE, dash=None if live else "3 2")
        s.text(x0 + i * cw + (cw - 2) / 2, y + 15, "t%d" % i if live else "-", size=8.5, anchor="middle",
               mono=True, fill=INK if live else BAD_EDGE)
    for b in range(4):
        s.brace(x0 + b * 8 * cw, x0 + (b + 1) * 8 * cw - 4, y + 26, "block %d" % b, size=11)
    s.text(20, y + 70, "26 threads, each loads 4 bytes of a and 4 of b once and exits; the 6 threads past "
           "the end are stopped by if (i < n).", size=11.5, fill=MUTED)
    # grid-stride float4: 4 threads, float4 groups, rounds
    y = 220
    s.text(20, y - 16, "grid_stride_float4: a fixed grid of 4 threads, one float4 (4 elements) each per "
           "round", size=13, weight="bold")
    s.text(x0 - 10, y + 16, "c[i]", size=12, anchor="end", mono=True)
    colours = [(THREAD, THREAD_EDGE), (SHARED, SHARED_EDGE), (GLOBAL, GLOBAL_EDGE), (CPU, CPU_EDGE)]
    nthreads, n4 = 4, n // 4
    for i in range(n):
        g = i // 4
        t = g % nthreads if g < n4 else i - 4 * n4
        fill, edge = colours[t]
        s.rect(x0 + i * cw, y, cw - 2, 22, fill=fill, stroke=edge)
        s.text(x0 + i * cw + (cw - 2) / 2, y + 15, str(i), size=8.5, anchor="middle", mono=True)
    for g in range(n4):
        t, r = g % nthreads, g // nthreads + 1
        s.brace(x0 + 4 * g * cw, x0 + 4 * (g + 1) * cw - 4, y + 26, "t%d, round %d" % (t, r), size=10.5,
                color=colours[t][1])
    s.brace(x0 + 4 * n4 * cw, x0 + n * cw - 4, y + 26, "tail", size=10.5)
    s.text(x0 + n * cw + 10, y + 12, "t0, t1:", size=10.5, fill=MUTED)
    s.text(x0 + n * cw + 10, y + 26, "one by one", size=10.5, fill=MUTED)
    s.text(20, y + 78, "Each load moves 16 bytes per thread (512 contiguous bytes per warp): a quarter of the "
           "load and store instructions.", size=11.5, fill=MUTED)
    s.text(20, y + 96, "Neighbouring threads still take neighbouring float4s in every round, so each round "
           "is one contiguous sweep.", size=11.5, fill=MUTED)
    s.text(20, y + 124, "for (i = tid; i < n / 4; i += gridDim.x * blockDim.x) c4[i] = a4[i] + b4[i];",
           size=12, mono=True)
    s.text(20, y + 142, "for (i = 4 * (n / 4) + tid; i < n; i += gridDim.x * blockDim.x) c[i] = a[i] + b[i];",
           size=12, mono=True)
    return s


# ---- threadFenceReduction: the last block to finish sums -------------------------------------

def last_block():
    s = Svg(840, 470, "One launch, one sum: the block that draws the last ticket adds the partial sums")
    s.heading("One launch, one sum: whoever finishes last adds the partial sums",
              "A grid of 4 blocks. Blocks finish in any order and never wait for each other; the "
              "ticket tells each one whether it was the last.")
    x0, t0 = 150, 160
    ends = [350, 470, 300, 410]           # when each block's own sum is done
    order = sorted(range(4), key=lambda b: ends[b])
    ticket = {b: k for k, b in enumerate(order)}
    s.text(t0, 76, "each block: sum its share (thread_sum, block_sum)", size=11, fill=MUTED)
    for b in range(4):
        y = 90 + b * 46
        s.text(x0 - 12, y + 17, "block %d" % b, size=12, anchor="end", weight="bold")
        s.rect(t0, y, ends[b] - t0, 24, fill=THREAD, stroke=THREAD_EDGE)
        # publish, fence, ticket
        s.rect(ends[b] + 4, y, 22, 24, fill=GLOBAL, stroke=GLOBAL_EDGE)
        s.text(ends[b] + 15, y + 16, "P", size=11, anchor="middle", weight="bold")
        s.line(ends[b] + 31, y - 3, ends[b] + 31, y + 27, stroke=BAD_EDGE, sw=2)
        last = ticket[b] == 3
        s.rect(ends[b] + 36, y, 62, 24, fill=SHARED if last else "#ffffff", stroke=SHARED_EDGE if last else INK)
        s.text(ends[b] + 67, y + 16, "ticket %d" % ticket[b], size=11, anchor="middle", mono=True)
        if last:
            s.rect(ends[b] + 104, y, 200, 24, fill=SHARED, stroke=SHARED_EDGE)
            s.text(ends[b] + 204, y + 16, "sum partials[0..3], *out = sum", size=11, anchor="middle")
        else:
            s.text(ends[b] + 106, y + 16, "not last: done", size=11, fill=MUTED)
    s.line(t0, 278, 800, 278, stroke=MUTED, arrow=True)
    s.text(806, 282, "time", size=11, fill=MUTED)
    # legend of the three steps
    ly = 302
    s.rect(20, ly, 22, 20, fill=GLOBAL, stroke=GLOBAL_EDGE)
    s.text(31, ly + 15, "P", size=11, anchor="middle", weight="bold")
    s.text(50, ly + 15, "thread 0 stores the block's sum: partials[blockIdx.x] = v", size=11.5, mono=True)
    s.line(31, ly + 28, 31, ly + 50, stroke=BAD_EDGE, sw=2)
    s.text(50, ly + 44, "__threadfence(): that store is visible to every SM before anything after it",
           size=11.5, mono=True)
    s.rect(20, ly + 56, 22, 20, fill="#ffffff", stroke=INK)
    s.text(50, ly + 71, "ticket = atomicAdd(&retired, 1): 0, 1, 2, ... in the order the blocks get there",
           size=11.5, mono=True)
    s.rect(20, ly + 84, 22, 20, fill=SHARED, stroke=SHARED_EDGE)
    s.text(50, ly + 99, "ticket == gridDim.x - 1: every other partial is already visible; sum them, "
           "then retired = 0", size=11.5, mono=True)
    s.text(20, ly + 130, "Without the fence the ticket could be seen before the partial: the last block "
           "would add a value not yet written.", size=12, fill=BAD_EDGE)
    s.text(20, ly + 150, "No block waits, so the grid may be larger than what fits on the GPU at once "
           "(unlike a grid-wide barrier).", size=12, fill=MUTED)
    return s


# ---- concurrentKernels: work on several streams overlapping ------------------------------------

def stream_overlap():
    s = Svg(840, 560, "Streams: kernels beside kernels, and copies beside compute")
    s.heading("Streams: work on different streams may run at the same time",
              "Schematic, not to scale: the measured times are in 6_Advanced/concurrentKernels/README.md.")
    # part one: kernels
    x0 = 190
    s.text(20, 80, "Part one: 4 small kernels", size=13, weight="bold")
    s.text(20, 104, "one stream", size=12)
    s.text(20, 120, "(kernels_serial)", size=11, fill=MUTED, mono=True)
    for k in range(4):
        x = x0 + k * 92
        s.rect(x, 90 + k * 12, 86, 11, fill=THREAD, stroke=THREAD_EDGE, rx=1)
        s.text(x + 43, 99 + k * 12, "k%d" % k, size=9, anchor="middle", mono=True)
    s.text(x0 + 4 * 92 + 10, 112, "a staircase: each waits for the one before", size=11, fill=MUTED)
    s.text(20, 170, "4 streams", size=12)
    s.text(20, 186, "(kernels_concurrent)", size=11, fill=MUTED, mono=True)
    for k in range(4):
        x = x0 + k * 6
        s.rect(x, 156 + k * 12, 86, 11, fill=THREAD, stroke=THREAD_EDGE, rx=1)
        s.text(x + 43, 165 + k * 12, "k%d" % k, size=9, anchor="middle", mono=True)
    s.text(x0 + 130, 178, "a stack: the SMs have room for all four; each starts a launch later",
           size=11, fill=MUTED)
    # part two: copies and compute
    s.text(20, 236, "Part two: copy in, transform, copy out", size=13, weight="bold")
    lanes = [("copy engine, in", GLOBAL, GLOBAL_EDGE), ("SMs", THREAD, THREAD_EDGE),
             ("copy engine, out", CPU, CPU_EDGE)]
    h, k_w, d = 160, 56, 150          # stage lengths: copy in, transform, copy out

    def timeline(y, title, sub, chunks):
        s.text(20, y - 8, title, size=12, weight="bold")
        s.text(20, y + 8, sub, size=11, fill=MUTED, mono=True)
        for r, (name, fill, edge) in enumerate(lanes):
            s.text(x0 - 10, y + 28 + r * 26, name, size=11, anchor="end", fill=edge)
            s.line(x0, y + 34 + r * 26, 800, y + 34 + r * 26, stroke="#e5e7eb")
        c = chunks
        hw, kw, dw = h / c, k_w / c, d / c
        for i in range(c):
            xs = [x0 + i * hw, x0 + (i + 1) * hw, None]
            xs[2] = max(xs[1] + kw, x0 + h / c + kw + i * dw) if c > 1 else xs[1] + kw
            for r, (x, w) in enumerate(((xs[0], hw), (xs[1], kw), (xs[2], dw))):
                fill, edge = lanes[r][1], lanes[r][2]
                s.rect(x, y + 20 + r * 26, w - 2, 20, fill=fill, stroke=edge, rx=1)
                if c == 1 or w > 30:
                    s.text(x + (w - 2) / 2, y + 34 + r * 26, ("in", "transform", "out")[r] if c == 1 else "c%d" % i,
                           size=9.5, anchor="middle", mono=True)
        return xs[2] + dw

    y1, y2 = 278, 396
    end1 = timeline(y1, "one stream", "(copy_serial)", 1)
    end2 = timeline(y2, "4 chunks, 4 streams", "(copy_overlap)", 4)
    s.line(end1, y1 + 16, end1, y1 + 92, stroke=BAD_EDGE, dash="3 3")
    s.line(end2, y2 + 16, end2, y2 + 92, stroke=SHARED_EDGE, dash="3 3")
    s.text(end1 + 6, y1 + 86, "done", size=11, fill=BAD_EDGE)
    s.text(end2 + 6, y2 + 34, "done sooner: chunk c+1 comes in", size=11, fill=SHARED_EDGE)
    s.text(end2 + 6, y2 + 48, "while chunk c is transformed and", size=11, fill=SHARED_EDGE)
    s.text(end2 + 6, y2 + 62, "chunk c-1 goes out", size=11, fill=SHARED_EDGE)
    s.text(20, 522, "The pipeline runs at the pace of its slowest stage, plus one chunk to fill it and one to "
           "drain it. Copies overlap only", size=11.5, fill=MUTED)
    s.text(20, 538, "from pinned host memory (cudaMallocHost), and a copy in beside a copy out needs two copy "
           "engines.", size=11.5, fill=MUTED)
    return s


# ---- cooperativeGroups: a barrier across the whole grid ------------------------------------------

def grid_sync():
    s = Svg(840, 480, "A barrier across the grid: a kernel boundary, or grid.sync() in a cooperative launch")
    s.heading("Two phases that need every block's result: two kernels, or one kernel and grid.sync()",
              "y = x / sum(x). Phase one: each block writes a partial sum. Phase two: every block adds "
              "all partials and divides its share.")
    x0 = 150
    p1 = [170, 150, 190, 160]     # phase one lengths per block
    p2 = [150, 170, 140, 160]

    def blocks(y, start1, start2, waits):
        for b in range(4):
            yy = y + b * 24
            s.text(x0 - 10, yy + 14, "block %d" % b, size=11, anchor="end")
            s.rect(start1, yy, p1[b], 18, fill=THREAD, stroke=THREAD_EDGE, rx=1)
            if waits:
                s.rect(start1 + p1[b], yy, start2 - start1 - p1[b], 18, fill=IDLE, stroke="#d1d5db", rx=1,
                       dash="2 2")
            s.rect(start2, yy, p2[b], 18, fill=SHARED, stroke=SHARED_EDGE, rx=1)
            if b == 0:
                s.text(start1 + p1[b] / 2, yy + 13, "phase one: its partial", size=10, anchor="middle")
                s.text(start2 + p2[b] / 2, yy + 13, "phase two: y = x / total", size=10, anchor="middle")
        return y + 4 * 24

    y = 86
    s.text(20, y - 8, "two_kernels", size=13, weight="bold", mono=True)
    end1 = x0 + max(p1)
    gap = 60
    yb = blocks(y + 8, x0, end1 + gap, False)
    s.line(end1 + gap / 2, y + 6, end1 + gap / 2, yb + 4, stroke=BAD_EDGE, sw=1.5, dash="5 3")
    s.text(end1 + gap / 2, yb + 20, "kernel boundary: the first kernel ends, the second is launched",
           size=11, anchor="middle", fill=BAD_EDGE)
    s.text(x0 + 4, y + 2, "partial_sums<<<grid, block>>>", size=10.5, mono=True, fill=THREAD_EDGE)
    s.text(end1 + gap + 4, y + 2, "normalise_by_partials<<<grid, block>>>", size=10.5, mono=True,
           fill=SHARED_EDGE)
    y = 250
    s.text(20, y - 8, "grid_sync", size=13, weight="bold", mono=True)
    yb = blocks(y + 8, x0, end1 + 8, True)
    s.line(end1 + 4, y + 6, end1 + 4, yb + 4, stroke=SHARED_EDGE, sw=2)
    s.text(end1 + 4, yb + 20, "grid.sync(): every block waits here until all have arrived; their writes "
           "are then visible to all", size=11, anchor="middle", fill=SHARED_EDGE)
    s.text(x0 + 4, y + 2, "one kernel, launched by cudaLaunchCooperativeKernel", size=10.5, fill=INK)
    s.rect(x0 + 520, y + 16, 18, 14, fill=IDLE, stroke="#d1d5db", dash="2 2")
    s.text(x0 + 544, y + 27, "waiting at the barrier", size=10.5, fill=MUTED)
    s.text(20, 410, "A block waiting at grid.sync() keeps its SM. So every block of the grid must be resident "
           "at once: a cooperative launch", size=12)
    s.text(20, 428, "refuses a grid larger than resident blocks per SM x SMs "
           "(cudaErrorCooperativeLaunchTooLarge). In an ordinary launch a", size=12)
    s.text(20, 446, "block that never started would never arrive, and the blocks waiting for it would "
           "wait forever.", size=12, fill=BAD_EDGE)
    return s


# ---- streamOrderedAllocation: what the pool keeps between iterations ----------------------------

def pool_threshold():
    s = Svg(840, 420, "A temporary buffer every iteration: cudaMalloc, a pool that releases, a pool that keeps")
    s.heading("A temporary buffer every iteration: who pays to map the memory",
              "Three iterations of: allocate, the kernels, free, synchronise. Schematic, not to scale "
              "(the measured times are in the README).")
    x0, it_gap = 190, 14
    work = 60

    def row(y, name, sub, parts, pool):
        s.text(20, y + 14, name, size=12, weight="bold", mono=True)
        s.text(20, y + 30, sub, size=10.5, fill=MUTED)
        x = x0
        for it in range(3):
            for label, w, fill, edge in parts(it):
                s.rect(x, y, w - 2, 24, fill=fill, stroke=edge, rx=1)
                if label:
                    s.text(x + (w - 2) / 2, y + 16, label, size=9.5, anchor="middle")
                x += w
            x += it_gap
        s.text(x + 4, y + 16, pool, size=10.5, fill=SHARED_EDGE if "keeps" in pool else MUTED)

    mapc, unmap = (BAD, BAD_EDGE), (BAD, BAD_EDGE)
    row(80, "malloc_free", "cudaMalloc / cudaFree",
        lambda it: [("map", 36, *mapc), ("kernels", work, THREAD, THREAD_EDGE), ("unmap", 62, *unmap)],
        "no pool")
    row(150, "async_release0", "cudaMallocAsync, threshold 0",
        lambda it: [("map", 36, *mapc), ("kernels", work, THREAD, THREAD_EDGE), ("release", 62, *unmap)],
        "released at each sync")
    row(220, "async_keep", "threshold: keep all",
        lambda it: ([("map", 36, *mapc)] if it == 0 else [("reuse", 38, SHARED, SHARED_EDGE)])
        + [("kernels", work, THREAD, THREAD_EDGE), ("", 8, SHARED, SHARED_EDGE)],
        "kept by the pool")
    row(290, "preallocated", "one buffer, the floor",
        lambda it: [("kernels", work, THREAD, THREAD_EDGE)], "")
    s.line(x0, 336, 820, 336, stroke=MUTED, arrow=True)
    s.text(824, 340, "t", size=11, fill=MUTED)
    s.rect(20, 356, 16, 14, fill=BAD, stroke=BAD_EDGE)
    s.text(42, 367, "mapping or releasing device memory: the cost being measured", size=11.5)
    s.rect(20, 378, 16, 14, fill=SHARED, stroke=SHARED_EDGE)
    s.text(42, 389, "a freed block taken back from the pool: almost free", size=11.5)
    s.text(20, 410, "At every synchronisation a pool holding more than its release threshold gives the excess "
           "back; the default threshold is 0.", size=11.5, fill=MUTED)
    return s


# ---- p2pBandwidthLatencyTest: the ways bytes go from one GPU to another -------------------------

def peer_paths():
    s = Svg(840, 430, "From one GPU to another: staged through the host, or peer to peer over NVLink")
    s.heading("From GPU 0 to GPU 1: staged through the host, or peer to peer",
              "What each variant of the sample measures. Schematic: the measured figures are in the "
              "README.")

    def gpu(x, y, name):
        s.rect(x, y, 230, 150, fill="#ffffff", stroke=INK, rx=8)
        s.text(x + 12, y + 22, name, size=13, weight="bold")
        s.rect(x + 14, y + 34, 96, 40, fill=THREAD, stroke=THREAD_EDGE, rx=4)
        s.text(x + 62, y + 58, "SMs", size=12, anchor="middle")
        s.rect(x + 120, y + 34, 96, 40, fill=CPU, stroke=CPU_EDGE, rx=4)
        s.text(x + 168, y + 52, "copy", size=12, anchor="middle")
        s.text(x + 168, y + 67, "engines", size=12, anchor="middle")
        s.rect(x + 14, y + 90, 202, 44, fill=GLOBAL, stroke=GLOBAL_EDGE, rx=4)
        s.text(x + 115, y + 117, "HBM", size=12, anchor="middle")

    gpu(40, 80, "GPU 0 (source)")
    gpu(570, 80, "GPU 1 (destination)")
    # NVLink between them
    s.rect(330, 110, 180, 34, fill=SHARED, stroke=SHARED_EDGE, rx=6)
    s.text(420, 132, "NVLink / NVSwitch", size=12, anchor="middle", weight="bold", fill=SHARED_EDGE)
    s.line(272, 127, 328, 127, stroke=SHARED_EDGE, sw=2.5, arrow=True)
    s.line(512, 127, 568, 127, stroke=SHARED_EDGE, sw=2.5, arrow=True)
    s.text(420, 164, "p2p on: cudaDeviceEnablePeerAccess", size=11, anchor="middle", mono=True,
           fill=SHARED_EDGE)
    # host path
    s.rect(300, 300, 240, 50, fill=IDLE, stroke=MUTED, rx=6)
    s.text(420, 322, "host memory", size=12, anchor="middle", weight="bold")
    s.text(420, 340, "(the driver's pinned staging buffer)", size=10.5, anchor="middle", fill=MUTED)
    s.path("M155 232 V325 H298", stroke=BAD_EDGE, sw=2, arrow=True, dash="6 3")
    s.path("M542 325 H685 V234", stroke=BAD_EDGE, sw=2, arrow=True, dash="6 3")
    s.text(160, 290, "PCIe", size=11, fill=BAD_EDGE)
    s.text(690, 290, "PCIe", size=11, fill=BAD_EDGE)
    s.text(420, 282, "p2p off: every byte crosses host memory", size=11, anchor="middle", fill=BAD_EDGE)
    # the variants
    y = 376
    s.text(20, y, "ce_*_p2p_on / _off:", size=11.5, mono=True)
    s.text(190, y, "the copy engines move the bytes (cudaMemcpyPeerAsync), no SM time", size=11.5)
    s.text(20, y + 18, "sm_write_*:", size=11.5, mono=True)
    s.text(190, y + 18, "a kernel on GPU 0 stores into GPU 1's memory through a pointer", size=11.5)
    s.text(20, y + 36, "sm_read_*:", size=11.5, mono=True)
    s.text(190, y + 36, "a kernel on GPU 1 loads GPU 0's memory: each load waits for the link", size=11.5)
    return s


# ---- programmatic dependent launch (programmaticDependentLaunch) -----------------

def pdl_overlap():
    s = Svg(800, 340, "Programmatic dependent launch against plain launches")
    s.heading("A chain of dependent kernels: plain launches, or the next one started early",
              "Schematic, not to scale: the measured times are in 6_Advanced/programmaticDependentLaunch/README.md.")
    lx, pro, body, gap = 150, 70, 34, 40

    def kernel(x, y, i, wait=0):
        s.rect(x, y, pro, 24, fill=SHARED, stroke=SHARED_EDGE)
        s.text(x + pro / 2, y + 16, "prologue %d" % i, size=10, anchor="middle")
        if wait:
            s.rect(x + pro, y, wait, 24, fill=IDLE, stroke=MUTED, dash="3 2")
            s.text(x + pro + wait / 2, y + 16, "wait", size=10, anchor="middle", fill=MUTED)
        s.rect(x + pro + wait, y, body, 24, fill=GLOBAL, stroke=GLOBAL_EDGE)
        s.text(x + pro + wait + body / 2, y + 16, "x %d" % i, size=10, anchor="middle", mono=True)
        return x + pro + wait + body

    y = 92
    s.text(20, y - 12, "plain: kernel k+1 starts after kernel k has finished", size=13, weight="bold")
    x = lx
    for i in range(3):
        x = kernel(x, y, i)
        s.rect(x, y + 4, gap, 16, fill="#ffffff", stroke=BAD_EDGE, dash="3 2")
        x += gap
    s.text(x + 8, y + 16, "launch gap each time", size=11, fill=BAD_EDGE)

    y = 176
    s.text(20, y - 12, "PDL: kernel k triggers at once, k+1 runs its prologue early, waits, then reads x",
           size=13, weight="bold")
    start, end = lx, 0
    for i in range(3):
        yy = y + i * 30
        w = 0 if i == 0 else max(0, end - (start + pro))
        end = kernel(start, yy, i, wait=w)
        s.text(start - 6, yy + 16, "trigger", size=9, anchor="end", fill=THREAD_EDGE)
        start = start + 10
    s.text(end + 10, y + 76, "the prologues overlap the kernel before", size=11, fill=SHARED_EDGE)
    s.text(20, 300, "cudaTriggerProgrammaticLaunchCompletion(): the next kernel may start now.  "
           "cudaGridDependencySynchronize(): wait", size=12, fill=MUTED)
    s.text(20, 318, "until the kernel before has finished and its stores are visible; nothing above it "
           "may read what that kernel writes.", size=12, fill=MUTED)
    return s


# ---- fp8Gemm: one stage of the ring, both operands K-major ------------------------------

def fp8_stage():
    """One stage of fp8Gemm's ring: A's and B's boxes, both K-major, 128 bytes
    of K a row, and the 4 wgmma k32 chunks that read them."""
    s = Svg(1000, 470, "fp8Gemm: one stage of the ring, A and B both K-major, read by 4 wgmma of k = 32")
    s.heading("One FP8 stage: two K-major boxes of 128-byte rows, 4 wgmma k32 per stage",
              "A tile of 128 x 256 outputs; e4m3 is one byte, so a 128-byte swizzle row holds K = 128 "
              "(BF16: 64). Sizes to scale along K, not along the rows.")
    x0, kw = 120, 320  # 128 bytes of K drawn 320 wide: 32 bytes = 80
    def box(y, h, label, rows, fill, edge):
        s.rect(x0, y, kw, h, fill=fill, stroke=edge, rx=3)
        for c in range(1, 4):
            s.line(x0 + c * kw / 4, y, x0 + c * kw / 4, y + h, stroke=edge, sw=0.8, dash="3 3")
        s.text(x0 - 10, y + h / 2 - 4, label, size=13, anchor="end", weight="bold")
        s.text(x0 - 10, y + h / 2 + 12, rows, size=10, anchor="end", fill=MUTED)
    box(80, 80, "A", "128 rows (M)", SHARED, SHARED_EDGE)
    box(190, 160, "B", "256 rows (N)", SHARED, SHARED_EDGE)
    for c in range(4):
        s.text(x0 + c * kw / 4 + kw / 8, 74, "k %d-%d" % (32 * c, 32 * c + 31), size=10, anchor="middle",
               mono=True, fill=MUTED)
    s.brace(x0, x0 + kw, 356, "128 bytes = K 128: one swizzle row, one TMA box width", size=11)
    s.line(x0 + kw / 2, 160, x0 + kw / 2, 190, stroke=MUTED, sw=0.6, dash="2 3")
    s.text(x0 + kw + 14, 100, "16 KiB: rows 0-63 for consumer 0,", size=11)
    s.text(x0 + kw + 14, 115, "rows 64-127 for consumer 1", size=11)
    s.text(x0 + kw + 14, 215, "32 KiB: all 256 rows for both consumers", size=11)
    s.text(x0 + kw + 14, 230, "(B given as N x K: K-major, like A)", size=11)
    s.text(x0 + kw + 14, 270, "wgmma.mma_async.m64n256k32.f32.e4m3.e4m3", size=11, mono=True, fill=THREAD_EDGE)
    s.text(x0 + kw + 14, 286, "chunk c: both descriptors start 32 c bytes into", size=11)
    s.text(x0 + kw + 14, 301, "their box; 8-row groups 1024 bytes apart (SBO)", size=11)
    s.text(20, 405, "Why both K-major: FP8 wgmma has no transposed form (BF16 wgmma can read B as K x N, "
           "N-major). cuBLASLt's FP8 path asks the same:", size=11.5)
    s.text(20, 421, "the TN layout. Each stage holds 48 KiB; four stages fill 192 KiB of the 227 KiB of "
           "shared memory a block can have.", size=11.5)
    s.text(20, 437, "The accumulators stay FP32 in registers (64 x 256 per consumer: 128 a thread); the "
           "epilogue multiplies by scale_a scale_b and stores BF16.", size=11.5)
    return s


# ---- transpose: a tile's column in the banks, padded, swizzled --------------------

def transpose_tile():
    s = Svg(900, 452, "A transpose tile in shared memory: the column a warp reads, and its banks")
    s.heading("Shared memory for a transpose: which banks a column of the tile falls in",
              "A warp reads one column of the 32 x 32 tile. Bank = 4-byte word % 32; one bank serves one "
              "word per pass. Rows 0..7 of 32 shown.")
    W, H, x0 = 7, 16, 40
    for panel, (title, sub, pad) in enumerate((
            ("tile[32][32]", "column 0: all in bank 0 (32 passes)", 0),
            ("tile[32][33]", "column 0: row x in bank x (1 pass)", 1))):
        y0 = 112 + panel * 180
        s.text(x0, y0 - 34, title, size=13, weight="bold", mono=True)
        s.text(x0, y0 - 18, sub, size=12, fill=BAD_EDGE if pad == 0 else SHARED_EDGE)
        for b in range(0, 32, 8):
            s.text(x0 + b * W + W / 2, y0 - 4, str(b), size=9, anchor="middle", fill=MUTED)
        for x in range(8):
            for b in range(32):
                hit = (x * (32 + pad)) % 32 == b
                fill = (BAD if pad == 0 else SHARED) if hit else "#ffffff"
                edge = (BAD_EDGE if pad == 0 else SHARED_EDGE) if hit else "#d1d5db"
                s.rect(x0 + b * W, y0 + x * H, W, H, fill=fill, stroke=edge, sw=1.5 if hit else 0.6, rx=0)
            s.text(x0 - 6, y0 + x * H + 12, str(x), size=9, anchor="end", fill=MUTED)
    s.text(x0, 442, "banks 0..31 across, tile rows down", size=11, fill=MUTED)
    # the swizzle
    px, py, C = 380, 112, 52
    s.text(px, py - 34, "TMA's 128-byte swizzle (step 05)", size=13, weight="bold")
    s.text(px, py - 18, "chunk k of row r is stored at chunk position k ^ (r % 8)", size=12, fill=SHARED_EDGE)
    for p in range(8):
        s.text(px + p * C + C / 2, py - 4, "%d-%d" % (4 * p, 4 * p + 3), size=9, anchor="middle", fill=MUTED)
    for r in range(8):
        for p in range(8):
            k = p ^ r
            hit = k == 0
            s.rect(px + p * C, py + r * 30, C, 30, fill=SHARED if hit else "#ffffff",
                   stroke=SHARED_EDGE if hit else "#d1d5db", sw=1.5 if hit else 0.6, rx=0)
            s.text(px + p * C + C / 2, py + r * 30 + 19, "k=%d" % k, size=10, anchor="middle",
                   weight="bold" if hit else "normal", fill=SHARED_EDGE if hit else INK, mono=True)
        s.text(px - 6, py + r * 30 + 19, "r=%d" % r, size=9, anchor="end", fill=MUTED)
    s.text(px + 8 * C + 8, py + 12, "banks", size=9, fill=MUTED)
    s.text(px, py + 272, "One row = 128 bytes = 8 chunks of 16 bytes (4 floats), 4 banks each. Chunk 0 of",
           size=11, fill=MUTED)
    s.text(px, py + 288, "rows 0..7 (green) is spread over all 32 banks: a column of chunks costs one pass",
           size=11, fill=MUTED)
    s.text(px, py + 304, "without padding, which TMA cannot leave: it writes a box densely.", size=11, fill=MUTED)
    return s


# ---- clusters: 65,536 bins split over the shared memory of a cluster ----------------------

def cluster_histogram():
    s = Svg(800, 440, "A 65,536-bin histogram in the distributed shared memory of a cluster of 4 blocks")
    s.heading("A cluster of 4 blocks holds 65,536 bins: a quarter in each block's shared memory",
              "256 KiB of counters do not fit one block (227 KiB at most); 64 KiB per block do.")
    s.rect(20, 70, 760, 250, fill="#ffffff", stroke=MUTED, dash="4 3", rx=8)
    s.text(32, 88, "one cluster: 4 blocks running at once on the SMs of one GPC", size=12, weight="bold")
    bw = 172
    for r in range(4):
        x = 36 + r * (bw + 14)
        s.rect(x, 100, bw, 206, fill="#ffffff", stroke=INK, rx=6)
        s.text(x + 10, 118, "block rank %d" % r, size=12, weight="bold")
        s.rect(x + 10, 128, bw - 20, 64, fill=SHARED, stroke=SHARED_EDGE, rx=4)
        s.text(x + 16, 146, "slice_bins[16384]", size=11, mono=True, fill=SHARED_EDGE)
        s.text(x + 16, 164, "bins %d..%d" % (r * 16384, r * 16384 + 16383), size=11, mono=True)
        s.text(x + 16, 182, "shared memory, 64 KiB", size=10, fill=MUTED)
    # a thread of block 0 counts the sample 40000: bin 40000 lives in block 2
    tx = 36 + 20
    s.rect(tx, 222, 130, 24, fill=THREAD, stroke=THREAD_EDGE, rx=3)
    s.text(tx + 6, 238, "sample v = 40000", size=11, mono=True)
    s.text(tx, 262, "owner = v / 16384 = 2", size=10.5, mono=True)
    s.text(tx, 278, "off = v % 16384 = 7232", size=10.5, mono=True)
    s.text(tx, 296, "map_shared_rank(.., 2)", size=10.5, mono=True, fill=THREAD_EDGE)
    x2 = 36 + 2 * (bw + 14)
    s.line(tx + 130, 234, x2 + 60, 194, stroke=THREAD_EDGE, sw=1.6, arrow=True)
    s.text(x2 + 66, 212, "atomicAdd(+1), over DSMEM", size=10.5, fill=THREAD_EDGE)
    s.text(36 + 3 * (bw + 14) + 10, 240, "a sample whose bin is", size=10.5, fill=MUTED)
    s.text(36 + 3 * (bw + 14) + 10, 256, "in its own block's slice:", size=10.5, fill=MUTED)
    s.text(36 + 3 * (bw + 14) + 10, 272, "a local add (1 in 4)", size=10.5, fill=MUTED)
    s.rect(20, 336, 760, 44, fill=GLOBAL, stroke=GLOBAL_EDGE, rx=4)
    s.text(32, 354, "hist[65536]: global memory", size=11, fill=GLOBAL_EDGE)
    s.text(32, 372, "block r adds slice_bins[b] into hist[r * 16384 + b]: one atomic per non-zero bin per block",
           size=11, mono=False)
    for r in range(4):
        x = 36 + r * (bw + 14) + bw / 2
        s.line(x, 306, x, 334, stroke=GLOBAL_EDGE, arrow=True)
    s.text(20, 404, "cluster.sync() after zeroing: no add lands in a slice before it is zero.", size=12)
    s.text(20, 424, "cluster.sync() after counting: merge only when no peer still adds; no block exits early.",
           size=12, fill=BAD_EDGE)
    return s


def cluster_inbox():
    s = Svg(800, 460, "Sending samples into the owner block's inbox instead of adding them over DSMEM")
    s.heading("Send samples, not atomics: each block keeps half the bins and an inbox",
              "A warp adds its own block's samples at once and sends the others' 16-bit offsets, 8 per 16-byte store.")
    s.rect(20, 62, 760, 240, fill="#ffffff", stroke=MUTED, dash="4 3", rx=8)
    s.text(32, 80, "one cluster of 2 blocks (steps 09 to 11)", size=12, weight="bold")
    x0, x1, bw = 34, 406, 360

    def slice_box(x, r):
        s.rect(x, 112, 200, 44, fill=SHARED, stroke=SHARED_EDGE, rx=4)
        s.text(x + 6, 129, "slice_bins[32768]", size=11, mono=True, fill=SHARED_EDGE)
        s.text(x + 6, 147, "bins %d..%d, 128 KiB" % (r * 32768, r * 32768 + 32767), size=10.5, mono=True)

    def staging_box(x):
        s.rect(x, 112, 128, 44, fill=SHARED, stroke=SHARED_EDGE, rx=4)
        s.text(x + 6, 129, "staging", size=11, fill=SHARED_EDGE)
        s.text(x + 6, 147, "512 bytes a warp", size=10.5, fill=MUTED)

    for r, x in ((0, x0), (1, x1)):
        s.rect(x, 88, bw, 204, fill="#ffffff", stroke=INK, rx=6)
        s.text(x + 10, 104, "block rank %d" % r, size=12, weight="bold")
        s.rect(x + 10, 234, bw - 20, 44, fill=SHARED, stroke=SHARED_EDGE, rx=4)
        s.text(x + 16, 251, "inbox: the offsets sent to me (64 KiB)", size=11, fill=SHARED_EDGE)
        s.text(x + 16, 269, "and a counter per round", size=10.5, fill=MUTED)
    slice_box(x0 + 10, 0)
    staging_box(x0 + 222)
    staging_box(x1 + 10)
    slice_box(x1 + 150, 1)
    # a warp of block 1 with its 256 samples
    s.rect(x1 + 70, 176, 250, 40, fill=THREAD, stroke=THREAD_EDGE, rx=3)
    s.text(x1 + 76, 192, "a warp: 256 samples (8 a lane)", size=11, fill=THREAD_EDGE)
    s.text(x1 + 76, 208, "owner = v / 32768, a ballot each", size=10, mono=True)
    s.line(x1 + 250, 176, x1 + 250, 158, stroke=SHARED_EDGE, arrow=True)
    s.text(x1 + 256, 170, "mine: atomicAdd", size=10, fill=SHARED_EDGE)
    s.line(x1 + 90, 176, x1 + 70, 158, stroke=THREAD_EDGE, arrow=True)
    s.text(x1 + 98, 170, "others: pack", size=10, fill=THREAD_EDGE)
    # the send: one reservation, then 16-byte stores into block 0's inbox
    s.path("M%s 134 C 392 134 400 256 %s 256" % (num(x1 + 10), num(x0 + bw - 10)), stroke=THREAD_EDGE, sw=1.8,
           arrow=True)
    s.text(x0 + bw - 26, 176, "1 atomicAdd on rank 0's counter", size=10.5, anchor="end", fill=THREAD_EDGE)
    s.text(x0 + bw - 26, 192, "per warp, then 16-byte stores", size=10.5, anchor="end", fill=THREAD_EDGE)
    s.text(x0 + bw - 26, 208, "over DSMEM, 8 offsets each", size=10.5, anchor="end", fill=THREAD_EDGE)
    s.line(x0 + 40, 234, x0 + 40, 158, stroke=SHARED_EDGE, arrow=True)
    s.text(x0 + 48, 184, "after A: drain", size=10.5, fill=SHARED_EDGE)
    s.text(x0 + 48, 200, "with local atomics", size=10.5, fill=SHARED_EDGE)
    # one round
    y = 326
    s.text(20, y, "one round (every block makes the same number):", size=12, weight="bold")
    steps = [("load 4 vectors", THREAD, THREAD_EDGE), ("add mine, send the rest", THREAD, THREAD_EDGE),
             ("A: cluster.sync()", BAD, BAD_EDGE), ("drain my inbox", SHARED, SHARED_EDGE),
             ("B: cluster.sync()", BAD, BAD_EDGE)]
    x = 20
    for i, (label, fill, edge) in enumerate(steps):
        w = 140
        s.rect(x, y + 10, w, 28, fill=fill, stroke=edge, rx=3)
        s.text(x + w / 2, y + 29, label, size=11, anchor="middle")
        if i < len(steps) - 1:
            s.line(x + w, y + 24, x + w + 14, y + 24, arrow=True)
        x += w + 15
    s.text(20, y + 62, "A: every offset sent to me has landed before I drain.", size=12)
    s.text(20, y + 82, "B: I have drained before a peer sends its next round into my inbox.", size=12)
    s.text(20, y + 102, "Step 11 splits each into arrive and wait, and adds its own samples in between.", size=12,
           fill=MUTED)
    return s


# ---- scan: the single-pass decoupled look-back ------------------------------------------------

def decoupled_lookback():
    s = Svg(840, 430, "Decoupled look-back: each tile learns what comes before it from its predecessors' status words")
    s.heading("Single-pass scan: each tile looks back at its predecessors' status words",
              "One 64-bit word per tile: a flag and a 32-bit value, written by one store, so a reader "
              "never sees one without the other.")
    styles = {"P": (SHARED, SHARED_EDGE, "PREFIX"), "A": (GLOBAL, GLOBAL_EDGE, "AGGREGATE"),
              "X": ("#ffffff", INK, "INVALID")}
    # tiles 0..9: (status, value shown); tile 9 is the one looking back
    tiles = [("P", "12"), ("P", "25"), ("P", "31"), ("P", "40"), ("A", "7"), ("X", ""),
             ("A", "9"), ("A", "5"), ("A", "6"), ("A", "8")]
    x0, y0, w, gap = 30, 110, 70, 8
    for t, (st, v) in enumerate(tiles):
        fill, edge, _ = styles[st]
        x = x0 + t * (w + gap)
        s.rect(x, y0, w, 46, fill=fill, stroke=edge, sw=2 if t == 9 else 1)
        s.text(x + w / 2, y0 - 8, "tile %d" % t, size=11, anchor="middle", fill=MUTED)
        s.text(x + w / 2, y0 + 19, st, size=13, anchor="middle", weight="bold", mono=True)
        s.text(x + w / 2, y0 + 37, v or "-", size=11, anchor="middle", mono=True)
    # first look: tiles 5..8 seen by tile 9's warp; tile 5 INVALID: wait
    s.text(x0, 190, "tile 9, warp 0, one lane per predecessor (32 in the code, 4 drawn):", size=12)
    s.brace(x0 + 5 * (w + gap), x0 + 8 * (w + gap) + w, 170, "", below=False, color=THREAD_EDGE)
    s.text(x0 + 20, 214, "1. tile 5 says INVALID (it has not finished its own block scan): the warp "
           "loads the window again", size=11.5)
    s.text(x0 + 20, 236, "2. tile 5 now says AGGREGATE 4; tiles 5-8 have no PREFIX: add 4 + 9 + 5 + 6 = "
           "24, look at tiles 1-4", size=11.5)
    s.text(x0 + 20, 258, "3. tile 3 says PREFIX 40 (everything up to tile 3): add the aggregates after it "
           "(7) and 40, and stop:", size=11.5)
    s.text(x0 + 40, 280, "before tile 9 = 24 + 7 + 40 = 71; tile 9 publishes PREFIX 71 + 8 = 79", size=11.5,
           mono=True)
    # legend
    ly = 312
    for k, st in enumerate(["X", "A", "P"]):
        fill, edge, name = styles[st]
        x = x0 + k * 250
        s.rect(x, ly, 22, 20, fill=fill, stroke=edge)
        s.text(x + 11, ly + 15, st, size=11, anchor="middle", weight="bold", mono=True)
        s.text(x + 30, ly + 15, name, size=11.5, mono=True)
    s.text(x0, ly + 48, "INVALID: nothing yet. AGGREGATE: the sum of the tile alone, published as soon as its "
           "block scan ends,", size=12, fill=MUTED)
    s.text(x0, ly + 66, "before any waiting. PREFIX: the sum of everything up to and including the tile. "
           "Each element is read once", size=12, fill=MUTED)
    s.text(x0, ly + 84, "and written once: the whole scan moves 2n elements, as fast as a copy.", size=12,
           fill=MUTED)
    return s


FIGURES = [
    ("thread_indexing.svg", thread_indexing),
    ("smem_tiling.svg", smem_tiling),
    ("reduction_tree.svg", reduction_tree),
    ("privatized_histogram.svg", privatized_histogram),
    ("pitch_roi.svg", pitch_roi),
    ("graph_replay.svg", graph_replay),
    ("tc_datapath.svg", tc_datapath),
    ("grid_stride.svg", grid_stride),
    ("last_block.svg", last_block),
    ("stream_overlap.svg", stream_overlap),
    ("grid_sync.svg", grid_sync),
    ("pool_threshold.svg", pool_threshold),
    ("peer_paths.svg", peer_paths),
    ("pdl_overlap.svg", pdl_overlap),
    ("fp8_stage.svg", fp8_stage),
    ("transpose_tile.svg", transpose_tile),
    ("cluster_histogram.svg", cluster_histogram),
    ("cluster_inbox.svg", cluster_inbox),
    ("decoupled_lookback.svg", decoupled_lookback),
]


def main(argv):
    check, out = False, OUT
    for a in argv:
        if a == "--check":
            check = True
        elif a.startswith("--out="):
            out = a[len("--out="):]
        elif a in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        else:
            print("figures: unknown argument '%s' (see --help)" % a, file=sys.stderr)
            return 1
    problems = []
    drawn = set()
    for name, draw in FIGURES:
        text = draw().render()
        path = os.path.join(out, name)
        drawn.add(name)
        if check:
            try:
                with open(path, encoding="utf-8") as f:
                    if f.read() != text:
                        problems.append("%s differs from what tools/figures.py draws (run make figures)" % path)
            except OSError:
                problems.append("%s is missing (run make figures)" % path)
        else:
            os.makedirs(out, exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
    if os.path.isdir(out):
        for name in sorted(os.listdir(out)):
            if name.endswith(".svg") and name not in drawn:
                problems.append("%s is not drawn by tools/figures.py (draw it there, or remove it)"
                                % os.path.join(out, name))
    for p in problems:
        print("figures: " + os.path.relpath(p, ROOT) if p.startswith("/") else "figures: " + p)
    if check:
        print("figures: %d drawn, %d problem(s)" % (len(FIGURES), len(problems)))
    else:
        print("figures: wrote %d figures to %s" % (len(FIGURES), os.path.relpath(out, ROOT)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
