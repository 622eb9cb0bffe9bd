#!/usr/bin/env python3
"""tc_datapath.py: draws docs/figures/tc_datapath.svg, the data path of
tensorCoreGemm's steps (its README's lesson links it), as SVG from this text
(Python's standard library only; deterministic output).

  python3 6_Advanced/tensorCoreGemm/tests/tc_datapath.py           write it
  python3 6_Advanced/tensorCoreGemm/tests/tc_datapath.py --check   exit 1 when the
                                          committed file differs from the drawing

tc_datapath() uses the same small Svg class and colours as the other
teaching figures, so it can move into the figure script of docs/figures/.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
OUT = os.path.join(ROOT, "docs", "figures", "tc_datapath.svg")

INK = "#1f2937"
MUTED = "#6b7280"
THREAD = "#dbeafe"
THREAD_EDGE = "#2563eb"
BAD_EDGE = "#dc2626"
SHARED = "#dcfce7"
SHARED_EDGE = "#16a34a"
GLOBAL = "#fef3c7"
GLOBAL_EDGE = "#d97706"
CPU = "#ede9fe"
CPU_EDGE = "#7c3aed"
FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"
MONO = "DejaVu Sans Mono, Menlo, Consolas, monospace"


def num(v):
    s = ("%.2f" % v).rstrip("0").rstrip(".")
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

    def render(self):
        head = ('<svg xmlns="http://www.w3.org/2000/svg" xml:space="preserve" width="%d" height="%d" viewBox="0 0 %d %d">\n'
                '<title>%s</title>\n'
                '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
                'markerHeight="7" orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z" fill="%s"/>'
                '</marker></defs>\n'
                '<rect x="0" y="0" width="%d" height="%d" fill="#ffffff"/>\n'
                % (self.w, self.h, self.w, self.h, esc(self.title), INK, self.w, self.h))
        return head + "\n".join(self.items) + "\n</svg>\n"


def tc_datapath():
    """Global memory -> shared memory -> registers -> tensor cores, for the
    four groups of tensorCoreGemm's steps, and what each one removes."""
    s = Svg(1040, 560, "tensorCoreGemm: the data path from global memory to the tensor cores, step by step")
    s.text(20, 28, "Feeding the tensor cores: global memory -> shared memory -> (registers) -> tensor cores",
           size=16, weight="bold")
    s.text(20, 48, "Each row is a group of steps; an arrow is one hop of A and B, labelled with the "
           "instruction that makes it and who issues it.", size=12, fill=MUTED)
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


def main(argv):
    svg = tc_datapath().render()
    if argv[1:] == ["--check"]:
        try:
            with open(OUT) as f:
                same = f.read() == svg
        except OSError:
            same = False
        if not same:
            print("tc_datapath.py: %s differs from the drawing (run the script to redraw it)" % OUT)
            return 1
        return 0
    if argv[1:]:
        print("usage: tc_datapath.py [--check]")
        return 1
    with open(OUT, "w") as f:
        f.write(svg)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
